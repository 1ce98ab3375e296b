"""Gallery Rush: push-your-luck with the 28-card deck, 2-4 players."""

from games.gallery_rush.definition import GALLERY_RUSH, GalleryRush
from games.gallery_rush.engine import GalleryRushEngine

__all__ = ["GALLERY_RUSH", "GalleryRush", "GalleryRushEngine"]
