"""What a bot knows about one game beyond its rules: the ``GameKnowledge`` interface.

Each game's module in ``bots.heuristics`` subclasses ``GameKnowledge``. The same object serves
the ``heuristic`` bot (``rate``/``choose``), the ISMCTS bot's heuristic rollouts (``choose``)
and cut-off evaluation (``evaluate``), and its action abstraction for large bid ranges
(``candidates``).

The rule every method keeps: it may read the public parts of the engine it is given and the
acting seat's own private parts, never another seat's hidden cards or commits. In a search the
engine is a sampled world, so reading hidden parts would not even help; in the ``heuristic``
bot it would be a guess presented as knowledge.
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar

from games.core.engine import Engine

# Ratings closer than this to the best count as tied for it.
TIE = 1e-9


class GameKnowledge:
    """Per-game heuristics; subclasses override what they can."""

    game: ClassVar[str] = ""
    # True when ``candidates`` narrows the legal actions (large bid ranges); search bots then
    # call it at every decision, including in random rollouts.
    abstracts: ClassVar[bool] = False
    # What the ISMCTS bot uses when its spec leaves ``rollout`` / ``rollout_depth`` to the game
    # (measured per game: see docs/bots.md). ``None`` depth: rollouts play to the end.
    default_rollout: ClassVar[str] = "random"
    default_rollout_depth: ClassVar[int | None] = None

    def candidates(self, engine: Engine, legal: list[int] | None) -> list[int]:
        """The actions a search considers here: a non-empty subset of the legal actions.

        ``legal`` is the legal action list when the caller has it; ``None`` lets a game with
        large action ranges avoid building the list at all.
        """
        return legal if legal is not None else engine.legal_actions()

    def rate(self, engine: Engine) -> list[tuple[int, float]]:
        """Ratings (higher is better) of the acting seat's considered actions."""
        raise NotImplementedError

    def choose(self, engine: Engine, rng: random.Random) -> int:
        """The best-rated action; ties broken by ``rng``."""
        return pick_best(self.rate(engine), rng)

    def best_rated(self, engine: Engine) -> frozenset[int]:
        """The actions ``rate`` ties at the top (what the opponent model plays and weighs
        worlds by). Games that know their top action without rating the others override it.
        """
        return frozenset(tied_best(self.rate(engine)))

    def playout(self, engine: Engine, rng: random.Random) -> int:
        """A cheap sensible move for rollouts; defaults to ``choose``.

        Games whose ``choose`` is too slow to call at every rollout step override it with a
        rule of thumb drawn from the same reasoning.
        """
        return self.choose(engine, rng)

    def commit_prior(self, engine: Engine, candidates: list[int]) -> list[float] | None:
        """Weights for a hidden commit of the seat to move in ``engine`` (a sealed or finger
        bid), used to sample worlds: how likely a sensible player made each candidate.
        ``None``: no model, the sampler stays uniform. Reads only what that seat knew."""
        return None

    def evaluate(self, engine: Engine) -> list[float] | None:
        """Estimated returns of every seat at a non-terminal state, or ``None`` if unknown."""
        return None

    def explain(self, engine: Engine) -> dict[str, Any]:
        """Extra figures the heuristic bot reports with its hint (odds, estimates)."""
        return {}


def tied_best(rated: list[tuple[int, float]]) -> list[int]:
    """The actions of ``(action, rating)`` pairs tied (within ``TIE``) for the best rating."""
    best = max(score for _, score in rated)
    return [a for a, score in rated if score >= best - TIE]


def pick_best(rated: list[tuple[int, float]], rng: random.Random) -> int:
    """The best-rated action of ``(action, rating)`` pairs; ties broken by ``rng``."""
    top = tied_best(rated)
    return top[0] if len(top) == 1 else top[int(rng.random() * len(top))]


def race_returns(strength: list[float], sharpness: float) -> list[float]:
    """Expected returns of a 28-card game (the winner +1, the others share -1) when each
    seat's chance to win is a softmax of its ``strength``."""
    top = max(strength)
    weights = [math.exp(sharpness * (v - top)) for v in strength]
    total = sum(weights)
    lose = -1.0 / (len(strength) - 1)
    return [w / total * (1.0 - lose) + lose for w in weights]
