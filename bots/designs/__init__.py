"""Opponents we did not design: published Modern Art bots and widely played simple strategies.

One module per game; each bot plays one game and refuses the others (``unavailable_reason``).
docs/bots.md ("Opponents we did not write") describes them and measures the search against
each.
"""

from __future__ import annotations

from bots.designs.detective_eye import HonestBot
from bots.designs.finger_auction import ProportionalBot
from bots.designs.gallery_rush import StopAtKBot
from bots.designs.modern_art import FractionValueBot, HalfValueBot, PredictiveBot

DESIGN_BOTS = (
    HalfValueBot,
    FractionValueBot,
    PredictiveBot,
    StopAtKBot,
    ProportionalBot,
    HonestBot,
)

__all__ = [
    "DESIGN_BOTS",
    "FractionValueBot",
    "HalfValueBot",
    "HonestBot",
    "PredictiveBot",
    "ProportionalBot",
    "StopAtKBot",
]
