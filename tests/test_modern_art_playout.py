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
from games.core.infoset import build_infoset
from games.modern_art import MODERN_ART
from games.modern_art.actions import num_actions
from games.modern_art.engine import PHASE_NAMES, ModernArtEngine
from tests.support import (
    MODERN_ART_VARIANTS,
    assert_same,
    modern_art_params,
    plain_playout,
    positions,
)


@pytest.mark.parametrize("overrides", MODERN_ART_VARIANTS)
def test_random_playout_is_the_plain_loop(overrides):
    params = modern_art_params(overrides)
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
    params = modern_art_params({})
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


@pytest.mark.parametrize("overrides", MODERN_ART_VARIANTS)
def test_is_legal_and_the_legal_lists_share_one_amount_rule(overrides):
    """``amount_range`` is the one statement of the legal amounts: ``is_legal`` answers exactly
    the legal list in every bidding phase (passes, zero prices, raises above the high bid)."""
    params = modern_art_params(overrides)
    ids = num_actions(MODERN_ART.new_engine(params).cfg)
    seen = set()
    for seed in range(3):
        for engine in positions(params, 200 + seed, 40):
            if engine.current_player() < 0:
                continue
            legal = set(engine.legal_actions())
            for action in range(-1, ids + 1):
                assert engine.is_legal(action) == (action in legal), (action, engine.describe())
            seen.add(PHASE_NAMES[engine.phase])
    assert {"open", "sealed", "fixed_price"} & seen
