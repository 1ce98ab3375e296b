"""The first Modern Art heuristic, kept as the ``heuristic`` bot's style ``simple`` (the default
style is ``modern_art.py``): artist values from the board and our hand, bid caps from expected
value and the relative-profit argument, and which card (so which auction) to offer.

What a seat knows and the heuristic reads: money (every payment is public), this round's
counts per artist, the artists' cumulative values, every painting bought this round, the cards
played so far, its own hand, and the auction in progress. It never reads another seat's hand or
an unrevealed sealed bid.

* **Artist values.** A painting bought now pays the artist's cumulative value plus this round's
  place value if the artist ends the round in the top three. The projected count of an artist
  is its count so far plus half our own cards of it plus a third of what the other hands are
  expected to hold (the unseen cards, in proportion); the projected ranking (ties by board
  order) gives a place value, discounted by how safe the place is (first 0.95, second 0.85,
  third 0.65; an artist projected outside the top three keeps 15% of a third place, as it may
  still climb).
* **Bid caps.** Money decides the game *relative* to the others: buying at price ``P`` a lot
  worth ``V`` gains us ``V - P`` and gives the auctioneer ``P``, so against the average
  opponent it is worth ``V - P - P / (n - 1)``: the break-even price is ``V (n - 1) / n``. An
  auctioneer buying its own lot pays the bank, so its cap is ``V``. Caps are shaded by 5%.
* **Auctions.** Open: raise by a tenth of the cap while under it. Once Around: one bid at 80%
  of the cap (the auctioneer, last, just tops the high bid if it is worth it). Sealed: 80% of
  the cap. Fixed price: name 75% of the lot's value (we must buy it ourselves if nobody does,
  so never above its worth to us); answer by accepting any price within the cap.
* **Offers.** Each playable card is scored by the revenue it should fetch (the lot's value to
  the others, times their share ``(n - 1) / n`` and a factor per auction type: Open 1.0, Sealed
  0.9, Once Around 0.85, Fixed 0.8, a Double alone 0.7) minus what the buyer gains over us, plus
  what promoting the artist adds to paintings we bought this round. A card that ends the round
  is scored by this round's payout to us against the others'.

The same estimates give the ISMCTS bot its candidate bids (``candidates``): pass, the minimum
raise, and fractions of the cap (or of the lot's value for prices), always legal amounts.
"""

from __future__ import annotations

from typing import Any

from bots.heuristics.base import GameKnowledge
from bots.heuristics.modern_art import (
    _deck_by_artist,
    amount_candidates,
    estimated_returns,
    exact_values,
    held,
    sealed_prior,
)
from games.modern_art import actions as codec
from games.modern_art.cards import (
    ARTIST_NAMES,
    DOUBLE,
    FIXED,
    NUM_TYPES,
    ONCE_AROUND,
    OPEN,
    ROUND_END_COUNT,
    SEALED,
)
from games.modern_art.engine import (
    ACCEPT,
    ADD,
    ANSWER,
    ONCE_BIDS,
    OPEN_BIDS,
    PASS,
    PLAY,
    PRICE,
    SEALED_BIDS,
    ModernArtEngine,
)

PLACE_CONFIDENCE = (0.95, 0.85, 0.65)
OUTSIDE_SHARE = 0.15
OWN_CARDS_WEIGHT = 0.5
OTHER_CARDS_WEIGHT = 1.0 / 3.0
SHADE = 0.95
TYPE_FACTOR = {OPEN: 1.0, ONCE_AROUND: 0.85, SEALED: 0.9, FIXED: 0.8, DOUBLE: 0.7}
CAP_FRACTIONS = (0.5, 0.7, 0.85, 1.0, 1.15)
PRICE_FRACTIONS = (0.5, 0.65, 0.8, 1.0, 1.2)


