"""Review time per decision, today's code against an older revision's (issue 38, target 4).

``run`` reviews the same decisions (records played by the heuristic, seat 0, the first
``decisions`` real decisions of each) with ``bots.review.review_decision`` at the same budget
and ``samples``, here and, with ``baseline=REV``, on that revision's exported tree
(``evaluation.bench.baseline.export_revision``): this file runs as a script in a subprocess
with a tree first on ``sys.path`` (this checkout's, or the old one's, where ``bots.review`` is
the old one), both sides alike, each a fresh process. With ``repeats`` the two sides alternate
(new, old, old, new, ...: a paired, interleaved comparison on a shared machine) and the ratio
gets a 95% interval over the repeats; ``clock="cpu"`` times the process's CPU time
(``time.process_time``) instead of the wall clock, which the other processes of a busy machine
move far less. ``export_revision`` builds that revision's own compiled modules, as its
``pip install -e .`` would, so each side runs its own compiled code.
``atelier bench review --baseline 0efcab7`` (the revision before the analysis landed), or
``python -m evaluation.bench.review --baseline 0efcab7 --decisions 6``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click

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


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def time_reviews(
    game: str,
    seed: int,
    decisions: int,
    budget: dict[str, Any],
    samples: int,
    clock: str = "wall",
) -> dict[str, Any]:
    """Milliseconds per decision of the review of seat 0 of one heuristic record (whatever
    ``bots.review`` is importable: today's, or a baseline's in the worker), by ``clock``
    (``CLOCKS``)."""
    now = CLOCKS[clock]
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
    started = now()
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
    elapsed = (now() - started) * 1000.0
    return {"decisions": len(chosen), "ms_per_decision": round(elapsed / max(1, len(chosen)), 1)}


def run(
    names: list[str] | None = None,
    decisions: int = 6,
    budget: dict[str, Any] | None = None,
    samples: int = 100,
    seed: int = 0,
    baseline: str | None = None,
    progress: Any = None,
    repeats: int = 1,
    clock: str = "wall",
) -> dict[str, Any]:
    """Per game: today's milliseconds per decision and, with ``baseline``, that revision's,
    each side timed ``repeats`` times, interleaved (module doc), the mean reported; ``ratio``
    is new / baseline of the means, ``ratio_interval`` the 95% t-interval of the repeats'
    own ratios (with 2 repeats or more). ``progress``: called with a short text per game."""
    from evaluation.bench.baseline import export_revision

    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {sorted(CLOCKS)}, got {clock!r}")
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    budget = budget or {"simulations": 200, "milliseconds": 1000}
    old_root = export_revision(baseline) if baseline else None
    rows = []
    for game in names or list(DEFAULT_GAMES):
        if progress is not None:
            progress(game)
        args = [game, seed, decisions, budget, samples, clock]
        new: list[dict[str, Any]] = []
        old: list[dict[str, Any]] = []
        for r in range(repeats):
            sides = (
                [(HERE, new, None), (old_root, old, baseline)] if old_root else [(HERE, new, None)]
            )
            for root, out, rev in sides if r % 2 == 0 else sides[::-1]:
                out.append(_timed_in(root, args, rev))
        row: dict[str, Any] = {"game": game, "new": _mean_row(new)}
        if old:
            row["baseline"] = _mean_row(old)
            row["ratio"] = round(
                row["new"]["ms_per_decision"] / row["baseline"]["ms_per_decision"], 2
            )
            ratios = [
                a["ms_per_decision"] / b["ms_per_decision"] for a, b in zip(new, old, strict=True)
            ]
            row["ratios"] = [round(x, 3) for x in ratios]
            row["ratio_interval"] = _t_interval(ratios)
        rows.append(row)
    return {
        "budget": budget,
        "samples": samples,
        "decisions": decisions,
        "baseline": baseline,
        "repeats": repeats,
        "clock": clock,
        "rows": rows,
    }


HERE = Path(__file__).resolve().parents[2]  # this checkout: the "new" side's tree


def _timed_in(root: Path, args: list[Any], revision: str | None) -> dict[str, Any]:
    """``time_reviews(*args)`` in a fresh process with ``root`` first on ``sys.path`` (no
    ``PYTHONPATH``: that tree only, ``tree_env``), so both sides pay the same start-up costs."""
    # Imported here, in the parent only: the worker (this file as a script) would import
    # them before it puts its tree first, so from wherever the package is installed, which
    # may be a checkout that lacks them; its own top imports only the standard library and
    # click.
    from evaluation.bench.baseline import BaselineError, tree_env

    done = subprocess.run(
        [sys.executable, __file__, str(root), json.dumps(args)],
        capture_output=True,
        text=True,
        env=tree_env(),
    )
    if done.returncode:
        who = f"at baseline {revision}" if revision else "of this checkout"
        raise BaselineError(f"the review {who} failed: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _mean_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    ms = [r["ms_per_decision"] for r in runs]
    return {"decisions": runs[0]["decisions"], "ms_per_decision": round(sum(ms) / len(ms), 1)}


def _t_interval(values: list[float]) -> list[float] | None:
    """The 95% t-interval of the mean of ``values`` (``None`` for fewer than 2)."""
    n = len(values)
    if n < 2:
        return None
    from evaluation.tournament.stats import t_quantile

    mean = sum(values) / n
    sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
    half = t_quantile(n - 1) * sd / n**0.5
    return [round(mean - half, 3), round(mean + half, 3)]


def format_table(report: dict[str, Any]) -> str:
    lines = [f"{'game':<16} {'new ms':>9} {'baseline ms':>12} {'ratio':>6} {'95% interval':>15}"]
    for row in report["rows"]:
        old = row.get("baseline", {}).get("ms_per_decision", "-")
        iv = row.get("ratio_interval")
        span = f"[{iv[0]:.2f}, {iv[1]:.2f}]" if iv else "-"
        lines.append(
            f"{row['game']:<16} {row['new']['ms_per_decision']:>9} {old:>12} "
            f"{row.get('ratio', '-'):>6} {span:>15}"
        )
    clock = report.get("clock", "wall")
    lines.append(f"({clock} clock, {report.get('repeats', 1)} interleaved repeat(s) per side)")
    return "\n".join(lines)


@click.command("review")
@click.option("--game", "names", multiple=True, help="A game (repeatable; default: all four).")
@click.option("--decisions", default=6, show_default=True, help="Decisions reviewed per game.")
@click.option("--samples", default=100, show_default=True, help="The review's samples.")
@click.option("--simulations", default=200, show_default=True, help="The search's budget.")
@click.option("--milliseconds", default=1000.0, show_default=True, help="The search's budget.")
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--repeats",
    default=1,
    show_default=True,
    help="Timings per side, interleaved; 2 or more give the ratio a 95% interval.",
)
@click.option(
    "--clock",
    type=click.Choice(sorted(CLOCKS)),
    default="wall",
    show_default=True,
    help="cpu: the review process's CPU time (steadier on a busy machine).",
)
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
    repeats: int,
    clock: str,
    baseline: str | None,
    as_json: bool,
) -> None:
    """Review time per decision, today's against a baseline revision's (issue 38, target 4)."""
    import games
    from evaluation.params import baseline_bench

    unknown = [n for n in names if n not in games.DEFINITIONS]
    if unknown:
        raise click.BadParameter(f"unknown game(s) {unknown}", param_hint="--game")
    if decisions < 1 or samples < 1 or simulations < 1 or milliseconds <= 0 or repeats < 1:
        raise click.BadParameter(
            "--decisions, --samples, --simulations, --milliseconds and --repeats must be positive"
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
        repeats=repeats,
        clock=clock,
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
