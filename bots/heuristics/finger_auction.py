"""Finger Auction heuristic: bids and picks from the scoring tables.

Everything but the bids in progress is public: the table, every Collection, the deck's
composition, who is still in the round and every seat's previous take (the no-repeat rule).
The heuristic reads only those.

* **What a card is worth** to a seat: how much it raises that seat's score by the seed's
  tables (``score_and_assignment``: the Mona Lisa where it scores most, forgeries subtracted),
  counting an unpaired Vermeer as half a pair in prospect (Vermeers score only in pairs) and a
  hair against every card held (fewer cards win ties).
* **Picks** take, one at a time, the card with the largest swing: our gain plus what the card
  would be worth to whoever gets it otherwise (in a two-player auction the loser gets the rest
  of the table, so a card we leave is a card the opponent scores).
* **Lowest-unique bids** (three or more in the auction): for each bid, the chance that it is the
  lowest unique one if the others bid uniformly (exact, by enumeration), times the value of the
  best cards it takes, against a fair share of the table if we lose.
* **Two-player (take, block)**: every split of the table is valued (we take our best ``t``
  cards and the opponent the rest, or the other way round). The opponent's take is modelled as
  a softmax over what each take is worth to it (respecting its no-repeat ban) and its block
  as a softmax over what each take is worth to us; we play the (take, block) pair with the best
  expected swing against that model.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

from bots.heuristics.base import GameKnowledge, race_returns
from games.finger_auction import actions as codec
from games.finger_auction.engine import (
    BID,
    PICK,
    FingerAuctionEngine,
    score_and_assignment,
    scoring_tables,
)
from games.paintings import KIND_NAMES, MONA_LISA, NUM_KINDS

VERMEER = 2
VERMEER_PAIR = scoring_tables(2)[VERMEER][2]  # what completing a pair of Vermeers scores
VERMEER_PAIR_HALF = 0.5  # share of a pair's value an unpaired Vermeer counts for in prospect
CARD_PENALTY = 0.01  # fewer cards win ties
SOFTMAX_SHARE = 0.25  # opponent-model temperature, as a share of the spread of its options


def potential(c: list[int] | tuple[int, ...], n: int, vermeer_pair: int) -> float:
    """Score by the tables, plus half a pair for an unpaired Vermeer, minus a hair per card."""
    return _potential(tuple(c), n, vermeer_pair)


@functools.lru_cache(maxsize=1 << 16)
def _potential(c: tuple[int, ...], n: int, vermeer_pair: int) -> float:
    # Cached: rollouts value the same few Collections over and over.
    score = score_and_assignment(c, n)[0]
    net = c[VERMEER] - c[3 + VERMEER]
    if net > 0 and net % 2 and not c[MONA_LISA]:
        score += VERMEER_PAIR_HALF * vermeer_pair
    return score - CARD_PENALTY * sum(c)


def gain(c: list[int], kind: int, n: int, vermeer_pair: int) -> float:
    """How much one card of ``kind`` is worth to the Collection ``c``."""
    return gains(tuple(c), n, vermeer_pair)[kind]


_GAINS: dict[tuple, tuple[float, ...]] = {}
_GAINS_CACHE = 1 << 16  # entries (a few MB), cleared when full


def gains(c: tuple[int, ...], n: int, vermeer_pair: int) -> tuple[float, ...]:
    """``gain`` of one card of every kind to the Collection ``c``. Memoised: a rollout values
    the same few Collections at every decision, for each card on the table."""
    key = (c, n, vermeer_pair)
    known = _GAINS.get(key)
    if known is None:
        base = _potential(c, n, vermeer_pair)
        known = tuple(
            _potential((*c[:kind], c[kind] + 1, *c[kind + 1 :]), n, vermeer_pair) - base
            for kind in range(NUM_KINDS)
        )
        if len(_GAINS) >= _GAINS_CACHE:
            _GAINS.clear()
        _GAINS[key] = known
    return known


def wanted(values: tuple[float, ...], table: tuple[int, ...], most: int, rng: Any) -> int:
    """The rollouts' take: the table cards worth more than the table's mean (``values`` by
    kind), at least one and at most ``most``; one less a quarter of the time (one draw of
    ``rng`` every time)."""
    return _fewer_now_and_then(_above_mean(values, table), most, rng)


def _fewer_now_and_then(t: int, most: int, rng: Any) -> int:
    """``wanted``'s noise: one card fewer a quarter of the time (one draw every time)."""
    if rng.random() < 0.25 and t > 1:
        t -= 1
    return min(t, most)


_TAKES: dict[tuple, int] = {}


