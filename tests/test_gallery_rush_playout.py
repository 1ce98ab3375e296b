"""Gallery Rush's fast random playout is the plain random-rollout loop, step for step.

``GalleryRushEngine.random_playout`` replaces, in uniform ISMCTS rollouts, the generic loop
(``Engine.random_playout``) that builds a list of legal actions and calls ``apply`` for every
step. From the same state and ``rng`` it must take the same actions, leave the same history and
state, consume the rng identically and return the same returns; these tests run both from many
positions of every player count (and a short turn cap, so the cap ends some games).
"""

from __future__ import annotations

import pytest

from games.gallery_rush.engine import PHASE_NAMES, GalleryRushEngine
from tests.support import (
    assert_legal_actions_are_fresh_lists,
    assert_playout_is_the_plain_loop,
    playout_starts,
)

SETTINGS = [(2, 40), (3, 40), (4, 40), (3, 6)]


def positions(players: int, max_turns: int, seed: int) -> list[GalleryRushEngine]:
    return playout_starts(GalleryRushEngine(players, max_turns), seed, 0.3)


@pytest.mark.parametrize(("players", "max_turns"), SETTINGS)
def test_random_playout_is_the_plain_loop(players, max_turns):
    phases = set()
    for seed in range(12):
        for k, start in enumerate(positions(players, max_turns, seed)):
            phases.add(PHASE_NAMES[start.phase])
            assert_playout_is_the_plain_loop(start, k)
    # Started from every phase, the end included (a six-turn game rarely reaches a steal).
    assert phases >= set(PHASE_NAMES) - ({"steal"} if max_turns < 10 else set())


def test_the_legal_actions_are_the_choices_as_a_fresh_list():
    assert_legal_actions_are_fresh_lists(GalleryRushEngine(3, 40), 3)
