"""Reading a summary: the table printed on stdout and the two PNG plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def _ci(ci: list[float] | None, fmt: str) -> str:
    return "" if ci is None else f"[{format(ci[0], fmt)}, {format(ci[1], fmt)}]"


def ordered_bots(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Bots best first: by rating, then mean return, then label (a stable, total order)."""
    return sorted(
        summary["bots"],
        key=lambda b: (
            -(b["rating"] if b["rating"] is not None else float("-inf")),
            -(b["mean_return"] if b["mean_return"] is not None else float("-inf")),
            b["label"],
        ),
    )


def format_table(summary: dict[str, Any]) -> str:
    """The summary as a few aligned tables for a terminal."""
    t = summary["tournament"]
    g = summary["games"]
    r = summary["ratings"]
    timing = summary["timing"]["bots"]
    rating_name = "elo" if r["method"] == "elo" else "openskill mu"
    lines = [
        f"{t['game']} {json.dumps(t['params'], sort_keys=True)}  {t['format']}, "
        f"{g['played']}/{g['planned']} games over {g['deals_played']}/{t['deals']} deals, "
        f"seed {t['seed']}, budget {json.dumps(t['budget'])}"
        + ("" if g["complete"] else "  (INCOMPLETE)"),
        "",
    ]
    header = (
        f"{'bot':<16}{'games':>7}  {'mean return  95% CI':<28}{'win share  95% CI':<26}"
        f"{rating_name + '  95% CI':<30}{'ms/move':>9}"
    )
    lines.append(header)
    lines.append("-" * len(header))
    for b in ordered_bots(summary):
        rfmt = "+.0f" if r["method"] == "elo" else ".2f"
        lines.append(
            f"{b['label']:<16}{b['games']:>7}  "
            f"{_num(b['mean_return'], '+.3f'):>7} {_ci(b['mean_return_ci95'], '+.3f'):<20}"
            f"{_num(b['win_share'], '.3f'):>6} {_ci(b['win_share_ci95'], '.3f'):<19}"
            f"{_num(b['rating'], rfmt):>7} {_ci(b['rating_ci95'], rfmt):<22}"
            f"{_num(timing[b['label']]['ms_per_move'], '.2f'):>9}"
        )
    lines.append("")
    lines.append(f"ratings: {r['label']}")
    seats = summary["seats"]["mean_return"]
    if seats:
        lines.append(
            "mean return by seat: " + ", ".join(f"{s}: {v:+.3f}" for s, v in enumerate(seats))
        )
    pw = summary["pairwise"]
    labels = pw["labels"]
    width = max(8, *(len(x) + 1 for x in labels))
    lines.append("")
    lines.append("pairwise: share of games the row bot finished above the column bot (ties half)")
    lines.append(" " * 16 + "".join(f"{x:>{width}}" for x in labels))
    for i, a in enumerate(labels):
        cells = "".join(
            f"{'-' if v is None else format(v, '.3f'):>{width}}" for v in pw["score"][i]
        )
        lines.append(f"{a:<16}{cells}")
    return "\n".join(lines)


def plot(summary: dict[str, Any], ratings_png: Path, pairwise_png: Path) -> None:
    """Ratings with their 95% intervals, and the pairwise score heatmap, as PNG files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = summary["tournament"]
    r = summary["ratings"]
    bots = [b for b in ordered_bots(summary) if b["rating"] is not None][::-1]
    title = f"{t['game']} {json.dumps(t['params'], sort_keys=True)}"

    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.45 * max(1, len(bots))))
    ys = range(len(bots))
    vals = [b["rating"] for b in bots]
    lo = [b["rating"] - b["rating_ci95"][0] if b["rating_ci95"] else 0.0 for b in bots]
    hi = [b["rating_ci95"][1] - b["rating"] if b["rating_ci95"] else 0.0 for b in bots]
    ax.errorbar(vals, list(ys), xerr=[lo, hi], fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(list(ys), [b["label"] for b in bots])
    ax.set_xlabel(
        "Elo (anchor " + r["anchor"] + " = 0)" if r["method"] == "elo" else "openskill mu"
    )
    ax.set_title(f"Ratings with 95% intervals\n{title}", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(ratings_png, dpi=110)
    plt.close(fig)

    pw = summary["pairwise"]
    labels = pw["labels"]
    k = len(labels)
    grid = [[float("nan") if v is None else v for v in row] for row in pw["score"]]
    fig, ax = plt.subplots(figsize=(2.2 + 0.8 * k, 1.6 + 0.7 * k))
    im = ax.imshow(grid, cmap="RdBu", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(k), labels, rotation=30, ha="right")
    ax.set_yticks(range(k), labels)
    for i in range(k):
        for j in range(k):
            v = pw["score"][i][j]
            if v is not None:
                ax.text(
                    j,
                    i,
                    f"{v:.2f}\n{pw['games'][i][j]}g",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(v - 0.5) > 0.3 else "black",
                )
    ax.set_xlabel("column bot")
    ax.set_ylabel("row bot")
    ax.set_title(f"Row finishes above column (ties half)\n{title}", fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    fig.savefig(pairwise_png, dpi=110)
    plt.close(fig)
