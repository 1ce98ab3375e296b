"""Detective Eye heuristic: declarations from our own cards and the ones we know about.

What a seat knows and the heuristic reads: its own hand and face-down row, the cards it passed
to the next seat (still there unless discarded), every card flipped this round, the public
discard pile, everyone's holdings size, forgeries and misses, and the standing bid. It never
reads another seat's hand or row.

* **Beliefs**: a face-down card of another seat is painter ``c`` with probability proportional
  to what that seat is expected to hold: the cards we know it has (what we passed it, what was
  flipped from it this round) plus its unknown cards drawn from the unseen pool. A seat that
  declared or raised a painter is taken to hold more of it (declarers usually can back their
  call), so that painter's weight is tripled for its cards.
* **Challenges**: a declaration (painter, quantity) is valued by its best flip plan: our own
  face-down cards of that painter are certain; the others are the most likely cards, preferring
  new owners (each owner flipped from is one more discard). Success is worth the discards (a
  win if it empties the hand to one card); failure costs a miss (more when it brings a
  forgery).
* **Turn**: declare the best plan when its value is at least ``DECLARE_AT``, else place the
  painter we hold most of (so a later declaration can lean on it). **Bidding**: raise to the best
  plan above the standing bid when it is worth more than passing. **Flips** follow the plan.
* **Draft and discards** keep our holdings concentrated: pass and discard the painters we hold
  least of.
"""

from __future__ import annotations

import math
from typing import Any

from bots.heuristics.base import GameKnowledge, race_returns
from games.detective_eye.actions import PLACE
from games.detective_eye.engine import (
    BID,
    DISCARD,
    DRAFT,
    FIRST,
    FLIP,
    MISSES_PER_FORGERY,
    TURN,
    DetectiveEyeEngine,
)

DECLARER_WEIGHT = 3.0  # how much more likely a seat's cards are the painter it bid
MISS_COST = 1.0  # a miss, in cards of progress
FORGERY_COST = 1.5  # a miss that brings a forgery
WIN_VALUE = 10.0
DECLARE_AT = 0.75  # declare on our turn when the best plan is worth this much


class Beliefs:
    """One seat's picture of the face-down cards at a decision."""

    def __init__(self, engine: DetectiveEyeEngine, seat: int) -> None:
        self.engine = engine
        self.seat = seat
        p = engine.painters
        n = engine.num_players
        known = [[0] * p for _ in range(n)]
        nxt = (seat + 1) % n
        passed = engine.passed_cards[seat]
        if passed is not None and n > 1:
            known[nxt] = list(passed)
        # Cards flipped this round are public; they belong to their owners.
        for owner in range(n):
            mask = engine.flipped[owner]
            if owner == seat or not mask:
                continue
            revealed = [0] * p
            for pos, card in enumerate(engine.rows[owner]):
                if mask >> pos & 1:
                    revealed[card] += 1
            known[owner] = [max(a, b) for a, b in zip(known[owner], revealed, strict=True)]
        mine = engine.owned[seat]
        pool = [
            max(
                0,
                engine.cards_per_painter
                - mine[c]
                - engine.discard_pile[c]
                - sum(k[c] for k in known),
            )
            for c in range(p)
        ]
        pool_total = sum(pool) or 1
        self.odds: list[list[float]] = []
        for owner in range(n):
            holding = sum(engine.owned[owner])
            if owner == seat or not holding:
                self.odds.append([0.0] * p)
                continue
            k = [min(x, holding) for x in known[owner]]
            unknown = max(0, holding - sum(k))
            expected = [k[c] + unknown * pool[c] / pool_total for c in range(p)]
            if engine.bidder == owner and engine.bid_painter >= 0:
                expected[engine.bid_painter] *= DECLARER_WEIGHT
            total = sum(expected) or 1.0
            self.odds.append([e / total for e in expected])

    def candidates(self, painter: int) -> list[tuple[float, int, int]]:
        """Other seats' face-down cards as ``(probability, owner, flip action)``, best first."""
        e = self.engine
        out = []
        for owner, row in enumerate(e.rows):
            if owner == self.seat:
                continue
            mask = e.flipped[owner]
            for pos in range(len(row)):
                if not mask >> pos & 1:
                    out.append((self.odds[owner][painter], owner, e.flip_action(owner, pos)))
        out.sort(key=lambda x: -x[0])
        return out

    def own_cards(self, painter: int) -> list[int]:
        """Flip actions of our own face-down cards of ``painter``."""
        e = self.engine
        mask = e.flipped[self.seat]
        return [
            e.flip_action(self.seat, pos)
            for pos, card in enumerate(e.rows[self.seat])
            if card == painter and not mask >> pos & 1
        ]


