"""Modern Art's observation pieces and history fields (see ``games.core.pieces``).

Private to a seat: its hand and, during a sealed auction, its own sealed bid. Money, bought
paintings, the cards seen on the table and the auction in progress are public.
"""

from __future__ import annotations

from games.core.pieces import PLAYER, PRIVATE, PUBLIC, HistoryFields, Piece, one_hot
from games.modern_art.cards import ARTIST_NAMES, NUM_TYPES, TYPE_NAMES
from games.modern_art.engine import (
    ANSWER,
    AUCTION_PHASES,
    NUM_PHASES,
    ONCE_BIDS,
    OPEN_BIDS,
    OVER,
    PLAY,
    SEALED_BIDS,
    ModernArtEngine,
)


def _auction(e: ModernArtEngine) -> list[float]:
    """The auction in progress: who sells what, the high bid, passes, price, sealed bids made."""
    n, A = e.num_players, e.cfg.artists
    out = [0.0] * (2 * n + A + NUM_TYPES + 1 + 1 + n + 1 + 1 + n)
    phase = e.phase
    if phase not in AUCTION_PHASES:
        return out
    out[e.auctioneer] = 1.0
    if e.partner >= 0:
        out[n + e.partner] = 1.0
    out[2 * n + e.artist] = 1.0
    out[2 * n + A + e.auction] = 1.0
    out[2 * n + A + NUM_TYPES] = e.ncards / 2.0
    j = 2 * n + A + NUM_TYPES + 1
    if phase in (OPEN_BIDS, ONCE_BIDS):
        out[j] = e.high / 100.0
        if e.high_bidder >= 0:
            out[j + 1 + e.high_bidder] = 1.0
    if phase == OPEN_BIDS:
        out[j + 1 + n] = e.passes / n
    if phase == ANSWER:
        out[j + 2 + n] = e.price / 100.0
    if phase == SEALED_BIDS:
        for s in range(e.to_move):
            out[j + 3 + n + s] = 1.0
    return out


def _own_sealed_bid(e: ModernArtEngine, seat: int) -> list[float]:
    if e.phase == SEALED_BIDS and seat < e.to_move:
        return [e.bids[seat] / 100.0]
    return [0.0]


def pieces(engine: ModernArtEngine) -> tuple[Piece, ...]:
    cfg = engine.cfg
    n, A, K = cfg.n, cfg.artists, cfg.kinds
    return (
        Piece("player", n, PLAYER, lambda e, seat: one_hot(n, seat)),
        Piece("to_move", n, PUBLIC, lambda e, seat: one_hot(n, e.to_move)),
        Piece("phase", NUM_PHASES, PUBLIC, lambda e, seat: one_hot(NUM_PHASES, e.phase)),
        Piece(
            "round",
            cfg.rounds,
            PUBLIC,
            lambda e, seat: one_hot(cfg.rounds, e.round if e.phase != OVER else -1),
        ),
        Piece("money", n, PUBLIC, lambda e, seat: [m / 100.0 for m in e.money]),
        Piece("hand_sizes", n, PUBLIC, lambda e, seat: [h / 10.0 for h in e.hand_size]),
        Piece("hand", K, PRIVATE, lambda e, seat: [c / 4.0 for c in e.hands[seat]]),
        Piece("seen", K, PUBLIC, lambda e, seat: [c / 4.0 for c in e.seen]),
        Piece("deck_size", 1, PUBLIC, lambda e, seat: [e.deck_size / cfg.deck_size]),
        Piece("played_this_round", A, PUBLIC, lambda e, seat: [c / 5.0 for c in e.counts]),
        Piece("values", A, PUBLIC, lambda e, seat: [v / 100.0 for v in e.values]),
        Piece(
            "bought",
            n * A,
            PUBLIC,
            lambda e, seat: [b[a] / 4.0 for b in e.bought for a in range(A)],
        ),
        Piece(
            "seller",
            n,
            PUBLIC,
            lambda e, seat: one_hot(n, e.seller if PLAY <= e.phase < OVER else -1),
        ),
        Piece("auction", 2 * n + A + NUM_TYPES + 4 + 2 * n, PUBLIC, lambda e, seat: _auction(e)),
        Piece("own_sealed_bid", 1, PRIVATE, _own_sealed_bid),
    )


def history_fields(engine: ModernArtEngine, event_types: tuple[str, ...]) -> HistoryFields:
    n = engine.num_players
    artists = ARTIST_NAMES[: engine.cfg.artists]
    return HistoryFields(
        event_types=event_types,
        public={
            "seat": None,
            "artist": artists,
            "auction": TYPE_NAMES,
            "partner": TYPE_NAMES,
            "amount": None,
            **{f"bids.{s}": None for s in range(n)},
        },
        private={"artist": artists, "auction": TYPE_NAMES, "amount": None},
        # A sale's buyer, price and payments and a round's scoring follow from the offers and
        # bids before them (the sealed bids are public in "bids" once revealed).
        derived=("sale", "scoring"),
    )
