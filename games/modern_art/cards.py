"""Modern Art's cards, names and the game configuration derived from the parameters.

A card is a *kind*: ``artist * 5 + auction type``. Cards of one kind are interchangeable, so
hands and the deck are counts per kind and a deal is a chance node over the remaining deck's
composition (see ``docs/rules/modern_art.md``).

The configuration (``Config``) turns the validated parameters into the numbers the engine
needs (deck, deal sizes, money cap, points table) once, and is shared by every engine built
for those parameters, because ``new_engine`` runs for every information set that is built.
"""

from __future__ import annotations

from typing import Any

# Artists in board order, which is also the ranking tie-break order.
ARTIST_NAMES = ("Lite Metal", "Yoko", "Christin P.", "Karl Gitter", "Krypto")
ARTIST_BY_NAME = {name: a for a, name in enumerate(ARTIST_NAMES)}
MAX_ARTISTS = len(ARTIST_NAMES)

# Auction types; a card's type is the kind of auction it is sold by.
OPEN, ONCE_AROUND, SEALED, FIXED, DOUBLE = range(5)
TYPE_NAMES = ("Open", "Once Around", "Sealed", "Fixed", "Double")
TYPE_BY_NAME = {name: t for t, name in enumerate(TYPE_NAMES)}
NUM_TYPES = 5

# RULINGS.md: cards per artist and auction type (Open / Once Around / Sealed / Fixed / Double).
FULL_COMPOSITION = (
    (3, 3, 2, 2, 2),  # Lite Metal, 12
    (3, 2, 3, 3, 2),  # Yoko, 13
    (3, 3, 3, 3, 2),  # Christin P., 14
    (3, 3, 3, 3, 3),  # Karl Gitter, 15
    (4, 3, 3, 3, 3),  # Krypto, 16
)

# Ranking values for first, second and third place in a round.
PLACE_VALUES = (30, 20, 10)
# A round ends the moment an artist's fifth card of the round is played.
ROUND_END_COUNT = 5
# Refills happen before these rounds (1-based), when they are played.
REFILL_ROUNDS = (2, 3)

# Seed deal and refill sizes by player count; the classic rules deal 10 to three players.
SEED_DEAL = {3: 11, 4: 9, 5: 8}
CLASSIC_DEAL = {3: 10, 4: 9, 5: 8}
REFILL = {3: 6, 4: 4, 5: 3}
# The seed's points table: 5 players 1st 5, 2nd 4; 4 players 1st 4; 3 players 1st 3.
POINTS = {3: (3, 0, 0), 4: (4, 0, 0, 0), 5: (5, 4, 0, 0, 0)}


def kind_of(artist: int, auction: int) -> int:
    return artist * NUM_TYPES + auction


def card_name(kind: int) -> str:
    """``"Yoko Sealed"``: the artist's name and the auction type."""
    return f"{ARTIST_NAMES[kind // NUM_TYPES]} {TYPE_NAMES[kind % NUM_TYPES]}"


def card_struct(kind: int) -> dict[str, str]:
    return {"artist": ARTIST_NAMES[kind // NUM_TYPES], "auction": TYPE_NAMES[kind % NUM_TYPES]}


def counts_by_card(counts: list[int]) -> dict[str, int]:
    """``{card name: count}`` for the kinds present, in kind order."""
    return {card_name(k): c for k, c in enumerate(counts) if c}


def composition(artists: int, cards_per_artist: int) -> tuple[int, ...]:
    """The deck as counts per kind.

    ``cards_per_artist == 0`` is the real deck (RULINGS.md). A positive value is a reduced
    variant for tests and research: every artist gets that many cards whose types cycle
    Open, Once Around, Sealed, Fixed, Double, Open, ... (so 5 gives one card of each type).
    """
    deck: list[int] = []
    for a in range(artists):
        if cards_per_artist == 0:
            deck.extend(FULL_COMPOSITION[a])
        else:
            deck.extend(len(range(t, cards_per_artist, NUM_TYPES)) for t in range(NUM_TYPES))
    return tuple(deck)


_PARAMS_IDS: dict[tuple, int] = {}


def params_id(params: dict[str, Any]) -> int:
    """A small int per distinct parameter set, equal for equal parameters (numbered in order of
    first use in this process): ``Config.params_id``, what the heuristics' memo keys hold for
    the game (an int hashes in a few instructions and is untracked by the cyclic collector)."""
    key = tuple(sorted(params.items()))
    return _PARAMS_IDS.setdefault(key, len(_PARAMS_IDS))


class Config:
    """Everything the engine needs from the parameters, computed once per parameter set.

    ``max_money`` bounds every player's money for the whole game, which is what makes the bid
    encoding finite (bids, prices and sealed bids are action ``AMOUNT_BASE + amount`` with
    ``0 <= amount <= max_money``). Proof: payments between players keep the total money
    constant and payments to the bank lower it; only round payouts add money. In round ``r``
    a painting pays its artist's cumulative value, and the cumulative values of all artists
    together are at most ``r * V`` where ``V`` is the sum of the place values handed out per
    round (60 with at least three artists). A player buys at most ``B`` paintings of one
    artist per round, where ``B = min(4, most cards of one artist)``: the fifth card of an
    artist ends the round unsold. So round ``r`` pays out at most ``B * r * V`` in total, and
    nobody can ever hold more than ``players * money + B * V * (1 + 2 + ... + rounds)``
    (2900 for five players in the full game).
    """

    __slots__ = (
        "artist_cards",
        "artists",
        "deal",
        "deck",
        "deck_size",
        "kinds",
        "max_money",
        "money",
        "n",
        "params",
        "params_id",
        "place_values",
        "points",
        "points_table",
        "refill",
        "rounds",
        "seed_rules",
    )

    def __init__(self, params: dict[str, Any]) -> None:
        n = params["players"]
        self.params = dict(params)
        self.params_id = params_id(self.params)
        self.n = n
        self.artists = params["artists"]
        self.kinds = self.artists * NUM_TYPES
        self.deck = composition(self.artists, params["cards_per_artist"])
        self.deck_size = sum(self.deck)
        self.rounds = params["rounds"]
        self.money = params["money"]
        self.seed_rules = params["ruleset"] == "seed"
        self.points = params["payoff"] == "points"
        default_deal = (SEED_DEAL if self.seed_rules else CLASSIC_DEAL)[n]
        self.deal = default_deal if params["deal"] < 0 else params["deal"]
        self.refill = REFILL[n] if params["refill"] < 0 else params["refill"]
        self.place_values = PLACE_VALUES[: min(len(PLACE_VALUES), self.artists)]
        # The cards of each artist in the deck (the heuristics' supplies read it per view).
        self.artist_cards = tuple(
            sum(self.deck[a * NUM_TYPES : (a + 1) * NUM_TYPES]) for a in range(self.artists)
        )
        per_artist = max(self.artist_cards)
        most_bought = min(ROUND_END_COUNT - 1, per_artist)
        value_per_round = sum(self.place_values)
        triangle = self.rounds * (self.rounds + 1) // 2
        self.max_money = n * self.money + most_bought * value_per_round * triangle
        self.points_table = POINTS[n]

    @property
    def refills(self) -> int:
        """How many refills the game has (before rounds 2 and 3, when they are played)."""
        return sum(1 for r in REFILL_ROUNDS if r <= self.rounds)

    @property
    def cards_dealt(self) -> int:
        """Every card the game deals, first deal and refills together."""
        return self.n * (self.deal + self.refill * self.refills)
