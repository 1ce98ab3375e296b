"""The shared stepping helpers (issue 44.3): ``weighted_pick``, ``replay``, ``random_position``.

Every tool that draws by weight, rebuilds a state from its history or plays a seeded random
game to a position calls these; the tests pin what the copies they replaced did, so the same
seeds keep giving the same positions.
"""

from __future__ import annotations

import random

import pytest

import games
from games.core.definition import InvalidInfoset, replay, replayed
from games.core.engine import inverse_cdf, weighted_pick
from games.core.episode import random_position, sampled_chance, stream_chance, uniform_choice
from tests.support import GAMES


def test_weighted_pick_walks_the_cumulative_weights():
    pairs = [("a", 0.25), ("b", 0.5), ("c", 0.25)]
    picks = [weighted_pick(pairs, u) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 0.9999)]
    assert picks == ["a", "a", "b", "b", "c", "c"]
    # Unnormalised weights with ``u`` scaled to their total (a search's visit counts).
    assert [weighted_pick([(0, 3), (1, 1)], u) for u in (0.0, 2.9, 3.0, 3.9)] == [0, 0, 1, 1]
    assert inverse_cdf is weighted_pick  # a chance draw is the same walk


def test_weighted_pick_never_falls_through_to_a_zero_weight():
    """Rounding can leave ``u`` past the last interval: the last *possible* item is drawn (the
    walk bots/levels.py had fell back to the last item, weight 0 or not)."""
    probs = [0.1] * 10  # sums to 0.9999999999999999
    pairs = [*zip(range(10), probs, strict=True), (10, 0.0)]
    assert weighted_pick(pairs, 0.99999999999999999) == 9
    with pytest.raises(ValueError, match="positive weight"):
        weighted_pick([(0, 0.0)], 0.5)


@pytest.mark.parametrize("game", GAMES)
def test_replay_rebuilds_the_state_and_a_checked_replay_names_the_illegal_step(game):
    defn = games.definition(game)
    params = defn.validate_params({})
    rng = random.Random(3)
    engine = defn.new_engine(params)
    engine.random_playout(rng)
    again = replay(defn, params, engine.history)
    assert again.history == engine.history and again.describe() == engine.describe()
    assert replayed(defn, params, engine.history).describe() == engine.describe()

    cut = engine.history[:5]
    bad = next(a for a in range(-1, 100_000) if not replay(defn, params, cut).is_legal(a))
    with pytest.raises(LookupError, match=r"step 5 \(") as err:
        replay(defn, params, [*cut, bad], lambda i, a: LookupError(f"step {i} ({a})"))
    assert str(bad) in str(err.value)
    with pytest.raises(InvalidInfoset, match="sampler is wrong"):
        replayed(defn, params, [*cut, bad])
    with pytest.raises(KeyError):  # a step after the end is refused too
        replay(defn, params, [*engine.history, engine.history[-1]], lambda i, a: KeyError(i))


def _old_random_step(engine, rng):
    """server/examples.py's ``random_step`` before issue 44: chance by ``rng.choices``."""
    if engine.is_chance():
        outcomes = engine.chance_outcomes()
        action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    else:
        action = rng.choice(engine.legal_actions())
    engine.apply(action)


@pytest.mark.parametrize("game", GAMES)
def test_random_position_makes_the_draws_the_examples_made(game):
    """``stream_chance`` (inverse CDF) draws the outcome ``rng.choices`` drew from the same
    uniform, so the documented example positions did not move."""
    defn = games.definition(game)
    params = defn.validate_params({})
    for seed in range(8):
        rng = random.Random(seed)
        engine = defn.new_engine(params)
        while engine.is_chance() or len(engine.history) < 12:
            if engine.is_terminal():
                break
            _old_random_step(engine, rng)
        rng = random.Random(seed)
        far = lambda e: len(e.history) >= 12  # noqa: E731
        got = random_position(defn, params, rng, far, chance=stream_chance(rng))
        if engine.is_terminal():
            assert got is None
        else:
            assert got is not None and got.history == engine.history


def test_random_position_asks_stop_at_decisions_only_and_ends_with_the_game():
    defn = games.definition("gallery_rush")
    params = defn.validate_params({})
    asked = []

    def never(engine):
        asked.append(engine.is_chance())
        return False

    rng = random.Random(0)
    assert (
        random_position(defn, params, rng, never, uniform_choice(rng), sampled_chance(rng)) is None
    )
    assert asked and not any(asked)
