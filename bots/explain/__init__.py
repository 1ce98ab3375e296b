"""Hints that explain themselves: ``explain_hint`` adds figures a player reasons with.

Every hint answer carries ``explain``::

    {"figures": {name: {"value": ..., "exact": bool, "label": ..., ...}},
     "text": ["a sentence a player reads", ...],
     "value": {"measures": ..., "scale": ..., "text": ...}}

(``games.core.explain`` builds the figures; docs/api.md, "Explained hints", lists each
game's.) Where a game's rules and the information set settle a figure, it is exact and
computed in ``games/<game>/explain.py`` (Gallery Rush, Finger Auction); where it needs
beliefs about hidden cards it is an estimate over sampled worlds, here (``detective_eye``,
``modern_art``), labelled with its sample size.

Explanations read only what the seat knows: the public parts and the seat's own parts of
``engine`` (one world consistent with the information set, as the worker replayed it), and
worlds sampled from the information set itself with their own random numbers drawn from the
hint's seed, so two states with the same information set explain alike (tested), and the same
seed gives the same explanation.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bots.explain.value import value_meaning
from games.core.definition import GameDefinition
from games.core.engine import Engine

log = logging.getLogger("atelier.bots.explain")

REFERENCE_MS = 500.0  # the service's default hint budget: estimates use their base samples
MAX_SCALE = 4.0


@dataclass
class Context:
    """What an explanation may read: the information set, one world of it, the hint."""

    defn: GameDefinition
    params: dict[str, Any]
    infoset: dict[str, Any]
    engine: Engine  # one world of the information set: read public and own parts only
    seat: int
    hint: dict[str, Any]  # the hint's JSON (action, policy, value, stats)
    bot: dict[str, Any]  # the bot spec {"name", "options"}
    seed: int
    budget_ms: float | None = None  # the hint's time budget, when it has one

    def samples(self, base: int) -> int:
        """How many worlds an estimate draws: ``base`` for a hint of up to ``REFERENCE_MS``,
        proportionally more for longer budgets (up to ``MAX_SCALE`` times), so that an
        explanation stays a small share of its hint's cost. From the request, so the same
        request explains alike."""
        if not self.budget_ms or self.budget_ms <= REFERENCE_MS:
            return base
        return round(base * min(MAX_SCALE, self.budget_ms / REFERENCE_MS))

    def rng(self) -> random.Random:
        """The explanation's own random numbers (the search's are not touched)."""
        return random.Random(f"explain:{self.defn.name}:{self.seed}")

    def sampler(self, prior: Any = None) -> Callable[[random.Random], Engine]:
        """Draws worlds of the information set as the bots do (``Worlds.sample``: a replay
        of a sampled history checked by ``info_key``, without rebuilding the JSON). Every
        world is drawn, none is ``engine``: explanations depend on the information set only."""
        from bots.protocol import Worlds

        worlds = Worlds.from_first(self.defn, self.params, self.infoset, self.engine, prior)
        return worlds.sample


def _gallery_rush(ctx: Context) -> dict[str, Any]:
    from games.gallery_rush.explain import explain

    return explain(ctx.engine, ctx.seat)  # type: ignore[arg-type]


def _finger_auction(ctx: Context) -> dict[str, Any]:
    from games.finger_auction.explain import explain

    return explain(ctx.engine, ctx.seat)  # type: ignore[arg-type]


def _detective_eye(ctx: Context) -> dict[str, Any]:
    from bots.explain.detective_eye import explain

    return explain(ctx)


def _modern_art(ctx: Context) -> dict[str, Any]:
    from bots.explain.modern_art import explain

    return explain(ctx)


EXPLAINERS: dict[str, Callable[[Context], dict[str, Any]]] = {
    "gallery_rush": _gallery_rush,
    "finger_auction": _finger_auction,
    "detective_eye": _detective_eye,
    "modern_art": _modern_art,
}


def _matches(struct: dict[str, Any], partial: dict[str, Any]) -> bool:
    return all(struct.get(k) == v for k, v in partial.items())


def agree_with_search(ctx: Context, recommends: list[dict[str, Any]], out: dict[str, Any]) -> None:
    """Reconciles an explanation that names best moves with the search's suggestion.

    ``recommends``: partial action structs of the moves the explanation's figures rank best
    (a take, a card, a declaration). Its figures weigh one thing (this move's immediate points
    or odds); the hint comes from the search, which plays the game on. When the hint is not
    among them, a sentence says so, with both moves' values and intervals from the hint's
    ``analysis`` table where it lists them, so a reader never sees two unexplained answers.
    ``out["recommends"]`` records the moves, whether they agree and the sentence.
    """
    engine, seat, defn = ctx.engine, ctx.seat, ctx.defn
    named = [
        a
        for a in engine.legal_actions()
        if any(_matches(defn.action_to_struct(engine, seat, a), r) for r in recommends)
    ]
    if not named:
        return
    strings = [defn.action_to_string(engine, seat, a) for a in named]
    chosen = ctx.hint["action"]
    if chosen["id"] in named:
        out["recommends"] = {"moves": strings, "agrees": True}
        return
    rows = {m["id"]: m for m in (ctx.hint.get("analysis") or {}).get("moves", [])}
    theirs = max((rows[a] for a in named if a in rows), key=lambda m: m["value"], default=None)
    mine = rows.get(chosen["id"])

    def rated(m: dict[str, Any]) -> str:
        lo, hi = m["interval"]
        return f"{m['value']:.3g} (95% interval {lo:.3g} to {hi:.3g})"

    if mine is not None and theirs is not None and theirs["within_noise"]:
        why = (
            f"The search suggests {chosen['string']}, but rates {theirs['string']} within its "
            f"noise: {rated(mine)} against {rated(theirs)}; either is sound."
        )
    else:
        figures = (
            f": it values {chosen['string']} at {rated(mine)} and {theirs['string']} at "
            f"{rated(theirs)}"
            if mine is not None and theirs is not None
            else ""
        )
        why = (
            f"The search suggests {chosen['string']} rather than {' or '.join(strings[:3])}"
            f"{figures}. These figures count only what this move adds now; the search plays "
            "the rest of the game out (what the others do next, the rounds left)."
        )
    out["text"].append(why)
    out["recommends"] = {"moves": strings, "agrees": False, "why": why}


def explain_hint(
    defn: GameDefinition,
    engine: Engine,
    seat: int,
    hint: dict[str, Any],
    *,
    params: dict[str, Any],
    infoset: dict[str, Any],
    bot: dict[str, Any],
    seed: int,
    budget: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``explain`` object of a hint for ``seat`` (see the module docstring).

    ``engine`` is any world of ``infoset`` at the seat's decision; ``hint`` the hint's JSON;
    ``budget`` the hint's budget JSON (a longer time alone buys estimates more samples).
    A failure inside a game's explanation is a bug, logged with its trace; the hint is still
    answered, its ``explain`` saying the figures are unavailable.
    """
    stats = hint.get("stats") or {}
    out: dict[str, Any] = {"figures": {}, "text": []}
    explainer = EXPLAINERS.get(defn.name)
    if explainer is not None:
        # Only a budget of time alone says how long the search ran (with simulations too, it
        # may have stopped much earlier: the service adds its time cap to every budget).
        ms = None if budget is None or "simulations" in budget else budget.get("milliseconds")
        ctx = Context(defn, params, infoset, engine, seat, hint, bot, seed, ms)
        try:
            found = explainer(ctx)
            recommends = found.pop("recommends", None)
            out.update(found)
            if recommends:
                agree_with_search(ctx, recommends, out)
        except Exception as err:  # a bug, logged; the hint itself stays good
            log.exception("explaining a %s hint failed", defn.name)
            out["unavailable"] = f"internal error while explaining: {type(err).__name__}"
    out["value"] = value_meaning(
        defn.name, params, bot.get("name", ""), hint.get("value"), stats.get("stopped_by", "")
    )
    return out
