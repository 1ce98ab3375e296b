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
2. **One analysis** there (``bots.analysis.analyse`` with the move played included): the
   bot's own search (the default ``ismcts`` search for bots without one; the decision's
   ``analysed_by``), then paired rounds that play the search's move and the move played from
   the same world and rollout seed (common random numbers), ``samples`` rounds (fewer once
   the loss is decided), each a bare rollout of the search's rollout policy right after the
   move (``analysis.ROLLOUT_ROUNDS``; why: ``bots.analysis``, "The review's rounds"), or in
   Modern Art a simulation through the search's tree below it (``REVIEW_ROUNDS``).
3. **The best move** is the analysis's ``best``: the search's own move unless another candidate
   beats it by more than noise. ``value_lost`` is the paired mean of ``best - played`` over the
   rounds, clipped at 0 (never negative); ``interval`` its 95% normal interval (not clipped)
   and ``stderr`` its standard error; ``no_loss`` when the interval reaches 0. A decision is
   *flagged* when ``interval[0] > 0``: the played move is worse than the best beyond noise;
   ``class`` is then ``inaccuracy``, ``mistake`` (loss >= 0.10) or ``blunder`` (>= 0.20).
   When the played move is the best, ``value_lost`` is exactly 0.
   **A flag is confirmed** (``confirm_loss``): where those rounds (the *screen*) put the
   interval above 0, a second estimate independent of them values the two moves again, a
   search of its own with another seed and up to ``CONFIRM_FACTOR * samples`` paired rounds
   through its tree (``CONFIRM_ROUNDS``), and the decision reports that estimate (``value_lost``,
   ``interval``, ``samples``, ``rollout``; the screen's in ``screen``, ``confirmed`` whether
   its interval lies above 0 too). Why: one estimate that both flags and reports is biased
   upward by the flagging (the winner's curse), and the screen's bare rollouts judge a move
   by the rollout policy's play right after it, which in Finger Auction ranks bids the search
   finds level 0.03 to 0.37 apart (``CONFIRM_ROUNDS``). It runs on flagged decisions only.
4. **The value** of a move is the seat's *share of first place* (``first_place_share``): 1 for
   an outright win, ``1/k`` when ``k`` seats tie for the top return, 0 otherwise: a win
   probability, 0 to 1, the same in every game, and what tournaments count as a win share.
5. **Accuracy** per decision adapts lichess's formula (lichess.org/page/accuracy, fitted by
   lichess to Stockfish's win percentages): ``103.1668 * exp(-0.04354 * L) - 3.1669`` with
   ``L`` the value lost in percentage points of first-place share (``100 * max(0,
   value_lost)``), clipped to [0, 100]; the game's accuracy is the mean over the decisions.

Only decisions count: a step where the seat had a single legal move is left out (and counted
as ``forced`` in the summary).

6. **Luck** (``summary["luck"]``): the seat's result split by AIVAT into what chance dealt it
   and what its decisions cost (``bots.luck.review_luck`` on the seat's information set, seeded
   ``luck_seed(seed)``), with per-term standard errors and a ``sentence``; computed once per
   review, after the decisions (``summary_luck``: the one rule of the CLI and the service).
   ``None`` with ``luck_skipped`` saying why when the record has not ended, the review did not
   finish, or the split was not computed (off, or over the service's ``review_luck_ms``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from bots import search_clock
from bots.analysis import (
    ROLLOUT_ROUNDS,
    TREE_ROUNDS,
    PairedLoss,
    analyse_with_world,
    paired_loss,
)
from bots.ismcts.result import Z_95
from bots.ismcts.tree import first_place_share  # noqa: F401  (the value; long defined here)
from bots.protocol import Bot, Budget
from games.core.definition import GameDefinition
from games.core.engine import Engine
from games.core.infoset import CANONICAL_KEYS, build_infoset, sample_engine
from games.core.seeds import derive_seed

# A decision's default budget (the search there) and its paired rounds (``samples``
# simulations per kept move, the rollouts of the paired evaluator this replaced).
DEFAULT_BUDGET = Budget(simulations=200, milliseconds=1000.0)
DEFAULT_SAMPLES = 100
MIN_SAMPLES = 32  # the least ``samples`` a request may ask for
MAX_SAMPLES = 2000
MAX_POOL = 64  # worlds a decision's search draws (and weighs) at most: its belief pool
# How a decision's paired rounds value the two moves (``analysis.ROUND_KINDS``): bare rollouts
# of the search's rollout, except in Modern Art, whose rollouts stop after 40 decisions and
# score the evaluation's leader there: by them the review flagged 7 of 104 decisions of records
# where the seat played the search's own hint (it should flag at most 5%), through the search's
# tree 3 of 109, with 9 of the 10 scripted blunders flagged either way (docs/evaluation.md).
REVIEW_ROUNDS = {"modern_art": TREE_ROUNDS}
# How a flag is confirmed (``confirm_loss``): paired rounds through the tree of a search of its
# own. The screen's bare rollouts judge a move by the rollout policy's play right after it; in
# Finger Auction that policy's answers to a bid put moves the search finds level 0.03 to 0.37
# apart, consistently (2,000 rounds), so bare rounds alone flagged 11 of 119 decisions of
# records where the seat played the search's own hint; a second estimate through a search's
# tree confirms 3 of them, each one that 4,000-simulation searches put behind too (0.03-0.20).
# ``CONFIRM_FACTOR`` times the screen's ``samples``: the tree's rounds must find the loss again on
# their own, and below the played move's thin subtree they find less of it (its first tries
# answer it weakly); with ``samples`` rounds, 6 to 9 of Gallery Rush's and Modern Art's 10
# blunders stayed flagged over review seeds 0-2, with twice as many 8 to 9 (three times: no
# better), docs/evaluation.md.
CONFIRM_ROUNDS = TREE_ROUNDS
CONFIRM_FACTOR = 2

VALUE = {
    "measures": "the seat's share of first place at the end of the game (1: an outright win, "
    "1/k: a k-way tie for the top return, 0: otherwise), expected under the search's "
    "analysis of the decision (bots.analysis): its worlds and beliefs, and its rollout "
    "played out from each move (in Modern Art: through its tree)",
    "scale": "0 to 1 (a win probability); value_lost in the same units",
}

ACCURACY_FORMULA = (
    "per decision 103.1668 * exp(-0.04354 * L) - 3.1669 clipped to [0, 100], with L = "
    "100 * max(0, value_lost) (lichess's win-percentage accuracy); the game's: the mean"
)


class InvalidRecord(ValueError):
    """A game record (a state struct) that cannot be replayed, or a seat it does not have."""


# --- what the seat knew ------------------------------------------------------------------------
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


# --- one analysis per decision -----------------------------------------------------------------
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
    """One decision: one analysis (``bots.analysis.analyse``) of ``infoset`` with the move
    played included, and the played move's loss against the analysis's best (module doc).

    ``infoset`` is the seat's information set before the decision (``infoset_before``); the
    search runs with ``budget``, then the paired rounds play ``samples`` bare rollouts per kept
    move (the search's and the played one: the rollouts the paired evaluator it replaced
    played, so a review costs no more; issue 38, target 4) within the budget's milliseconds
    again (at least ``analysis.MIN_ROUNDS`` rounds), fewer once the loss is decided. A
    decision is *flagged* when ``interval[0] > 0``: the played move is worse than the best by
    more than noise (``no_loss`` false).
    """
    started = search_clock.now()
    seat = infoset["seat"]
    analysis, first = analyse_with_world(
        defn,
        params,
        infoset,
        bot,
        budget,
        derive_seed(seed, "analysis"),
        include=(played,),
        top=0,
        per_kept=samples,
        rounds=REVIEW_ROUNDS.get(defn.name, ROLLOUT_ROUNDS),
    )
    mine = analysis.move(played)
    best = analysis.move(analysis.best)
    assert mine is not None and best is not None  # ``include`` and ``best`` are analysed
    verdict = PairedLoss(
        best.value, mine.value, mine.loss, mine.loss_interval, mine.samples, analysis.rollout
    )
    screen = None
    if verdict.interval[0] > 0.0:  # flagged by the screen: a second estimate must agree
        screen, verdict = (
            verdict,
            confirm_loss(
                defn, params, infoset, played, analysis.best, bot, budget, seed, samples, started
            ),
        )
    lo, hi = verdict.interval
    no_loss = lo <= 0.0
    done = search_clock.now()
    # No information set in the answer: it is the record's cut at the decision's step
    # (``infoset_before``), so a review stays linear in the game's length.
    return {
        "played": describe(defn, first, seat, played),
        "best": describe(defn, first, seat, analysis.best),
        "value_played": verdict.value,
        "value_best": verdict.best_value,
        "value_lost": verdict.loss,
        "stderr": round((hi - lo) / (2 * Z_95), 6),
        "interval": [lo, hi],
        "no_loss": no_loss,
        "class": mistake_class(verdict.loss, no_loss),
        "samples": verdict.samples,
        "confirmed": None if screen is None else not no_loss,
        "screen": None
        if screen is None
        else {
            "value_lost": screen.loss,
            "interval": list(screen.interval),
            "samples": screen.samples,
            "rollout": screen.rollout,
        },
        "bot_value": analysis.value,
        "analysed_by": analysis.bot,
        "candidates": [
            {
                "id": m.action,
                "value": m.value,
                "loss": m.loss,
                "loss_interval": list(m.loss_interval),
                "within_noise": m.within_noise,
                "samples": m.samples,
            }
            for m in analysis.moves
        ],
        "rollout": verdict.rollout,
        "elapsed_ms": {
            "search": analysis.search_ms,
            "values": round((done - started) * 1000.0 - (analysis.search_ms or 0.0), 3),
        },
    }


def confirm_loss(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    played: int,
    best: int,
    bot: Bot,
    budget: Budget,
    seed: int,
    samples: int,
    started: float,
) -> PairedLoss:
    """The confirmation of a flag (module doc, step 3): ``played``'s loss against ``best``
    estimated again, independently of the screen that flagged it: a search of its own with
    another seed (``confirm_seed``), then ``CONFIRM_FACTOR * samples`` paired rounds of the two
    moves through that search's tree (``CONFIRM_ROUNDS``), fewer once the loss is decided.

    Within the decision's time: with a budget in milliseconds, the decision (``started``, in
    ``search_clock.now()`` seconds) keeps to twice them, as the service's pool deadline expects; the
    confirmation's search gets half of what is left (at least 1 ms) and its rounds the rest,
    ``analysis.MIN_ROUNDS`` at least."""
    if budget.milliseconds is None:
        search_budget, deadline = budget, math.inf
    else:
        deadline = started + 2.0 * budget.milliseconds / 1000.0
        left_ms = (deadline - search_clock.now()) * 1000.0
        search_budget = Budget(budget.simulations, max(1.0, left_ms / 2.0))
    return paired_loss(
        defn,
        params,
        infoset,
        bot,
        search_budget,
        confirm_seed(seed),
        best,
        played,
        CONFIRM_FACTOR * samples,
        CONFIRM_ROUNDS,
        deadline,
    )


def confirm_seed(seed: int) -> int:
    """The confirmation's seed: its own stream, never the analysis's (nor the hint's)."""
    return derive_seed(seed, "confirm")


# --- the summary -------------------------------------------------------------------------------
# Mistake classes by the value lost (first-place share), for flagged decisions only (interval
# above 0), in the spirit of lichess's inaccuracy / mistake / blunder (there: win-percentage
# drops of 10, 20 and 30 points; here a flag already needs the loss beyond noise).
CLASSES = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.0))


