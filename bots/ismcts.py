"""Single-observer Information Set Monte Carlo Tree Search on the game engines.

The algorithm is ISMCTS as in P. I. Cowling, E. J. Powley and D. Whitehouse, "Information Set
Monte Carlo Tree Search", IEEE Transactions on Computational Intelligence and AI in Games 4(2),
2012, pp. 120-143, with UCT selection (L. Kocsis and C. Szepesvári, "Bandit based Monte-Carlo
Planning", ECML 2006). Each iteration:

1. **Determinize**: take a world (a full state) consistent with the acting seat's information
   set. Worlds come from ``games.sample_engine`` on that seat's information-set JSON (or
   OpenSpiel's ``resample_from_infostate`` for OpenSpiel's own games), never from the true
   state; hidden cards and the hidden commits of earlier movers (sealed bids, finger bids,
   passed cards) are sampled alike. Sampling replays and validates a whole history, so a pool
   of at most ``worlds`` worlds is drawn once per search (lazily, one per iteration until the
   pool is full) and every iteration plays on a copy of one of them.
2. **Select** down the tree with UCB1. A tree node is an *information set*: the key is the
   engine's ``info_key(player)`` for the player to move, so every world passing through the same
   information set shares its statistics, and an opponent's node is keyed by what *that*
   opponent knows (its decisions never see our cards). Chance steps inside the tree are drawn
   fresh each iteration with ``engine.sample_chance``. The legal actions of a node depend only
   on the information set, so the subset-armed bandit of the paper reduces to plain UCB1 with
   the node's visit count as the availability count.
3. **Expand** one new node per iteration (one untried action, in a seeded random order).
4. **Roll out** to the end with the random or the game's heuristic policy, or cut the rollout
   after ``rollout_depth`` player decisions and use the game's heuristic evaluation. A uniform
   random rollout to the end runs in the engine's own ``random_playout`` when it has one
   (``Engine`` has the generic loop; Modern Art and Detective Eye override it with faster ones
   making the same draws and actions, each pinned by a test).
5. **Back up** the returns of *every* seat; each node accumulates the return of the player who
   moves there, so 3-5 player games are searched with each seat maximising its own return.

Returns are scaled by their range, so ``exploration`` is the UCB constant for rewards in
[0, 1]: the range of the returns seen so far in the search, within the game's declared utility
range (the declared range alone would over-explore games paid in money, whose declared maximum
is far above any real outcome). The final move is the most visited root action (ties by mean
value); the hint's policy is the root's visit distribution in the paper (``final_policy:
visits``), without the visits of significantly worse actions by default (below).

Large bid ranges use the game's action abstraction (``GameKnowledge.candidates``): a node
considers only candidate bids (for example around the value estimate and the current price,
always legal moves), and random rollouts pick among the same candidates.

On top of the paper's algorithm (each piece an option; ``LEGACY_OPTIONS`` turns them all off
and reproduces the ``ismcts`` of commit a322b0d):

* **Beliefs** (``beliefs``, default ``auto``): instead of a pool of uniform worlds, a
  pool of ``belief_worlds`` uniform worlds weighted by Bayes' rule with the likelihood of the
  other seats' actions under the game's heuristic, with a trembling floor ``epsilon``
  (``bots.beliefs``), tempered so that at least ``belief_effective`` of the pool keeps
  weight; every iteration draws its world by weight (sampling-importance-resampling). ``auto``
  weighs them in every game except Modern Art under a time budget (``TIMED_BELIEFS``), where
  they cost more simulations than they are worth (they place 1-2 points more of the other
  seats' hidden cards right).
* **Unseen moves in the tree** (``hidden_moves``, default ``tree``): other seats' moves we
  could not see just before our turn (sealed and finger bids, face-down placements) are not
  sampled with the world but searched from before them, each mover choosing in its own
  information-set node, as MO-ISMCTS treats partially observable moves (Cowling, Powley and
  Whitehouse 2012, section V). A fixed model of those moves is what a best responder exploits.
* **Smooth UCT** (``selection: smooth``): with a probability that decays with the node's
  visits, follow the node's average strategy instead of UCB1 (J. Heinrich and D. Silver,
  "Smooth UCT Search in Computer Poker", IJCAI 2015), so that the visit distribution (the
  hint's policy) tends toward an equilibrium.
* **Progressive bias** (``prior_weight``): a bonus ``w * H(a) / (n(a) + 1)`` toward the
  heuristic's best actions, which are also tried first (G. Chaslot, M. Winands, H. J. van den
  Herik, J. Uiterwijk and B. Bouzy, "Progressive Strategies for Monte-Carlo Tree Search", New
  Mathematics and Natural Computation 4(3), 2008). On by default where measured to help
  (``SEARCH_PRIORS``: Detective Eye, Finger Auction, Gallery Rush; ``TIMED_PRIORS``: Modern
  Art under a time budget), at every seat's nodes; ``prior_seats: self`` keeps it at the
  searching seat's own nodes, so that the other seats are not expected to lean toward the
  heuristic's move (measured in Detective Eye: level against another search, weaker against
  the heuristic itself; docs/bots.md).
* **Heuristic opponents in rollouts** (``rollout_opponents``): the other seats' first
  decisions of each rollout by the heuristic bot's rated move.
* **Per-game cut-offs** (``rollout_depth: -2``, the default): ``SEARCH_CUTOFFS`` cuts
  Detective Eye rollouts after 10 decisions and scores them by the game's evaluation (full
  rollouts by its safe playout are a fixed rotation that carries no signal; see there).
* **Opponents by the model** (``opponent_moves: heuristic``): the other seats' decisions in
  the tree are the heuristic model's best moves (the beliefs' cached ``HeuristicModel``)
  instead of bandits in their own nodes: the search becomes a best response to the model.

* **Final policy** (``final_policy: significant``): the hint reports the visits of the root
  actions whose mean is not significantly below the played move's, the mean strategy without
  the exploration samples (Lisý, Kovařík, Lanctot and Bošanský 2013; ``final_weights``). The
  search and the move are the same under every rule.

docs/bots.md gives what each piece measured.
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

from bots.beliefs import (
    HeuristicModel,
    Probability,
    effective_size,
    has_rating,
    log_likelihood,
    tempered,
)
from bots.heuristics import GameKnowledge, knowledge_for
from bots.protocol import (
    ActionStat,
    Bot,
    Budget,
    Clock,
    FloatSpec,
    Hint,
    InvalidBotSpec,
    Worlds,
)
from bots.rollout import play_out
from games.core.definition import Prior
from games.core.engine import CHANCE, TERMINAL, Engine
from games.core.params import ParamSpec

ROLLOUT_POLICIES = ("auto", "random", "heuristic")
FINAL_POLICIES = ("significant", "visits", "p_value", "greedy")  # ``final_weights``

# The option set that reproduces the ``ismcts`` of commit a322b0d (single-observer ISMCTS,
# uniform worlds with the heuristic's commit prior, UCB1, no prior, unseen moves sampled with
# the world): ``make_bot({"name": "ismcts", "options": LEGACY_OPTIONS})``. Same hints for
# the same seeds as that commit, as long as the games' heuristics (its rollouts) are the same.
LEGACY_OPTIONS: dict[str, object] = {
    "exploration": 0.7,
    "rollout": "auto",
    "rollout_depth": -1,
    "opponent_model": "heuristic",
    "worlds": 32,
    "beliefs": "uniform",
    "hidden_moves": "sample",
    "selection": "uct",
    "prior_weight": 0.0,
    "rollout_opponents": 0,
    "opponent_moves": "search",
    "final_policy": "visits",
}


def legacy_spec() -> dict[str, object]:
    """The bot spec of the ``ismcts`` of a322b0d (``LEGACY_OPTIONS``), a fresh copy each call."""
    return {"name": "ismcts", "options": dict(LEGACY_OPTIONS)}


# Rollout cut-offs of the search's defaults (``rollout_depth: -2``), per game, where measured
# to help (docs/bots.md, "Strength"). Detective Eye's rollout policy (a safe player that
# declares only what its own face-down cards back) makes whole games a fixed rotation: each
# round the start player declares its placed card, succeeds and sheds one card, so from many
# positions every rollout ends the same way and the root's values carry no signal (every
# action worth exactly a loss), and the search picks among ties and noise, more so with more
# simulations. Cut off after about one round (10 decisions), the game's evaluation (progress:
# cards, forgeries, misses) scores what the round did instead. Against the heuristic in
# 4-player Detective Eye: 0.600 over 40 games at 300 simulations (to the end: 0.283; cut at
# 20 decisions: 0.588), 0.700 [0.57, 0.80] over 60 at 1,000 (to the end: 0.167).
# Modern Art keeps its heuristic's 40: cut after 15 decisions, the search runs 2-3 times the
# simulations in a time budget, but 500 ms was not won that way (docs/bots.md, "Modern Art:
# shorter rollouts at 500 ms").
SEARCH_CUTOFFS: dict[str, int] = {"detective_eye": 10}

# Progressive-bias weights of the search's defaults (``prior_weight`` negative), per game,
# where measured to help (docs/bots.md, "Detective Eye: the prior at larger budgets"). In
# Detective Eye the tree's new opponent nodes start as uniform players (they raise and
# challenge at random), and the more simulations, the deeper the tree grows into such lines
# and the more the search plays to exploit them: in 2-player games against the heuristic
# 0.717 at 1,000 simulations but 0.625 at 3,000 and 0.483 at 500 ms (about 3,000-5,000
# simulations). A bias toward the heuristic's rated moves (which are also tried first) makes
# a new node play like the heuristic until its own statistics take over.
#
# In 2-player Finger Auction the same bias exploits the heuristic's habits without making the
# hint's policy easier to exploit (with ``final_policy: significant``): against the heuristic
# at 1,000 simulations, 0.642 over 120 games (two sets of 30 deals) against 0.542 without;
# exact NashConv of Finger Auction small 0.414, 0.245, 0.129, 0.092 at 100, 300, 1,000 and
# 3,000 simulations (without: 0.377, 0.239, 0.136, 0.103).
#
# In Gallery Rush (mostly luck) it is a small gain at 2 and 3 players and level at 4: AIVAT's
# luck-corrected first-place share against the heuristic at 1,000 simulations, paired over
# the same deals of two seeds (120 games), +0.023 [-0.019, +0.065] at 2 players and +0.037
# [-0.008, +0.082] at 3; at 4 players -0.006 [-0.052, +0.041] over 60 games.
SEARCH_PRIORS: dict[str, float] = {
    "detective_eye": 0.5,
    "finger_auction": 0.5,
    "gallery_rush": 0.5,
}

# Beliefs of the search's defaults (``beliefs: auto``) under a time budget, per game, where the
# Bayes weights cost more simulations than their information is worth (docs/bots.md, "What the
# beliefs know"). In Modern Art a weight replays the whole history through the heuristic, so
# at 500 ms weighing the pool takes a quarter to a third of the simulations (447 against 670 a
# move at 3 players, 404 against 515 at 4, 358 against 435 at 5), and the weights place 1-2
# points more of the other seats' hidden cards right than uniform worlds do (``atelier bench
# beliefs``), against 5-21 points in Detective Eye. Under a number of simulations the
# weights cost no simulations, and every game keeps them.
TIMED_BELIEFS: dict[str, str] = {"modern_art": "uniform"}

# Progressive-bias weights of the search's defaults under a time budget, per game, where they
# differ from ``SEARCH_PRIORS`` (docs/bots.md, "Modern Art: the prior under a time budget").
# A Modern Art search gets tens to hundreds of simulations in a time budget, so most tree
# nodes are visited a few times, and without a prior their first tries are the abstraction's
# candidates in a random order (an opponent that passes or bids its whole cap at random).
# The bias tries the heuristic's bid or offer first: against the ISMCTS of a322b0d at
# 100 ms, 0.556 [0.40, 0.70] over 36 games at 3 players, where the search without it scored
# 0.236 on the same deals (paired +0.32 [+0.12, +0.52]). At a number of simulations it was
# not measured (a 1,000-simulation game with it took 3-5 minutes of thinking here), so there
# the search keeps no prior.
TIMED_PRIORS: dict[str, float] = {"modern_art": 0.5}


class _Node:
    """One information set's statistics: per action, visits and the sum of returns, and the
    heuristic's prior when progressive bias is on."""

    __slots__ = ("actions", "bias", "counts", "totals", "tried", "visits")

    def __init__(self, actions: list[int], bias: list[float] | None = None) -> None:
        self.actions = actions
        self.bias = bias
        self.counts = [0] * len(actions)
        self.totals = [0.0] * len(actions)
        self.tried = 0
        self.visits = 0