def artist_values(engine: ModernArtEngine, seat: int) -> list[float]:
    """Expected payout of one painting of each artist bought now, from ``seat``'s view."""
    cfg = engine.cfg
    artists = cfg.artists
    deck = _deck_by_artist(cfg)
    seen = engine.seen
    counts = engine.counts
    mine = held(engine, seat)
    # Cards not yet seen by this seat: the deck minus cards played and our own hand.
    unseen = [
        deck[a] - sum(seen[a * NUM_TYPES : (a + 1) * NUM_TYPES]) - mine[a] for a in range(artists)
    ]
    unseen_total = sum(unseen) or 1
    others = (sum(engine.hand_size) - engine.hand_size[seat]) * OTHER_CARDS_WEIGHT / unseen_total
    # Sort key: an artist at four cards this round is the likely round-ender, so first.
    keys = [
        -(100 if counts[a] >= ROUND_END_COUNT - 1 else 0)
        - counts[a]
        - OWN_CARDS_WEIGHT * mine[a]
        - others * unseen[a]
        + 0.001 * a
        for a in range(artists)
    ]
    places = cfg.place_values
    values = engine.values
    out = [0.0] * artists
    for rank, a in enumerate(sorted(range(artists), key=keys.__getitem__)):
        if not counts[a] and not mine[a] and unseen[a] <= 0:
            continue  # nobody can play it this round: it cannot be ranked
        if rank < len(places):
            out[a] = (values[a] + places[rank]) * PLACE_CONFIDENCE[rank]
        else:
            out[a] = (values[a] + places[-1]) * OUTSIDE_SHARE
    return out


def public_values(engine: ModernArtEngine) -> list[float]:
    """Artist values from public counts alone (for evaluating every seat alike)."""
    cfg = engine.cfg
    order = sorted(range(cfg.artists), key=lambda a: (-engine.counts[a], a))
    out = [0.0] * cfg.artists
    for rank, a in enumerate(order):
        if engine.counts[a] and rank < len(cfg.place_values):
            out[a] = (engine.values[a] + cfg.place_values[rank]) * PLACE_CONFIDENCE[rank]
    return out


def round_payouts(engine: ModernArtEngine, artist: int, extra: int) -> list[int]:
    """Every seat's payout if the round ended now with ``extra`` more cards of ``artist``."""
    value = exact_values(engine, artist, extra)
    return [sum(b[a] * v for a, v in enumerate(value)) for b in engine.bought]


class Lot:
    """The auction in progress as the seat to move sees it: value and cap."""

    __slots__ = ("cap", "value")

    def __init__(self, engine: ModernArtEngine, seat: int) -> None:
        n = engine.num_players
        self.value = artist_values(engine, seat)[engine.artist] * engine.ncards
        if seat == engine.auctioneer:
            self.cap = SHADE * self.value
        else:
            self.cap = SHADE * self.value * (n - 1) / n


def _amount(x: float, low: int, high: int) -> int:
    return max(low, min(high, round(x)))


