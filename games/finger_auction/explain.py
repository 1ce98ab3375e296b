"""Finger Auction's explained hint: what each take is worth to each player (docs/api.md).

Everything in Finger Auction is public except the bids of the auction in progress, and the
figures here read none of those: the table, the collections, the deck's composition (every
reveal is public) and the scoring tables. So they are exact: for each take (1 to the highest
bid), the most points it would add to each player's score with the best choice of cards from
the table; in a pick, what each card adds; the cards left and what one more card of each kind
is worth to each seat.
"""

from __future__ import annotations

import itertools
from typing import Any

from games.core.explain import counted, figure
from games.finger_auction.engine import BID, PICK, FingerAuctionEngine, score_and_assignment
from games.paintings import KIND_NAMES, NUM_KINDS, counts_to_names
from games.seats import seat_words


def score(collection: list[int], n: int) -> int:
    return score_and_assignment(collection, n)[0]


def best_take(collection: list[int], table: list[int], cards: int, n: int) -> tuple[int, list[int]]:
    """The most points ``cards`` cards from ``table`` add to ``collection``, and which cards
    (counts per kind; the first such choice in kind order)."""
    base = score(collection, n)
    best, choice = None, [0] * NUM_KINDS
    for pick in itertools.product(*(range(c + 1) for c in table)):
        if sum(pick) != cards:
            continue
        gain = score([a + b for a, b in zip(collection, pick, strict=True)], n) - base
        if best is None or gain > best:
            best, choice = gain, list(pick)
    return (best or 0), choice


def take_values(engine: FingerAuctionEngine, seat: int) -> list[dict[str, Any]]:
    """For each take 1..max_bid: the cards it gets and the best points it adds to each seat;
    in a two-player auction, the take ``seat`` may not repeat is marked ``banned``."""
    n = engine.num_players
    banned = engine.last_take[seat] if len(engine.active) == 2 else 0
    out = []
    seen: dict[int, list[Any]] = {}
    for take in range(1, engine.max_bid + 1):
        cards = min(take, engine.table_size)
        if cards not in seen:
            seen[cards] = [best_take(c, engine.table, cards, n) for c in engine.collections]
        best = seen[cards]
        out.append(
            {
                "take": take,
                "cards": cards,
                "points": [gain for gain, _ in best],
                "best_cards": [counts_to_names(choice) for _, choice in best],
                **({"banned": True} if take == banned else {}),
            }
        )
    return out


def card_values(engine: FingerAuctionEngine) -> list[dict[str, Any]]:
    """Per seat: its score now and what one more card of each kind still in play adds."""
    n = engine.num_players
    kinds = [k for k in range(NUM_KINDS) if engine.table[k] or engine.deck[k]]
    out = []
    for s, c in enumerate(engine.collections):
        now = score(c, n)
        per = {}
        for k in kinds:
            more = list(c)
            more[k] += 1
            per[KIND_NAMES[k]] = score(more, n) - now
        out.append({"seat": s, "score": now, "one_more": per})
    return out


def explain(engine: FingerAuctionEngine, seat: int) -> dict[str, Any]:
    """The figures and sentences of a Finger Auction hint for ``seat`` (public parts only)."""
    rounds_left = engine.rounds - engine.round
    figures: dict[str, Any] = {
        "cards_left": figure(
            {
                "table": counts_to_names(engine.table),
                "deck": counts_to_names(engine.deck),
                "rounds_left": rounds_left,
                "in_round": list(engine.active),
            },
            "the cards on the table, the cards not yet revealed (their kinds are known), the "
            "rounds left (this one included) and the seats still in this round",
        ),
        "card_values": figure(
            card_values(engine),
            "each seat's score now and the points one more card of each kind would add to it",
        ),
    }
    text: list[str] = []
    recommends: list[dict[str, Any]] = []  # the moves these figures rank best
    me = figures["card_values"]["value"][seat]
    text.append(f"Your score is {me['score']}.")
    if engine.phase == BID and engine.table_size:
        takes = take_values(engine, seat)
        figures["takes"] = figure(
            takes,
            "for each take, the most points it would add to each player's score with the best "
            "cards from the table (the take is capped at the cards left)",
        )
        allowed = [t for t in takes if not t.get("banned")]
        best = max(allowed, key=lambda t: (t["points"][seat], -t["take"]))
        if engine.current_player() == seat:
            top = best["points"][seat]
            recommends += [
                {"type": "bid", "take": t["take"]} for t in allowed if t["points"][seat] == top
            ]
        rivals = [s for s in engine.active if s != seat]
        line = (
            f"Taking {best['take']} adds up to {best['points'][seat]} points to your score "
            f"({', '.join(f'{k} x{v}' for k, v in best['best_cards'][seat].items())})"
        )
        if rivals:
            threat = max(rivals, key=lambda s: best["points"][s])
            line += f"; the same take would add {best['points'][threat]} to {seat_words(threat)}'s"
        text.append(line + ".")
    if engine.phase == PICK and engine.picker == seat:
        n = engine.num_players
        picks = []
        for k in range(NUM_KINDS):
            if not engine.table[k]:
                continue
            gains = []
            for c in engine.collections:
                more = list(c)
                more[k] += 1
                gains.append(score(more, n) - score(c, n))
            picks.append({"card": KIND_NAMES[k], "points": gains})
        gain, choice = best_take(
            engine.collections[seat], engine.table, engine.picks_left, engine.num_players
        )
        figures["picks"] = figure(
            {
                "picks_left": engine.picks_left,
                "cards": picks,
                "best_rest": counts_to_names(choice),
                "best_rest_points": gain,
            },
            "what each card on the table would add to each player's score, and your best "
            "choice of the cards you still pick",
        )
        recommends += [{"type": "pick", "card": k} for k in counts_to_names(choice)]
        text.append(
            f"With {counted(engine.picks_left, 'pick')} left, the best "
            f"{'card adds' if engine.picks_left == 1 else 'cards add'} {counted(gain, 'point')}: "
            f"{', '.join(f'{k} x{v}' for k, v in counts_to_names(choice).items())}."
        )
    return {"figures": figures, "text": text, "recommends": recommends}
