"""ISMCTS simulations per CPU second: ours against OpenSpiel's Python ``ISMCTSBot``, same job.

This is the search with uniform random rollouts, no belief weights and no prior: the job both
bots can do alike, kept for the comparison with OpenSpiel (issue 40, target 2: 15x). It is not
the bot as served, whose rollouts are the games' heuristics and whose worlds and tree carry the
heuristic's beliefs and prior: ``atelier bench hint`` (``evaluation.bench.hint``) measures that.

For every game and player count, one position (a mid-game decision reached by seeded random
play) is searched by both bots in short interleaved slices (``rounds`` slices of ``seconds /
rounds`` each per contender, alternating), and each slice is timed by the CPU time of the
thread that runs both searches (``time.thread_time``: a library's idle threads, such as
OpenBLAS's under numpy, are not charged to either) as well as the wall clock. On a shared
machine a slice's wall time includes the time the process waited for a core, which the other
contender's slice need not have waited, so the ratio of wall-clock rates moves with the load
(issue 40 saw 12.9-17.6x for one code); the CPU time does not. Each round gives one paired
ratio (ours per CPU second over OpenSpiel's, the two slices next to each other), and the
report gives their geometric mean with its 95% t-interval over the rounds, the load average
before and after, and the wall-clock rates too.

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
subprocess on its own code (``_baseline_worker.py``, which times each slice by its thread's
CPU time the same way), in the same interleaved slices, at the same position (checked: the
same history) with the same rollout policy. ``vs_baseline`` is the paired ratio of today's
simulations per CPU second to the baseline's.
"""

from __future__ import annotations

import math
import os
import random
import time
from typing import Any

import pyspiel

from bots.heuristics import knowledge_for
from bots.ismcts import DEPTH_GAME, SearchConfig, search
from bots.protocol import Budget, Worlds
from evaluation.bench.baseline import BaselineError, BaselineProcess, export_revision  # noqa: F401
from evaluation.bench.hint import _load, settings
from evaluation.bench.spiel_ismcts import make_spiel_ismcts
from evaluation.tournament.stats import mean_ci
from games.core.episode import random_position
from games.core.infoset import build_infoset

TARGET_RATIO = 15.0
# What the figures are of, printed with them: not what a hint gets.
MEASURES = (
    "the search on uniform random rollouts, without belief weights or prior, against "
    "OpenSpiel's Python ISMCTSBot doing the same; not the bot as served (its heuristic "
    "rollouts, beliefs and prior): see `atelier bench hint`"
)
CLOCK = (
    "simulations per CPU second of the measuring thread, slices interleaved; ratio: geometric "
    "mean of the per-round paired ratios with its 95% t-interval"
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
        players: int,
        position_seed: int,
        seconds: float,
        seed: int,
        worlds: int,
        abstraction: bool,
    ) -> tuple[dict[str, float], list[int]]:
        """One slice: ``({"simulations", "wall", "cpu"}, the position's history)``."""
        job = {
            "game": name,
            "players": players,
            "position_seed": position_seed,
            "seconds": seconds,
            "seed": seed,
            "worlds": worlds,
            "abstraction": abstraction,
        }
        answer = self.ask(job)
        slice_ = {
            "simulations": answer["simulations"],
            "wall": answer["seconds"],
            "cpu": answer["cpu_seconds"],
        }
        return slice_, answer["history"]


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


def timed_slice(measure, *args) -> dict[str, float]:
    """``measure(*args)`` (``(simulations, seconds)``) with the wall and CPU seconds it took.

    The CPU time is this thread's (``time.thread_time``): what the slice computed, without
    the time it waited for a core on a busy machine or other threads' time. Both clocks time
    the same span (the bot's construction included), so the CPU time never exceeds the
    wall time; ``measure``'s own seconds, which leave the construction out, are not used."""
    wall_started, cpu_started = time.perf_counter(), time.thread_time()
    simulations, _ = measure(*args)
    cpu = time.thread_time() - cpu_started
    return {"simulations": simulations, "wall": time.perf_counter() - wall_started, "cpu": cpu}


