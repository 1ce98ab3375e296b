"""How fast the Modern Art heuristics play, as the ratio of the default style to ``simple``.

``python -m bots.heuristics.modern_art_speed [--reps R]`` plays self-play games at 3, 4 and 5
players with each heuristic's ``playout`` (its rollout move) and ``choose`` (the ``heuristic``
bot's move), interleaved game by game on the same seeds so that machine load falls on all four
alike, and prints moves per second and the two ratios. Only the ratios mean something on a
shared machine.
"""

from __future__ import annotations

import argparse
import random
import time

import games
from bots.heuristics import knowledge_for


def measure(reps: int) -> dict[str, tuple[int, float]]:
    """Moves and seconds per (style, move) over ``reps`` games at each player count."""
    defn = games.definition("modern_art")
    new, simple = knowledge_for("modern_art"), knowledge_for("modern_art", "simple")
    runs = {
        "default playout": new.playout,
        "simple playout": simple.playout,
        "default choose": new.choose,
        "simple choose": simple.choose,
    }
    totals = {name: (0, 0.0) for name in runs}
    for rep in range(reps):
        for players in (3, 4, 5):
            params = defn.validate_params({"players": players})
            for name, move in runs.items():
                rng = random.Random(1000 * players + rep)
                engine = defn.new_engine(params)
                moves = 0
                started = time.perf_counter()
                while not engine.is_terminal():
                    if engine.is_chance():
                        engine.apply(engine.sample_chance(rng))
                        continue
                    engine.apply(move(engine, rng))
                    moves += 1
                m, t = totals[name]
                totals[name] = (m + moves, t + time.perf_counter() - started)
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=4, help="games per player count and run")
    args = parser.parse_args()
    totals = measure(args.reps)
    rate = {name: m / t for name, (m, t) in totals.items()}
    for name, (m, _) in totals.items():
        print(f"{name}: {rate[name]:,.0f} moves/s over {m} moves")
    for move in ("playout", "choose"):
        ratio = rate[f"default {move}"] / rate[f"simple {move}"]
        print(f"{move}: default / simple = {ratio:.3f}")


if __name__ == "__main__":
    main()
