"""The profiled heuristic: the game's heuristic with an opponent profile's tendencies applied.

A profile turns the heuristic's choice (uniform over its best-rated actions, ``HeuristicModel``)
into a distribution over the seat's actions, tendency by tendency, each one way (the catalogue
is ``bots.profiles.tendencies``):

* ``bid_scale`` (Finger Auction, Modern Art) moves the heuristic's bid to a scaled one;
* ``bluff_rate`` / ``timid_rate`` (Detective Eye) move that share of the mass to a bluff (the
  least declaration of a painter beyond its own face-down cards) / to a placement or a pass;
* ``explore_until`` / ``stop_at`` (Gallery Rush) force continue / confirm by the Keep's size;
* ``noise`` (every game) mixes in the uniform distribution over the considered actions.

Every tendency at its neutral value leaves the distribution as it is, so the empty profile is
the heuristic. The policy reads what the heuristic reads (the acting seat's own cards and the
public parts), so its answer depends only on the seat's information set and is cached by
``(player, info_key)`` like ``HeuristicModel``'s, whose cache of best moves it shares.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from typing import Any

from bots.beliefs import CACHE_LIMIT, HeuristicModel
from bots.heuristics import GameKnowledge
from bots.profiles.tendencies import check_profile, full_profile
from games.core.engine import Engine

Distribution = dict[int, float]
Adjust = Callable[[Engine, GameKnowledge, Distribution, Mapping[str, float]], Distribution]


class ProfiledPolicy:
    """``pi(a | I)`` of the heuristic played with ``profile``'s tendencies.

    One policy serves one game setting: its cache (and ``base``'s) is keyed by information
    set, which the engine contract makes exact within a setting only (``HeuristicModel``
    alike)."""

    def __init__(
        self,
        knowledge: GameKnowledge,
        profile: Mapping[str, float],
        base: HeuristicModel | None = None,
    ) -> None:
        self.knowledge = knowledge
        self.profile = full_profile(knowledge.game, check_profile(knowledge.game, profile))
        self.base = base if base is not None else HeuristicModel(knowledge)
        self.adjust = ADJUSTERS[knowledge.game]
        self.cache: dict[tuple[int, Any], list[tuple[int, float]]] = {}

    def distribution(self, engine: Engine, player: int) -> list[tuple[int, float]]:
        """``(action, probability)`` of the actions with positive probability, by action."""
        key = (player, engine.info_key(player))
        got = self.cache.get(key)
        if got is None:
            if len(self.cache) >= CACHE_LIMIT:
                self.cache.clear()
            got = self._compute(engine, player)
            self.cache[key] = got
        return got

    def _compute(self, engine: Engine, player: int) -> list[tuple[int, float]]:
        best = self.base.best(engine, player)
        dist = {a: 1.0 / len(best) for a in best}
        dist = self.adjust(engine, self.knowledge, dist, self.profile)
        noise = self.profile["noise"]
        if noise > 0.0:
            considered = considered_actions(engine, self.knowledge)
            dist = mix(dist, {a: 1.0 / len(considered) for a in considered}, noise)
        return sorted((a, p) for a, p in dist.items() if p > 0.0)

    def probability(self, engine: Engine, player: int, action: int) -> float:
        for a, p in self.distribution(engine, player):
            if a == action:
                return p
        return 0.0

    def choose(self, engine: Engine, rng: random.Random) -> int:
        """A move drawn from the distribution (one ``rng`` draw)."""
        dist = self.distribution(engine, engine.current_player())
        if len(dist) == 1:
            return dist[0][0]
        x = rng.random()
        for action, p in dist:
            x -= p
            if x < 0.0:
                return action
        return dist[-1][0]


def considered_actions(engine: Engine, knowledge: GameKnowledge) -> list[int]:
    """The legal actions, narrowed by the game's abstraction where it has one (Modern Art's
    amounts): what a careless player picks from."""
    legal = engine.player_actions()
    return knowledge.candidates(engine, legal) if knowledge.abstracts else legal


def mix(a: Distribution, b: Distribution, weight: float) -> Distribution:
    """``(1 - weight) * a + weight * b``."""
    out = {k: (1.0 - weight) * p for k, p in a.items()}
    for k, p in b.items():
        out[k] = out.get(k, 0.0) + weight * p
    return out


def moved(dist: Distribution, where: Callable[[int], int | None]) -> Distribution:
    """The distribution with each action's mass moved to ``where(action)`` (``None``: kept)."""
    out: Distribution = {}
    for a, p in dist.items():
        b = where(a)
        b = a if b is None else b
        out[b] = out.get(b, 0.0) + p
    return out


def scaled(amount: int, scale: float, low: int, high: int) -> int:
    """``amount * scale`` rounded half up, within ``[low, high]``."""
    return max(low, min(high, math.floor(amount * scale + 0.5)))


def nearest_legal(target: int, legal: set[int], encode: Callable[[int], int], span: int) -> int:
    """The legal action ``encode(x)`` with ``x`` nearest ``target`` (lower first on a tie)."""
    for d in range(span + 1):
        for x in (target - d, target + d):
            if encode(x) in legal and x >= 0:
                return encode(x)
    raise ValueError(f"no legal action near {target}")


