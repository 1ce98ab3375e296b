"""How a sentence meant for a person names a seat: from 1, as the play page does.

The API's JSON counts seats from 0 (every ``seat`` field, ``seats`` list and index), which is
what programs read. Sentences are read by people, and the /play page numbers its seats from 1
(``seatName`` in ``server/static/play/widgets.js``: "Seat 1" is the JSON's seat 0), so a hint
sentence that said "seat 0" named the page's Seat 1 by another number. Every sentence written
for a person (``explain.text``) names seats through this one rule.
"""

from __future__ import annotations


def seat_words(seat: int, *, capital: bool = False) -> str:
    """``"seat 3"`` for the JSON's seat 2 (``"Seat 3"`` to open a sentence)."""
    return f"{'Seat' if capital else 'seat'} {seat + 1}"
