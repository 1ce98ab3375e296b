"""Modern Art heuristic (the ``heuristic`` bot's default style): forecast every artist's value
at the end of the round, bid by what each outcome of the auction does to our standing, and
offer what sells high or pushes the artists we own.

It plays the way the published Modern Art bots reason (value each artist from the board and the
round's progress, pay up to a share of the value, sell high); the older, simpler heuristic is
``modern_art_simple.py`` (style ``simple``). What a seat knows and the heuristic reads: money
(every payment is public), this round's counts, the cumulative values, the paintings bought
this round, the cards seen face up, every hand's size, its own hand, and the auction in
progress. It never reads another seat's hand, the deck or an unrevealed sealed bid, so two
states with the same information set get the same answer (tested).

* **Forecast** (``forecast``): the cards still to be played this round are the hands' cards:
  ours exactly, the other hands' in proportion to the cards we have not seen. Each further play
  is of artist ``a`` with probability proportional to that supply (a little more for artists
  already ahead: players push them). The round ends when the first artist reaches its fifth
  card, so the number of plays left is the fewest any artist needs (``need / share``, scaled
  down because the first of several races ends sooner) or the cards left. Final counts are
  approximately normal around the expected count (capped at five and at the supply); the
  chance an artist ends in each of the top three places follows from the pairwise chances that
  another artist finishes ahead of it (ties by board order) and a Poisson-binomial count of
  those artists. A painting bought now is worth the expected cumulative value of its artist
  (zero when it ends outside the top three). ``market`` values are the same forecast without
  our hand (what the other seats can know), used to predict what they bid and accept.
* **Standing** (``rival_weights``): money decides the game only relative to the others
  (points go to the richest), so an outcome's worth is our money change minus a weighted sum
  of the rivals' changes; a rival's weight is half an equal share and half a softmax of its
  money (a payment to the leader hurts more). Weights sum to one.
* **Bids.** An outcome is "who buys at what price" with the game's payment rule (payment to the
  auctioneer, to the bank, or the Double split). The most we pay is where winning stops beating
  the alternative (the current high bidder buying, the auctioneer taking it at the no-bid price,
  or the expected winner of a sealed auction), never more than the lot is worth to us, shaded
  8%. Open: raise in steps of 8% of the value, or just past what any rival can still pay when
  that is cheaper. Once Around: bid enough to beat the later bidders' likely bids and to deter
  the auctioneer from buying it back, when it fits the cap; the auctioneer buys it back when
  that beats selling. Sealed: a share of the cap (70%, more with more players), or one more
  than any rival can pay when that is less. Fixed price: the price with the best expected
  outcome when each later seat accepts with a probability falling around 85% of the market
  value (and we must buy it from the bank if nobody does). Answer: accept when buying beats the
  expected alternative and the price is within the lot's value to us.
* **Offers** (which card, so which auction, Doubles included): each card is scored by the
  expected sale (a share of the market value of the lot after the card is played, per auction
  type; or keeping it when it is worth more to us than it would fetch) plus what the card does
  to the forecast: the paintings bought this round (ours against the rivals') and, at a
  quarter weight, the cards we still hold. A Double alone is scored by the chance another seat
  adds a partner (from the cards of that artist they are expected to hold) against keeping it
  free. A card that ends the round is scored by the exact payout against the forecast. Adding
  a partner to another seat's Double is scored the same way, against passing (the seller then
  keeps it free) and the worth of selling that card alone later.

Ratings (``rate``) are in money units, so a softmax of them with a temperature of a few money
units is a sensible softened policy (priors, opponent models). The same estimates give the
ISMCTS bot its candidate bids (``candidates``) and its cut-off evaluation (``evaluate``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from bots.heuristics.base import GameKnowledge, pick_best
from games.modern_art import actions as codec
from games.modern_art.cards import (
    ARTIST_NAMES,
    DOUBLE,
    FIXED,
    MAX_ARTISTS,
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
    DECLINE,
    ONCE_BIDS,
    OPEN_BIDS,
    PASS,
    PLAY,
    PRICE,
    SEALED_BIDS,
    ModernArtEngine,
    ranked_artists,
)

# Forecast.
MOMENTUM = 0.15  # a further play's odds grow by this much per card the artist already has
RACE_FACTOR = 0.85  # the first of several races to five ends before the expected finish of any
COUNT_SPREAD = 0.35  # variance added to every final count (players choose what they play)
# Standing: share of a rival's weight that is equal for all (the rest follows money).
EQUAL_SHARE = 0.5
STANDING_TEMPERATURE = 40.0
# Bidding.
SHADE = 0.92  # the most we pay, as a share of the lot's value to us
OPEN_STEP = 0.08  # open-auction raise, as a share of the lot's value
SEALED_SHARE = 0.7  # sealed bid as a share of the cap, plus SEALED_PER_PLAYER per seat above 3
SEALED_PER_PLAYER = 0.04
LATER_SHARE = 0.75  # what a later Once Around bidder is expected to bid, share of market value
ACCEPT_SHARE = 0.85  # a rival's fixed-price acceptance threshold, share of market value
ACCEPT_SOFTNESS = 0.08  # logistic width of that threshold, share of market value
# Offers: expected price as a share of the market value, by auction type (+ per seat above 3).
SALE_SHARE = {OPEN: 0.85, ONCE_AROUND: 0.7, SEALED: 0.72, FIXED: 0.8}
SALE_PER_PLAYER = 0.03
HAND_WEIGHT = 0.25  # weight of our held cards in an offer's effect on the forecast
QUICK_PUSH = 0.15  # rollouts: an offered card raises its artist's value by this share
ADD_RATE = 0.5  # chance another seat adds to a Double alone: 1 - exp(-rate * their cards)
# Candidate bids for the search (shares of the cap, or of the market value for prices).
CAP_FRACTIONS = (0.5, 0.7, 0.85, 1.0)
PRICE_FRACTIONS = (0.5, 0.65, 0.8, 0.9, 1.0)
AMOUNT_RATING = 0.5  # rating lost per money unit away from the chosen amount

try:  # compiled, modern_art.pxd declares erf, exp and sqrt as libm's (CPython's math calls them)
    import cython

    _COMPILED = cython.compiled
except ImportError:  # pragma: no cover - Cython is a build requirement, not a runtime one
    _COMPILED = False
if not _COMPILED:
    from math import erf, exp, sqrt

_FORECASTS: dict[tuple, tuple[tuple[float, ...], tuple[float, ...]]] = {}
if MAX_ARTISTS != 5:  # pragma: no cover - forecast's C arrays (and modern_art.pxd) hold five
    raise ImportError(f"modern_art heuristic: forecast's arrays hold 5 artists, not {MAX_ARTISTS}")
_FORECAST_CACHE = 20_000  # entries per memo (a few MB), cleared when full


# --- forecast ----------------------------------------------------------------------------------
def forecast(
    counts: tuple[int, ...],
    supply: tuple[float, ...],
    values: tuple[int, ...],
    places: tuple[int, ...],
    plays: int,
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per artist: the expected payout of one painting bought now, and the chance to be ranked.

    ``counts`` this round's cards, ``supply`` the cards of each artist expected in the hands,
    ``values`` the cumulative values, ``places`` the place values, ``plays`` the cards in all
    hands (the round ends by then at the latest). Memoised: a whole auction asks the same.
    """
    key = (counts, supply, values, places, plays)
    memo = _FORECASTS  # compiled, a typed dict (modern_art.pxd): C calls, not method calls
    hit = memo.get(key)
    if hit is not None:
        return hit
    artists = len(counts)
    # Index loops over preallocated lists, with the pairwise table flat (``ahead[b * artists +
    # a]``); the constants and every list item read into locals first: compiled, with
    # modern_art.pxd's C doubles and libm's erf/exp/sqrt (CPython's math calls the same), the
    # arithmetic runs in C. Every expression is the one it always was, in the same order, so
    # both paths give the same bits (tests/test_heuristic_memos.py keeps the reference).
    if artists > MAX_ARTISTS:  # compiled, the per-artist lists are C arrays of 5
        raise ValueError(f"forecast: at most {MAX_ARTISTS} artists, got {artists}")
    momentum = MOMENTUM
    race = RACE_FACTOR
    spread = COUNT_SPREAD
    end = ROUND_END_COUNT
    # Per-artist scratch of MAX_ARTISTS (5) entries, the first ``artists`` used: compiled, C
    # arrays (modern_art.pxd; their sizes are literals there and here).
    weights = [0.0] * 5
    total = 0.0  # summed in order from 0, as ``sum`` would
    for a in range(artists):
        s = supply[a]
        c = counts[a]
        x = s * (1.0 + momentum * c)
        weights[a] = x
        total += x
    left = min(float(plays), sum(supply))
    share = [0.0] * 5
    if total > 0.0:
        for a in range(artists):
            x = weights[a]
            share[a] = x / total
        for a in range(artists):
            p = share[a]
            need = end - counts[a]
            s = supply[a]
            if p > 0.0 and s + 1.0 >= need:
                left = min(left, race * need / p)
    mean = [0.0] * 5
    var = [0.0] * 5
    present = [0.0] * 5
    for a in range(artists):
        p = share[a]
        c = counts[a]
        x = left * p
        s = supply[a]
        if s < x:  # min(left * p, supply), the first of equals as ``min``
            x = s
        x = c + x
        mean[a] = x if x < end else end  # capped at five
        var[a] = left * p * (1.0 - p) + spread
        present[a] = 1.0 if c else 1.0 - exp(-left * p)
    # ahead[b * artists + a]: chance b finishes ahead of a if both are ranked; one erf per pair,
    # since the normal is symmetric: a ahead of b is 1 minus b ahead of a.
    ahead = [0.0] * 25
    for a in range(artists):
        ma = mean[a]
        va = var[a]
        for b in range(a):  # b < a: board order gives b the ties
            mb = mean[b]
            vb = var[b]
            if va + vb < 0.0:  # math.sqrt's error, which libm's sqrt (compiled) does not raise
                raise ValueError("math domain error")
            x = 0.5 * (1.0 + erf((mb - ma + 0.5) / sqrt(2.0 * (va + vb))))
            ahead[b * artists + a] = x
            ahead[a * artists + b] = 1.0 - x
    # Poisson-binomial over the others: d0, d1, d2 = chance exactly 0, 1, 2 finish ahead.
    p0, p1, p2 = (*places, 0, 0, 0)[:3]
    value = [0.0] * artists
    top = [0.0] * artists
    for a in range(artists):
        here = present[a]
        if here <= 1e-6:
            continue
        d0, d1, d2 = 1.0, 0.0, 0.0
        for b in range(artists):
            if b != a:
                p = present[b]
                y = ahead[b * artists + a]
                x = p * y
                y = 1.0 - x
                d2 = d2 * y + d1 * x
                d1 = d1 * y + d0 * x
                d0 *= y
        if len(places) < 3:
            d2 = 0.0
            if len(places) < 2:
                d1 = 0.0
        v = values[a]
        value[a] = here * (d0 * (v + p0) + d1 * (v + p1) + d2 * (v + p2))
        top[a] = here * (d0 + d1 + d2)
    out = (tuple(value), tuple(top))
    if len(memo) >= _FORECAST_CACHE:
        memo.clear()
    memo[key] = out
    return out