# --- Finger Auction ----------------------------------------------------------------------------
def _finger_auction(
    engine: Any, knowledge: GameKnowledge, dist: Distribution, t: Mapping[str, float]
) -> Distribution:
    from games.finger_auction import actions as codec
    from games.finger_auction.engine import BID

    scale = t["bid_scale"]
    if scale == 1.0 or engine.phase != BID:
        return dist
    m = engine.max_bid
    legal = set(engine.player_actions())
    if len(engine.active) == 2:

        def take_scaled(a: int) -> int:
            take, block = codec.take_block_of(a, m)
            target = scaled(take, scale, 1, m)
            return nearest_legal(target, legal, lambda x: codec.take_block(x, block, m), m)

        return moved(dist, take_scaled)

    def bid_scaled(a: int) -> int:
        target = scaled(codec.bid_of(a), scale, 1, m)
        return nearest_legal(target, legal, codec.bid, m)

    return moved(dist, bid_scaled)


# --- Detective Eye -----------------------------------------------------------------------------
def _own_face_down(engine: Any, seat: int) -> list[int]:
    own = [0] * engine.painters
    mask = engine.flipped[seat]
    for pos, card in enumerate(engine.rows[seat]):
        if not mask >> pos & 1:
            own[card] += 1
    return own


def _detective_eye(
    engine: Any, knowledge: GameKnowledge, dist: Distribution, t: Mapping[str, float]
) -> Distribution:
    from games.detective_eye.actions import BID as BID_KIND
    from games.detective_eye.actions import PLACE
    from games.detective_eye.engine import BID, FIRST, TURN

    phase = engine.phase
    if phase not in (FIRST, TURN, BID):
        return dist
    ids = engine.ids
    legal = engine.player_actions()
    timid = t["timid_rate"]
    if timid > 0.0:
        seat = engine.player
        places = [a for a in legal if ids.kind(a) == PLACE]
        retreat: int | None = None
        if phase == BID:
            retreat = engine.pass_action
        elif places:  # the placement the heuristic prefers: the painter it holds most of
            retreat = max(places, key=lambda a: (engine.owned[seat][ids.placed(a)], -a))
        if retreat is not None:
            back = moved(dist, lambda a: retreat if ids.kind(a) == BID_KIND else None)
            dist = mix(dist, back, timid)
    bluff = t["bluff_rate"]
    if bluff > 0.0:
        own = _own_face_down(engine, engine.player)
        least: dict[int, tuple[int, int]] = {}
        for a in legal:
            if ids.kind(a) != BID_KIND:
                continue
            painter, quantity = ids.bid_of(a)
            if quantity > own[painter] and (painter not in least or quantity < least[painter][0]):
                least[painter] = (quantity, a)
        if least:
            bluffs = {a: 1.0 / len(least) for _, a in least.values()}
            dist = mix(dist, bluffs, bluff)
    return dist


# --- Gallery Rush ------------------------------------------------------------------------------
def _gallery_rush(
    engine: Any, knowledge: GameKnowledge, dist: Distribution, t: Mapping[str, float]
) -> Distribution:
    from games.gallery_rush.engine import CHOOSE, CONFIRM, CONTINUE

    if engine.phase != CHOOSE:
        return dist
    kept = sum(1 for k in engine.keep if k)
    legal = engine.player_actions()
    if kept >= t["stop_at"] and CONFIRM in legal:
        return {CONFIRM: 1.0}
    if kept < t["explore_until"] and CONTINUE in legal:
        return {CONTINUE: 1.0}
    return dist


# --- Modern Art --------------------------------------------------------------------------------
def _modern_art(
    engine: Any, knowledge: GameKnowledge, dist: Distribution, t: Mapping[str, float]
) -> Distribution:
    from bots.heuristics.modern_art import Lot
    from games.modern_art import actions as codec
    from games.modern_art.engine import ONCE_BIDS, OPEN_BIDS, PASS, SEALED_BIDS

    scale = t["bid_scale"]
    phase = engine.phase
    if scale == 1.0 or phase not in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS):
        return dist
    seat = engine.to_move
    money = engine.money[seat]
    if phase == SEALED_BIDS:

        def sealed(a: int) -> int:
            return codec.amount(scaled(codec.amount_of(a), scale, 0, money))

        return moved(dist, sealed)
    cap = scale * Lot(engine, seat).cap
    high = engine.high
    can_raise = (
        money > high
        and engine.high_bidder != seat
        and not (seat == engine.auctioneer and engine.high_bidder < 0)
        and not (phase == ONCE_BIDS and seat == engine.auctioneer)
    )

    def bid(a: int) -> int:
        if a == PASS:
            # An over-bidder goes on while the standing bid is below its scaled cap.
            if scale > 1.0 and can_raise and high + 1 <= min(cap, money):
                return codec.amount(high + 1)
            return PASS
        amount = codec.amount_of(a)
        if phase == ONCE_BIDS:
            amount = scaled(amount, scale, high + 1, money)
        limit = min(math.floor(cap), money)
        if amount > limit:  # an under-bidder stops below the heuristic's cap
            return codec.amount(limit) if limit > high else PASS
        return codec.amount(amount)

    return moved(dist, bid)


ADJUSTERS: dict[str, Adjust] = {
    "finger_auction": _finger_auction,
    "detective_eye": _detective_eye,
    "gallery_rush": _gallery_rush,
    "modern_art": _modern_art,
}