def _fail_cost(engine: DetectiveEyeEngine, seat: int) -> float:
    return FORGERY_COST if engine.misses[seat] + 1 >= MISSES_PER_FORGERY else MISS_COST


def _success_value(engine: DetectiveEyeEngine, seat: int, owners: int) -> float:
    back = min(owners, engine.held[seat])
    rest = owners - back
    if rest and sum(engine.owned[seat]) - rest <= 1:
        return WIN_VALUE
    return float(owners)


class Plans:
    """The best flip plans for ``painter`` at every number of matches still needed, from one
    greedy ordering of the other seats' cards.

    A plan for ``needed`` matches takes ``j`` of the others' cards and the rest from our own.
    The ``j`` cards are picked greedily by probability, a new owner winning a near tie; that
    pick depends only on the picks before it, so the plan for ``j`` cards is the first ``j``
    picks of one sequence. Growing that sequence once per painter rather than once per
    declaration keeps the rating cheap enough to be the search's opponent model (every
    declaration of a painter shares it); the values are the ones the per-declaration greedy
    gave, product by product in the same order.
    """

    __slots__ = (
        "counts",
        "engine",
        "fail",
        "own",
        "own_adds",
        "picks",
        "pool",
        "products",
        "seat",
        "seen",
    )

    def __init__(self, beliefs: Beliefs, painter: int, owners_done: int = 0) -> None:
        e = beliefs.engine
        seat = beliefs.seat
        self.engine, self.seat = e, seat
        self.own = beliefs.own_cards(painter)
        self.fail = _fail_cost(e, seat)
        self.seen = {o for o in range(e.num_players) if owners_done >> o & 1}
        # Flipping one of our own cards adds us as an owner unless we already are one (the
        # others' cards never do: they are not ours).
        self.own_adds = 0 if seat in self.seen else 1
        self.pool = beliefs.candidates(painter)
        # picks[i]: the (i + 1)-th greedy pick; products[j] and counts[j]: the product of the
        # first j picks' probabilities and the number of owners flipped from after them.
        self.picks: list[tuple[float, int, int]] = []
        self.products = [1.0]
        self.counts = [len(self.seen)]

    def _grow(self, j: int) -> int:
        """Picks up to ``j`` (fewer if the others' cards run out); how many there are."""
        picks, pool, seen = self.picks, self.pool, self.seen
        while len(picks) < j and pool:
            pick = max(pool, key=lambda x: x[0] + (0.05 if x[1] not in seen else 0.0))
            pool.remove(pick)
            picks.append(pick)
            seen.add(pick[1])
            self.products.append(self.products[-1] * pick[0])
            self.counts.append(len(seen))
        return len(picks)

    def _values(self, needed: int) -> tuple[float, int]:
        """The best plan's value for ``needed`` more matches and how many of the others'
        cards it flips (-1: no plan, our own cards are too few)."""
        own_left, e, seat, fail = len(self.own), self.engine, self.seat, self.fail
        products, counts, own_adds = self.products, self.counts, self.own_adds
        best_value, best_j = -math.inf, -1
        for j in range(0, self._grow(needed) + 1):
            from_own = needed - j
            if from_own > own_left:
                continue
            p = products[j]
            owners = counts[j] + (own_adds if from_own else 0)
            value = p * _success_value(e, seat, owners) - (1.0 - p) * fail
            if value > best_value:
                best_value, best_j = value, j
        return best_value, best_j

    def value(self, needed: int) -> float:
        """The best plan's value for ``needed`` more matches (what a declaration is worth)."""
        return self._values(needed)[0]

    def best(self, needed: int) -> tuple[float, list[int]]:
        """Best flip plan for ``needed`` more matches: (value, flips in order)."""
        best_value, best_j = self._values(needed)
        if best_j < 0:
            return best_value, []
        chosen = sorted(self.picks[:best_j], key=lambda x: -x[0])
        return best_value, [a for _, _, a in chosen] + self.own[: needed - best_j]


def plan(
    beliefs: Beliefs, painter: int, needed: int, owners_done: int = 0
) -> tuple[float, list[int]]:
    """Best flip plan for ``needed`` more matches of ``painter``: (value, flips in order)."""
    return Plans(beliefs, painter, owners_done).best(needed)


class _PlansByPainter:
    """Each painter's ``Plans`` of one seat's decision, made when first asked for."""

    __slots__ = ("beliefs", "by_painter")

    def __init__(self, engine: DetectiveEyeEngine, seat: int) -> None:
        self.beliefs = Beliefs(engine, seat)
        self.by_painter: dict[int, Plans] = {}

    def value(self, painter: int, needed: int) -> float:
        plans = self.by_painter.get(painter)
        if plans is None:
            plans = self.by_painter[painter] = Plans(self.beliefs, painter)
        return plans.value(needed)


