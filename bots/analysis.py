"""PROVISIONAL (views branch): the analysis contract of issue 38, implemented naively.

The "core" engineer builds the real ``bots/analysis.py`` (per-move values from the search's
root statistics over belief-weighted worlds, paired losses, continuations); the lead replaces
this file with it at merge. Only the signatures and JSON shape of
``/work/wt/_prompts/analysis_contract.md`` are relied on by the views (server, CLI, /play,
explanations); nothing here is measured or tested for its numbers.

Here: one ``bot.hint``; each move's value is its root mean rescaled to 0..1 over the range
the root saw (not a first-place share), its standard error a naive ``0.5 / sqrt(visits)``,
losses unpaired, no continuation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from bots.protocol import Bot, Budget
from games.core.definition import GameDefinition
from games.core.engine import Engine

Z_95 = 1.959963984540054
UNITS = {"value": "first-place share (0-1)"}


@dataclass(frozen=True)
class MoveValue:
    action: int
    value: float
    stderr: float
    interval: tuple[float, float]
    points: float | None
    visits: int
    prior: float | None
    loss: float
    loss_interval: tuple[float, float]
    within_noise: bool
    continuation: tuple[int, ...]
    samples: int


@dataclass(frozen=True)
class Analysis:
    seat: int
    best: int
    moves: tuple[MoveValue, ...]
    value: float
    interval: tuple[float, float]
    iterations: int
    elapsed_ms: float
    effective_worlds: float | None
    bot: str

    def move(self, action: int) -> MoveValue | None:
        return next((m for m in self.moves if m.action == action), None)

    def to_json(self, defn: GameDefinition, engine: Engine) -> dict[str, Any]:
        def describe(action: int) -> dict[str, Any]:
            return {
                "id": action,
                "string": defn.action_to_string(engine, self.seat, action),
                "struct": defn.action_to_struct(engine, self.seat, action),
            }

        return {
            "seat": self.seat,
            "units": dict(UNITS),
            "best": describe(self.best),
            "value": round(self.value, 6),
            "interval": [round(x, 6) for x in self.interval],
            "iterations": self.iterations,
            "elapsed_ms": round(self.elapsed_ms, 3),
            "effective_worlds": self.effective_worlds,
            "moves": [
                {
                    **describe(m.action),
                    "value": round(m.value, 6),
                    "stderr": round(m.stderr, 6),
                    "interval": [round(x, 6) for x in m.interval],
                    "points": m.points,
                    "visits": m.visits,
                    "prior": m.prior,
                    "loss": round(m.loss, 6),
                    "loss_interval": [round(x, 6) for x in m.loss_interval],
                    "within_noise": m.within_noise,
                    "continuation": [],
                    "samples": m.samples,
                }
                for m in self.moves
            ],
        }


def analyse(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    bot: Bot,
    budget: Budget,
    seed: int,
    include: tuple[int, ...] | list[int] = (),
    top: int = 8,
) -> Analysis:
    """PROVISIONAL: one ``bot.hint``, its policy's visits and values rescaled (see module)."""
    hint = bot.hint(defn, params, infoset, budget, seed)
    stats = {s.action: s for s in hint.policy}
    means = [s.value for s in hint.policy if s.value is not None]
    low, high = (min(means), max(means)) if means else (0.0, 1.0)
    span = (high - low) or 1.0

    def scaled(action: int) -> tuple[float, float, int]:
        stat = stats.get(action)
        visits = (stat.visits or 0) if stat else 0
        if stat is None or stat.value is None:
            return (1.0 if action == hint.action else 0.0), 0.5, visits
        return (stat.value - low) / span, 0.5 / math.sqrt(max(1, visits)), visits

    ranked = sorted(stats, key=lambda a: (-(stats[a].visits or 0), -stats[a].probability, a))
    chosen = list(dict.fromkeys([hint.action, *ranked[:top], *include]))
    best_value = scaled(hint.action)[0]
    moves = []
    for action in chosen:
        value, stderr, visits = scaled(action)
        value = min(value, best_value) if action != hint.action else value
        loss = best_value - value
        half = Z_95 * math.hypot(stderr, scaled(hint.action)[1]) if action != hint.action else 0
        stat = stats.get(action)
        moves.append(
            MoveValue(
                action=action,
                value=value,
                stderr=stderr,
                interval=(max(0.0, value - Z_95 * stderr), min(1.0, value + Z_95 * stderr)),
                points=stat.value if stat else None,
                visits=visits,
                prior=None,
                loss=loss,
                loss_interval=(loss - half, loss + half),
                within_noise=loss - half <= 0,
                continuation=(),
                samples=visits,
            )
        )
    moves.sort(key=lambda m: (m.action != hint.action, -m.value, m.action))
    root = moves[0]
    return Analysis(
        seat=infoset["seat"],
        best=hint.action,
        moves=tuple(moves),
        value=root.value,
        interval=root.interval,
        iterations=hint.iterations,
        elapsed_ms=hint.elapsed_ms,
        effective_worlds=hint.extra.get("effective_worlds"),
        bot=bot.name,
    )
