"""Random-playout speed of every game's raw engine and OpenSpiel face, against a C++ reference.

The reference is OpenSpiel's C++ ``liars_dice`` driven from Python with the same random policy
(a seeded ``random.Random``), so the ratio says how our pure-Python engines compare with a
C++ game as a Python search would see it. Each measurement runs for a fixed wall time and
counts whole playouts.

``baseline`` (a git revision) adds the engines and faces of that commit as contenders, run on
the commit's own code in a subprocess (``evaluation.bench.baseline``,
``_engine_baseline_worker.py``) in the same interleaved slices with the same seeds; one seeded
random game per game checks that both revisions play the same games (``same_games``).
``engine_vs_baseline`` and ``spiel_vs_baseline`` are today's actions per CPU second over the
baseline's (CPU time leaves out the waits for a core on a loaded machine; the wall-time rates
are in the report too).
"""

from __future__ import annotations

import random
import time
from typing import Any

import pyspiel

import games
from evaluation.bench._shared import cpu_timed, seeded_history
from evaluation.bench.baseline import BaselineError, BaselineProcess  # noqa: F401
from games.core.engine import CHANCE, TERMINAL, inverse_cdf

REFERENCE_GAME = "liars_dice"


def _engine_playouts(defn: games.GameDefinition, params: dict[str, Any], seconds: float, seed: int):
    rng = random.Random(seed)
    random_ = rng.random
    root = defn.new_engine(params)
    playouts = actions = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        engine = root.copy()
        while True:
            player = engine.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                action = engine.sample_chance(rng)
            else:
                legal = engine.player_actions()
                action = legal[int(random_() * len(legal))]
            engine.apply(action)
            actions += 1
        playouts += 1
    return playouts, actions, time.perf_counter() - start


def _spiel_playouts(game: pyspiel.Game, seconds: float, seed: int):
    rng = random.Random(seed)
    random_ = rng.random
    playouts = actions = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while True:
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                action = inverse_cdf(state.chance_outcomes(), rng.random())
            else:
                legal = state.legal_actions(player)
                action = legal[int(random_() * len(legal))]
            state.apply_action(action)
            actions += 1
        playouts += 1
    return playouts, actions, time.perf_counter() - start


def _rates(playouts: int, actions: int, elapsed: float, cpu: float) -> dict[str, float]:
    return {
        "playouts": playouts,
        "actions": actions,
        "seconds": round(elapsed, 3),
        "cpu_seconds": round(cpu, 3),
        "playouts_per_s": round(playouts / elapsed, 1),
        "actions_per_s": round(actions / elapsed, 1),
        "actions_per_cpu_s": round(actions / cpu, 1),
    }


class _Tally:
    """Sums playouts, actions, wall and CPU time over the interleaved slices of a contender."""

    def __init__(self) -> None:
        self.playouts = self.actions = 0
        self.elapsed = self.cpu = 0.0

    def add(self, result: tuple[int, int, float, float]) -> None:
        self.playouts += result[0]
        self.actions += result[1]
        self.elapsed += result[2]
        self.cpu += result[3]

    def rates(self) -> dict[str, float]:
        return _rates(self.playouts, self.actions, self.elapsed, self.cpu)


def run(
    names: list[str] | None = None,
    seconds: float = 2.0,
    seed: int = 0,
    params: dict[str, dict[str, Any]] | None = None,
    rounds: int = 5,
    progress=None,
    baseline: str | None = None,
) -> dict[str, Any]:
    """Measures every game (default parameters unless given) and the reference; returns JSON.

    The contenders run in short interleaved slices (``rounds`` of ``seconds / rounds`` each),
    so load from other processes on a shared machine hits them all alike and the ratios stay
    meaningful even when the absolute rates drift. ``baseline``: a revision measured too.
    """
    old = BaselineProcess(baseline, "_engine_baseline_worker.py") if baseline else None
    try:
        return _run(names, seconds, seed, params or {}, rounds, progress, old)
    finally:
        if old is not None:
            old.close()


