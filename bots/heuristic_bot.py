"""The ``heuristic`` bot: each game's hand-written sensible play (``bots.heuristics``).

One bot for every game: it dispatches on the game's name to that game's ``GameKnowledge`` and
plays its best-rated action. It searches nothing, so it answers at once; its ratings are in
the hint's statistics (``scores``) so a client can show why. Option ``style``: ``simple``
plays the first Modern Art heuristic (kept so comparisons can be rerun; other games have one
heuristic and play it whatever the style).
"""

from __future__ import annotations

import random

from bots.heuristics import KNOWLEDGE, STYLE_NAMES, knowledge_for
from bots.heuristics.base import pick_best
from bots.protocol import ActionStat, Bot, Budget, Hint, InvalidBotSpec, Worlds
from games.core.params import ParamSpec


class HeuristicBot(Bot):
    name = "heuristic"
    description = (
        "Per-game hand-written play: exact deck odds (Gallery Rush), value estimates and bid "
        "caps (Modern Art), scoring tables (Finger Auction), card counting (Detective Eye)."
    )
    options = (
        ParamSpec(
            "style",
            "default",
            "'default' or 'simple': the first Modern Art heuristic (before its end-of-round "
            "forecasts); other games have one heuristic and play it in either style",
            choices=STYLE_NAMES,
        ),
    )

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        knowledge = knowledge_for(worlds.game, self.config["style"])
        if knowledge is None:
            raise InvalidBotSpec(
                f"bot 'heuristic' has no heuristic for game {worlds.game!r}; "
                f"it knows {sorted(KNOWLEDGE)}"
            )
        engine = worlds.first
        rated = knowledge.rate(engine)
        action = pick_best(rated, rng)
        return Hint(
            action=action,
            policy=[ActionStat(a, 1.0 if a == action else 0.0) for a, _ in rated],
            stopped_by="policy",
            extra={
                "scores": {str(a): round(score, 6) for a, score in rated},
                **knowledge.explain(engine),
            },
        )
