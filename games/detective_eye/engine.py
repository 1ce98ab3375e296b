"""Detective Eye (Attribute Eye) rules: bluffing and bidding (see ``docs/rules/detective_eye.md``).

Cards of a painter are interchangeable, so hands are counts per painter (interned ``Hand``
lists, shared between states) and rows of face-down cards are lists of painters. Every hidden
thing is a step of its own with its own narration:

* a deal is one chance step per seat whose outcome is the whole hand (a composition of
  ``hand_size`` cards over the painters, drawn from the undealt supply by the multivariate
  hypergeometric law); only the receiver sees it;
* a draft pass is a hidden commit seen by the passer; the receivers learn what they got at the
  last pass, all together (``Narration.hidden_for``), so no passer knows another's pass early;
* a placement is public as a fact (seat and position) and hidden as to the painter.

Flips during a challenge are public reveals, discards are public, miss counts and forgeries are
public. ``info_key`` needs no per-step bookkeeping: after the fixed-length setup (deals, passes,
start player) every action id says what it is, so the public record is the history with the
placements masked and each flip followed by the painter it showed, and the private record is
what the seat saw of the setup plus its placements; both are bytes read off the history when a
key is asked (``_extend_key_cache``): placing or flipping a card records nothing.

The steps read as the rules do: ``apply`` dispatches on the phase to one handler per step (deal,
pass cards, start player, first placement, turn: place or declare, bid, flip, then fail or succeed,
discard), and each rule has one helper (``_challenge``, ``_return_rows``, ``_end_round``,
``seat_after_challenger``, looked up per setting as ``Rules.seat_after``). Action ids and the
setting are ``games.detective_eye.actions``. Random playouts must keep up with OpenSpiel's C++
``liars_dice`` driven from Python (``atelier bench engine``; figures in
``docs/rules/detective_eye.md``), so the per-step paths look up what they can: hands are interned
``Hand`` objects carrying their legal placements and transitions, and legal declarations, raises,
flips and the next bidder come from per-setting tables (``Rules``).
``tests/test_detective_eye_engine.py`` pins the behaviour with a digest of seeded random playouts.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Iterable
from math import comb
from operator import add, sub
from typing import Any

from games.core.engine import CHANCE, TERMINAL, Engine, Narration, inverse_cdf
from games.detective_eye.actions import (  # noqa: F401 (compositions: re-exported)
    ActionIds,
    Config,
    composition_index,
    compositions,
)
from games.paintings import PAINTER_NAMES, shared_returns

# Phases.
DEAL, DRAFT, START, FIRST, TURN, BID, FLIP, DISCARD, OVER = range(9)
PHASE_NAMES = (
    "deal",
    "draft",
    "start",
    "first_placement",
    "turn",
    "bidding",
    "challenge",
    "discard",
    "over",
)
NUM_PHASES = len(PHASE_NAMES)

MISSES_PER_FORGERY = 2

# ``info_key`` masks placements (ids below the number of painters) with this byte; every
# player action id is below it (at most 194 with the parameter ranges of the definition), and
# so is every deal outcome (at most 91 compositions).
HIDDEN_BYTE = 255
_BYTE = tuple(bytes((i,)) for i in range(256))  # one shared one-byte ``bytes`` per value

# How the game ended.
END_NONE, END_WIN, END_SUPPLY, END_CAP = range(4)
END_NAMES = ("", "one_card", "supply_empty", "round_cap")

# How far a draw must be from a cumulative boundary of the deal odds for ``sample_chance``'s
# bisection to agree with the walk (whose rounding error is a few 1e-16 over at most 91
# outcomes, the compositions of 12 cards over 3 painters).
_ROUNDING = 1e-12
_NO_FLIPS: list[int] = []  # the empty ``face_down`` outside a challenge (shared, never changed)
# ``key_cache`` before the setup is over (see ``_extend_key_cache``).
_NO_KEYS: tuple[Any, ...] = (-1, b"", (), (), 0, -1, -1, -1, 0)
_START_ODDS = {n: [(s, 1.0 / n) for s in range(n)] for n in range(1, 9)}


class Hand(list):
    """Cards by painter, interned: one shared, never-changed object per composition.

    A hand change swaps in another ``Hand`` (``minus[c]``: one card of painter ``c`` less)
    instead of writing a count, so the per-step work reads attributes where it used to build
    and hash a tuple of counts: ``held`` is the painters present (the placement legal list;
    callers copy it), ``discards`` their discard actions (a list comprehension per discard
    step showed) and ``key`` the counts as a tuple. Copying an engine or returning the
    rows to the hands copies lists of references, not the counts. A list subclass, so hands
    still read, compare and print as the plain lists they were; changing one in place raises,
    as it would change every state that holds it.
    """

    __slots__ = ("discards", "held", "key", "minus")

    def _frozen(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a Hand is shared between states and never changed: use hand_of()")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _frozen
    append = extend = insert = pop = remove = clear = sort = reverse = _frozen

    def __reduce__(self) -> tuple[Any, tuple[tuple[int, ...]]]:
        return hand_of, (self.key,)


_HANDS: dict[tuple[int, ...], Hand] = {}


def hand_of(counts: Iterable[int]) -> Hand:
    """The interned ``Hand`` of these counts (built with every smaller hand on first use)."""
    key = tuple(counts)
    hand = _HANDS.get(key)
    if hand is None:
        hand = Hand(key)
        hand.key = key
        hand.held = [c for c, k in enumerate(key) if k]
        hand.discards = [len(key) + c for c in hand.held]  # discard ids: painters + c
        hand.minus = tuple(
            hand_of((*key[:c], k - 1, *key[c + 1 :])) if k else None for c, k in enumerate(key)
        )
        _HANDS[key] = hand
    return hand


_PLUS: dict[tuple[int, ...], Hand] = {}  # hand counts + cards received -> the new hand


def _plus(hand: Hand, cards: tuple[int, ...]) -> Hand:
    """``hand`` with ``cards`` (counts by painter) added, from a cache (``map`` costs more)."""
    key = hand.key + cards
    out = _PLUS.get(key)
    if out is None:
        out = _PLUS[key] = hand_of(map(add, hand, cards))
    return out


def painter_counts(names: tuple[str, ...], counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    """``{painter: count}`` for the painters present, in painter order."""
    return {names[c]: k for c, k in enumerate(counts) if k}


class Rules:
    """The constants and lookup tables of one parameter setting.

    Shared by every copy of an engine (and by every engine of the setting, see ``rules_for``),
    so ``copy()`` moves one reference, and the tables are built once per setting.
    """

    __slots__ = (
        "after_pass",
        "bids",
        "cards_per_painter",
        "cfg",
        "deal_comps",
        "deal_draw",
        "deal_hands",
        "deal_ids",
        "deal_odds",
        "declares",
        "draft_base",
        "draft_comps",
        "draft_ids",
        "draft_index",
        "draft_size",
        "face_down",
        "flips",
        "ids",
        "max_rounds",
        "names",
        "next_bidder",
        "raises",
        "seat_after",
        "undealt",
    )

    def __init__(self, cfg: Config) -> None:
        ids = ActionIds(cfg)
        self.cfg = cfg
        self.ids = ids
        max_rounds, painters, cards_per_painter = (
            cfg.max_rounds,
            cfg.painters,
            cfg.cards_per_painter,
        )
        hand_size, draft_size, num_players = cfg.hand_size, cfg.draft_size, cfg.num_players
        base = ids.draft_base
        self.max_rounds = max_rounds
        self.cards_per_painter = cards_per_painter
        self.draft_size = draft_size
        self.names = PAINTER_NAMES[:painters]
        self.draft_base = base
        self.draft_comps = ids.draft_comps
        self.draft_index = ids.draft_index
        # By hand counts: the legal passes, and the hand left by each draft composition (None
        # where it does not fit). Setup steps are few, but ``map`` arithmetic per step showed.
        self.draft_ids: dict[tuple[int, ...], list[int]] = {}
        self.after_pass: dict[tuple[int, ...], tuple[Hand | None, ...]] = {}
        self.deal_comps = ids.deal_comps
        self.deal_hands = tuple(map(hand_of, self.deal_comps))
        # By undealt supply: the deal odds, their outcome ids, and (edges, picks) for the
        # bisection of ``sample_chance`` (see ``_deal_odds``). Per setting, as the ids index
        # this setting's ``deal_comps``.
        self.deal_odds: dict[tuple[int, ...], list[tuple[int, float]]] = {}
        self.deal_ids: dict[tuple[int, ...], list[int]] = {}
        self.deal_draw: dict[tuple[int, ...], tuple[list[float], list[int | None]]] = {}
        self.undealt: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}  # ... after a deal
        if ids.num_actions > HIDDEN_BYTE:  # info_key stores actions as bytes
            raise ValueError("too many distinct actions for this parameter setting")
        # Decoding tables for the hot paths, indexed by action id (a tuple index instead of a
        # subtraction and a divmod per step): ``bids[a]`` is (painter, quantity) of a bid,
        # ``flips[a]`` (owner, position) of a flip; ``None`` for other ids.
        cards = ids.max_quantity
        flip_base = ids.flip_base
        bid_base = ids.bid_base
        self.bids = (None,) * bid_base + tuple(map(ids.bid_of, range(bid_base, flip_base)))
        self.flips = (None,) * flip_base + tuple(map(ids.flip_of, range(flip_base, base)))
        # ``face_down[start][t]``: the flip actions (owner, then position) when a challenge
        # starts with ``t`` cards face down. Turns place in seat order from the start player
        # until the first declaration, so the row lengths follow from ``start`` and ``t``; the
        # list is looked up once per challenge instead of kept up to date at every placement.
        self.face_down = tuple(
            tuple(_flip_actions(start, t, num_players, hand_size, ids) for t in range(cards + 1))
            for start in range(num_players)
        )
        # Legal-list tails by face-down count ``t`` (the callers copy them): ``declares[t]`` is
        # every declaration (quantities 1..t, the turn list after the painters held), and
        # ``raises[t][q]`` the bidding list over a bid of quantity ``q`` (pass, then every
        # strictly higher quantity up to t). Building these per step was a tenth of a random
        # game's time; at most 49 * 50 / 2 short lists even for the largest setting.
        self.declares = tuple(list(range(bid_base, ids.bid(0, t + 1))) for t in range(cards + 1))
        self.raises = tuple(
            tuple(
                [ids.pass_action, *range(ids.bid(0, q + 1), ids.bid(0, t + 1))]
                for q in range(t + 1)
            )
            for t in range(cards + 1)
        )
        # ``next_bidder[seat][out]``: the bidding turn after ``seat`` goes round to the next
        # seat not in the bit mask ``out`` (seats that passed, plus the high bidder); -1 if none.
        self.next_bidder = tuple(
            tuple(_next_seat(seat, out, num_players) for out in range(1 << num_players))
            for seat in range(num_players)
        )
        # ``seat_after[challenger]``: the next round's start player (a lookup, not a call).
        self.seat_after = tuple(seat_after_challenger(s, num_players) for s in range(num_players))


def _flip_actions(start: int, table: int, n: int, hand_size: int, ids: ActionIds) -> list[int]:
    """The face-down cards at a challenge: one first placement each, then turns from ``start``."""
    out = []
    for seat in range(n):
        length = (table // n) + ((seat - start) % n < table % n) if table >= n else 0
        length = min(length, hand_size)  # only reachable settings are ever looked up
        out.extend(ids.flip(seat, pos) for pos in range(length))
    return out


def seat_after_challenger(challenger: int, n: int) -> int:
    """The rule for the next round's start player: the seat after the round's challenger."""
    return (challenger + 1) % n


def _next_seat(seat: int, out: int, n: int) -> int:
    for step in range(1, n):
        other = (seat + step) % n
        if not out >> other & 1:
            return other
    return -1


def _decoded(
    cache: tuple[Any, ...],
    history: list[int],
    end: int,
    n: int,
    painters: int,
    pass_action: int,
    flip_base: int,
    next_bidder: tuple[tuple[int, ...], ...],
    flips: tuple[tuple[int, int] | None, ...],
) -> tuple[Any, ...]:
    """``cache`` (``DetectiveEyeEngine.key_cache``, past the setup) brought up to step ``end`` of
    ``history``: the loop of ``_extend_key_cache``, a function of plain values so that the
    compiled module runs it on C integers (``engine.pxd``)."""
    upto, public, own, rows, run, start, bidder, bidding, passed = cache
    for step in range(upto, end):
        action = history[step]
        if action < painters:  # a placement
            if not run:  # the first of a round
                rows = (b"",) * n
                if bidder >= 0:  # after a challenge
                    start = seat_after_challenger(bidder, n)
                    bidder = -1
            seat = run if run < n else (start + run - n) % n
            placed = _BYTE[action]
            own = _appended(own, seat, placed)
            rows = _appended(rows, seat, placed)
            public += _BYTE[HIDDEN_BYTE]
            run += 1
            continue
        public += _BYTE[action]
        if action >= flip_base:
            owner, pos = flips[action]
            public += _BYTE[rows[owner][pos]]
        elif action == pass_action:
            passed |= 1 << bidding
            bidding = next_bidder[bidder][passed | 1 << bidder]
        elif action > pass_action:  # a declaration or a raise
            if run:  # the declaration ends the round's placements
                bidding = (start + run - n) % n
                run = passed = 0
            bidder = bidding
            bidding = next_bidder[bidder][passed | 1 << bidder]
    return (end, public, own, rows, run, start, bidder, bidding, passed)


def _appended(records: tuple[bytes, ...], seat: int, more: bytes) -> tuple[bytes, ...]:
    """``records`` with ``more`` added to ``seat``'s (a new tuple: key caches are shared)."""
    out = list(records)
    out[seat] += more
    return tuple(out)