def mistake_class(loss: float, within_noise: bool) -> str:
    """``no_loss`` when the played move is within noise of the best, else the worst class whose
    threshold the loss reaches (``CLASSES``)."""
    if within_noise:
        return "no_loss"
    return next(name for name, at in CLASSES if loss >= at)


def accuracy(value_lost: float) -> float:
    """lichess's accuracy of one move, on first-place share (module doc)."""
    loss = 100.0 * max(0.0, value_lost)
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def summarize(decisions: list[dict[str, Any]], forced: int = 0) -> dict[str, Any]:
    """Totals over the decisions: ``total_lost`` is the sum of their ``value_lost`` (each at
    least 0); ``biggest_mistakes``: up to 3 indices with a positive loss, largest first;
    ``flagged``: decisions whose loss interval lies above 0; ``classes``: the count of each."""
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
        "flagged": sum(1 for d in decisions if not d.get("no_loss", True)),
        "classes": {
            name: sum(1 for d in decisions if d.get("class") == name)
            for name in ("no_loss", *(c for c, _ in CLASSES))
        },
    }


def decision_seed(seed: int, step: int) -> int:
    return derive_seed(seed, "review", step)


# --- luck: what chance dealt the seat, what its decisions cost ----------------------------------
LUCK_UNFINISHED = "the record does not reach the end of the game: no result to split"
LUCK_PARTIAL = "the review did not finish: the split is computed after its last decision"
LUCK_NOT_ASKED = "not asked for"


