"""Gallery Rush's ``stop-at-k``: explore every turn and bank the Keep at ``k`` cards.

The push-your-luck rule of thumb players of such games use (Can't Stop, Pig, Port Royal's
"stop after k"): never declare; explore, and continue until the Keep holds ``k`` cards, then
confirm. The Keep holds at most one card per painter (a second one busts), so ``k`` is 1 to
3. Readings where the rule is silent: with no card left anywhere it passes (the only move);
a steal (which only follows a forgery declaration, which it never makes) takes the Mona Lisa
first, else the painter it holds most of (ties by painter order).

Default ``k = 2``: measured against ``k = 1`` and ``k = 3`` in a round-robin tournament
(docs/bots.md, "Opponents we did not write").
"""

from __future__ import annotations

import random

from bots.designs.base import DesignBot
from games.core.params import ParamSpec
from games.gallery_rush.actions import CONFIRM, CONTINUE, EXPLORE, ML_SLOT, PASS, slot_of
from games.gallery_rush.engine import CHOOSE, STEAL, TURN, GalleryRushEngine

KEEP_LIMIT = 3  # one card per painter: a fourth would bust (or be a forgery or the Mona Lisa)


class StopAtKBot(DesignBot):
    name = "stop-at-k"
    game = "gallery_rush"
    description = (
        "Gallery Rush design: always explore, bank the Keep at k cards, never declare "
        "(push-your-luck rule of thumb)."
    )
    options = (
        ParamSpec("k", 2, "cards in the Keep at which it confirms (1-3)", min=1, max=KEEP_LIMIT),
    )

    def choose(self, engine: GalleryRushEngine, seat: int, rng: random.Random) -> int:
        legal = engine.player_actions()
        phase = engine.phase
        if phase == TURN:
            return EXPLORE if EXPLORE in legal else PASS
        if phase == CHOOSE:
            if CONTINUE in legal and sum(engine.keep) < self.config["k"]:
                return CONTINUE
            return CONFIRM
        if phase == STEAL:
            mine = engine.collections[seat]

            def wanted(action: int) -> tuple[int, int, int]:
                slot = slot_of(action)
                return (slot == ML_SLOT, mine[slot], -slot)

            return max(legal, key=wanted)
        raise ValueError(f"no decision for a player in phase {phase}")
