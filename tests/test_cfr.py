"""The vectorised CFR solvers against published numbers and OpenSpiel's own solvers."""

from __future__ import annotations

import importlib

import numpy as np
import pyspiel
import pytest

import games
from bots.cfr import store
from bots.cfr.solvers import Method, Solver, exploitability
from bots.cfr.tree import TreeTooLarge, build_engine_tree, build_spiel_tree


@pytest.fixture(scope="module")
def kuhn():
    game = pyspiel.load_game("kuhn_poker")
    return game, build_spiel_tree(game)


@pytest.fixture(scope="module")
def leduc():
    game = pyspiel.load_game("leduc_poker")
    return game, build_spiel_tree(game)


def small(name: str) -> dict:
    return dict(importlib.import_module(f"games.{name}").SMALL_VARIANT)


def to_spiel_policy(tree, sigmas) -> pyspiel.TabularPolicy:
    table = {}
    for pt, sigma in zip(tree.players, sigmas, strict=True):
        for i, key in enumerate(pt.keys):
            lo = int(pt.slot_start[i])
            table[key] = [(a, float(sigma[lo + k])) for k, a in enumerate(pt.actions[i])]
    return pyspiel.TabularPolicy(table)


def test_kuhn_tree_sizes(kuhn):
    _, tree = kuhn
    assert tree.sizes() == {"histories": 58, "terminals": 30, "infosets": [6, 6], "slots": [12, 12]}
    # Under any profile the terminal probabilities sum to 1.
    plans = [pt.realization(pt.uniform()) for pt in tree.players]
    reach = tree.term_chance * plans[0][tree.term_seq[0]] * plans[1][tree.term_seq[1]]
    assert reach.sum() == pytest.approx(1.0)


def test_uniform_nash_conv_of_kuhn_is_11_12(kuhn):
    game, tree = kuhn
    result = exploitability(tree, [pt.uniform() for pt in tree.players])
    assert result.nash_conv == pytest.approx(11 / 12, abs=1e-12)
    assert result.values == pytest.approx([1 / 8, -1 / 8])
    assert result.nash_conv == pytest.approx(
        pyspiel.nash_conv(game, pyspiel.UniformRandomPolicy(game)), abs=1e-12
    )


def test_kuhn_value_is_minus_1_18(kuhn):
    _, tree = kuhn
    solver = Solver(tree, Method.CFR_PLUS)
    solver.run(2000)
    result = solver.evaluate()
    assert result.nash_conv < 2e-4
    assert result.values[0] == pytest.approx(-1 / 18, abs=2e-4)


@pytest.mark.parametrize("method", [Method.CFR_PLUS, Method.DCFR, Method.CFR])
def test_every_full_width_method_converges_on_kuhn(kuhn, method):
    _, tree = kuhn
    solver = Solver(tree, method)
    solver.run(500)
    assert solver.evaluate().nash_conv < 0.02


def test_random_policy_nash_conv_matches_openspiel_on_leduc(leduc):
    game, tree = leduc
    rng = np.random.default_rng(3)
    sigmas = [pt.normalize(rng.random(pt.num_slots)) for pt in tree.players]
    ours = exploitability(tree, sigmas).nash_conv
    assert ours == pytest.approx(pyspiel.nash_conv(game, to_spiel_policy(tree, sigmas)), abs=1e-9)


def test_cfr_plus_trajectory_equals_openspiel_cpp_on_cached_kuhn(kuhn):
    game, tree = kuhn
    ours = Solver(tree, Method.CFR_PLUS)
    theirs = pyspiel.CFRPlusSolver(pyspiel.convert_to_cached_tree(game))
    for _ in range(60):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        expected = pyspiel.nash_conv(game, theirs.average_policy())
        assert ours.evaluate().nash_conv == pytest.approx(expected, abs=1e-9)


def test_vanilla_cfr_trajectory_equals_openspiel_cpp_on_kuhn(kuhn):
    game, tree = kuhn
    ours = Solver(tree, Method.CFR)
    theirs = pyspiel.CFRSolver(pyspiel.convert_to_cached_tree(game))
    for _ in range(30):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        expected = pyspiel.nash_conv(game, theirs.average_policy())
        assert ours.evaluate().nash_conv == pytest.approx(expected, abs=1e-9)


def test_dcfr_trajectory_equals_openspiel_python_on_kuhn(kuhn):
    from open_spiel.python.algorithms import discounted_cfr
    from open_spiel.python.algorithms import exploitability as os_ex

    game, tree = kuhn
    ours = Solver(tree, Method.DCFR)
    theirs = discounted_cfr.DCFRSolver(game)
    for _ in range(25):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        expected = os_ex.nash_conv(game, theirs.average_policy())
        assert ours.evaluate().nash_conv == pytest.approx(expected, abs=1e-9)


