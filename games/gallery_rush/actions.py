"""Gallery Rush's action ids: the one place that says which number is which move.

Player actions::

    0      explore
    1-5    declare Monet, van Gogh, Vermeer, forgery, Mona Lisa    declare(call)
    6      continue
    7      confirm
    8      pass (only when no card is left to flip anywhere)
    9-12   steal a Monet, van Gogh, Vermeer or the Mona Lisa       steal(slot)

Chance outcomes are the start player's seat at the first step, then the kind of card flipped
(0-6 in ``games.paintings`` order); they are not ids of this table.
"""

from __future__ import annotations

EXPLORE = 0
DECLARE_MONET, DECLARE_VAN_GOGH, DECLARE_VERMEER = 1, 2, 3
DECLARE_FORGERY, DECLARE_MONA_LISA = 4, 5
CONTINUE, CONFIRM, PASS = 6, 7, 8
STEAL_BASE = 9  # STEAL_BASE + slot, slot 0..2 = painter, 3 = the Mona Lisa
NUM_ACTIONS = 13

# A declaration's call, by ``call_of``; a steal's slot (a collection index), by ``slot_of``.
CALL_NAMES = ("Monet", "van Gogh", "Vermeer", "forgery", "Mona Lisa")
CALL_BY_NAME = {name: i for i, name in enumerate(CALL_NAMES)}
CALL_FORGERY, CALL_MONA_LISA = 3, 4
SLOT_NAMES = ("Monet", "van Gogh", "Vermeer", "Mona Lisa")
ML_SLOT = 3
# The plain actions by their JSON type.
SIMPLE = {"explore": EXPLORE, "continue": CONTINUE, "confirm": CONFIRM, "pass": PASS}
DECLARATIONS = list(range(DECLARE_MONET, DECLARE_MONA_LISA + 1))
TURN_ACTIONS = (EXPLORE, *DECLARATIONS)  # a turn with cards left to flip


def declare(call: int) -> int:
    return DECLARE_MONET + call


def is_declare(action: int) -> bool:
    return DECLARE_MONET <= action <= DECLARE_MONA_LISA


def call_of(action: int) -> int:
    return action - DECLARE_MONET


def steal(slot: int) -> int:
    return STEAL_BASE + slot


def slot_of(action: int) -> int:
    return action - STEAL_BASE
