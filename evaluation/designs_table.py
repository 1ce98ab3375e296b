"""The search against the published-design opponents: first-place shares from tournament files.

``python -m evaluation.designs_table FILE.jsonl ...`` reads gauntlet tournaments of ``ismcts``
against the designs of ``bots.designs`` (``atelier tournament --format gauntlet``; docs/bots.md,
"Opponents we did not write") and prints one markdown row per file and design: ``ismcts``'s
first-place share (ties split, ``bots.luck.win_shares``) over the games of that lineup, its
95% Wilson interval, the uniform share 1/n, whether the interval's lower end is above it, and
the search's mean milliseconds and the process's CPU share per game (how loaded the machine
was). A tournament still running is read as far as it got; the games column says how many.
Files named ``CELL+MORE.jsonl`` (more deals of the same cell under another seed) count with
``CELL.jsonl``: one row per cell and design.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from bots.luck import win_shares
from evaluation.bench.strength import wilson

SEARCH = "ismcts"


def cell_of(path: Path) -> str:
    """The cell a tournament file measures: its name up to a ``+`` (more deals of the cell)."""
    return path.stem.split("+", 1)[0]


def rows(paths: list[Path]) -> list[dict]:
    """One row per cell and design of the tournament files ``paths``, sorted by both names
    (whatever order a shell lists the files in)."""
    by_cell: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for path in paths:
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            game = json.loads(line)
            others = {label for label in game["seats"] if label != SEARCH}
            if SEARCH in game["seats"] and len(others) == 1:
                by_cell[(cell_of(path), others.pop())].append(game)
    out = []
    for (cell, design), played in sorted(by_cell.items()):
        shares, ms, cpu = [], [], []
        for game in played:
            seat = game["seats"].index(SEARCH)
            shares.append(win_shares(game["returns"])[seat])
            ms.append(game["time"]["ms_per_move"][seat])
            cpu.append(game["time"]["cpu_ms"] / max(1.0, game["time"]["wall_ms"]))
        n = len(played)
        share = sum(shares) / n
        players = len(played[0]["seats"])
        low, high = wilson(share, n)
        out.append(
            {
                "file": cell,
                "game": played[0]["game"],
                "players": players,
                "design": design,
                "games": n,
                "share": share,
                "interval": (low, high),
                "uniform": 1.0 / players,
                "met": low > 1.0 / players,
                "ms_per_move": sum(ms) / n,
                "cpu_share": sum(cpu) / n,
            }
        )
    return out


def markdown(all_rows: list[dict]) -> str:
    head = (
        "| cell | game | players | design | games | ismcts first-place share [95%] | uniform "
        "| lower end above uniform | ismcts ms/move | CPU share |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
    )
    body = "".join(
        f"| {r['file']} | {r['game']} | {r['players']} | `{r['design']}` | {r['games']} "
        f"| {r['share']:.3f} [{r['interval'][0]:.2f}, {r['interval'][1]:.2f}] "
        f"| {r['uniform']:.3f} | {'yes' if r['met'] else 'no'} "
        f"| {r['ms_per_move']:.0f} | {r['cpu_share']:.2f} |\n"
        for r in all_rows
    )
    return head + body


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m evaluation.designs_table TOURNAMENT.jsonl ...", file=sys.stderr)
        return 2
    missing = [a for a in argv if not Path(a).is_file()]
    if missing:
        print(f"no such tournament file: {missing[0]}", file=sys.stderr)
        return 2
    print(markdown(rows([Path(a) for a in argv])), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
