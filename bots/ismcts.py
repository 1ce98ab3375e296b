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
   (Modern Art): the same draws and actions as the generic loop, without its per-step calls.
5. **Back up** the returns of *every* seat; each node accumulates the return of the player who
   moves there, so 3-5 player games are searched with each seat maximising its own return.

Returns are scaled by their range, so ``exploration`` is the UCB constant for rewards in
[0, 1]: the range of the returns seen so far in the search, within the game's declared utility
range (the declared range alone would over-explore games paid in money, whose declared maximum
is far above any real outcome). The final move is the most visited root action (ties by mean
value) and the hint's policy is the root's visit distribution.

Large bid ranges use the game's action abstraction (``GameKnowledge.candidates``): a node
considers only candidate bids (for example around the value estimate and the current price,
always legal moves), and random rollouts pick among the same candidates.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

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
from games.core.engine import CHANCE
from games.core.params import ParamSpec

ROLLOUT_POLICIES = ("auto", "random", "heuristic")


class _Node:
    """One information set's statistics: per action, visits and the sum of returns."""

    __slots__ = ("actions", "counts", "totals", "tried", "visits")

    def __init__(self, actions: list[int]) -> None:
        self.actions = actions
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
) -> SearchResult:
    """Runs ISMCTS from ``worlds.seat``'s information set within ``budget``."""
    clock = Clock(budget, worlds.started)
    seat = worlds.seat
    first = worlds.first
    if budget.simulations is not None:
        pool_size = min(pool_size, budget.simulations)
    if worlds.public_history:
        pool_size = 1
    pool = [first]
    sample = worlds.sample

    abstract = knowledge is not None and knowledge.abstracts
    candidates = knowledge.candidates if abstract else None  # type: ignore[union-attr]
    heuristic = knowledge.playout if rollout == "heuristic" else None  # type: ignore[union-attr]
    evaluate = knowledge.evaluate if rollout_depth >= 0 else None  # type: ignore[union-attr]
    # Uniform random rollouts to the end are the engine's own loop when it has one
    # (``random_playout``: the same draws and actions as the loop below, without a list of
    # legal actions and an ``apply`` call per step).
    playout = (
        getattr(type(first), "random_playout", None)
        if heuristic is None and candidates is None and rollout_depth < 0
        else None
    )
    declared = worlds.max_utility - worlds.min_utility
    c = exploration * declared
    lo, hi = math.inf, -math.inf  # returns seen so far: they rescale ``c`` once they spread
    random_ = rng.random
    sqrt, log = math.sqrt, math.log

    table: dict[object, _Node] = {}
    root_key = first.info_key(seat)
    iteration = 0
    # At least one iteration, so even a budget spent on sampling the first world answers.
    while not iteration or clock.running():
        if iteration < pool_size:
            if iteration:
                pool.append(sample(random.Random(rng.getrandbits(64))))
            engine = pool[iteration].copy()
        else:
            engine = pool[int(random_() * pool_size)].copy()
        iteration += 1
        path: list[tuple[_Node, int, int]] = []

        # Selection and expansion.
        while True:
            player = engine.current_player()
            if player < 0:
                if player == CHANCE:
                    engine.apply(engine.sample_chance(rng))
                    continue
                break
            key = engine.info_key(player)
            node = table.get(key)
            if node is None:
                legal = engine.player_actions() if candidates is None else candidates(engine, None)
                acts = list(legal)
                rng.shuffle(acts)
                node = _Node(acts)
                table[key] = node
            if node.tried < len(node.actions):
                i = node.tried
                node.tried = i + 1
                path.append((node, i, player))
                engine.apply(node.actions[i])
                break
            counts, totals = node.counts, node.totals
            k = c * sqrt(log(node.visits))
            best, i = -math.inf, 0
            for j in range(len(counts)):
                n = counts[j]
                score = totals[j] / n + k / sqrt(n)
                if score > best:
                    best, i = score, j
            path.append((node, i, player))
            engine.apply(node.actions[i])

        # Rollout (or cut-off evaluation).
        if playout is not None:
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
    )


class IsmctsBot(Bot):
    name = "ismcts"
    description = (
        "Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) on the engines: "
        "information-set nodes, a pool of sampled worlds, UCT, random or heuristic rollouts."
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
            -1,
            "player decisions per rollout before the game's heuristic evaluation cuts it off; "
            "-1 leaves it to the game (to the end unless the game sets a cut-off)",
            min=-1,
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
            "size of the pool of sampled worlds (drawn once per search, copied per iteration)",
            min=1,
            max=100_000,
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
        result = search(
            worlds,
            budget,
            rng,
            exploration=cfg["exploration"],
            rollout=rollout,
            rollout_depth=depth,
            pool_size=cfg["worlds"],
            knowledge=knowledge,
        )
        return hint_from_result(result)


def resolve_rollout(rollout: str, depth: int, knowledge: GameKnowledge | None) -> tuple[str, int]:
    """The rollout policy and cut-off a search uses: the spec's, or the game's defaults."""
    if rollout == "auto":
        rollout = knowledge.default_rollout if knowledge is not None else "random"
    if depth < 0 and knowledge is not None and knowledge.default_rollout_depth is not None:
        depth = knowledge.default_rollout_depth
    return rollout, depth


def hint_from_result(result: SearchResult) -> Hint:
    """The most visited action (ties: higher mean), and the visit distribution as policy."""
    total = sum(result.counts)
    order = sorted(
        range(len(result.actions)),
        key=lambda i: (-result.counts[i], -result.means[i], result.actions[i]),
    )
    best = order[0]
    policy = [
        ActionStat(
            result.actions[i],
            result.counts[i] / total,
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
            "simulations_per_s": round(result.iterations / seconds, 1) if seconds else None,
        },
    )
