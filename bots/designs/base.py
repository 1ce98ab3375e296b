"""What every published-design opponent shares: one game, one fixed policy, no search.

The designs in ``bots.designs`` are opponents we did not design: simple strategies that
players and public AI projects describe (see each module's docstring for the source and for
the readings we chose where a description is silent). Each plays one game only; asked about
another it refuses with ``unavailable_reason``, which the service, ``atelier play`` and
tournaments ask before seating a bot. A design reads what its seat may know (the public parts
of ``worlds.first`` and the seat's own cards), never another seat's hidden cards, and breaks
ties by a fixed order (or the given ``rng``), so it is deterministic given the seed.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from bots.protocol import ActionStat, Bot, Budget, Hint, InvalidBotSpec, Worlds
from games.core.definition import GameDefinition
from games.core.engine import Engine


class DesignBot(Bot):
    """A fixed policy for one game: subclasses set ``game`` and implement ``choose``."""

    game: ClassVar[str] = ""

    @classmethod
    def unavailable_reason(cls, defn: GameDefinition, params: dict[str, Any]) -> str | None:
        if defn.name != cls.game:
            return f"'{cls.name}' is a published {cls.game} design and plays only {cls.game}"
        return None

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        if worlds.game != self.game:
            raise InvalidBotSpec(f"bot '{self.name}' plays only {self.game}, not {worlds.game!r}")
        engine = worlds.first
        legal = engine.legal_actions()
        action = self.choose(engine, worlds.seat, rng)
        if action not in legal:  # a policy bug must not pass as a move
            raise AssertionError(f"{self.name} chose {action}, not among the legal {legal}")
        return Hint(
            action=action,
            policy=[ActionStat(a, 1.0 if a == action else 0.0) for a in legal],
            stopped_by="policy",
            extra=self.explain(engine, worlds.seat),
        )

    def choose(self, engine: Any, seat: int, rng: random.Random) -> int:
        """The design's move for ``seat`` (the seat to move) in ``engine``."""
        raise NotImplementedError

    def explain(self, engine: Engine, seat: int) -> dict[str, Any]:
        """Figures the design reports with its hint (its estimates); none by default."""
        return {}