class DetectiveEyeKnowledge(GameKnowledge):
    game = "detective_eye"
    default_rollout = "heuristic"  # ``playout``: a safe player, far better than random

    def rate(self, engine: DetectiveEyeEngine) -> list[tuple[int, float]]:  # type: ignore[override]
        phase = engine.phase
        seat = engine.player
        legal = engine.player_actions()
        ids = engine.ids
        if phase in (FIRST, TURN):
            out: list[tuple[int, float]] = []
            plans = _PlansByPainter(engine, seat) if phase == TURN else None
            for a in legal:
                if ids.kind(a) == PLACE:  # place a card: the painter we hold most of
                    out.append((a, DECLARE_AT - 0.01 + 0.001 * engine.owned[seat][ids.placed(a)]))
                    continue
                painter, quantity = ids.bid_of(a)
                out.append((a, plans.value(painter, quantity)))  # type: ignore[union-attr]
            return out
        if phase == BID:
            plans = _PlansByPainter(engine, seat)
            out = [(engine.pass_action, 0.0)]
            for a in legal:
                if a == engine.pass_action:
                    continue
                painter, quantity = ids.bid_of(a)
                out.append((a, plans.value(painter, quantity)))
            return out
        if phase == FLIP:
            beliefs = Beliefs(engine, seat)
            needed = engine.bid_quantity - engine.found
            _, flips = plan(beliefs, engine.bid_painter, needed, engine.challenge_owners)
            first = flips[0] if flips else None
            odds = {a: prob for prob, _, a in beliefs.candidates(engine.bid_painter)}
            own = set(beliefs.own_cards(engine.bid_painter))
            return [
                (a, 2.0 if a == first else 1.0 if a in own else odds.get(a, 0.0)) for a in legal
            ]
        if phase == DISCARD:
            owned = engine.owned[seat]
            return [(a, -owned[ids.discarded(a)]) for a in legal]
        if phase == DRAFT:
            owned = engine.hands[seat]
            # Pass what we hold least of: score a pass by the holdings it leaves concentrated.
            return [
                (a, sum(k * owned[c] for c, k in enumerate(ids.draft_of(a))) * -1.0) for a in legal
            ]
        raise ValueError(f"no decision in phase {phase}")

    def playout(self, engine: DetectiveEyeEngine, rng: Any) -> int:  # type: ignore[override]
        """A safe player for rollouts: declare and raise only what our own cards back.

        ``rate`` values every declaration by its flip plan, which is too slow for rollouts; this
        keeps its first-order reasoning (our face-down cards of a painter are certain) and
        plays it without beliefs about the others.
        """
        phase = engine.phase
        seat = engine.player
        p = engine.painters
        if phase in (FIRST, TURN, BID):
            row = engine.rows[seat]
            mask = engine.flipped[seat]
            own = [0] * p
            for pos, card in enumerate(row):
                if not mask >> pos & 1:
                    own[card] += 1
            painter = max(range(p), key=own.__getitem__)
            if phase == BID:
                if own[painter] > engine.bid_quantity:
                    return engine.bid_action(painter, engine.bid_quantity + 1)
                return engine.pass_action
            hand = engine.hands[seat]
            if phase == TURN and (own[painter] or not sum(hand)):
                return engine.bid_action(painter, max(1, own[painter]))
            return max(range(p), key=hand.__getitem__)
        if phase == FLIP:
            legal = engine.player_actions()
            flip_of = engine.ids.flip_of
            for a in legal:
                owner, pos = flip_of(a)
                if owner == seat and engine.rows[seat][pos] == engine.bid_painter:
                    return a
            return legal[int(rng.random() * len(legal))]
        return self.choose(engine, rng)

    def evaluate(self, engine: DetectiveEyeEngine) -> list[float]:  # type: ignore[override]
        """Win chances from a softmax over progress: fewer cards, forgeries and misses."""
        n = engine.num_players
        progress = [
            -sum(engine.owned[s]) - FORGERY_COST * engine.held[s] - 0.5 * engine.misses[s]
            for s in range(n)
        ]
        return race_returns(progress, 1.0)

    def explain(self, engine: DetectiveEyeEngine) -> dict[str, Any]:  # type: ignore[override]
        if engine.phase not in (TURN, BID, FLIP):
            return {}
        beliefs = Beliefs(engine, engine.player)
        names = engine.names
        return {
            "beliefs": {
                str(s): {names[c]: round(x, 3) for c, x in enumerate(row)}
                for s, row in enumerate(beliefs.odds)
                if s != engine.player and any(row)
            }
        }