def paired(new: list[dict[str, float]], old: list[dict[str, float]]) -> dict[str, Any]:
    """``new``'s simulations per CPU second over ``old``'s, slice pair by slice pair: the
    geometric mean of the ratios and its 95% t-interval (``None`` ends with one pair; pairs
    where a side ran nothing are left out)."""
    logs = [
        math.log((a["simulations"] / a["cpu"]) / (b["simulations"] / b["cpu"]))
        for a, b in zip(new, old, strict=True)
        if min(a["simulations"], b["simulations"]) > 0 and min(a["cpu"], b["cpu"]) > 0
    ]
    if not logs:
        return {"value": None, "low": None, "high": None, "pairs": 0}
    mean, ci = mean_ci(logs)
    return {
        "value": round(math.exp(mean), 2),
        "low": round(math.exp(ci[0]), 2) if ci else None,
        "high": round(math.exp(ci[1]), 2) if ci else None,
        "pairs": len(logs),
    }


def contender(slices: list[dict[str, float]]) -> dict[str, Any]:
    """A contender's totals over its slices: per CPU second (the figure compared) and per
    wall-clock second (what the machine's load left it)."""
    sims = sum(s["simulations"] for s in slices)
    cpu = sum(s["cpu"] for s in slices)
    wall = sum(s["wall"] for s in slices)
    return {
        "simulations": sims,
        "cpu_seconds": round(cpu, 3),
        "wall_seconds": round(wall, 3),
        "per_cpu_s": round(sims / cpu, 1) if cpu > 0 else 0.0,
        "per_wall_s": round(sims / wall, 1) if wall > 0 else 0.0,
    }


def run(
    names: list[str] | None = None,
    seconds: float = 4.0,
    seed: int = 0,
    rounds: int = 8,
    worlds: int = 32,
    abstraction: bool = False,
    progress=None,
    baseline: str | None = None,
    players: list[int] | None = None,
) -> dict[str, Any]:
    """Measures every game at every player count (or those of ``players``); returns the JSON
    report (``baseline``: a revision to compare with). ``ValueError`` for a game or player
    count that cannot be measured (named)."""
    chosen = settings(names, players)
    old = Baseline(baseline) if baseline else None
    try:
        return _run(chosen, seconds, seed, rounds, worlds, abstraction, progress, old)
    finally:
        if old is not None:
            old.close()


def _run(chosen, seconds, seed, rounds, worlds, abstraction, progress, old):
    report: dict[str, Any] = {
        "measures": MEASURES,
        "clock": CLOCK,
        "seconds_per_contender": seconds,
        "rounds": rounds,
        "worlds": worlds,
        "rollouts": "uniform over candidates" if abstraction else "uniform over legal actions",
        "seed": seed,
        "target_ratio": TARGET_RATIO,
        "baseline": old.rev if old else None,
        "load_before": _load(),
        "rows": [],
    }
    for name, players in chosen:
        report["rows"].append(
            _setting(
                name, players, seconds / rounds, seed, rounds, worlds, abstraction, progress, old
            )
        )
    report["load_after"] = _load()
    lowest = min(report["rows"], key=lambda row: row["ratio"]["value"] or 0.0)
    report["min_ratio"] = lowest["ratio"]
    report["target_met"] = (lowest["ratio"]["value"] or 0.0) >= TARGET_RATIO
    lows = [row["ratio"]["low"] for row in report["rows"]]
    report["target_met_at_low_end"] = all(low is not None and low >= TARGET_RATIO for low in lows)
    return report


def _setting(name, players, slice_s, seed, rounds, worlds, abstraction, progress, old):
    """One game at one player count: the interleaved slices and their figures."""
    game = pyspiel.load_game(name, {"players": players})
    knowledge = knowledge_for(name) if abstraction else None
    # Our search reads only the abstraction from the knowledge: random rollouts, no cut-off.
    engine = position(game, seed)
    seat = engine.current_player()
    infoset = build_infoset(game.definition, game.params, engine, seat)
    state = game.state_from_engine(engine)
    slices: dict[str, list[dict[str, float]]] = {"ours": [], "openspiel": []}
    if old:
        slices["baseline"] = []
    for r in range(rounds):
        if progress:
            progress(f"{name} {players} players: round {r + 1}/{rounds}")
        # The order alternates, so neither contender always runs right after the other.
        pair = [
            ("ours", _ours, infoset),
            ("openspiel", _theirs, state),
        ]
        for label, measure, where in pair if r % 2 == 0 else pair[::-1]:
            slices[label].append(
                timed_slice(measure, game, where, slice_s, seed + r, worlds, knowledge)
            )
        if old:
            measured, history = old.measure(
                name, players, seed, slice_s, seed + r, worlds, abstraction
            )
            if history != engine.history:
                raise BaselineError(
                    f"{name}: the baseline {old.rev} reached another position from seed "
                    f"{seed}: its games differ, so its speed is not comparable"
                )
            slices["baseline"].append(measured)
    row: dict[str, Any] = {
        "game": name,
        "players": players,
        "params": game.params,
        "position": {"steps": len(engine.history), "seat": seat},
        "ours": contender(slices["ours"]),
        "openspiel": contender(slices["openspiel"]),
        "ratio": paired(slices["ours"], slices["openspiel"]),
    }
    if old:
        row["baseline"] = contender(slices["baseline"])
        row["vs_baseline"] = paired(slices["ours"], slices["baseline"])
        if name in BASELINE_TARGETS:
            row["vs_baseline_target"] = BASELINE_TARGETS[name]
            met = (row["vs_baseline"]["value"] or 0.0) >= BASELINE_TARGETS[name]
            row["vs_baseline_target_met"] = met
    return row


