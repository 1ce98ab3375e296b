"""Fitting a seat's profile from its observed decisions: maximum likelihood with a trembling
floor, and 95% profile-likelihood intervals.

The model of the seat is the profiled heuristic (``ProfiledPolicy``) softened by a floor, so no
observed move has zero likelihood however odd it is::

    L(theta) = prod over the seat's decisions (I, a) with a choice of
               (1 - epsilon) * pi_theta(a | I) + epsilon / |A(I)|

(the same trembling likelihood the search's beliefs use, ``bots.beliefs.log_factor``). Where
the records hide the seat's cards (a match seen from another seat), a record's likelihood is
the mean over worlds sampled consistently with what was seen (a Monte Carlo marginal over the
hidden cards under the sampler's uniform prior); a full history is one world.

The maximum is found on each tendency's grid (``Tendency.grid``) by coordinate ascent from the
neutral profile (rounds of one-tendency-at-a-time maximisation until nothing changes). The 95%
interval of a tendency is the set of its grid values whose *profile* log-likelihood (the other
tendencies re-maximised) is within chi2(1, 0.95) / 2 = 1.92 of the maximum: Wilks' theorem,
read on the grid, so an interval's ends are grid values (its resolution is the grid's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bots.beliefs import HeuristicModel, log_factor
from bots.heuristics import GameKnowledge
from bots.profiles.policy import ProfiledPolicy
from bots.profiles.tendencies import Tendency, neutral_profile, tendencies_of
from games.core.engine import Engine

# Half the 95% quantile of chi-squared with one degree of freedom (3.841).
HALF_CHI2_95 = 1.920729
DEFAULT_EPSILON = 0.05
MIN_DECISIONS = 20  # fewer decisions than this fit nothing worth an interval
MAX_ROUNDS = 6


class TooFewDecisions(ValueError):
    """The records hold too few decisions of the seat (with a choice) to fit a profile."""


@dataclass
class Decision:
    """One decision of the fitted seat: the state before it (a copy) and the move made."""

    engine: Engine
    action: int
    legal: int
    player: int


World = list[Decision]  # one world's decisions of the seat
Record = list[World]  # the worlds of one record (one for a full history)


def decisions_of(fresh: Engine, history: Sequence[int], seat: int) -> World:
    """The seat's decisions with a choice in ``history``, replayed from ``fresh``."""
    engine = fresh
    out: World = []
    for action in history:
        if engine.current_player() == seat:
            legal = engine.player_actions()
            if len(legal) > 1:
                out.append(Decision(engine.copy(), int(action), len(legal), seat))
        engine.apply(int(action))
    return out


@dataclass
class Fit:
    """A fitted profile: the maximum, its log-likelihood, the intervals and the evidence."""

    game: str
    seat: int
    profile: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    log_likelihood: float
    neutral_log_likelihood: float
    decisions: int
    records: int
    epsilon: float

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seat": self.seat,
            "profile": self.profile,
            "intervals": {k: list(v) for k, v in self.intervals.items()},
            "log_likelihood": round(self.log_likelihood, 4),
            "neutral_log_likelihood": round(self.neutral_log_likelihood, 4),
            "decisions": self.decisions,
            "records": self.records,
            "epsilon": self.epsilon,
            "interval_method": "profile likelihood on the tendency's grid (Wilks, 95%)",
        }


class Likelihood:
    """``log L(theta)`` of the records, with the heuristic's best moves cached across
    profiles (the expensive part: each profile only re-applies its tendencies)."""

    def __init__(self, knowledge: GameKnowledge, records: Sequence[Record], epsilon: float) -> None:
        self.knowledge = knowledge
        self.records = records
        self.epsilon = epsilon
        self.base = HeuristicModel(knowledge)
        self.memo: dict[tuple[tuple[str, float], ...], float] = {}

    def __call__(self, profile: dict[str, float]) -> float:
        key = tuple(sorted(profile.items()))
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = self._compute(profile)
        return got

    def _compute(self, profile: dict[str, float]) -> float:
        policy = ProfiledPolicy(self.knowledge, profile, self.base)
        eps = self.epsilon
        total = 0.0
        for worlds in self.records:
            logs = [
                sum(
                    log_factor(policy.probability(d.engine, d.player, d.action), eps, d.legal)
                    for d in world
                )
                for world in worlds
            ]
            top = max(logs)
            total += top + math.log(sum(math.exp(x - top) for x in logs) / len(logs))
        return total


def fit_profile(
    knowledge: GameKnowledge,
    records: Sequence[Record],
    seat: int,
    epsilon: float = DEFAULT_EPSILON,
    tendencies: Iterable[str] | None = None,
) -> Fit:
    """The maximum-likelihood profile of ``seat`` over ``records`` with 95% intervals.

    ``tendencies`` limits the fit to those (the others stay neutral); by default all of the
    game's. ``seat`` is reported (each decision knows its player: in a tournament's games the
    fitted bot changes seats). Raises ``TooFewDecisions`` below ``MIN_DECISIONS`` decisions
    with a choice."""
    game = knowledge.game
    every = {t.name: t for t in tendencies_of(game)}
    names = list(every) if tendencies is None else list(tendencies)
    count = sum(len(r[0]) for r in records if r)
    if count < MIN_DECISIONS:
        raise TooFewDecisions(
            f"the fitted seat made {count} decisions with a choice in {len(records)} record(s); "
            f"a fit needs at least {MIN_DECISIONS}"
        )
    ll = Likelihood(knowledge, records, epsilon)
    neutral = neutral_profile(game)
    best = maximise(ll, dict(neutral), [every[n] for n in names])
    top = ll(best)
    intervals = {
        name: interval(ll, best, every[name], [every[n] for n in names if n != name], top)
        for name in names
    }
    return Fit(
        game=game,
        seat=seat,
        profile={n: _plain(best[n], every[n]) for n in names},
        intervals={n: tuple(_plain(x, every[n]) for x in intervals[n]) for n in names},  # type: ignore[misc]
        log_likelihood=top,
        neutral_log_likelihood=ll(neutral),
        decisions=count,
        records=len(records),
        epsilon=epsilon,
    )


def maximise(ll: Likelihood, start: dict[str, float], free: Sequence[Tendency]) -> dict[str, float]:
    """Coordinate ascent over ``free``'s grids from ``start`` (ties keep the nearer-neutral
    value, so a tendency the data cannot tell apart stays neutral)."""
    profile = dict(start)
    for _ in range(MAX_ROUNDS):
        changed = False
        for t in free:
            values = sorted(t.grid, key=lambda v: abs(v - t.neutral))
            scores = [ll({**profile, t.name: v}) for v in values]
            chosen = values[scores.index(max(scores))]
            if chosen != profile[t.name]:
                profile[t.name] = chosen
                changed = True
        if not changed:
            break
    return profile


def interval(
    ll: Likelihood,
    best: dict[str, float],
    tendency: Tendency,
    others: Sequence[Tendency],
    top: float,
) -> tuple[float, float]:
    """The grid values of ``tendency`` whose profile log-likelihood is within
    ``HALF_CHI2_95`` of ``top``: ``(lowest, highest)``."""
    inside = []
    for v in tendency.grid:
        fixed = {**best, tendency.name: v}
        profiled = maximise(ll, fixed, others) if others else fixed
        if ll(profiled) >= top - HALF_CHI2_95:
            inside.append(v)
    return (min(inside), max(inside)) if inside else (best[tendency.name],) * 2  # type: ignore[return-value]


def _plain(value: float, tendency: Tendency) -> float:
    return int(value) if tendency.integer else value  # type: ignore[return-value]
