"""Beliefs over sampled worlds: Bayes weights from the likelihood of the opponents' actions.

A seat's information set is sampled into full worlds by the game's sampler
(``games.sample_engine``), which draws hidden cards and hidden commits *uniformly* among the
histories consistent with it (chance by its probabilities). What the other seats did is
evidence about what they hold: a Detective Eye declaration is usually backed by the
declarer's own cards, a sealed bid by the lot's worth to the bidder. Bayes' rule turns the
uniform pool into a posterior: a world ``h`` is weighted by the likelihood of the other
seats' actions in it under an *opponent model* ``pi``::

    w(h) = prod over earlier decisions (q, I_q, a) of other seats in h of
           (1 - epsilon) * pi(a | I_q) + epsilon / |A(I_q)|

where ``I_q`` is seat ``q``'s information set *in that world* (its cards there, which are a
guess of ours). Importance sampling with the sampler as the proposal: the posterior over the
pool is proportional to ``w``, and worlds are then drawn from the pool by their weights
(sampling-importance-resampling, D. B. Rubin, "Using the SIR algorithm to simulate posterior
distributions", Bayesian Statistics 3, 1988). ``epsilon`` is a trembling floor: the modelled
player errs uniformly with that probability, so no world is ruled out only because the model
disagrees with a move a real player made, and weights stay finite for deterministic models.

Two models use this one implementation: the game's heuristic softened by the floor
(``HeuristicModel``, what ISMCTS uses by default: cheap, no search inside the search), and a
bot's own answers (``evaluation.best_response.PolicyModel``, what the best responder uses to
model the bot it evaluates). Both read, in a world, only what the modelled seat knows there,
and the worlds come from the acting seat's information-set JSON, so nothing here reads the
true state.

Factors that are the same in every world of the pool (a public decision taken from the same
information set with the same action, or a forced move) cancel in the normalisation and are
skipped. ``belief_depth`` optionally keeps only the most recent informative decisions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bots import search_clock
from bots.heuristics import GameKnowledge
from games.core.engine import Engine

# ``probability(engine, player, action)``: the model's pi(action | player's information set
# in ``engine``), before the trembling floor.
Probability = Callable[[Engine, int, int], float]

CACHE_LIMIT = 100_000  # model answers kept before a cache is cleared (results do not change)


@dataclass
class Beliefs:
    """The pool of worlds and their normalised Bayes weights, with what it cost."""

    pool: list[Engine]
    weights: list[float]
    log_likelihoods: list[float]
    steps_weighed: int  # decisions of other seats whose likelihood differs between worlds
    steps_skipped: int  # other seats' decisions with the same factor in every world

    @property
    def effective_size(self) -> float:
        """Kish's effective sample size of the weights: 1 (one world counts) to len(pool)."""
        return effective_size(self.weights)


def opponent_steps(
    fresh: Callable[[Engine], Engine], world: Engine, seat: int
) -> list[tuple[int, int, Any, int]]:
    """``(step, player, info_key, action)`` for every decision of another seat in ``world``.

    ``fresh(world)`` is the initial state of ``world``'s game, from which its history is
    replayed.
    """
    engine = fresh(world)
    out = []
    for step, action in enumerate(list(world.history)):
        player = engine.current_player()
        if player >= 0 and player != seat:
            out.append((step, player, engine.info_key(player), action))
        engine.apply(action)
    return out


def bayes_beliefs(
    fresh: Callable[[Engine], Engine],
    pool: list[Engine],
    seat: int,
    probability: Probability,
    epsilon: float,
    belief_depth: int = -1,
    deadline: float | None = None,
) -> Beliefs:
    """Weights of ``pool`` by the likelihood of the other seats' actions under the model.

    Every world is a full history consistent with ``seat``'s information set; the weight of a
    world is the product over the other seats' decisions of ``(1 - epsilon) * pi(a | I) +
    epsilon / |A(I)|`` (module docstring), normalised over the pool. A step whose
    ``(player, info_key, action)`` is the same in every world, or that had a single legal
    action, contributes the same factor to every world and is skipped. ``belief_depth`` >= 0
    keeps only that many of the most recent remaining steps. Past ``deadline`` (a
    ``search_clock.now()`` value) the pool is cut to the worlds already weighed (at least
    one).
    """
    steps = [opponent_steps(fresh, world, seat) for world in pool]
    by_step: dict[int, set[tuple[int, Any, int]]] = {}
    counts: dict[int, int] = {}
    for world_steps in steps:
        for step, player, key, action in world_steps:
            by_step.setdefault(step, set()).add((player, key, action))
            counts[step] = counts.get(step, 0) + 1
    informative = sorted(
        step for step, seen in by_step.items() if len(seen) > 1 or counts[step] < len(pool)
    )
    skipped = len(by_step) - len(informative)
    if belief_depth >= 0:
        informative = informative[-belief_depth:] if belief_depth else []
    wanted = set(informative)

    logs: list[float] = []
    for index, world in enumerate(pool):
        if index and deadline is not None and search_clock.now() >= deadline:
            break
        engine = fresh(world)
        total = 0.0
        for step, action in enumerate(list(world.history)):
            if step in wanted:
                player = engine.current_player()
                # The step may be chance or our own move in this world and another seat's in
                # others: only other seats' decisions with a choice have a factor here.
                legal = engine.legal_actions() if player >= 0 and player != seat else ()
                if len(legal) > 1:
                    total += log_factor(probability(engine, player, action), epsilon, len(legal))
            engine.apply(action)
        logs.append(total)
    return Beliefs(pool[: len(logs)], normalise(logs), logs, len(wanted), skipped)


