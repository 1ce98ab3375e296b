"""Modern Art's fast random playout is the plain random-rollout loop, step for step.

``ModernArtEngine.random_playout`` replaces, in ISMCTS rollouts, the generic loop that builds
the legal actions and calls ``apply`` for every step. It must not change a single rule or
draw: from the same state and the same ``rng`` it must take the same actions, leave the same
history, secrets and state, consume the rng identically and return the same returns. These
tests run both from many positions (every phase, several variants and both rulesets) and
compare everything, and check that a whole search gives the same result with and without it.
"""

from __future__ import annotations

import random

import pytest

from bots.ismcts import SearchConfig, search
from bots.protocol import Budget, Worlds
from games.core.engine import CHANCE, Engine
from games.core.infoset import build_infoset
from games.modern_art import MODERN_ART
from games.modern_art.engine import PHASE_NAMES, ModernArtEngine

VARIANTS = (
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


def params_of(overrides: dict) -> dict:
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
    assert a.history == b.history
    assert a.secret == b.secret
    assert state_of(a) == state_of(b)
    assert a.describe() == b.describe()
    for seat in range(a.num_players):
        assert a.info_key(seat) == b.info_key(seat)


@pytest.mark.parametrize("overrides", VARIANTS)
def test_random_playout_is_the_plain_loop(overrides):
    params = params_of(overrides)
    phases = set()
    for seed in range(6):
        for k, start in enumerate(positions(params, seed, 12)):
            phases.add(PHASE_NAMES[start.phase])
            for draw in range(3):
                plain, fast = start.copy(), start.copy()
                r1, r2 = random.Random(draw * 1000 + k), random.Random(draw * 1000 + k)
                assert fast.random_playout(r2) == plain_playout(plain, r1)
                assert r1.getstate() == r2.getstate()
                assert_same(fast, plain)
                assert fast.is_terminal()
    assert len(phases) >= 6  # started from most phases, not only between auctions


def test_search_is_unchanged_by_the_fast_playout(monkeypatch):
    """The same seed gives the same tree statistics with the engine's playout or without."""
    params = params_of({})
    start = next(
        e
        for e in positions(params, 3, 40)
        if e.current_player() >= 0 and len(e.legal_actions()) > 1 and len(e.history) > 40
    )
    seat = start.current_player()
    infoset = build_infoset(MODERN_ART, params, start, seat)

    def run():
        rng = random.Random(7)
        worlds = Worlds.from_infoset(MODERN_ART, params, infoset, rng)
        result = search(worlds, Budget(simulations=150), rng, SearchConfig(rollout="random"))
        return result.actions, result.counts, result.means, result.nodes

    fast = run()
    monkeypatch.delattr(ModernArtEngine, "random_playout")
    assert run() == fast
