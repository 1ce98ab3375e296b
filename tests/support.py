"""Helpers shared by the test modules: random playthroughs on engines and pyspiel states, a
stand-in ``time`` module for tests of deadlines and expiry, seeded positions and games, another
world of a seat's information set, and Modern Art's playout comparisons."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import pyspiel

import games
from bots.heuristics import knowledge_for
from games.core.definition import replay as replay_history
from games.core.engine import CHANCE, Engine
from games.core.infoset import build_infoset, sample_engine
from games.modern_art import MODERN_ART
from games.modern_art.engine import ModernArtEngine

GAMES = sorted(games.DEFINITIONS)


def conformance_cases() -> list[tuple[str, dict[str, Any]]]:
    """Every (game, params) pair the shared suite runs: declared by each game's definition."""
    return [
        (name, params)
        for name, defn in games.DEFINITIONS.items()
        for params in defn.conformance_params
    ]


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    name, params = case
    return name + "(" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + ")"


def step(engine: Engine, rng: random.Random) -> int:
    """Picks a random legal action (chance by its probabilities) and applies it."""
    if engine.is_chance():
        outcomes, probs = zip(*engine.chance_outcomes(), strict=True)
        action = rng.choices(outcomes, probs)[0]
    else:
        action = rng.choice(engine.legal_actions())
    engine.apply(action)
    return action


def playout(engine: Engine, rng: random.Random, max_steps: int = 100_000) -> Engine:
    for _ in range(max_steps):
        if engine.is_terminal():
            return engine
        step(engine, rng)
    raise AssertionError(f"no terminal state after {max_steps} steps")


def random_engines(
    game: pyspiel.Game, seed: int, count: int, keep_every: int = 1
) -> Iterator[Engine]:
    """Yields ``count`` engine states taken along random games (terminal states included)."""
    rng = random.Random(seed)
    defn = game.definition
    produced = 0
    while produced < count:
        engine = defn.new_engine(game.params)
        while True:
            if rng.randrange(keep_every) == 0:
                yield engine.copy()
                produced += 1
                if produced >= count:
                    return
            if engine.is_terminal():
                break
            step(engine, rng)


def play_states(game: pyspiel.Game, seed: int) -> Iterator[pyspiel.State]:
    """Every pyspiel state of one random game, in order."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while True:
        yield state
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state = state.child(rng.choices(outcomes, probs)[0])
        else:
            state = state.child(rng.choice(state.legal_actions()))


class FakeTime:
    """Stands in for the ``time`` module of a module under test
    (``monkeypatch.setattr("pkg.mod.time", FakeTime(perf_counter=...))``): the clocks given
    replace the real ones, everything else is the real module. A test of a deadline or an
    expiry then depends on the clock it sets, not on how fast or loaded the machine is."""

    def __init__(self, **clocks: Callable[[], float]) -> None:
        self._clocks = clocks

    def __getattr__(self, name: str) -> Any:
        clock = self._clocks.get(name)
        return clock if clock is not None else getattr(time, name)


# --- seeded positions and games ----------------------------------------------------------------
def decision_states(name: str, seed: int, count: int, params: dict | None = None):
    """``count`` decision states of random games of ``name`` (engines, a seat to move)."""
    defn = games.definition(name)
    params = defn.validate_params(params or {})
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        engine = defn.new_engine(params)
        while not engine.is_terminal() and len(out) < count:
            if engine.is_chance():
                engine.apply(engine.sample_chance(rng))
                continue
            if rng.random() < 0.3:
                out.append(engine.copy())
            engine.apply(rng.choice(engine.legal_actions()))
    return defn, params, out


def heuristic_position(name: str, players: int, steps: int, seed: int = 2):
    """A decision state with a real choice after ``steps`` moves of heuristic play."""
    defn = games.definition(name)
    params = defn.validate_params({"players": players})
    knowledge = knowledge_for(name)
    rng = random.Random(seed)
    engine = defn.new_engine(params)
    while True:
        assert not engine.is_terminal(), "the game ended before the position: fewer steps"
        if engine.current_player() == CHANCE:
            engine.apply(engine.sample_chance(rng))
            continue
        if len(engine.history) >= steps and len(engine.legal_actions()) > 2:
            return defn, params, engine
        engine.apply(knowledge.choose(engine, rng))


def heuristic_game(name: str, seed: int, params: dict | None = None):
    """A seeded game played to the end by the game's heuristic."""
    defn = games.definition(name)
    full = defn.validate_params(params or {})
    knowledge = knowledge_for(name)
    rng = random.Random(seed)
    engine = defn.new_engine(full)
    while not engine.is_terminal():
        if engine.current_player() < 0:
            engine.apply(engine.sample_chance(rng))
        else:
            engine.apply(knowledge.playout(engine, rng))
    return defn, full, engine


