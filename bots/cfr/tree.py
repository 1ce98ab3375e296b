"""The game tree of a small game, flattened into numpy arrays once, for vectorised CFR.

Counterfactual regret minimisation (Zinkevich et al. 2007, "Regret Minimization in Games with
Incomplete Information") needs, on every iteration, the counterfactual value of every action
at every information set. Walking the game tree in Python for that is what makes OpenSpiel's
Python solvers slow. Here the tree is walked *once* and kept in two flat forms:

* the **sequence form** of every player (Koller, Megiddo and von Stengel 1994): player ``p``'s
  information sets form a tree of their own (the "treeplex"): each information set hangs below
  the last (information set, action) pair -- the *sequence* -- of ``p`` on the path to it
  (unique under perfect recall). Sequence 0 is the empty sequence; the sequence of slot ``s``
  (an information set's action) is ``s + 1``. Information sets are numbered level by level
  (by how many own decisions precede them) so every level is one contiguous slice, and the
  slots of one information set are contiguous too.
* the **terminal list**: for every terminal history ``z``, its chance probability, every
  player's return and every player's last sequence. The expected utility of a profile is then
  ``sum_z chance(z) u(z) prod_j x_j[seq_j(z)]`` with ``x_j`` the realisation plans, so one
  ``numpy.bincount`` over the terminals gives every sequence's counterfactual value.

A **history tree** in breadth-first order (children of a node contiguous, depths contiguous)
is kept as well, for the sampling method (external-sampling MCCFR) that needs histories.

Two walkers fill the arrays: ``build_engine_tree`` for Atelier games (it walks the engines and
keys information sets by ``engine.info_key(p)``, far faster than pyspiel states), and
``build_spiel_tree`` for any OpenSpiel game (keys are information-state strings). Both require
perfect recall and check it while building.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel

CHANCE = -1
TERMINAL = -4


class TreeTooLarge(ValueError):
    """The game has more histories than the limit the caller allowed."""


@dataclass
class PlayerTree:
    """One player's treeplex: information sets, their slots (actions) and their levels."""

    keys: list[Any]  # information-set keys, by index
    parent_seq: np.ndarray  # int64 [n_infosets]: sequence the information set hangs below
    slot_start: np.ndarray  # int64 [n_infosets]: first slot of each information set
    num_actions: np.ndarray  # int64 [n_infosets]
    actions: list[list[int]]  # legal action ids of each information set, sorted
    slot_infoset: np.ndarray  # int64 [n_slots]
    slot_parent_seq: np.ndarray  # int64 [n_slots]: parent_seq of the slot's information set
    level_infosets: list[tuple[int, int]]  # [start, end) of each level's information sets
    level_slots: list[tuple[int, int]]  # [start, end) of each level's slots
    histories: list[tuple[int, ...]]  # one action history reaching each information set
    index: dict[Any, int] = field(default_factory=dict)

    @property
    def num_infosets(self) -> int:
        return len(self.keys)

    @property
    def num_slots(self) -> int:
        return int(self.slot_infoset.shape[0])

    @property
    def num_seqs(self) -> int:
        return self.num_slots + 1

    def uniform(self) -> np.ndarray:
        """The uniform behaviour strategy, one probability per slot."""
        return 1.0 / self.num_actions[self.slot_infoset]

    def normalize(self, weights: np.ndarray) -> np.ndarray:
        """Per information set, ``weights`` scaled to sum to 1 (uniform where they sum to 0)."""
        weights = np.maximum(weights, 0.0)
        totals = np.add.reduceat(weights, self.slot_start) if self.num_slots else weights
        per_slot = totals[self.slot_infoset]
        safe = np.where(per_slot > 0.0, per_slot, 1.0)
        return np.where(per_slot > 0.0, weights / safe, 1.0 / self.num_actions[self.slot_infoset])

    def realization(self, sigma: np.ndarray) -> np.ndarray:
        """The realisation plan of behaviour strategy ``sigma``: own reach of every sequence."""
        x = np.empty(self.num_seqs)
        x[0] = 1.0
        for start, end in self.level_slots:
            x[start + 1 : end + 1] = x[self.slot_parent_seq[start:end]] * sigma[start:end]
        return x