def log_factor(pi: float, epsilon: float, legal: int) -> float:
    """``log((1 - epsilon) * pi + epsilon / legal)``: one decision's trembling likelihood."""
    p = (1.0 - epsilon) * pi + epsilon / legal
    return math.log(p) if p > 0.0 else -math.inf


def normalise(logs: list[float]) -> list[float]:
    """Weights proportional to ``exp(logs)``; uniform when every world is impossible (which
    only a floor of 0 allows)."""
    top = max(logs)
    raw = [1.0] * len(logs) if top == -math.inf else [math.exp(x - top) for x in logs]
    norm = sum(raw)
    return [r / norm for r in raw]


def tempered(logs: list[float], min_effective: float) -> tuple[list[float], float]:
    """Weights ``exp(beta * logs)`` normalised, with the largest ``beta`` in [0, 1] whose
    effective sample size is at least ``min_effective`` worlds, and that ``beta``.

    With dozens of opponent decisions in a history the plain Bayes weights of a small uniform
    pool collapse onto one or two worlds (the proposal is far from the posterior), and a
    search on one world is as overconfident as a perfect-information one. Adaptive tempering,
    as in sequential Monte Carlo samplers (P. Del Moral, A. Doucet and A. Jasra, "An adaptive
    sequential Monte Carlo method for approximate Bayesian computation", Statistics and
    Computing 22, 2012), flattens the likelihood just enough to keep ``min_effective``
    worlds; ``beta`` = 1 is Bayes' rule itself. Found by bisection (20 halvings).
    """
    finite = [x for x in logs if x > -math.inf]
    if not finite:
        return normalise(logs), 1.0
    floor = min(finite)
    logs = [x if x > -math.inf else floor - 1e6 for x in logs]
    weights = normalise(logs)
    if effective_size(weights) >= min_effective:
        return weights, 1.0
    low, high = 0.0, 1.0
    for _ in range(20):
        mid = (low + high) / 2
        if effective_size(normalise([mid * x for x in logs])) >= min_effective:
            low = mid
        else:
            high = mid
    return normalise([low * x for x in logs]), low


def effective_size(weights: list[float]) -> float:
    """Kish's effective sample size of normalised weights."""
    square = sum(w * w for w in weights)
    return 1.0 / square if square > 0 else 0.0


def log_likelihood(
    fresh: Callable[[Engine], Engine],
    world: Engine,
    seat: int,
    probability: Probability,
    epsilon: float,
) -> float:
    """The log weight of one world, in a single replay of its history.

    The same product as ``bayes_beliefs`` over *every* decision of another seat with a choice:
    the factors it skips are equal in every world and cancel in ``normalise``, and with a
    cached model (``HeuristicModel``) they cost one lookup. For cheap models this one pass per
    world is faster than finding the informative steps first.
    """
    engine = fresh(world)
    total = 0.0
    for action in list(world.history):
        player = engine.current_player()
        if player >= 0 and player != seat:
            legal = engine.player_actions()
            if len(legal) > 1:
                total += log_factor(probability(engine, player, action), epsilon, len(legal))
        engine.apply(action)
    return total


class HeuristicModel:
    """The game's heuristic as a policy: its best-rated actions share the probability.

    ``GameKnowledge.rate`` reads only the acting seat's own parts and the public ones, so in
    a sampled world it answers what that seat would do *if it held the world's cards*. The
    heuristic is deterministic up to ties; the floor of ``bayes_beliefs`` softens it. Answers
    are cached by ``(player, info_key)``, which the engine contract makes equal exactly when
    the information sets are, so the cache never changes a result.
    """

    def __init__(self, knowledge: GameKnowledge) -> None:
        self.knowledge = knowledge
        self.cache: dict[tuple[int, Any], frozenset[int]] = {}

    def best(self, engine: Engine, player: int) -> frozenset[int]:
        key = (player, engine.info_key(player))
        got = self.cache.get(key)
        if got is None:
            if len(self.cache) >= CACHE_LIMIT:
                self.cache.clear()
            got = self.knowledge.best_rated(engine)
            self.cache[key] = got
        return got

    def probability(self, engine: Engine, player: int, action: int) -> float:
        best = self.best(engine, player)
        return 1.0 / len(best) if action in best else 0.0

    def choose(self, engine: Engine, rng: random.Random) -> int:
        """The mover's move under the model: one of its best-rated actions, ties by ``rng``
        (the ``heuristic`` bot's choice, from the cache)."""
        best = self.best(engine, engine.current_player())
        if len(best) == 1:
            return next(iter(best))
        ordered = sorted(best)
        return ordered[int(rng.random() * len(ordered))]


def has_rating(knowledge: GameKnowledge | None) -> bool:
    """Whether the game's knowledge rates actions (so it can serve as an opponent model)."""
    return knowledge is not None and type(knowledge).rate is not GameKnowledge.rate