# --- another world of a seat's information set -------------------------------------------------
def another_world(defn, params, engine):
    """A seat, the latest cut of ``engine``'s game with another world of the seat's
    information set there (a different hidden card or bid), and that world."""
    history = list(engine.history)
    for cut, seat in itertools.product(range(len(history), 0, -1), range(params["players"])):
        record = replay_history(defn, params, history[:cut])
        mine = build_infoset(defn, params, record, seat, with_view=False)
        for s in range(20):
            world = sample_engine(defn, params, mine, random.Random(s))
            if world.history != record.history:
                return seat, record, world
    raise AssertionError("no hidden information in this game")


# --- Modern Art's playouts: the variants, the plain loop and positions to compare from ------------
MODERN_ART_VARIANTS = (
    {},
    {"players": 3, "ruleset": "classic", "payoff": "money"},
    {"players": 5, "money": 20},
    {
        "players": 3,
        "artists": 3,
        "cards_per_artist": 6,
        "rounds": 3,
        "money": 6,
        "deal": 2,
        "refill": 2,
    },
    {"players": 4, "money": 0},  # nobody can bid: single-action lists and zero prices
)


def modern_art_params(overrides: dict) -> dict:
    """Modern Art's full parameters from ``overrides`` (the defaults filled in)."""
    return MODERN_ART.validate_params(overrides)


def plain_playout(engine: ModernArtEngine, rng: random.Random) -> list[float]:
    """The generic uniform rollout (``Engine.random_playout``, which the engine overrides)."""
    return Engine.random_playout(engine, rng)


def positions(params: dict, seed: int, count: int) -> list[ModernArtEngine]:
    """States along one random game: the start, ``count`` states spread over it, the end."""
    rng = random.Random(seed)
    engine = MODERN_ART.new_engine(params)
    seen = [engine.copy()]
    while not engine.is_terminal():
        if engine.current_player() == CHANCE:
            engine.apply(engine.sample_chance(rng))
        else:
            engine.apply(rng.choice(engine.legal_actions()))
        if rng.random() < count / 300:
            seen.append(engine.copy())
    seen.append(engine)
    return seen


def state_of(engine: ModernArtEngine) -> dict:
    """Every field of the engine (both classes' slots), history and secrets included."""
    slots = [name for cls in type(engine).__mro__ for name in getattr(cls, "__slots__", ())]
    return {name: getattr(engine, name) for name in slots if name != "cfg"}


def assert_same(a: ModernArtEngine, b: ModernArtEngine) -> None:
    """The two engines are in the same state, down to every slot, secret and seat's view."""
    assert a.history == b.history
    assert a.secret == b.secret
    assert state_of(a) == state_of(b)
    assert a.describe() == b.describe()
    for seat in range(a.num_players):
        assert a.info_key(seat) == b.info_key(seat)


def playout_starts(engine: Engine, seed: int, keep: float) -> list[Engine]:
    """Copies of ``engine`` along one uniformly random game (chance and moves from ``seed``),
    each step kept with probability ``keep``, the first and the terminal state always: the
    starting points from which a game's own ``random_playout`` is pinned to the plain loop."""
    rng = random.Random(seed)
    seen = [engine.copy()]
    while not engine.is_terminal():
        if engine.is_chance():
            engine.apply(engine.sample_chance(rng))
        else:
            engine.apply(rng.choice(engine.legal_actions()))
        if rng.random() < keep:
            seen.append(engine.copy())
    seen.append(engine)
    return seen


def assert_playout_is_the_plain_loop(start: Engine, seed: int) -> tuple[Engine, Engine]:
    """A game's own ``random_playout`` from ``start`` against the generic loop
    (``Engine.random_playout``) on copies with the same rng: the same returns, the rng consumed
    alike, the same history and state. Returns (fast, plain) for game-specific checks."""
    plain, fast = start.copy(), start.copy()
    r1, r2 = random.Random(seed), random.Random(seed)
    assert fast.random_playout(r2) == Engine.random_playout(plain, r1)
    assert r1.getstate() == r2.getstate()
    assert fast.history == plain.history
    assert fast.describe() == plain.describe()
    return fast, plain


def assert_legal_actions_are_fresh_lists(engine: Engine, seed: int) -> None:
    """Along one random game from ``engine``: every ``player_actions()`` is a new list equal
    to the engine's shared choice tuple (``_choices``), so a caller may change the list it got
    without changing the tuple that every later position of the same kind shares."""
    rng = random.Random(seed)
    while not engine.is_terminal():
        if engine.is_chance():
            engine.apply(engine.sample_chance(rng))
            continue
        legal = engine.player_actions()
        assert isinstance(legal, list) and legal == list(engine._choices())  # type: ignore[attr-defined]
        legal.append(-1)  # the caller's to change: the shared tuples stay as they were
        assert -1 not in engine._choices()  # type: ignore[attr-defined]
        engine.apply(rng.choice(engine.player_actions()))
