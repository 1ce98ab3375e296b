"""Modern Art bots of a public AI project, rebuilt from their published descriptions.

Source: the Modern Art AI research project of William Elliman (mentor Sean McCulloch, Ohio
Wesleyan University summer science research 2019, abstract "AI for the Card Game 'Modern
Art'") and its repository's README (github.com/welol5/Modern-Art-Board-Game, "About the
players"). We took the facts of the descriptions, not code. The README describes:

* **Reactive** (our ``half-value``): "predicts the end values of paintings based off of how
  they are doing in the given state of the game", "tries to end the season as fast as it
  can" and "will only bid up to half the expected value of the card".
* **Memory** (our ``fraction-value``): bids up to ``(n-1)/n`` of the expected value, n the
  player count, "for all players except the best other player".
* **Basic Predictive** (our ``predictive``): "disregards the best other player" and
  "considers cards that other players have won in its prediction of the prices of cards (to
  predict what other players will play)".

Readings where the descriptions are silent (the simplest we found; docs/bots.md lists them):

* **Expected value** (``half-value``, ``fraction-value``): each artist's payout if the round
  ended now (``exact_values``: this round's counts ranked, ties by board order, plus the
  cumulative values), times the cards in the lot. ``predictive`` forecasts the end of the
  round instead (``forecast``, the heuristic's race-to-five model) from the cards it expects
  every hand to *play*: its own hand exactly, each other hand's expected holdings (its size
  times the unseen cards' mix) tilted toward the artists that seat bought this round (weight
  ``1 + paintings bought``): a seat plays the artists it owns.
* **The cap** is the stated share of the lot's expected value: 1/2, ``(n-1)/n``, or for
  ``fraction-value`` 1/2 again when the auctioneer (who gets the money) is the best other
  player, read as the richest other seat (money is public); ``predictive`` uses ``(n-1)/n``
  for everyone. Bids never exceed the bidder's money.
* **Auctions**: Open: the minimum raise while it stays within the cap (and never against its
  own high bid). Once Around: the cap itself if it beats the high bid; the auctioneer, last,
  tops the high bid by one if that is within its cap. Sealed: the cap. Fixed price: the
  auctioneer names its own cap (it must buy the lot itself if nobody does, so the price is
  what it would pay), at least 1; an answer accepts a price within the cap.
* **Double, second way**: it adds a partner whenever it holds one (it becomes auctioneer of
  two paintings and shares the money), partner type in board order (Open first).
* **Which card**: ``half-value`` and ``fraction-value`` end the season as fast as they can:
  the offer that brings an artist closest to its fifth card (a Double with its partner counts
  two), a Double alone last among equals, then the lowest action id. ``predictive`` offers the
  lot with the highest forecast value after it is played (the seller gets the money); a card
  that would end the round (no sale) is worth nothing to it.
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar

from bots.designs.base import DesignBot
from bots.heuristics.modern_art import exact_values, forecast, held
from games.modern_art import actions as codec
from games.modern_art.cards import ARTIST_NAMES, DOUBLE, NUM_TYPES, ROUND_END_COUNT
from games.modern_art.engine import (
    ACCEPT,
    ADD,
    ANSWER,
    DECLINE,
    ONCE_BIDS,
    OPEN_BIDS,
    PASS,
    PLAY,
    PRICE,
    SEALED_BIDS,
    ModernArtEngine,
)

AMOUNT_PHASES = (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER)


def current_values(engine: ModernArtEngine) -> list[float]:
    """Each artist's payout per painting if the round ended now (the "reactive" estimate)."""
    return [float(v) for v in exact_values(engine, 0, 0)]


def expected_plays(
    engine: ModernArtEngine, seat: int, played: int = -1, cards: int = 0
) -> tuple[float, ...]:
    """Cards of each artist the hands are expected to play, from ``seat``'s view: its own hand
    exactly (less ``cards`` of ``played``, as if just offered), each other hand its size times
    the unseen cards' mix, tilted toward the artists that seat bought this round."""
    cfg = engine.cfg
    artists = cfg.artists
    mine = held(engine, seat)
    if played >= 0:
        mine[played] -= cards
    # Cards neither seen nor in our hand (a card just offered moves from the hand to the seen
    # cards, so this does not change with ``played``).
    now = held(engine, seat)
    unseen = [
        max(
            0,
            sum(cfg.deck[a * NUM_TYPES : (a + 1) * NUM_TYPES])
            - sum(engine.seen[a * NUM_TYPES : (a + 1) * NUM_TYPES])
            - now[a],
        )
        for a in range(artists)
    ]
    total = sum(unseen)
    supply = [float(m) for m in mine]
    if total:
        for r in range(engine.num_players):
            size = engine.hand_size[r]
            if r == seat or not size:
                continue
            weights = [u * (1 + engine.bought[r][a]) for a, u in enumerate(unseen)]
            scale = size / sum(weights)
            for a in range(artists):
                supply[a] += weights[a] * scale
    return tuple(round(min(s, m + u), 3) for s, m, u in zip(supply, mine, unseen, strict=True))


