"""What both sides of ``atelier bench engine --baseline`` run around their own engines.

Dependency-free on purpose: ``_engine_baseline_worker.py`` loads this file by path next to an
older revision's ``games`` package, so today's code and the baseline's check their games and
time their slices with the same code.
"""

import random
import time

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


def cpu_timed(measure, *args):
    """``measure(*args)`` (``(playouts, actions, wall seconds)``) plus the CPU seconds it took.

    On a shared machine a slice's wall time includes the time the process waited for a core;
    its CPU time does not, so rates per CPU second compare revisions more steadily.
    """
    started = time.process_time()
    playouts, actions, elapsed = measure(*args)
    return playouts, actions, elapsed, time.process_time() - started
