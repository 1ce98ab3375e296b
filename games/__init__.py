"""Atelier's games, registered with OpenSpiel on import.

``import games`` makes ``pyspiel.load_game(name, params)`` work for every name in
``DEFINITIONS``. ``sample_state(game, infoset, seed)`` turns an information-set JSON back into a
full state (see ``games.core.infoset``); it raises ``InvalidInfoset`` for an impossible one.
"""

from __future__ import annotations

import pyspiel

from games.core.definition import GameDefinition, InvalidAction, InvalidInfoset
from games.core.infoset import build_infoset, canonical_json, sample_engine
from games.core.params import InvalidParams
from games.core.spiel import AtelierGame, AtelierState, register, sample_state
from games.detective_eye import DETECTIVE_EYE
from games.finger_auction import FINGER_AUCTION
from games.gallery_rush import GALLERY_RUSH
from games.modern_art import MODERN_ART

# Every game, by its OpenSpiel short name. New games add one line here.
DEFINITIONS: dict[str, GameDefinition] = {
    d.name: d for d in (GALLERY_RUSH, DETECTIVE_EYE, FINGER_AUCTION, MODERN_ART)
}

for _name, _defn in DEFINITIONS.items():
    if _name not in pyspiel.registered_names():
        register(_defn)


def definition(name: str) -> GameDefinition:
    """The definition of game ``name``; ``KeyError`` naming the known games otherwise."""
    try:
        return DEFINITIONS[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known: {sorted(DEFINITIONS)}") from None


__all__ = [
    "DEFINITIONS",
    "AtelierGame",
    "AtelierState",
    "GameDefinition",
    "InvalidAction",
    "InvalidInfoset",
    "InvalidParams",
    "build_infoset",
    "canonical_json",
    "definition",
    "sample_engine",
    "sample_state",
]