@dataclass
class GameTree:
    """The whole tree of a small game as arrays (see the module docstring)."""

    num_players: int
    players: list[PlayerTree]
    term_chance: np.ndarray  # float [T]
    term_utility: np.ndarray  # float [n_players, T]
    term_seq: np.ndarray  # int64 [n_players, T]
    # History tree, breadth first.
    node_player: np.ndarray  # int64 [N]: seat, CHANCE or TERMINAL
    node_parent: np.ndarray  # int64 [N] (-1 at the root)
    node_first_child: np.ndarray  # int64 [N]
    node_num_children: np.ndarray  # int64 [N]
    node_infoset: np.ndarray  # int64 [N]: information set of a decision node, else -1
    edge_slot: np.ndarray  # int64 [N]: slot of the edge into the node when a seat chose it
    edge_chance: np.ndarray  # float [N]: probability of the edge into it when chance chose it
    level_nodes: list[tuple[int, int]]  # [start, end) of every depth
    term_node: np.ndarray  # int64 [T]: history node of each terminal
    utility_range: float = 2.0

    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    @property
    def num_terminals(self) -> int:
        return int(self.term_chance.shape[0])

    def sizes(self) -> dict[str, Any]:
        return {
            "histories": self.num_nodes,
            "terminals": self.num_terminals,
            "infosets": [pt.num_infosets for pt in self.players],
            "slots": [pt.num_slots for pt in self.players],
        }


