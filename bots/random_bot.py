"""The uniform random bot: the floor every other bot must beat."""

from __future__ import annotations

import random
from typing import Any

from bots.protocol import ActionStat, Bot, Budget, Hint
from games.core.definition import GameDefinition
from games.core.infoset import sample_engine


class RandomBot(Bot):
    name = "random"
    description = "Picks uniformly among the legal actions."

    def hint(
        self,
        defn: GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        budget: Budget,
        seed: int,
    ) -> Hint:
        rng = random.Random(seed)
        # Legal actions depend only on the information set: any consistent world gives them.
        engine = sample_engine(defn, params, infoset, rng)
        if engine.current_player() != infoset["seat"]:
            raise ValueError(f"it is not seat {infoset['seat']}'s turn")
        legal = engine.legal_actions()
        p = 1.0 / len(legal)
        return Hint(
            action=rng.choice(legal),
            policy=[ActionStat(a, p) for a in legal],
            stopped_by="policy",
        )
