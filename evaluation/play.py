"""``atelier play``: one full game between bots, printed step by step for a person to read.

Every seat is played by a bot of the registry (``bots.make_bot``) through the bot protocol:
each move, the seat's information set is built and the bot answers it with a ``Hint`` (so a
bot never sees another seat's cards). Chance is drawn from the game's seed; the bot seed of
step ``k`` is ``derive_seed(seed, "move", k)``, so a game replays exactly (up to time-limited
budgets). The game runs in the one episode loop (``games.core.episode``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from typing import Any

import pyspiel

import games
from bots import Bot, Budget, make_bot
from bots.heuristics import knowledge_for
from games.core.engine import CHANCE, Engine
from games.core.episode import Step, ask_bots, play_episode, sampled_chance
from games.core.seeds import derive_seed


def default_spec(name: str) -> dict[str, Any]:
    """The heuristic where the game has one, else the random bot."""
    return {"name": "heuristic" if knowledge_for(name) is not None else "random"}


class BotUnavailable(ValueError):
    """A bot that cannot play this game with these parameters (it lacks a stored solution)."""


def check_bots_can_play(
    defn: games.GameDefinition, params: dict[str, Any], bots: Iterable[Bot]
) -> None:
    """Raises ``BotUnavailable`` naming the first bot that cannot play ``defn`` with ``params``.

    Asked before anything is printed or played: such a bot used to fail at its first move,
    after the header and every chance step had been printed. The rule is the bot's own
    (``Bot.unavailable_reason``, which the service also uses to offer and seat bots).
    """
    asked: set[type] = set()
    for bot in bots:
        if type(bot) in asked:
            continue
        asked.add(type(bot))
        reason = type(bot).unavailable_reason(defn, params)
        if reason is not None:
            raise BotUnavailable(
                f"bot {bot.name!r} cannot play {defn.name} with these parameters: {reason}"
            )


def seat_bots(name: str, players: int, specs: list[Any]) -> list[Bot]:
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
    specs: list[Any] | None = None,
    budget: Budget | None = None,
    echo: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Plays one game (chance and bot seeds from ``seed``), echoing each step.

    Every bot is checked first (``BotUnavailable``), before the header is echoed.
    Returns the final summary: returns, steps and the final state.
    """
    game = pyspiel.load_game(name, params)
    defn = games.definition(name)
    params = game.params
    engine = defn.new_engine(params)
    n = game.num_players()
    bots = seat_bots(name, n, specs or [])
    check_bots_can_play(defn, params, bots)
    budget = budget or Budget(simulations=1000)
    echo(f"{defn.long_name} {json.dumps(params)}  seed={seed}")
    echo("seats: " + ", ".join(f"{s}={b.name}" for s, b in enumerate(bots)))

    def show(engine: Engine, step: Step) -> None:
        if step.player == CHANCE:
            who, note = "chance", ""
        else:
            who = f"seat {step.player}"
            note = f"   ({_summary(bots[step.player], step.answer)})"
        text = defn.action_to_string(engine, step.player, step.action)
        echo(f"{step.index:4d}  {who:<8} {text}{note}")

    choose = ask_bots(defn, params, bots, [budget] * n, lambda k: derive_seed(seed, "move", k))
    steps = play_episode(engine, choose, sampled_chance(random.Random(seed)), show)
    final = engine.describe()
    returns = engine.returns()
    echo("final: " + json.dumps(final, sort_keys=True))
    echo("returns: " + ", ".join(f"seat {s}: {r:+.3f}" for s, r in enumerate(returns)))
    return {"returns": returns, "steps": steps, "final": final}
