"""A Bayesian best responder to a *known* bot: the responder of the full-game lower bound.

``evaluation.exploitability.lower_bound`` plays a responder against the evaluated bot; any
responder gives a valid lower bound on the bot's exploitability, but a responder that does not
know the bot (ISMCTS, online CFR) plays against a generic opponent and finds little. This one
is told the bot's spec and plays an approximate best response to it: *belief-weighted Monte
Carlo best response to a known policy*. It is the idea of the local best response of V. Lisy
and M. Bowling, "Equilibrium Approximation Quality of Current No-Limit Poker Bots" (AAAI
Workshop on Computer Poker and Imperfect Information Games, 2017): at each of its decisions,
the responder keeps a Bayesian belief over the hidden state given the opponent's known policy,
and picks the action with the best value estimated against that policy. Lisy and Bowling
evaluate each action with the opponent's exact strategy and a fixed continuation (check/call
down); here the continuation is Monte Carlo rollouts (the opponent by the bot's own policy, us
by the game's heuristic), because our bots' policies are only available by asking them.

At a decision of seat ``p``:

1. **Worlds.** A pool of ``worlds`` full states consistent with ``p``'s information set, drawn
   with the same machinery as the search bots (``games.sample_engine`` through ``Worlds``),
   with hidden commits of other seats drawn uniformly (no prior).
2. **Beliefs by Bayes' rule.** A world ``h`` is weighted by the likelihood of the opponents'
   actions in it under the bot's policy::

       w(h) = prod over earlier decisions (q, I_q, a) of other seats in h of
              (1 - epsilon) * pi_bot(a | I_q) + epsilon / |A(I_q)|

   where ``I_q`` is seat ``q``'s information set in that world and ``pi_bot`` is the bot's
   ``Hint.policy`` there, asked through the bot protocol at the *model budget*
   (``model_simulations``). Chance is already weighted by the sampler (it draws hidden chance
   outcomes by their probabilities), so the posterior over the pool is proportional to
   ``w``: importance sampling with the sampler as the proposal. ``epsilon`` is a trembling
   floor: the modelled bot plays uniformly with probability ``epsilon``. A world is then never
   ruled out only because the model (asked at another seed and perhaps a smaller budget than
   the real bot) disagrees with an action the real bot took, and weights stay finite for
   deterministic bots (the heuristic), where the floor is what separates "impossible" from
   "unlikely". Factors that are the same in every world of the pool (a public decision taken
   from the same information set with the same action, or a forced move) cancel in the
   normalisation and are not asked. ``belief_depth`` optionally keeps only the most recent
   informative decisions (a cost cap for expensive bots, documented as an approximation).
3. **Planning.** Each legal action (the game's candidate actions where it abstracts large bid
   ranges, as ISMCTS does) is valued by rollouts: each round draws a world from the pool by
   its weight (importance resampling with the seeded ``rng``), applies every action to a copy
   of it and plays on with one shared rollout seed per round (common random numbers across
   the actions). In a rollout the other seats play the bot's policy (sampled from its hint at
   the model budget) for their first ``model_depth`` decisions, and everything after that,
   including our own later moves, is played by the ``continuation``: the heuristic bot's move
   (``GameKnowledge.choose``) or the game's cheaper rollout policy (``playout``); rollouts are
   cut off and scored by the game's evaluation after ``rollout_depth`` decisions (by default
   where the game's ISMCTS does so: Modern Art).
4. **Choice.** The action with the best mean return is played if it beats the *anchor* (the
   game's heuristic move, or an ISMCTS search that does not model the bot) by ``switch_z``
   standard errors of the paired differences, widened to Student's t; otherwise the anchor.
   With a few dozen rollouts the best of several means beats the rest by chance, and in the
   duplicate format every deviation from a good move re-deals the luck (in Gallery Rush
   switching at one normal standard error lost to the heuristic it was anchored to), so the
   responder deviates only on evidence: it is then at least about as good as its anchor, and
   better where the model of the bot shows a clear gain.

Bot queries are cached by ``(seat, info_key)``, which the engine contract makes equal exactly
when the information sets are; the seed of a query is derived from that key alone, so every
answer is a pure function of the information set and the cache (kept across decisions and
games, cleared when large) never changes a result. With a simulation budget a hint is a pure
function of the information set, the options and the seed. The budget counts rollouts; the
time limit, when given, also covers world sampling and the belief queries (at least one world
and one rollout per action are always done).

The beliefs are approximate where a game's sampler does not draw hidden commits exactly
uniformly (the proposal is then not what the weights assume), and the rollouts are a crude
continuation. None of this can make the lower bound invalid: the bound only needs *some*
strategy played against the real bot, and it is measured by actual play.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bots.beliefs import Beliefs, opponent_steps
from bots.beliefs import bayes_beliefs as shared_beliefs
from bots.heuristic_bot import HeuristicBot
from bots.heuristics import GameKnowledge, knowledge_for
from bots.ismcts import IsmctsBot, resolve_rollout
from bots.pool import WorldPool, capacity
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
from bots.random_bot import RandomBot
from bots.registry import make_bot
from bots.rollout import play_out
from bots.spiel_engine import SpielEngine
from games.core.definition import GameDefinition
from games.core.engine import Engine, weighted_pick
from games.core.infoset import build_infoset
from games.core.params import ParamSpec

CACHE_LIMIT = 200_000  # model answers kept before the cache is cleared (results do not change)


@dataclass(frozen=True)
class ModelAnswer:
    """The evaluated bot's policy at one information set: probabilities and its own pick."""

    probs: dict[int, float]
    action: int

    def probability(self, action: int) -> float:
        return self.probs.get(action, 0.0)


