"""Cold start: a search worker's warm-up, and the rule for an under-searched answer.

A fresh worker process pays one-time costs on its first search of each game: lazy imports,
the heuristics' solved tables (Gallery Rush's turn table alone takes 100-250 ms, more on a
loaded machine), the compiled Modern Art playout, the explanation code. Measured before this
module: the first 200 ms hint of docs/api.md ran 1 iteration in 339 ms on a loaded machine and
about 500 against 900 on a quiet one. ``warm_up`` pays those costs before the pool offers the
worker any request (``server.pool``), with a small search per game.

An answer can still get far less search than its budget for reasons on the server's side;
``degradation`` names them, measured in the worker, so that the hint service neither caches
such an answer nor hides it (``"degraded"`` in the answer, docs/api.md "Cold start"):

* ``cold_worker``: the worker's first search of this game with this bot (the warm-up searches
  each game with the default bot; it was off or failed, or another bot was asked);
* ``cpu_starved``: the task had less than ``MIN_CPU_SHARE`` of a core while its clock ran
  (the machine is overloaded), so it searched less than half of what its budget gives.

Only searches stopped by their time budget are judged: a simulation count or a bot that does
not search gets the same answer however slow the machine is.
"""

from __future__ import annotations

import logging
import random
import time
from typing import Any

log = logging.getLogger("atelier.server.warmup")

# Below this share of a core while its clock ran, a time-limited search is ``cpu_starved``.
MIN_CPU_SHARE = 0.5
WARM_BOT = "ismcts"  # the default bot, whose search touches the heuristics and playouts


def warm_up(total_ms: float) -> dict[str, Any]:
    """Runs a small search per game (``total_ms`` shared out between them, with explanation),
    so that the worker's first real request pays no one-time cost; returns what it did.

    A game whose warm-up fails is logged and reported, never raised: the worker still serves
    the other games (and that game's first answer is then marked ``cold_worker``).
    """
    import bots
    import games
    from server.examples import example_infoset
    from server.tasks import run_task

    started = time.perf_counter()
    names = sorted(games.DEFINITIONS)
    per_game = max(1.0, total_ms / max(1, len(names)))
    report: dict[str, Any] = {"games": {}}
    if total_ms <= 0:
        report["ms"] = 0.0
        return report
    spec = bots.normalised_spec(WARM_BOT)
    for name in names:
        t0 = time.perf_counter()
        try:
            defn = games.definition(name)
            params = defn.validate_params({})
            # Seeded: the same warm-up in every worker, every start.
            infoset = example_infoset(name, seed=random.Random(name).randrange(1000))
            payload = {
                "game": name,
                "params": params,
                "infoset": infoset,
                "bot": spec,
                "budget": {"milliseconds": per_game},
                "seed": 0,
                "explain": True,
            }
            result = run_task("hint", payload, time.perf_counter())
        except Exception as err:  # pragma: no cover - a bug in a game's example or sampler
            result = {"error": {"message": f"{type(err).__name__}: {err}"}}
        entry: dict[str, Any] = {"ms": round((time.perf_counter() - t0) * 1000.0, 1)}
        if "ok" in result:
            entry["iterations"] = result["ok"].get("stats", {}).get("iterations")
            WARM_GAMES.add((name, WARM_BOT))
        else:
            entry["error"] = result["error"].get("message")
            log.warning("warm-up of %s failed: %s", name, entry["error"])
        report["games"][name] = entry
    report["ms"] = round((time.perf_counter() - started) * 1000.0, 1)
    return report


# (game, bot) pairs this worker process has searched, its warm-up included: a first is cold.
WARM_GAMES: set[tuple[str, str]] = set()


def degradation(
    kind: str, payload: dict[str, Any], result: dict[str, Any], wall_s: float, cpu_s: float
) -> dict[str, Any] | None:
    """Why the answer ``result`` of task ``kind`` got far less search than its budget for
    the server's reasons (``{"reasons", "cpu_share", "message"}``), or ``None``.

    ``wall_s`` and ``cpu_s`` are the task's wall-clock and the worker's CPU seconds, measured
    around it. Records the game and bot as searched: only their first search here is cold.
    """
    if kind != "hint" or "ok" not in result:
        return None
    searched = (str(payload.get("game")), str((payload.get("bot") or {}).get("name")))
    cold = searched not in WARM_GAMES
    WARM_GAMES.add(searched)
    stats = result["ok"].get("stats") or {}
    if stats.get("stopped_by") != "time":
        return None
    share = cpu_s / wall_s if wall_s > 0 else 1.0
    reasons = []
    if cold:
        reasons.append("cold_worker")
    if share < MIN_CPU_SHARE:
        reasons.append("cpu_starved")
    if not reasons:
        return None
    said = {
        "cold_worker": "it was this search worker's first search of this game with this bot "
        "(one-time set-up costs came out of its budget)",
        "cpu_starved": f"the search had {share:.0%} of a core while its clock ran (the "
        "server is overloaded)",
    }
    return {
        "reasons": reasons,
        "cpu_share": round(min(share, 1.0), 3),
        "message": "this answer got less search than its budget gives, because "
        + " and ".join(said[r] for r in reasons)
        + "; it is not cached, so asking again searches again",
    }
