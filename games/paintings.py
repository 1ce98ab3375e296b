"""The 28-card deck shared by Gallery Rush, Finger Auction and Detective Eye.

24 paintings (8 each by Monet, van Gogh and Vermeer), 3 forgeries (one per painter) and one
Mona Lisa. Cards of a kind are interchangeable, so engines track counts per kind; a chance
node that flips a card draws a kind with probability proportional to its count.
"""

from __future__ import annotations

MONET, VAN_GOGH, VERMEER = 0, 1, 2
FORGERY_MONET, FORGERY_VAN_GOGH, FORGERY_VERMEER = 3, 4, 5
MONA_LISA = 6

PAINTERS = (MONET, VAN_GOGH, VERMEER)
PAINTER_NAMES = ("Monet", "van Gogh", "Vermeer")
KIND_NAMES = (
    "Monet",
    "van Gogh",
    "Vermeer",
    "Monet forgery",
    "van Gogh forgery",
    "Vermeer forgery",
    "Mona Lisa",
)
KIND_BY_NAME = {name: kind for kind, name in enumerate(KIND_NAMES)}
PAINTER_BY_NAME = {name: p for p, name in enumerate(PAINTER_NAMES)}
NUM_KINDS = len(KIND_NAMES)

FULL_DECK = (8, 8, 8, 1, 1, 1, 1)


def is_forgery(kind: int) -> bool:
    return 3 <= kind < 6


def forgery_painter(kind: int) -> int:
    """The painter a forgery imitates."""
    return kind - 3


def counts_to_names(counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    """``{kind name: count}`` for the kinds present, in deck order."""
    return {KIND_NAMES[k]: c for k, c in enumerate(counts) if c}


def shared_returns(num_players: int, winners: list[int]) -> list[float]:
    """Returns of the 28-card games (RULINGS "Common"): the winners share +1, the losers
    share -1, and a draw among all players is 0 for everyone."""
    won = len(winners)
    if won == num_players:
        return [0.0] * num_players
    win, lose = 1.0 / won, -1.0 / (num_players - won)
    return [win if s in winners else lose for s in range(num_players)]
