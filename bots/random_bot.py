"""The uniform random bot: the floor every other bot must beat."""

from __future__ import annotations

import random

from bots.protocol import ActionStat, Bot, Budget, Hint, Worlds


class RandomBot(Bot):
    name = "random"
    description = "Picks uniformly among the legal actions."

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        # Legal actions depend only on the information set: any consistent world gives them.
        legal = worlds.first.legal_actions()
        p = 1.0 / len(legal)
        return Hint(
            action=rng.choice(legal),
            policy=[ActionStat(a, p) for a in legal],
            stopped_by="policy",
        )