@dataclass
class SearchResult:
    """The root's statistics after a search."""

    actions: list[int]
    counts: list[int]
    means: list[float]  # mean return of the acting seat, in the game's units
    iterations: int
    elapsed_ms: float
    stopped_by: str
    worlds: int
    nodes: int
    effective_worlds: float | None = None  # Kish's effective size of the belief weights
    # The lowest and highest return of any seat seen in the search (game units).
    low: float = 0.0
    high: float = 0.0
    # Per root action: the UCB1 selections at the root that were also its greedy choice (the
    # highest mean at that moment), i.e. the visits without the exploration samples.
    greedy: list[int] | None = None


# Smooth UCT's mixing schedule (Heinrich and Silver 2015, section 4): at a node visited N
# times, UCB1 picks the action with probability max(GAMMA, ETA / (1 + D * sqrt(N))), and
# otherwise the action is drawn from the node's average strategy (its visit distribution).
# The paper's values for Kuhn and Leduc poker.
SMOOTH_ETA, SMOOTH_GAMMA, SMOOTH_D = 0.9, 0.1, 0.001


def search(
    worlds: Worlds,
    budget: Budget,
    rng: random.Random,
    *,
    exploration: float = 0.7,
    rollout: str = "random",
    rollout_depth: int = -1,
    pool_size: int = 32,
    knowledge: GameKnowledge | None = None,
    beliefs: Probability | None = None,
    belief_worlds: int = 64,
    epsilon: float = 0.2,
    belief_effective: float = 0.25,
    smooth: bool = False,
    prior_weight: float = 0.0,
    prior_opponents: bool = True,
    hidden_moves: bool = False,
    rollout_opponents: int = 0,
    opponent_model: HeuristicModel | None = None,
) -> SearchResult:
    """Runs ISMCTS from ``worlds.seat``'s information set within ``budget``.

    ``beliefs`` (an opponent model's ``probability``) weights a pool of ``belief_worlds``
    uniformly sampled worlds by Bayes' rule (``bots.beliefs``) and every iteration draws its
    world from the pool by weight; ``smooth`` selects by Smooth UCT; ``prior_weight`` > 0 adds
    the heuristic's progressive bias (at every seat's nodes, or with ``prior_opponents`` false
    only at ``worlds.seat``'s). ``opponent_model`` plays the other seats' decisions in
    the tree by that model's best moves (a best response to the model) instead of searching
    them in their own nodes, and their first ``rollout_opponents`` decisions in a rollout.
    """
    clock = Clock(budget, worlds.started)
    seat = worlds.seat
    first = worlds.first
    if budget.simulations is not None:
        pool_size = min(pool_size, budget.simulations)
    if worlds.public_history:
        pool_size = 1
    root_key = first.info_key(seat)
    sample = worlds.sample
    fresh = worlds.fresh
    # Other seats' moves we could not see, just before our turn (sealed and finger bids,
    # face-down placements): searched as their decisions in the tree, not sampled.
    searches_unseen = hidden_moves and fresh is not None and not worlds.public_history
    tail = unseen_tail(first, seat, fresh) if searches_unseen else 0  # type: ignore[arg-type]
    if tail:
        first = _rewound(first, tail, fresh)  # type: ignore[arg-type]
        drawn_sample = sample

        def sample(r: random.Random) -> Engine:
            return _rewound(drawn_sample(r), tail, fresh)  # type: ignore[arg-type]

    # Nothing hidden but the moves taken back (``Worlds.hidden_in_tail``): every world is
    # ``first``. Draws still take their seeds from ``rng`` and weights are still uniform, so
    # the search is move for move the one that drew and weighed that world again and again.
    one_world = worlds.hidden_in_tail and searches_unseen
    if one_world:
        rewound_first = first

        def sample(r: random.Random) -> Engine:
            return rewound_first

    pool = [first]
    weighted = None
    effective = None
    if beliefs is not None and pool_size > 1 and fresh is not None:
        pool, weighted, effective = _belief_pool(
            first,
            sample,
            fresh,
            seat,
            worlds.started,
            budget,
            rng,
            beliefs,
            belief_worlds,
            epsilon,
            belief_effective,
            same=one_world,
        )
        # Unweighted (no pool worth weighing fits in the time: a short budget, a long
        # history, a busy machine): keep the worlds drawn and go on drawing uniform ones.
        pool_size = len(pool) if weighted is not None else max(pool_size, len(pool))

    abstract = knowledge is not None and knowledge.abstracts
    candidates = knowledge.candidates if abstract else None  # type: ignore[union-attr]
    heuristic = knowledge.playout if rollout == "heuristic" else None  # type: ignore[union-attr]
    evaluate = knowledge.evaluate if rollout_depth >= 0 else None  # type: ignore[union-attr]
    rated_best = knowledge.best_rated if prior_weight > 0 and has_rating(knowledge) else None  # type: ignore[union-attr]
    # Uniform random rollouts to the end are the engine's own loop when it has one
    # (``random_playout``: the same draws and actions as the loop below, without a list of
    # legal actions and an ``apply`` call per step).
    playout = (
        getattr(type(first), "random_playout", None)
        if heuristic is None and candidates is None and rollout_depth < 0
        else None
    )
    model_move = opponent_model.choose if opponent_model is not None else None
    modelled = (
        _ModelledOpponents(seat, model_move or knowledge.choose, heuristic, candidates)  # type: ignore[union-attr]
        if rollout_opponents > 0 and (model_move is not None or has_rating(knowledge))
        else None
    )
    if modelled is not None:
        playout = None
    declared = worlds.max_utility - worlds.min_utility
    c = exploration * declared
    bias_scale = prior_weight * declared
    lo, hi = math.inf, -math.inf  # returns seen so far: they rescale ``c`` once they spread
    random_ = rng.random
    sqrt, log = math.sqrt, math.log

    table: dict[object, _Node] = {}
    root_node: _Node | None = None
    greedy: list[int] = []
    iteration = 0
    # At least one iteration, so even a budget spent on sampling the first world answers.
    while not iteration or clock.running():
        if weighted is not None:
            engine = pool[min(bisect_right(weighted, random_() * weighted[-1]), pool_size - 1)]
            engine = engine.copy()
        elif iteration < pool_size:
            if iteration >= len(pool):
                pool.append(sample(random.Random(rng.getrandbits(64))))
            engine = pool[iteration].copy()
        else:
            engine = pool[int(random_() * pool_size)].copy()
        iteration += 1
        path: list[tuple[_Node, int, int]] = []
        before_root = tail > 0  # in the unseen moves before our turn: expand, do not stop

        # Selection and expansion.
        while True:
            player = engine.current_player()
            if player < 0:
                if player == CHANCE:
                    engine.apply(engine.sample_chance(rng))
                    continue
                break
            if model_move is not None and player != seat:
                engine.apply(model_move(engine, rng))
                continue
            key = engine.info_key(player)
            if before_root and player == seat:
                before_root = False
            node = table.get(key)
            if node is None:
                legal = engine.player_actions() if candidates is None else candidates(engine, None)
                acts = list(legal)
                rng.shuffle(acts)
                node = (
                    _Node(acts)
                    if rated_best is None or (player != seat and not prior_opponents)
                    else _biased_node(acts, rated_best(engine))
                )
                table[key] = node
                if key == root_key:
                    root_node, greedy = node, [0] * len(acts)
            if node.tried < len(node.actions):
                i = node.tried
                node.tried = i + 1
                path.append((node, i, player))
                engine.apply(node.actions[i])
                if before_root:
                    continue
                break
            counts, totals = node.counts, node.totals
            if smooth and random_() >= max(
                SMOOTH_GAMMA, SMOOTH_ETA / (1.0 + SMOOTH_D * sqrt(node.visits))
            ):
                # Smooth UCT: follow the node's average strategy (its visit distribution).
                u = random_() * node.visits
                i = 0
                while i < len(counts) - 1 and u >= counts[i]:
                    u -= counts[i]
                    i += 1
            else:
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
                        # Progressive bias (Chaslot et al. 2008): H(a) / (n + 1).
                        score = totals[j] / n + k / sqrt(n) + bias_scale * bias[j] / (n + 1)
                        if score > best:
                            best, i = score, j
                if node is root_node:
                    _count_greedy(greedy, counts, totals, i)
            path.append((node, i, player))
            engine.apply(node.actions[i])

        # Rollout (or cut-off evaluation).
        if modelled is not None:
            modelled.left = rollout_opponents
            returns = play_out(engine, rng, modelled, candidates, evaluate, rollout_depth)
        elif playout is not None:
            returns = playout(engine, rng)
        else:
            returns = play_out(engine, rng, heuristic, candidates, evaluate, rollout_depth)

        # Backup: each node takes the return of the player who moves there.
        for node, i, player in path:
            node.visits += 1
            node.counts[i] += 1
            node.totals[i] += returns[player]
        low, high = min(returns), max(returns)
        if low < lo or high > hi:
            lo, hi = min(lo, low), max(hi, high)
            if hi > lo:
                c = exploration * min(declared, hi - lo)
                bias_scale = prior_weight * min(declared, hi - lo)
        clock.tick()

    root = table[root_key]
    return SearchResult(
        actions=list(root.actions),
        counts=list(root.counts),
        means=[t / n if n else 0.0 for t, n in zip(root.totals, root.counts, strict=True)],
        iterations=clock.iterations,
        elapsed_ms=clock.elapsed_ms(),
        stopped_by=clock.stopped_by(),
        worlds=len(pool),
        nodes=len(table),
        effective_worlds=effective,
        low=lo if hi >= lo else 0.0,
        high=hi if hi >= lo else 0.0,
        greedy=list(greedy),
    )


