"""Detective Eye (Attribute Eye): bluffing and bidding with the 28-card deck, 2-4 players."""

from games.detective_eye.definition import DETECTIVE_EYE, SMALL_VARIANT, DetectiveEye
from games.detective_eye.engine import DetectiveEyeEngine

__all__ = ["DETECTIVE_EYE", "SMALL_VARIANT", "DetectiveEye", "DetectiveEyeEngine"]
