"""One ISMCTS search from a seat's information set (the algorithm: ``bots.ismcts``).

``search`` sets the parts up from a resolved ``SearchConfig`` (the world pool, the rollout,
the unseen moves before the root) and runs iterations until the budget is spent: a world from
the pool, select and expand down the tree (``_descend``), roll out, back up.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from bots.beliefs import HeuristicModel, has_rating
from bots.heuristics import GameKnowledge
from bots.ismcts.collector import SEARCHES
from bots.ismcts.config import SearchConfig
from bots.ismcts.result import SearchResult, standard_error
from bots.ismcts.rollout import make_rollout
from bots.ismcts.tree import (
    Node,
    Path,
    average_strategy,
    backup,
    count_greedy,
    follows_average,
    new_node,
    regret_matching,
    ucb1,
)
from bots.ismcts.unseen import rewound, unseen_tail
from bots.pool import WorldPool, capacity
from bots.protocol import Budget, Clock, Worlds
from games.core.engine import CHANCE, Engine

DEFAULT_CONFIG = SearchConfig()


class _Scale:
    """The UCB constant and the bias weight in game units: the options' values (for returns in
    [0, 1]) times the range of the returns seen so far, within the game's declared range."""

    __slots__ = ("bias", "c", "declared", "exploration", "hi", "lo", "prior_weight")

    def __init__(self, declared: float, exploration: float, prior_weight: float) -> None:
        self.declared = declared
        self.exploration = exploration
        self.prior_weight = prior_weight
        self.c = exploration * declared
        self.bias = prior_weight * declared
        self.lo, self.hi = math.inf, -math.inf

    def see(self, returns: list[float]) -> None:
        """Widens the range seen by ``returns``, rescaling once the returns spread."""
        low, high = min(returns), max(returns)
        if low < self.lo or high > self.hi:
            self.lo, self.hi = min(self.lo, low), max(self.hi, high)
            if self.hi > self.lo:
                spread = min(self.declared, self.hi - self.lo)
                self.c = self.exploration * spread
                self.bias = self.prior_weight * spread


def _rooted(worlds: Worlds, config: SearchConfig) -> tuple[Engine, Callable, int, bool]:
    """The search's first world, its sampler, the number of unseen moves taken back before
    the root (searched in the tree) and whether every world is then the first."""
    first, sample, fresh = worlds.first, worlds.sample, worlds.fresh
    # Other seats' moves we could not see, just before our turn (sealed and finger bids,
    # face-down placements): searched as their decisions in the tree, not sampled.
    searches_unseen = config.hidden_moves and fresh is not None and not worlds.public_history
    tail = unseen_tail(first, worlds.seat, fresh) if searches_unseen else 0  # type: ignore[arg-type]
    if tail:
        first = rewound(first, tail, fresh)  # type: ignore[arg-type]
        drawn_sample = sample

        def sample(r: random.Random) -> Engine:
            return rewound(drawn_sample(r), tail, fresh)  # type: ignore[arg-type]

    # Nothing hidden but the moves taken back (``Worlds.hidden_in_tail``): every world is
    # ``first``. Draws still take their seeds from ``rng`` and weights are still uniform, so
    # the search is move for move the one that drew and weighed that world again and again.
    one_world = worlds.hidden_in_tail and searches_unseen
    if one_world:
        rewound_first = first

        def sample(r: random.Random) -> Engine:
            return rewound_first

    return first, sample, tail, one_world


def search(
    worlds: Worlds,
    budget: Budget,
    rng: random.Random,
    config: SearchConfig = DEFAULT_CONFIG,
    knowledge: GameKnowledge | None = None,
    model: HeuristicModel | None = None,
) -> SearchResult:
    """Runs ISMCTS from ``worlds.seat``'s information set within ``budget``, as ``config``
    says. ``knowledge`` gives the game's action abstraction, heuristic rollouts, evaluation
    and prior; ``model`` (the heuristic's ``HeuristicModel``) weighs the worlds when
    ``config.weigh_worlds`` and plays the other seats when ``config.model_opponents``."""
    run = Search(worlds, budget, rng, config, knowledge, model)
    run.iterate()
    return run.result()


