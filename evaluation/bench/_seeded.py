"""One seeded random game, to check that two revisions of a game play the same games.

Dependency-free on purpose: ``_engine_baseline_worker.py`` loads this file by path next to an
older revision's ``games`` package, so both sides of ``atelier bench engine --baseline`` run
this same loop on their own engines.
"""

import random

CHANCE = -1  # games.core.engine.CHANCE, a contract of the engine API


def seeded_history(game, seed: int) -> list[int]:
    """The history of one game of uniformly random moves from ``seed`` (chance by its odds)."""
    rng = random.Random(seed)
    engine = game.definition.new_engine(game.params)
    while not engine.is_terminal():
        if engine.current_player() == CHANCE:
            engine.apply(engine.sample_chance(rng))
        else:
            legal = engine.legal_actions()
            engine.apply(legal[int(rng.random() * len(legal))])
    return list(engine.history)