class GameContext:
    """How to rebuild a world from scratch and ask a bot about it, per kind of engine.

    Atelier engines go through the information-set JSON (``build_infoset`` then ``Bot.hint``,
    exactly as the service asks a bot); OpenSpiel's own games (Kuhn poker) through
    ``Bot.hint_for_state`` on the wrapped ``pyspiel`` state.
    """

    def __init__(
        self,
        defn: GameDefinition | None,
        params: dict[str, Any] | None,
        infoset: dict[str, Any] | None = None,
    ) -> None:
        self.defn = defn
        self.params = params
        self.infoset = infoset  # the responder's own information set, when it came as JSON

    def fresh(self, world: Engine) -> Engine:
        """The initial state of ``world``'s game (to replay a prefix of its history)."""
        if isinstance(world, SpielEngine):
            return SpielEngine(world.state.get_game().new_initial_state())
        assert self.defn is not None and self.params is not None
        return self.defn.new_engine(self.params)

    def ask(self, bot: Bot, engine: Engine, player: int, budget: Budget, seed: int) -> Hint:
        if isinstance(engine, SpielEngine):
            return bot.hint_for_state(engine.state, budget, seed)
        assert self.defn is not None and self.params is not None
        if type(bot) in DIRECT_BOTS:
            # These bots decide from ``worlds.first`` alone, reading its public parts and the
            # acting seat's own (the ``GameKnowledge`` contract), so the world itself can be
            # handed to them: the same answer as through the JSON (up to how ties are broken)
            # without building, re-sampling and validating an information set (10x cheaper).
            numbers = self.defn.numbers(self.params)
            worlds = Worlds(
                self.defn.name,
                player,
                engine.copy(),
                _no_sampling,
                numbers.min_utility,
                numbers.max_utility,
            )
            return bot.decide(worlds, budget, random.Random(seed))
        infoset = build_infoset(self.defn, self.params, engine, player, with_view=False)
        return bot.hint(self.defn, self.params, infoset, budget, seed)


def _no_sampling(rng: random.Random) -> Engine:
    raise RuntimeError("a bot asked directly on a world must not sample other worlds")


