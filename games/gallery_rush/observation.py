"""Gallery Rush's observation pieces and history fields (see ``games.core.pieces``).

Everything in Gallery Rush is public (every flip is face up), so the only non-public piece is
the observing seat itself.
"""

from __future__ import annotations

from games.core.pieces import PLAYER, PUBLIC, HistoryFields, Piece, one_hot
from games.gallery_rush.engine import (
    CALL_NAMES,
    PHASE_NAMES,
    STEAL,
    GalleryRushEngine,
)
from games.paintings import KIND_NAMES, NUM_KINDS


def pieces(engine: GalleryRushEngine) -> tuple[Piece, ...]:
    n = engine.num_players
    return (
        Piece("player", n, PLAYER, lambda e, seat: one_hot(n, seat)),
        Piece("to_move", n, PUBLIC, lambda e, seat: one_hot(n, e.player)),
        Piece("start_player", n, PUBLIC, lambda e, seat: one_hot(n, e.start)),
        Piece(
            "phase", len(PHASE_NAMES), PUBLIC, lambda e, seat: one_hot(len(PHASE_NAMES), e.phase)
        ),
        Piece(
            "collections",
            4 * n,
            PUBLIC,
            lambda e, seat: [c[s] / 8.0 for c in e.collections for s in range(4)],
        ),
        Piece("qualified", n, PUBLIC, lambda e, seat: [float(q) for q in e.qualified]),
        Piece(
            "stealing_from",
            n,
            PUBLIC,
            lambda e, seat: one_hot(n, e.victims[0] if e.phase == STEAL else -1),
        ),
        Piece("deck", NUM_KINDS, PUBLIC, lambda e, seat: [c / 8.0 for c in e.deck]),
        Piece("discard", NUM_KINDS, PUBLIC, lambda e, seat: [c / 8.0 for c in e.discard]),
        Piece("keep", 3, PUBLIC, lambda e, seat: [float(k) for k in e.keep]),
        Piece("declared", len(CALL_NAMES), PUBLIC, lambda e, seat: one_hot(5, e.declared)),
        Piece("bonus_draws_left", 1, PUBLIC, lambda e, seat: [e.bonus_left / 2.0]),
        Piece("turns", 1, PUBLIC, lambda e, seat: [e.turns / e.max_turns]),
    )


def history_fields(engine: GalleryRushEngine, event_types: tuple[str, ...]) -> HistoryFields:
    return HistoryFields(
        event_types=event_types,
        public={"seat": None, "call": CALL_NAMES, "card": KIND_NAMES, "from": None},
        private={},
        # What a step led to (bust, penalty, bonus draws, reshuffle, ...) follows from the steps
        # up to it, so it adds nothing that tells two information sets apart.
        derived=("outcomes",),
    )
