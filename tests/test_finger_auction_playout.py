"""Finger Auction's fast random playout is the plain random-rollout loop, step for step.

``FingerAuctionEngine.random_playout`` replaces, in uniform ISMCTS rollouts, the generic loop
(``Engine.random_playout``) that asks ``current_player``, builds a list of legal actions and
calls ``apply`` for every step. From the same state and ``rng`` it must take the same actions,
leave the same history and state, consume the rng identically and return the same returns;
these tests run both from many positions of every player count (and with a void cap of one,
so capped ties go to chance's tie-break).
"""

from __future__ import annotations

from itertools import product

import pytest

from games.finger_auction.actions import pick
from games.finger_auction.engine import (
    NUM_KINDS,
    PHASE_NAMES,
    FingerAuctionEngine,
    only_kind,
    pick_choices,
)
from tests.support import (
    assert_legal_actions_are_fresh_lists,
    assert_playout_is_the_plain_loop,
    playout_starts,
)

# (players, max_void)
SETTINGS = [(2, 20), (3, 20), (4, 20), (2, 1), (3, 1), (4, 1)]


def positions(players: int, max_void: int, seed: int) -> list[FingerAuctionEngine]:
    return playout_starts(FingerAuctionEngine(players, max_void=max_void), seed, 0.3)


@pytest.mark.parametrize(("players", "max_void"), SETTINGS)
def test_random_playout_is_the_plain_loop(players, max_void):
    phases = set()
    for seed in range(10):
        for k, start in enumerate(positions(players, max_void, seed)):
            phases.add(PHASE_NAMES[start.phase])
            assert_playout_is_the_plain_loop(start, k)
    # Started from every phase, the end included; ties go to chance only at a small cap.
    assert phases >= set(PHASE_NAMES) - ({"tie_break"} if max_void > 1 else set())


def test_the_legal_actions_are_the_choices_as_a_fresh_list():
    assert_legal_actions_are_fresh_lists(FingerAuctionEngine(3), 3)


def test_the_table_helpers_answer_by_their_definition():
    """``only_kind`` (the forced pick's kind) and ``pick_choices`` (the pick actions), typed
    when compiled, against the codec (``actions.pick``) on every table of up to three cards of
    each kind."""
    for table in product(range(3), repeat=NUM_KINDS):
        on = [k for k in range(NUM_KINDS) if table[k]]
        if on:
            assert only_kind(list(table)) == (on[0] if len(on) == 1 else -1)
        assert pick_choices(list(table), pick(0, 5)) == tuple(pick(k, 5) for k in on)
