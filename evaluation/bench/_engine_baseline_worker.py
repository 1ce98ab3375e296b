"""Runs slices of a baseline's own random-playout measurement, for ``atelier bench engine``.

Started as ``python _engine_baseline_worker.py ROOT`` with ROOT an exported tree of an older
commit (``evaluation.bench.baseline``): the games and the measuring loops are that tree's, so
each slice measures exactly what the old ``atelier bench engine`` measured. A job names the
game, its parameters, the contender (``engine``: the raw engine, ``spiel``: the OpenSpiel face),
the seconds and the seed; the answer is ``playouts``, ``actions``, ``seconds`` and, for
``check``, the history of one seeded random game (to show the baseline plays the same games).
Requests and answers are JSON lines on stdin and stdout.
"""

import importlib.util
import json
import sys
from pathlib import Path

root = sys.argv[1]
sys.path.insert(0, root)
_spec = importlib.util.spec_from_file_location("_seeded", Path(__file__).with_name("_seeded.py"))
_seeded = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_seeded)

import pyspiel  # noqa: E402

import games  # noqa: E402
from evaluation.bench import engine as old  # noqa: E402

if not games.__file__.startswith(root):
    raise SystemExit(f"the baseline's games package was not the one imported: {games.__file__}")


_games: dict = {}
print(json.dumps({"ready": games.__file__}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    key = json.dumps([job["game"], job["params"]], sort_keys=True)
    if key not in _games:
        _games[key] = pyspiel.load_game(job["game"], job["params"])
    game = _games[key]
    if job["kind"] == "check":
        print(json.dumps({"history": _seeded.seeded_history(game, job["seed"])}), flush=True)
        continue
    if job["kind"] == "engine":
        result = old._engine_playouts(game.definition, game.params, job["seconds"], job["seed"])
    else:
        result = old._spiel_playouts(game, job["seconds"], job["seed"])
    playouts, actions, elapsed = result
    print(json.dumps({"playouts": playouts, "actions": actions, "seconds": elapsed}), flush=True)
