"""Game review: every decision of one seat, the move played against the bot's, in one value.

What the API (``POST /v1/games/{game}/review``), hosted matches and ``atelier review`` compute,
in the spirit of GTO Wizard's hand-history analyzer, lichess's game report and KaTrain's
points lost. For each decision of the reviewed seat:

1. **What the seat knew.** The record is reduced to the seat's information set first (a whole
   state becomes ``build_infoset(..., seat)``), and the information set before step ``k`` is
   that one cut at ``k`` (``infoset_before``): events ``0..k-1`` and the private entries
   ``at < k``. A step's narration depends only on the state before it, so this is exactly
   ``build_infoset`` of the true state at ``k``: the review never sees a hidden card of the
   record, and two records that differ only in what the seat never saw get the same review
   for the same seed (tested).
2. **The bot's move** there: ``bot.hint`` on that information set with the decision's budget.
3. **Both moves valued from the same worlds and random numbers** (common random numbers): a
   pool of worlds of the information set, drawn by the bot's ``Worlds`` sampler with the
   bot's prior for hidden commits and, for ISMCTS with beliefs, weighted by Bayes' rule with
   the bot's opponent model (``bots.beliefs``; worlds then drawn by weight). For pair ``i``,
   one world and one rollout seed: the played move and the bot's move are each applied to a
   copy of that world and played out by ``bots.rollout.play_out`` with the bot's rollout
   policy (the game's heuristic playout, with its cut-off evaluation where the game sets
   one), both from ``random.Random(seed_i)``. The paired difference ``d_i = v_best - v_played``
   then carries no noise from different worlds or different chance draws up to where the two
   lines diverge, so its spread is far smaller than two independent estimates' would be.
4. **The value** of a move is the seat's *share of first place* at the end of the rollout
   (``first_place_share``): 1 for an outright win, ``1/k`` when ``k`` seats tie for the top
   return (a draw among all: ``1/players``), 0 otherwise: a win probability, 0 to 1, the same
   in every game (Modern Art's money or points included), and what tournaments count as a
   win share. ``value_lost`` is the mean of the ``d_i``; ``stderr`` their standard deviation
   over ``sqrt(n)``; ``interval`` the 95% normal interval ``mean +- 1.96 stderr`` (at least
   ``MIN_SAMPLES`` pairs). When the bot's move is the move played the value is measured once
   and ``value_lost`` is exactly 0.
5. **Accuracy** per decision adapts lichess's formula (lichess.org/page/accuracy, fitted by
   lichess to Stockfish's win percentages): ``103.1668 * exp(-0.04354 * L) - 3.1669`` with
   ``L`` the value lost in percentage points of first-place share (``100 * max(0,
   value_lost)``), clipped to [0, 100]; the game's accuracy is the mean over the decisions.

Only decisions count: a step where the seat had a single legal move is left out (and counted
as ``forced`` in the summary).
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from bots.beliefs import log_likelihood, tempered
from bots.heuristics import knowledge_for
from bots.ismcts import IsmctsBot, resolve_beliefs, resolve_rollout
from bots.protocol import Bot, Budget, Worlds
from bots.rollout import play_out
from games.core.definition import GameDefinition, InvalidInfoset
from games.core.engine import Engine
from games.core.infoset import CANONICAL_KEYS, build_infoset, sample_engine
from games.core.seeds import derive_seed

# A decision's default budget (the bot's search there) and paired rollouts per decision.
DEFAULT_BUDGET = Budget(simulations=200, milliseconds=1000.0)
DEFAULT_SAMPLES = 100
MIN_SAMPLES = 32  # pairs always played, even past the time limit: below, no usable interval
MAX_SAMPLES = 2000
MAX_POOL = 64  # worlds drawn (and weighed) per decision; pairs draw from the pool
Z_95 = 1.959963984540054

VALUE = {
    "measures": "the seat's share of first place at the end of the game (1: an outright win, "
    "1/k: a k-way tie for the top return, 0: otherwise), expected when the game is played on "
    "from the decision by the bot's rollout policy",
    "scale": "0 to 1 (a win probability); value_lost in the same units",
}

ACCURACY_FORMULA = (
    "per decision 103.1668 * exp(-0.04354 * L) - 3.1669 clipped to [0, 100], with L = "
    "100 * max(0, value_lost) (lichess's win-percentage accuracy); the game's: the mean"
)


class InvalidRecord(ValueError):
    """A game record (a state struct) that cannot be replayed, or a seat it does not have."""


# --- what the seat knew ------------------------------------------------------------------------
def first_place_share(returns: list[float], seat: int) -> float:
    """``seat``'s share of the top return: 1/k among k tied leaders, else 0."""
    top = max(returns)
    if returns[seat] < top - 1e-9:
        return 0.0
    return 1.0 / sum(1 for r in returns if r >= top - 1e-9)