def _interval(ratio: dict[str, Any]) -> str:
    """``12.3 [11.0, 13.8]`` (the interval left out with one round)."""
    if ratio["value"] is None:
        return "-"
    if ratio["low"] is None:
        return f"{ratio['value']:.1f}"
    return f"{ratio['value']:.1f} [{ratio['low']:.1f}, {ratio['high']:.1f}]"


def _verdict(report: dict[str, Any]) -> str:
    """The target line: met or missed on the point estimate, and whether every lower end
    clears it too (a point estimate just over the target on a busy machine is not a margin)."""
    mark = "met" if report["target_met"] else "MISSED"
    low = "every lower end above it" if report["target_met_at_low_end"] else "some lower end below"
    return (
        f"lowest ratio {_interval(report['min_ratio'])} (target >= {TARGET_RATIO:.0f}: {mark}; "
        f"{low})"
    )


def _load_line(report: dict[str, Any]) -> str:
    return (
        f"Load average {report['load_before']} before, {report['load_after']} after, "
        f"on {os.cpu_count() or 1} CPUs."
    )


def format_table(report: dict[str, Any]) -> str:
    base = report.get("baseline")
    head = f"{'game':<16}{'pl':>3}{'ours/cpu s':>12}{'openspiel':>11}{'ratio [95%]':>22}"
    head += f"{'wall ratio':>12}"
    if base:
        head += f"{base + '/cpu s':>16}{'vs ' + base + ' [95%]':>22}"
    lines = [
        f"ISMCTS simulations/s, same position, rollouts {report['rollouts']}, "
        f"{report['worlds']} worlds, {report['rounds']} interleaved rounds",
        head,
    ]
    for row in report["rows"]:
        wall = row["ours"]["per_wall_s"] / max(row["openspiel"]["per_wall_s"], 1e-9)
        line = (
            f"{row['game']:<16}{row['players']:>3}{row['ours']['per_cpu_s']:>12,.0f}"
            f"{row['openspiel']['per_cpu_s']:>11,.1f}{_interval(row['ratio']):>22}{wall:>12.1f}"
        )
        if base:
            line += f"{row['baseline']['per_cpu_s']:>16,.0f}{_interval(row['vs_baseline']):>22}"
            if "vs_baseline_target" in row:
                mark = "met" if row["vs_baseline_target_met"] else "MISSED"
                line += f"  (target >= {row['vs_baseline_target']:.0f}: {mark})"
        lines.append(line)
    lines.append(_verdict(report))
    lines.append(_load_line(report))
    lines.append(
        f"Figures: {CLOCK}; wall ratio: total simulations per wall-clock second, ours over "
        "OpenSpiel's (moves with the load)."
    )
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
    head = "| game | players | ours (sims per CPU s) | OpenSpiel (sims per CPU s) | ratio [95%] |"
    rule = "|---|---|---|---|---|"
    if base:
        head += f" {base} (sims per CPU s) | vs {base} [95%] |"
        rule += "---|---|"
    lines = [head, rule]
    for row in report["rows"]:
        line = (
            f"| {NAMES.get(row['game'], row['game'])} | {row['players']} | "
            f"{row['ours']['per_cpu_s']:,.0f} | {row['openspiel']['per_cpu_s']:,.0f} | "
            f"{_interval(row['ratio'])} |"
        )
        if base:
            line += f" {row['baseline']['per_cpu_s']:,.0f} | {_interval(row['vs_baseline'])} |"
        lines.append(line)
    verdict = _verdict(report)
    lines += [
        "",
        f"{verdict[0].upper()}{verdict[1:]}. {_load_line(report)} Figures: {CLOCK}. "
        f"Measures {MEASURES}.",
    ]
    return "\n".join(lines)
