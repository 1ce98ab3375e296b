"""The compiled modules (``games.core.compiled``): built from their own source, pinned step for
step against their ``.py``, never used stale.

``fingerprint`` plays seeded games, rollouts, heuristic decisions and default-bot searches and
records everything they produce; ``test_compiled_and_pure_python_agree`` runs it here (the
compiled modules, when built) and in a subprocess with ``ATELIER_PURE_PYTHON=1`` (every listed
module from its ``.py``) and asserts the records are equal. In CI (``CI`` or
``ATELIER_REQUIRE_SERVER_TESTS`` set) every listed module must be compiled, so that comparison
really compares two implementations; locally, without a build, it compares the ``.py`` with
itself and the build test skips.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import games
from games.core import compiled

ROOT = Path(__file__).resolve().parents[1]


def _players(name: str) -> range:
    defn = games.definition(name)
    return range(defn.min_players, defn.max_players + 1)


def _state(engine) -> dict:
    """Everything an engine holds that a step changes (``describe`` plus the raw lists)."""
    out = {
        "history": list(engine.history),
        "returns": engine.returns(),
        "describe": engine.describe(),
    }
    if hasattr(engine, "secret"):
        out["secret"] = list(engine.secret)
    return out


def _random_game(defn, params: dict, seed: int) -> dict:
    """A uniformly random game through ``apply``, and ``random_playout`` from a few of its
    states (each from its own seeded generator)."""
    rng = random.Random(seed)
    engine = defn.new_engine(params)
    playouts = []
    while not engine.is_terminal():
        if rng.random() < 0.05:
            copy = engine.copy()
            copy.random_playout(random.Random(len(engine.history)))
            playouts.append(_state(copy))
        if engine.current_player() < 0:
            engine.apply(engine.sample_chance(rng))
        else:
            legal = engine.legal_actions()
            engine.apply(legal[int(rng.random() * len(legal))])
    return {"game": _state(engine), "playouts": playouts}


def _heuristic_game(name: str, defn, params: dict, seed: int) -> dict:
    """A game the heuristic plays: per decision its ratings, its choice and the rollout
    policy's move (``playout``), and a heuristic rollout (``bots.rollout.play_out``)."""
    from bots.heuristics import knowledge_for
    from bots.rollout import play_out

    knowledge = knowledge_for(name)
    rng = random.Random(seed)
    engine = defn.new_engine(params)
    decisions = []
    while not engine.is_terminal():
        if engine.current_player() < 0:
            engine.apply(engine.sample_chance(rng))
            continue
        rated = knowledge.rate(engine)
        rollout_move = knowledge.playout(engine, random.Random(len(engine.history)))
        decisions.append([rated, rollout_move])
        engine.apply(knowledge.choose(engine, rng))
    start = defn.new_engine(params)
    rollout = play_out(start, random.Random(seed), knowledge.playout)
    return {"game": _state(engine), "decisions": decisions, "rollout": rollout}


def _searches(defn, params: dict, seed: int) -> list:
    """The default bot's hints (seeded, a fixed number of simulations) along a random game."""
    import bots
    from games.core.infoset import build_infoset

    bot = bots.make_bot("ismcts")
    rng = random.Random(seed)
    engine = defn.new_engine(params)
    hints = []
    while not engine.is_terminal() and len(hints) < 3:
        player = engine.current_player()
        if player < 0:
            engine.apply(engine.sample_chance(rng))
            continue
        if rng.random() < 0.2:
            infoset = build_infoset(defn, params, engine, player)
            hint = bot.hint(defn, params, infoset, bots.Budget(simulations=40), seed)
            moves = [[m.action, m.visits, m.value] for m in hint.moves or []]
            hints.append([hint.action, hint.value, hint.iterations, moves])
        legal = engine.legal_actions()
        engine.apply(legal[int(rng.random() * len(legal))])
    return hints