_RULES: dict[Config, Rules] = {}


def rules_for(cfg: Config) -> Rules:
    """The shared ``Rules`` of one setting, built on first use."""
    rules = _RULES.get(cfg)
    if rules is None:
        rules = _RULES[cfg] = Rules(cfg)
    return rules


class DetectiveEyeEngine(Engine):
    """The full game state; ``history`` replays it exactly."""

    __slots__ = (
        "bid_base",
        "bid_painter",
        "bid_passed",
        "bid_quantity",
        "bidder",
        "challenge_owners",
        "dealt",
        "discard_pile",
        "discards_left",
        "end_reason",
        "face_down",
        "flip_base",
        "flipped",
        "forgeries",
        "found",
        "hand_size",
        "hands",
        "held",
        "key_cache",
        "max_rounds",
        "misses",
        "owned",
        "painters",
        "pass_action",
        "passed_cards",
        "phase",
        "player",
        "received",
        "round",
        "rows",
        "rules",
        "start",
        "supply",
        "table",
        "winners",
    )

    def __init__(self, num_players: int | Config, **settings: int) -> None:
        """``DetectiveEyeEngine(Config(...))``; ``DetectiveEyeEngine(3, hand_size=6)`` is short
        for ``DetectiveEyeEngine(Config(3, hand_size=6))``."""
        if isinstance(num_players, Config):
            if settings:
                raise TypeError("give either a Config or the settings by name, not both")
            cfg = num_players
        else:
            cfg = Config(num_players, **settings)
        n = cfg.num_players
        painters = cfg.painters
        self.num_players = n
        self.rules = rules_for(cfg)
        ids = self.rules.ids
        self.painters = painters
        self.hand_size = cfg.hand_size
        self.max_rounds = cfg.max_rounds
        # The id bases the hot paths compare with, as plain attributes (a property or a
        # ``self.ids`` hop costs on every step); ``ids`` has the layout.
        self.pass_action = ids.pass_action
        self.bid_base = ids.bid_base
        self.flip_base = ids.flip_base
        cards_per_painter = cfg.cards_per_painter
        forgeries = cfg.forgeries
        self.history: list[int] = []
        # The information keys' parts decoded from the history so far (``_extend_key_cache``).
        self.key_cache: tuple[Any, ...] = _NO_KEYS
        self.phase = DEAL
        self.player = CHANCE
        self.supply = (cards_per_painter,) * painters  # undealt paintings
        nothing = hand_of((0,) * painters)
        self.hands = [nothing] * n  # cards in hand (not on the table), as Hands
        self.owned = [nothing] * n  # hand plus face-down row, as Hands
        self.passed_cards: list[tuple[int, ...] | None] = [None] * n
        self.received: list[tuple[int, ...] | None] = [None] * n
        self.rows: list[list[int]] = [[] for _ in range(n)]
        self.flipped = [0] * n  # bit mask of flipped positions per row
        # The flip actions still possible in a challenge. Never changed in place (it starts as
        # a shared table entry), so copies share it too.
        self.face_down: list[int] = _NO_FLIPS
        self.table = 0  # face-down cards on the table
        self.start = -1
        self.round = 0  # rounds completed
        self.bid_painter = -1
        self.bid_quantity = 0
        self.bidder = -1
        self.bid_passed = 0  # bit mask of seats that passed in this bidding
        self.found = 0
        self.challenge_owners = 0  # bit mask of owners flipped from
        self.discards_left = 0
        self.held = [0] * n  # forgeries held
        self.misses = [0] * n
        self.forgeries = forgeries  # forgery supply
        self.discard_pile = [0] * painters
        self.winners: list[int] = []
        self.end_reason = END_NONE
        self.dealt = 0  # seats dealt so far (deals run in seat order)

    def copy(self) -> DetectiveEyeEngine:
        new = DetectiveEyeEngine.__new__(DetectiveEyeEngine)
        new.num_players = self.num_players
        new.rules = self.rules
        new.max_rounds = self.max_rounds
        new.painters = self.painters
        new.hand_size = self.hand_size
        new.dealt = self.dealt
        new.pass_action = self.pass_action
        new.bid_base = self.bid_base
        new.flip_base = self.flip_base
        new.face_down = self.face_down
        new.history = self.history.copy()
        new.key_cache = self.key_cache
        new.phase = self.phase
        new.player = self.player
        new.supply = self.supply
        new.hands = self.hands.copy()  # Hands are shared, never changed
        new.owned = self.owned.copy()
        new.passed_cards = self.passed_cards.copy()
        new.received = self.received.copy()
        new.rows = [*map(list.copy, self.rows)]
        new.flipped = self.flipped.copy()
        new.table = self.table
        new.start = self.start
        new.round = self.round
        new.bid_painter = self.bid_painter
        new.bid_quantity = self.bid_quantity
        new.bidder = self.bidder
        new.bid_passed = self.bid_passed
        new.found = self.found
        new.challenge_owners = self.challenge_owners
        new.discards_left = self.discards_left
        new.held = self.held.copy()
        new.misses = self.misses.copy()
        new.forgeries = self.forgeries
        new.discard_pile = self.discard_pile.copy()
        new.winners = self.winners  # set once, at the end, never changed
        new.end_reason = self.end_reason
        return new

    # --- the setting and its action ids (``games.detective_eye.actions``) --------------------
    @property
    def cfg(self) -> Config:
        return self.rules.cfg

    @property
    def ids(self) -> ActionIds:
        return self.rules.ids

    @property
    def cards_per_painter(self) -> int:
        return self.rules.cards_per_painter

    @property
    def draft_size(self) -> int:
        return self.rules.draft_size

    @property
    def names(self) -> tuple[str, ...]:
        return self.rules.names

    @property
    def deal_comps(self) -> tuple[tuple[int, ...], ...]:
        return self.rules.deal_comps

    @property
    def draft_comps(self) -> tuple[tuple[int, ...], ...]:
        return self.rules.draft_comps

    @property
    def draft_index(self) -> dict[tuple[int, ...], int]:
        return self.rules.draft_index

    @property
    def draft_base(self) -> int:
        return self.rules.draft_base

    @property
    def max_quantity(self) -> int:
        return self.rules.ids.max_quantity

    @property
    def num_actions(self) -> int:
        return self.rules.ids.num_actions

    def bid_action(self, painter: int, quantity: int) -> int:
        return self.rules.ids.bid(painter, quantity)

    def flip_action(self, owner: int, position: int) -> int:
        return self.rules.ids.flip(owner, position)

    # --- game loop ---------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance(self) -> bool:
        return self.player == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == START:
            return _START_ODDS[self.num_players].copy()
        return list(self._deal_odds())

    def _deal_odds(self) -> list[tuple[int, float]]:
        """The odds of the next deal from the undealt ``supply`` (cached with its draw table)."""
        rules = self.rules
        supply = self.supply
        odds = rules.deal_odds.get(supply)
        if odds is None:
            total = comb(sum(supply), self.hand_size)
            odds = []
            for i, comp in enumerate(rules.deal_comps):
                ways = 1
                for c, k in enumerate(comp):
                    ways *= comb(supply[c], k)
                if ways:
                    odds.append((i, ways / total))
            # For the bisection: each cumulative boundary c as the pair of edges c -+ _ROUNDING.
            # A draw between two pairs (an even bisection index 2k) is outcome k, as in the
            # walk; inside a pair (odd index, or past the last edge) it takes the walk.
            edges: list[float] = []
            picks: list[int | None] = []
            u = 0.0
            for action, prob in odds:
                u += prob
                edges += (u - _ROUNDING, u + _ROUNDING)
                picks += (action, None)
            picks.append(None)
            rules.deal_odds[supply] = odds
            rules.deal_ids[supply] = [a for a, _ in odds]
            rules.deal_draw[supply] = (edges, picks)
        return odds

    def sample_chance(self, rng: random.Random) -> int:
        """The base class's draw (one ``rng.random()``, odds walked in order) on the cached odds.

        No list is copied; the same seeds give the same outcomes as ``chance_outcomes()``. A
        deal (up to 21 outcomes) is found by bisection (see ``_deal_odds``); only a draw within
        rounding distance of a boundary, where the walk's running subtraction could round the
        other way, takes the walk itself.
        """
        u = rng.random()
        if self.phase == DEAL:
            draw = self.rules.deal_draw.get(self.supply)
            if draw is None:
                self._deal_odds()
                draw = self.rules.deal_draw[self.supply]
            action = draw[1][bisect_right(draw[0], u)]
            if action is not None:
                return action
            outcomes = self.rules.deal_odds[self.supply]
        else:
            outcomes = _START_ODDS[self.num_players]
        return inverse_cdf(outcomes, u)

    def legal_actions(self) -> list[int]:
        # The two most frequent phases answered here too (bots call this one), the other player
        # phases through player_actions.
        phase = self.phase
        if phase == FIRST:
            return self.hands[self.player].held.copy()
        if phase == FLIP:
            return self.face_down.copy()
        if phase == DEAL:
            self._deal_odds()
            return self.rules.deal_ids[self.supply].copy()
        if phase == START:
            return list(range(self.num_players))
        return self.player_actions()

    def player_actions(self) -> list[int]:
        # The most frequent phases first; every list is a copy (or a sum) of cached lists: the
        # painters held from the Hand, the declarations and raises by face-down count.
        phase = self.phase
        if phase == FIRST:
            return self.hands[self.player].held.copy()
        if phase == FLIP:
            return self.face_down.copy()
        if phase == TURN:
            return self.hands[self.player].held + self.rules.declares[self.table]
        if phase == BID:
            return self.rules.raises[self.table][self.bid_quantity].copy()
        if phase == DRAFT:  # the compositions of draft_size cards the seat can pass (cached)
            hand = self.hands[self.player]
            rules = self.rules
            ids = rules.draft_ids.get(hand.key)
            if ids is None:
                base = rules.draft_base
                ids = rules.draft_ids[hand.key] = [
                    base + i
                    for i, comp in enumerate(rules.draft_comps)
                    if all(k <= hand[c] for c, k in enumerate(comp))
                ]
            return ids.copy()
        if phase == DISCARD:
            return self.hands[self.player].discards.copy()
        return []

    def apply(self, action: int) -> None:
        self.history.append(action)
        _APPLY[self.phase](self, action)

    def random_playout(self, rng: random.Random) -> list[float]:
        """Plays uniformly random legal actions to the end; returns ``returns()``.

        Exactly the loop ``while not terminal: apply(legal[int(rng.random() * len(legal))])``
        with ``sample_chance(rng)`` at chance nodes (tests/test_detective_eye_playout.py
        compares the two from every phase): the same draws, actions, history and state. What
        it saves is the plumbing, not the rules: the move is read off the cached legal lists
        (a turn's list is the painters held, then the declarations) without copying them, and
        the step goes to the phase's handler without the ``apply`` call.
        """
        random_ = rng.random
        history = self.history
        push = history.append
        rules = self.rules
        declares, raises = rules.declares, rules.raises
        while True:
            phase = self.phase
            if phase == FLIP:
                face_down = self.face_down
                action = face_down[int(random_() * len(face_down))]
            elif phase == FIRST:
                held = self.hands[self.player].held
                action = held[int(random_() * len(held))]
            elif phase == TURN:
                held = self.hands[self.player].held
                more = declares[self.table]
                i = int(random_() * (len(held) + len(more)))
                action = held[i] if i < len(held) else more[i - len(held)]
            elif phase == BID:
                legal = raises[self.table][self.bid_quantity]
                action = legal[int(random_() * len(legal))]
            elif phase == OVER:
                return self.returns()
            elif self.player == CHANCE:
                action = self.sample_chance(rng)
            else:
                legal = self.player_actions()
                action = legal[int(random_() * len(legal))]
            push(action)
            _APPLY[phase](self, action)

    # --- the steps, in game order (``_APPLY`` dispatches on the phase) ------------------------
    def _deal(self, action: int) -> None:
        """Seat by seat, the whole hand at once (``action`` indexes ``deal_comps``)."""
        seat = self.dealt
        self.dealt = seat + 1
        rules = self.rules
        self.hands[seat] = rules.deal_hands[action]
        undealt = rules.undealt.get(self.supply)
        if undealt is None:
            undealt = rules.undealt[self.supply] = tuple(
                tuple(map(sub, self.supply, comp)) for comp in rules.deal_comps
            )
        self.supply = undealt[action]
        if seat + 1 < self.num_players:
            return
        if rules.cfg.draft_size:
            self.phase = DRAFT
            self.player = 0
        else:
            self.owned = self.hands.copy()
            self.phase = START
            self.player = CHANCE

    def _pass_cards(self, action: int) -> None:
        """The draft, seat by seat; every seat receives its cards at the last pass."""
        player = self.player
        rules = self.rules
        which = action - rules.draft_base
        comp = rules.draft_comps[which]
        hands = self.hands
        hand = hands[player]
        left = rules.after_pass.get(hand.key)
        if left is None:  # the smaller hands were interned with this one
            left = rules.after_pass[hand.key] = tuple(
                _HANDS.get(tuple(map(sub, hand, c))) for c in rules.draft_comps
            )
        hands[player] = left[which]
        self.passed_cards[player] = comp
        n = self.num_players
        if player + 1 < n:
            self.player = player + 1
            return
        # Each receives the pass of the seat before (wrapping).
        passed = self.passed_cards
        received = self.received
        for receiver in range(n):
            giver = receiver - 1 if receiver else player
            got = received[receiver] = passed[giver]
            hands[receiver] = _plus(hands[receiver], got)
        self.owned = hands.copy()
        self.phase = START
        self.player = CHANCE

    def _start_player(self, seat: int) -> None:
        self.start = seat
        self.phase = FIRST
        self.player = 0

    def _first_placement(self, painter: int) -> None:
        """Each round opens with one card face down from every seat, in seat order; then the
        turns go round from the start player."""
        player = self.player
        hands = self.hands
        hands[player] = hands[player].minus[painter]
        self.rows[player].append(painter)
        player += 1
        self.table = player  # one card from each seat so far
        if player < self.num_players:
            self.player = player
        else:
            self.phase = TURN
            self.player = self.start

    def _turn(self, action: int) -> None:
        """A turn: one more card face down on the seat's row, or (an id past the painters) a
        declaration."""
        if action >= self.painters:
            self._declare(action)
            return
        player = self.player
        hands = self.hands
        hands[player] = hands[player].minus[action]
        self.rows[player].append(action)
        self.table += 1
        player += 1
        self.player = player if player < self.num_players else 0

    def _declare(self, action: int) -> None:
        """A declaration opens the bidding from the next seat, unless nobody could raise."""
        player = self.player
        self.bid_painter, quantity = self.rules.bids[action]
        self.bid_quantity = quantity
        self.bidder = player
        self.bid_passed = 0
        if quantity < self.table:
            self.phase = BID
            player += 1
            self.player = player if player < self.num_players else 0
        else:
            self._challenge(player)

    def _bid(self, action: int) -> None:
        """Raise or pass. The bidding goes on from the next seat that may still raise (nobody
        can once the quantity is every card on the table); else the last bidder challenges."""
        player = self.player
        if action == self.pass_action:
            passed = self.bid_passed = self.bid_passed | 1 << player
            player = self.bidder
            seat = self.rules.next_bidder[player][passed | 1 << player]
        else:
            self.bid_painter, quantity = self.rules.bids[action]
            self.bid_quantity = quantity
            self.bidder = player
            if quantity < self.table:
                seat = self.rules.next_bidder[player][self.bid_passed | 1 << player]
            else:
                seat = -1
        if seat >= 0:
            self.player = seat
        else:
            self._challenge(player)

    def _challenge(self, challenger: int) -> None:
        """The last bidder flips face-down cards until the bid is found or a flip fails."""
        self.phase = FLIP
        self.player = challenger
        self.found = 0
        self.challenge_owners = 0
        self.face_down = self.rules.face_down[self.start][self.table]

    def _flip(self, action: int) -> None:
        owner, pos = self.rules.flips[action]
        card = self.rows[owner][pos]
        if card != self.bid_painter:
            self._fail()
            return
        self.found += 1
        self.challenge_owners |= 1 << owner
        if self.found == self.bid_quantity:
            self._succeed()
            return
        self.flipped[owner] |= 1 << pos
        face_down = self.face_down.copy()
        face_down.remove(action)
        self.face_down = face_down
        self.table -= 1

    def _fail(self) -> None:
        """A flip shows another painter: a miss for the challenger (two make a forgery); the
        round ends, unless that was the last forgery of the supply."""
        self._return_rows()
        player = self.player
        misses = self.misses
        missed = misses[player] + 1
        if missed < MISSES_PER_FORGERY:
            misses[player] = missed
        else:
            misses[player] = 0
            self.held[player] += 1
            self.forgeries -= 1
            if self.forgeries <= 0:
                self._finish(self.ranking(), END_SUPPLY)
                return
        self._end_round()

    def _succeed(self) -> None:
        """The bid is found: the challenger gives back a forgery per owner flipped from, and
        discards a card for each one it has not got; one card left or fewer wins."""
        self._return_rows()
        me = self.player
        k = self.challenge_owners.bit_count()
        back = min(k, self.held[me])
        self.held[me] -= back
        self.forgeries += back
        rest = k - back
        if rest and sum(self.hands[me]) - rest <= 1:
            self._finish([me], END_WIN)
            return
        if rest:
            self.discards_left = rest
            self.phase = DISCARD
            return
        self._end_round()

    def _discard(self, action: int) -> None:
        player = self.player
        painter = self.rules.ids.discarded(action)
        self.hands[player] = self.hands[player].minus[painter]
        self.owned[player] = self.owned[player].minus[painter]
        self.discard_pile[painter] += 1
        self.discards_left -= 1
        if not self.discards_left:
            self._end_round()

    def _over(self, action: int) -> None:
        self.history.pop()
        raise ValueError("the game is over")

    # --- rounds ------------------------------------------------------------------------------
    def _return_rows(self) -> None:
        """All placed cards go back to their owners: hands become the holdings again."""
        self.hands = self.owned.copy()
        for row in self.rows:
            row.clear()
        if self.found:  # only a flip that finds the bid painter marks a card as flipped
            self.flipped = [0] * self.num_players
        self.face_down = _NO_FLIPS
        self.table = 0

    def _end_round(self) -> None:
        # No bid is open between rounds (bots read these fields in any phase); the bidding
        # passes and the challenge counters are reset when the next bidding or challenge starts.
        self.round += 1
        self.start = self.rules.seat_after[self.bidder]
        self.bid_quantity = 0
        self.bid_painter = -1
        self.bidder = -1
        if self.round >= self.max_rounds:
            self._finish(self.ranking(), END_CAP)
            return
        self.phase = FIRST
        self.player = 0

    def _finish(self, winners: list[int], reason: int) -> None:
        self.winners = winners
        self.end_reason = reason
        self.bid_quantity = 0
        self.bid_painter = -1
        self.bidder = -1
        self.phase = OVER
        self.player = TERMINAL

    def ranking(self) -> list[int]:
        """The forced-end winners: fewest forgeries, then fewest cards; ties share."""
        fewest = min(self.held)
        best = 1 << 30
        out: list[int] = []
        for seat, forgeries in enumerate(self.held):
            if forgeries == fewest:
                cards = sum(self.owned[seat])
                if cards < best:
                    best, out = cards, [seat]
                elif cards == best:
                    out.append(seat)
        return out

    def returns(self) -> list[float]:
        n = self.num_players
        if self.phase != OVER:
            return [0.0] * n
        return shared_returns(n, self.winners)

    # --- what players know -------------------------------------------------------------------
    def narrate(self, action: int) -> Narration:
        phase = self.phase
        names = self.names
        player = self.player
        if phase == DEAL:
            seat = self.dealt
            return Narration(
                {"type": "deal", "seat": seat, "cards": self.hand_size},
                {"cards": painter_counts(names, self.deal_comps[action])},
                (seat,),
            )
        if phase == DRAFT:
            comp = self.rules.ids.draft_of(action)
            public = {"type": "pass_cards", "seat": player, "cards": self.draft_size}
            mine = {"passed": painter_counts(names, comp)}
            n = self.num_players
            if player + 1 < n:
                return Narration(public, mine, (player,))
            gave = [*self.passed_cards[: n - 1], comp]
            per_seat = {r: {"received": painter_counts(names, gave[(r - 1) % n])} for r in range(n)}
            per_seat[player] = {**mine, **per_seat[player]}
            return Narration(public, hidden_for=per_seat)
        if phase == START:
            return Narration({"type": "start_player", "seat": action})
        if phase in (FIRST, TURN) and action < self.painters:
            return Narration(
                {"type": "place", "seat": player, "position": len(self.rows[player])},
                {"card": names[action]},
                (player,),
            )
        if phase in (TURN, BID):
            if action == self.pass_action:
                return Narration({"type": "pass", "seat": player})
            painter, quantity = self.rules.ids.bid_of(action)
            return Narration(
                {
                    "type": "declare" if phase == TURN else "raise",
                    "seat": player,
                    "painter": names[painter],
                    "quantity": quantity,
                }
            )
        if phase == FLIP:
            owner, pos = self.rules.ids.flip_of(action)
            card = self.rows[owner][pos]
            event: dict[str, Any] = {
                "type": "flip",
                "seat": player,
                "owner": owner,
                "position": pos,
                "card": names[card],
            }
            if card != self.bid_painter:
                event["outcome"] = "failure"
            elif self.found + 1 == self.bid_quantity:
                event["outcome"] = "success"
            return Narration(event)
        if phase == DISCARD:
            return Narration(
                {"type": "discard", "seat": player, "card": names[self.rules.ids.discarded(action)]}
            )
        raise ValueError("the game is over")

    def info_key(self, player: int) -> Any:
        """``(player, public record, player's private record)``, records as ``bytes``
        (``_extend_key_cache``); during the setup ``(player, steps so far, what the player saw
        of them)``. Hashing two ``bytes`` (their hashes are kept by the objects, and the private
        record changes only at the player's own placements) is what a tree lookup pays."""
        end = len(self.history)
        cache = self.key_cache
        if cache[0] != end:
            cache = self._extend_key_cache(end)
            if cache is None:
                return (player, end, self._setup_record(player, end))
        return (player, cache[1], cache[2][player])

    def _setup_record(self, seat: int, end: int) -> bytes:
        """What ``seat`` saw of the setup's first ``end`` steps, in the history's order: its deal
        (step ``seat``), then with a draft its pass (step ``n + seat``) and, once every seat has
        passed, the pass it received (from the seat before); action ids are below 255."""
        history, n = self.history, self.num_players
        seen = [history[seat]] if end > seat else []
        if self.rules.draft_size:
            if end > n + seat:
                seen.append(history[n + seat])
            if end >= 2 * n:
                seen.append(history[n + (seat - 1) % n])
        return bytes(seen)

    def _extend_key_cache(self, end: int) -> tuple[Any, ...] | None:
        """The parts of the information keys read off the history, brought up to ``end``
        (``None`` while the setup is not over).

        The public record starts with the start player (the setup's last step), then has one
        byte per step: the action, a placement masked (``HIDDEN_BYTE``), and after a flip one
        more byte, the painter it showed. Every seat's private record is what it saw of the
        setup (``_setup_record``), then the painters it placed, in order: which steps are its
        placements is public (a round's placements, the only ids below the number of painters,
        come in one unbroken run, the first ``n`` by seats 0..n-1 and the rest in turn from the
        round's start player, who sits after the last bidder of the round before,
        ``seat_after_challenger``), so records are equal exactly when the information sets
        are. The bidding is replayed here only to know that bidder (who raises or passes
        follows from the passes, as in ``apply``), and the round's rows (painters by seat) only
        to know what a flip showed. Nothing is recorded as the game is played: rollouts, which
        never ask a key, pay nothing.

        The cache (``key_cache``: length decoded, public record, private records, the round's
        rows, replay state) resumes where the last call stopped, so a search that asks a key
        after every step decodes one step; it is immutable, so copies share it.
        """
        cache = self.key_cache
        n = self.num_players
        if cache[0] < 0:  # the setup records first, once the setup is over
            upto = n + n * (self.rules.draft_size > 0) + 1
            if end < upto:
                return None
            start = self.history[upto - 1]  # the start player is the last setup step
            own = tuple([self._setup_record(seat, upto) for seat in range(n)])
            cache = (upto, _BYTE[start], own, (b"",) * n, 0, start, -1, -1, 0)
        rules = self.rules
        cache = self.key_cache = _decoded(
            cache,
            self.history,
            end,
            n,
            self.painters,
            self.pass_action,
            self.flip_base,
            rules.next_bidder,
            rules.flips,
        )
        return cache

    def observation(self, player: int) -> dict[str, Any]:
        names = self.names
        n = self.num_players
        rows = []
        for seat in range(n):
            mask = self.flipped[seat]
            rows.append(
                [
                    names[c] if seat == player or mask >> i & 1 else None
                    for i, c in enumerate(self.rows[seat])
                ]
            )
        out: dict[str, Any] = {
            "seat": player,
            "phase": PHASE_NAMES[self.phase],
            "round": self.round + 1 if self.phase != OVER else self.round,
            "start_player": self.start if self.start >= 0 else None,
            "hand": painter_counts(names, self.hands[player]),
            "hand_sizes": [sum(h) for h in self.hands],
            "rows": rows,
            "face_down": self.table,
            "forgeries_held": list(self.held),
            "misses": list(self.misses),
            "forgery_supply": self.forgeries,
            "discard": painter_counts(names, self.discard_pile),
        }
        if self.passed_cards[player] is not None:
            out["passed"] = painter_counts(names, self.passed_cards[player])
        if self.received[player] is not None:
            out["received"] = painter_counts(names, self.received[player])
        if self.bid_quantity:
            out["bid"] = {
                "seat": self.bidder,
                "painter": names[self.bid_painter],
                "quantity": self.bid_quantity,
            }
            out["passed_bidding"] = [s for s in range(n) if self.bid_passed >> s & 1]
        if self.phase == FLIP:
            out["found"] = self.found
        if self.phase == DISCARD:
            out["discards_left"] = self.discards_left
        if self.phase == OVER:
            out["winners"] = list(self.winners)
            out["end"] = END_NAMES[self.end_reason]
        return out

    def describe(self) -> dict[str, Any]:
        names = self.names
        out: dict[str, Any] = {
            "phase": PHASE_NAMES[self.phase],
            "rounds_played": self.round,
            "start_player": self.start if self.start >= 0 else None,
            "undealt": painter_counts(names, self.supply),
            "hands": [painter_counts(names, h) for h in self.hands],
            "rows": [[names[c] for c in row] for row in self.rows],
            "flipped": [
                [i for i in range(len(row)) if self.flipped[s] >> i & 1]
                for s, row in enumerate(self.rows)
            ],
            "passed": [None if c is None else painter_counts(names, c) for c in self.passed_cards],
            "forgeries_held": list(self.held),
            "misses": list(self.misses),
            "forgery_supply": self.forgeries,
            "discard": painter_counts(names, self.discard_pile),
        }
        if self.bid_quantity:
            out["bid"] = {
                "seat": self.bidder,
                "painter": names[self.bid_painter],
                "quantity": self.bid_quantity,
                "passed": [s for s in range(self.num_players) if self.bid_passed >> s & 1],
            }
        if self.phase == FLIP:
            out["found"] = self.found
        if self.phase == DISCARD:
            out["discards_left"] = self.discards_left
        if self.phase == OVER:
            out["winners"] = list(self.winners)
            out["end"] = END_NAMES[self.end_reason]
        return out


# Per phase (indexed by the phase number): the step.
_APPLY = (
    DetectiveEyeEngine._deal,
    DetectiveEyeEngine._pass_cards,
    DetectiveEyeEngine._start_player,
    DetectiveEyeEngine._first_placement,
    DetectiveEyeEngine._turn,  # a placement or a declaration
    DetectiveEyeEngine._bid,
    DetectiveEyeEngine._flip,
    DetectiveEyeEngine._discard,
    DetectiveEyeEngine._over,
)
assert len(_APPLY) == NUM_PHASES