def predicted_values(
    engine: ModernArtEngine, seat: int, played: int = -1, cards: int = 0
) -> list[float]:
    """Each artist's forecast payout per painting at the end of the round (the "predictive"
    estimate), optionally as if ``cards`` of ``played`` had just been offered."""
    counts = list(engine.counts)
    plays = sum(engine.hand_size)
    if played >= 0:
        counts[played] += cards
        plays -= cards
    values, _ = forecast(
        tuple(counts),
        expected_plays(engine, seat, played, cards),
        tuple(engine.values),
        tuple(engine.cfg.place_values),
        plays,
    )
    return list(values)


def richest_other(engine: ModernArtEngine, seat: int) -> int:
    """The best other player: the richest seat but ``seat`` (ties: the lowest seat)."""
    others = [s for s in range(engine.num_players) if s != seat]
    return max(others, key=lambda s: (engine.money[s], -s))


class ModernArtDesign(DesignBot):
    """A bidder that pays up to a share of a lot's expected value (subclasses say which)."""

    game = "modern_art"
    fast_season: ClassVar[bool] = True  # offers: end the season fast (else: sell dearest)

    def values(self, engine: ModernArtEngine, seat: int) -> list[float]:
        return current_values(engine)

    def share(self, engine: ModernArtEngine, seat: int) -> float:
        raise NotImplementedError

    def cap(self, engine: ModernArtEngine, seat: int) -> float:
        """The most it pays for the lot in auction (its expected value times the share)."""
        lot = self.values(engine, seat)[engine.artist] * engine.ncards
        return self.share(engine, seat) * lot

    def choose(self, engine: ModernArtEngine, seat: int, rng: random.Random) -> int:
        phase = engine.phase
        if phase == PLAY:
            return self.offer(engine, seat)
        if phase == ADD:
            adds = [a for a in engine.player_actions() if a != PASS]
            return min(adds) if adds else PASS
        top = min(engine.money[seat], math.floor(self.cap(engine, seat) + 1e-9))
        high = engine.high
        if phase == OPEN_BIDS:
            if engine.high_bidder == seat or high + 1 > top:
                return PASS
            return codec.amount(high + 1)
        if phase == ONCE_BIDS:
            bid = high + 1 if seat == engine.auctioneer else top
            return codec.amount(bid) if high < bid <= top else PASS
        if phase == SEALED_BIDS:
            return codec.amount(max(0, top))
        if phase == PRICE:
            if engine.money[seat] == 0:
                return codec.amount(0)
            return codec.amount(max(1, top))
        if phase == ANSWER:
            can = ACCEPT in engine.player_actions()
            return ACCEPT if can and engine.price <= top else DECLINE
        raise ValueError(f"no decision for a player in phase {phase}")

    def offer(self, engine: ModernArtEngine, seat: int) -> int:
        legal = engine.player_actions()
        if self.fast_season:

            def hurry(action: int) -> tuple[int, bool, int]:
                artist, t, cards = codec.sale_of(action)
                return (engine.counts[artist] + cards, t != DOUBLE, -action)

            return max(legal, key=hurry)

        def worth(action: int) -> tuple[float, int]:
            artist, _, cards = codec.sale_of(action)
            if engine.counts[artist] + cards >= ROUND_END_COUNT:
                return (0.0, -action)  # ends the round: nothing is sold
            return (predicted_values(engine, seat, artist, cards)[artist] * cards, -action)

        return max(legal, key=worth)

    def explain(self, engine: ModernArtEngine, seat: int) -> dict[str, Any]:
        values = self.values(engine, seat)
        out: dict[str, Any] = {
            "artist_values": {ARTIST_NAMES[a]: round(v, 1) for a, v in enumerate(values)}
        }
        if engine.phase in AMOUNT_PHASES:
            out["bid_cap"] = round(self.cap(engine, seat), 1)
        return out


class HalfValueBot(ModernArtDesign):
    name = "half-value"
    description = (
        "Modern Art design (Reactive, Elliman 2019): values paintings as if the round ended "
        "now, bids up to half of that, offers what ends the season fastest."
    )

    def share(self, engine: ModernArtEngine, seat: int) -> float:
        return 0.5


class FractionValueBot(ModernArtDesign):
    name = "fraction-value"
    description = (
        "Modern Art design (Memory, Elliman 2019): as half-value, but bids up to (n-1)/n of "
        "the value, half when the money goes to the richest other seat."
    )

    def share(self, engine: ModernArtEngine, seat: int) -> float:
        if engine.auctioneer != seat and engine.auctioneer == richest_other(engine, seat):
            return 0.5
        n = engine.num_players
        return (n - 1) / n


class PredictiveBot(ModernArtDesign):
    name = "predictive"
    description = (
        "Modern Art design (Basic Predictive, Elliman 2019): forecasts the round's end from "
        "every hand's expected plays (others push what they bought), bids up to (n-1)/n of "
        "the forecast value, offers the lot worth most."
    )
    fast_season = False

    def values(self, engine: ModernArtEngine, seat: int) -> list[float]:
        return predicted_values(engine, seat)

    def share(self, engine: ModernArtEngine, seat: int) -> float:
        n = engine.num_players
        return (n - 1) / n
