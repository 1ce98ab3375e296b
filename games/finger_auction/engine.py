"""Finger Auction rules: simultaneous finger bidding for the face-up table (see
``docs/rules/finger_auction.md``).

Everything on the table is public: the cards revealed each round, every collection, and every
bid once the auction it belongs to is revealed. The only hidden things are the order of the
deck (each reveal is a chance node over the remaining deck's composition) and the bids of the
auction in progress. Simultaneous bids are sequential moves in seat order whose content only
the bidder sees; the last bid of an auction reveals them all in its public event, so a later
bidder's information set never holds an earlier bid of the same auction (RULINGS "Common").

Card counts are kept per kind (``games.paintings`` order), so cards of a kind are
interchangeable and a pick is "one card of kind k". Picks that offer no choice (the take
covers the table, or a single kind is left) are made automatically and are not steps.
"""

from __future__ import annotations

import random
from typing import Any

from games.core.engine import CHANCE, TERMINAL, Engine, Narration
from games.finger_auction.actions import bid_of, pick, picked, take_block_of
from games.paintings import (
    FULL_DECK,
    KIND_NAMES,
    MONA_LISA,
    NUM_KINDS,
    PAINTER_NAMES,
    counts_to_names,
    shared_returns,
)

# Phases.
REVEAL, BID, TIE, PICK, OVER = range(5)
PHASE_NAMES = ("reveal", "bid", "tie_break", "pick", "over")

# Scoring tables, indexed by the count of a painter (0..9): the seed's printed rows.
MONET_2P_SCORES = (0, 1, 3, 6, 10, 15, 21, 28, 36, 45)
MONET_3P_SCORES = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256)
VAN_GOGH_SCORES = (0, 3, 6, 9, 12, 15, 18, 21, 24, 27)
VERMEER_SCORES = (0, 0, 8, 0, 16, 0, 24, 0, 32, 0)
MAX_COUNT = 9


def scoring_tables(num_players: int) -> tuple[tuple[int, ...], ...]:
    """The three painters' tables; only Monet's depends on the player count."""
    monet = MONET_2P_SCORES if num_players == 2 else MONET_3P_SCORES
    return (monet, VAN_GOGH_SCORES, VERMEER_SCORES)


def painter_counts(collection: list[int] | tuple[int, ...]) -> list[int]:
    """Paintings minus forgeries per painter, floored at 0 (the Mona Lisa not yet assigned)."""
    return [max(0, collection[p] - collection[3 + p]) for p in range(3)]


def score_and_assignment(
    collection: list[int] | tuple[int, ...], num_players: int
) -> tuple[int, int]:
    """The collection's score and the painter its Mona Lisa goes to (-1 without one).

    The Mona Lisa counts as one painting of the painter where the total is highest; the lowest
    painter index wins a tie between assignments (the score is the same either way). It is
    added before forgeries are subtracted, so it can cancel a forgery.
    """
    tables = scoring_tables(num_players)
    raw = [collection[p] - collection[3 + p] for p in range(3)]
    base = [tables[p][max(0, raw[p])] for p in range(3)]
    total = base[0] + base[1] + base[2]
    if not collection[MONA_LISA]:
        return total, -1
    best, where = -1, -1
    for p in range(3):
        with_ml = total - base[p] + tables[p][min(MAX_COUNT, max(0, raw[p] + 1))]
        if with_ml > best:
            best, where = with_ml, p
    return best, where


def painter_points(collection: list[int] | tuple[int, ...], num_players: int) -> list[int]:
    """Each painter's share of the score: its table's points for its count after forgeries,
    the Mona Lisa counted where ``score_and_assignment`` puts it (the shares add up to it)."""
    tables = scoring_tables(num_players)
    where = score_and_assignment(collection, num_players)[1]
    return [
        tables[p][min(MAX_COUNT, max(0, collection[p] - collection[3 + p] + (p == where)))]
        for p in range(3)
    ]