def _uniform_search(defn, params: dict, seed: int) -> dict:
    """The bench's uniform-rollout search (``atelier bench ismcts``: no prior, no beliefs) from
    a mid-game decision, a fixed number of simulations: its root statistics to the last bit,
    so the typed selection (``bots/ismcts/tree.pxd``) is pinned to the ``.py``'s floats."""
    from bots.ismcts import DEPTH_GAME, SearchConfig, search
    from bots.protocol import Budget, Worlds
    from games.core.infoset import build_infoset

    rng = random.Random(seed)
    engine = defn.new_engine(params)
    while engine.current_player() < 0 or len(engine.history) < 12:
        if engine.is_terminal():
            engine = defn.new_engine(params)
        elif engine.current_player() < 0:
            engine.apply(engine.sample_chance(rng))
        else:
            legal = engine.legal_actions()
            engine.apply(legal[int(rng.random() * len(legal))])
    infoset = build_infoset(defn, params, engine, engine.current_player())
    worlds = Worlds.from_infoset(defn, params, infoset, rng)
    config = SearchConfig(rollout="random", rollout_depth=DEPTH_GAME, pool_size=8)
    result = search(worlds, Budget(simulations=300), rng, config)
    return {
        "actions": result.actions,
        "counts": result.counts,
        "means": [m.hex() for m in result.means],
        "greedy": result.greedy,
        "nodes": result.nodes,
    }


def fingerprint(searches: bool = True) -> dict:
    """What every listed module computes, by game and player count, from fixed seeds."""
    out = {}
    for name in sorted(games.DEFINITIONS):
        defn = games.definition(name)
        for players in _players(name):
            params = defn.validate_params({"players": players})
            key = f"{name}/{players}"
            out[key] = {
                "random": [_random_game(defn, params, seed) for seed in range(2)],
                "heuristic": _heuristic_game(name, defn, params, players),
            }
            if searches:
                out[key]["search"] = _searches(defn, params, players)
                out[key]["uniform"] = _uniform_search(defn, params, players)
    return json.loads(json.dumps(out))  # (tuples as lists, as the subprocess's JSON has them)


def _pure_fingerprint() -> dict:
    env = {**os.environ, compiled.PURE_ENV: "1", "PYTHONPATH": str(ROOT)}
    code = "import json, tests.test_compiled as t; print(json.dumps(t.fingerprint()))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _import_all() -> dict[str, str]:
    for module in compiled.COMPILED_MODULES:
        importlib.import_module(module)
    return compiled.status()


def _ci() -> bool:
    return bool(os.environ.get("CI") or os.environ.get("ATELIER_REQUIRE_SERVER_TESTS"))


def test_every_engine_and_hot_module_is_listed_and_exists():
    listed = set(compiled.COMPILED_MODULES)
    engines = {f"games.{p.parent.name}.engine" for p in ROOT.glob("games/*/engine.py")}
    engines.discard("games.core.engine")
    assert engines <= listed
    assert {"bots.rollout", "bots.ismcts.rollout", "bots.ismcts.search"} <= listed
    for module in listed:
        assert compiled.source_path(module).is_file(), module


def test_setup_builds_the_listed_modules():
    """setup.py compiles ``COMPILED_MODULES`` (the one list), nothing hard-coded of its own."""
    text = (ROOT / "setup.py").read_text()
    assert "COMPILED_MODULES" in text
    assert ".pyx" not in text and not list(ROOT.glob("games/**/*.pyx"))


def test_every_listed_module_is_compiled_in_ci():
    """CI installs the package (``pip install -e .`` builds the extensions): there every
    listed module must run compiled; elsewhere a checkout without a build skips."""
    status = _import_all()
    if not _ci() and compiled.COMPILED not in status.values():
        pytest.skip("no compiled build in this checkout (pip install -e . builds one)")
    assert status == {m: compiled.COMPILED for m in compiled.COMPILED_MODULES}


def test_compiled_and_pure_python_agree():
    status = _import_all()
    ours = fingerprint()
    pure = _pure_fingerprint()
    assert pure.keys() == ours.keys()
    for key in ours:
        assert pure[key] == ours[key], f"{key} differs (status here: {status})"


