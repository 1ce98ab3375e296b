"""Review time per decision, today's code against an older revision's (issue 38, target 4).

``run`` reviews the same decisions (records played by the heuristic, seat 0, the first
``decisions`` real decisions of each) with ``bots.review.review_decision`` at the same budget
and ``samples``, here and, with ``baseline=REV``, in a subprocess on that revision's exported
tree (``evaluation.bench.baseline.export_revision``): this file runs there as a script with the
old tree first on ``sys.path``, so ``bots.review`` is the old one. The lead wires it as
``atelier bench review``; by hand:
``python -m evaluation.bench.review --baseline main --decisions 6``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_GAMES = ("detective_eye", "finger_auction", "gallery_rush", "modern_art")


def heuristic_record(game: str, seed: int) -> tuple[Any, dict[str, Any], list[int]]:
    """A whole game played by the game's heuristic (chance from ``seed``): its history."""
    import random

    import games
    from bots.heuristics import knowledge_for

    defn = games.definition(game)
    params = defn.validate_params({})
    knowledge = knowledge_for(game)
    rng = random.Random(seed)
    engine = defn.new_engine(params)
    while engine.current_player() != -4:
        player = engine.current_player()
        engine.apply(engine.sample_chance(rng) if player < 0 else knowledge.choose(engine, rng))
    return defn, params, list(engine.history)


def time_reviews(
    game: str, seed: int, decisions: int, budget: dict[str, Any], samples: int
) -> dict[str, Any]:
    """Milliseconds per decision of the review of seat 0 of one heuristic record (whatever
    ``bots.review`` is importable: today's, or a baseline's in the worker)."""
    import bots
    from bots.review import infoset_before, plan_review, review_decision
    from games.core.definition import replay
    from games.core.infoset import build_infoset

    defn, params, history = heuristic_record(game, seed)
    engine = replay(defn, params, history)
    infoset = build_infoset(defn, params, engine, 0, with_view=False)
    plan = plan_review(defn, params, infoset, seed)
    chosen = plan["decisions"][:decisions]
    bot = bots.make_bot("ismcts")
    started = time.perf_counter()
    for item in chosen:
        review_decision(
            defn,
            params,
            infoset_before(infoset, item["step"]),
            item["played"]["id"],
            bot,
            bots.Budget.from_json(budget),
            seed + item["step"],
            samples,
        )
    elapsed = (time.perf_counter() - started) * 1000.0
    return {"decisions": len(chosen), "ms_per_decision": round(elapsed / max(1, len(chosen)), 1)}


def run(
    names: list[str] | None = None,
    decisions: int = 6,
    budget: dict[str, Any] | None = None,
    samples: int = 100,
    seed: int = 0,
    baseline: str | None = None,
) -> dict[str, Any]:
    """Per game: today's milliseconds per decision and, with ``baseline``, that revision's."""
    from evaluation.bench.baseline import export_revision

    budget = budget or {"simulations": 200, "milliseconds": 1000}
    old_root = export_revision(baseline) if baseline else None
    rows = []
    for game in names or list(DEFAULT_GAMES):
        args = [game, seed, decisions, budget, samples]
        row: dict[str, Any] = {"game": game, "new": time_reviews(*args)}  # type: ignore[arg-type]
        if old_root is not None:
            out = subprocess.run(
                [sys.executable, __file__, str(old_root), json.dumps(args)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            row["baseline"] = json.loads(out.strip().splitlines()[-1])
            row["ratio"] = round(
                row["new"]["ms_per_decision"] / row["baseline"]["ms_per_decision"], 2
            )
        rows.append(row)
    return {
        "budget": budget,
        "samples": samples,
        "decisions": decisions,
        "baseline": baseline,
        "rows": rows,
    }


def format_table(report: dict[str, Any]) -> str:
    lines = [f"{'game':<16} {'new ms':>9} {'baseline ms':>12} {'ratio':>6}"]
    for row in report["rows"]:
        old = row.get("baseline", {}).get("ms_per_decision", "-")
        lines.append(
            f"{row['game']:<16} {row['new']['ms_per_decision']:>9} {old:>12} "
            f"{row.get('ratio', '-'):>6}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) == 3 and Path(sys.argv[1]).is_dir():  # the baseline worker
        sys.path.insert(0, sys.argv[1])
        print(json.dumps(time_reviews(*json.loads(sys.argv[2]))))
    else:
        import argparse

        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--baseline")
        parser.add_argument("--decisions", type=int, default=6)
        parser.add_argument("--samples", type=int, default=100)
        parser.add_argument("--game", action="append")
        ns = parser.parse_args()
        report = run(ns.game, ns.decisions, None, ns.samples, 0, ns.baseline)
        print(format_table(report))