def _cfg_key(cfg: Any) -> int:
    """The game's parameters (which make its ``Config``) in the memo keys below: their small int
    (``Config.params_id``), equal for equal parameters. A key that holds only ints and bytes is
    untracked by Python's cyclic garbage collector, so the memos' tens of thousands of entries
    cost its passes nothing (a key holding the ``Config`` object itself stayed tracked: the
    collections took ~15% of a hint), and an int hashes in a few instructions."""
    return cfg.params_id


def _board_code(engine: ModernArtEngine, seat: int) -> bytes | tuple[int, ...]:
    """What a view reads of the board as one memo-key item, one byte a figure: this round's
    counts, the cumulative values, the cards seen, the hand sizes and (``seat >= 0``) the
    seat's own hand. Each list's length is fixed by the game's parameters, which every key
    holds beside it (``_cfg_key``), so equal codes are equal boards. A bytes object caches its
    hash: the five tuples it replaces hashed ~65 ints at every lookup and again at every
    insertion. Compiled, ``code`` is a C array (modern_art.pxd) filled in C. A figure outside
    0..255 (none within the parameters' ranges) gives the figures as a tuple, which no bytes
    code equals."""
    counts = engine.counts
    values = engine.values
    seen = engine.seen
    sizes = engine.hand_size
    hand = engine.hands[seat] if seat >= 0 else []
    code = [0] * 128
    k = 0
    for figures in (counts, values, seen, sizes, hand):
        for i in range(len(figures)):
            x = figures[i]
            if x < 0 or x > 255 or k >= 128:
                return tuple(counts + values + seen + sizes + hand)
            code[k] = x
            k += 1
    if _COMPILED:  # the C array's slice is bytes already (calling ``bytes`` on it cost 1 us)
        return code[:k]
    return bytes(code[:k])


