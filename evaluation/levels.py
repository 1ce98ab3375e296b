"""The difficulty ladder of the ``level`` bot from tournament games files, with intervals.

``python -m evaluation.levels GAMES.jsonl [GAMES.jsonl ...]`` reads the games of one or more
``atelier tournament`` runs between level bots (a round robin, and optionally extra matches
between adjacent levels) and prints, per level, its Elo against level 1, the gap to the level
below, each with a 95% percentile bootstrap interval over deals, and whether the ladder is
monotone.

One rating method for every player count: each game counts once for every pair of seats held
by two different levels, a win for the one that finished above (ties half a win each), and
the pairs are fitted by Bradley-Terry maximum likelihood (OpenSpiel's ``pyspiel.elo``, as the
2-player tournament summary does; D. R. Hunter, "MM algorithms for generalized Bradley-Terry
models", Ann. Statist. 2004). In 2-player games that is exactly the tournament's own Elo; in
3-5 player games (Modern Art) it is the Elo of the pairwise finishing order, so the ladder
reads the same in every game (the tournament summary rates those with openskill instead).
The pairs of one game, and the games of one deal, are not independent, so the bootstrap
resamples whole deals (Efron & Tibshirani 1993); deals of different files are different
deals.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.tournament.stats import _elo_fit


def level_of(spec: dict[str, Any]) -> int | None:
    """The level of a ``level`` bot spec, ``None`` for any other bot."""
    if spec.get("name") != "level":
        return None
    return int(spec.get("options", {}).get("level", 4))


def read_games(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Every finished game record of the files, each tagged with a deal key unique across
    files (``(file, deal)``); lines that are not game records (errors) are refused."""
    out = []
    for i, path in enumerate(paths):
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                rec = json.loads(line)
                if "error" in rec:
                    raise ValueError(f"{path}:{n}: a failed game: {rec['error']}")
                out.append({**rec, "deal_key": (i, rec["deal"])})
    return out