# Bots whose decision reads only ``worlds.first`` (public parts and the acting seat's own).
DIRECT_BOTS: tuple[type[Bot], ...] = (HeuristicBot, RandomBot)


class PolicyModel:
    """The evaluated bot as a policy oracle, asked at the model budget and cached.

    The seed of each query is derived from ``(seat, info_key)`` and ``seed`` only, so an
    answer depends on the information set alone and caching it is exact.
    """

    def __init__(self, bot: Bot, budget: Budget, seed: int = 0) -> None:
        self.bot = bot
        self.budget = budget
        self.seed = seed
        self.cache: dict[tuple[int, Any], ModelAnswer] = {}
        self.queries = 0  # bot calls actually made (cache misses)
        self.lookups = 0

    def query_seed(self, player: int, key: Any) -> int:
        digest = hashlib.blake2b(
            repr((self.seed, player, key)).encode(), digest_size=8, person=b"atelier-br"
        ).digest()
        return int.from_bytes(digest, "big") & 0x7FFFFFFF

    def policy(self, context: GameContext, engine: Engine, player: int) -> ModelAnswer:
        """The bot's policy for ``player`` (to move in ``engine``) at its information set."""
        key = (player, engine.info_key(player))
        self.lookups += 1
        answer = self.cache.get(key)
        if answer is not None:
            return answer
        if len(self.cache) >= CACHE_LIMIT:
            self.cache.clear()
        hint = context.ask(self.bot, engine, player, self.budget, self.query_seed(*key))
        probs: dict[int, float] = {}
        for stat in hint.policy:
            if stat.probability > 0.0:
                probs[stat.action] = probs.get(stat.action, 0.0) + float(stat.probability)
        total = sum(probs.values())
        if total <= 0.0:  # a policy without probabilities: trust the chosen action
            probs, total = {hint.action: 1.0}, 1.0
        answer = ModelAnswer({a: p / total for a, p in probs.items()}, hint.action)
        self.cache[key] = answer
        self.queries += 1
        return answer

    def sample(self, context: GameContext, engine: Engine, player: int, rng: random.Random) -> int:
        """An action drawn from the bot's policy (the rollouts' opponent model); every
        probability is positive, so a draw that rounding carries past the end gives the last."""
        answer = self.policy(context, engine, player)
        return weighted_pick(list(answer.probs.items()), rng.random())


def time_left(clock: Clock) -> bool:
    """Whether the budget's time limit (if any) still allows work; simulations not counted."""
    return time.perf_counter() < clock.deadline


def bayes_beliefs(
    context: GameContext,
    pool: list[Engine],
    seat: int,
    model: PolicyModel,
    epsilon: float,
    belief_depth: int = -1,
    clock: Clock | None = None,
) -> Beliefs:
    """Weights of ``pool`` by the likelihood of the other seats' actions under the bot's
    policy: ``bots.beliefs.bayes_beliefs`` (the one implementation, shared with ISMCTS's
    beliefs) with ``model`` as the opponent model. Steps with the same factor in every world
    are skipped, so the bot is asked only where its answer can tell worlds apart; with a
    ``clock`` whose time runs out, the pool is cut to the worlds already weighed."""

    def probability(engine: Engine, player: int, action: int) -> float:
        return model.policy(context, engine, player).probability(action)

    deadline = clock.deadline if clock is not None else None
    return shared_beliefs(context.fresh, pool, seat, probability, epsilon, belief_depth, deadline)


