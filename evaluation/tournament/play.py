"""Playing scheduled games: the code that runs inside a worker (process pool or Dask).

A worker receives plain data (``TournamentSpec.batch``): the game's name and parameters, the
budget, and per game its seeds and the bot spec of each seat. It never receives a state or a
bot object, so the same task runs unchanged in this process, a local process pool or a Dask
worker on another machine, and gives the same record.

What a deal shares. Every game of deal ``d`` draws its chance outcomes from one stream of
uniform numbers ``u_0, u_1, ...`` (``random.Random(deal_seed).random()``): the ``k``-th chance
node of the game is resolved with ``u_k`` by inverse CDF over ``engine.chance_outcomes()``
(sorted by outcome id). Exactly one number is used per chance node, so the ``k``-th chance
node always gets ``u_k`` whatever happened before. Consequently every chance node reached
before the players' first move (the opening deal, the first player) comes out identical in
every game of the deal, and so does any later chance node reached with the same number of
earlier chance nodes and the same outcome distribution (a draw from a deck in the same
composition). Once play diverges, the same ``u_k`` may fall on a different outcome; no scheme
can share cards whose distribution the players themselves changed.

Bots see information sets only: seat ``p`` is asked ``bot.hint(defn, params,
build_infoset(defn, params, engine, p), budget, seed)`` exactly as ``Bot.hint_for_state``
would ask it, with ``seed = derive_seed(game_seed, step)`` for the game's step number. The
game runs in the one episode loop (``games.core.episode``).
"""

from __future__ import annotations

import random
import time
from typing import Any

import games
from bots import Budget, make_bot, search_clock
from games.core.engine import Engine
from games.core.episode import inverse_cdf, play_episode, stream_chance
from games.core.infoset import build_infoset
from games.core.seeds import derive_seed

__all__ = ["GameFailed", "inverse_cdf", "play_batch", "play_game"]


class GameFailed(RuntimeError):
    """A bot raised or answered with an illegal action; the message names game, seat and bot."""


def play_game(
    defn: games.GameDefinition, params: dict[str, Any], budget: Budget, task: dict[str, Any]
) -> dict[str, Any]:
    """Plays one scheduled game and returns its record (see ``docs/evaluation.md``)."""
    n = int(params["players"])
    labels = task["seats"]
    bots = [make_bot(spec) for spec in task["bots"]]
    engine = defn.new_engine(params)
    moves = [0] * n
    total_ms = [0.0] * n
    max_ms = [0.0] * n

    def where(seat: int, step: int) -> str:
        return f"game {task['index']} (deal {task['deal']}): bot {labels[seat]!r} at seat {seat}"

    def choose(engine: Engine, seat: int, step: int) -> Any:
        infoset = build_infoset(defn, params, engine, seat)
        t0 = time.perf_counter()
        try:
            hint = bots[seat].hint(defn, params, infoset, budget, derive_seed(task["seed"], step))
        except Exception as err:
            raise GameFailed(
                f"{where(seat, step)} failed at step {step}: {type(err).__name__}: {err}"
            ) from None
        ms = (time.perf_counter() - t0) * 1000.0
        if hint.action not in engine.legal_actions():
            raise GameFailed(
                f"{where(seat, step)} chose illegal action {hint.action!r} at step {step}"
            )
        moves[seat] += 1
        total_ms[seat] += ms
        max_ms[seat] = max(max_ms[seat], ms)
        return hint

    recorder = _luck_recorder(defn, params, task)
    started = time.perf_counter()
    cpu_started = time.process_time()
    steps = play_episode(
        engine,
        choose,
        stream_chance(random.Random(task["deal_seed"])),
        recorder.on_step if recorder is not None else None,
    )
    wall_ms = (time.perf_counter() - started) * 1000.0
    cpu_ms = (time.process_time() - cpu_started) * 1000.0
    returns = [float(r) for r in engine.returns()]
    record: dict[str, Any] = {
        "index": task["index"],
        "deal": task["deal"],
        "lineup": task["lineup"],
        "rotation": task["rotation"],
        "seed": task["seed"],
        "deal_seed": task["deal_seed"],
        "seats": list(labels),
        "bots": list(task["bots"]),
        "returns": returns,
        "length": steps,
        "moves": moves,
        # The game itself, for `atelier review` (its seats' information sets follow from it).
        "game": defn.name,
        "params": dict(params),
        "history": list(engine.history),
    }
    if recorder is not None:
        record["luck"] = recorder.result(returns)
    record["time"] = {
        "ms_per_move": [
            round(t / m, 3) if m else None for t, m in zip(total_ms, moves, strict=True)
        ],
        "ms_max": [round(t, 3) for t in max_ms],
        "ms_total": [round(t, 3) for t in total_ms],
        "wall_ms": round(wall_ms, 3),
        "cpu_ms": round(cpu_ms, 3),
    }
    return record


def _luck_recorder(defn: games.GameDefinition, params: dict[str, Any], task: dict[str, Any]):
    """The luck-correction recorder when the tournament asks for one (``task["luck"]``).

    Its rollout streams derive from the *deal* seed, so the games of a deal value their shared
    chance steps with the same rollouts (common random numbers across the seatings too): in
    a 2-player zero-sum game the corrections of a step both games share then cancel exactly
    in the deal's mean, as the luck they remove already does.
    """
    config = task.get("luck")
    if config is None:
        return None
    from evaluation.luck import LuckRecorder

    return LuckRecorder(defn, params, config, derive_seed(task["deal_seed"], "luck"))


def play_batch(batch: dict[str, Any]) -> list[dict[str, Any]]:
    """Plays a batch's games in order; a failure ends the batch with an ``error`` entry.

    Failures come back as data rather than exceptions so that they cross any executor
    (including Dask on another machine) with their message intact.
    """
    defn = games.definition(batch["game"])
    params = defn.validate_params(batch["params"])
    budget = Budget.from_json(batch["budget"])
    records: list[dict[str, Any]] = []
    for task in batch["games"]:
        try:
            with search_clock.measured_by(batch.get("clock", "wall")):
                record = play_game(defn, params, budget, task)
        except GameFailed as err:
            records.append({"index": task["index"], "error": str(err)})
            break
        except Exception as err:  # an engine bug: still report which game, not a traceback
            records.append(
                {
                    "index": task["index"],
                    "error": f"game {task['index']} (deal {task['deal']}) failed: "
                    f"{type(err).__name__}: {err}",
                }
            )
            break
        records.append({"tournament": batch["tournament"], **record})
    return records