def _count_greedy(greedy: list[int], counts: list[int], totals: list[float], picked: int) -> None:
    """Counts a root selection ``picked`` as exploitation when no action's mean is higher."""
    mean = totals[picked] / counts[picked]
    for j in range(len(counts)):
        if totals[j] / counts[j] > mean:
            return
    greedy[picked] += 1


def _belief_pool(
    first: Engine,
    sample: Callable[[random.Random], Engine],
    fresh: Callable[[Engine], Engine],
    seat: int,
    started: float,
    budget: Budget,
    rng: random.Random,
    probability: Probability,
    size: int,
    epsilon: float,
    min_effective: float,
    same: bool = False,
) -> tuple[list[Engine], list[float] | None, float | None]:
    """A pool of uniformly sampled worlds, its cumulative Bayes weights (tempered to keep
    ``min_effective`` of the pool) and their effective size (``bots.beliefs``).

    Each world is drawn and weighed in turn, and both stop at a third of a time budget, so
    the search keeps most of the time. When the worlds so far say that not even
    ``MIN_BELIEF_POOL`` of them fit in that third (a weight replays the whole history
    through the opponent model, about 30 ms late in a Modern Art game), weighing stops at
    once and the worlds drawn come back unweighted (``None``), instead of the time going to
    weights that are then thrown away. Without a time limit the pool is the same world for
    world whatever the machine, since weighing draws nothing from ``rng``. ``same`` says
    every draw is ``first`` again, whose weight is then not computed again.
    """
    deadline = started + budget.milliseconds / 3000.0 if budget.milliseconds else math.inf
    begun = time.perf_counter()
    pool = [first]
    logs = [log_likelihood(fresh, first, seat, probability, epsilon)]
    while len(pool) < size:
        now = time.perf_counter()
        if now >= deadline:
            break
        if deadline < math.inf and (begun + (now - begun) / len(pool) * MIN_BELIEF_POOL > deadline):
            return pool, None, None
        world = sample(random.Random(rng.getrandbits(64)))
        pool.append(world)
        logs.append(logs[0] if same else log_likelihood(fresh, world, seat, probability, epsilon))
    if len(pool) < MIN_BELIEF_POOL:
        return pool, None, None
    weights, _ = tempered(logs, min_effective * len(logs))
    return pool, list(accumulate(weights)), round(effective_size(weights), 2)