def test_the_pure_switch_loads_every_py():
    env = {**os.environ, compiled.PURE_ENV: "1", "PYTHONPATH": str(ROOT)}
    code = (
        "import json, importlib, games.core.compiled as c\n"
        "[importlib.import_module(m) for m in c.COMPILED_MODULES]\n"
        "print(json.dumps([c.status(), [c.is_compiled(m) for m in c.COMPILED_MODULES]]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    status, flags = json.loads(done.stdout)
    assert not any(flags)
    built = {m for m in compiled.COMPILED_MODULES if _extension(m) is not None}
    assert {m for m, s in status.items() if s == compiled.FORCED} == built


def _extension(module: str) -> Path | None:
    source = compiled.source_path(module)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = source.with_suffix(suffix)
        if path.is_file():
            return path
    return None


@pytest.fixture
def fake_build(tmp_path, monkeypatch):
    """A package ``fakepkg`` whose module ``mod`` has a ``.py`` and an extension file beside
    it (never loaded: the finder only chooses a spec), and a manifest to fill in."""
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    package = tmp_path / "fakepkg"
    package.mkdir()
    (package / "mod.py").write_text("VALUE = 1\n")
    (package / ("mod" + importlib.machinery.EXTENSION_SUFFIXES[0])).write_bytes(b"\0")
    manifest = tmp_path / "_compiled.json"
    finder = compiled.CompiledFinder(frozenset(("fakepkg",)), manifest)
    return finder, package, manifest


def _loader(finder, package: Path):
    return type(finder.find_spec("fakepkg.mod", [str(package)]).loader)


def test_a_current_extension_is_loaded(fake_build):
    finder, package, manifest = fake_build
    compiled.write_manifest({"fakepkg.mod": compiled.source_hash(package / "mod.py")}, manifest)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _loader(finder, package) is importlib.machinery.ExtensionFileLoader


def test_a_stale_extension_falls_back_to_the_py_and_warns_once(fake_build, monkeypatch):
    finder, package, manifest = fake_build
    compiled.write_manifest({"fakepkg.mod": compiled.source_hash(package / "mod.py")}, manifest)
    (package / "mod.py").write_text("VALUE = 2\n")  # edited after the build
    monkeypatch.setattr(compiled, "_warned", set())
    with pytest.warns(RuntimeWarning, match=r"fakepkg.mod.*pip install -e \."):
        assert _loader(finder, package) is importlib.machinery.SourceFileLoader
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per module and process
        assert _loader(finder, package) is importlib.machinery.SourceFileLoader
    assert compiled._status["fakepkg.mod"] == compiled.STALE


def test_an_edited_pxd_makes_the_extension_stale(fake_build, monkeypatch):
    """The ``.pxd`` beside a ``.py`` is compiled in with it (C types), so it is source too."""
    finder, package, manifest = fake_build
    (package / "mod.pxd").write_text("cdef long VALUE\n")
    compiled.write_manifest({"fakepkg.mod": compiled.source_hash(package / "mod.py")}, manifest)
    assert _loader(finder, package) is importlib.machinery.ExtensionFileLoader
    (package / "mod.pxd").write_text("cdef double VALUE\n")  # retyped after the build
    monkeypatch.setattr(compiled, "_warned", set())
    with pytest.warns(RuntimeWarning, match="fakepkg.mod"):
        assert _loader(finder, package) is importlib.machinery.SourceFileLoader


def test_an_extension_without_a_build_record_falls_back(fake_build, monkeypatch):
    finder, package, _ = fake_build  # the manifest was never written
    monkeypatch.setattr(compiled, "_warned", set())
    with pytest.warns(RuntimeWarning):
        assert _loader(finder, package) is importlib.machinery.SourceFileLoader


def test_the_switch_forces_the_py(fake_build, monkeypatch):
    finder, package, manifest = fake_build
    compiled.write_manifest({"fakepkg.mod": compiled.source_hash(package / "mod.py")}, manifest)
    monkeypatch.setenv(compiled.PURE_ENV, "1")
    assert _loader(finder, package) is importlib.machinery.SourceFileLoader
    assert compiled._status["fakepkg.mod"] == compiled.FORCED


def test_the_fallback_module_imports_and_runs(fake_build, monkeypatch):
    finder, package, _ = fake_build
    monkeypatch.setattr(compiled, "_warned", set())
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    with pytest.warns(RuntimeWarning):
        module = importlib.import_module("fakepkg.mod")
    try:
        assert module.VALUE == 1 and module.__file__.endswith("mod.py")
    finally:
        sys.modules.pop("fakepkg.mod", None)
        sys.modules.pop("fakepkg", None)


def test_the_switch_can_name_modules(fake_build, monkeypatch):
    finder, package, manifest = fake_build
    compiled.write_manifest({"fakepkg.mod": compiled.source_hash(package / "mod.py")}, manifest)
    monkeypatch.setenv(compiled.PURE_ENV, "bots.pool, fakepkg.other")
    assert _loader(finder, package) is importlib.machinery.ExtensionFileLoader
    monkeypatch.setenv(compiled.PURE_ENV, "bots.pool,fakepkg.mod")
    assert _loader(finder, package) is importlib.machinery.SourceFileLoader


def test_atelier_info_names_every_compiled_module():
    from click.testing import CliRunner

    from evaluation.cli import main

    result = CliRunner().invoke(main, ["info", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert set(report["compiled"]) == set(compiled.COMPILED_MODULES)
    assert compiled.NOT_IMPORTED not in report["compiled"].values()
