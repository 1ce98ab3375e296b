"""Opponent profiles (issue 45): named tendencies per game (``tendencies``), the heuristic
played with them (``policy``), the ``profiled`` bot (``bot``), the search's opponent model with
per-seat profiles and its safety setting (``model``), the evidence of a game's moves that scales
a seat's trust (``evidence``), and maximum-likelihood fitting from game records (``fit``)."""

from bots.profiles.tendencies import (
    BIASED,
    TENDENCIES,
    InvalidProfile,
    Tendency,
    check_profile,
    check_seat_profiles,
)

__all__ = [
    "BIASED",
    "TENDENCIES",
    "InvalidProfile",
    "Tendency",
    "check_profile",
    "check_seat_profiles",
]
