"""Filling Modern Art's hidden steps from an information set (reading only the JSON).

Two kinds of steps are hidden from seat ``p``: cards dealt to the other seats, and the other
seats' sealed bids of an auction whose bids are not revealed yet. The generic filler of
``games.core`` decides each hidden step on its own and would deal cards that the receiver can
later never play; here the whole deal is planned first:

1. The unseen cards are the deck minus ``p``'s own dealt cards (its private entries).
2. Every card another seat played face up (an offer, a Double's partner, an added partner)
   must have been dealt to that seat before the play. For each seat, taking its plays in
   order, each played card goes to a deal step of that seat chosen uniformly among the free
   ones before the play. With plays in time order the number of choices at each play does
   not depend on the earlier choices, so every assignment of played cards to deal steps is
   equally likely (cards of the same kind make some deal sequences count twice; that is the
   only departure from the exact posterior).
3. The remaining deal steps of the other seats get a uniformly random draw, without
   replacement, of the unseen cards nobody played yet - exactly a deal from that pool.
4. The world is then built step by step on an engine: planned cards at deal steps, the
   events' actions at public steps, revealed sealed bids from the reveal event, and the
   unrevealed sealed bids of other seats drawn among their legal amounts (uniformly, or by
   ``prior``).

The first draw of an information set (``games.core.infoset.sample_engine``) replays the result
and compares the information set in full, and later draws (``bots.protocol.Worlds``) compare
its info key, so anything this module gets wrong surfaces as ``InvalidInfoset``, never as a
wrong world.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from games.core.definition import InvalidAction, InvalidInfoset, Prior
from games.core.engine import Engine
from games.modern_art.actions import amount as amount_id
from games.modern_art.actions import amount_of
from games.modern_art.cards import (
    ARTIST_BY_NAME,
    DOUBLE,
    NUM_TYPES,
    TYPE_BY_NAME,
    Config,
    card_name,
    kind_of,
)
from games.modern_art.engine import DEAL, FIRST, SEALED_BIDS

if TYPE_CHECKING:  # not the definition module, which imports this one
    from games.core.definition import GameDefinition as ModernArt

# Event fields that report consequences of a step rather than the action itself.
OUTCOME_FIELDS = ("seat", "sale", "scoring", "bids")


def sample_world(
    defn: ModernArt,
    params: dict[str, Any],
    infoset: dict[str, Any],
    rng: random.Random,
    prior: Prior | None = None,
    memo: dict[str, Any] | None = None,
) -> Engine:
    """The state after the planned history; every step is checked legal as it is applied.

    The action of a public step is the same in every world (its id is decoded from the event's
    fields alone), so ``memo`` keeps the decoded ids: later draws check them legal and skip
    the decoding and its read-back, about half the cost of a draw late in a game.
    """
    decoded: dict[int, int] = {} if memo is None else memo.setdefault("decoded", {})
    cfg = defn.config(params)
    seat = infoset["seat"]
    events = infoset["events"]
    private = {e["at"]: e for e in infoset["private"]}
    plan, problems = plan_deals(cfg, seat, events, private, rng)
    engine = defn.new_engine(params)
    n = cfg.n
    for i, event in enumerate(events):
        if engine.is_terminal():
            raise InvalidInfoset(f"events[{i}] comes after the end of the game")
        if i in problems:
            raise InvalidInfoset(problems[i])
        phase = engine.phase
        kind = event["type"]
        if phase == DEAL:
            if kind != "deal":
                raise InvalidInfoset(f"events[{i}] is a {kind!r} event where a card is dealt")
            card = plan.get(i, -1)
            if card < 0 or not engine.deck[card]:
                raise InvalidInfoset(f"events[{i}]: the planned card cannot be dealt here")
            action = card
        elif phase == FIRST:
            action = event.get("seat")
            if kind != "first_seller" or action not in range(n):
                raise InvalidInfoset(f"events[{i}] {event} is not possible here (the first seller)")
        elif phase == SEALED_BIDS and kind == "sealed_bid" and "amount" not in event:
            action = amount_id(hidden_bid(engine, seat, events, private, i, rng, prior))
            if not engine.is_legal(action):
                raise InvalidInfoset(
                    f"events[{i}]: a sealed bid of {amount_of(action)} is not possible for "
                    f"seat {engine.to_move}"
                )
        else:
            action = decoded.get(i, -1)
            if action < 0 or not engine.is_legal(action):
                struct = {k: v for k, v in event.items() if k not in OUTCOME_FIELDS}
                try:
                    action = defn.struct_to_action(engine, struct)
                except InvalidAction as err:
                    raise InvalidInfoset(
                        f"events[{i}] {event} is not possible here: {err}"
                    ) from None
                decoded[i] = action
        engine.apply(action)
    return engine


def hidden_bid(
    engine: Any,
    seat: int,
    events: list[dict[str, Any]],
    private: dict[int, dict[str, Any]],
    i: int,
    rng: random.Random,
    prior: Prior | None,
) -> int:
    """The amount of a sealed bid whose public event hides it (bids go in seat order)."""
    q = engine.to_move
    if q == seat:
        amount = private.get(i, {}).get("amount")
        where = f"private entry at {i}"
    else:
        reveal = i + (engine.num_players - 1 - q)  # the last seat's bid reveals them all
        bids = events[reveal].get("bids") if reveal < len(events) else None
        if bids is None:
            money = engine.money[q]
            candidates = [amount_id(x) for x in range(money + 1)]
            if prior is not None and len(candidates) > 1:
                weights = list(prior(engine, candidates))
                return amount_of(rng.choices(candidates, weights=weights)[0])
            return rng.randrange(money + 1)
        if not isinstance(bids, list) or len(bids) != engine.num_players:
            raise InvalidInfoset(f"events[{reveal}].bids must list one bid per seat")
        amount = bids[q]
        where = f"events[{reveal}].bids[{q}]"
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise InvalidInfoset(f"{where} must be a sealed bid amount, got {amount!r}")
    return amount


class _Problem(Exception):
    """A planning problem, raised later by the replay when it reaches ``at``."""

    def __init__(self, at: int, message: str) -> None:
        super().__init__(message)
        self.at = at
        self.message = message


def _seat_of(event: dict[str, Any], i: int, n: int) -> int:
    seat = event.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise _Problem(i, f"events[{i}].seat must be a seat 0..{n - 1}, got {seat!r}")
    return seat


def _card(cfg: Config, source: dict[str, Any], field: str, where: str, at: int) -> int:
    artist = ARTIST_BY_NAME.get(source.get("artist"))
    if artist is None or artist >= cfg.artists:
        raise _Problem(at, f"{where}.artist names no artist of this game: {source.get('artist')!r}")
    t = TYPE_BY_NAME.get(source.get(field))
    if t is None:
        raise _Problem(at, f"{where}.{field} is not an auction type: {source.get(field)!r}")
    return kind_of(artist, t)


def played_cards(cfg: Config, event: dict[str, Any], i: int) -> list[int]:
    """The cards an event shows being played from its seat's hand."""
    kind = event["type"]
    if kind == "offer" or kind == "add":
        return [_card(cfg, event, "auction", f"events[{i}]", i)]
    if kind == "offer_double":
        partner = _card(cfg, event, "partner", f"events[{i}]", i)
        return [partner - partner % NUM_TYPES + DOUBLE, partner]
    return []