def auction_result(
    active: list[int], bids: list[int], decoding: tuple[tuple[int, int], ...]
) -> tuple[int, int, list[int]]:
    """Resolves revealed bids: ``(winner, take, [])`` or, for a void auction, ``(-1, 0, tied)``.

    ``decoding`` is the auction's ``(take, block)`` by bid action (``bid_decodings``; the
    engine's ``decoding()``). ``tied`` is who a capped tie-break chooses among: both seats of a
    two-player auction, else the seats sharing the lowest bid.
    """
    if len(active) == 2:
        take_a, block_a = decoding[bids[0]]
        take_b, block_b = decoding[bids[1]]
        live_a = take_a != block_b
        live_b = take_b != block_a
        if live_a and (not live_b or take_a < take_b):
            return active[0], take_a, []
        if live_b and (not live_a or take_b < take_a):
            return active[1], take_b, []
        return -1, 0, list(active)
    best = -1  # multi-player bid ids rise with the bid, so the lowest id is the lowest bid
    for a in bids:
        if (best < 0 or a < best) and bids.count(a) == 1:
            best = a
    if best >= 0:
        return active[bids.index(best)], decoding[best][0], []
    low = min(bids)
    return -1, 0, [seat for i, seat in enumerate(active) if bids[i] == low]


def revealed(deck: list[int], r: float) -> int:
    """The kind of card a reveal draws at ``r``, uniform in [0, cards left in ``deck``): the
    walk over the cumulative counts, unrolled (every reveal of every random playout draws here;
    typed in engine.pxd)."""
    c = deck[0]
    if r < c:
        return 0
    c += deck[1]
    if r < c:
        return 1
    c += deck[2]
    if r < c:
        return 2
    c += deck[3]
    if r < c:
        return 3
    c += deck[4]
    if r < c:
        return 4
    c += deck[5]
    if r < c:
        return 5
    return 6


def only_kind(table: list[int]) -> int:
    """The one kind of card on a non-empty table, or -1 when there are two kinds or more (a
    pick is then a real choice). Typed in engine.pxd: every pick of a playout asks it."""
    kind = -1
    for k in range(NUM_KINDS):
        if table[k]:
            if kind >= 0:
                return -1
            kind = k
    return kind


def poured(table: list[int], into: list[int]) -> None:
    """Every card of ``table`` added to ``into`` (counts by kind), leaving the table empty.
    Typed in engine.pxd: a round's last auction often takes what is left."""
    for k in range(NUM_KINDS):
        into[k] += table[k]
        table[k] = 0


def pick_choices(table: list[int], base: int) -> tuple[int, ...]:
    """The pick actions of a table: one per kind on it (``pick(kind)`` is ``base + kind``)."""
    return tuple([base + k for k in range(NUM_KINDS) if table[k]])


_DECODINGS: dict[int, tuple[tuple[tuple[int, int], ...], ...]] = {}