def infoset_before(infoset: dict[str, Any], step: int) -> dict[str, Any]:
    """The seat's information set just before ``step``: the record's cut at ``step``.

    Narrations depend only on the state a step is taken from, so this equals
    ``build_infoset`` of the true state before ``step`` (no view: it is derived).
    """
    cut = {k: infoset[k] for k in CANONICAL_KEYS if k not in ("events", "private")}
    cut["events"] = infoset["events"][:step]
    cut["private"] = [p for p in infoset["private"] if p["at"] < step]
    return cut


def seat_infoset_of_state(
    defn: GameDefinition, params: dict[str, Any], struct: Any, seat: Any
) -> dict[str, Any]:
    """The seat's information set of a whole-state record (``state.to_struct()``).

    Everything after this reads the information set only.
    """
    from games.core.spiel import engine_from_struct

    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < params["players"]:
        raise InvalidRecord(f"field 'seat' must be a seat 0..{params['players'] - 1}, got {seat!r}")
    try:
        engine = engine_from_struct(defn, params, struct)
    except ValueError as err:
        raise InvalidRecord(str(err)) from None
    return build_infoset(defn, params, engine, seat, with_view=False)


def plan_review(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    seed: int,
    world: Engine | None = None,
) -> dict[str, Any]:
    """The seat's decisions in its information set: the step and the move played.

    One world of the information set (``world``, else one sampled from ``seed``) is replayed
    to find them: whose turn a step was and what the seat played are part of what the seat
    knows, so every world gives the same list. Steps with a single legal move are counted as
    ``forced`` and not listed.
    """
    if world is None:
        world = sample_engine(defn, params, infoset, random.Random(plan_seed(seed)))
    seat = infoset["seat"]
    engine = defn.new_engine(params)
    decisions: list[dict[str, Any]] = []
    forced = 0
    for step, action in enumerate(list(world.history)):
        if engine.current_player() == seat:
            legal = engine.legal_actions()
            if len(legal) > 1:
                decisions.append({"step": step, "played": describe(defn, engine, seat, action)})
            else:
                forced += 1
        engine.apply(action)
    return {"decisions": decisions, "forced": forced, "steps": len(world.history)}


def plan_seed(seed: int) -> int:
    return derive_seed(seed, "plan")


def describe(defn: GameDefinition, engine: Engine, seat: int, action: int) -> dict[str, Any]:
    return {
        "id": action,
        "string": defn.action_to_string(engine, seat, action),
        "struct": defn.action_to_struct(engine, seat, action),
    }


# --- valuing two moves ---------------------------------------------------------------------------
class Rollout:
    """The bot's rollout: policy, candidates and cut-off evaluation, as its search plays."""

    def __init__(self, bot: Bot, game: str) -> None:
        knowledge = knowledge_for(game)
        if isinstance(bot, IsmctsBot):
            rollout, depth = resolve_rollout(
                bot.config["rollout"], bot.config["rollout_depth"], knowledge
            )
        else:  # bots without rollouts of their own: the game's defaults for ISMCTS
            rollout, depth = resolve_rollout("auto", -1, knowledge)
        self.policy = (
            knowledge.playout if knowledge is not None and rollout == "heuristic" else None
        )
        self.candidates = (
            knowledge.candidates if knowledge is not None and knowledge.abstracts else None
        )
        self.evaluate = knowledge.evaluate if knowledge is not None and depth >= 0 else None
        self.depth = depth
        self.label = rollout if depth < 0 else f"{rollout}, cut after {depth} decisions"

    def value(self, world: Engine, action: int, seat: int, seed: int) -> float:
        engine = world.copy()
        engine.apply(action)
        returns = play_out(
            engine, random.Random(seed), self.policy, self.candidates, self.evaluate, self.depth
        )
        return first_place_share(returns, seat)


