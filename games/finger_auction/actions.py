"""Finger Auction's action ids: the one place that says which number is which move.

Player actions, with ``m = max_bid``:

* a bid in an auction of three or more seats: ``bid - 1`` (``0..m-1``);
* a bid in a two-player auction: ``(take - 1) * m + (block - 1)`` (``0..m*m-1``);
* a pick of one card of kind ``k`` from the table: ``m*m + k`` (kinds in ``games.paintings``
  order).

Chance outcomes are the kind of card revealed (0-6), or the seat a capped tie-break picks; they
are not ids of this table. Which bid form applies depends on the auction in progress (two seats
or more), which the engine knows; these functions only encode and decode.
"""

from __future__ import annotations

from games.paintings import NUM_KINDS


def num_actions(max_bid: int) -> int:
    return max_bid * max_bid + NUM_KINDS


def bid(amount: int) -> int:
    """A bid of ``amount`` fingers in an auction of three or more seats."""
    return amount - 1


def bid_of(action: int) -> int:
    return action + 1


def take_block(take: int, block: int, max_bid: int) -> int:
    """A two-player auction's bid: take ``take`` cards, block the other's take of ``block``."""
    return (take - 1) * max_bid + block - 1


def take_block_of(action: int, max_bid: int) -> tuple[int, int]:
    """``(take, block)`` of a two-player auction's bid."""
    take, block = divmod(action, max_bid)
    return take + 1, block + 1


def pick(kind: int, max_bid: int) -> int:
    return max_bid * max_bid + kind


def picked(action: int, max_bid: int) -> int:
    """The kind a pick takes from the table."""
    return action - max_bid * max_bid
