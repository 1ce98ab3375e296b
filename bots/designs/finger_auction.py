"""Finger Auction's ``proportional``: bid in proportion to what the table is worth to it.

The auction rule of thumb "bid in proportion to value": the more the cards on the table are
worth to this seat, compared with the seat that wants them most, the more fingers it raises
(a bid is also how many cards the winner takes). Values come from the seed's scoring tables
through the heuristic's ``gain`` (``bots.heuristics.finger_auction``: what one card adds to a
Collection, the Mona Lisa where it scores most, forgeries subtracted).

Readings where the rule is silent (the simplest we found):

* **Value** of the table to a seat: its best ``min(max_bid, cards on the table)`` cards,
  taken one at a time by gain. **Bid** = that cap times our value over the highest value of
  any seat in the auction (ours included), rounded, at least 1. A table worth nothing to
  anyone gets a bid of 1.
* **Two players** (take, block): the take is the proportional bid; the block is the bid the
  same rule predicts for the opponent. A take (or block) the no-repeat rule forbids moves to
  the nearest allowed number, lower first.
* **Picks**: the card worth most to it, ties by kind order.
"""

from __future__ import annotations

import random

from bots.designs.base import DesignBot
from bots.heuristics.finger_auction import VERMEER_PAIR, gain
from games.finger_auction import actions as codec
from games.finger_auction.engine import BID, PICK, FingerAuctionEngine
from games.paintings import NUM_KINDS


def table_value(engine: FingerAuctionEngine, seat: int, cards: int) -> float:
    """What ``seat``'s best ``cards`` cards of the table add to its Collection (greedy)."""
    mine = list(engine.collections[seat])
    left = list(engine.table)
    n = engine.num_players
    total = 0.0
    for _ in range(min(cards, sum(left))):
        kind = max(
            (k for k in range(NUM_KINDS) if left[k]),
            key=lambda k: (gain(mine, k, n, VERMEER_PAIR), -k),
        )
        total += gain(mine, kind, n, VERMEER_PAIR)
        mine[kind] += 1
        left[kind] -= 1
    return total


def proportional_bid(engine: FingerAuctionEngine, seat: int) -> int:
    """The design's bid for ``seat`` in the auction in progress (1..max_bid)."""
    cap = min(engine.max_bid, engine.table_size)
    values = {s: max(0.0, table_value(engine, s, cap)) for s in engine.active}
    top = max(values.values())
    if top <= 0.0:
        return 1
    return max(1, min(cap, round(cap * values[seat] / top)))


def _allowed(number: int, banned: int, m: int) -> int:
    """``number``, or the nearest number in 1..m other than ``banned`` (lower first)."""
    if number != banned:
        return number
    return number - 1 if number > 1 else number + 1 if number < m else number


class ProportionalBot(DesignBot):
    name = "proportional"
    game = "finger_auction"
    description = (
        "Finger Auction design: bids in proportion to the table's value to it against the "
        "seat that values it most; picks the card worth most to it."
    )

    def choose(self, engine: FingerAuctionEngine, seat: int, rng: random.Random) -> int:
        m = engine.max_bid
        if engine.phase == PICK:
            mine = engine.collections[seat]
            n = engine.num_players
            return max(
                engine.player_actions(),
                key=lambda a: (gain(mine, codec.picked(a, m), n, VERMEER_PAIR), -a),
            )
        if engine.phase != BID:
            raise ValueError(f"no decision for a player in phase {engine.phase}")
        take = proportional_bid(engine, seat)
        if len(engine.active) != 2:
            return codec.bid(take)
        opp = next(s for s in engine.active if s != seat)
        take = _allowed(take, engine.last_take[seat], m)
        block = _allowed(proportional_bid(engine, opp), engine.last_take[opp], m)
        return codec.take_block(take, block, m)
