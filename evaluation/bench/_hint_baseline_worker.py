"""Runs served hints of a tree of this project, for ``atelier bench hint``.

Started as ``python _hint_baseline_worker.py ROOT [--pure]`` with ROOT an exported (and built)
tree of an older commit (``evaluation.bench.baseline``) or this checkout: ``bots`` and ``games``
are that tree's, so each hint is that code's service bot answering the same information-set
JSON at the same budget and seed. Timing and profiling are ``_hint_shared.py``'s, loaded by
path, the code today's side runs. A job is ``{"kind": "hint" | "profile", "game", "params",
"infoset", "budget", "seed", "bot"}``; the answer is ``{"result": ...}`` or ``{"error":
message}`` (an information set the old code cannot read, say). Requests and answers are JSON
lines on stdin and stdout.

``--pure`` runs the tree's pure-Python path, for the profiled hints of the time split: compiled
(Cython) functions have no Python frames, so a stack sampler would charge their time to their
Python callers. It sets ``ATELIER_PURE_PYTHON=1`` (today's switch, ``games/core/compiled.py``)
and, for revisions older than that switch (5caa0cd's Modern Art ``_playout``), loads the ``.py``
beside any extension module of the tree, or reports a module that exists only compiled as
missing (the revision's own fallback then runs). Every answer lists in ``compiled`` the
extension modules of the tree that are loaded, so "pure" is checked, not assumed.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path

root = sys.argv[1]
pure = sys.argv[2:] == ["--pure"]
sys.path.insert(0, root)
_spec = importlib.util.spec_from_file_location(
    "_hint_shared", Path(__file__).with_name("_hint_shared.py")
)
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)


# The project's own packages: a tree may also hold a virtual environment (CI's `.venv` inside the
# checkout), whose extension modules (pyspiel, numpy) are libraries, not the tree's code.
PACKAGES = ("games", "bots", "server", "evaluation")


def _ours(name: str, origin: object) -> bool:
    """Whether module ``name`` (file ``origin``) is the tree's own code."""
    return name.partition(".")[0] in PACKAGES and str(origin).startswith(root)


class _NoExtensions(importlib.abc.MetaPathFinder):
    """Finds the tree's modules as ``.py`` files only (``--pure``)."""

    def find_spec(self, name, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None
        if not _ours(name, spec.origin):
            return None  # a library's extension (the standard library's, pyspiel's): not ours
        source = Path(spec.origin).with_name(name.rpartition(".")[2] + ".py")
        if source.is_file():
            return importlib.util.spec_from_file_location(name, source)
        raise ModuleNotFoundError(f"{name} exists only compiled (pure-Python run)", name=name)


def compiled_modules() -> list[str]:
    """The tree's extension modules loaded in this process."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if isinstance(
            getattr(getattr(module, "__spec__", None), "loader", None),
            importlib.machinery.ExtensionFileLoader,
        )
        and _ours(name, getattr(module, "__file__", ""))
    )


if pure:
    os.environ["ATELIER_PURE_PYTHON"] = "1"
    sys.meta_path.insert(0, _NoExtensions())

import bots  # noqa: E402
import games  # noqa: E402

if not games.__file__.startswith(root):
    raise SystemExit(f"the baseline's games package was not the one imported: {games.__file__}")

print(json.dumps({"ready": games.__file__, "pure": pure}), flush=True)
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
    result["compiled"] = compiled_modules()
    print(json.dumps({"result": result}), flush=True)
