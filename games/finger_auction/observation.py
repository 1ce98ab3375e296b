"""Finger Auction's observation pieces and history fields (see ``games.core.pieces``).

The only private information is the seat's own bid in the auction in progress (bids are
revealed together by the auction's last bid).
"""

from __future__ import annotations

from games.core.pieces import PLAYER, PRIVATE, PUBLIC, HistoryFields, Piece, one_hot
from games.finger_auction.engine import BID, PHASE_NAMES, PICK, FingerAuctionEngine
from games.paintings import KIND_NAMES, NUM_KINDS


def _current(e: FingerAuctionEngine) -> int:
    return e.current_player()


def _no_repeat(e: FingerAuctionEngine, n: int) -> list[float]:
    out = [0.0] * (n + 1)
    if e.phase == BID:
        if len(e.active) == 2:
            for s in e.active:
                out[s] = e.last_take[s] / e.max_bid
        out[n] = e.voids / e.max_void
    return out


def _bids_made(e: FingerAuctionEngine, n: int) -> list[float]:
    out = [0.0] * n
    if e.phase == BID:
        for s in e.active[: len(e.bids)]:
            out[s] = 1.0
    return out


def _own_bid(e: FingerAuctionEngine, seat: int) -> list[float]:
    m = e.max_bid
    out = [0.0] * (2 * m)
    if e.phase == BID and seat in e.active[: len(e.bids)]:
        take, block = e.decode_bid(e.bids[e.active.index(seat)])
        out[take - 1] = 1.0
        if block:
            out[m + block - 1] = 1.0
    return out


def _picker(e: FingerAuctionEngine, n: int) -> list[float]:
    out = [0.0] * (n + 1)
    if e.phase == PICK:
        out[e.picker] = 1.0
        out[n] = e.picks_left / e.max_bid
    return out


def pieces(engine: FingerAuctionEngine) -> tuple[Piece, ...]:
    n, m = engine.num_players, engine.max_bid
    phases = len(PHASE_NAMES)
    return (
        Piece("player", n, PLAYER, lambda e, seat: one_hot(n, seat)),
        Piece("to_move", n, PUBLIC, lambda e, seat: one_hot(n, _current(e))),
        Piece("phase", phases, PUBLIC, lambda e, seat: one_hot(phases, e.phase)),
        Piece("round", 1, PUBLIC, lambda e, seat: [e.round / e.rounds]),
        Piece("table", NUM_KINDS, PUBLIC, lambda e, seat: [c / 8.0 for c in e.table]),
        Piece("deck", NUM_KINDS, PUBLIC, lambda e, seat: [c / 8.0 for c in e.deck]),
        Piece(
            "collections",
            NUM_KINDS * n,
            PUBLIC,
            lambda e, seat: [c[k] / 8.0 for c in e.collections for k in range(NUM_KINDS)],
        ),
        Piece(
            "active",
            n,
            PUBLIC,
            lambda e, seat: [1.0 if s in e.active else 0.0 for s in range(n)],
        ),
        Piece("no_repeat_and_voids", n + 1, PUBLIC, lambda e, seat: _no_repeat(e, n)),
        Piece("bids_made", n, PUBLIC, lambda e, seat: _bids_made(e, n)),
        Piece("own_bid", 2 * m, PRIVATE, _own_bid),
        Piece("picker", n + 1, PUBLIC, lambda e, seat: _picker(e, n)),
        Piece(
            "tied",
            n,
            PUBLIC,
            lambda e, seat: [1.0 if s in e.tied else 0.0 for s in range(n)],
        ),
    )


def history_fields(engine: FingerAuctionEngine, event_types: tuple[str, ...]) -> HistoryFields:
    n = engine.num_players
    revealed: dict[str, None] = {}
    for i in range(n):
        for name in ("seat", "bid", "take", "block"):
            revealed[f"revealed.{i}.{name}"] = None
    return HistoryFields(
        event_types=event_types,
        public={
            "seat": None,
            "round": None,
            "slot": None,
            "card": KIND_NAMES,
            "outcome": ("void", "won", "tie_break"),
            "winner": None,
            "takes": None,
            **revealed,
        },
        private={"bid": None, "take": None, "block": None},
        # Follow from the steps before: the seats a tie-break draws among (the revealed bids),
        # the cards taken without a choice and the leftover taken at the end (the table).
        derived=("tied", "auto_picked", "leftover"),
    )
