"""The one episode loop: an engine, a move chooser, a chance draw and a per-step callback.

Every tool that plays a game to the end (``atelier play``, tournaments, exploitability lower
bounds, the benchmarks, hosted matches) runs ``play_episode``; what differs between them is
who chooses the moves, how chance is drawn and what is recorded, and those are its three
arguments:

* ``choose(engine, seat, step)`` answers a decision with an action id or with an object that
  has an ``action`` attribute (a bot's ``Hint``); the answer is passed on to the callback, so
  a recorder sees the policy and value a bot reported. ``ask_bots`` builds the usual chooser:
  each seat's bot asked on that seat's information set, never on the true state.
* ``chance(engine)`` draws a chance outcome: ``stream_chance`` (one uniform number per chance
  node, resolved by inverse CDF: what duplicate deals share) or ``sampled_chance`` (the
  engine's own, possibly faster, ``sample_chance``).
* ``on_step(engine, step)`` is called before each step is applied, with the engine still in
  the state the step is taken from, so it can narrate the step or evaluate its alternatives.

``stop(engine)``, if given, ends the loop early (a hosted match stops where a human must act).

The loop itself checks nothing: a caller that must refuse an illegal answer checks it in its
chooser, where it knows whom to blame.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from games.core.engine import CHANCE, TERMINAL, Engine, inverse_cdf
from games.core.infoset import build_infoset

__all__ = [
    "Step",
    "ask_bots",
    "inverse_cdf",
    "play_episode",
    "random_position",
    "sampled_chance",
    "stream_chance",
    "uniform_choice",
]

Chooser = Callable[[Engine, int, int], Any]
ChanceDraw = Callable[[Engine], int]


@dataclass(frozen=True, slots=True)
class Step:
    """One step as the callback sees it, before it is applied."""

    index: int  # 0 for the first step, chance steps included
    player: int  # the seat, or CHANCE
    action: int
    answer: Any = None  # the chooser's answer (e.g. a Hint); None at chance nodes


def stream_chance(rng: random.Random) -> ChanceDraw:
    """Chance from a stream of uniforms: the ``k``-th chance node takes the ``k``-th number."""
    return lambda engine: inverse_cdf(engine.chance_outcomes(), rng.random())


def sampled_chance(rng: random.Random) -> ChanceDraw:
    """Chance by the engine's ``sample_chance`` (its fast draw, which may use ``rng`` freely)."""
    return lambda engine: engine.sample_chance(rng)


def uniform_choice(rng: random.Random) -> Chooser:
    """Any legal move alike: ``rng.choice(legal_actions())`` (how the seeded examples play)."""
    return lambda engine, seat, step: rng.choice(engine.legal_actions())


def random_position(
    defn: Any,
    params: dict[str, Any],
    rng: random.Random,
    stop: Callable[[Engine], bool],
    choose: Chooser | None = None,
    chance: ChanceDraw | None = None,
) -> Engine | None:
    """The first decision of one seeded game where ``stop(engine)`` holds, or ``None`` when
    the game ends first: how the examples, the benchmarks and the load scenarios find a
    position to ask about.

    Moves are ``choose`` (by default ``uniform_choice(rng)``), chance is ``chance`` (by default
    ``sampled_chance(rng)``); ``stop`` is asked at decisions only, before the move is drawn, so
    a ``stop`` that draws from ``rng`` itself (a decision taken with some probability) draws in
    the same order every time. Typed loosely because ``games`` sits below ``bots``.
    """
    engine = defn.new_engine(params)
    play_episode(
        engine,
        choose or uniform_choice(rng),
        chance or sampled_chance(rng),
        stop=lambda e: not e.is_chance() and stop(e),
    )
    return None if engine.is_terminal() else engine


def play_episode(
    engine: Engine,
    choose: Chooser,
    chance: ChanceDraw,
    on_step: Callable[[Engine, Step], None] | None = None,
    stop: Callable[[Engine], bool] | None = None,
) -> int:
    """Plays ``engine`` in place to the end (or until ``stop``); returns the steps taken."""
    step = 0
    while True:
        player = engine.current_player()
        if player == TERMINAL or (stop is not None and stop(engine)):
            return step
        if player == CHANCE:
            action, answer = chance(engine), None
        else:
            answer = choose(engine, player, step)
            action = answer if isinstance(answer, int) else answer.action
        if on_step is not None:
            on_step(engine, Step(step, player, action, answer))
        engine.apply(action)
        step += 1


def ask_bots(
    defn: Any,
    params: dict[str, Any],
    bots: Sequence[Any],
    budgets: Sequence[Any],
    seed_of: Callable[[int], int],
    with_view: bool = True,
) -> Chooser:
    """Seat ``s``'s decision at step ``k``: ``bots[s].hint`` on seat ``s``'s information set,
    with budget ``budgets[s]`` and seed ``seed_of(k)`` (the call ``Bot.hint_for_state`` makes).

    The answer is the bot's ``Hint``. Typed loosely because ``games`` sits below ``bots``.
    """

    def choose(engine: Engine, seat: int, step: int) -> Any:
        infoset = build_infoset(defn, params, engine, seat, with_view=with_view)
        return bots[seat].hint(defn, params, infoset, budgets[seat], seed_of(step))

    return choose