def _rollout_take(
    mine: tuple[int, ...], theirs: tuple[int, ...] | None, table: tuple[int, ...], n: int
) -> int:
    """``_above_mean`` of our card gains (plus the opponent's, ``theirs`` given: the swing of
    a two-player auction) on ``table``, memoised on the Collections and the table."""
    key = (mine, theirs, table, n)
    known = _TAKES.get(key)
    if known is None:
        values = gains(mine, n, VERMEER_PAIR)
        if theirs is not None:
            values = _swing(values, gains(theirs, n, VERMEER_PAIR))
        known = _above_mean(values, table)
        if len(_TAKES) >= _GAINS_CACHE:
            _TAKES.clear()
        _TAKES[key] = known
    return known


def _above_mean(values: tuple[float, ...], table: tuple[int, ...]) -> int:
    """How many table cards are worth more than the table's mean (at least 1)."""
    total = 0  # each card added in turn, kinds in order, as ``sum`` over the cards would
    cards = 0
    for k in range(NUM_KINDS):
        v = values[k]
        for _ in range(table[k]):
            total += v
        cards += table[k]
    mean = total / cards
    t = 0
    for k in range(NUM_KINDS):
        if table[k] and values[k] > mean:
            t += table[k]
    return t or 1


def _swing(mine: tuple[float, ...], theirs: tuple[float, ...]) -> tuple[float, ...]:
    """Per kind, a card's worth to us plus to the opponent."""
    return tuple([a + b for a, b in zip(mine, theirs, strict=True)])


@functools.cache
def win_chances(others: int, m: int) -> tuple[float, ...]:
    """P(bid b is the lowest unique bid) for b = 1..m when ``others`` seats bid uniformly."""
    counts = [0] * m
    total = 0
    for bids in itertools.product(range(m), repeat=others):
        total += 1
        for mine in range(m):
            everyone = (mine, *bids)
            lowest = min((b for b in everyone if everyone.count(b) == 1), default=-1)
            if lowest == mine:
                counts[mine] += 1
    return tuple(c / total for c in counts)


def _softmax(values: list[float]) -> list[float]:
    top, low = max(values), min(values)
    temp = SOFTMAX_SHARE * (top - low) or 1.0
    weights = [math.exp((v - top) / temp) for v in values]
    total = sum(weights)
    return [w / total for w in weights]


class _Table:
    """The table and the Collections at one decision, with card values per seat."""

    def __init__(self, engine: FingerAuctionEngine) -> None:
        self.engine = engine
        self.n = engine.num_players
        self.pair = VERMEER_PAIR

    def value(self, seat: int, kind: int) -> float:
        return gain(self.engine.collections[seat], kind, self.n, self.pair)

    def split(self, chooser: int, other: int, take: int) -> float:
        """Swing for ``chooser`` (its gain minus ``other``'s) when it takes ``take`` cards and
        ``other`` gets the rest; picks one at a time by swing, values updated as it goes."""
        mine = list(self.engine.collections[chooser])
        theirs = list(self.engine.collections[other])
        left = list(self.engine.table)
        total = 0.0
        for _ in range(min(take, sum(left))):
            best, best_kind = -math.inf, -1
            for k in range(NUM_KINDS):
                if left[k]:
                    s = gain(mine, k, self.n, self.pair) + gain(theirs, k, self.n, self.pair)
                    if s > best:
                        best, best_kind = s, k
            total += gain(mine, best_kind, self.n, self.pair)
            mine[best_kind] += 1
            left[best_kind] -= 1
        for k in range(NUM_KINDS):
            for _ in range(left[k]):
                total -= gain(theirs, k, self.n, self.pair)
                theirs[k] += 1
        return total

    def best_take(self, seat: int, take: int) -> float:
        """Value to ``seat`` of its best ``take`` cards, chosen one at a time."""
        mine = list(self.engine.collections[seat])
        left = list(self.engine.table)
        total = 0.0
        for _ in range(min(take, sum(left))):
            best, best_kind = -math.inf, -1
            for k in range(NUM_KINDS):
                if left[k]:
                    s = gain(mine, k, self.n, self.pair)
                    if s > best:
                        best, best_kind = s, k
            total += best
            mine[best_kind] += 1
            left[best_kind] -= 1
        return total