class _Builder:
    """Collects the tree during a breadth-first walk, then renumbers it level by level."""

    def __init__(self, num_players: int) -> None:
        self.n = num_players
        # Per player: key -> provisional index; per provisional infoset: parent seq, actions.
        self.index: list[dict[Any, int]] = [{} for _ in range(num_players)]
        self.parent: list[list[tuple[int, int]]] = [[] for _ in range(num_players)]
        self.actions: list[list[list[int]]] = [[] for _ in range(num_players)]
        self.depth: list[list[int]] = [[] for _ in range(num_players)]
        self.history: list[list[tuple[int, ...]]] = [[] for _ in range(num_players)]
        self.node_player: list[int] = []
        self.node_parent: list[int] = []
        self.node_first_child: list[int] = []
        self.node_num_children: list[int] = []
        self.node_infoset: list[int] = []
        self.edge_pair: list[tuple[int, int, int]] = []  # (player, provisional infoset, a_idx)
        self.edge_chance: list[float] = []
        self.node_depth: list[int] = []
        self.terminals: list[tuple[int, float, list[float], list[tuple[int, int]]]] = []

    def infoset(
        self, p: int, key: Any, seq: tuple[int, int], actions: list[int], depth: int, hist
    ) -> int:
        """The provisional index of ``key``, created on first sight; checks perfect recall."""
        table = self.index[p]
        i = table.get(key)
        if i is None:
            i = len(self.parent[p])
            table[key] = i
            self.parent[p].append(seq)
            self.actions[p].append(actions)
            self.depth[p].append(depth)
            self.history[p].append(tuple(hist))
            return i
        if self.parent[p][i] != seq or self.actions[p][i] != actions:
            raise ValueError(
                f"player {p}'s information set {key!r} is reached from different own sequences "
                "or with different legal actions: the game does not have perfect recall"
            )
        return i

    def finish(self) -> GameTree:
        n = self.n
        players: list[PlayerTree] = []
        # remap[p][provisional infoset] -> final index; slot_base[p][final] -> first slot.
        remaps: list[np.ndarray] = []
        for p in range(n):
            depth = np.asarray(self.depth[p], dtype=np.int64)
            order = np.argsort(depth, kind="stable")  # level by level, creation order within
            remap = np.empty(len(order), dtype=np.int64)
            remap[order] = np.arange(len(order))
            remaps.append(remap)
        slot_starts: list[np.ndarray] = []
        for p in range(n):
            remap = remaps[p]
            order = np.argsort(remap)
            nact = np.asarray([len(self.actions[p][i]) for i in order], dtype=np.int64)
            start = np.zeros(len(order), dtype=np.int64)
            if len(order):
                start[1:] = np.cumsum(nact)[:-1]
            slot_starts.append(start)

        def seq_of(p: int, pair: tuple[int, int]) -> int:
            prov, a_idx = pair
            if prov < 0:
                return 0
            return int(slot_starts[p][remaps[p][prov]]) + a_idx + 1

        for p in range(n):
            remap = remaps[p]
            order = np.argsort(remap)
            keys_by_prov = [None] * len(order)
            for key, prov in self.index[p].items():
                keys_by_prov[prov] = key
            keys = [keys_by_prov[i] for i in order]
            nact = np.asarray([len(self.actions[p][i]) for i in order], dtype=np.int64)
            parent_seq = np.asarray(
                [seq_of(p, self.parent[p][i]) for i in order], dtype=np.int64
            ).reshape(-1)
            start = slot_starts[p]
            slot_infoset = np.repeat(np.arange(len(order), dtype=np.int64), nact)
            depths = np.asarray([self.depth[p][i] for i in order], dtype=np.int64)
            level_infosets: list[tuple[int, int]] = []
            level_slots: list[tuple[int, int]] = []
            if len(order):
                for d in range(int(depths.max()) + 1):
                    lo, hi = np.searchsorted(depths, [d, d + 1])
                    s_lo = int(start[lo]) if lo < len(order) else int(nact.sum())
                    s_hi = int(start[hi]) if hi < len(order) else int(nact.sum())
                    level_infosets.append((int(lo), int(hi)))
                    level_slots.append((s_lo, s_hi))
            players.append(
                PlayerTree(
                    keys=keys,
                    parent_seq=parent_seq,
                    slot_start=start,
                    num_actions=nact,
                    actions=[self.actions[p][i] for i in order],
                    slot_infoset=slot_infoset,
                    slot_parent_seq=parent_seq[slot_infoset],
                    level_infosets=level_infosets,
                    level_slots=level_slots,
                    histories=[self.history[p][i] for i in order],
                    index={k: j for j, k in enumerate(keys)},
                )
            )

        num_t = len(self.terminals)
        term_node = np.asarray([t[0] for t in self.terminals], dtype=np.int64)
        term_chance = np.asarray([t[1] for t in self.terminals], dtype=np.float64)
        term_utility = np.asarray([t[2] for t in self.terminals], dtype=np.float64).reshape(
            num_t, n
        )
        term_seq = np.asarray(
            [[seq_of(p, t[3][p]) for p in range(n)] for t in self.terminals], dtype=np.int64
        ).reshape(num_t, n)
        node_infoset = np.asarray(self.node_infoset, dtype=np.int64)
        node_player = np.asarray(self.node_player, dtype=np.int64)
        for p in range(n):
            mask = node_player == p
            node_infoset[mask] = remaps[p][node_infoset[mask]]
        edge_slot = np.full(len(self.edge_pair), -1, dtype=np.int64)
        for i, (p, prov, a_idx) in enumerate(self.edge_pair):
            if p >= 0:
                edge_slot[i] = slot_starts[p][remaps[p][prov]] + a_idx
        depth = np.asarray(self.node_depth, dtype=np.int64)
        level_nodes = [
            (int(lo), int(hi))
            for lo, hi in (np.searchsorted(depth, [d, d + 1]) for d in range(int(depth.max()) + 1))
        ]
        utility = term_utility.T.copy()
        spread = float(utility.max() - utility.min()) if num_t else 0.0
        return GameTree(
            num_players=n,
            players=players,
            term_chance=term_chance,
            term_utility=utility,
            term_seq=term_seq.T.copy(),
            node_player=node_player,
            node_parent=np.asarray(self.node_parent, dtype=np.int64),
            node_first_child=np.asarray(self.node_first_child, dtype=np.int64),
            node_num_children=np.asarray(self.node_num_children, dtype=np.int64),
            node_infoset=node_infoset,
            edge_slot=edge_slot,
            edge_chance=np.asarray(self.edge_chance, dtype=np.float64),
            level_nodes=level_nodes,
            term_node=term_node,
            utility_range=spread or 1.0,
        )