def _deck_by_artist(cfg: Any) -> tuple[int, ...]:
    """The cards of each artist in the deck (``Config.artist_cards``)."""
    return cfg.artist_cards


def held(engine: ModernArtEngine, seat: int) -> list[int]:
    """``seat``'s own cards per artist (index loops: compiled, C's)."""
    hand = engine.hands[seat]
    types = NUM_TYPES
    artists = engine.cfg.artists
    out = [0] * artists
    for a in range(artists):
        m = 0
        for k in range(a * types, a * types + types):
            m += hand[k]
        out[a] = m
    return out


def supply_of(
    engine: ModernArtEngine, seat: int, played: int = -1, cards: int = 0
) -> tuple[float, ...]:
    """Cards per artist expected in all hands, from ``seat``'s view (``seat < 0``: the market's,
    with no hand known): ours exactly, the hidden hands' in proportion to the cards not seen.
    ``played``/``cards``: as if ``cards`` of artist ``played`` had just been played from the
    seat's hand (for the market: from some hand)."""
    cfg = engine.cfg
    deck = _deck_by_artist(cfg)
    seen = engine.seen
    artists = cfg.artists
    hand = engine.hands[seat] if seat >= 0 else None
    if artists > MAX_ARTISTS:  # compiled, the per-artist lists are C arrays of 5
        raise ValueError(f"supply_of: at most {MAX_ARTISTS} artists, got {artists}")
    mine = [0] * 5
    # Cards neither seen nor in our hand; a card we play moves from one to the other.
    unseen = [0] * 5
    types = NUM_TYPES  # a C int when compiled, so the inner loop is C's
    for a in range(artists):  # index loops, not slices: compiled, they run in C (.pxd)
        low = a * types
        m = 0
        gone = 0
        for k in range(low, low + types):
            c = seen[k]  # read into a C long first: compiled, the sums stay unboxed
            gone += c
            if hand is not None:
                c = hand[k]
                m += c
        mine[a] = m
        unseen[a] = deck[a] - gone - m
    hidden = sum(engine.hand_size) - (engine.hand_size[seat] if seat >= 0 else 0)
    if played >= 0:
        if seat >= 0:
            mine[played] -= cards
        else:
            unseen[played] = max(0, unseen[played] - cards)
            hidden -= cards
    total = 0  # summed in artist order from 0, as ``sum`` would (exact: ints)
    for a in range(artists):
        total += unseen[a]
    scale = hidden / total if total > 0 else 0.0
    out = [0.0] * artists
    for a in range(artists):
        m = mine[a]
        u = unseen[a]
        out[a] = _round3(m + scale * u)
    return tuple(out)


_ROUNDED: dict[float, float] = {}


def _round3(x: float) -> float:
    """``round(x, 3)``, memoised: CPython rounds through a decimal string (~2 us compiled, five
    per view), and supplies take few distinct values. Exact for every ``x`` but ``-0.0``, which
    shares ``0.0``'s entry; a supply is never negative."""
    rounded = _ROUNDED  # compiled, a typed dict (modern_art.pxd): C calls, not method calls
    r = rounded.get(x)
    if r is None:
        if len(rounded) >= _FORECAST_CACHE:
            rounded.clear()
        r = rounded[x] = round(x, 3)
    return r


_VIEWS: dict[tuple, tuple[tuple[float, ...], tuple[float, ...]]] = {}