def rollout(
    engine: Engine,
    seat: int,
    context: GameContext,
    model: PolicyModel,
    knowledge: GameKnowledge | None,
    fast: Callable[[Engine, random.Random], int] | None,
    rng: random.Random,
    model_depth: int,
    rollout_depth: int,
) -> list[float]:
    """Plays ``engine`` to the end (or the cut-off): other seats by the bot's policy for their
    first ``model_depth`` decisions (-1: all), everything else by ``fast`` (uniform random
    when the game has no heuristic)."""
    left = math.inf if model_depth < 0 else model_depth

    def policy(engine: Engine, r: random.Random) -> int:
        nonlocal left
        player = engine.current_player()
        if player != seat and left > 0:
            left -= 1
            return model.sample(context, engine, player, r)
        if fast is not None:
            return fast(engine, r)
        legal = engine.legal_actions()
        return legal[int(r.random() * len(legal))]

    evaluate = knowledge.evaluate if knowledge is not None else None
    return play_out(engine, rng, policy, evaluate=evaluate, cutoff=rollout_depth)


class BestResponder(Bot):
    """Belief-weighted Monte Carlo best response to a known bot (see the module docstring).

    Not a service bot (it is not in ``bots.registry``): it needs the evaluated bot, which it
    models, as ``model`` (a bot spec or a ``Bot``). ``spec()`` names the model, so reports
    say which responder was used.
    """

    name = "best_response"
    description = (
        "Bayesian best responder to a known bot: worlds weighted by the bot's likelihood of "
        "the observed actions, actions valued by rollouts against the bot's policy."
    )
    options = (
        ParamSpec(
            "model_simulations",
            100,
            "simulation budget at which the evaluated bot is asked while planning",
            min=1,
            max=1_000_000,
        ),
        ParamSpec("worlds", 16, "size of the pool of sampled worlds", min=1, max=100_000),
        FloatSpec(
            "epsilon",
            0.05,
            "trembling floor: likelihood of an action is (1 - eps) * pi + eps / |legal|",
            min=0,
            max=1,
        ),
        ParamSpec(
            "model_depth",
            2,
            "decisions per other seat in a rollout played by the bot's policy (then the fast "
            "heuristic); -1: all of them",
            min=-1,
            max=1_000_000,
        ),
        ParamSpec(
            "continuation",
            "heuristic",
            "how rollouts play our own later moves and the other seats' past model_depth: "
            "'heuristic' (the heuristic bot's move) or 'playout' (the game's cheaper rollout "
            "policy, as ISMCTS uses)",
            choices=("heuristic", "playout"),
        ),
        ParamSpec(
            "rollout_depth",
            -1,
            "decisions per rollout before the game's evaluation estimates the returns; -1: the "
            "game's ISMCTS default (to the end, except Modern Art)",
            min=-1,
            max=1_000_000,
        ),
        ParamSpec(
            "anchor",
            "heuristic",
            "the move played unless the rollouts show a better one (by switch_z paired "
            "standard errors): 'heuristic' (the game's heuristic), 'ismcts' (an ISMCTS search "
            "of anchor_simulations, which does not model the bot) or 'none' (always the best "
            "rollout mean)",
            choices=("heuristic", "ismcts", "none"),
        ),
        ParamSpec(
            "anchor_simulations",
            1000,
            "simulations of the 'ismcts' anchor's search",
            min=1,
            max=1_000_000,
        ),
        FloatSpec(
            "switch_z",
            2.0,
            "standard errors of the paired difference by which an action must beat the anchor",
            min=0,
            max=100,
        ),
        ParamSpec(
            "belief_depth",
            -1,
            "most recent informative decisions of other seats weighed by Bayes' rule; -1: all",
            min=-1,
            max=1_000_000,
        ),
    )

    def __init__(self, model: Bot | dict[str, Any] | str, **options: Any) -> None:
        super().__init__(**options)
        if isinstance(model, BestResponder):
            raise InvalidBotSpec("bot 'best_response': the modelled bot cannot be a responder")
        self.model_bot = model if isinstance(model, Bot) else make_bot(model)
        self.model = PolicyModel(
            self.model_bot, Budget(simulations=self.config["model_simulations"])
        )
        self.anchor_bot = IsmctsBot() if self.config["anchor"] == "ismcts" else None

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "options": {**self.config, "bot": self.model_bot.spec()}}

    def label(self) -> str:
        """The responder in words, for lower-bound reports."""
        cfg = self.config
        anchor = cfg["anchor"]
        if anchor == "ismcts":
            anchor = f"ismcts at {cfg['anchor_simulations']} simulations"
        return (
            f"Bayesian best response to {json.dumps(self.model_bot.spec(), sort_keys=True)} "
            f"(the bot asked at {cfg['model_simulations']} simulations, {cfg['worlds']} worlds, "
            f"epsilon {cfg['epsilon']:g}, model_depth {cfg['model_depth']}, "
            f"continuation {cfg['continuation']}, anchor {anchor})"
        )

    def hint(
        self,
        defn: GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        budget: Budget,
        seed: int,
        *,
        replayed: tuple[Worlds, random.Random] | None = None,
    ) -> Hint:
        if replayed is not None:
            worlds, rng = replayed
        else:
            rng = random.Random(seed)
            worlds = Worlds.from_infoset(defn, params, infoset, rng)
        return self.respond(worlds, budget, rng, GameContext(defn, params, infoset))

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        # Reached through ``hint_for_state`` on OpenSpiel's own games; Atelier games come in
        # through ``hint``, which knows the parameters needed to rebuild worlds.
        if not isinstance(worlds.first, SpielEngine):
            raise TypeError("BestResponder needs the game's parameters: call hint(), not decide()")
        return self.respond(worlds, budget, rng, GameContext(None, None))

    def respond(
        self, worlds: Worlds, budget: Budget, rng: random.Random, context: GameContext
    ) -> Hint:
        """The best action against the modelled bot under the Bayesian beliefs."""
        cfg = self.config
        clock = Clock(budget, worlds.started)
        seat = worlds.seat
        first = worlds.first
        knowledge = knowledge_for(worlds.game)
        legal = first.legal_actions()
        if knowledge is not None and knowledge.abstracts:
            legal = knowledge.candidates(first, legal)
        if len(legal) == 1:
            return Hint(legal[0], [ActionStat(legal[0], 1.0)], stopped_by="single_action")
        _, rollout_depth = resolve_rollout("heuristic", cfg["rollout_depth"], knowledge)
        fast = None
        if knowledge is not None:
            fast = knowledge.choose if cfg["continuation"] == "heuristic" else knowledge.playout

        queries_before = self.model.queries
        pool = WorldPool(first, worlds.sample, capacity(worlds, cfg["worlds"]))
        pool.fill(rng, lambda: time_left(clock))
        beliefs = bayes_beliefs(
            context, pool.worlds, seat, self.model, cfg["epsilon"], cfg["belief_depth"], clock
        )
        belief_queries = self.model.queries - queries_before

        n = len(legal)
        samples: list[list[float]] = [[] for _ in range(n)]
        indices = range(len(beliefs.pool))
        rounds = 0
        while not rounds or (clock.iterations + n <= clock.max_iterations and time_left(clock)):
            world = beliefs.pool[rng.choices(indices, weights=beliefs.weights)[0]]
            round_seed = rng.getrandbits(64)
            for i, action in enumerate(legal):
                engine = world.copy()
                engine.apply(action)
                returns = rollout(
                    engine,
                    seat,
                    context,
                    self.model,
                    knowledge,
                    fast,
                    random.Random(round_seed),
                    cfg["model_depth"],
                    rollout_depth,
                )
                samples[i].append(returns[seat])
                clock.tick()
            rounds += 1
        means = [sum(xs) / len(xs) for xs in samples]
        top = max(range(n), key=lambda i: (means[i], -i))
        best, switched = top, None
        anchor = self.anchor_action(worlds, context, knowledge, rng.getrandbits(31))
        if anchor in legal and legal.index(anchor) != top:
            i = legal.index(anchor)
            switched = paired_better(samples[top], samples[i], cfg["switch_z"])
            best = top if switched else i
        return Hint(
            action=legal[best],
            policy=[
                ActionStat(
                    a, 1.0 if i == best else 0.0, visits=len(samples[i]), value=round(means[i], 6)
                )
                for i, a in enumerate(legal)
            ],
            value=round(means[best], 6),
            iterations=clock.iterations,
            elapsed_ms=clock.elapsed_ms(),
            stopped_by=clock.stopped_by(),
            extra={
                "worlds": len(beliefs.pool),
                "effective_worlds": round(beliefs.effective_size, 3),
                "belief_steps": beliefs.steps_weighed,
                "belief_queries": belief_queries,
                "model_queries": self.model.queries - queries_before,
                "rounds": rounds,
                "anchor": anchor,
                "switched_from_anchor": switched,
            },
        )

    def anchor_action(
        self,
        worlds: Worlds,
        context: GameContext,
        knowledge: GameKnowledge | None,
        seed: int,
    ) -> int | None:
        """The move the responder plays unless its rollouts find a clearly better one."""
        anchor = self.config["anchor"]
        if anchor == "heuristic" and knowledge is not None:
            return knowledge.choose(worlds.first, random.Random(seed))
        if self.anchor_bot is not None:
            budget = Budget(simulations=self.config["anchor_simulations"])
            if context.infoset is not None and context.defn is not None:
                # Exactly the move ISMCTS would make as a responder (through the JSON, with
                # its own opponent model for hidden commits).
                return self.anchor_bot.hint(
                    context.defn, context.params or {}, context.infoset, budget, seed
                ).action
            return self.anchor_bot.decide(worlds, budget, random.Random(seed)).action
        return None


