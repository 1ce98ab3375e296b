"""Example information sets, made by playing a seeded random game: for docs, clients, tests.

Generic over games: any definition works, nothing here knows a game's rules.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import games
from games.core.engine import Engine
from games.core.episode import random_position, stream_chance
from games.core.infoset import build_infoset


def decision_engine(
    game: str, params: dict[str, Any] | None = None, seed: int = 0, min_steps: int = 6
) -> Engine:
    """An engine at a player's decision, at least ``min_steps`` steps in when possible (else
    the game's last decision): moves uniformly at random, chance by its probabilities."""
    defn = games.definition(game)
    full = defn.validate_params(params or {})
    rng = random.Random(seed)
    last: list[Engine] = []

    def far_enough(engine: Engine) -> bool:
        if len(engine.history) >= min_steps:
            return True
        last[:] = [engine.copy()]
        return False

    engine = random_position(defn, full, rng, far_enough, chance=stream_chance(rng))
    if engine is not None:
        return engine
    if not last:  # pragma: no cover - a game with no decision at all
        raise ValueError(f"{game}: no decision point in a random game")
    return last[0]


def example_infoset(
    game: str, params: dict[str, Any] | None = None, seed: int = 0, min_steps: int = 6
) -> dict[str, Any]:
    """The information set of the seat to move, in a seeded random game of ``game``."""
    defn = games.definition(game)
    full = defn.validate_params(params or {})
    engine = decision_engine(game, full, seed, min_steps)
    return build_infoset(defn, full, engine, engine.current_player(), with_view=True)


@functools.lru_cache(maxsize=64)
def _cached_example(game: str) -> dict[str, Any]:
    return example_infoset(game)


def default_example(game: str) -> dict[str, Any]:
    """The example shown by ``GET /v1/games/{game}`` (default parameters, seed 0)."""
    import copy

    return copy.deepcopy(_cached_example(game))
