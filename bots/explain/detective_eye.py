"""Detective Eye's explained hint: how likely each declaration is, under the bot's beliefs.

The other seats' face-down cards are hidden, so the chance that the table holds a declared
quantity is an estimate: ``WORLDS`` worlds sampled from the seat's information set
(``Worlds.sample``, as the bots draw them: our own cards exact, the rest drawn consistently
with everything we saw, the cards we passed included), weighted as the ISMCTS bot weights its
worlds (Bayes' rule with the heuristic's likelihood of the other seats' declarations and
raises, a trembling floor, tempered to keep a share of the pool: ``bots.beliefs``), or
uniformly when the bot's beliefs are uniform. Per world, a declaration "painter x quantity"
holds when the face-down cards not yet flipped show at least that many of the painter (the
found ones count in a challenge); the chance is the weighted share of worlds where it holds,
which is what a challenger who flips the right cards achieves. For a declaration the hint
suggests, and for a challenge in progress, the heuristic's flip plan
(``bots.heuristics.detective_eye.plan``) is also scored in every world. The stakes (misses,
forgeries, what a success discards) are public and exact.
"""

from __future__ import annotations

import random
from typing import Any

from bots.beliefs import HeuristicModel, effective_size, log_likelihood, tempered
from bots.heuristics import knowledge_for
from bots.heuristics.detective_eye import Beliefs, plan
from bots.ismcts import resolve_beliefs
from games.core.explain import estimate, figure, percent
from games.detective_eye.engine import (
    BID,
    DEAL,
    DRAFT,
    FLIP,
    MISSES_PER_FORGERY,
    TURN,
    DetectiveEyeEngine,
)
from games.seats import seat_words

WORLDS = 16  # sampled worlds for a hint of 500 ms (more for longer ones: Context.samples)
EPSILON = 0.2  # the ISMCTS bot's defaults for the trembling floor and the tempering
MIN_EFFECTIVE = 0.25


def belief_worlds(ctx: Any) -> tuple[list[DetectiveEyeEngine], list[float], str]:
    """``WORLDS`` worlds of the information set, their weights, and how they were weighed."""
    rng = ctx.rng()
    sample = ctx.sampler()
    pool = [sample(random.Random(rng.getrandbits(64))) for _ in range(ctx.samples(WORLDS))]
    options = ctx.bot.get("options") or {}
    if resolve_beliefs(options.get("beliefs", "auto"), "detective_eye", None) == "uniform":
        return pool, [1.0 / len(pool)] * len(pool), "uniform worlds of the information set"
    epsilon = float(options.get("epsilon", EPSILON))
    share = float(options.get("belief_effective", MIN_EFFECTIVE))
    model = HeuristicModel(knowledge_for("detective_eye")).probability  # type: ignore[arg-type]
    params = ctx.params

    def fresh(_world: DetectiveEyeEngine) -> DetectiveEyeEngine:
        return ctx.defn.new_engine(params)

    logs = [log_likelihood(fresh, w, ctx.seat, model, epsilon) for w in pool]
    weights, _ = tempered(logs, share * len(pool))
    return (
        pool,
        weights,
        "worlds of the information set weighted by the heuristic's likelihood of the other "
        "seats' moves (bots.beliefs, as the ismcts bot)",
    )


def face_down_counts(world: DetectiveEyeEngine) -> list[int]:
    """Per painter, the face-down cards on the table not flipped yet, in this world."""
    out = [0] * world.painters
    for owner, row in enumerate(world.rows):
        mask = world.flipped[owner]
        for pos, card in enumerate(row):
            if not mask >> pos & 1:
                out[card] += 1
    return out


def holds(
    worlds: list[DetectiveEyeEngine], weights: list[float], painter: int, needed: int
) -> float:
    """The weighted share of worlds whose unflipped cards show ``needed`` of ``painter``."""
    return sum(
        w
        for world, w in zip(worlds, weights, strict=True)
        if face_down_counts(world)[painter] >= needed
    )


def plan_success(
    engine: DetectiveEyeEngine,
    seat: int,
    worlds: list[DetectiveEyeEngine],
    weights: list[float],
    painter: int,
    needed: int,
) -> tuple[float, list[int]]:
    """The chance the heuristic's flip plan finds ``needed`` more of ``painter`` (read from
    ``engine``'s public and own parts), scored in every world; and the plan's flips."""
    _, flips = plan(Beliefs(engine, seat), painter, needed, engine.challenge_owners)
    flips_of = engine.rules.flips
    ok = 0.0
    if len(flips) < needed:  # not enough face-down cards could be the painter: no plan
        return ok, flips
    for world, w in zip(worlds, weights, strict=True):
        if all(world.rows[o][p] == painter for o, p in (flips_of[a] for a in flips[:needed])):
            ok += w
    return ok, flips


