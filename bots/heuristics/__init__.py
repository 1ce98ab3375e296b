"""Per-game knowledge: heuristic play, action abstraction and evaluation (see ``base``).

``knowledge_for(game)`` returns the game's ``GameKnowledge`` or ``None`` when there is none;
games are added here as their heuristics are written.
"""

from __future__ import annotations

from bots.heuristics.base import GameKnowledge
from bots.heuristics.detective_eye import DetectiveEyeKnowledge
from bots.heuristics.finger_auction import FingerAuctionKnowledge
from bots.heuristics.gallery_rush import GalleryRushKnowledge
from bots.heuristics.modern_art import ModernArtKnowledge

KNOWLEDGE: dict[str, GameKnowledge] = {
    k.game: k
    for k in (
        GalleryRushKnowledge(),
        FingerAuctionKnowledge(),
        DetectiveEyeKnowledge(),
        ModernArtKnowledge(),
    )
}


def knowledge_for(game: str) -> GameKnowledge | None:
    return KNOWLEDGE.get(game)


__all__ = ["KNOWLEDGE", "GameKnowledge", "knowledge_for"]
