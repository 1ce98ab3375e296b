"""Vectorised tabular CFR+, discounted CFR and external-sampling MCCFR, and exact NashConv.

All three work on the flattened ``GameTree`` (``bots.cfr.tree``): one iteration is a handful
of numpy operations per level of each player's treeplex plus one ``bincount`` over the
terminal histories, instead of a Python walk over every history.

* **CFR** (Zinkevich, Johanson, Bowling and Piccione 2007): regret matching on counterfactual
  regrets at every information set; the average strategy converges to a Nash equilibrium in
  two-player zero-sum games.
* **CFR+** (Tammelin 2014, "Solving Large Imperfect Information Games Using CFR+"): regret
  matching+ (cumulative regrets floored at 0 after every update), alternating updates and
  linearly weighted averaging (iteration ``t`` weighs ``t``). This is exactly what OpenSpiel's
  ``CFRPlusSolver`` does, so the NashConv trajectories match iteration for iteration.
* **Discounted CFR** (Brown and Sandholm 2019, "Solving Imperfect-Information Games via
  Discounted Regret Minimization"): after iteration ``t``, positive cumulative regrets are
  multiplied by ``t^a/(t^a+1)``, negative ones by ``t^b/(t^b+1)``, and iteration ``t`` weighs
  ``t^g`` in the average; defaults ``a=1.5, b=0, g=2`` as in the paper (and OpenSpiel's
  ``DCFRSolver``).
* **External-sampling MCCFR** (Lanctot, Waugh, Zinkevich and Bowling 2009, "Monte Carlo
  Sampling for Regret Minimization in Extensive Games"): for the traversing player, one action
  is sampled at every chance and opponent history and every own action is explored; the
  sampled counterfactual value of a sequence is then the plain sum of the returns of the
  reached terminals. Vectorised here by sampling one child of every history at once and
  propagating an "alive" mask down the history tree; the opponents' average strategies are
  updated at the histories they visit (simple averaging, as in OpenSpiel).

Counterfactual values come from the sequence form: for player ``p``,
``g_p[seq] = sum over terminals z whose last p-sequence is seq of chance(z) u_p(z)
prod_{j != p} x_j[seq_j(z)]``; the counterfactual value of slot ``s`` is ``g_p[s+1]`` plus the
values of the information sets hanging below ``s``, accumulated bottom-up level by level.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from bots.cfr.tree import GameTree, PlayerTree


class Method(StrEnum):
    """The offline solvers."""

    CFR = "cfr"
    CFR_PLUS = "cfr+"
    DCFR = "dcfr"
    ES_MCCFR = "es-mccfr"


# --- the sequence-form primitives ------------------------------------------------------------
def sequence_values(tree: GameTree, p: int, plans: list[np.ndarray]) -> np.ndarray:
    """``g_p``: every sequence's direct terminal value for ``p`` against the others' plans."""
    weights = tree.term_chance * tree.term_utility[p]
    for j in range(tree.num_players):
        if j != p:
            weights = weights * plans[j][tree.term_seq[j]]
    return np.bincount(tree.term_seq[p], weights=weights, minlength=tree.players[p].num_seqs)


def counterfactual_values(
    pt: PlayerTree, g: np.ndarray, sigma: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Bottom-up pass: the counterfactual value of every slot and of every information set."""
    q = np.empty(pt.num_slots)
    ival = np.empty(pt.num_infosets)
    below = np.zeros(pt.num_seqs)  # sum of the values of the information sets under a sequence
    for level in range(len(pt.level_slots) - 1, -1, -1):
        s_lo, s_hi = pt.level_slots[level]
        i_lo, i_hi = pt.level_infosets[level]
        if s_hi == s_lo:
            continue
        qs = g[s_lo + 1 : s_hi + 1] + below[s_lo + 1 : s_hi + 1]
        q[s_lo:s_hi] = qs
        vals = np.add.reduceat(qs * sigma[s_lo:s_hi], pt.slot_start[i_lo:i_hi] - s_lo)
        ival[i_lo:i_hi] = vals
        _add_to_parents(pt, below, level, i_lo, i_hi, vals)
    return q, ival


def _add_to_parents(
    pt: PlayerTree, below: np.ndarray, level: int, i_lo: int, i_hi: int, vals: np.ndarray
) -> None:
    """Adds the values of the information sets ``i_lo:i_hi`` of ``level`` to the sequences they
    follow (the root's for level 0): the bottom-up step of both tree walks."""
    if level == 0:
        below[0] += vals.sum()
        return
    parents = pt.parent_seq[i_lo:i_hi]
    p_lo = pt.level_slots[level - 1][0] + 1
    p_hi = pt.level_slots[level - 1][1] + 1
    below[p_lo:p_hi] += np.bincount(parents - p_lo, weights=vals, minlength=p_hi - p_lo)