def unseen_tail(first: Engine, seat: int, fresh: Callable[[Engine], Engine]) -> int:
    """How many of the last steps before our turn are other seats' moves we did not see.

    A step is unseen when any other legal choice there (at most ``UNSEEN_PROBES`` of them,
    spread over the legal range), followed by the same later steps, leaves our information
    set unchanged: a sealed bid, a finger bid, a face-down placement. The count is the same
    in every world of the information set (what we saw is the same in all), so it is found on
    the first. Searching from before those steps, with the movers choosing in their own
    nodes, is what the partially observable moves of MO-ISMCTS (Cowling, Powley and
    Whitehouse 2012, section V) and the public-state root of online outcome sampling (Lisy,
    Lanctot and Bowling 2015) do: the opponents' commits are then answers to our play that
    the search learns, not draws from a fixed model, so it cannot be exploited through them.
    """
    history = list(first.history)
    key = first.info_key(seat)
    # One replay for who moved at each step; states are kept only for the trailing run of
    # other seats' decisions, the only steps that can be unseen moves before our turn.
    engine = fresh(first)
    movers = []
    for action in history:
        movers.append(engine.current_player())
        engine.apply(action)
    start = len(history)
    while start and movers[start - 1] >= 0 and movers[start - 1] != seat:
        start -= 1
    if start == len(history):
        return 0
    engine = fresh(first)
    for action in history[:start]:
        engine.apply(action)
    states = {start: engine.copy()}
    for j in range(start, len(history) - 1):
        engine.apply(history[j])
        states[j + 1] = engine.copy()
    tail = 0
    for j in range(len(history) - 1, start - 1, -1):
        state = states[j]
        legal = state.legal_actions()
        if len(legal) < 2:
            break
        step = len(legal) / min(len(legal), UNSEEN_PROBES)
        probes = {legal[int(i * step)] for i in range(min(len(legal), UNSEEN_PROBES))}
        probes.add(legal[-1])
        if not all(_same_view(state, a, history[j + 1 :], seat, key) for a in probes):
            break
        tail += 1
    return tail