def world_pool(
    bot: Bot, worlds: Worlds, size: int, rng: random.Random
) -> tuple[list[Engine], list[float] | None]:
    """Worlds of the information set and their cumulative weights (``None``: uniform).

    The bot's sampler draws them (with its prior for hidden commits); an ISMCTS bot with
    beliefs weighs them by the likelihood of the other seats' moves under its opponent model,
    tempered as its search tempers them (``bots.beliefs``).
    """
    if worlds.public_history:
        return [worlds.first], None
    pool = [worlds.first]
    while len(pool) < size:
        pool.append(worlds.sample(random.Random(rng.getrandbits(64))))
    if not isinstance(bot, IsmctsBot) or worlds.fresh is None:
        return pool, None
    model = bot.heuristic_model(knowledge_for(worlds.game), worlds)
    if model is None or resolve_beliefs(bot.config["beliefs"], worlds.game, None) == "uniform":
        return pool, None
    logs = [
        log_likelihood(worlds.fresh, w, worlds.seat, model.probability, bot.config["epsilon"])
        for w in pool
    ]
    weights, _ = tempered(logs, bot.config["belief_effective"] * len(logs))
    return pool, list(accumulate(weights))


def paired_values(
    bot: Bot,
    worlds: Worlds,
    played: int,
    best: int,
    samples: int,
    rng: random.Random,
    deadline: float = math.inf,
) -> tuple[list[float], list[float]]:
    """Values of ``played`` and ``best`` from the same worlds and rollout seeds, pair by pair.

    Stops after ``samples`` pairs, or at ``deadline`` (``time.perf_counter()``) once
    ``MIN_SAMPLES`` pairs are in. Each pair draws one world (by weight) and one seed; when
    the two moves are the same, the same rollout gives both values.
    """
    rollout = Rollout(bot, worlds.game)
    pool, cumulative = world_pool(bot, worlds, min(MAX_POOL, samples), rng)
    seat = worlds.seat
    v_played: list[float] = []
    v_best: list[float] = []
    for i in range(samples):
        if i >= MIN_SAMPLES and time.perf_counter() >= deadline:
            break
        if cumulative is not None:
            world = pool[
                min(bisect_right(cumulative, rng.random() * cumulative[-1]), len(pool) - 1)
            ]
        else:
            world = pool[i % len(pool)]
        seed = rng.getrandbits(64)
        value = rollout.value(world, played, seat, seed)
        v_played.append(value)
        v_best.append(value if best == played else rollout.value(world, best, seat, seed))
    return v_played, v_best


