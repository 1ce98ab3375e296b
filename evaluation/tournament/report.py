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
        + (f" ({t['clock']} clock)" if "clock" in t else "")
        + (
            ""
            if g["complete"]
            else "  (stopped by the SPRT)"
            if "sprt" in summary
            else "  (INCOMPLETE)"
        ),
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
    anchor = f" (anchor {r['anchor']} = 0)" if r["method"] == "elo" else ""
    lines.append(f"ratings{anchor}: {r['label']}")
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
    if "luck" in summary:
        lines += ["", *format_luck(summary["luck"])]
    if "sprt" in summary:
        lines += ["", *format_sprt(summary["sprt"])]
    return "\n".join(lines)


def format_luck(luck: dict[str, Any]) -> list[str]:
    """Raw and luck-corrected means side by side, the variance reduction, and Elo."""
    lines = [
        "luck-corrected (AIVAT), value estimate " + json.dumps(luck["value"], sort_keys=True),
    ]
    header = (
        f"{'bot':<16}{'raw mean  95% CI':<28}{'corrected mean  95% CI':<30}"
        f"{'SE ratio':>9}{'games ratio':>13}"
    )
    lines += [header, "-" * len(header)]
    for b in luck["bots"]:
        if not b.get("deals"):
            continue
        lines.append(
            f"{b['label']:<16}{_num(b['mean_return'], '+.3f'):>7} "
            f"{_ci(b['mean_return_ci95'], '+.3f'):<20}"
            f"{_num(b['corrected_mean_return'], '+.3f'):>7} "
            f"{_ci(b['corrected_mean_return_ci95'], '+.3f'):<22}"
            f"{_num(b['se_ratio'], '.3f'):>9}{_num(b['games_ratio'], '.3f'):>13}"
        )
    lines.append(
        "SE ratio: corrected standard error / raw (per deal); games ratio = its square, the "
        "share of games the corrected score needs for the same interval width"
    )
    elo = luck.get("elo")
    if elo:
        lines.append("")
        lines += [
            f"pairwise Elo against {elo['anchor']} (the mean expected score as Elo, 95% t "
            "interval over deals), raw and corrected;",
            "the table's elo is a Bradley-Terry fit with a bootstrap interval (two bots, "
            "win/draw/loss returns: the same point as raw)",
        ]
        for label, row in elo["bots"].items():
            if label == elo["anchor"]:
                continue
            raw, cor = row["raw"], row["corrected"]
            lines.append(
                f"  {label:<14} raw {_num(raw['elo'], '+.0f'):>5} "
                f"{_ci(raw['elo_ci95'], '+.0f'):<14}"
                f" corrected {_num(cor['elo'], '+.0f'):>5} {_ci(cor['elo_ci95'], '+.0f'):<14}"
                f" SE ratio {_num(row['se_ratio'], '.3f')}"
            )
    return lines


def format_sprt(t: dict[str, Any]) -> list[str]:
    """The sequential test's decision, what it rests on and the estimate.

    The estimate is the first bot's edge over the second (the hypotheses' direction), so its
    Elo is the table's rating gap with the sign of "first over second" (the table rates the
    second bot against the first at 0), on the scores the test used (raw or luck-corrected).
    """
    a, b = t["bots"]
    lo, hi = t["bounds"]
    trace = t["llr_trace"]
    shown = trace if len(trace) <= 12 else [*trace[:6], "...", *trace[-5:]]
    return [
        f"SPRT {a} vs {b}: H0 elo <= {t['elo0']:g}, H1 elo >= {t['elo1']:g}, alpha "
        f"{t['alpha']:g}, beta {t['beta']:g} ({t['scores']} scores)",
        f"decision: {t['decision'] or 'none'}: {t['meaning']}",
        f"after {t['deals']} deals ({t['games']} games): LLR {t['llr']:+.3f}, bounds "
        f"[{lo:+.3f}, {hi:+.3f}]",
        "LLR by deal: " + ", ".join(x if isinstance(x, str) else f"{x:+.2f}" for x in shown),
        f"{a} over {b} on the test's {t['scores']} scores: score {_num(t['score'], '.3f')} "
        f"{_ci(t['score_ci95'], '.3f')}, pairwise Elo {_num(t['elo'], '+.0f')} "
        f"{_ci(t['elo_ci95'], '+.0f')} (t interval), likelihood of superiority "
        f"{_num(t['los'], '.3f')}",
    ]


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