UNSEEN_PROBES = 6
# Opponent models (with their caches) an ``IsmctsBot`` keeps, one per game setting.
MAX_KEPT_MODELS = 4
# Fewer weighed worlds than this and Bayes weights are not worth their cost: uniform pool.
MIN_BELIEF_POOL = 8


def _same_view(state: Engine, action: int, later: list[int], seat: int, key: object) -> bool:
    engine = state.copy()
    engine.apply(action)
    for a in later:
        if engine.current_player() == TERMINAL or a not in engine.legal_actions():
            return False
        engine.apply(a)
    return engine.info_key(seat) == key


def _rewound(world: Engine, tail: int, fresh: Callable[[Engine], Engine]) -> Engine:
    """``world`` without its last ``tail`` steps."""
    engine = fresh(world)
    for action in list(world.history)[:-tail]:
        engine.apply(action)
    return engine


class _ModelledOpponents:
    """A rollout policy: the other seats' first ``left`` decisions by the heuristic bot's move
    (``GameKnowledge.choose``, the opponent model), everything else by the rollout policy."""

    __slots__ = ("candidates", "choose", "left", "rest", "seat")

    def __init__(
        self,
        seat: int,
        choose: Callable[[Engine, random.Random], int],
        rest: Callable[[Engine, random.Random], int] | None,
        candidates: Callable[[Engine, list[int] | None], list[int]] | None,
    ) -> None:
        self.seat = seat
        self.choose = choose
        self.rest = rest
        self.candidates = candidates
        self.left = 0

    def __call__(self, engine: Engine, rng: random.Random) -> int:
        if self.left > 0 and engine.current_player() != self.seat:
            self.left -= 1
            return self.choose(engine, rng)
        if self.rest is not None:
            return self.rest(engine, rng)
        acts = engine.player_actions()
        if self.candidates is not None:
            acts = self.candidates(engine, acts)
        return acts[int(rng.random() * len(acts))]


