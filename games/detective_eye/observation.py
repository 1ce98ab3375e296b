"""Detective Eye's observation pieces and history fields (see ``games.core.pieces``).

Private to a seat: its hand, the cards it placed face down and not yet flipped, and the cards
it passed and received in the draft. Everything else (row lengths, flipped cards, the bid,
forgeries, misses, discards) is public.
"""

from __future__ import annotations

from games.core.pieces import PLAYER, PRIVATE, PUBLIC, HistoryFields, Piece, one_hot
from games.detective_eye.engine import (
    FLIP,
    MISSES_PER_FORGERY,
    NUM_PHASES,
    DetectiveEyeEngine,
)


def _rows(e: DetectiveEyeEngine) -> list[float]:
    """Per seat and position: a card is there; which painter, once it is flipped."""
    width = e.painters + 1
    out = [0.0] * (e.num_players * e.hand_size * width)
    for seat in range(e.num_players):
        mask = e.flipped[seat]
        for pos, c in enumerate(e.rows[seat]):
            at = (seat * e.hand_size + pos) * width
            out[at] = 1.0
            if mask >> pos & 1:
                out[at + 1 + c] = 1.0
    return out


def _own_row(e: DetectiveEyeEngine, seat: int) -> list[float]:
    """The painter of every card ``seat`` placed, by position (it knows its own cards)."""
    p = e.painters
    out = [0.0] * (e.hand_size * p)
    for pos, c in enumerate(e.rows[seat]):
        out[pos * p + c] = 1.0
    return out


def _seats(e: DetectiveEyeEngine) -> list[float]:
    n = e.num_players
    hs = e.hand_size
    return [
        *(sum(e.hands[s]) / hs for s in range(n)),
        *(float(e.held[s]) for s in range(n)),
        *(e.misses[s] / MISSES_PER_FORGERY for s in range(n)),
        *(float(e.bid_passed >> s & 1) if e.bid_quantity else 0.0 for s in range(n)),
        *(float(s in e.winners) for s in range(n)),
    ]


def _bid(e: DetectiveEyeEngine) -> list[float]:
    n, p = e.num_players, e.painters
    out = [0.0] * (n + p)
    if e.bidder >= 0 and e.bid_quantity:
        out[e.bidder] = 1.0
        out[n + e.bid_painter] = 1.0
    return out


def _counts(cards: tuple[int, ...] | list[int] | None, p: int) -> list[float]:
    return [0.0] * p if cards is None else [float(cards[c]) for c in range(p)]


def _scalars(e: DetectiveEyeEngine) -> list[float]:
    q = e.max_quantity
    return [
        e.bid_quantity / q,
        e.found / q if e.phase == FLIP else 0.0,
        e.discards_left / e.num_players,
        e.round / e.max_rounds,
        float(e.forgeries),
        e.table / q,
    ]


def pieces(engine: DetectiveEyeEngine) -> tuple[Piece, ...]:
    n, p, hs = engine.num_players, engine.painters, engine.hand_size
    return (
        Piece("player", n, PLAYER, lambda e, seat: one_hot(n, seat)),
        Piece("to_move", n, PUBLIC, lambda e, seat: one_hot(n, e.player)),
        Piece("start_player", n, PUBLIC, lambda e, seat: one_hot(n, e.start)),
        Piece("phase", NUM_PHASES, PUBLIC, lambda e, seat: one_hot(NUM_PHASES, e.phase)),
        Piece("hand", p, PRIVATE, lambda e, seat: [e.hands[seat][c] / hs for c in range(p)]),
        Piece("rows", n * hs * (p + 1), PUBLIC, lambda e, seat: _rows(e)),
        Piece("own_row", hs * p, PRIVATE, _own_row),
        Piece("seats", 5 * n, PUBLIC, lambda e, seat: _seats(e)),
        Piece("bid", n + p, PUBLIC, lambda e, seat: _bid(e)),
        Piece(
            "discard",
            p,
            PUBLIC,
            lambda e, seat: [e.discard_pile[c] / e.cards_per_painter for c in range(p)],
        ),
        Piece("passed", p, PRIVATE, lambda e, seat: _counts(e.passed_cards[seat], p)),
        Piece("received", p, PRIVATE, lambda e, seat: _counts(e.received[seat], p)),
        Piece("scalars", 6, PUBLIC, lambda e, seat: _scalars(e)),
    )


def history_fields(engine: DetectiveEyeEngine, event_types: tuple[str, ...]) -> HistoryFields:
    names = tuple(engine.names)
    counts = {f"cards.{name}": None for name in names}
    return HistoryFields(
        event_types=event_types,
        public={
            "seat": None,
            "cards": None,  # how many cards a deal or a draft pass moves (the count only)
            "position": None,
            "owner": None,
            "painter": names,
            "quantity": None,
            "card": names,
            "outcome": ("failure", "success"),
        },
        private={
            **counts,
            **{f"passed.{name}": None for name in names},
            **{f"received.{name}": None for name in names},
            "card": names,
        },
    )
