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

On top of the paper's algorithm (each piece an option; the ``ismcts-legacy`` baseline of
``evaluation.baselines`` turns them all off):

* **Beliefs** (``beliefs``, default ``auto``): instead of a pool of uniform worlds, a
  pool of ``belief_worlds`` uniform worlds weighted by Bayes' rule with the likelihood of the
  other seats' actions under the game's heuristic, with a trembling floor ``epsilon``
  (``bots.beliefs``), tempered so that at least ``belief_effective`` of the pool keeps
  weight; every iteration draws its world by weight (sampling-importance-resampling). ``auto``
  weighs them in every game except Modern Art under a time budget (``GAME_DEFAULTS``), where
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
* **Regret matching** (``selection: regret``, with ``final_policy: average``): every node
  draws by regret matching with 10% uniform exploration and updates its regrets by a
  baselined importance-sampled estimate (Lanctot, Lisý and Winands 2013; ``tree.regret_matching``);
  the hint reports the root's average strategy. Opt-in: far more exploitable than UCT at
  the budgets of a hint (docs/bots.md).
* **Progressive bias** (``prior_weight``): a bonus ``w * H(a) / (n(a) + 1)`` toward the
  heuristic's best actions, which are also tried first (G. Chaslot, M. Winands, H. J. van den
  Herik, J. Uiterwijk and B. Bouzy, "Progressive Strategies for Monte-Carlo Tree Search", New
  Mathematics and Natural Computation 4(3), 2008). On by default where measured to help
  (``GAME_DEFAULTS``: Detective Eye, Finger Auction, Gallery Rush; Modern Art under a time
  budget), at every seat's nodes; ``prior_seats: self`` keeps it at the
  searching seat's own nodes, so that the other seats are not expected to lean toward the
  heuristic's move (measured in Detective Eye: level against another search, weaker against
  the heuristic itself; docs/bots.md).
* **Heuristic opponents in rollouts** (``rollout_opponents``): the other seats' first
  decisions of each rollout by the heuristic bot's rated move.
* **Per-game cut-offs** (``rollout_depth: -2``, the default): ``GAME_DEFAULTS`` cuts
  Detective Eye rollouts after 10 decisions and scores them by the game's evaluation (full
  rollouts by its safe playout are a fixed rotation that carries no signal; see there).
* **Opponents by the model** (``opponent_moves: heuristic``): the other seats' decisions in
  the tree are the heuristic model's best moves (the beliefs' cached ``HeuristicModel``)
  instead of bandits in their own nodes: the search becomes a best response to the model.
* **A restricted response** (``opponent_moves: restricted``, Detective Eye's default under
  ``auto``): each other seat's decision in the tree is the heuristic's move with probability
  ``restricted_trust`` and searched otherwise, the restricted Nash response of M. Johanson,
  M. Zinkevich and M. Bowling ("Computing Robust Counter-Strategies", NIPS 2007) to the
  heuristic as a model (``ProfiledModel.heuristic_locks`` in ``bots.profiles.model``); the
  rollouts keep the game's rollout policy.

* **Final policy** (``final_policy: welch``): the hint reports the visits of the root
  actions whose mean is not significantly below the played move's by the sample standard
  errors (Welch's test), the mean strategy without the exploration samples (Lisý, Kovařík,
  Lanctot and Bošanský 2013; ``final_weights``). The search and the move are the same under
  every rule.

docs/bots.md gives what each piece measured.

The package, one job a module (docs/architecture.md, "The search"):

* ``config``: the options resolved once per search into a frozen ``SearchConfig``; the
  per-game measured defaults as data (``GAME_DEFAULTS``); the named option values that stand
  for a choice (``DEPTH_SEARCH``, ``DEPTH_GAME``, ``PRIOR_BY_GAME``).
* ``unseen``: the unseen moves before our turn, taken back to be searched in the tree.
* ``tree``: the nodes, expansion, selection (UCB1, Smooth UCT, regret matching, progressive
  bias) and backup.
* ``rollout``: the rollout policy of a configuration.
* ``search``: one search, the loop over those parts.
* ``result``: the root's statistics and the hint made of them (``final_weights``).
* ``bot``: the ``ismcts`` bot, its options and its model cache.

The pool of worlds (``bots.pool.WorldPool``: drawing, Bayes weighing, the iteration's world)
is shared with online outcome sampling (``bots.cfr.bots``) and the best responder
(``evaluation.best_response``), so it lives beside the package.
"""

from bots.ismcts.bot import MAX_KEPT_MODELS, IsmctsBot
from bots.ismcts.config import (
    DEPTH_GAME,
    DEPTH_SEARCH,
    FINAL_POLICIES,
    GAME_DEFAULTS,
    PRIOR_BY_GAME,
    ROLLOUT_POLICIES,
    SEARCH_CUTOFFS,
    SEARCH_PRIORS,
    TIMED_BELIEFS,
    TIMED_PRIORS,
    GameDefaults,
    SearchConfig,
    resolve_beliefs,
    resolve_prior,
    resolve_rollout,
)
from bots.ismcts.result import SIGNIFICANCE_Z, SearchResult, final_weights, hint_from_result
from bots.ismcts.search import search
from bots.ismcts.unseen import unseen_tail
from bots.pool import MIN_BELIEF_POOL, WorldPool, capacity

__all__ = [
    "DEPTH_GAME",
    "DEPTH_SEARCH",
    "FINAL_POLICIES",
    "GAME_DEFAULTS",
    "MAX_KEPT_MODELS",
    "MIN_BELIEF_POOL",
    "PRIOR_BY_GAME",
    "ROLLOUT_POLICIES",
    "SEARCH_CUTOFFS",
    "SEARCH_PRIORS",
    "SIGNIFICANCE_Z",
    "TIMED_BELIEFS",
    "TIMED_PRIORS",
    "GameDefaults",
    "IsmctsBot",
    "SearchConfig",
    "SearchResult",
    "WorldPool",
    "capacity",
    "final_weights",
    "hint_from_result",
    "resolve_beliefs",
    "resolve_prior",
    "resolve_rollout",
    "search",
    "unseen_tail",
]