def _biased_node(actions: list[int], best: frozenset[int]) -> _Node:
    """A node whose untried actions start with the heuristic's best, which get the prior."""
    actions.sort(key=lambda a: a not in best)  # stable: the shuffled order otherwise
    share = 1.0 / len(best)
    return _Node(actions, [share if a in best else 0.0 for a in actions])


class IsmctsBot(Bot):
    name = "ismcts"
    description = (
        "ISMCTS (Cowling, Powley & Whitehouse 2012) on the engines: information-set nodes, "
        "worlds weighted by the heuristic's likelihood of the opponents' moves, unseen moves "
        "searched in the tree, UCT or Smooth UCT, random or heuristic rollouts."
    )
    options = (
        FloatSpec(
            "exploration",
            0.7,
            "UCB1 exploration constant for returns scaled to [0, 1]",
            min=0,
            max=100,
        ),
        ParamSpec(
            "rollout",
            "auto",
            "rollout policy: 'random' (uniform over the considered actions), 'heuristic' (the "
            "game's rollout heuristic) or 'auto' (the game's measured choice)",
            choices=ROLLOUT_POLICIES,
        ),
        ParamSpec(
            "rollout_depth",
            -2,
            "player decisions per rollout before the game's heuristic evaluation cuts it off; "
            "-2: the search's measured choice per game (SEARCH_CUTOFFS: 10 in Detective Eye, "
            "else as -1); -1: the game heuristic's own (to the end unless the game sets a "
            "cut-off, as Modern Art does)",
            min=-2,
            max=1_000_000,
        ),
        ParamSpec(
            "opponent_model",
            "heuristic",
            "how sampled worlds fill other seats' hidden commits (sealed and finger bids): "
            "'heuristic' (weighted by how likely the game's heuristic makes each) or 'uniform'",
            choices=("heuristic", "uniform"),
        ),
        ParamSpec(
            "worlds",
            32,
            "size of the pool of sampled worlds (drawn once per search, copied per iteration) "
            "when beliefs are 'uniform'",
            min=1,
            max=100_000,
        ),
        ParamSpec(
            "beliefs",
            "auto",
            "how worlds are weighted: 'heuristic' (a pool of belief_worlds uniform worlds "
            "weighted by the likelihood of the other seats' actions under the game's heuristic "
            "with a trembling floor, drawn by weight), 'uniform' (every sampled world alike) or "
            "'auto' (the search's measured choice: 'heuristic', but 'uniform' under a time "
            "budget in Modern Art, TIMED_BELIEFS)",
            choices=("auto", "heuristic", "uniform"),
        ),
        ParamSpec(
            "belief_worlds",
            64,
            "size of the weighted pool when beliefs are 'heuristic'",
            min=1,
            max=100_000,
        ),
        FloatSpec(
            "epsilon",
            0.2,
            "trembling floor of the opponent model: likelihood (1 - eps) * pi + eps / |legal|",
            min=0,
            max=1,
        ),
        FloatSpec(
            "belief_effective",
            0.25,
            "least effective share of the weighted pool: the likelihood is tempered "
            "(raised to the largest power <= 1) until the weights keep this share of worlds",
            min=0,
            max=1,
        ),
        ParamSpec(
            "selection",
            "uct",
            "tree policy: 'uct' (UCB1) or 'smooth' (Smooth UCT: mixes in each node's average "
            "strategy, so the visit distribution tends toward an equilibrium)",
            choices=("uct", "smooth"),
        ),
        ParamSpec(
            "hidden_moves",
            "tree",
            "other seats' moves we did not see just before our turn (sealed and finger bids, "
            "face-down placements): 'tree' (searched from before them, each mover choosing in "
            "its own node) or 'sample' (drawn with the world, by opponent_model)",
            choices=("tree", "sample"),
        ),
        ParamSpec(
            "opponent_moves",
            "search",
            "how the other seats' decisions are played in the tree: 'search' (each seat a "
            "bandit in its own information-set nodes, maximising its own return) or "
            "'heuristic' (the game's heuristic model, its best-rated move: a best response to "
            "that model; rollout_opponents then use the same cached model)",
            choices=("search", "heuristic"),
        ),
        ParamSpec(
            "rollout_opponents",
            0,
            "other seats' decisions per rollout played by the game's heuristic bot (its rated "
            "move, the opponent model) before the rollout policy takes over; 0: none",
            min=0,
            max=1_000_000,
        ),
        ParamSpec(
            "final_policy",
            "significant",
            "the mixed policy the hint reports (the move played is the most visited under "
            "every rule): 'significant' (the visits of the actions whose mean is not "
            "significantly below the played one's), 'visits' (the root's visit distribution, "
            "as before), 'p_value' (visits weighted by the p-value of that test) or 'greedy' "
            "(only the root's UCB1 selections that were also its greedy choice)",
            choices=FINAL_POLICIES,
        ),
        FloatSpec(
            "prior_weight",
            -1.0,
            "progressive bias toward the game's heuristic move, in units of the return range "
            "(weight / (visits + 1)); 0: none; negative: the search's measured choice per game "
            "(SEARCH_PRIORS: 0.5 in Detective Eye, Finger Auction and Gallery Rush; TIMED_PRIORS: "
            "0.5 in Modern Art under a time budget; else 0)",
            min=-1,
            max=100,
        ),
        ParamSpec(
            "prior_seats",
            "all",
            "whose nodes get the progressive bias: 'all' (every seat's: the other seats are "
            "searched as if they leaned toward the heuristic's move) or 'self' (only the "
            "searching seat's; the other seats' nodes are plain UCB1)",
            choices=("all", "self"),
        ),
    )

    def prior_for(self, game: str) -> Prior | None:
        knowledge = knowledge_for(game)
        if knowledge is None or self.config["opponent_model"] == "uniform":
            return None
        if type(knowledge).commit_prior is GameKnowledge.commit_prior:
            return None  # the game has no model of hidden commits
        return knowledge.commit_prior

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        cfg = self.config
        knowledge = knowledge_for(worlds.game)
        if knowledge is None and (cfg["rollout"] == "heuristic" or cfg["rollout_depth"] >= 0):
            raise InvalidBotSpec(
                f"bot 'ismcts': game {worlds.game!r} has no heuristic, so options "
                "rollout='heuristic' and rollout_depth >= 0 are not available for it"
            )
        rollout, depth = resolve_rollout(cfg["rollout"], cfg["rollout_depth"], knowledge)
        legal = worlds.first.legal_actions()
        if knowledge is not None and knowledge.abstracts:
            legal = knowledge.candidates(worlds.first, legal)
        if len(legal) == 1:
            return Hint(legal[0], [ActionStat(legal[0], 1.0)], stopped_by="single_action")
        model = self.opponent_model(knowledge, worlds)
        result = search(
            worlds,
            budget,
            rng,
            exploration=cfg["exploration"],
            rollout=rollout,
            rollout_depth=depth,
            pool_size=cfg["worlds"],
            knowledge=knowledge,
            beliefs=model.probability
            if model is not None
            and resolve_beliefs(cfg["beliefs"], worlds.game, budget) == "heuristic"
            else None,
            belief_worlds=cfg["belief_worlds"],
            epsilon=cfg["epsilon"],
            belief_effective=cfg["belief_effective"],
            smooth=cfg["selection"] == "smooth",
            prior_weight=resolve_prior(cfg["prior_weight"], worlds.game, budget),
            prior_opponents=cfg["prior_seats"] == "all",
            hidden_moves=cfg["hidden_moves"] == "tree",
            rollout_opponents=cfg["rollout_opponents"],
            opponent_model=model
            if cfg["opponent_moves"] == "heuristic" and has_rating(knowledge)
            else None,
        )
        return hint_from_result(result, cfg["final_policy"])

    def opponent_model(
        self, knowledge: GameKnowledge | None, worlds: Worlds | None = None
    ) -> HeuristicModel | None:
        """The model whose likelihoods weight the worlds and, with ``opponent_moves:
        heuristic``, plays the other seats (``None``: the game has no rated heuristic).

        Its cache (the heuristic's best moves by ``(player, info_key)``) is exact within one
        game setting, and the worlds of the next searches of a game replay the same steps
        with many of the same opponents' holdings, so the model is kept on the bot per game
        setting when the engine names its setting (a ``cfg`` object: Detective Eye and Modern
        Art, whose rated heuristics are the expensive ones): 1.6x faster moves over a 4-player
        Detective Eye game at 1,000 simulations, same hints (docs/bots.md). Otherwise, one
        model per search.
        """
        if not has_rating(knowledge):
            return None
        setting = getattr(worlds.first, "cfg", None) if worlds is not None else None
        if setting is None:
            return HeuristicModel(knowledge)  # type: ignore[arg-type]
        models = self.__dict__.setdefault("_models", {})
        key = (knowledge.game, setting)  # type: ignore[union-attr]
        model = models.get(key)
        if model is None:
            if len(models) >= MAX_KEPT_MODELS:
                models.clear()
            model = models[key] = HeuristicModel(knowledge)  # type: ignore[arg-type]
        return model