class FingerAuctionKnowledge(GameKnowledge):
    game = "finger_auction"
    default_rollout = "heuristic"  # ``playout``: greedy picks, bids from per-card swings

    def rate(self, engine: FingerAuctionEngine) -> list[tuple[int, float]]:  # type: ignore[override]
        if engine.phase == PICK:
            return self._rate_picks(engine)
        if engine.phase == BID:
            if len(engine.active) == 2:
                return self._rate_two_player(engine)
            return self._rate_lowest_unique(engine)
        raise ValueError(f"no decision in phase {engine.phase}")

    def _rate_picks(self, engine: FingerAuctionEngine) -> list[tuple[int, float]]:
        seat = engine.picker
        n = engine.num_players
        collections = engine.collections
        mine = gains(tuple(collections[seat]), n, VERMEER_PAIR)
        rivals = [gains(tuple(collections[s]), n, VERMEER_PAIR) for s in engine.active if s != seat]
        # With one rival left it gets every card we leave; with more, only some.
        weight = 1.0 if len(rivals) == 1 else 1.0 / max(1, len(rivals))
        m = engine.max_bid
        out = []
        for action in engine.player_actions():
            kind = codec.picked(action, m)
            denial = max([r[kind] for r in rivals], default=0.0)
            out.append((action, mine[kind] + weight * denial))
        return out

    def _rate_lowest_unique(self, engine: FingerAuctionEngine) -> list[tuple[int, float]]:
        seat = engine.active[len(engine.bids)]
        table = _Table(engine)
        m = engine.max_bid
        chances = win_chances(len(engine.active) - 1, m)
        everything = table.best_take(seat, engine.table_size)
        fair = everything / len(engine.active)
        out = []
        for action in engine.player_actions():
            b = codec.bid_of(action)
            chance = chances[b - 1]
            out.append((action, chance * table.best_take(seat, b) + (1.0 - chance) * fair))
        return out

    def _rate_two_player(self, engine: FingerAuctionEngine) -> list[tuple[int, float]]:
        m = engine.max_bid
        me = engine.active[len(engine.bids)]
        opp = engine.active[1] if engine.active[0] == me else engine.active[0]
        table = _Table(engine)
        win = [table.split(me, opp, t) for t in range(1, m + 1)]
        lose = [-table.split(opp, me, u) for u in range(1, m + 1)]
        void = (sum(win) + sum(lose)) / (2 * m)
        # The opponent's take: what each take is worth to it, its banned take excluded.
        banned = engine.last_take[opp]
        opp_takes = [u for u in range(1, m + 1) if u != banned]
        q = dict(zip(opp_takes, _softmax([-lose[u - 1] for u in opp_takes]), strict=True))
        # Its block: what each of our takes is worth to us (it guesses what we want).
        my_banned = engine.last_take[me]
        my_takes = [t for t in range(1, m + 1) if t != my_banned]
        blocks = dict(zip(my_takes, _softmax([win[t - 1] for t in my_takes]), strict=True))
        out = []
        for action in engine.player_actions():
            t, k = codec.take_block_of(action, m)
            blocked = blocks.get(t, 0.0)  # the chance the opponent blocks our take
            total = 0.0
            for u, pu in q.items():
                if u == k:  # we block its take
                    live = win[t - 1]
                    dead = void
                else:
                    live = win[t - 1] if t < u else lose[u - 1] if u < t else void
                    dead = lose[u - 1]
                total += pu * ((1.0 - blocked) * live + blocked * dead)
            out.append((action, total))
        return out

    def playout(self, engine: FingerAuctionEngine, rng: Any) -> int:  # type: ignore[override]
        """Picks as ``rate``; bids from per-card swings, with a little noise (for rollouts).

        A take is the number of table cards worth taking (our gain, plus in a two-player
        auction what the card would be worth to the opponent, above the table's mean), one less
        now and then; the block is the opponent's take by the same rule.
        """
        if engine.phase == PICK:
            return max(self._rate_picks(engine), key=lambda x: x[1])[0]
        n = engine.num_players
        m = engine.max_bid
        active = engine.active
        me = active[len(engine.bids)]
        table = tuple(engine.table)
        mine = tuple(engine.collections[me])
        if len(active) != 2:
            return codec.bid(_fewer_now_and_then(_rollout_take(mine, None, table, n), m, rng))
        opp = active[1] if active[0] == me else active[0]
        # The swing of a card is the same for the take and for the block (ours plus theirs).
        t = _rollout_take(mine, tuple(engine.collections[opp]), table, n)
        take = _fewer_now_and_then(t, m, rng)
        if take == engine.last_take[me]:
            take = take + 1 if take < m else take - 1
        block = _fewer_now_and_then(t, m, rng)
        if block == engine.last_take[opp]:
            block = block + 1 if block < m else block - 1
        return codec.take_block(take, block, m)

    def commit_prior(  # type: ignore[override]
        self, engine: FingerAuctionEngine, candidates: list[int]
    ) -> list[float]:
        """An earlier bid of this auction: a softmax over the heuristic's ratings of it."""
        rated = dict(self.rate(engine))
        return _softmax([rated.get(a, min(rated.values())) for a in candidates])

    def evaluate(self, engine: FingerAuctionEngine) -> list[float]:  # type: ignore[override]
        """Expected returns from a softmax over each seat's score in prospect."""
        n = engine.num_players
        return race_returns([potential(c, n, VERMEER_PAIR) for c in engine.collections], 0.25)

    def explain(self, engine: FingerAuctionEngine) -> dict[str, Any]:  # type: ignore[override]
        seat = engine.current_player()
        table = _Table(engine)
        return {
            "card_values": {
                KIND_NAMES[k]: round(table.value(seat, k), 3)
                for k in range(NUM_KINDS)
                if engine.table[k]
            }
        }