def pair_tables(records: Sequence[dict[str, Any]]) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Levels seen, and per deal the wins and draws matrices of every pair of levels."""
    levels = sorted(
        {lv for r in records for lv in (level_of(s) for s in r["bots"]) if lv is not None}
    )
    index = {lv: i for i, lv in enumerate(levels)}
    deals = sorted({r["deal_key"] for r in records})
    slot = {d: i for i, d in enumerate(deals)}
    k = len(levels)
    wins = np.zeros((len(deals), k, k))
    draws = np.zeros((len(deals), k, k))
    for rec in records:
        seats = [level_of(s) for s in rec["bots"]]
        rets = rec["returns"]
        d = slot[rec["deal_key"]]
        for s, a in enumerate(seats):
            for t in range(s + 1, len(seats)):
                b = seats[t]
                if a is None or b is None or a == b:
                    continue
                i, j = index[a], index[b]
                if rets[s] > rets[t]:
                    wins[d, i, j] += 1
                elif rets[t] > rets[s]:
                    wins[d, j, i] += 1
                else:
                    draws[d, i, j] += 1
                    draws[d, j, i] += 1
    return levels, wins, draws


def ladder(
    records: Sequence[dict[str, Any]], bootstrap: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """Elo per level (level 1, or the lowest seen, at 0) and adjacent gaps, with 95% CIs."""
    levels, wins, draws = pair_tables(records)
    if len(levels) < 2:
        raise ValueError("the games hold fewer than two levels")
    point = _elo_fit(wins.sum(0), draws.sum(0), 0)
    n = wins.shape[0]
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, len(levels)))
    for b in range(bootstrap):
        counts = np.bincount(rng.integers(0, n, n), minlength=n)
        samples[b] = _elo_fit(
            np.tensordot(counts, wins, axes=1), np.tensordot(counts, draws, axes=1), 0
        )
    games = {lv: 0 for lv in levels}
    for rec in records:
        for lv in {level_of(s) for s in rec["bots"]} - {None}:
            games[lv] += 1
    pairs = wins + np.transpose(wins, (0, 2, 1)) + draws
    rows = []
    for i, lv in enumerate(levels):
        lo, hi = np.percentile(samples[:, i], [2.5, 97.5])
        row: dict[str, Any] = {
            "level": lv,
            "elo": float(point[i]),
            "elo_ci95": [float(lo), float(hi)],
            "games": games[lv],
        }
        if i:
            gap = samples[:, i] - samples[:, i - 1]
            glo, ghi = np.percentile(gap, [2.5, 97.5])
            head = pairs[:, i, i - 1].sum()
            score = (
                (wins[:, i, i - 1].sum() + draws[:, i, i - 1].sum() / 2) / head if head else None
            )
            row.update(
                {
                    "gap": float(point[i] - point[i - 1]),
                    "gap_ci95": [float(glo), float(ghi)],
                    "head_to_head": int(head),
                    "head_to_head_score": float(score) if score is not None else None,
                }
            )
        rows.append(row)
    gaps = [r["gap"] for r in rows[1:]]
    return {
        "method": "Bradley-Terry Elo of pairwise finishing order (pyspiel.elo), 95% percentile "
        f"bootstrap over deals ({bootstrap} resamples)",
        "deals": n,
        "games": len(records),
        "levels": rows,
        "monotone": all(g > 0 for g in gaps),
        "gaps_above_zero": all(r["gap_ci95"][0] > 0 for r in rows[1:]),
    }


def markdown(result: dict[str, Any]) -> str:
    """The ladder as a Markdown table (the docs' format)."""
    lines = [
        "| level | Elo | 95% CI | gap to level below | 95% CI | head-to-head (games, score) "
        "| games |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["levels"]:
        ci = "[{:+.0f}, {:+.0f}]".format(*r["elo_ci95"])
        if "gap" in r:
            gap = f"{r['gap']:+.0f}"
            gci = "[{:+.0f}, {:+.0f}]".format(*r["gap_ci95"])
            score = r["head_to_head_score"]
            h2h = f"{r['head_to_head']}, {score:.3f}" if score is not None else "0"
        else:
            gap = gci = h2h = ""
        lines.append(
            f"| {r['level']} | {r['elo']:+.0f} | {ci} | {gap} | {gci} | {h2h} | {r['games']} |"
        )
    lines.append("")
    lines.append(
        f"{result['games']} games over {result['deals']} deals; monotone: "
        f"{'yes' if result['monotone'] else 'no'}; every gap's interval above zero: "
        f"{'yes' if result['gaps_above_zero'] else 'no'}."
    )
    return "\n".join(lines)


def rounded(result: dict[str, Any]) -> dict[str, Any]:
    """The ladder as published: whole Elo, scores to three decimals (what ``markdown`` shows),
    so the stored figures and the docs' tables are the same numbers."""

    def whole(x: float) -> int:
        return round(x)

    rows = []
    for r in result["levels"]:
        row = {**r, "elo": whole(r["elo"]), "elo_ci95": [whole(x) for x in r["elo_ci95"]]}
        if "gap" in r:
            row["gap"] = whole(r["gap"])
            row["gap_ci95"] = [whole(x) for x in r["gap_ci95"]]
            if r["head_to_head_score"] is not None:
                row["head_to_head_score"] = round(r["head_to_head_score"], 3)
        rows.append(row)
    return {**result, "levels": rows}


def dump_measured(data: dict[str, Any]) -> str:
    """``bots/levels_measured.json``'s text: indented, with each interval on one line."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return re.sub(r"\[\s+(-?[0-9.]+),\s+(-?[0-9.]+)\s+\]", r"[\1, \2]", text) + "\n"


def record_measured(
    records: Sequence[dict[str, Any]], result: dict[str, Any], command: str, path: Path
) -> str:
    """Stores ``result`` (rounded) as its game's measured ladder in ``path``, with the presets
    it was played with (today's) and the command; returns the game. One game and one player
    count per ladder: the page says at how many players a rating was measured."""
    from bots.levels import presets_for

    settings = {(r.get("game"), (r.get("params") or {}).get("players")) for r in records}
    if len(settings) != 1 or None in next(iter(settings)):
        raise ValueError(
            "--record needs games of one game at one player count, with their game and params "
            f"recorded; these have {sorted(map(str, settings))}"
        )
    game, players = next(iter(settings))
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data[game] = {
        "players": int(players),
        "presets": [p.to_json() for p in presets_for(game)],
        "commands": [command],
        "ladder": rounded(result),
    }
    path.write_text(dump_measured(dict(sorted(data.items()))), encoding="utf-8")
    return game


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.levels",
        description="The level bot's Elo ladder from `atelier tournament` games files.",
    )
    parser.add_argument("games", nargs="*", type=Path, help="games files (JSON lines)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument(
        "--record",
        action="store_true",
        help="store the ladder as its game's measured one in bots/levels_measured.json (served "
        "by GET /v1/games/{game}/levels; update docs/bots.md's table with --stored GAME)",
    )
    parser.add_argument(
        "--stored",
        metavar="GAME",
        help="print GAME's stored ladder (bots/levels_measured.json) instead of reading games",
    )
    args = parser.parse_args(argv)
    if args.bootstrap < 1:
        parser.error("--bootstrap must be >= 1")
    from bots.levels import MEASURED_PATH, measured_ladders

    if args.stored is not None:
        if args.games or args.record:
            parser.error("--stored prints the stored ladder: give no games files nor --record")
        stored = measured_ladders().get(args.stored)
        if stored is None:
            parser.error(
                f"no stored ladder for {args.stored!r}; stored: {sorted(measured_ladders())}"
            )
        result = stored["ladder"]
        print(json.dumps(result, indent=2) if args.json else markdown(result))
        return 0
    if not args.games:
        parser.error("give games files (or --stored GAME)")
    try:
        records = read_games(args.games)
        result = ladder(records, args.bootstrap, args.seed)
        if args.record:
            command = "python -m evaluation.levels " + " ".join(
                shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
            )
            game = record_measured(records, result, command, MEASURED_PATH)
            print(f"recorded {game}'s ladder in {MEASURED_PATH}", file=sys.stderr)
    except (OSError, ValueError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
