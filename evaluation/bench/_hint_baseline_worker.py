"""Runs the served hints of a baseline revision, for ``atelier bench hint --baseline``.

Started as ``python _hint_baseline_worker.py ROOT`` with ROOT an exported (and built) tree of an
older commit (``evaluation.bench.baseline``): ``bots`` and ``games`` are that tree's, so each
hint is the old service's bot answering the same information-set JSON at the same budget and
seed. Timing and profiling are ``_hint_shared.py``'s, loaded by path, the code today's side
runs. A job is ``{"kind": "hint" | "profile", "game", "params", "infoset", "budget", "seed",
"bot"}``; the answer is ``{"result": ...}`` or ``{"error": message}`` (an information set the
old code cannot read, say). Requests and answers are JSON lines on stdin and stdout.
"""

import importlib.util
import json
import sys
from pathlib import Path

root = sys.argv[1]
sys.path.insert(0, root)
_spec = importlib.util.spec_from_file_location(
    "_hint_shared", Path(__file__).with_name("_hint_shared.py")
)
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)

import bots  # noqa: E402
import games  # noqa: E402

if not games.__file__.startswith(root):
    raise SystemExit(f"the baseline's games package was not the one imported: {games.__file__}")

print(json.dumps({"ready": games.__file__}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    defn = games.definition(job["game"])
    measure = _shared.profiled_hint if job["kind"] == "profile" else _shared.timed_hint
    try:
        result = measure(
            lambda spec=job["bot"]: bots.make_bot(spec),
            bots.Budget.from_json(job["budget"]),
            defn,
            defn.validate_params(job["params"]),
            job["infoset"],
            job["seed"],
        )
    except Exception as err:  # reported to the bench, which names the revision
        print(json.dumps({"error": f"{type(err).__name__}: {err}"}), flush=True)
        continue
    print(json.dumps({"result": result}), flush=True)
