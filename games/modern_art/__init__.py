"""Modern Art: the auction game for 3-5 players, from the seed rules as settled by RULINGS.md."""

from games.modern_art.definition import MODERN_ART, ModernArt
from games.modern_art.engine import ModernArtEngine

__all__ = ["MODERN_ART", "ModernArt", "ModernArtEngine"]