def best_response_value(pt: PlayerTree, g: np.ndarray) -> tuple[float, np.ndarray]:
    """The value of a best response (and its pure choice per information set) given ``g``."""
    best = np.zeros(pt.num_infosets, dtype=np.int64)
    below = np.zeros(pt.num_seqs)
    for level in range(len(pt.level_slots) - 1, -1, -1):
        s_lo, s_hi = pt.level_slots[level]
        i_lo, i_hi = pt.level_infosets[level]
        if s_hi == s_lo:
            continue
        qs = g[s_lo + 1 : s_hi + 1] + below[s_lo + 1 : s_hi + 1]
        starts = pt.slot_start[i_lo:i_hi] - s_lo
        vals = np.maximum.reduceat(qs, starts)
        # The first action reaching the maximum, per information set.
        hit = qs >= vals[pt.slot_infoset[s_lo:s_hi] - i_lo]
        where = np.where(hit, np.arange(s_hi - s_lo), s_hi - s_lo)
        best[i_lo:i_hi] = np.minimum.reduceat(where, starts) - starts
        _add_to_parents(pt, below, level, i_lo, i_hi, vals)
    return float(g[0] + below[0]), best


@dataclass
class Exploitability:
    """NashConv of a profile and its parts."""

    nash_conv: float
    values: list[float]  # each seat's expected return under the profile
    best_response_values: list[float]  # each seat's return when it best-responds
    gains: list[float]  # best_response_values - values, per seat

    def to_json(self) -> dict[str, Any]:
        return {
            "nash_conv": self.nash_conv,
            "values": self.values,
            "best_response_values": self.best_response_values,
            "gains": self.gains,
        }


def exploitability(tree: GameTree, sigmas: list[np.ndarray]) -> Exploitability:
    """Exact NashConv of the behaviour profile ``sigmas`` (one slot array per player).

    NashConv is the sum over seats of what each would gain by switching to a best response
    while the others keep their strategies (0 exactly at a Nash equilibrium).
    """
    plans = [pt.realization(s) for pt, s in zip(tree.players, sigmas, strict=True)]
    values, brs = [], []
    for p, pt in enumerate(tree.players):
        g = sequence_values(tree, p, plans)
        values.append(float(np.dot(g, plans[p])))
        brs.append(best_response_value(pt, g)[0])
    gains = [b - v for b, v in zip(brs, values, strict=True)]
    return Exploitability(float(sum(gains)), values, brs, gains)


def regret_matching(pt: PlayerTree, regrets: np.ndarray) -> np.ndarray:
    """Behaviour strategy proportional to positive regrets (uniform where none is positive)."""
    return pt.normalize(np.maximum(regrets, 0.0))