def bid_decodings(max_bid: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """``(take, block)`` by bid action, read off the codec once per ``max_bid``: entry 0 for an
    auction of three or more seats (block 0), entry 1 for a two-player auction."""
    tables = _DECODINGS.get(max_bid)
    if tables is None:
        multi = tuple((bid_of(a), 0) for a in range(max_bid))
        two = tuple(take_block_of(a, max_bid) for a in range(max_bid * max_bid))
        tables = _DECODINGS[max_bid] = (multi, two)
    return tables


_BID_LISTS: dict[int, tuple[tuple[int, ...], ...]] = {}


def bid_lists(max_bid: int) -> tuple[tuple[int, ...], ...]:
    """Legal bid actions, shared and immutable: entry t is a two-player auction where take t is
    banned (0: none), the last entry a multi-player auction."""
    lists = _BID_LISTS.get(max_bid)
    if lists is None:
        m = max_bid
        two = [tuple(range(m * m))]
        for banned in range(1, m + 1):
            two.append(tuple(a for a in range(m * m) if take_block_of(a, m)[0] != banned))
        lists = (*two, tuple(range(m)))
        _BID_LISTS[max_bid] = lists
    return lists


class FingerAuctionEngine(Engine):
    """The full game state; ``history`` replays it exactly.

    ``bids`` holds the actions committed so far in the auction in progress, by the seats
    ``active[0..len(bids)-1]``; ``last_take`` is each seat's take (or bid) in its previous
    auction this round, 0 for none: the no-repeat rule of two-player auctions reads it.
    """

    __slots__ = (
        "active",
        "bid_lists",
        "bids",
        "cards_per_round",
        "collections",
        "deck",
        "deck_size",
        "decodings",
        "last_take",
        "max_bid",
        "max_void",
        "phase",
        "pick_base",
        "picker",
        "picks_left",
        "round",
        "rounds",
        "table",
        "table_size",
        "tied",
        "voids",
    )

    def __init__(
        self,
        num_players: int,
        max_void: int = 20,
        rounds: int = 4,
        cards_per_round: int = 7,
        max_bid: int = 5,
        deck: tuple[int, ...] = FULL_DECK,
    ) -> None:
        self.num_players = num_players
        self.max_void = max_void
        self.rounds = rounds
        self.cards_per_round = cards_per_round
        self.max_bid = max_bid
        self.pick_base = pick(0, max_bid)
        self.bid_lists = bid_lists(max_bid)
        self.decodings = bid_decodings(max_bid)
        self.history: list[int] = []
        self.phase = REVEAL
        self.round = 0
        self.deck = list(deck)
        self.deck_size = sum(deck)
        self.table = [0] * NUM_KINDS
        self.table_size = 0
        self.collections = [[0] * NUM_KINDS for _ in range(num_players)]
        self.active = list(range(num_players))
        self.bids: list[int] = []
        self.last_take = [0] * num_players
        self.voids = 0
        self.tied: list[int] = []
        self.picker = -1
        self.picks_left = 0

    def copy(self) -> FingerAuctionEngine:
        new = FingerAuctionEngine.__new__(FingerAuctionEngine)
        new.num_players = self.num_players
        new.max_void = self.max_void
        new.rounds = self.rounds
        new.cards_per_round = self.cards_per_round
        new.max_bid = self.max_bid
        new.pick_base = self.pick_base
        new.bid_lists = self.bid_lists
        new.decodings = self.decodings
        new.history = self.history.copy()
        new.phase = self.phase
        new.round = self.round
        new.deck = self.deck.copy()
        new.deck_size = self.deck_size
        new.table = self.table.copy()
        new.table_size = self.table_size
        new.collections = [c.copy() for c in self.collections]
        new.active = self.active.copy()
        new.bids = self.bids.copy()
        new.last_take = self.last_take.copy()
        new.voids = self.voids
        new.tied = self.tied.copy()
        new.picker = self.picker
        new.picks_left = self.picks_left
        return new

    # --- action encoding (the layout: ``games.finger_auction.actions``) -----------------------
    def decoding(self) -> tuple[tuple[int, int], ...]:
        """``(take, block)`` by bid action in the auction in progress (two seats or more)."""
        return self.decodings[len(self.active) == 2]

    def decode_bid(self, action: int) -> tuple[int, int]:
        """(take, block) of a bid action in the auction in progress; block 0 when multi-player."""
        return self.decodings[len(self.active) == 2][action]

    # --- game loop -----------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase == REVEAL:
            return CHANCE
        if phase == BID:
            return self.active[len(self.bids)]
        if phase == PICK:
            return self.picker
        if phase == OVER:
            return TERMINAL
        return CHANCE

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance(self) -> bool:
        return self.phase == REVEAL or self.phase == TIE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == TIE:
            p = 1.0 / len(self.tied)
            return [(s, p) for s in self.tied]
        deck = self.deck
        total = sum(deck)
        return [(k, c / total) for k, c in enumerate(deck) if c]

    def sample_chance(self, rng: random.Random) -> int:
        """One chance outcome drawn by its probability, without building the outcome list."""
        if self.phase == TIE:
            return self.tied[rng.randrange(len(self.tied))]
        return revealed(self.deck, rng.random() * self.deck_size)

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == BID:
            return self.player_actions()
        if phase == REVEAL:
            return [k for k, c in enumerate(self.deck) if c]
        if phase == TIE:
            return sorted(self.tied)
        if phase == PICK:
            return self.player_actions()
        return []

    def player_actions(self) -> list[int]:
        return list(self._choices())

    def _choices(self) -> tuple[int, ...]:
        """The mover's legal actions (``player_actions``), as a tuple that may be shared (a
        bid list of ``bid_lists``): the random playout picks from it without copying a list."""
        phase = self.phase
        if phase == BID:
            active = self.active
            if len(active) != 2:
                return self.bid_lists[-1]
            return self.bid_lists[self.last_take[active[len(self.bids)]]]
        if phase == PICK:
            return pick_choices(self.table, self.pick_base)
        return ()

    def apply(self, action: int) -> None:
        """Applies a legal action (the caller checks legality) and records it in history."""
        self.history.append(action)
        _APPLY[self.phase](self, action)

    def random_playout(self, rng: random.Random) -> list[float]:
        """Plays uniformly random legal actions to the end; returns ``returns()``.

        Exactly ``Engine.random_playout``'s loop (chance by ``sample_chance(rng)``, a player
        by ``legal[int(rng.random() * len(legal))]``, one draw even with one legal action):
        the same draws, actions, history and state (tests/test_finger_auction_playout.py
        compares the two from every phase). What it saves is the plumbing, not the rules: it
        runs compiled with the engine (the generic loop does not), reads the phase instead of
        ``current_player``, picks from ``_choices`` (shared bid tuples, no list per step) and
        goes to the phase's handler without the ``apply`` call. Uniform ISMCTS rollouts run
        here.
        """
        random_ = rng.random
        sample, choices = self.sample_chance, self._choices  # bound once: every step asks
        push = self.history.append
        while True:
            phase = self.phase
            if phase == OVER:
                return self.returns()
            if phase == REVEAL:  # ``sample_chance``'s draw, with the bound ``rng.random``
                action = revealed(self.deck, random_() * self.deck_size)
            elif phase == TIE:
                action = sample(rng)
            else:
                legal = choices()
                action = legal[int(random_() * len(legal))]
            push(action)
            _APPLY[phase](self, action)

    # --- one handler per step, in game order (``_APPLY`` at the end of the module) -----------
    def _reveal(self, kind: int) -> None:
        """A card of ``kind`` from the deck onto the table; a full table opens the bidding
        (the table starts each round empty, so its size counts the reveals)."""
        self.deck[kind] -= 1
        self.deck_size -= 1
        self.table[kind] += 1
        size = self.table_size = self.table_size + 1
        if size == self.cards_per_round:
            self.phase = BID

    def _bid(self, action: int) -> None:
        """A hidden bid; the last one of the auction reveals them all."""
        bids = self.bids
        bids.append(action)
        if len(bids) == len(self.active):
            self._resolve_auction()

    def _tie_break(self, seat: int) -> None:
        """Chance picks the winner of a capped tie; it takes what it bid."""
        self._win(seat, self._take_of(seat, self.bids))

    def _pick(self, action: int) -> None:
        """One card of the picked kind from the table into the picker's collection."""
        kind = action - self.pick_base  # ``picked``, on the hot path: picks are pick_base + kind
        self.table[kind] -= 1
        self.table_size -= 1
        self.collections[self.picker][kind] += 1
        self.picks_left -= 1
        self._continue_picks()

    def _over(self, action: int) -> None:
        raise ValueError("the game is over")

    # --- auctions ------------------------------------------------------------------------------
    def _start_auction(self) -> None:
        self.phase = BID
        self.bids = []

    def _resolve_auction(self) -> None:
        """Reveals the bids: a winner, a repeat, or (at the cap) a chance tie-break."""
        active = self.active
        bids = self.bids
        decoding = self.decodings[len(active) == 2]
        last_take = self.last_take
        for i, seat in enumerate(active):
            last_take[seat] = decoding[bids[i]][0]
        winner, take, tied = auction_result(active, bids, decoding)
        if winner >= 0:
            self._win(winner, take)
            return
        self.voids += 1
        if self.voids >= self.max_void:
            self.tied = tied
            self.phase = TIE
        else:
            self.bids = []

    def _win(self, seat: int, take: int) -> None:
        """``seat`` wins the auction: it leaves the round and takes ``take`` cards (capped)."""
        self.voids = 0
        self.tied = []
        self.bids = []
        self.active.remove(seat)
        self.picker = seat
        self.picks_left = min(take, self.table_size)
        self._continue_picks()

    def _continue_picks(self) -> None:
        """Makes the forced picks; stops at a real choice, else moves to what comes next."""
        table = self.table
        left = self.picks_left
        if left:
            if left >= self.table_size:
                self._take_all(self.picker)
                left = 0
            else:
                kind = only_kind(table)
                if kind < 0:  # two kinds or more: a real choice
                    self.phase = PICK
                    return
                table[kind] -= left
                self.table_size -= left
                self.collections[self.picker][kind] += left
                left = 0
            self.picks_left = 0
        self.picker = -1
        if self.table_size and len(self.active) == 1:
            self._take_all(self.active[0])
        if not self.table_size:
            self._end_round()
        else:
            self._start_auction()

    def _take_all(self, seat: int) -> None:
        poured(self.table, self.collections[seat])
        self.table_size = 0

    def _end_round(self) -> None:
        self.round += 1
        self.bids = []
        if self.round >= self.rounds:
            self.phase = OVER
            self.active = []
            return
        self.phase = REVEAL
        self.active = list(range(self.num_players))
        self.last_take = [0] * self.num_players
        self.voids = 0

    # --- results -------------------------------------------------------------------------------
    def scores(self) -> list[int]:
        n = self.num_players
        return [score_and_assignment(c, n)[0] for c in self.collections]

    def winners(self) -> list[int]:
        """Highest score; among those, fewest cards held; the rest share the win."""
        scores = self.scores()
        best = max(scores)
        top = [s for s in range(self.num_players) if scores[s] == best]
        if len(top) == 1:  # the usual end (every random playout's): no tie to break
            return top
        fewest = min(sum(self.collections[s]) for s in top)
        return [s for s in top if sum(self.collections[s]) == fewest]

    def returns(self) -> list[float]:
        n = self.num_players
        if self.phase != OVER:
            return [0.0] * n
        return shared_returns(n, self.winners())

    # --- what players know ---------------------------------------------------------------------
    def bid_struct(self, seat_index: int, action: int) -> dict[str, int]:
        """The readable form of a bid by ``active[seat_index]`` in the auction in progress."""
        take, block = self.decode_bid(action)
        if block:
            return {"take": take, "block": block}
        return {"bid": take}

    def narrate(self, action: int) -> Narration:
        """Reveals and picks are public; a bid is hidden until the auction's last bid."""
        phase = self.phase
        if phase == REVEAL:
            return Narration(
                {
                    "type": "reveal",
                    "round": self.round + 1,
                    "slot": self.table_size + 1,
                    "card": KIND_NAMES[action],
                }
            )
        if phase == BID:
            k = len(self.bids)
            seat = self.active[k]
            if k + 1 < len(self.active):
                return Narration(
                    {"type": "bid", "seat": seat}, self.bid_struct(k, action), seen_by=(seat,)
                )
            bids = [*self.bids, action]
            revealed = [
                {"seat": s, **self.bid_struct(i, bids[i])} for i, s in enumerate(self.active)
            ]
            event: dict[str, Any] = {"type": "bid", "seat": seat, "revealed": revealed}
            winner, take, tied = auction_result(self.active, bids, self.decoding())
            if winner >= 0:
                event["outcome"] = "won"
                event["winner"] = winner
                event["takes"] = min(take, self.table_size)
                self._add_takings(event, action, winner)
            elif self.voids + 1 >= self.max_void:
                event["outcome"] = "tie_break"
                event["tied"] = tied
            else:
                event["outcome"] = "void"
            return Narration(event)
        if phase == TIE:
            take = self._take_of(action, self.bids)
            event = {"type": "tie_break", "winner": action, "takes": min(take, self.table_size)}
            self._add_takings(event, action, action)
            return Narration(event)
        kind = picked(action, self.max_bid)
        event = {"type": "pick", "seat": self.picker, "card": KIND_NAMES[kind]}
        self._add_takings(event, action, self.picker, picked=kind)
        return Narration(event)

    def _add_takings(
        self, event: dict[str, Any], action: int, taker: int, picked: int = -1
    ) -> None:
        """Adds to ``event`` the cards the step hands out without a pick of their own.

        ``auto_picked``: what ``taker`` takes without a choice (the take covers the table, or
        one kind is left), besides the ``picked`` card; ``leftover``: the cards the last seat
        in the round takes when the others have won. Read off the state after the step.
        """
        after = self.copy()
        after.apply(action)
        for seat in range(self.num_players):
            gained = [
                a - b for a, b in zip(after.collections[seat], self.collections[seat], strict=True)
            ]
            if seat == taker and picked >= 0:
                gained[picked] -= 1
            if not any(gained):
                continue
            if seat == taker:
                event["auto_picked"] = counts_to_names(gained)
            else:
                event["leftover"] = {"seat": seat, "cards": counts_to_names(gained)}

    def _take_of(self, seat: int, bids: list[int]) -> int:
        return self.decode_bid(bids[self.active.index(seat)])[0]

    def info_key(self, player: int) -> Any:
        """The history with the other seats' bids of the auction in progress masked."""
        key = [player]
        key += self.history
        k = len(self.bids) if self.phase == BID else 0
        if k:  # the auction's last k steps: its bids so far, by active[0..k-1]
            cut = len(key) - k
            active = self.active
            for i in range(k):
                if active[i] != player:
                    key[cut + i] = -1
        return tuple(key)

    def observation(self, player: int) -> dict[str, Any]:
        n = self.num_players
        out: dict[str, Any] = {
            "seat": player,
            "phase": PHASE_NAMES[self.phase],
            "round": min(self.round + 1, self.rounds),
            "rounds": self.rounds,
            "table": counts_to_names(self.table),
            "deck_left": counts_to_names(self.deck),
            "collections": [counts_to_names(c) for c in self.collections],
            "scores": self.scores(),
            "points_by_painter": [
                dict(zip(PAINTER_NAMES, painter_points(c, n), strict=True))
                for c in self.collections
            ],
            "in_round": list(self.active),
        }
        if self.phase == BID:
            out["auction"] = "two_player" if len(self.active) == 2 else "lowest_unique"
            out["voids_in_a_row"] = self.voids
            out["have_bid"] = self.active[: len(self.bids)]
            if player in out["have_bid"]:
                i = self.active.index(player)
                out["your_bid"] = self.bid_struct(i, self.bids[i])
            if len(self.active) == 2:
                out["no_repeat"] = {
                    str(s): self.last_take[s] for s in self.active if self.last_take[s]
                }
        if self.phase == TIE:
            out["tied"] = list(self.tied)
        if self.phase == PICK:
            out["picker"] = self.picker
            out["picks_left"] = self.picks_left
        if self.phase == OVER:
            out["winners"] = self.winners()
            out["mona_lisa_as"] = {
                str(s): PAINTER_NAMES[w]
                for s, c in enumerate(self.collections)
                if (w := score_and_assignment(c, n)[1]) >= 0
            }
        return out

    def describe(self) -> dict[str, Any]:
        out = self.observation(0)
        del out["seat"]
        out.pop("your_bid", None)
        out["round"] = self.round + 1 if self.phase != OVER else self.rounds
        out["last_take"] = list(self.last_take)
        out["voids_in_a_row"] = self.voids
        if self.phase == BID:
            out["bids"] = [
                {"seat": self.active[i], **self.bid_struct(i, a)} for i, a in enumerate(self.bids)
            ]
        return out


# ``apply``'s handler per phase (REVEAL, BID, TIE, PICK, OVER).
_APPLY = (
    FingerAuctionEngine._reveal,
    FingerAuctionEngine._bid,
    FingerAuctionEngine._tie_break,
    FingerAuctionEngine._pick,
    FingerAuctionEngine._over,
)
assert len(_APPLY) == len(PHASE_NAMES)