def loss_stats(v_played: list[float], v_best: list[float]) -> dict[str, Any]:
    """Mean paired difference, its standard error and 95% interval."""
    n = len(v_played)
    diffs = [b - p for b, p in zip(v_best, v_played, strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    stderr = math.sqrt(var / n)
    return {
        "value_played": round(sum(v_played) / n, 6),
        "value_best": round(sum(v_best) / n, 6),
        "value_lost": round(mean, 6),
        "stderr": round(stderr, 6),
        "interval": [round(mean - Z_95 * stderr, 6), round(mean + Z_95 * stderr, 6)],
        "samples": n,
    }


def review_decision(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    played: int,
    bot: Bot,
    budget: Budget,
    seed: int,
    samples: int = DEFAULT_SAMPLES,
) -> dict[str, Any]:
    """One decision: the bot's move for ``infoset`` and both moves' values (module doc).

    ``infoset`` is the seat's information set before the decision (``infoset_before``); the
    bot searches with ``budget``, then the paired rollouts take at most ``samples`` pairs and
    the budget's milliseconds again (at least ``MIN_SAMPLES`` pairs).
    """
    started = time.perf_counter()
    seat = infoset["seat"]
    rng = random.Random(derive_seed(seed, "worlds"))
    worlds = Worlds.from_infoset(defn, params, infoset, rng, bot.prior_for(defn.name))
    first = worlds.first
    if played not in first.legal_actions():
        raise InvalidInfoset(f"the move played ({played}) is not legal at this decision")
    hint = bot.hint(defn, params, infoset, budget, derive_seed(seed, "hint"))
    best = hint.action
    if best not in first.legal_actions():
        raise RuntimeError(f"bot {bot.name!r} chose illegal action {best}")
    started_values = time.perf_counter()
    deadline = started_values + budget.milliseconds / 1000.0 if budget.milliseconds else math.inf
    v_played, v_best = paired_values(bot, worlds, played, best, samples, rng, deadline)
    stats = loss_stats(v_played, v_best)
    if best == played:
        stats.update(value_lost=0.0, stderr=0.0, interval=[0.0, 0.0])
    done = time.perf_counter()
    # No information set in the answer: it is the record's cut at the decision's step
    # (``infoset_before``), so a review stays linear in the game's length.
    return {
        "played": describe(defn, first, seat, played),
        "best": describe(defn, first, seat, best),
        **stats,
        "bot_value": hint.value,
        "rollout": Rollout(bot, defn.name).label,
        "elapsed_ms": {
            "search": round((started_values - started) * 1000.0, 3),
            "values": round((done - started_values) * 1000.0, 3),
        },
    }


# --- the summary -------------------------------------------------------------------------------
def accuracy(value_lost: float) -> float:
    """lichess's accuracy of one move, on first-place share (module doc)."""
    loss = 100.0 * max(0.0, value_lost)
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def summarize(decisions: list[dict[str, Any]], forced: int = 0) -> dict[str, Any]:
    """Totals over the decisions; ``biggest_mistakes``: up to 3 indices with a positive loss,
    largest first."""
    n = len(decisions)
    total = sum(d["value_lost"] for d in decisions)
    ranked = sorted(
        (d for d in decisions if d["value_lost"] > 0),
        key=lambda d: (-d["value_lost"], d["index"]),
    )
    return {
        "decisions": n,
        "forced": forced,
        "total_lost": round(total, 6),
        "mean_lost": round(total / n, 6) if n else None,
        "accuracy": round(sum(accuracy(d["value_lost"]) for d in decisions) / n, 2) if n else None,
        "accuracy_formula": ACCURACY_FORMULA,
        "biggest_mistakes": [d["index"] for d in ranked[:3]],
        "best_played": sum(1 for d in decisions if d["played"]["id"] == d["best"]["id"]),
    }


def decision_seed(seed: int, step: int) -> int:
    return derive_seed(seed, "review", step)


def review_game(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    bot: Bot,
    budget: Budget = DEFAULT_BUDGET,
    seed: int = 0,
    samples: int = DEFAULT_SAMPLES,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The whole review of ``infoset``'s seat, decision after decision, in this process
    (``atelier review``; the service runs ``review_decision`` in its pool instead)."""
    plan = plan_review(defn, params, infoset, seed)
    decisions = []
    total = len(plan["decisions"])
    if progress is not None:
        progress(0, total)
    for index, item in enumerate(plan["decisions"]):
        step = item["step"]
        result = review_decision(
            defn,
            params,
            infoset_before(infoset, step),
            item["played"]["id"],
            bot,
            budget,
            decision_seed(seed, step),
            samples,
        )
        decisions.append({"index": index, "step": step, **result})
        if progress is not None:
            progress(index + 1, total)
    return assemble(defn.name, infoset["seat"], bot.spec(), budget, seed, samples, decisions, plan)


def assemble(
    game: str,
    seat: int,
    spec: dict[str, Any],
    budget: Budget,
    seed: int,
    samples: int,
    decisions: list[dict[str, Any]],
    plan: dict[str, Any],
) -> dict[str, Any]:
    """The review object (docs/api.md, "Game review")."""
    return {
        "game": game,
        "seat": seat,
        "bot": spec,
        "budget": budget.to_json(),
        "samples": samples,
        "seed": seed,
        "value": dict(VALUE),
        "decisions": decisions,
        "summary": summarize(decisions, plan.get("forced", 0)),
    }