class Search:
    """One search's parts, set up from a resolved ``SearchConfig`` (the world pool, the
    rollout, the tree, the unseen moves before the root), and its loop (``iterate``).

    ``search`` runs it once; the analysis (``bots.analysis``) runs it, then goes on with the
    same tree and pool to compare candidate moves on common random numbers.
    """

    def __init__(
        self,
        worlds: Worlds,
        budget: Budget,
        rng: random.Random,
        config: SearchConfig,
        knowledge: GameKnowledge | None,
        model: HeuristicModel | None,
    ) -> None:
        self.clock = Clock(budget, worlds.started)
        self.rng = rng
        self.seat = seat = worlds.seat
        first, sample, tail, one_world = _rooted(worlds, config)
        self.tail = tail
        pool = WorldPool(first, sample, capacity(worlds, config.pool_size, budget))
        if config.weigh_worlds and model is not None and pool.size > 1 and worlds.fresh is not None:
            pool.weigh(
                worlds.fresh,
                seat,
                worlds.started,
                budget,
                rng,
                model.probability,
                config.belief_worlds,
                config.epsilon,
                config.belief_effective,
                same=one_world,
            )
        self.pool = pool
        candidates = knowledge.candidates if knowledge is not None and knowledge.abstracts else None
        self.candidates = candidates
        self.rollout = make_rollout(config, type(first), seat, knowledge, candidates, model)
        rated_best = (
            knowledge.best_rated  # type: ignore[union-attr]
            if config.prior_weight > 0 and has_rating(knowledge)
            else None
        )
        self.tree = _Tree(
            seat,
            worlds.first.info_key(seat),  # our turn's information set, after any unseen moves
            candidates,
            rated_best,
            config,
            # A profiled model locks some of the other seats' decisions (``bots.profiles``).
            model.choose
            if model is not None and config.model_opponents
            else getattr(model, "locked_move", None),
            _Scale(
                worlds.max_utility - worlds.min_utility, config.exploration, config.prior_weight
            ),
        )
        self.iteration = 0

    def iterate(self) -> None:
        """Iterations until the budget is spent: a world, down the tree, roll out, back up."""
        scale, rng, rollout = self.tree.scale, self.rng, self.rollout
        world, descend, running, tick = (
            self.pool.world,
            # Every world of the pool starts at our information set unless moves were taken
            # back before it: its root node needs no key (``walker``).
            self.tree.walker(from_root=self.tail == 0),
            self.clock.running,
            self.clock.tick,
        )
        before_root = self.tail > 0
        iteration = self.iteration
        # The objects alive before the search (the process's modules, tables, memos) leave the
        # collector's view while it runs: its full collections, triggered by the tree's
        # growth, otherwise traverse them all each time. Shared by overlapping searches, and
        # a process's own freeze is left alone (``bots.ismcts.collector``).
        with SEARCHES:
            try:
                # At least one iteration, so even a budget spent on sampling the first world
                # answers.
                while not iteration or running():
                    engine = world(iteration, rng)
                    iteration += 1
                    path = descend(engine, rng, before_root)
                    returns = rollout(engine, rng)
                    backup(path, returns)
                    if min(returns) < scale.lo or max(returns) > scale.hi:
                        scale.see(returns)
                    tick()
            finally:
                self.iteration = iteration

    def result(self) -> SearchResult:
        """The root's statistics."""
        return self.tree.result(self.clock, self.pool)