def _run(names, seconds, seed, params, rounds, progress, old) -> dict[str, Any]:
    names = names or sorted(games.DEFINITIONS)
    slice_s = seconds / rounds
    reference = pyspiel.load_game(REFERENCE_GAME)
    loaded = {name: pyspiel.load_game(name, params.get(name, {})) for name in names}
    ref = _Tally()
    kinds = ("engine", "spiel") + (("old_engine", "old_spiel") if old else ())
    tallies = {name: {kind: _Tally() for kind in kinds} for name in names}
    for r in range(rounds):
        if progress:
            progress(f"round {r + 1}/{rounds}")
        ref.add(cpu_timed(_spiel_playouts, reference, slice_s, seed + r))
        for name, game in loaded.items():
            tally = tallies[name]
            tally["engine"].add(
                cpu_timed(_engine_playouts, game.definition, game.params, slice_s, seed + r)
            )
            tally["spiel"].add(cpu_timed(_spiel_playouts, game, slice_s, seed + r))
            if old:
                for kind in ("engine", "spiel"):
                    job = {"game": name, "params": game.params, "kind": kind}
                    answer = old.ask({**job, "seconds": slice_s, "seed": seed + r})
                    tally["old_" + kind].add(tuple(answer["result"]))
    ref_rates = ref.rates()
    report: dict[str, Any] = {
        "reference": {
            "game": REFERENCE_GAME,
            "kind": "OpenSpiel C++ driven from Python",
            **ref_rates,
        },
        "seconds_per_contender": seconds,
        "rounds": rounds,
        "seed": seed,
        "baseline": old.rev if old else None,
        "games": {},
    }
    for name, game in loaded.items():
        rates = {kind: t.rates() for kind, t in tallies[name].items()}
        raw_rates, face_rates = rates["engine"], rates["spiel"]
        row = report["games"][name] = {
            "params": game.params,
            "engine": raw_rates,
            "spiel": face_rates,
            "engine_vs_reference": round(
                raw_rates["actions_per_s"] / ref_rates["actions_per_s"], 3
            ),
            "spiel_vs_engine": round(face_rates["actions_per_s"] / raw_rates["actions_per_s"], 3),
            # What the pyspiel trampolines add per action (C++ -> Python calls for the current
            # player, legal actions and apply), independent of how fast the engine itself is.
            "spiel_overhead_us_per_action": round(
                1e6 / face_rates["actions_per_s"] - 1e6 / raw_rates["actions_per_s"], 2
            ),
        }
        if old:
            check = old.ask({"game": name, "params": game.params, "kind": "check", "seed": seed})
            row["baseline"] = {"engine": rates["old_engine"], "spiel": rates["old_spiel"]}
            row["same_games"] = check["history"] == seeded_history(game, seed)
            for kind in ("engine", "spiel"):
                row[f"{kind}_vs_baseline"] = round(
                    rates[kind]["actions_per_cpu_s"] / rates["old_" + kind]["actions_per_cpu_s"], 3
                )
    return report


def format_table(report: dict[str, Any]) -> str:
    ref = report["reference"]
    base = report.get("baseline")
    head = (
        f"{'game':<16}{'engine act/s':>14}{'face act/s':>14}{'engine/ref':>12}{'face/engine':>13}"
        f"{'face +us/act':>14}"
    )
    if base:
        head += f"{'engine vs ' + base:>20}{'face vs ' + base:>18}  (per CPU second)"
    lines = [
        f"reference {ref['game']} (C++ via Python): {ref['actions_per_s']:,.0f} actions/s",
        head,
    ]
    for name, row in report["games"].items():
        line = (
            f"{name:<16}{row['engine']['actions_per_s']:>14,.0f}{row['spiel']['actions_per_s']:>14,.0f}"
            f"{row['engine_vs_reference']:>12.2f}{row['spiel_vs_engine']:>13.2f}"
            f"{row['spiel_overhead_us_per_action']:>14.2f}"
        )
        if base:
            line += f"{row['engine_vs_baseline']:>20.3f}{row['spiel_vs_baseline']:>18.3f}"
            if not row["same_games"]:
                line += f"  (other games than {base}'s: not comparable)"
        lines.append(line)
    return "\n".join(lines)
