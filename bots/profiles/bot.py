"""The ``profiled`` bot: the game's heuristic played with an opponent profile's tendencies.

It is how the biased opponents of issue 45 are seated (``{"name": "profiled", "options":
{"tendencies": {"bid_scale": 1.3}}}``: an over-bidder) and the policy ``atelier profile``
fits. With no tendencies it plays as the ``heuristic`` bot, up to how ties are broken (this
one draws from its distribution; the ``heuristic`` bot picks among its tied best).
"""

from __future__ import annotations

import random

from bots.beliefs import has_rating
from bots.heuristics import KNOWLEDGE, knowledge_for
from bots.profiles.policy import ProfiledPolicy
from bots.profiles.spec import TendenciesSpec, game_profile
from bots.protocol import ActionStat, Bot, Budget, Hint, InvalidBotSpec, Worlds


class ProfiledBot(Bot):
    name = "profiled"
    description = (
        "The game's heuristic with an opponent profile's tendencies (an over-bidder, a "
        "bluffer, a reckless explorer...): the biased opponents and the policy that "
        "'atelier profile' fits."
    )
    options = (
        TendenciesSpec(
            "tendencies",
            {},
            "the profile: tendency name to value (docs/bots.md lists each game's); {} plays "
            "as the heuristic",
        ),
    )

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        knowledge = knowledge_for(worlds.game)
        if knowledge is None or not has_rating(knowledge):
            raise InvalidBotSpec(
                f"bot 'profiled' has no heuristic for game {worlds.game!r}; "
                f"it knows {sorted(KNOWLEDGE)}"
            )
        profile = game_profile(self.name, worlds.game, self.config["tendencies"])
        engine = worlds.first
        policy = self.policy(knowledge, profile, getattr(engine, "cfg", None))
        dist = policy.distribution(engine, worlds.seat)
        action = policy.choose(engine, rng)
        return Hint(
            action=action,
            policy=[ActionStat(a, p) for a, p in dist],
            stopped_by="policy",
            extra={"profile": policy.profile},
        )

    def policy(
        self, knowledge: object, profile: dict[str, float], setting: object
    ) -> ProfiledPolicy:
        """The bot's policy. Its cache (by ``(player, info_key)``) is exact within one game
        setting, so it is kept across moves when the engine names its setting (``cfg``, as
        ``IsmctsBot.heuristic_model`` keeps its model); otherwise one per move."""
        if setting is None:
            return ProfiledPolicy(knowledge, profile)  # type: ignore[arg-type]
        key = (getattr(knowledge, "game", ""), setting)
        kept = self.__dict__.get("_policy")
        if kept is None or kept[0] != key:
            kept = self.__dict__["_policy"] = (key, ProfiledPolicy(knowledge, profile))  # type: ignore[arg-type]
        return kept[1]  # type: ignore[no-any-return]
