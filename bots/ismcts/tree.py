"""The search tree: information-set nodes and the steps of an iteration on them, expand
(``new_node``), select (``ucb1``, Smooth UCT's ``average_strategy`` or ``regret_matching``) and
``backup``."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from games.core.engine import weighted_pick

try:  # compiled, tree.pxd declares log and sqrt as libm's (CPython's math calls them)
    import cython

    _COMPILED = cython.compiled
except ImportError:  # pragma: no cover - Cython is a build requirement, not a runtime one
    _COMPILED = False
if not _COMPILED:
    from math import log, sqrt

# Smooth UCT's mixing schedule (Heinrich and Silver 2015, section 4): at a node visited N
# times, UCB1 picks the action with probability max(GAMMA, ETA / (1 + D * sqrt(N))), and
# otherwise the action is drawn from the node's average strategy (its visit distribution).
# The paper's values for Kuhn and Leduc poker.
SMOOTH_ETA, SMOOTH_GAMMA, SMOOTH_D = 0.9, 0.1, 0.001

# Regret matching's exploration (``regret_matching``): the share of a node's draws that are
# uniform, so that every action keeps being sampled and its regret estimated.
REGRET_GAMMA = 0.1


def first_place_share(returns: list[float], seat: int) -> float:
    """``seat``'s share of the top return: 1/k among k tied leaders, else 0 (the analysis's
    value, a win probability in every game)."""
    top = max(returns)
    if returns[seat] < top - 1e-9:
        return 0.0
    tied = 0  # (a loop rather than a generator: tree.pxd types it, it runs every iteration)
    for r in returns:
        if r >= top - 1e-9:
            tied += 1
    return 1.0 / tied


class Node:
    """One information set's statistics: per action, visits and the sum of returns, and the
    heuristic's prior when progressive bias is on.

    The root alone also keeps, per action, the sum of squared returns and the sum and sum of
    squares of the mover's first-place share (``moments``, after ``keep_moments``): standard
    errors for the hint's table and the analysis, without changing what the search does.
    """

    __slots__ = (
        "actions",
        "average",
        "bias",
        "counts",
        "drawn",
        "moments",
        "regrets",
        "totals",
        "tried",
        "visits",
    )

    def __init__(self, actions: list[int], bias: list[float] | None = None) -> None:
        self.actions = actions
        self.bias = bias
        self.counts = [0] * len(actions)
        self.totals = [0.0] * len(actions)
        self.tried = 0
        self.visits = 0
        self.moments: Moments | None = None
        # Regret matching (``regret_matching``, after ``keep_regrets``): cumulative regrets, the
        # sum of the strategies played (the average strategy), and the probability the last
        # draw had (0: the last step here was not a regret-matching draw).
        self.regrets: list[float] | None = None
        self.average: list[float] | None = None
        self.drawn = 0.0

    def keep_moments(self) -> None:
        self.moments = Moments(len(self.actions))

    def keep_regrets(self) -> None:
        self.regrets = [0.0] * len(self.actions)
        self.average = [0.0] * len(self.actions)


class Moments:
    """Per action of a node: sum of squared returns, and sum and sum of squares of the
    mover's first-place share."""

    __slots__ = ("share_squares", "shares", "squares")

    def __init__(self, n: int) -> None:
        self.squares = [0.0] * n
        self.shares = [0.0] * n
        self.share_squares = [0.0] * n

    def add(self, i: int, returns: list[float], player: int) -> None:
        r = returns[player]
        self.squares[i] += r * r
        share = first_place_share(returns, player)
        self.shares[i] += share
        self.share_squares[i] += share * share


# Where an iteration went: per tree step, the node, the action's index and the player moving.
Path = list[tuple[Node, int, int]]


def new_node(actions: list[int], rng: random.Random, best: frozenset[int] | None) -> Node:
    """Expansion: a node whose untried actions come in a seeded random order, the heuristic's
    ``best`` first with the progressive-bias prior when given."""
    rng.shuffle(actions)
    if best is None:
        return Node(actions)
    actions.sort(key=lambda a: a not in best)  # stable: the shuffled order otherwise
    share = 1.0 / len(best)
    return Node(actions, [share if a in best else 0.0 for a in actions])


def follows_average(node: Node, random_: Callable[[], float]) -> bool:
    """Whether Smooth UCT follows ``node``'s average strategy this time rather than UCB1."""
    return random_() >= max(SMOOTH_GAMMA, SMOOTH_ETA / (1.0 + SMOOTH_D * sqrt(node.visits)))