def _walk(
    root: Any,
    num_players: int,
    max_nodes: int,
    ops: Any,
    max_seconds: float | None = None,
    progress: Any = None,
) -> GameTree:
    """Breadth-first walk shared by both walkers; ``ops`` adapts engines or pyspiel states."""
    b = _Builder(num_players)
    # Queue entries: (state, node id, seqs per player, chance reach, own depth per player).
    none = (-1, 0)
    queue: deque = deque()
    b.node_player.append(0)
    b.node_parent.append(-1)
    b.node_first_child.append(-1)
    b.node_num_children.append(0)
    b.node_infoset.append(-1)
    b.edge_pair.append((-1, -1, -1))
    b.edge_chance.append(1.0)
    b.node_depth.append(0)
    queue.append((root, 0, (none,) * num_players, 1.0, (0,) * num_players))
    deadline = time.perf_counter() + max_seconds if max_seconds else None
    while queue:
        state, nid, seqs, reach, odepth = queue.popleft()
        if progress is not None and nid % 100_000 == 0 and nid:
            progress(nid)
        if deadline is not None and time.perf_counter() > deadline:
            raise TreeTooLarge(
                f"the game tree was not walked within {max_seconds:g} s ({nid} histories so far)"
            )
        player = ops.player(state)
        b.node_player[nid] = player
        if player == TERMINAL:
            b.terminals.append((nid, reach, ops.returns(state), list(seqs)))
            continue
        if player == CHANCE:
            outcomes = ops.chance_outcomes(state)
            children = [(a, prob, -1, -1) for a, prob in outcomes]
        else:
            actions = ops.legal_actions(state)
            key = ops.info_key(state, player)
            prov = b.infoset(player, key, seqs[player], actions, odepth[player], ops.history(state))
            b.node_infoset[nid] = prov
            children = [(a, 1.0, prov, i) for i, a in enumerate(actions)]
        first = len(b.node_player)
        if first + len(children) > max_nodes:
            raise TreeTooLarge(f"the game tree has more than {max_nodes} histories")
        b.node_first_child[nid] = first
        b.node_num_children[nid] = len(children)
        for a, prob, prov, a_idx in children:
            cid = len(b.node_player)
            b.node_player.append(0)
            b.node_parent.append(nid)
            b.node_first_child.append(-1)
            b.node_num_children.append(0)
            b.node_infoset.append(-1)
            b.node_depth.append(b.node_depth[nid] + 1)
            if prov >= 0:
                b.edge_pair.append((player, prov, a_idx))
                b.edge_chance.append(1.0)
                new_seqs = (*seqs[:player], (prov, a_idx), *seqs[player + 1 :])
                new_depth = (*odepth[:player], odepth[player] + 1, *odepth[player + 1 :])
                new_reach = reach
            else:
                b.edge_pair.append((-1, -1, -1))
                b.edge_chance.append(prob)
                new_seqs, new_depth, new_reach = seqs, odepth, reach * prob
            queue.append((ops.child(state, a), cid, new_seqs, new_reach, new_depth))
    return b.finish()


class _EngineOps:
    def player(self, e):
        return e.current_player()

    def returns(self, e):
        return [float(r) for r in e.returns()]

    def chance_outcomes(self, e):
        return e.chance_outcomes()

    def legal_actions(self, e):
        return list(e.legal_actions())

    def info_key(self, e, p):
        return e.info_key(p)

    def history(self, e):
        return e.history

    def child(self, e, a):
        c = e.copy()
        c.apply(a)
        return c


class _SpielOps:
    def player(self, s):
        return TERMINAL if s.is_terminal() else s.current_player()

    def returns(self, s):
        return list(s.returns())

    def chance_outcomes(self, s):
        return s.chance_outcomes()

    def legal_actions(self, s):
        return list(s.legal_actions())

    def info_key(self, s, p):
        return s.information_state_string(p)

    def history(self, s):
        return s.history()

    def child(self, s, a):
        return s.child(a)


def build_engine_tree(
    defn: Any,
    params: dict[str, Any],
    max_nodes: int = 5_000_000,
    max_seconds: float | None = None,
    progress: Any = None,
) -> GameTree:
    """The tree of an Atelier game, walked on its engine; keys are ``engine.info_key(p)``.

    ``progress(histories)`` is called every 100,000 histories walked."""
    params = defn.validate_params(params)
    engine = defn.new_engine(params)
    tree = _walk(engine, engine.num_players, max_nodes, _EngineOps(), max_seconds, progress)
    tree.utility_range = _range_of(defn.numbers(params))
    return tree


def build_spiel_tree(game: pyspiel.Game, max_nodes: int = 5_000_000) -> GameTree:
    """The tree of any sequential OpenSpiel game; keys are information-state strings."""
    tree = _walk(game.new_initial_state(), game.num_players(), max_nodes, _SpielOps())
    tree.utility_range = float(game.max_utility() - game.min_utility()) or 1.0
    return tree


def _range_of(numbers: Any) -> float:
    return float(numbers.max_utility - numbers.min_utility) or 1.0