def luck_seed(seed: int) -> int:
    """The luck split's seed, derived from the review's (its own stream: the decisions'
    seeds are untouched, so adding the split changed no decision)."""
    return derive_seed(seed, "luck")


def summary_luck(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    seed: int,
    config: dict[str, Any] | None = None,
) -> tuple[dict[str, Any] | None, str | None]:
    """The summary's ``luck`` and, when it is ``None``, the reason (``luck_skipped``).

    ``bots.luck.review_luck`` of the seat's information set with ``luck_seed(seed)``;
    ``config`` overrides its value estimate (``bots.luck.SPLIT_VALUE``: tests use fewer
    rollouts). Run once per review: by ``review_game`` here and by the service's
    ``review_luck`` task, so both give the same split for the same seed.
    """
    from bots.luck import review_luck

    split = review_luck(defn, params, infoset, luck_seed(seed), config)
    return (split, None) if split is not None else (None, LUCK_UNFINISHED)


def review_game(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    bot: Bot,
    budget: Budget = DEFAULT_BUDGET,
    seed: int = 0,
    samples: int = DEFAULT_SAMPLES,
    progress: Callable[[int, int], None] | None = None,
    luck: bool = True,
    luck_value: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole review of ``infoset``'s seat, decision after decision, in this process
    (``atelier review``; the service runs ``review_decision`` in its pool instead).

    The entry point of reviews and of the review benchmarks. Each decision carries
    ``value_lost`` (>= 0, first-place share), its paired 95% ``interval`` and ``no_loss``; a
    decision is **flagged** (a real mistake) when ``interval[0] > 0`` (``no_loss`` false), and
    ``summary["flagged"]`` counts them; ``summary["total_lost"]`` is the sum of the decisions'
    ``value_lost``. ``summary["luck"]`` is the luck split (``summary_luck``, after the
    decisions; ``luck=False`` skips it, ``luck_value`` overrides its value estimate)."""
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
    split, skipped = (
        summary_luck(defn, params, infoset, seed, luck_value) if luck else (None, LUCK_NOT_ASKED)
    )
    return assemble(
        defn.name,
        infoset["seat"],
        bot.spec(),
        budget,
        seed,
        samples,
        decisions,
        plan,
        luck=split,
        luck_skipped=skipped,
    )


def assemble(
    game: str,
    seat: int,
    spec: dict[str, Any],
    budget: Budget,
    seed: int,
    samples: int,
    decisions: list[dict[str, Any]],
    plan: dict[str, Any],
    luck: dict[str, Any] | None = None,
    luck_skipped: str | None = None,
) -> dict[str, Any]:
    """The review object (docs/api.md, "Game review").

    ``luck`` is the split of ``summary_luck`` (computed by the caller: in this process, or in
    the service's pool); when it is ``None`` the summary says why in ``luck_skipped``.
    """
    summary = summarize(decisions, plan.get("forced", 0))
    summary["luck"] = luck
    if luck is None:
        summary["luck_skipped"] = luck_skipped or LUCK_NOT_ASKED
    return {
        "game": game,
        "seat": seat,
        "bot": spec,
        "budget": budget.to_json(),
        "samples": samples,
        "seed": seed,
        "value": dict(VALUE),
        "decisions": decisions,
        "summary": summary,
    }
