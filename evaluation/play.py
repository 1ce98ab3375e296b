"""``atelier play``: one full game between bots, printed step by step for a person to read.

Every seat is played by a bot of the registry (``bots.make_bot``) through the bot protocol:
each move, the seat's information set is built and the bot answers it with a ``Hint`` (so a
bot never sees another seat's cards). Chance is drawn from the game's seed; each move's bot
seed derives from it too, so a game replays exactly (up to time-limited budgets).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pyspiel

import games
from bots import Bot, Budget, make_bot
from bots.heuristics import knowledge_for
from games.core.engine import CHANCE
from games.core.infoset import build_infoset


def default_spec(name: str) -> dict[str, Any]:
    """The heuristic where the game has one, else the random bot."""
    return {"name": "heuristic" if knowledge_for(name) is not None else "random"}


def parse_bot_spec(text: str) -> dict[str, Any]:
    """``ismcts`` or ``{"name": "ismcts", "options": {...}}`` -> a spec dict."""
    text = text.strip()
    if text.startswith("{"):
        spec = json.loads(text)
        if not isinstance(spec, dict):
            raise ValueError("a bot spec must be a JSON object")
        return spec
    return {"name": text}


def seat_bots(name: str, players: int, specs: list[dict[str, Any]]) -> list[Bot]:
    """One bot per seat: one spec for every seat, one per seat, or the game's default."""
    if not specs:
        specs = [default_spec(name)]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise ValueError(f"give one --bot for every seat or one for all: {players} seats")
    return [make_bot(spec) for spec in specs]


def _summary(bot: Bot, hint: Any) -> str:
    parts = [bot.name]
    if hint.stopped_by in ("simulations", "time"):
        parts.append(f"{hint.iterations} sims")
    if hint.value is not None:
        parts.append(f"value {hint.value:+.3f}")
    return ", ".join(parts)


def play_game(
    name: str,
    params: dict[str, Any],
    seed: int,
    specs: list[dict[str, Any]] | None = None,
    budget: Budget | None = None,
    echo: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Plays one game (chance and bot seeds from ``seed``), echoing each step.

    Returns the final summary: returns, steps and the final state.
    """
    game = pyspiel.load_game(name, params)
    defn = games.definition(name)
    params = game.params
    engine = defn.new_engine(params)
    n = game.num_players()
    bots = seat_bots(name, n, specs or [])
    budget = budget or Budget(simulations=1000)
    chance_rng = random.Random(seed)
    bot_seeds = random.Random(seed * 7919 + 1)
    echo(f"{defn.long_name} {json.dumps(params)}  seed={seed}")
    echo("seats: " + ", ".join(f"{s}={b.name}" for s, b in enumerate(bots)))
    step = 0
    while not engine.is_terminal():
        player = engine.current_player()
        if player == CHANCE:
            action = engine.sample_chance(chance_rng)
            who, note = "chance", ""
        else:
            infoset = build_infoset(defn, params, engine, player)
            hint = bots[player].hint(defn, params, infoset, budget, bot_seeds.getrandbits(62))
            action = hint.action
            who, note = f"seat {player}", f"   ({_summary(bots[player], hint)})"
        text = defn.action_to_string(engine, player, action)
        echo(f"{step:4d}  {who:<8} {text}{note}")
        engine.apply(action)
        step += 1
    final = engine.describe()
    returns = engine.returns()
    echo("final: " + json.dumps(final, sort_keys=True))
    echo("returns: " + ", ".join(f"seat {s}: {r:+.3f}" for s, r in enumerate(returns)))
    return {"returns": returns, "steps": step, "final": final}