class SimpleModernArtKnowledge(GameKnowledge):
    """Kept so comparisons with the first heuristic can be rerun:
    ``{"name": "heuristic", "options": {"style": "simple"}}``."""

    game = "modern_art"
    abstracts = True
    # Whole games are long (hundreds of bids); rollouts play the heuristic for a while and the
    # evaluation takes over.
    default_rollout = "heuristic"
    default_rollout_depth = 40

    # --- the heuristic's own choice ------------------------------------------------------------
    def bid(self, engine: ModernArtEngine, lot: Lot | None = None) -> int:
        """The amount phases' choice (an action id)."""
        seat = engine.to_move
        phase = engine.phase
        money = engine.money[seat]
        lot = lot or Lot(engine, seat)
        if phase == OPEN_BIDS:
            high = engine.high
            if engine.high_bidder == seat or lot.cap <= high or money <= high:
                return PASS
            step = max(1, int(lot.cap / 10))
            return codec.amount(_amount(high + step, high + 1, min(money, int(lot.cap))))
        if phase == ONCE_BIDS:
            high = engine.high
            if lot.cap <= high + 1 or money <= high:
                return PASS
            if seat == engine.auctioneer:
                return codec.amount(high + 1)
            return codec.amount(_amount(0.8 * lot.cap, high + 1, min(money, int(lot.cap))))
        if phase == SEALED_BIDS:
            return codec.amount(_amount(0.8 * lot.cap, 0, money))
        if phase == PRICE:
            if money == 0:
                return codec.amount(0)
            return codec.amount(_amount(0.75 * lot.value, 1, money))
        raise ValueError(f"no amount to choose in phase {phase}")

    def rate(self, engine: ModernArtEngine) -> list[tuple[int, float]]:  # type: ignore[override]
        phase = engine.phase
        seat = engine.to_move
        if phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE):
            chosen = self.bid(engine)
            others = self.candidates(engine, None)
            return [(a, 1.0 if a == chosen else -abs(a - chosen) / 1000.0) for a in others]
        if phase == ANSWER:
            lot = Lot(engine, seat)
            legal = engine.player_actions()
            accept = engine.price <= lot.cap and ACCEPT in legal
            return [(a, 1.0 if (a == ACCEPT) == accept else 0.0) for a in legal]
        if phase == ADD:
            return self._rate_add(engine, seat)
        if phase == PLAY:
            return self._rate_offers(engine, seat)
        raise ValueError(f"no decision in phase {phase}")

    def playout(self, engine: ModernArtEngine, rng: Any) -> int:  # type: ignore[override]
        """The heuristic's bids and answers; a random card to offer (scoring offers is slow)."""
        phase = engine.phase
        if phase == PLAY:
            legal = engine.player_actions()
            return legal[int(rng.random() * len(legal))]
        if phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE):
            return self.bid(engine)
        return self.choose(engine, rng)

    def _rate_add(self, engine: ModernArtEngine, seat: int) -> list[tuple[int, float]]:
        n = engine.num_players
        value = artist_values(engine, seat)[engine.artist]
        # Adding makes us auctioneer of two paintings; the revenue is shared with the seller.
        revenue = 0.5 * 2 * value * (n - 1) / n
        out = [(PASS, 0.0)]
        for a in engine.player_actions():
            if a != PASS:
                t = codec.added_type(a)
                out.append((a, revenue * TYPE_FACTOR[t] - 0.5 * value))
        return out

    def _rate_offers(self, engine: ModernArtEngine, seat: int) -> list[tuple[int, float]]:
        n = engine.num_players
        values = artist_values(engine, seat)
        out = []
        for action in engine.player_actions():
            artist, t, cards = codec.sale_of(action)
            factor = TYPE_FACTOR[t]
            if engine.counts[artist] + cards >= ROUND_END_COUNT:
                pay = round_payouts(engine, artist, cards)
                others = (sum(pay) - pay[seat]) / (n - 1)
                out.append((action, pay[seat] - others))
                continue
            # The artist one card further up: its value to the buyers after our offer.
            engine.counts[artist] += cards
            promoted = artist_values(engine, seat)
            engine.counts[artist] -= cards
            lot = promoted[artist] * cards
            price = lot * (n - 1) / n * factor
            buyer_gain = lot - price
            promotion = engine.bought[seat][artist] * (promoted[artist] - values[artist])
            out.append((action, price - buyer_gain / (n - 1) + promotion))
        return out

    # --- action abstraction for search ---------------------------------------------------------
    def candidates(  # type: ignore[override]
        self, engine: ModernArtEngine, legal: list[int] | None
    ) -> list[int]:
        phase = engine.phase
        if phase not in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE):
            return legal if legal is not None else engine.player_actions()
        lot = Lot(engine, engine.to_move)
        own = self.bid(engine, lot)  # the heuristic's own choice is always a candidate
        return amount_candidates(
            engine, own, lot.cap, lot.value, CAP_FRACTIONS, PRICE_FRACTIONS, round
        )

    def commit_prior(  # type: ignore[override]
        self, engine: ModernArtEngine, candidates: list[int]
    ) -> list[float]:
        """An unrevealed sealed bid: most likely near the heuristic's bid for that seat."""
        lot = Lot(engine, engine.to_move)
        return sealed_prior(codec.amount_of(self.bid(engine, lot)), lot.cap, candidates)

    # --- evaluation -------------------------------------------------------------------------
    def evaluate(self, engine: ModernArtEngine) -> list[float]:  # type: ignore[override]
        """Final money estimated from money and this round's paintings at public values."""
        return estimated_returns(engine, public_values(engine))

    def explain(self, engine: ModernArtEngine) -> dict[str, Any]:  # type: ignore[override]
        seat = engine.to_move
        values = artist_values(engine, seat)
        out: dict[str, Any] = {
            "artist_values": {ARTIST_NAMES[a]: round(v, 1) for a, v in enumerate(values)}
        }
        if engine.phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER):
            lot = Lot(engine, seat)
            out["lot_value"] = round(lot.value, 1)
            out["bid_cap"] = round(lot.cap, 1)
        return out
