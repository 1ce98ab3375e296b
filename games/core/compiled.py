"""Which modules run compiled, and the guard that never runs a stale compiled one.

``setup.py`` compiles every module of ``COMPILED_MODULES`` from its own ``.py`` source with
Cython (pure-Python mode: the ``.py`` is the only source of its rules, so the compiled and the
pure path cannot disagree by construction; tests/test_compiled.py pins them step for step).
The editable install (``pip install -e .``) puts each extension (``engine.cpython-*.so``) next
to its ``.py``, where Python's import system would prefer it to the ``.py`` forever after, even
once the ``.py`` is edited. So the build also records the SHA-256 of each source it compiled
(``MANIFEST``), and ``install()`` (called by ``games/core/__init__``, before any listed module is
imported) puts a finder first on ``sys.meta_path`` that loads an extension only when its
recorded hash is the hash of the ``.py`` beside it; otherwise it loads the ``.py`` and warns
once, naming the rebuild command. ``ATELIER_PURE_PYTHON=1`` loads every ``.py`` (a profile with
py-spy or pyinstrument sees into Python code only; a suspected compiler difference can be
ruled out); ``ATELIER_PURE_PYTHON=bots.pool,bots.beliefs`` only those modules'. ``status()``
says, per module, which one runs (``atelier info`` prints it).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path

# Compiled by setup.py, in this order: the engines' steps and the search's inner loop (bots'
# rollouts, heuristics and tree) are where a hint spends its time (docs/bots.md).
COMPILED_MODULES: tuple[str, ...] = (
    "games.detective_eye.engine",
    "games.finger_auction.engine",
    "games.gallery_rush.engine",
    "games.modern_art.engine",
    "bots.heuristics.base",
    "bots.heuristics.detective_eye",
    "bots.heuristics.finger_auction",
    "bots.heuristics.gallery_rush",
    "bots.heuristics.modern_art",
    "bots.rollout",
    "bots.ismcts.rollout",
    "bots.ismcts.search",
    "bots.ismcts.tree",
)
# Measured and left out (tests/test_compiled.py's figures in docs/bots.md): the belief pool
# and the beliefs (bots.pool, bots.beliefs) run once per hint; compiled, the default bot's
# simulations a CPU second did not change (0.97-1.00x, every game and player count).

# The packages whose extensions the guard checks: an extension of a module that is not (or no
# longer) listed, e.g. left in place by an older build, is as stale as an outdated one.
PACKAGES = frozenset(("games", "bots", "server", "evaluation"))

PURE_ENV = "ATELIER_PURE_PYTHON"
REBUILD = "pip install -e .  (or: python setup.py build_ext --inplace)"
MANIFEST = Path(__file__).with_name("_compiled.json")
ROOT = Path(__file__).resolve().parents[2]

COMPILED = "compiled"
FORCED = f"pure Python ({PURE_ENV})"
STALE = "pure Python (source changed since the build: rebuild)"
NOT_BUILT = "pure Python (not built)"


def source_path(module: str, root: Path = ROOT) -> Path:
    """The ``.py`` file of ``module`` (a dotted name of ``COMPILED_MODULES``) under ``root``."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def source_hash(path: Path) -> str:
    """The SHA-256 of a source file's bytes: what the build records and the guard compares.

    A ``.pxd`` beside the ``.py`` (Cython's augmenting declarations: C types for some locals,
    compiled in with the ``.py``) is part of the source: its bytes follow the ``.py``'s, so a
    typing edit makes the extension stale as a ``.py`` edit does. A module without one hashes
    as its ``.py`` alone."""
    digest = hashlib.sha256(path.read_bytes())
    pxd = path.with_suffix(".pxd")
    if pxd.is_file():
        digest.update(b"\0pxd\0" + pxd.read_bytes())
    return digest.hexdigest()


def pure_forced(module: str) -> bool:
    """Whether ``ATELIER_PURE_PYTHON`` asks for the ``.py`` of ``module``: ``1`` (or ``true``,
    ``yes``) for every listed module, or a comma-separated list of module names (to measure
    what compiling one module pays, or to rule one out)."""
    value = os.environ.get(PURE_ENV, "").strip()
    if value.lower() in ("", "0", "false", "no"):
        return False
    if value.lower() in ("1", "true", "yes"):
        return True
    return module in {name.strip() for name in value.split(",")}


def recorded_hashes(manifest: Path = MANIFEST) -> dict[str, str]:
    """The build's record, module -> source hash (empty without a readable record)."""
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return {}
    modules = data.get("modules") if isinstance(data, dict) else None
    return dict(modules) if isinstance(modules, dict) else {}


def write_manifest(hashes: dict[str, str], manifest: Path) -> None:
    """Records the source hash of each module just compiled (setup.py, after the build)."""
    manifest.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"rebuild": REBUILD, "modules": dict(sorted(hashes.items()))}, indent=1)
    manifest.write_text(text + "\n")


_status: dict[str, str] = {}
_warned: set[str] = set()


class CompiledFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of ``PACKAGES``: an extension only when the build recorded its
    ``.py`` as it is now, else the ``.py``."""

    def __init__(self, packages: frozenset[str] = PACKAGES, manifest: Path = MANIFEST):
        self.packages = packages
        self.manifest = manifest

    def find_spec(self, fullname, path, target=None):
        if path is None or fullname.partition(".")[0] not in self.packages:
            return None  # (a top-level package is never compiled)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None:
            return None
        if not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            _status[fullname] = NOT_BUILT
            return spec
        source = Path(spec.origin).with_name(fullname.rpartition(".")[2] + ".py")
        reason = self._why_pure(fullname, source)
        _status[fullname] = reason or COMPILED
        if reason is None or not source.is_file():
            return spec
        if reason == STALE and fullname not in _warned:
            _warned.add(fullname)
            warnings.warn(
                f"{fullname}: its compiled extension was built from another version of "
                f"{source.name}; running the .py instead (slower). Rebuild: {REBUILD}",
                RuntimeWarning,
                stacklevel=2,
            )
        return importlib.util.spec_from_file_location(fullname, source)

    def _why_pure(self, fullname: str, source: Path) -> str | None:
        """``None`` when the extension may run; else why the ``.py`` runs instead."""
        if pure_forced(fullname):
            return FORCED
        try:
            current = source_hash(source)
        except OSError:  # an installed wheel without its sources: only the extension exists
            return None
        return None if recorded_hashes(self.manifest).get(fullname) == current else STALE


def install() -> None:
    """Puts the guard first on ``sys.meta_path`` (once; ``games/core/__init__`` calls it)."""
    if not any(isinstance(f, CompiledFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, CompiledFinder())


def is_compiled(module: str) -> bool:
    """Whether the imported ``module`` is an extension (not its ``.py``)."""
    loaded = sys.modules.get(module)
    origin = getattr(loaded, "__file__", None) or ""
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


NOT_IMPORTED = "not imported yet"


def status() -> dict[str, str]:
    """Per listed module: compiled, or why its ``.py`` runs (the caller imports what it
    wants reported: this layer does not import the bots)."""
    out = {}
    for module in COMPILED_MODULES:
        if module not in sys.modules:
            out[module] = NOT_IMPORTED
        else:
            out[module] = COMPILED if is_compiled(module) else _status.get(module, NOT_BUILT)
    return out
