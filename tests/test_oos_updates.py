"""The online CFR bot's regret updates: outcome sampling with VR-MCCFR baselines.

The estimator must be unbiased whatever the baselines are (Schmid et al. 2019): summed over
every trajectory, weighted by the probability of sampling it, one iteration's regret updates
equal the exact counterfactual regrets. Checked by enumeration on a small tree.
"""

from __future__ import annotations

import itertools

import pytest

from bots.cfr.bots import _Table, _update_regrets

CHANCE_P = [0.3, 0.7]  # chance deals c; the traverser does not see it
SIGMA_T = [0.4, 0.6]  # the traverser's strategy (one information set)
XI_T = [0.5, 0.5]  # how the traverser's action is sampled (exploration)
SIGMA_O = {(0, 0): [0.2, 0.8], (0, 1): [0.9, 0.1], (1, 0): [0.5, 0.5], (1, 1): [0.3, 0.7]}


def utility(c: int, a: int, o: int) -> float:
    return [[[1.0, -2.0], [0.5, 3.0]], [[-1.0, 2.5], [0.0, -0.5]]][c][a][o]


def exact_regrets() -> list[float]:
    regrets = [0.0, 0.0]
    for c, pc in enumerate(CHANCE_P):
        v = [sum(SIGMA_O[c, a][o] * utility(c, a, o) for o in range(2)) for a in range(2)]
        here = sum(s * x for s, x in zip(SIGMA_T, v, strict=True))
        for a in range(2):
            regrets[a] += pc * (v[a] - here)
    return regrets


def expected_update(baseline_t: list[float], baseline_o: float, plus: bool = False):
    """Sum over all 8 trajectories of q(z) times the regret update they make."""
    total = [0.0, 0.0]
    for c, a, o in itertools.product(range(2), repeat=3):
        t = _Table([10, 11])
        t.regrets = [0.0, 0.0]
        t.baselines[0] = list(baseline_t)
        opp = _Table([20, 21])
        opp.baselines[0] = [baseline_o, -baseline_o]
        path = [(None, -1, c, CHANCE_P), (t, 0, a, SIGMA_T), (opp, 1, o, SIGMA_O[c, a])]
        path_q = [1.0, CHANCE_P[c], CHANCE_P[c] * XI_T[a]]
        q = path_q[2] * SIGMA_O[c, a][o]
        _update_regrets(path, path_q, q, utility(c, a, o), 0, decay=0.0, plus=plus)
        for b in range(2):
            total[b] += q * t.regrets[b]
    return total


@pytest.mark.parametrize(
    ("baseline_t", "baseline_o"), [([0.0, 0.0], 0.0), ([1.5, -0.7], 0.4), ([-3.0, 2.0], -1.0)]
)
def test_sampled_regrets_are_unbiased_whatever_the_baselines(baseline_t, baseline_o):
    assert expected_update(baseline_t, baseline_o) == pytest.approx(exact_regrets())


def test_zero_baselines_give_plain_outcome_sampling():
    """One trajectory, by hand: W = u pi_-i(h) / q(z); regret W (pi(ha->z)[a=i] - pi(h->z))."""
    t = _Table([10, 11])
    path = [(None, -1, 0, [0.5, 0.5]), (t, 0, 1, [0.25, 0.75])]
    _update_regrets(path, [1.0, 0.5], 0.3, 1.0, 0, decay=0.0, plus=False)
    w = 1.0 * 0.5 / 0.3
    assert t.regrets == pytest.approx([w * (0 - 0.75), w * (1 - 0.75)])


def test_baselines_learn_the_sampled_values_and_plus_floors_regrets():
    t = _Table([10, 11])
    path = [(t, 0, 1, [0.25, 0.75])]
    _update_regrets(path, [1.0], 0.5, 1.0, 0, decay=0.2, plus=True)
    assert t.baselines[0] == pytest.approx([0.0, 0.2])  # 0 + 0.2 (u - 0) for the sampled one
    assert t.regrets[0] == 0.0 and t.regrets[1] > 0.0  # the negative regret floored