def paired_better(xs: list[float], ys: list[float], z: float) -> bool:
    """Whether ``xs`` beats ``ys`` by more than ``z`` standard errors of the paired differences.

    The two were played on the same worlds with the same rollout seeds (common random numbers),
    so their differences are paired. ``z = 0``: any positive mean difference. Otherwise ``z`` is
    widened to Student's t with ``n - 1`` degrees of freedom (``student_t``), because with a
    handful of rollouts the standard error is itself noisy; at least 3 pairs are needed. A
    difference without variance (a deterministic bot and rollouts that agree) passes as soon
    as it is positive.
    """
    d = [x - y for x, y in zip(xs, ys, strict=True)]
    mean = sum(d) / len(d)
    if mean <= 0.0:
        return False
    if z == 0.0:
        return True
    if len(d) < 3:
        return False
    var = sum((x - mean) ** 2 for x in d) / (len(d) - 1)
    return mean > student_t(z, len(d) - 1) * math.sqrt(var / len(d))


def student_t(z: float, nu: int) -> float:
    """Student's t quantile with ``nu`` degrees of freedom at the normal quantile ``z``.

    The Cornish-Fisher expansion (Abramowitz and Stegun 26.7.5), within 1% for ``nu >= 3``
    at the usual ``z`` (3.16 against 3.18 for ``z`` = 1.96, ``nu`` = 3).
    """
    z3, z5, z7 = z**3, z**5, z**7
    return (
        z
        + (z3 + z) / (4 * nu)
        + (5 * z5 + 16 * z3 + 3 * z) / (96 * nu**2)
        + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * nu**3)
    )


def make_responder(bot_spec: Any, options: dict[str, Any] | None = None) -> BestResponder:
    """A ``BestResponder`` modelling ``bot_spec``; ``InvalidBotSpec`` names a bad option."""
    options = dict(options or {})
    if "bot" in options:
        raise InvalidBotSpec(
            "bot 'best_response': the modelled bot is the evaluated bot; do not give 'bot'"
        )
    return BestResponder(bot_spec, **options)


__all__ = [
    "Beliefs",
    "BestResponder",
    "GameContext",
    "ModelAnswer",
    "PolicyModel",
    "bayes_beliefs",
    "make_responder",
    "opponent_steps",
    "rollout",
]
