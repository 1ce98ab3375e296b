"""The pool of worlds a search plays on: one implementation for ISMCTS (``bots.ismcts``),
online outcome sampling (``bots.cfr.bots``) and the best responder
(``evaluation.best_response``).

Sampling a world replays and validates a whole history, so a search draws at most ``size``
worlds (each from its own seed taken from the search's generator, so a pool is the same world
for world whatever else the search draws) and copies them for its iterations. When every world
has the same history (``Worlds.public_history``) one world is the whole pool.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate

from bots import search_clock
from bots.beliefs import Probability, effective_size, log_likelihood, tempered
from bots.protocol import Budget, Worlds
from games.core.engine import Engine

# Fewer weighed worlds than this and Bayes weights are not worth their cost: uniform pool.
MIN_BELIEF_POOL = 8


def capacity(worlds: Worlds, size: int, budget: Budget | None = None) -> int:
    """How many worlds a search of ``budget`` draws: ``size``, no more than its simulations
    (a world no iteration plays is not worth its replay), one when the history is public."""
    if budget is not None and budget.simulations is not None:
        size = min(size, budget.simulations)
    return 1 if worlds.public_history else size


class WorldPool:
    """``worlds`` (``first`` and the ones drawn after it) up to ``size``, drawn by ``sample``.

    ``weighted``, after ``weigh``: the cumulative Bayes weights of the pool (``None``: uniform).
    """

    __slots__ = ("effective", "sample", "size", "weighted", "worlds")

    def __init__(self, first: Engine, sample: Callable[[random.Random], Engine], size: int) -> None:
        self.worlds = [first]
        self.sample = sample
        self.size = size
        self.weighted: list[float] | None = None
        self.effective: float | None = None

    def draw(self, rng: random.Random) -> Engine:
        """One more world, from a seed taken from ``rng``."""
        world = self.sample(random.Random(rng.getrandbits(64)))
        self.worlds.append(world)
        return world

    def fill(self, rng: random.Random, more: Callable[[], bool]) -> None:
        """Draws worlds while the pool has room and ``more()`` says so (a clock, a deadline)."""
        while len(self.worlds) < self.size and more():
            self.draw(rng)

    def world(self, iteration: int, rng: random.Random) -> Engine:
        """A copy of the world iteration ``iteration`` (0-based) of an ISMCTS plays on: by
        weight when weighed; else the pool fills one world per iteration, then each iteration
        takes one uniformly."""
        worlds, size = self.worlds, self.size
        if self.weighted is not None:
            weighted = self.weighted
            return worlds[min(bisect_right(weighted, rng.random() * weighted[-1]), size - 1)].copy()
        if iteration < size:
            if iteration >= len(worlds):
                self.draw(rng)
            return worlds[iteration].copy()
        return worlds[int(rng.random() * size)].copy()

    def weigh(
        self,
        fresh: Callable[[Engine], Engine],
        seat: int,
        started: float,
        budget: Budget,
        rng: random.Random,
        probability: Probability,
        size: int,
        epsilon: float,
        min_effective: float,
        same: bool = False,
    ) -> None:
        """Replaces the pool by ``size`` uniformly sampled worlds with their cumulative Bayes
        weights (tempered to keep ``min_effective`` of the pool) and effective size
        (``bots.beliefs``); the pool's ``size`` becomes the number weighed.

        Each world is drawn and weighed in turn, and both stop at a third of a time budget, so
        the search keeps most of the time. When the worlds so far say that not even
        ``MIN_BELIEF_POOL`` of them fit in that third (a weight replays the whole history
        through the opponent model, about 30 ms late in a Modern Art game), weighing stops at
        once and the worlds drawn stay unweighted, the pool going on to draw uniform ones,
        instead of the time going to weights that are then thrown away. Without a time limit
        the pool is the same world for world whatever the machine, since weighing draws nothing
        from ``rng``. ``same`` says every draw is the first world again, whose weight is then
        not computed again.
        """
        deadline = started + budget.milliseconds / 3000.0 if budget.milliseconds else math.inf
        begun = search_clock.now()
        first = self.worlds[0]
        logs = [log_likelihood(fresh, first, seat, probability, epsilon)]
        while len(self.worlds) < size:
            now = search_clock.now()
            if now >= deadline:
                break
            if deadline < math.inf and (
                begun + (now - begun) / len(self.worlds) * MIN_BELIEF_POOL > deadline
            ):
                return self._unweighted()
            world = self.draw(rng)
            logs.append(
                logs[0] if same else log_likelihood(fresh, world, seat, probability, epsilon)
            )
        if len(self.worlds) < MIN_BELIEF_POOL:
            return self._unweighted()
        weights, _ = tempered(logs, min_effective * len(logs))
        self.weighted = list(accumulate(weights))
        self.effective = round(effective_size(weights), 2)
        self.size = len(self.worlds)

    def _unweighted(self) -> None:
        """Keeps the worlds drawn and goes on drawing uniform ones up to the pool's size."""
        self.size = max(self.size, len(self.worlds))
