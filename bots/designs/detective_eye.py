"""Detective Eye's ``honest``: declare and raise only what its own face-down cards support.

The bluffing-game baseline "never bluff": a declaration or raise names a painter and a
quantity its own face-down cards alone make true, so its challenges flip only its own cards
and never fail. Readings where the rule is silent (the simplest we found):

* **Turn**: declare at once the painter it has most face-down cards of (ties by painter
  order), for all of them; a seat always has its first placement face down, so there is
  always a true declaration. (Placing more first would raise the quantity, not the discards:
  a challenge from its own cards only discards one card.)
* **Bidding**: raise, to its full support, the painter with the most face-down cards when
  that is more than the standing quantity; otherwise pass.
* **Flips**: its own cards of the declared painter, left to right.
* **First placement**: the painter it holds most of. **Draft and discards**: the heuristic's
  rule (``bots.heuristics.detective_eye``: pass and discard the painters held least of), so
  its holdings stay concentrated as a careful player's would; ties go to the lowest action.
"""

from __future__ import annotations

import random

from bots.designs.base import DesignBot
from bots.heuristics.detective_eye import DetectiveEyeKnowledge
from games.detective_eye.engine import (
    BID,
    DISCARD,
    DRAFT,
    FIRST,
    FLIP,
    TURN,
    DetectiveEyeEngine,
)

_KNOWLEDGE = DetectiveEyeKnowledge()


def support(engine: DetectiveEyeEngine, seat: int) -> list[int]:
    """``seat``'s own face-down (placed, not flipped) cards per painter."""
    out = [0] * engine.painters
    mask = engine.flipped[seat]
    for pos, card in enumerate(engine.rows[seat]):
        if not mask >> pos & 1:
            out[card] += 1
    return out


def best_supported(engine: DetectiveEyeEngine, seat: int) -> tuple[int, int]:
    """``(painter, cards)``: the painter with the most own face-down cards, ties by order."""
    own = support(engine, seat)
    painter = max(range(engine.painters), key=lambda c: (own[c], -c))
    return painter, own[painter]


def heuristic_choice(engine: DetectiveEyeEngine) -> int:
    """The heuristic's best-rated move, ties to the lowest action (no random tie-break, so
    the design's every move is a function of the information set)."""
    return max(_KNOWLEDGE.rate(engine), key=lambda x: (x[1], -x[0]))[0]


class HonestBot(DesignBot):
    name = "honest"
    game = "detective_eye"
    description = (
        "Detective Eye design: declares and raises only what its own face-down cards "
        "support (never bluffs), at once and for all of them."
    )

    def choose(self, engine: DetectiveEyeEngine, seat: int, rng: random.Random) -> int:
        phase = engine.phase
        if phase == FIRST:
            hand = engine.hands[seat]
            return max(engine.player_actions(), key=lambda c: (hand[c], -c))
        if phase == TURN:
            painter, cards = best_supported(engine, seat)
            if cards:
                return engine.bid_action(painter, cards)
            # Unreachable by the rules (the first placement stays face down until a
            # challenge, which ends the round): place rather than declare without support.
            places = [a for a in engine.player_actions() if a < engine.painters]
            return max(places, key=lambda a: (engine.hands[seat][a], -a))
        if phase == BID:
            painter, cards = best_supported(engine, seat)
            if cards > engine.bid_quantity:
                return engine.bid_action(painter, cards)
            return engine.pass_action
        if phase == FLIP:
            legal = engine.player_actions()
            for a in legal:
                owner, pos = engine.ids.flip_of(a)
                if owner == seat and engine.rows[seat][pos] == engine.bid_painter:
                    return a
            # Only when it challenges a bid it did not make, which its own bids never leave.
            return heuristic_choice(engine)
        if phase in (DRAFT, DISCARD):
            return heuristic_choice(engine)
        raise ValueError(f"no decision for a player in phase {phase}")
