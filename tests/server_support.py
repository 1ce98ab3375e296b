"""Helpers for the service tests: apps with a temporary match database, example infosets."""

from __future__ import annotations

import atexit
import random
from pathlib import Path
from typing import Any

import games
from games.core.episode import play_episode, stream_chance, uniform_choice
from games.core.infoset import build_infoset
from server import close_app, create_app
from server.examples import decision_engine

_SHARED: dict[str, Any] = {}


# A fixed deal (the research option ``reproducible``) for tests that need a match still open
# after its creation: a Gallery Rush bot moving first can declare the Mona Lisa and flip it,
# which ends the game before the human's first move (about one creation in 350), and a finished
# match neither counts against the quota nor expires as an idle one.
OPEN_DEAL = {"seed": 1, "reproducible": True}


def make_app(db_dir: Path | str, **overrides: Any):
    """A fresh app (search pool started lazily) with its matches under ``db_dir``."""
    config = {"match_db": str(Path(db_dir) / "matches.sqlite3"), "search_workers": 2}
    config.update(overrides)
    return create_app(config)


def shared_app(tmp_root: Path):
    """One default app for all test modules (its two search workers start once)."""
    if "app" not in _SHARED:
        app = make_app(tmp_root)
        _SHARED["app"] = app
        atexit.register(close_app, app)
    return _SHARED["app"]


def infoset_at(game: str, seed: int, min_steps: int, params: dict[str, Any] | None = None):
    """(engine, infoset of the seat to move) at a decision of a seeded random game."""
    defn = games.definition(game)
    full = defn.validate_params(params or {})
    engine = decision_engine(game, full, seed=seed, min_steps=min_steps)
    return engine, build_infoset(defn, full, engine, engine.current_player(), with_view=False)


def varied_infosets(game: str, count: int, seed: int = 0) -> list[dict[str, Any]]:
    """Infosets of every seat (to move or not) at varied points of random games."""
    defn = games.definition(game)
    params = defn.validate_params({})
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        engine = defn.new_engine(params)
        stop = rng.randrange(1, 40)
        play_episode(
            engine,
            uniform_choice(rng),
            stream_chance(rng),
            stop=lambda e, stop=stop: len(e.history) >= stop,
        )
        seat = rng.randrange(params["players"])
        out.append(build_infoset(defn, params, engine, seat, with_view=rng.random() < 0.5))
    return out


def quick_params(game: str, seed: int = 0) -> dict[str, Any]:
    """Of the game's conformance settings, the one whose seeded random game is shortest."""
    defn = games.definition(game)
    best: tuple[int, dict[str, Any]] | None = None
    for params in defn.conformance_params or ({},):
        full = defn.validate_params(params)
        engine = defn.new_engine(full)
        rng = random.Random(seed)
        play_episode(engine, uniform_choice(rng), stream_chance(rng))
        if best is None or len(engine.history) < best[0]:
            best = (len(engine.history), full)
    assert best is not None
    return best[1]