# --- the solver ------------------------------------------------------------------------------
@dataclass
class Solver:
    """Tabular regret minimisation over a ``GameTree``; ``run`` performs iterations.

    ``average_policy()`` is the solution; ``trajectory`` records (iteration, seconds of solving,
    NashConv) at every evaluation asked for.
    """

    tree: GameTree
    method: Method = Method.CFR_PLUS
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    seed: int = 0
    iteration: int = 0
    solve_seconds: float = 0.0
    trajectory: list[tuple[int, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.method = Method(self.method)
        self.regrets = [np.zeros(pt.num_slots) for pt in self.tree.players]
        self.avg = [np.zeros(pt.num_slots) for pt in self.tree.players]
        self.sigma = [pt.uniform() for pt in self.tree.players]
        self.rng = np.random.default_rng(self.seed)
        if self.method is Method.ES_MCCFR:
            self._prepare_sampling()

    # --- public API ---------------------------------------------------------------------------
    def run(self, iterations: int) -> None:
        started = time.perf_counter()
        step = self._es_iteration if self.method is Method.ES_MCCFR else self._full_iteration
        for _ in range(iterations):
            self.iteration += 1
            step()
        self.solve_seconds += time.perf_counter() - started

    def average_policy(self) -> list[np.ndarray]:
        """The average behaviour strategy of every player (the equilibrium approximation)."""
        return [pt.normalize(a) for pt, a in zip(self.tree.players, self.avg, strict=True)]

    def current_policy(self) -> list[np.ndarray]:
        return [s.copy() for s in self.sigma]

    def evaluate(self) -> Exploitability:
        result = exploitability(self.tree, self.average_policy())
        self.trajectory.append((self.iteration, self.solve_seconds, result.nash_conv))
        return result

    def solve(
        self, target: float, max_iterations: int = 1_000_000, check_every: int = 10
    ) -> Exploitability:
        """Iterates until NashConv <= ``target`` (checked every ``check_every`` iterations)."""
        result = self.evaluate()
        while result.nash_conv > target and self.iteration < max_iterations:
            self.run(min(check_every, max_iterations - self.iteration))
            result = self.evaluate()
        return result

    # --- full-width iterations ----------------------------------------------------------------
    def _full_iteration(self) -> None:
        tree, t = self.tree, self.iteration
        plans = [pt.realization(s) for pt, s in zip(tree.players, self.sigma, strict=True)]
        for p, pt in enumerate(tree.players):
            g = sequence_values(tree, p, plans)
            sigma = self.sigma[p]
            q, ival = counterfactual_values(pt, g, sigma)
            regrets = self.regrets[p]
            regrets += q - ival[pt.slot_infoset]
            own = plans[p][pt.slot_parent_seq] * sigma
            if self.method is Method.CFR_PLUS:
                np.maximum(regrets, 0.0, out=regrets)
                self.avg[p] += t * own
            elif self.method is Method.DCFR:
                pos = t**self.alpha / (t**self.alpha + 1.0)
                neg = t**self.beta / (t**self.beta + 1.0)
                regrets *= np.where(regrets >= 0.0, pos, neg)
                self.avg[p] += t**self.gamma * own
            else:
                self.avg[p] += own
            self.sigma[p] = regret_matching(pt, regrets)
            # Alternating updates: the next player already faces the new strategy.
            plans[p] = pt.realization(self.sigma[p])

    # --- external sampling --------------------------------------------------------------------
    def _prepare_sampling(self) -> None:
        """Per-edge constants of the history tree that every sampled iteration reads."""
        tree = self.tree
        parent_player = tree.node_player[np.maximum(tree.node_parent, 0)]
        seated = tree.edge_slot >= 0
        # Which seat chose the edge into each node (-1: chance or the root).
        self._edge_owner = np.where(seated, parent_player, -1)
        self._edge_masks = [self._edge_owner == j for j in range(tree.num_players)]
        self._edge_slots = [tree.edge_slot[m] for m in self._edge_masks]

    def _es_iteration(self) -> None:
        tree = self.tree
        parent = tree.node_parent
        node_player = tree.node_player
        n = tree.num_nodes
        for p, pt in enumerate(tree.players):
            # Probability of the edge into every node under the sampling policy.
            edge = tree.edge_chance.copy()
            for j in range(tree.num_players):
                edge[self._edge_masks[j]] = self.sigma[j][self._edge_slots[j]]
            # Sample one child of every chance and opponent node: one uniform per node,
            # located in the cumulative sums of its children's edge probabilities.
            cum = np.cumsum(edge)
            base = np.concatenate(([0.0], cum))
            sampled_nodes = np.flatnonzero((tree.node_num_children > 0) & (node_player != p))
            first = tree.node_first_child[sampled_nodes]
            count = tree.node_num_children[sampled_nodes]
            lo = base[first]
            hi = base[first + count]
            target = lo + self.rng.random(sampled_nodes.shape[0]) * (hi - lo)
            pick = np.searchsorted(cum, target, side="right")
            pick = np.clip(pick, first, first + count - 1)
            chosen = np.zeros(n, dtype=bool)
            chosen[pick] = True
            # Children of the traverser's own nodes are all explored.
            keep = chosen | (self._edge_owner == p)
            alive = np.zeros(n, dtype=bool)
            alive[0] = True
            for lo_n, hi_n in tree.level_nodes[1:]:
                alive[lo_n:hi_n] = alive[parent[lo_n:hi_n]] & keep[lo_n:hi_n]
            reached = alive[tree.term_node]
            g = np.bincount(
                tree.term_seq[p][reached],
                weights=tree.term_utility[p][reached],
                minlength=pt.num_seqs,
            )
            sigma = self.sigma[p]
            q, ival = counterfactual_values(pt, g, sigma)
            self.regrets[p] += q - ival[pt.slot_infoset]
            # Opponents' average strategies: their current strategy at every visited history.
            for j, other in enumerate(tree.players):
                if j == p:
                    continue
                visited = alive & (node_player == j)
                counts = np.bincount(tree.node_infoset[visited], minlength=other.num_infosets)
                self.avg[j] += counts[other.slot_infoset] * self.sigma[j]
            self.sigma[p] = regret_matching(pt, self.regrets[p])


def solve(
    tree: GameTree,
    method: Method | str = Method.CFR_PLUS,
    target: float | None = None,
    iterations: int | None = None,
    check_every: int = 10,
    seed: int = 0,
) -> Solver:
    """Runs a solver to a NashConv target and/or for a number of iterations."""
    solver = Solver(tree, Method(method), seed=seed)
    if target is not None:
        solver.solve(target, iterations or 1_000_000, check_every)
    else:
        solver.run(iterations or 1000)
        solver.evaluate()
    return solver