def _timed(budget: Budget | None) -> bool:
    """Whether a search runs against the clock (``None``: no budget, as in a review)."""
    return budget is not None and budget.milliseconds is not None


def resolve_beliefs(beliefs: str, game: str, budget: Budget | None) -> str:
    """The weighting a search uses: the spec's, or (``auto``) ``heuristic`` except where
    ``TIMED_BELIEFS`` names another under a time budget."""
    if beliefs != "auto":
        return beliefs
    return TIMED_BELIEFS.get(game, "heuristic") if _timed(budget) else "heuristic"


def resolve_prior(weight: float, game: str, budget: Budget | None = None) -> float:
    """The progressive-bias weight a search uses: the spec's, or (negative) ``TIMED_PRIORS``'s
    under a time budget, else ``SEARCH_PRIORS``'s."""
    if weight >= 0:
        return weight
    if _timed(budget) and game in TIMED_PRIORS:
        return TIMED_PRIORS[game]
    return SEARCH_PRIORS.get(game, 0.0)


def resolve_rollout(rollout: str, depth: int, knowledge: GameKnowledge | None) -> tuple[str, int]:
    """The rollout policy and cut-off a search uses: the spec's, or the game's defaults
    (``depth`` -2: ``SEARCH_CUTOFFS``, then as -1; -1: the game heuristic's own cut-off)."""
    if depth == -2:
        depth = SEARCH_CUTOFFS.get(knowledge.game, -1) if knowledge is not None else -1
    if rollout == "auto":
        rollout = knowledge.default_rollout if knowledge is not None else "random"
    if depth < 0 and knowledge is not None and knowledge.default_rollout_depth is not None:
        depth = knowledge.default_rollout_depth
    return rollout, depth