def values_of(
    engine: ModernArtEngine, seat: int, played: int = -1, cards: int = 0
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """``forecast`` from ``seat``'s view (``-1``: the market's), optionally after a play.

    Memoised on everything it reads (the board and the seat's own hand), so the many decisions
    of one auction pay for it once.
    """
    board = _board_views(engine)
    mine = (seat, played, cards)
    if board is not None:
        hit = board.get(mine)
        if hit is not None:
            return hit
    key = _view_key(engine, seat, played, cards)
    memo = _VIEWS  # compiled, typed dicts (modern_art.pxd): C calls, not method calls
    hit = memo.get(key)
    if hit is not None:
        if board is not None:
            board[mine] = hit
        return hit
    counts = engine.counts
    plays = sum(engine.hand_size)
    if played >= 0:
        counts = list(counts)
        counts[played] += cards
        plays -= cards
    out = forecast(
        tuple(counts),
        supply_of(engine, seat, played, cards),
        tuple(engine.values),
        tuple(engine.cfg.place_values),
        plays,
    )
    if len(memo) >= _FORECAST_CACHE:
        memo.clear()
    memo[key] = out
    if board is not None:
        board[mine] = out
    return out


# The engine the rollout policy (``ModernArtKnowledge.playout``) is deciding for, else None:
# the per-engine caches below (``_BOARD``, ``_AUCTION``) answer for it alone. A rollout moves
# its engine only by ``apply``, whose every change to what they read they follow; any other
# caller (ratings, the prior, a test that sets an engine's fields) gets the memos alone.
# These three are one-item lists, written by item: writing a module global would reset the
# compiled module's cached lookups of every global (measured: 5% of a rollout).
_PLAYING: list[Any] = [None]


# The views asked of the board in play on one engine object: ``(engine, round, cards in hands,
# {(seat, played, cards): view})``. What a view reads (this round's counts, the values, the
# cards seen, the hands) changes only in a step that deals a card (one more in hands), plays
# one or two (fewer), or ends a round (``round``: a sale can end one with every hand empty),
# so on the same object with the same two figures the board is the one the views were asked
# of (only the last board is kept). A rollout asks the seat's and the market's view at every
# offer and lot, mostly of a board already valued, and a hit here skips building and hashing
# ``_view_key`` (~1.6 us of a memoised view). Its item is replaced as a whole, like ``_AUCTION``'s.
_BOARD: list[tuple[Any, int, int, dict[tuple[int, int, int], tuple]]] = [(None, -1, -1, {})]


def _board_views(engine: ModernArtEngine) -> dict[tuple[int, int, int], tuple] | None:
    """The views already asked of ``engine``'s board (empty when the board is new to it), or
    ``None`` when the rollout policy is not deciding for ``engine`` (``_PLAYING``)."""
    if engine is not _PLAYING[0]:
        return None
    here = _BOARD[0]
    cards = sum(engine.hand_size)
    if here[0] is engine and here[1] == engine.round and here[2] == cards:
        return here[3]  # type: ignore[no-any-return]
    views: dict[tuple[int, int, int], tuple] = {}
    _BOARD[0] = (engine, engine.round, cards, views)
    return views


def _view_key(engine: ModernArtEngine, seat: int, played: int, cards: int) -> tuple:
    """Everything ``values_of`` reads: the board and the seat's own hand (``_board_code``)."""
    return (_cfg_key(engine.cfg), seat, played, cards, _board_code(engine, seat))


def artist_values(engine: ModernArtEngine, seat: int) -> list[float]:
    """Expected payout of one painting of each artist bought now, from ``seat``'s view."""
    return list(values_of(engine, seat)[0])


def market_values(engine: ModernArtEngine) -> list[float]:
    """The same forecast from public information only (what any seat can know)."""
    return list(values_of(engine, -1)[0])


_WEIGHTS: dict[tuple, tuple[float, ...]] = {}


def rival_weights(engine: ModernArtEngine, seat: int) -> tuple[float, ...]:
    """How much each rival's money change counts against ours (0 for ``seat``; they sum to 1).

    Memoised on the seat and the money (which changes only when a lot is sold)."""
    key = (seat, *engine.money)
    memo = _WEIGHTS
    known = memo.get(key)
    if known is None:
        known = _rival_weights(engine.num_players, engine.money, seat)
        if len(memo) >= _FORECAST_CACHE:
            memo.clear()
        memo[key] = known
    return known


def _rival_weights(n: int, money: list[int], seat: int) -> tuple[float, ...]:
    # Index loops over the seats, constants in locals: compiled, C arithmetic and libm's exp
    # (modern_art.pxd); the sums run in seat order from 0, as ``sum`` and ``max`` did.
    temperature = STANDING_TEMPERATURE
    equal = EQUAL_SHARE
    k = n - 1  # the rivals
    top = -1
    for r in range(n):
        m = money[r]
        if r != seat and (top < 0 or m > top):
            top = m
    soft = [0.0] * n
    total = 0.0
    for r in range(n):
        if r != seat:
            m = money[r]
            x = exp((m - top) / temperature)
            soft[r] = x
            total += x
    out = [0.0] * n
    for r in range(n):
        if r != seat:
            x = soft[r]
            out[r] = equal / k + (1.0 - equal) * x / total
    return tuple(out)


def exact_values(engine: ModernArtEngine, artist: int, extra: int) -> list[int]:
    """Each artist's payout per painting if the round ended now, ``extra`` more of ``artist``."""
    cfg = engine.cfg
    counts = list(engine.counts)
    counts[artist] += extra
    out = [0] * cfg.artists
    for place, a in enumerate(ranked_artists(counts, len(cfg.place_values))):
        out[a] = engine.values[a] + cfg.place_values[place]
    return out


def relative_bought(engine: ModernArtEngine, seat: int, weights: Sequence[float]) -> list[float]:
    """Paintings bought this round per artist: ours minus the rivals' weighted (``weights``)."""
    bought = engine.bought
    n = engine.num_players
    out = []
    for a in range(engine.cfg.artists):
        rivals = 0.0  # summed in seat order from 0, as ``sum`` would (no term is -0.0)
        for s in range(n):
            x = weights[s]
            b = bought[s][a]
            rivals += x * b
        b = bought[seat][a]
        out.append(b - rivals)
    return out


def round_end_gain(
    engine: ModernArtEngine, artist: int, cards: int, own_now: Any, rel: list[float]
) -> float:
    """Ending the round now with ``cards`` of ``artist``: the exact payout against the
    forecast ``own_now``, ours against theirs (``rel``: paintings bought, ours minus theirs)."""
    exact = exact_values(engine, artist, cards)
    total = 0.0  # summed in artist order from 0, as ``sum`` would
    for a in range(len(exact)):
        e = exact[a]
        v = own_now[a]
        r = rel[a]
        total += (e - v) * r
    return total


def quick_offers(engine: ModernArtEngine, seat: int) -> list[tuple[int, float]]:
    """The rollouts' offer ratings (``ModernArtKnowledge.playout``): the expected sale from the
    current forecast, a card's push as a fixed share of its artist's value, and the exact
    payout for a card that ends the round (the same for every card of that artist and count,
    so computed once a call). Compiled, the arithmetic is on C doubles (modern_art.pxd)."""
    n = engine.num_players
    weights = rival_weights(engine, seat)
    mean_w = 1.0 / (n - 1)
    own = values_of(engine, seat)[0]
    market = values_of(engine, -1)[0]
    rel = relative_bought(engine, seat, weights)
    mine = held(engine, seat)
    counts = engine.counts
    shares = _sale_shares(n)
    push_share = QUICK_PUSH
    hand_weight = HAND_WEIGHT
    shade = SHADE
    end = ROUND_END_COUNT
    ended: dict[tuple[int, int], float] = {}
    out = []
    for action in engine.player_actions():
        artist, t, cards = _sale_of(action)
        c = counts[artist]
        if c + cards >= end:
            gain = ended.get((artist, cards))
            if gain is None:
                gain = ended[(artist, cards)] = round_end_gain(engine, artist, cards, own, rel)
            out.append((action, gain))
            continue
        o = own[artist]
        m = market[artist]
        r = rel[artist]
        h = mine[artist]
        push = push_share * cards * o * (r + hand_weight * h)
        lot = cards * m
        share = shares[OPEN if t == DOUBLE else t]
        price = share * shade * lot
        sale = max(price - mean_w * (lot - price), cards * o - price)
        out.append((action, sale + push))
    return out


# --- one decision's view -----------------------------------------------------------------------
# A lot's valuation (rival weights, value, market value, our standing if we buy) by everything
# it reads; constant over the bid steps of one auction, so an auction pays for it once.
_LOTS: dict[tuple, tuple[tuple[float, ...], float, float, float, float, int]] = {}


def _lot_key(engine: ModernArtEngine, seat: int) -> tuple:
    """What a ``Lot``'s valuation depends on: the seat, the lot and who is paid for it, the
    money, and what ``values_of`` reads for the seat and for the market (``_board_code``: the
    market's view reads the same board without the hand)."""
    return (
        _cfg_key(engine.cfg),
        seat,
        engine.artist,
        engine.ncards,
        engine.auctioneer,
        engine.partner,
        tuple(engine.money),
        _board_code(engine, seat),
    )


# The valuations of the auction in progress on one engine object, by seat:
# ``(engine, sales, {seat: valuation})``. From an auction's first bid phase to its sale nothing a
# valuation reads changes, and every auction ends in a sale, which counts in ``engine.sales``:
# on the same object with the same count, a bid step's valuation is the auction's first one.
# A rollout asks it at every bid of an auction (about 8 a lot), which then skips building and
# hashing ``_lot_key``'s board (~0.8 us of a memoised lot's ~3.3 us, compiled). Replaced as a
# whole, never changed in place but for its seats, so a reader holds one consistent snapshot.
_AUCTION: list[tuple[Any, int, dict[int, tuple]]] = [(None, -1, {})]
_BID_PHASES = frozenset((OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER))


def _auction_lots(engine: ModernArtEngine) -> dict[int, tuple] | None:
    """The per-seat valuations of the auction in progress on ``engine`` (empty when it is new
    to the cache), or ``None`` outside the bid phases (where the board may still change) or
    when the rollout policy is not deciding for ``engine`` (``_PLAYING``)."""
    if engine is not _PLAYING[0] or engine.phase not in _BID_PHASES:
        return None
    here = _AUCTION[0]
    if here[0] is engine and here[1] == engine.sales:
        return here[2]  # type: ignore[no-any-return]
    lots: dict[int, tuple] = {}
    _AUCTION[0] = (engine, engine.sales, lots)
    return lots


def forget_auction() -> None:
    """Drops the cached auction and board (tests that recompute valuations from empty memos)."""
    _AUCTION[0] = (None, -1, {})
    _BOARD[0] = (None, -1, -1, {})


class Lot:
    """The auction in progress as the seat to move sees it.

    ``value`` is the lot's worth to us, ``market`` to the others (as far as we can tell),
    ``cap`` the most we would pay given the alternative outcome. Compiled, it is a final C
    class (modern_art.pxd): its figures are C doubles and its methods C calls.
    """

    __slots__ = (
        "cap",
        "engine",
        "full",
        "market",
        "rivals_top",
        "seat",
        "slope",
        "value",
        "weights",
    )

    def __init__(self, engine: ModernArtEngine, seat: int) -> None:
        self.engine = engine
        self.seat = seat
        auction = _auction_lots(engine)
        known = auction.get(seat) if auction is not None else None
        if known is None:
            known = self._valuation(engine, seat)
            if auction is not None:
                auction[seat] = known
        self.weights, self.value, self.market, self.full, self.slope, self.rivals_top = known
        self.cap = self.reservation(self.alternative())

    def _valuation(
        self, engine: ModernArtEngine, seat: int
    ) -> tuple[tuple[float, ...], float, float, float, float, int]:
        """The lot's valuation for ``seat`` from the memo, or computed (and memoised)."""
        key = _lot_key(engine, seat)
        memo = _LOTS
        known = memo.get(key)
        if known is None:
            self.weights = rival_weights(engine, seat)
            cards = engine.ncards
            self.value = values_of(engine, seat)[0][engine.artist] * cards
            self.market = values_of(engine, -1)[0][engine.artist] * cards
            # Buying it ourselves: the standing at price 0 and its fall per money unit.
            self.full = self.outcome(seat, 0)
            self.slope = (self.full - self.outcome(seat, 100)) / 100.0
            # The most any rival can pay (nobody can raise past it).
            self.rivals_top = _rivals_top(engine.money, seat)
            if len(memo) >= _FORECAST_CACHE:
                memo.clear()
            known = memo[key] = (
                self.weights,
                self.value,
                self.market,
                self.full,
                self.slope,
                self.rivals_top,
            )
        return known

    def outcome(self, buyer: int, price: int) -> float:
        """Our standing change if ``buyer`` buys the lot at ``price`` (payments as the rules)."""
        seat = self.seat
        w = self.weights
        if buyer == seat:
            u = self.value
        else:
            x = w[buyer]
            u = -x * self.market
        for payer, payee, amount in self.engine.payments(buyer, price):
            if payer == seat:
                u -= amount
            else:
                x = w[payer]
                u -= -x * amount
            if payee >= 0:
                if payee == seat:
                    u += amount
                else:
                    x = w[payee]
                    u += -x * amount
        return u

    def reservation(self, alternative: float) -> float:
        """The highest price at which buying still beats ``alternative`` (within the shade)."""
        slope = self.slope
        best = (self.full - alternative) / slope if slope > 0 else self.value
        return max(0.0, min(SHADE * self.value, best))

    def alternative(self) -> float:
        """What happens if we do not buy: the standing bid wins, or the sealed winner does."""
        engine = self.engine
        phase = engine.phase
        if phase in (OPEN_BIDS, ONCE_BIDS) and engine.high_bidder >= 0:
            return self.outcome(engine.high_bidder, engine.high)
        if phase == SEALED_BIDS:
            price = int(self.sealed_share() * SHADE * self.market)
            # The mean over the rivals, summed in seat order as ``sum`` would (a loop: the
            # compiled class cannot hold a generator).
            total = 0.0
            for r in range(engine.num_players):
                if r != self.seat:
                    total += self.outcome(r, price)
            return total / (engine.num_players - 1)
        if phase == ANSWER:
            return self.fixed_alternative(engine.price)
        return self.outcome(engine.auctioneer, engine.no_bid_price())

    def sealed_share(self) -> float:
        return SEALED_SHARE + SEALED_PER_PLAYER * (self.engine.num_players - 3)

    def accepts(self, rival: int, price: int) -> float:
        """Chance ``rival`` accepts a fixed ``price`` (it must be able to pay)."""
        if self.engine.money[rival] < price:
            return 0.0
        width = ACCEPT_SOFTNESS * self.market + 1.0
        z = (ACCEPT_SHARE * self.market - price) / width
        return 1.0 / (1.0 + exp(-max(-30.0, min(30.0, z))))

    def fixed_outcome(self, price: int, after: int) -> float:
        """Expected outcome of a fixed ``price`` answered by the seats after ``after`` (up to
        the auctioneer, who buys it if nobody does)."""
        engine = self.engine
        n = engine.num_players
        x = engine.auctioneer
        expected = 0.0
        remain = 1.0
        r = (after + 1) % n
        while r != x:
            if r != self.seat:
                p = self.accepts(r, price)
                expected += remain * p * self.outcome(r, price)
                remain *= 1.0 - p
            r = (r + 1) % n
        return expected + remain * self.outcome(x, price)

    def fixed_alternative(self, price: int) -> float:
        return self.fixed_outcome(price, self.seat)


def _rivals_top(money: list[int], seat: int) -> int:
    """The most money any seat but ``seat`` has (an index loop: compiled, C's)."""
    top = 0
    first = True
    for s in range(len(money)):
        if s != seat:
            m = money[s]
            if first or m > top:
                top = m
                first = False
    if first:
        raise ValueError("_rivals_top: no other seat")
    return top


def _passes(engine: ModernArtEngine, seat: int, phase: int) -> bool:
    """The open and Once Around passes that need no valuation of the lot: we cannot raise
    (too little money; in an open auction also when we hold the high bid), or we are the
    auctioneer and nobody has bid (we take it at the no-bid price anyway)."""
    if engine.money[seat] <= engine.high:
        return True
    if phase == OPEN_BIDS and engine.high_bidder == seat:
        return True
    return engine.high_bidder < 0 and seat == engine.auctioneer


def _amount(x: float, low: int, high: int) -> int:
    return max(low, min(high, int(x)))


def _sale_share(auction: int, n: int) -> float:
    return SALE_SHARE[auction] + SALE_PER_PLAYER * (n - 3)


_SHARES: dict[int, dict[int, float]] = {}


def _sale_shares(n: int) -> dict[int, float]:
    """``_sale_share`` of every auction type at ``n`` players (rollouts ask it per offer)."""
    shares = _SHARES.get(n)
    if shares is None:
        shares = _SHARES[n] = {t: _sale_share(t, n) for t in SALE_SHARE}
    return shares


_SALES: dict[int, tuple[int, int, int]] = {}


def _sale_of(action: int) -> tuple[int, int, int]:
    """``codec.sale_of``, memoised (a pure function of the action id)."""
    memo = _SALES
    sale = memo.get(action)
    if sale is None:
        sale = memo[action] = codec.sale_of(action)
    return sale


def amount_candidates(
    engine: ModernArtEngine,
    own: int,
    cap: float,
    price_ref: float,
    cap_fractions: tuple[float, ...] = CAP_FRACTIONS,
    price_fractions: tuple[float, ...] = PRICE_FRACTIONS,
    whole: Callable[[float], int] = int,
) -> list[int]:
    """The amounts a search considers (both styles): pass, the minimum raise, shares of the
    cap (of ``price_ref`` for a fixed price) and the heuristic's own choice ``own``; ``whole``
    turns a share into money (the simple style rounds, this one truncates)."""
    phase = engine.phase
    money = engine.money[engine.to_move]

    def amount(x: float, low: int) -> int:
        return max(low, min(money, whole(x)))

    if phase == PRICE:
        if money == 0:
            return [codec.amount(0)]
        amounts = {1, *(amount(f * price_ref, 1) for f in price_fractions)}
    elif phase == SEALED_BIDS:
        amounts = {0, *(amount(f * cap, 0) for f in cap_fractions)}
    else:
        high = engine.high
        if money <= high:
            return [PASS]
        amounts = {high + 1, *(amount(f * cap, high + 1) for f in cap_fractions)}
    actions = {codec.amount(x) for x in amounts}
    actions.add(own)
    if phase in (OPEN_BIDS, ONCE_BIDS):
        actions.add(PASS)
    return sorted(actions)


def sealed_prior(centre: int, cap: float, candidates: list[int]) -> list[float]:
    """Weights of a hidden sealed bid: peaked at the heuristic's bid ``centre``, spread a
    quarter of the cap."""
    spread = max(3.0, 0.25 * cap)
    return [math.exp(-abs(codec.amount_of(a) - centre) / spread) for a in candidates]


def estimated_returns(engine: ModernArtEngine, values: list[float]) -> list[float]:
    """Returns estimated from money plus this round's paintings at ``values``: final money,
    or for points the chance of first place from a softmax of it (second place, five players,
    by the remainder)."""
    # Index loops (compiled, C doubles: modern_art.pxd), summed in artist order from 0 as
    # ``sum`` did, so the figures are the same bits.
    money = engine.money
    bought = engine.bought
    artists = len(values)
    est = []
    for s in range(engine.num_players):
        row = bought[s]
        if len(row) != artists:
            raise ValueError(f"estimated_returns: {artists} values for {len(row)} artists")
        total = 0.0
        for a in range(artists):
            b = row[a]
            v = values[a]
            total += b * v
        m = money[s]
        est.append(m + total)
    cfg = engine.cfg
    if not cfg.points:
        return est
    top = max(est)
    weights = [math.exp((x - top) / 30.0) for x in est]
    total = sum(weights)
    table = cfg.points_table
    return [
        w / total * table[0] + (1 - w / total) * table[1] / max(1, len(est) - 1) for w in weights
    ]


# --- the amounts (``ModernArtKnowledge.bid``): module functions, so the rollout policy's bids
# are C calls when compiled, with the lot a typed ``Lot`` (modern_art.pxd) ---------------------
def bid_action(engine: ModernArtEngine, lot: Lot | None = None) -> int:
    """The amount phases' choice (an action id)."""
    seat = engine.to_move
    phase = engine.phase
    if phase in (OPEN_BIDS, ONCE_BIDS):
        # The passes that need no valuation of the lot come first.
        if _passes(engine, seat, phase):
            return PASS
        lot = lot or Lot(engine, seat)
        if phase == OPEN_BIDS:
            return _open_bid(engine, seat, lot)
        return _once_bid(engine, seat, lot)
    lot = lot or Lot(engine, seat)
    if phase == SEALED_BIDS:
        return codec.amount(_sealed_amount(engine, seat, lot))
    if phase == PRICE:
        return codec.amount(_price(engine, seat, lot))
    raise ValueError(f"no amount to choose in phase {phase}")


def _open_bid(engine: ModernArtEngine, seat: int, lot: Lot) -> int:
    """A raise or a pass, once ``_passes`` has not passed already."""
    high = engine.high
    money = engine.money[seat]
    cap = int(lot.cap)
    if cap <= high:
        return PASS
    target = high + max(1, int(OPEN_STEP * lot.value))
    beyond = lot.rivals_top + 1  # nobody can raise past this
    if beyond <= target:
        target = max(high + 1, beyond)
    return codec.amount(_amount(target, high + 1, min(money, cap)))


def _once_bid(engine: ModernArtEngine, seat: int, lot: Lot) -> int:
    """A bid or a pass, once ``_passes`` has not passed already."""
    high = engine.high
    money = engine.money[seat]
    x = engine.auctioneer
    if seat == x:  # last to act: buy it back only when that beats selling
        buy = lot.outcome(seat, high + 1) > lot.outcome(engine.high_bidder, high)
        if buy and high + 1 <= lot.value:
            return codec.amount(high + 1)
        return PASS
    cap = int(lot.cap)
    if cap <= high:
        return PASS
    n = engine.num_players
    later = 0
    r = (seat + 1) % n
    while r != x:
        later = max(later, min(engine.money[r], int(LATER_SHARE * lot.market) + 1))
        r = (r + 1) % n
    # The auctioneer buys it back below ((1 + w) M - 1) / (2 + w) (w: one rival's share).
    w = 1.0 / (n - 1)
    deter = math.ceil(((1.0 + w) * lot.market - 1.0) / (2.0 + w))
    target = max(high + 1, deter, later)
    return codec.amount(_amount(target, high + 1, min(money, cap)))


def _sealed_amount(engine: ModernArtEngine, seat: int, lot: Lot) -> int:
    money = engine.money[seat]
    bid = lot.sealed_share() * lot.cap
    top = lot.rivals_top
    if top + 1 < bid:
        bid = top + 1  # nobody can pay more: win it for one more than they have
    return _amount(bid, 0, money)


def _price(engine: ModernArtEngine, seat: int, lot: Lot) -> int:
    money = engine.money[seat]
    if money == 0:
        return 0
    market = lot.market
    prices = {1, money, *(_amount(f * market, 1, money) for f in PRICE_FRACTIONS)}
    prices.update(_amount(engine.money[r], 1, money) for r in range(engine.num_players))
    best, best_u = 1, -math.inf
    for p in sorted(prices):
        u = lot.fixed_outcome(p, seat)
        if u > best_u + 1e-9:
            best, best_u = p, u
    return best


class ModernArtKnowledge(GameKnowledge):
    game = "modern_art"
    abstracts = True
    # Whole games are long (hundreds of bids); rollouts play the heuristic for a while and the
    # evaluation takes over.
    default_rollout = "heuristic"
    default_rollout_depth = 40

    # --- amounts -----------------------------------------------------------------------------
    def bid(self, engine: ModernArtEngine, lot: Lot | None = None) -> int:
        """The amount phases' choice (an action id): ``bid_action``."""
        return bid_action(engine, lot)

    def _answer(self, engine: ModernArtEngine, seat: int, lot: Lot) -> float:
        """How much better accepting the fixed price is than declining (money units)."""
        price = engine.price
        if engine.money[seat] < price or price > lot.value:
            return -math.inf
        return lot.outcome(seat, price) - lot.fixed_alternative(price)

    # --- ratings -----------------------------------------------------------------------------
    def rate(self, engine: ModernArtEngine) -> list[tuple[int, float]]:  # type: ignore[override]
        phase = engine.phase
        seat = engine.to_move
        if phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE):
            lot = Lot(engine, seat)
            chosen = self.bid(engine, lot)
            others = self._candidates(lot, chosen)
            return [(a, -AMOUNT_RATING * self._distance(engine, a, chosen)) for a in others]
        if phase == ANSWER:
            gain = self._answer(engine, seat, Lot(engine, seat))
            if gain == -math.inf:
                return [(DECLINE, 0.0)]
            return [(ACCEPT, gain), (DECLINE, 0.0)]
        if phase == ADD:
            return self._rate_add(engine, seat)
        if phase == PLAY:
            return self._rate_offers(engine, seat)
        raise ValueError(f"no decision in phase {phase}")

    def best_rated(self, engine: ModernArtEngine) -> frozenset[int]:  # type: ignore[override]
        """``rate``'s top without rating the other amounts: in an amount phase the chosen
        amount is the only action at distance 0 from itself (the candidates are distinct
        amounts, and ``pass`` counts as the standing high, below every raise)."""
        if engine.phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE):
            return frozenset((self.bid(engine),))
        return super().best_rated(engine)

    @staticmethod
    def _distance(engine: ModernArtEngine, action: int, chosen: int) -> int:
        """Money between two amount actions; ``pass`` counts as bidding the standing high."""
        high = engine.high

        def amount(a: int) -> int:
            return high if a == PASS else codec.amount_of(a)

        return abs(amount(action) - amount(chosen))

    def _rate_add(self, engine: ModernArtEngine, seat: int) -> list[tuple[int, float]]:
        n = engine.num_players
        artist = engine.artist
        seller = engine.seller
        weights = rival_weights(engine, seat)
        mean_w = 1.0 / (n - 1)
        market_one = market_values(engine)[artist]
        own_now = values_of(engine, seat)[0]
        rel = self._relative_bought(engine, seat, weights)
        out = [(PASS, -weights[seller] * market_one)]  # nobody adds: the seller keeps it free
        for action in engine.player_actions():
            if action == PASS:
                continue
            t = codec.added_type(action)
            if engine.counts[artist] + 1 >= ROUND_END_COUNT:
                out.append((action, self._round_end(engine, artist, 1, own_now, rel)))
                continue
            own_after = values_of(engine, seat, artist, 1)[0]
            pair_market = 2 * values_of(engine, -1, artist, 1)[0][artist]
            price = _sale_share(t, n) * SHADE * pair_market
            # We auction the pair: half the price to us, half to the seller, the rest to the buyer.
            sell = 0.5 * price - weights[seller] * 0.5 * price - mean_w * (pair_market - price)
            keep = 2 * own_after[artist] - price - weights[seller] * 0.5 * price
            # The card could instead be sold alone on our own turn.
            alone_price = _sale_share(t, n) * SHADE * market_one
            alone = max(0.0, alone_price - mean_w * (market_one - alone_price))
            gain = max(sell, keep) + self._promotion(engine, seat, own_now, own_after, rel, artist)
            out.append((action, gain - alone))
        return out

    @staticmethod
    def _relative_bought(
        engine: ModernArtEngine, seat: int, weights: Sequence[float]
    ) -> list[float]:
        """Paintings bought this round per artist: ours minus the rivals' weighted."""
        return relative_bought(engine, seat, weights)

    @staticmethod
    def _round_end(
        engine: ModernArtEngine, artist: int, cards: int, own_now: Any, rel: list[float]
    ) -> float:
        """Ending the round now: the exact payout against the forecast, ours against theirs."""
        return round_end_gain(engine, artist, cards, own_now, rel)

    @staticmethod
    def _promotion(
        engine: ModernArtEngine,
        seat: int,
        own_now: Any,
        own_after: Any,
        rel: list[float],
        artist: int,
        cards: int = 1,
    ) -> float:
        """What moving the forecast does to this round's paintings and (a little) our hand."""
        mine = held(engine, seat)
        mine[artist] -= cards
        return sum(
            (after - now) * (r + HAND_WEIGHT * m)
            for now, after, r, m in zip(own_now, own_after, rel, mine, strict=True)
        )

    def _rate_offers(self, engine: ModernArtEngine, seat: int) -> list[tuple[int, float]]:
        n = engine.num_players
        weights = rival_weights(engine, seat)
        mean_w = 1.0 / (n - 1)
        own_now = values_of(engine, seat)[0]
        rel = self._relative_bought(engine, seat, weights)
        supply = supply_of(engine, seat)
        mine = held(engine, seat)
        out = []
        for action in engine.player_actions():
            artist, t, cards = codec.sale_of(action)
            if engine.counts[artist] + cards >= ROUND_END_COUNT:
                out.append((action, self._round_end(engine, artist, cards, own_now, rel)))
                continue
            own_after = values_of(engine, seat, artist, cards)[0]
            market_after = values_of(engine, -1, artist, cards)[0][artist]
            promotion = self._promotion(engine, seat, own_now, own_after, rel, artist, cards)
            if t == DOUBLE:  # alone: another seat may add a partner, else we keep it free
                theirs = max(0.0, supply[artist] - mine[artist])
                p_add = 1.0 - math.exp(-ADD_RATE * theirs)
                pair = 2 * market_after
                price = _sale_share(OPEN, n) * SHADE * pair
                added = 0.5 * price - mean_w * (0.5 * price + pair - price)
                sale = p_add * added + (1.0 - p_add) * own_after[artist]
            else:
                lot_market = cards * market_after
                price = _sale_share(t, n) * SHADE * lot_market
                sell = price - mean_w * (lot_market - price)
                keep = cards * own_after[artist] - price
                sale = max(sell, keep)
            out.append((action, sale + promotion))
        return out

    def playout(self, engine: ModernArtEngine, rng: Any) -> int:  # type: ignore[override]
        """Rollout moves: the heuristic's own bids and answers (what ``choose`` plays, without
        rating the other amounts), and offers by a quick rule from the same forecast.

        Scoring an offer exactly takes a forecast per artist in hand, about two thirds of the
        heuristic's time, so rollouts score offers from the current forecast only: the
        expected sale, a card's push as a fixed share of the artist's value, and the exact
        payout for a card that ends the round. Between two calls ``engine`` moves only by
        ``apply``, as in a rollout: the per-engine caches (``_PLAYING``) rely on it.
        """
        _PLAYING[0] = engine  # the per-engine caches answer for the rollout's engine alone
        try:
            phase = engine.phase
            if phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE):
                return bid_action(engine)
            if phase == PLAY:
                return pick_best(self._quick_offers(engine, engine.to_move), rng)
            return self.choose(engine, rng)
        finally:
            _PLAYING[0] = None

    def _quick_offers(self, engine: ModernArtEngine, seat: int) -> list[tuple[int, float]]:
        return quick_offers(engine, seat)

    # --- action abstraction for search -------------------------------------------------------
    @staticmethod
    def _candidates(lot: Lot, own: int) -> list[int]:
        return amount_candidates(lot.engine, own, lot.cap, lot.market)

    def candidates(  # type: ignore[override]
        self, engine: ModernArtEngine, legal: list[int] | None
    ) -> list[int]:
        phase = engine.phase
        if phase not in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE):
            return legal if legal is not None else engine.player_actions()
        seat = engine.to_move
        lot = Lot(engine, seat)
        return self._candidates(lot, self.bid(engine, lot))

    def commit_prior(  # type: ignore[override]
        self, engine: ModernArtEngine, candidates: list[int]
    ) -> list[float]:
        """An unrevealed sealed bid: most likely near the heuristic's bid for that seat."""
        lot = Lot(engine, engine.to_move)
        return sealed_prior(codec.amount_of(self.bid(engine, lot)), lot.cap, candidates)

    # --- evaluation --------------------------------------------------------------------------
    def evaluate(self, engine: ModernArtEngine) -> list[float]:  # type: ignore[override]
        """Final money estimated from money and this round's paintings at market forecasts."""
        return estimated_returns(engine, market_values(engine))

    def explain(self, engine: ModernArtEngine) -> dict[str, Any]:  # type: ignore[override]
        seat = engine.to_move
        values, ranked = values_of(engine, seat)
        out: dict[str, Any] = {
            "artist_values": {ARTIST_NAMES[a]: round(v, 1) for a, v in enumerate(values)},
            "top_three_chances": {ARTIST_NAMES[a]: round(p, 3) for a, p in enumerate(ranked)},
        }
        if engine.phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER):
            lot = Lot(engine, seat)
            out["lot_value"] = round(lot.value, 1)
            out["lot_market_value"] = round(lot.market, 1)
            out["bid_cap"] = round(lot.cap, 1)
        return out