def test_cfr_plus_trajectory_equals_openspiel_cpp_on_cached_leduc(leduc):
    game, tree = leduc
    ours = Solver(tree, Method.CFR_PLUS)
    theirs = pyspiel.CFRPlusSolver(pyspiel.convert_to_cached_tree(game))
    for it in range(1, 13):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        if it % 4 == 0:
            expected = pyspiel.nash_conv(game, theirs.average_policy())
            assert ours.evaluate().nash_conv == pytest.approx(expected, abs=1e-8)


def test_external_sampling_mccfr_converges_and_is_seeded(kuhn):
    _, tree = kuhn
    a = Solver(tree, Method.ES_MCCFR, seed=7)
    a.run(1000)
    b = Solver(tree, Method.ES_MCCFR, seed=7)
    b.run(1000)
    assert a.evaluate().nash_conv == b.evaluate().nash_conv
    assert a.trajectory[-1][2] < 0.1  # uniform: 0.917


def test_external_sampling_mccfr_converges_on_our_game():
    tree = build_engine_tree(games.definition("finger_auction"), small("finger_auction"))
    solver = Solver(tree, Method.ES_MCCFR, seed=1)
    start = solver.evaluate().nash_conv
    solver.run(800)
    assert solver.evaluate().nash_conv < start / 2


def test_engine_tree_matches_openspiel_face_and_cpp_cfr_on_cached_tree():
    """Our game, two ways: engine walk vs pyspiel states; ours vs C++ CFR+ on cached_tree."""
    params = small("finger_auction")
    game = pyspiel.load_game("finger_auction", params)
    by_engine = build_engine_tree(games.definition("finger_auction"), params)
    by_spiel = build_spiel_tree(game)
    assert by_engine.sizes() == by_spiel.sizes()
    ours = Solver(by_engine, Method.CFR_PLUS)
    theirs = pyspiel.CFRPlusSolver(pyspiel.convert_to_cached_tree(game))
    for it in range(1, 9):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        if it in (1, 4, 8):
            cached = pyspiel.convert_to_cached_tree(game)
            expected = pyspiel.nash_conv(cached, theirs.average_policy())
            assert ours.evaluate().nash_conv == pytest.approx(expected, abs=1e-9)


def test_best_response_gains_are_nonnegative_and_zero_sum_values(leduc):
    _, tree = leduc
    solver = Solver(tree, Method.DCFR)
    solver.run(50)
    result = solver.evaluate()
    assert all(g >= -1e-12 for g in result.gains)
    assert sum(result.values) == pytest.approx(0.0, abs=1e-12)


def test_tree_size_limit():
    with pytest.raises(TreeTooLarge):
        build_spiel_tree(pyspiel.load_game("leduc_poker"), max_nodes=1000)


@pytest.mark.parametrize("name", ["finger_auction", "detective_eye"])
def test_stored_solution_matches_the_current_reduced_variant(name):
    defn = games.definition(name)
    params = defn.validate_params(small(name))
    stored = store.find(name, defn.version, params)  # raises when stale: regenerate
    assert stored.meta["nash_conv"] <= 1e-3 * stored.meta["utility_range"]
    assert stored.meta["command"].startswith(store.REGENERATE)


def test_stored_finger_auction_solution_is_what_it_says():
    """Recomputes the stored policy's NashConv from the file on a freshly built tree."""
    from bots.cfr.solve import _from_json

    defn = games.definition("finger_auction")
    params = defn.validate_params(small("finger_auction"))
    stored = store.find("finger_auction", defn.version, params)
    tree = build_engine_tree(defn, params)
    digests = store.tree_digests(defn, params, tree)
    result = exploitability(tree, _from_json(tree, stored.policy, digests))
    assert result.nash_conv == pytest.approx(stored.meta["nash_conv"], abs=1e-9)
    assert result.nash_conv <= 1e-3 * tree.utility_range


@pytest.mark.slow
def test_stored_detective_eye_solution_is_what_it_says():
    from bots.cfr.solve import _from_json

    defn = games.definition("detective_eye")
    params = defn.validate_params(small("detective_eye"))
    stored = store.find("detective_eye", defn.version, params)
    tree = build_engine_tree(defn, params)
    digests = store.tree_digests(defn, params, tree)
    result = exploitability(tree, _from_json(tree, stored.policy, digests))
    assert result.nash_conv <= 1e-3 * tree.utility_range


def test_solvers_need_no_global_rng_and_return_copies(kuhn):
    _, tree = kuhn
    solver = Solver(tree, Method.CFR_PLUS)
    solver.run(3)
    policy = solver.current_policy()
    policy[0][:] = 0.0
    assert solver.current_policy()[0].sum() > 0
