"""Per-game knowledge: heuristic play, action abstraction and evaluation (see ``base``).

``knowledge_for(game)`` returns the game's ``GameKnowledge`` or ``None`` when there is none;
games are added here as their heuristics are written. ``knowledge_for(game, style)`` picks an
older heuristic kept for comparisons (``STYLES``: Modern Art's ``simple``); a game with one
heuristic answers every style with it.
"""

from __future__ import annotations

from bots.heuristics.base import GameKnowledge
from bots.heuristics.detective_eye import DetectiveEyeKnowledge
from bots.heuristics.finger_auction import FingerAuctionKnowledge
from bots.heuristics.gallery_rush import GalleryRushKnowledge
from bots.heuristics.modern_art import ModernArtKnowledge
from bots.heuristics.modern_art_simple import SimpleModernArtKnowledge

KNOWLEDGE: dict[str, GameKnowledge] = {
    k.game: k
    for k in (
        GalleryRushKnowledge(),
        FingerAuctionKnowledge(),
        DetectiveEyeKnowledge(),
        ModernArtKnowledge(),
    )
}


# Heuristic styles other than "default", by game.
STYLE_NAMES = ("default", "simple")
STYLES: dict[str, dict[str, GameKnowledge]] = {
    "modern_art": {"simple": SimpleModernArtKnowledge()},
}


def knowledge_for(game: str, style: str = "default") -> GameKnowledge | None:
    if style != "default":
        styled = STYLES.get(game, {}).get(style)
        if styled is not None:
            return styled
    return KNOWLEDGE.get(game)


__all__ = ["KNOWLEDGE", "STYLES", "STYLE_NAMES", "GameKnowledge", "knowledge_for"]
