"""Detective Eye's fast random playout is the plain random-rollout loop, step for step.

``DetectiveEyeEngine.random_playout`` replaces, in ISMCTS rollouts, the generic loop that copies
the legal actions and calls ``apply`` for every step. From the same state and ``rng`` it must
take the same actions, leave the same history and state, consume the rng identically and
return the same returns; these tests run both from many positions of several settings.
"""

from __future__ import annotations

import pytest

from games.detective_eye.engine import PHASE_NAMES, DetectiveEyeEngine
from tests.support import assert_playout_is_the_plain_loop, playout_starts

SETTINGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4, "hand_size": 6, "forgeries": 5},
    {"num_players": 3, "draft_size": 0, "max_rounds": 5},
    {
        "num_players": 2,
        "painters": 2,
        "cards_per_painter": 2,
        "hand_size": 2,
        "draft_size": 1,
        "forgeries": 1,
        "max_rounds": 1,
    },
]


def positions(settings: dict, seed: int) -> list[DetectiveEyeEngine]:
    return playout_starts(DetectiveEyeEngine(**settings), seed, 0.15)


@pytest.mark.parametrize("settings", SETTINGS)
def test_random_playout_is_the_plain_loop(settings):
    phases = set()
    for seed in range(8):
        for k, start in enumerate(positions(settings, seed)):
            phases.add(PHASE_NAMES[start.phase])
            fast, plain = assert_playout_is_the_plain_loop(start, k)
            for seat in range(fast.num_players):
                assert fast.info_key(seat) == plain.info_key(seat)
                assert fast.observation(seat) == plain.observation(seat)
    assert len(phases) >= 6  # started from most phases
