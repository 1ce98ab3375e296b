"""Runs slices of a baseline's own random-playout measurement, for ``atelier bench engine``.

Started as ``python _engine_baseline_worker.py ROOT`` with ROOT an exported tree of an older
commit (``evaluation.bench.baseline``): the games and the measuring loops are that tree's, so
each slice measures exactly what the old ``atelier bench engine`` measured. A job names the
game, its parameters, the contender (``engine``: the raw engine, ``spiel``: the OpenSpiel face),
the seconds and the seed; the answer is the ``result`` (playouts, actions, wall and CPU
seconds) or, for ``check``, the history of one seeded random game (to show the baseline plays
the same games).
Requests and answers are JSON lines on stdin and stdout.
"""

import importlib.util
import json
import sys
from pathlib import Path

root = sys.argv[1]
sys.path.insert(0, root)
_spec = importlib.util.spec_from_file_location("_shared", Path(__file__).with_name("_shared.py"))
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)

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
        print(json.dumps({"history": _shared.seeded_history(game, job["seed"])}), flush=True)
        continue
    if job["kind"] == "engine":
        args = (old._engine_playouts, game.definition, game.params, job["seconds"], job["seed"])
    else:
        args = (old._spiel_playouts, game, job["seconds"], job["seed"])
    print(json.dumps({"result": _shared.cpu_timed(*args)}), flush=True)