class _Tree:
    """The nodes of one search by information set, and the walk of an iteration down them."""

    __slots__ = (
        "candidates",
        "greedy",
        "model_move",
        "prior_opponents",
        "rated_best",
        "regret",
        "root",
        "root_key",
        "scale",
        "seat",
        "smooth",
        "table",
    )

    def __init__(
        self,
        seat: int,
        root_key: object,
        candidates: Callable[[Engine, list[int] | None], list[int]] | None,
        rated_best: Callable[[Engine], frozenset[int]] | None,
        config: SearchConfig,
        model_move: Callable[[Engine, random.Random], int] | None,
        scale: _Scale,
    ) -> None:
        self.seat = seat
        self.root_key = root_key
        self.candidates = candidates
        self.rated_best = rated_best
        self.prior_opponents = config.prior_opponents
        self.smooth = config.smooth
        self.regret = config.regret
        self.model_move = model_move
        self.scale = scale
        self.table: dict[object, Node] = {}
        self.root: Node | None = None
        self.greedy: list[int] = []

    def expand(self, engine: Engine, player: int, key: object, rng: random.Random) -> Node:
        """A new node for ``player``'s information set ``key``, over its considered actions."""
        candidates = self.candidates
        legal = engine.player_actions() if candidates is None else candidates(engine, None)
        biased = self.rated_best is not None and (player == self.seat or self.prior_opponents)
        node = new_node(list(legal), rng, self.rated_best(engine) if biased else None)  # type: ignore[misc]
        self.table[key] = node
        if self.regret:
            node.keep_regrets()
        if key == self.root_key:
            self.root, self.greedy = node, [0] * len(node.actions)
            node.keep_moments()
        return node

    def walker(self, from_root: bool = False) -> Callable[[Engine, random.Random, bool], Path]:
        """The walk of an iteration, with the tree's fixed parts bound once (it runs every
        iteration, so they are the closure's variables rather than attribute lookups).

        ``from_root``: every engine the walk starts from is a world of the pool at our turn,
        whose information key is the root's (``Worlds`` checks each sampled world's key), so
        its first step takes the root node without building and hashing the key: the key and
        its lookup are most of a tree step's cost. The analysis walks from other states."""
        seat, table, model_move, smooth = self.seat, self.table, self.model_move, self.smooth
        regret = self.regret
        scale, expand, tree = self.scale, self.expand, self

        def descend(engine: Engine, rng: random.Random, before_root: bool) -> Path:
            """Selection and expansion on ``engine``: down the known nodes by the tree policy
            to the first untried action (taking every untried action on the way while
            ``before_root``, in the unseen moves before our turn), chance drawn fresh."""
            c, bias_scale = scale.c, scale.bias  # rescaled only after the backup
            random_ = rng.random
            path: Path = []
            # The root node, for the walk's first decision (``from_root``; None until expanded).
            root = tree.root if from_root else None
            while True:
                player = engine.current_player()
                if player < 0:
                    if player == CHANCE:
                        engine.apply(engine.sample_chance(rng))
                        continue
                    return path
                if model_move is not None and player != seat:
                    move = model_move(engine, rng)
                    if move >= 0:  # a locked move (< 0: not locked, the seat's node plays)
                        engine.apply(move)
                        continue
                if root is not None and player == seat:
                    node, root = root, None
                else:
                    root = None
                    key = engine.info_key(player)
                    if before_root and player == seat:
                        before_root = False
                    node = table.get(key)
                    if node is None:
                        node = expand(engine, player, key, rng)
                if node.tried < len(node.actions):
                    i = node.tried
                    node.tried = i + 1
                    path.append((node, i, player))
                    engine.apply(node.actions[i])
                    if before_root:
                        continue
                    return path
                if regret:
                    i = regret_matching(node, random_)
                elif smooth and follows_average(node, random_):
                    i = average_strategy(node, random_)
                else:
                    i = ucb1(node, c, bias_scale)
                    if node is tree.root:
                        count_greedy(tree.greedy, node, i)
                path.append((node, i, player))
                engine.apply(node.actions[i])

        return descend

    def result(self, clock: Clock, pool: WorldPool) -> SearchResult:
        """The root's statistics."""
        root = self.table[self.root_key]
        lo, hi = self.scale.lo, self.scale.hi
        m = root.moments
        spread = (hi - lo) / 2.0 if hi > lo else 0.5
        return SearchResult(
            actions=list(root.actions),
            counts=list(root.counts),
            means=[t / n if n else 0.0 for t, n in zip(root.totals, root.counts, strict=True)],
            iterations=clock.iterations,
            elapsed_ms=clock.elapsed_ms(),
            stopped_by=clock.stopped_by(),
            worlds=len(pool.worlds),
            nodes=len(self.table),
            effective_worlds=pool.effective,
            low=lo if hi >= lo else 0.0,
            high=hi if hi >= lo else 0.0,
            greedy=list(self.greedy),
            average=None if root.average is None else list(root.average),
            stderrs=None
            if m is None
            else [
                standard_error(t, q, n, spread)
                for t, q, n in zip(root.totals, m.squares, root.counts, strict=True)
            ],
            shares=None
            if m is None
            else [t / n if n else 0.0 for t, n in zip(m.shares, root.counts, strict=True)],
            share_stderrs=None
            if m is None
            else [
                standard_error(t, q, n, 0.5)
                for t, q, n in zip(m.shares, m.share_squares, root.counts, strict=True)
            ],
        )
