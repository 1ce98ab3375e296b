"""Detective Eye's setting and action ids: the one place that says which number is which move.

For a setting of ``P`` painters, ``n`` players and hands of ``h`` cards, player actions are::

    0 .. P-1           place a card of painter c (face down)       place(c)
    P .. 2P-1          discard a card of painter c                 discard(c)
    2P                 pass (in the bidding)                       PASS = ids.pass_action
    2P+1 ..            declare or raise quantity q of painter c    bid(c, q), quantity-major
    flip_base ..       flip the card at (owner, position)          flip(owner, position)
    draft_base ..      pass the cards of draft composition i       draft(i)

Chance outcomes are the index of the dealt hand among ``deal_comps`` (the compositions of ``h``
cards over the painters) and the start player's seat. Every player id after the setup says what
it is on its own, which ``info_key`` relies on (see the engine).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Action kinds, as ``ActionIds.kind`` reads them.
PLACE, DISCARD, PASS, BID, FLIP, DRAFT = range(6)


@dataclass(frozen=True)
class Config:
    """One parameter setting (hashable: the engine's lookup tables are shared per setting)."""

    num_players: int
    max_rounds: int = 60
    painters: int = 3
    cards_per_painter: int = 8
    hand_size: int = 5
    draft_size: int = 2
    forgeries: int = 3

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Config:
        """From the definition's validated parameters (``players`` and the rest by name)."""
        return cls(
            params["players"],
            params["max_rounds"],
            params["painters"],
            params["cards_per_painter"],
            params["hand_size"],
            params["draft_size"],
            params["forgeries"],
        )


_COMPOSITIONS: dict[tuple[int, int, int], tuple[tuple[tuple[int, ...], ...], dict]] = {}


def compositions(total: int, parts: int, cap: int) -> tuple[tuple[int, ...], ...]:
    """Every way to split ``total`` cards over ``parts`` painters (each <= ``cap``), in order."""
    return _composition_table(total, parts, cap)[0]


def composition_index(total: int, parts: int, cap: int) -> dict[tuple[int, ...], int]:
    return _composition_table(total, parts, cap)[1]


def _composition_table(total: int, parts: int, cap: int):
    key = (total, parts, cap)
    table = _COMPOSITIONS.get(key)
    if table is None:
        out: list[tuple[int, ...]] = []

        def rec(prefix: tuple[int, ...], left: int) -> None:
            if len(prefix) == parts - 1:
                if left <= cap:
                    out.append((*prefix, left))
                return
            for k in range(min(left, cap), -1, -1):
                rec((*prefix, k), left - k)

        rec((), total)
        comps = tuple(out)
        table = (comps, {c: i for i, c in enumerate(comps)})
        _COMPOSITIONS[key] = table
    return table


class ActionIds:
    """The id layout of one setting: encode, decode and classify player actions."""

    __slots__ = (
        "bid_base",
        "deal_comps",
        "draft_base",
        "draft_comps",
        "draft_index",
        "flip_base",
        "hand_size",
        "max_quantity",
        "num_actions",
        "num_players",
        "painters",
        "pass_action",
    )

    def __init__(self, cfg: Config) -> None:
        p, n, h = cfg.painters, cfg.num_players, cfg.hand_size
        self.painters = p
        self.num_players = n
        self.hand_size = h
        self.max_quantity = n * h  # a bid counts the cards on the table: at most every card
        self.pass_action = 2 * p
        self.bid_base = 2 * p + 1
        self.flip_base = self.bid_base + p * self.max_quantity
        self.draft_base = self.flip_base + n * h
        self.draft_comps = compositions(cfg.draft_size, p, cfg.draft_size)
        self.draft_index = composition_index(cfg.draft_size, p, cfg.draft_size)
        self.deal_comps = compositions(h, p, cfg.cards_per_painter)
        self.num_actions = self.draft_base + len(self.draft_comps)

    # --- encode ------------------------------------------------------------------------------
    def place(self, painter: int) -> int:
        return painter

    def discard(self, painter: int) -> int:
        return self.painters + painter

    def bid(self, painter: int, quantity: int) -> int:
        return self.bid_base + (quantity - 1) * self.painters + painter

    def flip(self, owner: int, position: int) -> int:
        return self.flip_base + owner * self.hand_size + position

    def draft(self, comp: tuple[int, ...]) -> int:
        """The pass of these cards (counts by painter); ``KeyError`` if it has the wrong size."""
        return self.draft_base + self.draft_index[comp]

    # --- decode ------------------------------------------------------------------------------
    def kind(self, action: int) -> int:
        """``PLACE``, ``DISCARD``, ``PASS``, ``BID``, ``FLIP`` or ``DRAFT``."""
        p = self.painters
        if action < p:
            return PLACE
        if action < 2 * p:
            return DISCARD
        if action == 2 * p:
            return PASS
        if action < self.flip_base:
            return BID
        if action < self.draft_base:
            return FLIP
        return DRAFT

    def placed(self, action: int) -> int:
        """The painter of a placement."""
        return action

    def is_bid(self, action: int) -> bool:
        return self.bid_base <= action < self.flip_base

    def discarded(self, action: int) -> int:
        return action - self.painters

    def bid_of(self, action: int) -> tuple[int, int]:
        """``(painter, quantity)`` of a declaration or raise."""
        q, painter = divmod(action - self.bid_base, self.painters)
        return painter, q + 1

    def flip_of(self, action: int) -> tuple[int, int]:
        """``(owner, position)`` of a flip."""
        return divmod(action - self.flip_base, self.hand_size)

    def draft_of(self, action: int) -> tuple[int, ...]:
        """The cards (counts by painter) of a draft pass."""
        return self.draft_comps[action - self.draft_base]