def average_strategy(node: Node, random_: Callable[[], float]) -> int:
    """An action drawn from ``node``'s visit distribution (Smooth UCT)."""
    return weighted_pick(list(enumerate(node.counts)), random_() * node.visits)


def ucb1(node: Node, c: float, bias_scale: float) -> int:
    """The action of highest UCB1 score (constant ``c`` in game units), plus progressive bias
    ``bias_scale * H(a) / (n + 1)`` (Chaslot et al. 2008) on a biased node; ties: the first."""
    counts, totals = node.counts, node.totals
    k = c * sqrt(log(node.visits))
    best, i = -math.inf, 0
    bias = node.bias
    if bias is None:
        for j in range(len(counts)):
            n = counts[j]
            score = totals[j] / n + k / sqrt(n)
            if score > best:
                best, i = score, j
    else:
        for j in range(len(counts)):
            n = counts[j]
            score = totals[j] / n + k / sqrt(n) + bias_scale * bias[j] / (n + 1)
            if score > best:
                best, i = score, j
    return i


def regret_matching(node: Node, random_: Callable[[], float]) -> int:
    """An action drawn by regret matching (S. Hart and A. Mas-Colell, "A Simple Adaptive
    Procedure Leading to Correlated Equilibrium", Econometrica 68(5), 2000) mixed with
    ``REGRET_GAMMA`` uniform exploration, the selection of M. Lanctot, V. Lisý and M. H. M.
    Winands ("Monte Carlo Tree Search in Simultaneous Move Games with Applications to
    Goofspiel", CGW 2013) and V. Lisý, V. Kovařík, M. Lanctot and B. Bošanský ("Convergence
    of Monte Carlo Tree Search in Simultaneous Move Games", NeurIPS 2013), here at every
    information-set node. Adds the regret-matching strategy (without the exploration) to the
    node's average strategy and keeps the draw's probability for ``backup``'s regret update."""
    regrets, average = node.regrets, node.average
    k = len(regrets)  # type: ignore[arg-type]
    positive = [r if r > 0.0 else 0.0 for r in regrets]  # type: ignore[union-attr]
    total = sum(positive)
    matched = [r / total for r in positive] if total > 0.0 else [1.0 / k] * k
    for j in range(k):
        average[j] += matched[j]  # type: ignore[index]
    u = random_()
    i = k - 1
    for j in range(k):
        p = (1.0 - REGRET_GAMMA) * matched[j] + REGRET_GAMMA / k
        if u < p:
            i = j
            break
        u -= p
    node.drawn = (1.0 - REGRET_GAMMA) * matched[i] + REGRET_GAMMA / k
    return i


def count_greedy(greedy: list[int], node: Node, picked: int) -> None:
    """Counts a root selection ``picked`` as exploitation when no action's mean is higher."""
    counts, totals = node.counts, node.totals
    mean = totals[picked] / counts[picked]
    for j in range(len(counts)):
        if totals[j] / counts[j] > mean:
            return
    greedy[picked] += 1


def backup(path: Path, returns: list[float]) -> None:
    """Each node on the path takes the return of the player who moves there; a node whose
    action was drawn by ``regret_matching`` also updates its regrets by the sampled,
    importance-weighted estimate of each action's value (the return over the draw's
    probability for the action taken, 0 for the others; Lanctot, Lisý and Winands 2013), with
    a baseline (``update_regrets``)."""
    for node, i, player in path:
        r = returns[player]
        if node.drawn > 0.0:
            update_regrets(node, i, r)
        node.visits += 1
        node.counts[i] += 1
        node.totals[i] += r
        if node.moments is not None:
            node.moments.add(i, returns, player)


def update_regrets(node: Node, i: int, r: float) -> None:
    """The regret update of a regret-matching draw of action ``i`` that returned ``r``: each
    action's sampled value is the baseline ``b`` (the node's mean return so far) plus, for
    ``i`` alone, ``(r - b) / p(i)``; its regret grows by that value minus the strategy's,
    which is ``r``. Unbiased for any baseline; the node's mean makes it far less noisy than
    ``b = 0`` (the control variate of M. Schmid et al., "Variance Reduction in Monte Carlo
    Counterfactual Regret Minimization (VR-MCCFR) for Extensive Form Games using Baselines",
    AAAI 2019)."""
    regrets = node.regrets
    b = sum(node.totals) / node.visits if node.visits else 0.0
    for j in range(len(regrets)):  # type: ignore[arg-type]
        regrets[j] += b - r  # type: ignore[index]
    regrets[i] += (r - b) / node.drawn  # type: ignore[index]
    node.drawn = 0.0
