"""``atelier play``: one full game between bots, printed step by step for a person to read."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pyspiel

import games
from games.core.engine import CHANCE, Engine

Chooser = Callable[[Engine, int], int]


def random_chooser(seed: int) -> Chooser:
    rng = random.Random(seed)

    def choose(engine: Engine, seat: int) -> int:
        return rng.choice(engine.legal_actions())

    return choose


def play_game(
    name: str,
    params: dict[str, Any],
    seed: int,
    choosers: list[Chooser] | None = None,
    echo: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Plays one game (chance from ``seed``), echoing each step; returns the final summary."""
    game = pyspiel.load_game(name, params)
    defn = games.definition(name)
    engine = defn.new_engine(game.params)
    n = game.num_players()
    choosers = choosers or [random_chooser(seed * 1000 + s + 1) for s in range(n)]
    chance_rng = random.Random(seed)
    echo(f"{defn.long_name} {json.dumps(game.params)}  seed={seed}")
    step = 0
    while not engine.is_terminal():
        player = engine.current_player()
        if player == CHANCE:
            outcomes = engine.chance_outcomes()
            action = chance_rng.choices(outcomes, [p for _, p in outcomes])[0][0]
            who = "chance"
        else:
            action = choosers[player](engine, player)
            who = f"seat {player}"
        text = defn.action_to_string(engine, player, action)
        echo(f"{step:4d}  {who:<8} {text}")
        engine.apply(action)
        step += 1
    final = engine.describe()
    returns = engine.returns()
    echo("final: " + json.dumps(final, sort_keys=True))
    echo("returns: " + ", ".join(f"seat {s}: {r:+.3f}" for s, r in enumerate(returns)))
    return {"returns": returns, "steps": step, "final": final}
