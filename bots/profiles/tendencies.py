"""Tendencies: the named parameters of an opponent profile, per game, and their checks.

A *profile* is a small dict of tendencies, e.g. ``{"bid_scale": 1.3}``. Each tendency changes
the heuristic's play in one way (``bots.profiles.policy`` says how) and has a *neutral* value
at which it changes nothing, so the empty profile is the heuristic itself. The catalogue here
is the one place that names them: the ``profiled`` bot, the ``ismcts`` option ``opponents``,
the hint API's ``profiles`` and ``atelier profile`` all validate against it.

``noise`` is common to every game (a careless player: a uniformly random considered move at
that rate); the others are the game's own. ``BIASED`` names the biased opponents of issue 45's
target 1: the heuristic with one tendency changed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class InvalidProfile(ValueError):
    """A profile that names an unknown tendency or seat, or a value out of its range."""


@dataclass(frozen=True)
class Tendency:
    """One named parameter: its neutral value, its range, and the grid ``atelier profile``
    searches (whole numbers when ``integer``)."""

    name: str
    neutral: float
    low: float
    high: float
    grid: tuple[float, ...]
    doc: str
    integer: bool = False


NOISE = Tendency(
    "noise",
    0.0,
    0.0,
    1.0,
    (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8),
    "a uniformly random considered move at this rate (a careless player)",
)
BID_SCALE_GRID = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.7, 2.0)
RATE_GRID = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

TENDENCIES: dict[str, tuple[Tendency, ...]] = {
    "finger_auction": (
        Tendency(
            "bid_scale",
            1.0,
            0.25,
            4.0,
            BID_SCALE_GRID,
            "bids (the take, in a two-player auction) as this multiple of the heuristic's, "
            "rounded, within 1..max_bid: above 1 an over-bidder, below 1 an under-bidder",
        ),
        NOISE,
    ),
    "modern_art": (
        Tendency(
            "bid_scale",
            1.0,
            0.25,
            4.0,
            BID_SCALE_GRID,
            "the most it pays for a lot (open, once-around and sealed auctions) as this "
            "multiple of the heuristic's cap, and sealed bids as this multiple of the "
            "heuristic's: above 1 an over-bidder, below 1 an under-bidder",
        ),
        NOISE,
    ),
    "detective_eye": (
        Tendency(
            "bluff_rate",
            0.0,
            0.0,
            1.0,
            RATE_GRID,
            "at this rate, a declaration or raise beyond its own face-down cards (the least "
            "such quantity of a painter, uniformly) instead of the heuristic's move",
        ),
        Tendency(
            "timid_rate",
            0.0,
            0.0,
            1.0,
            RATE_GRID,
            "at this rate, where the heuristic declares it places a card instead and where "
            "it raises it passes",
        ),
        NOISE,
    ),
    "gallery_rush": (
        Tendency(
            "explore_until",
            0.0,
            0.0,
            3.0,
            (0.0, 1.0, 2.0, 3.0),
            "keeps flipping (continue) while its Keep holds fewer than this many cards",
            integer=True,
        ),
        Tendency(
            "stop_at",
            4.0,
            1.0,
            4.0,
            (1.0, 2.0, 3.0, 4.0),
            "confirms as soon as its Keep holds this many cards (4: never forced)",
            integer=True,
        ),
        NOISE,
    ),
}

# The biased opponents of issue 45, target 1: the heuristic with one tendency changed.
BIASED: dict[str, dict[str, dict[str, float]]] = {
    "finger_auction": {
        "over_bidder": {"bid_scale": 1.5},
        "under_bidder": {"bid_scale": 0.6},
        "careless": {"noise": 0.3},
    },
    "modern_art": {
        "over_bidder": {"bid_scale": 1.3},
        "under_bidder": {"bid_scale": 0.7},
        "careless": {"noise": 0.3},
    },
    "detective_eye": {
        "bluffer": {"bluff_rate": 0.4},
        "timid": {"timid_rate": 0.7},
        "careless": {"noise": 0.3},
    },
    "gallery_rush": {
        "reckless_explorer": {"explore_until": 3},
        "cautious": {"stop_at": 1},
        "careless": {"noise": 0.3},
    },
}


def tendencies_of(game: str) -> tuple[Tendency, ...]:
    """The game's tendencies (``InvalidProfile`` for a game without a heuristic to bias)."""
    found = TENDENCIES.get(game)
    if found is None:
        raise InvalidProfile(
            f"game {game!r} has no opponent profiles; games with profiles: {sorted(TENDENCIES)}"
        )
    return found


def check_profile(game: str, raw: Any, where: str = "profile") -> dict[str, float]:
    """``raw`` as a checked profile of ``game`` (every value a float in range, whole numbers
    where the tendency counts something), or ``InvalidProfile`` naming what is wrong."""
    if not isinstance(raw, Mapping):
        raise InvalidProfile(f"{where} must be an object of tendencies, got {raw!r}")
    known = {t.name: t for t in tendencies_of(game)}
    out: dict[str, float] = {}
    for name, value in raw.items():
        tendency = known.get(name)
        if tendency is None:
            raise InvalidProfile(
                f"{where}: unknown tendency {name!r} for {game}; known: {sorted(known)}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise InvalidProfile(f"{where}: tendency {name!r} must be a number, got {value!r}")
        if not tendency.low <= value <= tendency.high:
            raise InvalidProfile(
                f"{where}: tendency {name!r} must be in [{tendency.low}, {tendency.high}], "
                f"got {value}"
            )
        if tendency.integer and float(value) != int(value):
            raise InvalidProfile(f"{where}: tendency {name!r} must be a whole number, got {value}")
        out[name] = float(value)
    return out


def check_seat_profiles(
    game: str, raw: Any, players: int | None = None, where: str = "profiles"
) -> dict[int, dict[str, float]]:
    """Per-seat profiles (``{"1": {...}}``, seats as strings or numbers) checked for
    ``game``; ``players`` (when known) bounds the seats."""
    if not isinstance(raw, Mapping):
        raise InvalidProfile(f"{where} must be an object from seat to profile, got {raw!r}")
    out: dict[int, dict[str, float]] = {}
    for key, profile in raw.items():
        seat = _seat(key, where)
        if players is not None and seat >= players:
            raise InvalidProfile(
                f"{where}: seat {seat} does not exist in a {players}-player game "
                f"(seats 0..{players - 1})"
            )
        out[seat] = check_profile(game, profile, f"{where}[{key}]")
    return out


def _seat(key: Any, where: str) -> int:
    text = str(key)
    if isinstance(key, bool) or not text.isdigit():
        raise InvalidProfile(f"{where}: seat {key!r} must be a whole number >= 0")
    return int(text)


def neutral_profile(game: str) -> dict[str, float]:
    """Every tendency of ``game`` at its neutral value (plays as the heuristic)."""
    return {t.name: t.neutral for t in tendencies_of(game)}


def full_profile(game: str, profile: Mapping[str, float]) -> dict[str, float]:
    """``profile`` with the tendencies it leaves out at their neutral values."""
    return {**neutral_profile(game), **profile}