def hint_from_result(result: SearchResult, final_policy: str = "visits") -> Hint:
    """The most visited action (ties: higher mean), and the policy ``final_policy`` reports
    (``final_weights``); each action's visits and mean value are reported alongside."""
    order = sorted(
        range(len(result.actions)),
        key=lambda i: (-result.counts[i], -result.means[i], result.actions[i]),
    )
    best = order[0]
    weights = final_weights(result, best, final_policy)
    total = sum(weights)
    policy = [
        ActionStat(
            result.actions[i],
            weights[i] / total,
            visits=result.counts[i],
            value=round(result.means[i], 6) if result.counts[i] else None,
        )
        for i in sorted(range(len(result.actions)), key=lambda i: result.actions[i])
    ]
    seconds = result.elapsed_ms / 1000.0
    return Hint(
        action=result.actions[best],
        policy=policy,
        value=round(result.means[best], 6),
        iterations=result.iterations,
        elapsed_ms=result.elapsed_ms,
        stopped_by=result.stopped_by,
        extra={
            "worlds": result.worlds,
            "nodes": result.nodes,
            **(
                {"effective_worlds": result.effective_worlds}
                if result.effective_worlds is not None
                else {}
            ),
            "simulations_per_s": round(result.iterations / seconds, 1) if seconds else None,
        },
    )


# The normal quantile of ``final_policy: significant``: an action is dropped when its mean is
# below the played action's by more than this many standard errors.
SIGNIFICANCE_Z = 1.96


def final_weights(result: SearchResult, best: int, final_policy: str) -> list[float]:
    """Unnormalised weights of the hint's mixed policy over ``result.actions``. The search is
    the same for every rule and the move played (``best``, the most visited) always keeps a
    positive weight; an action never visited gets none.

    * ``visits``: the root's visit distribution (the ISMCTS of a322b0d).
    * ``p_value``: each action's visits times the two-sided p-value of "its mean equals the
      played action's" (1 when its mean is at least as high), by the normal approximation
      with each variance bounded from the range of returns seen (Bhatia-Davis inequality:
      at most (M - mu)(mu - m)). UCB1 keeps visiting an action its statistics already rule out
      for exploration's sake only (``c * sqrt(ln N / n)``); V. Lisý, V. Kovařík, M. Lanctot
      and B. Bošanský ("Convergence of Monte Carlo Tree Search in Simultaneous Move Games",
      NeurIPS 2013) take the mean strategy of the selection *with the exploration samples
      removed*, and this removes the visits in proportion to the evidence that they were
      exploration, without a threshold.
    * ``significant``: the same test as a threshold: the visits of the actions whose mean is
      not below the played action's by more than ``SIGNIFICANCE_Z`` standard errors.
    * ``greedy``: only the root's UCB1 selections that were also its greedy choice (no
      action's mean higher), the literal "exploration samples removed": the average of the
      search's best responses to its own estimates, as in fictitious play. Visits when the
      played action has no such selection.
    """
    counts = result.counts
    visits = [float(n) for n in counts]
    if final_policy == "greedy":
        greedy = result.greedy
        return visits if greedy is None or greedy[best] <= 0 else [float(g) for g in greedy]
    if final_policy not in ("p_value", "significant") or result.high <= result.low:
        return visits  # no spread in the returns: no evidence against any action
    lo, hi, means = result.low, result.high, result.means
    top = means[best]
    top_var = (hi - top) * (top - lo) / counts[best]
    weights = []
    for i, n in enumerate(counts):
        gap = top - means[i]
        if i == best or n == 0 or gap <= 0.0:
            weights.append(float(n))
            continue
        se = math.sqrt(max(0.0, (hi - means[i]) * (means[i] - lo) / n + top_var))
        if final_policy == "significant":
            weights.append(float(n) if gap <= SIGNIFICANCE_Z * se else 0.0)
        else:
            weights.append(n * math.erfc(gap / (se * math.sqrt(2.0))) if se > 0 else 0.0)
    return weights
