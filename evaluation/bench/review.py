"""Review time per decision, today's code against an older revision's (issue 38, target 4).

``run`` reviews the same decisions (records played by the heuristic, seat 0, the first
``decisions`` real decisions of each) with ``bots.review.review_decision`` at the same budget
and ``samples``, here and, with ``baseline=REV``, in a subprocess on that revision's exported
tree (``evaluation.bench.baseline.export_revision``, which builds that revision's own compiled
modules): this file runs there as a script with the old tree first on ``sys.path``, so
``bots.review`` is the old one. ``atelier bench review --baseline
0efcab7`` (the revision before the analysis landed), or
``python -m evaluation.bench.review --baseline 0efcab7 --decisions 6``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click

from evaluation.bench.baseline import BaselineError

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
    progress: Any = None,
) -> dict[str, Any]:
    """Per game: today's milliseconds per decision and, with ``baseline``, that revision's
    (``progress``: called with a short text before each game)."""
    from evaluation.bench.baseline import export_revision

    budget = budget or {"simulations": 200, "milliseconds": 1000}
    old_root = export_revision(baseline) if baseline else None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the old tree only
    rows = []
    for game in names or list(DEFAULT_GAMES):
        if progress is not None:
            progress(game)
        args = [game, seed, decisions, budget, samples]
        row: dict[str, Any] = {"game": game, "new": time_reviews(*args)}  # type: ignore[arg-type]
        if old_root is not None:
            done = subprocess.run(
                [sys.executable, __file__, str(old_root), json.dumps(args)],
                capture_output=True,
                text=True,
                env=env,
            )
            if done.returncode:
                raise BaselineError(
                    f"the review at baseline {baseline} failed: {done.stderr.strip()[-400:]}"
                )
            out = done.stdout
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


@click.command("review")
@click.option("--game", "names", multiple=True, help="A game (repeatable; default: all four).")
@click.option("--decisions", default=6, show_default=True, help="Decisions reviewed per game.")
@click.option("--samples", default=100, show_default=True, help="The review's samples.")
@click.option("--simulations", default=200, show_default=True, help="The search's budget.")
@click.option("--milliseconds", default=1000.0, show_default=True, help="The search's budget.")
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--baseline",
    default=None,
    help="Git revision reviewed too, in a subprocess on its exported tree (e.g. 0efcab7, the "
    "revision before the one-analysis review).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_review(
    names: tuple[str, ...],
    decisions: int,
    samples: int,
    simulations: int,
    milliseconds: float,
    seed: int,
    baseline: str | None,
    as_json: bool,
) -> None:
    """Review time per decision, today's against a baseline revision's (issue 38, target 4)."""
    import games
    from evaluation.params import baseline_bench

    unknown = [n for n in names if n not in games.DEFINITIONS]
    if unknown:
        raise click.BadParameter(f"unknown game(s) {unknown}", param_hint="--game")
    if decisions < 1 or samples < 1 or simulations < 1 or milliseconds <= 0:
        raise click.BadParameter(
            "--decisions, --samples, --simulations and --milliseconds must be positive"
        )
    budget = {"simulations": simulations, "milliseconds": milliseconds}
    baseline_bench(
        sys.modules[__name__],
        as_json,
        list(names) or None,
        decisions,
        budget,
        samples,
        seed,
        baseline,
    )


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