def plan_deals(
    cfg: Config,
    seat: int,
    events: list[dict[str, Any]],
    private: dict[int, dict[str, Any]],
    rng: random.Random,
) -> tuple[dict[int, int], dict[int, str]]:
    """The card dealt at every deal event (see the module docstring, steps 1-3).

    Returns the plan and the problems found, by event index: the replay raises a problem
    only when it gets there, so the error names the first offending event even when the
    planning noticed a later one first.
    """
    n = cfg.n
    problems: dict[int, str] = {}
    slots: list[list[int]] = [[] for _ in range(n)]
    plays: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for i, event in enumerate(events):
        kind = event["type"]
        try:
            if kind == "deal":
                slots[_seat_of(event, i, n)].append(i)
            elif kind in ("offer", "add", "offer_double"):
                q = _seat_of(event, i, n)
                plays[q].extend((i, card) for card in played_cards(cfg, event, i))
        except _Problem as problem:
            problems.setdefault(problem.at, problem.message)
    pool = list(cfg.deck)
    plan: dict[int, int] = {}
    for i in slots[seat]:
        if i not in private:
            problems.setdefault(i, f"events[{i}] deals seat {seat} a card but private has none")
            continue
        try:
            card = _card(cfg, private[i], "auction", f"private entry at {i}", i)
        except _Problem as problem:
            problems.setdefault(problem.at, problem.message)
            continue
        plan[i] = card
        pool[card] -= 1
    rest: list[int] = []
    for q in range(n):
        if q == seat:
            continue
        free = slots[q]
        for i, card in plays[q]:
            pool[card] -= 1
            cut = bisect_left(free, i)
            if cut == 0:
                problems.setdefault(
                    i, f"events[{i}]: seat {q} plays {card_name(card)} but holds no card for it"
                )
                continue
            plan[free.pop(rng.randrange(cut))] = card
        rest.extend(free)
    for count in pool:
        if count < 0:  # more of a card seen than the deck holds: the replay names where
            return plan, problems
    bag = [card for card, count in enumerate(pool) for _ in range(count)]
    if len(rest) > len(bag):
        return plan, problems  # the replay runs out of cards to deal and names the event
    for i, card in zip(rest, rng.sample(bag, len(rest)), strict=True):
        plan[i] = card
    return plan, problems
