"""Runs slices of a baseline's own ISMCTS measurement, for ``atelier bench ismcts``.

Started as ``python _baseline_worker.py ROOT`` with ROOT an exported tree of an older commit
(``git archive``): everything it imports (games, bots, the bench module) is that tree's code,
and each slice is that tree's ``evaluation.bench.ismcts._ours`` on its own ``position`` for the
same seed and player count, so the baseline measures exactly what the old ``atelier bench
ismcts`` measured. Each slice is also timed by the CPU time of the thread running it
(``time.thread_time``, as today's bench times its own slices): an older bench measured the
wall clock only.
Requests and answers are JSON lines on stdin and stdout.
"""

import json
import sys
import time

root = sys.argv[1]
sys.path.insert(0, root)

import pyspiel  # noqa: E402

import games  # noqa: E402
from bots.heuristics import knowledge_for  # noqa: E402
from evaluation.bench import ismcts as old  # noqa: E402
from games.core.infoset import build_infoset  # noqa: E402

if not games.__file__.startswith(root):
    raise SystemExit(f"the baseline's games package was not the one imported: {games.__file__}")

_cache: dict = {}


def _setup(name: str, players: int, seed: int, abstraction: bool):
    key = (name, players, seed, abstraction)
    if key not in _cache:
        game = pyspiel.load_game(name, {"players": players})
        engine = old.position(game, seed)
        seat = engine.current_player()
        infoset = build_infoset(game.definition, game.params, engine, seat)
        knowledge = knowledge_for(name) if abstraction else None
        _cache[key] = (game, engine, infoset, knowledge)
    return _cache[key]


print(json.dumps({"ready": games.__file__}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    game, engine, infoset, knowledge = _setup(
        job["game"], job["players"], job["position_seed"], job["abstraction"]
    )
    wall, cpu = time.perf_counter(), time.thread_time()
    sims, _ = old._ours(game, infoset, job["seconds"], job["seed"], job["worlds"], knowledge)
    cpu = time.thread_time() - cpu  # both clocks over the same span: CPU never exceeds wall
    answer = {
        "simulations": sims,
        "seconds": time.perf_counter() - wall,
        "cpu_seconds": cpu,
        "history": list(engine.history),
    }
    print(json.dumps(answer), flush=True)