def stakes(engine: DetectiveEyeEngine, seat: int) -> dict[str, Any]:
    return {
        "misses": engine.misses[seat],
        "misses_per_forgery": MISSES_PER_FORGERY,
        "a_miss_brings_a_forgery": engine.misses[seat] + 1 >= MISSES_PER_FORGERY,
        "forgeries_held": engine.held[seat],
        "forgery_supply": engine.forgeries,
        # Before the draft ends only the hand exists (``owned``, hand plus row, is set then).
        "cards_held": sum(
            engine.hands[seat] if engine.phase in (DEAL, DRAFT) else engine.owned[seat]
        ),
        "misses_by_seat": list(engine.misses),
        "forgeries_by_seat": list(engine.held),
    }


def explain(ctx: Any) -> dict[str, Any]:
    engine: DetectiveEyeEngine = ctx.engine
    seat = ctx.seat
    names = engine.names
    s = stakes(engine, seat)
    figures: dict[str, Any] = {
        "stakes": figure(
            s,
            "your misses (two make a forgery), forgeries held (a success returns them before "
            "it discards cards), the supply (the game ends when it is empty) and your cards",
        )
    }
    text = [
        f"You hold {s['cards_held']} cards and {s['forgeries_held']} "
        f"forger{'ies' if s['forgeries_held'] != 1 else 'y'}, with "
        f"{s['misses']} miss{'es' if s['misses'] != 1 else ''}"
        + ("; one more miss brings a forgery." if s["a_miss_brings_a_forgery"] else ".")
    ]
    if engine.phase not in (TURN, BID, FLIP):
        return {"figures": figures, "text": text}
    worlds, weights, method = belief_worlds(ctx)
    ess = round(effective_size(weights), 2)
    label_extra = {"effective_worlds": ess}
    table = sum(face_down_counts(engine))
    if engine.phase == FLIP:
        painter, quantity = engine.bid_painter, engine.bid_quantity
        needed = quantity - engine.found
        p = holds(worlds, weights, painter, needed)
        ok, flips = plan_success(engine, seat, worlds, weights, painter, needed)
        figures["challenge"] = estimate(
            {
                "painter": names[painter],
                "quantity": quantity,
                "found": engine.found,
                "needed": needed,
                "table_holds": round(p, 4),
                "plan_succeeds": round(ok, 4),
                "plan": [ctx.defn.action_to_string(engine, seat, a) for a in flips[:needed]],
            },
            "your challenge: the chance the unflipped cards hold the rest, and that the "
            "heuristic's flip plan finds it",
            len(worlds),
            method,
            **label_extra,
        )
        text.append(
            f"{needed} more {names[painter]} needed: the table holds them in about "
            f"{percent(p)} of the worlds you believe in; flipping by the plan succeeds in "
            f"{percent(ok)}."
        )
        return {"figures": figures, "text": text}
    current = None
    low = 1
    if engine.phase == BID and engine.bid_painter >= 0:
        painter, quantity = engine.bid_painter, engine.bid_quantity
        current = {
            "painter": names[painter],
            "quantity": quantity,
            "bidder": engine.bidder,
            "table_holds": round(holds(worlds, weights, painter, quantity), 4),
        }
        low = quantity + 1
    options = {
        names[c]: {str(q): round(holds(worlds, weights, c, q), 4) for q in range(low, table + 1)}
        for c in range(engine.painters)
    }
    value: dict[str, Any] = {"face_down": table, "declarations": options}
    if current is not None:
        value["current"] = current
    suggested = ctx.hint.get("action", {}).get("id")
    if suggested is not None and engine.bid_base <= suggested < engine.flip_base:
        painter, quantity = engine.rules.ids.bid_of(suggested)
        ok, flips = plan_success(engine, seat, worlds, weights, painter, quantity)
        value["suggested"] = {
            "painter": names[painter],
            "quantity": quantity,
            "table_holds": round(holds(worlds, weights, painter, quantity), 4),
            "plan_succeeds_if_you_challenge": round(ok, 4),
        }
    figures["declarations"] = estimate(
        value,
        "for each painter and quantity you may declare (or raise to), the chance the "
        "face-down cards hold at least that many",
        len(worlds),
        method,
        **label_extra,
    )
    if current is not None:
        text.append(
            f"{seat_words(current['bidder'], capital=True)}'s standing bid, {current['quantity']} "
            f"{current['painter']}, holds in about "
            f"{percent(current['table_holds'])} of {len(worlds)} sampled worlds."
        )
    if "suggested" in value:
        sug = value["suggested"]
        text.append(
            f"The suggested {sug['quantity']} {sug['painter']} holds in about "
            f"{percent(sug['table_holds'])}; if you end up challenging, the flip plan succeeds "
            f"in about {percent(sug['plan_succeeds_if_you_challenge'])}."
        )
    return {"figures": figures, "text": text}
