"""ISMCTS simulations per second: ours against OpenSpiel's Python ``ISMCTSBot``, same job.

This is the search with uniform random rollouts, no belief weights and no prior: the job both
bots can do alike, kept for the comparison with OpenSpiel (issue 40, target 2: 15x). It is not
the bot as served, whose rollouts are the games' heuristics and whose worlds and tree carry the
heuristic's beliefs and prior: ``atelier bench hint`` (``evaluation.bench.hint``) measures that.

For every game, one position (a mid-game decision reached by seeded random play) is searched
by both bots in short interleaved slices (``rounds`` slices of ``seconds / rounds`` each, so
load from other processes hits both alike), and the report gives both rates and their ratio.

The job is the same for both: the acting seat's information set, a pool of at most ``worlds``
worlds sampled with ``games.sample_state``'s machinery (ours through ``games.sample_engine``,
OpenSpiel's through a resampler calling ``games.sample_state``), the same rollout policy to the
end of the game, the same UCT constant, and a fresh search per slice (so both pay for sampling
their pool). The rollout policy is uniform random over every legal action (whole money ranges
included in Modern Art: our action abstraction is off, so both trees branch on every bid).
``abstraction=True`` measures instead with rollouts uniform over the candidate actions of our
abstraction, for both bots (OpenSpiel's tree still branches on every legal bid).

``baseline`` (a git revision, by default ``BASELINE_REV``, issue 15's starting point) adds a
third contender: our search as that commit had it, exported with ``git archive`` and run in a
subprocess on its own code (``_baseline_worker.py``), in the same interleaved slices, at the
same position (checked: the same history) with the same rollout policy. ``vs_baseline`` is the
ratio of today's simulations per second to the baseline's.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pyspiel

import games
from bots.heuristics import knowledge_for
from bots.ismcts import DEPTH_GAME, SearchConfig, search
from bots.protocol import Budget, Worlds
from evaluation.bench.baseline import BaselineError, BaselineProcess, export_revision  # noqa: F401
from evaluation.bench.spiel_ismcts import make_spiel_ismcts
from games.core.episode import random_position
from games.core.infoset import build_infoset

TARGET_RATIO = 15.0
# What the figures are of, printed with them: not what a hint gets.
MEASURES = (
    "the search on uniform random rollouts, without belief weights or prior, against "
    "OpenSpiel's Python ISMCTSBot doing the same; not the bot as served (its heuristic "
    "rollouts, beliefs and prior): see `atelier bench hint`"
)
# Issue 15's starting point: the search and engines before its speed work.
BASELINE_REV = "a322b0d"
# Issue 15, target 5: Modern Art at least twice the baseline's simulations per second.
BASELINE_TARGETS = {"modern_art": 2.0}


class Baseline(BaselineProcess):
    """Our ISMCTS as an older commit had it, measured slice by slice in a subprocess."""

    def __init__(self, rev: str) -> None:
        super().__init__(rev, "_baseline_worker.py")

    def measure(
        self,
        name: str,
        position_seed: int,
        seconds: float,
        seed: int,
        worlds: int,
        abstraction: bool,
    ) -> tuple[int, float, list[int]]:
        job = {
            "game": name,
            "position_seed": position_seed,
            "seconds": seconds,
            "seed": seed,
            "worlds": worlds,
            "abstraction": abstraction,
        }
        answer = self.ask(job)
        return answer["simulations"], answer["seconds"], answer["history"]


def position(game: pyspiel.Game, seed: int, decisions: int = 12):
    """A decision state with a choice, after about ``decisions`` random player moves."""
    rng = random.Random(seed)
    while True:
        made = [0]  # the decisions taken so far in this game

        def far_enough(engine, made=made, decisions=decisions) -> bool:
            if made[0] >= decisions and len(engine.legal_actions()) > 1:
                return True
            made[0] += 1
            return False

        engine = random_position(game.definition, game.params, rng, far_enough)
        if engine is not None:
            return engine
        decisions //= 2  # the game ended first: look earlier


def _ours(game, infoset, seconds: float, seed: int, worlds: int, knowledge):
    defn, params = game.definition, game.params
    rng = random.Random(seed)
    started = time.perf_counter()
    pool = Worlds.from_infoset(defn, params, infoset, rng)
    result = search(
        pool,
        Budget(milliseconds=seconds * 1000.0),
        rng,
        SearchConfig(rollout="random", rollout_depth=DEPTH_GAME, pool_size=worlds),
        knowledge,
    )
    return result.iterations, time.perf_counter() - started


def _theirs(game, state, seconds: float, seed: int, worlds: int, knowledge):
    bot = make_spiel_ismcts(
        game, seed, milliseconds=seconds * 1000.0, worlds=worlds, knowledge=knowledge
    )
    started = time.perf_counter()
    bot.get_policy(state)
    return bot.simulations, time.perf_counter() - started


def run(
    names: list[str] | None = None,
    seconds: float = 4.0,
    seed: int = 0,
    rounds: int = 4,
    worlds: int = 32,
    abstraction: bool = False,
    progress=None,
    baseline: str | None = None,
) -> dict[str, Any]:
    """Measures every game; returns the JSON report (``baseline``: a revision to compare with)."""
    names = names or sorted(games.DEFINITIONS)
    slice_s = seconds / rounds
    old = Baseline(baseline) if baseline else None
    try:
        return _run(names, slice_s, seconds, seed, rounds, worlds, abstraction, progress, old)
    finally:
        if old is not None:
            old.close()


def _run(names, slice_s, seconds, seed, rounds, worlds, abstraction, progress, old):
    report: dict[str, Any] = {
        "measures": MEASURES,
        "seconds_per_contender": seconds,
        "rounds": rounds,
        "worlds": worlds,
        "rollouts": "uniform over candidates" if abstraction else "uniform over legal actions",
        "seed": seed,
        "target_ratio": TARGET_RATIO,
        "baseline": old.rev if old else None,
        "games": {},
    }
    for name in names:
        game = pyspiel.load_game(name)
        knowledge = knowledge_for(name) if abstraction else None
        # Our search reads only the abstraction from the knowledge: random rollouts, no cut-off.
        engine = position(game, seed)
        seat = engine.current_player()
        infoset = build_infoset(game.definition, game.params, engine, seat)
        state = game.state_from_engine(engine)
        tally = {"ours": [0, 0.0], "openspiel": [0, 0.0]}
        if old:
            tally["baseline"] = [0, 0.0]
        for r in range(rounds):
            if progress:
                progress(f"{name}: round {r + 1}/{rounds}")
            for label, sims, elapsed in (
                ("ours", *_ours(game, infoset, slice_s, seed + r, worlds, knowledge)),
                ("openspiel", *_theirs(game, state, slice_s, seed + r, worlds, knowledge)),
            ):
                tally[label][0] += sims
                tally[label][1] += elapsed
            if old:
                sims, elapsed, history = old.measure(
                    name, seed, slice_s, seed + r, worlds, abstraction
                )
                if history != engine.history:
                    raise BaselineError(
                        f"{name}: the baseline {old.rev} reached another position from seed "
                        f"{seed}: its games differ, so its speed is not comparable"
                    )
                tally["baseline"][0] += sims
                tally["baseline"][1] += elapsed
        rates = {k: v[0] / v[1] for k, v in tally.items()}
        report["games"][name] = {
            "params": game.params,
            "position": {"steps": len(engine.history), "seat": seat},
            "ours": {
                "simulations": tally["ours"][0],
                "seconds": round(tally["ours"][1], 3),
                "per_s": round(rates["ours"], 1),
            },
            "openspiel": {
                "simulations": tally["openspiel"][0],
                "seconds": round(tally["openspiel"][1], 3),
                "per_s": round(rates["openspiel"], 1),
            },
            "ratio": round(rates["ours"] / rates["openspiel"], 2),
        }
        if old:
            row = report["games"][name]
            row["baseline"] = {
                "simulations": tally["baseline"][0],
                "seconds": round(tally["baseline"][1], 3),
                "per_s": round(rates["baseline"], 1),
            }
            row["vs_baseline"] = round(rates["ours"] / rates["baseline"], 2)
            if name in BASELINE_TARGETS:
                row["vs_baseline_target"] = BASELINE_TARGETS[name]
                row["vs_baseline_target_met"] = row["vs_baseline"] >= BASELINE_TARGETS[name]
    ratios = [row["ratio"] for row in report["games"].values()]
    report["min_ratio"] = min(ratios)
    report["target_met"] = min(ratios) >= TARGET_RATIO
    return report


def format_table(report: dict[str, Any]) -> str:
    base = report.get("baseline")
    head = f"{'game':<16}{'ours/s':>12}{'openspiel/s':>14}{'ratio':>9}"
    if base:
        head += f"{base + '/s':>14}{'vs ' + base:>12}"
    lines = [
        f"ISMCTS simulations/s, same position, rollouts {report['rollouts']}, "
        f"{report['worlds']} worlds",
        head,
    ]
    for name, row in report["games"].items():
        line = (
            f"{name:<16}{row['ours']['per_s']:>12,.0f}{row['openspiel']['per_s']:>14,.1f}"
            f"{row['ratio']:>9.1f}"
        )
        if base:
            line += f"{row['baseline']['per_s']:>14,.0f}{row['vs_baseline']:>12.2f}"
            if "vs_baseline_target" in row:
                mark = "met" if row["vs_baseline_target_met"] else "MISSED"
                line += f"  (target >= {row['vs_baseline_target']:.0f}: {mark})"
        lines.append(line)
    mark = "met" if report["target_met"] else "MISSED"
    lines.append(f"lowest ratio {report['min_ratio']:.1f} (target >= {TARGET_RATIO:.0f}: {mark})")
    lines.append(f"Measures {MEASURES}.")
    return "\n".join(lines)


NAMES = {
    "detective_eye": "Detective Eye",
    "finger_auction": "Finger Auction",
    "gallery_rush": "Gallery Rush",
    "modern_art": "Modern Art",
}


def markdown(report: dict[str, Any]) -> str:
    """The report as docs/bots.md's table (``--markdown``)."""
    base = report.get("baseline")
    head = "| game | ours (sims/s) | OpenSpiel (sims/s) | ratio |"
    rule = "|---|---|---|---|"
    if base:
        head += f" {base} (sims/s) | vs {base} |"
        rule += "---|---|"
    lines = [head, rule]
    for name, row in report["games"].items():
        line = (
            f"| {NAMES.get(name, name)} | {row['ours']['per_s']:,.0f} | "
            f"{row['openspiel']['per_s']:,.0f} | {row['ratio']:.1f} |"
        )
        if base:
            line += f" {row['baseline']['per_s']:,.0f} | {row['vs_baseline']:.2f} |"
        lines.append(line)
    mark = "met" if report["target_met"] else "missed"
    lines += [
        "",
        f"Lowest ratio {report['min_ratio']:.1f} (target >= {TARGET_RATIO:.0f}: {mark}). "
        f"Measures {MEASURES}.",
    ]
    return "\n".join(lines)
