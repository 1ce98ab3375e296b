"""Modern Art's action ids: the one place that says which number is which move.

Player actions (``docs/rules/modern_art.md`` has the table)::

    0 pass, 1 accept, 2 decline
    3-6    add a partner card to a Double: 3 + partner type (Open, Once Around, Sealed, Fixed)
    7-31   offer one card: 7 + card kind (artist * 5 + auction type)
    32-51  offer a Double with a partner card: 32 + artist * 4 + partner type
    52+x   a bid, sealed bid or fixed price of exactly x (0 <= x <= the money cap)

Chance outcomes are card kinds (deals) or seats (the first seller), not ids of this table.
What an id *means* can depend on the phase (an amount is a bid, a sealed bid or a price), so
this module only encodes and decodes the fields; the engine names the move.

The engine, the definition (JSON and strings), the sampler and the heuristics all read ids
through these functions and tables, so a change of layout is a change here.
"""

from __future__ import annotations

from games.modern_art.cards import DOUBLE, MAX_ARTISTS, NUM_TYPES, Config

PASS, ACCEPT, DECLINE = 0, 1, 2
ADD_BASE = 3  # + partner type (Open, Once Around, Sealed, Fixed)
OFFER_BASE = 7  # + card kind (artist * 5 + type), 25 ids
PAIR_BASE = 32  # + artist * 4 + partner type: a Double sold with a partner card (way 1)
AMOUNT_BASE = 52  # + amount: bids, sealed bids and fixed prices
PARTNER_TYPES = DOUBLE  # a partner card is any type but a Double: 4 of them

SIMPLE_NAMES = ("pass", "accept", "decline")

# Lookup tables for the hot paths (``itertools.compress`` over a hand walks them in C).
# Offer ids by card kind; per artist the Double-with-partner ids by partner type; add ids by
# partner type.
OFFER_IDS = tuple(range(OFFER_BASE, PAIR_BASE))
PAIR_IDS = tuple(
    tuple(range(PAIR_BASE + PARTNER_TYPES * a, PAIR_BASE + PARTNER_TYPES * (a + 1)))
    for a in range(MAX_ARTISTS)
)
ADD_IDS = tuple(range(ADD_BASE, ADD_BASE + PARTNER_TYPES))


def num_actions(cfg: Config) -> int:
    """Distinct player action ids for a setting (the amounts run up to the money cap)."""
    return AMOUNT_BASE + cfg.max_money + 1


# --- encode ----------------------------------------------------------------------------------
def offer(kind: int) -> int:
    return OFFER_BASE + kind


def offer_pair(artist: int, partner_type: int) -> int:
    return PAIR_BASE + artist * PARTNER_TYPES + partner_type


def add(partner_type: int) -> int:
    return ADD_BASE + partner_type


def amount(x: int) -> int:
    return AMOUNT_BASE + x


# --- decode (the ranges are disjoint and ordered: test from the top) -------------------------
def is_amount(action: int) -> bool:
    return action >= AMOUNT_BASE


def is_pair(action: int) -> bool:
    return PAIR_BASE <= action < AMOUNT_BASE


def is_offer(action: int) -> bool:
    return OFFER_BASE <= action < PAIR_BASE


def is_add(action: int) -> bool:
    return ADD_BASE <= action < OFFER_BASE


def amount_of(action: int) -> int:
    return action - AMOUNT_BASE


def pair_of(action: int) -> tuple[int, int]:
    """``(artist, partner type)`` of a Double offered with a partner."""
    return divmod(action - PAIR_BASE, PARTNER_TYPES)


def pair_kinds(action: int) -> tuple[int, int]:
    """The two cards of a Double offered with a partner: ``(Double kind, partner kind)``."""
    artist, t = divmod(action - PAIR_BASE, PARTNER_TYPES)
    base = artist * NUM_TYPES
    return base + DOUBLE, base + t


def offered_kind(action: int) -> int:
    return action - OFFER_BASE


def added_type(action: int) -> int:
    return action - ADD_BASE


def offer_of(action: int) -> tuple[int, int]:
    """``(artist, auction type)`` of a one-card offer."""
    return divmod(action - OFFER_BASE, NUM_TYPES)


def sale_of(action: int) -> tuple[int, int, int]:
    """An offer (one card, or a Double with a partner) as ``(artist, auction type, cards)``:
    a Double with a partner is two cards sold by the partner's type."""
    if is_pair(action):
        artist, t = pair_of(action)
        return artist, t, 2
    artist, t = offer_of(action)
    return artist, t, 1
