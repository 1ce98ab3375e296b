"""Both implementations of Modern Art's fast random playout are the plain loop, step for step.

``ModernArtEngine.random_playout`` runs the compiled playout (``games/modern_art/_playout.pyx``)
when the extension is built and the pure-Python one otherwise; tests/test_modern_art_playout.py
checks whichever is in use. These tests pin each one explicitly, from the same positions, so
neither can drift while the other is the one installed.
"""

from __future__ import annotations

import random

import pytest

from games.modern_art import engine as ma
from tests.support import (
    MODERN_ART_VARIANTS,
    assert_same,
    modern_art_params,
    plain_playout,
    positions,
)

IMPLEMENTATIONS = {"python": ma.ModernArtEngine.python_random_playout}
if ma.compiled_playout is not None:
    IMPLEMENTATIONS["compiled"] = ma.compiled_playout


def test_the_compiled_playout_is_built_in_ci():
    """CI installs the package (which builds the extension): there it must be in use."""
    import os

    if os.environ.get("CI") != "true":
        pytest.skip("only CI guarantees a fresh build of the extension")
    assert ma.compiled_playout is not None
    assert ma.ModernArtEngine.random_playout is ma.compiled_random_playout


@pytest.mark.parametrize("name", sorted(IMPLEMENTATIONS))
@pytest.mark.parametrize("overrides", MODERN_ART_VARIANTS)
def test_each_playout_is_the_plain_loop(name, overrides):
    playout = IMPLEMENTATIONS[name]
    params = modern_art_params(overrides)
    for seed in range(4):
        for k, start in enumerate(positions(params, 100 + seed, 12)):
            for draw in range(2):
                plain, fast = start.copy(), start.copy()
                r1, r2 = random.Random(draw * 1000 + k), random.Random(draw * 1000 + k)
                assert playout(fast, r2) == plain_playout(plain, r1)
                assert r1.getstate() == r2.getstate()
                assert_same(fast, plain)
