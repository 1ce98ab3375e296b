"""Bot options that hold profiles: one profile (``tendencies``) or one per seat
(``opponents``). A bot's options are checked before the game is known, so these check the
shape and that every tendency exists in some game; ``game_profile`` / ``game_seat_profiles``
check them against the game when the bot moves (``InvalidBotSpec`` naming what is wrong)."""

from __future__ import annotations

from typing import Any

from bots.profiles.tendencies import (
    TENDENCIES,
    InvalidProfile,
    check_profile,
    check_seat_profiles,
)
from bots.protocol import InvalidBotSpec
from games.core.params import InvalidParams, ParamSpec

ANY_GAME = "any game"
# Every tendency of every game, by name (a name has one meaning and range in every game).
ALL_TENDENCIES = {t.name: t for ts in TENDENCIES.values() for t in ts}


def check_any_profile(raw: Any, where: str) -> dict[str, float]:
    """A profile whose tendencies exist in some game (the game is checked later)."""
    if not isinstance(raw, dict):
        raise InvalidParams(f"parameter {where} must be an object of tendencies, got {raw!r}")
    for name in raw:
        if name not in ALL_TENDENCIES:
            raise InvalidParams(
                f"parameter {where}: unknown tendency {name!r}; known: {sorted(ALL_TENDENCIES)}"
            )
    games = [g for g, ts in TENDENCIES.items() if set(raw) <= {t.name for t in ts}]
    try:
        if games:
            return check_profile(games[0], raw, f"parameter {where}")
        return {name: check_profile(_game_of(name), {name: v})[name] for name, v in raw.items()}
    except InvalidProfile as err:
        raise InvalidParams(str(err)) from None


def _game_of(name: str) -> str:
    return next(g for g, ts in TENDENCIES.items() if any(t.name == name for t in ts))


class TendenciesSpec(ParamSpec):
    """A bot option holding one profile (``{"bid_scale": 1.3}``)."""

    def check(self, value: Any) -> Any:
        return check_any_profile(value, f"'{self.name}'")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "type": "object", "default": {}, "doc": self.doc}


class SeatProfilesSpec(ParamSpec):
    """A bot option holding a profile per seat (``{"1": {"bid_scale": 1.3}}``)."""

    def check(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise InvalidParams(
                f"parameter '{self.name}' must be an object from seat to profile, got {value!r}"
            )
        out = {}
        for seat, profile in value.items():
            text = str(seat)
            if isinstance(seat, bool) or not text.isdigit():
                raise InvalidParams(
                    f"parameter '{self.name}': seat {seat!r} must be a whole number >= 0"
                )
            out[str(int(text))] = check_any_profile(profile, f"'{self.name}[{seat}]'")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "type": "object", "default": {}, "doc": self.doc}


def game_profile(bot: str, game: str, profile: dict[str, float]) -> dict[str, float]:
    """``profile`` checked against ``game`` (``InvalidBotSpec`` naming the bot otherwise)."""
    try:
        return check_profile(game, profile, "option 'tendencies'")
    except InvalidProfile as err:
        raise InvalidBotSpec(f"bot {bot!r}: {err}") from None


def game_seat_profiles(
    bot: str, game: str, profiles: dict[str, dict[str, float]], players: int
) -> dict[int, dict[str, float]]:
    """Per-seat ``profiles`` checked against ``game`` and its ``players`` seats."""
    try:
        return check_seat_profiles(game, profiles, players, "option 'opponents'")
    except InvalidProfile as err:
        raise InvalidBotSpec(f"bot {bot!r}: {err}") from None
