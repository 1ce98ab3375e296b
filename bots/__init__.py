"""Bots: one protocol (``bots.protocol``), a registry of specs, baselines and search bots."""

from bots.protocol import ActionStat, Bot, Budget, Hint, InvalidBotSpec, InvalidBudget
from bots.registry import BOTS, bot_catalog, build_checked, make_bot, normalised_spec

__all__ = [
    "BOTS",
    "ActionStat",
    "Bot",
    "Budget",
    "Hint",
    "InvalidBotSpec",
    "InvalidBudget",
    "bot_catalog",
    "build_checked",
    "make_bot",
    "normalised_spec",
]
