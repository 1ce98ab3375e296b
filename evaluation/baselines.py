"""Historical baselines: earlier versions of a bot, kept as documented specs for comparisons.

A baseline is a bot spec of today's code with the options that turn later pieces off, so that
it plays as an older commit did; the bots do not know them (their options describe what each
piece does, not which commit had it). ``evaluation.params.bot_aliases`` names them for every
command's ``--bot``; ``atelier bench strength --pairing ismcts-vs-legacy`` plays against
``ISMCTS_LEGACY``; docs/bots.md ("The ISMCTS of a322b0d") describes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Baseline:
    """``bot`` with ``options``, as commit ``commit`` had it (``why``: what it stands for)."""

    alias: str
    commit: str
    bot: str
    options: dict[str, object]
    why: str

    def spec(self) -> dict[str, Any]:
        """The bot spec, a fresh copy each call (callers may change it)."""
        return {"name": self.bot, "options": dict(self.options)}

    @property
    def label(self) -> str:
        """How tables name it: the bot and the commit, e.g. ``ismcts (a322b0d)``."""
        return f"{self.bot} ({self.commit})"


# The ISMCTS of commit a322b0d, issue 15's starting point: single-observer ISMCTS, uniform
# worlds with the heuristic's commit prior, UCB1, no prior, unseen moves sampled with the world,
# rollouts by the game heuristic's own cut-off, the root's visits as the policy. Same hints for
# the same seeds as that commit, as long as the games' heuristics (its rollouts) are the same.
ISMCTS_LEGACY = Baseline(
    alias="ismcts-legacy",
    commit="a322b0d",
    bot="ismcts",
    options={
        "exploration": 0.7,
        "rollout": "auto",
        "rollout_depth": -1,
        "opponent_model": "heuristic",
        "worlds": 32,
        "beliefs": "uniform",
        "hidden_moves": "sample",
        "selection": "uct",
        "prior_weight": 0.0,
        "rollout_opponents": 0,
        "opponent_moves": "search",
        "final_policy": "visits",
    },
    why="issue 15's starting point, the reference of its comparisons",
)

BASELINES: dict[str, Baseline] = {b.alias: b for b in (ISMCTS_LEGACY,)}
