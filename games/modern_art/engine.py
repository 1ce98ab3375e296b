"""Modern Art rules: the auction game for 3-5 players (see ``docs/rules/modern_art.md``).

The state is counts and small lists: hands and the deck are counts per card kind
(``cards.kind_of``), money, this round's counts per artist, cumulative values, and the
paintings each seat bought this round. Every step is one action:

* chance: each card of a deal or refill (one card at a time, round robin from seat 0, over the
  remaining deck's composition), and the first seller (uniform over the seats);
* the seller's offer (one card, or a Double with a partner card of the same artist);
* the Double's second way: each other seat in turn adds a partner card or passes;
* the bids of the auction (Open, Once Around, Sealed, Fixed price and the answers to it).

Round ends, payouts and skipped sellers happen inside the step that causes them.

Action ids are laid out in ``games.modern_art.actions`` (pass/accept/decline, add a partner,
offer a card, offer a Double with a partner, amounts); chance outcomes are card kinds (deals)
or seats (the first seller). ``apply`` dispatches on the phase to one handler per step of the
game, in game order (``_deal`` .. ``_answer``); each phase's legal actions have one method too
(``_LEGAL``), so a new phase is a name, a handler, a legal-action method and its two table
entries.
"""

from __future__ import annotations

import random
from typing import Any

from games.core.engine import CHANCE, TERMINAL, Engine, Narration
from games.modern_art.actions import (  # noqa: F401 (re-exported: the engine's vocabulary)
    ACCEPT,
    ADD_BASE,
    ADD_IDS,
    AMOUNT_BASE,
    DECLINE,
    OFFER_BASE,
    OFFER_IDS,
    PAIR_BASE,
    PAIR_IDS,
    PARTNER_TYPES,
    PASS,
    SIMPLE_NAMES,
    added_type,
    amount_of,
    is_add,
    is_amount,
    is_offer,
    is_pair,
    num_actions,
    offered_kind,
    pair_kinds,
    pair_of,
)
from games.modern_art.cards import (
    ARTIST_NAMES,
    DOUBLE,
    FIXED,
    NUM_TYPES,
    ONCE_AROUND,
    OPEN,
    REFILL_ROUNDS,
    ROUND_END_COUNT,
    SEALED,
    TYPE_NAMES,
    Config,
    card_name,
    card_struct,
    counts_by_card,
)

# Phases.
DEAL, FIRST, PLAY, ADD, OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER, OVER = range(10)
PHASE_NAMES = (
    "deal",
    "first_seller",
    "offer",
    "double_partner",
    "open",
    "once_around",
    "sealed",
    "fixed_price",
    "fixed_answer",
    "over",
)
NUM_PHASES = len(PHASE_NAMES)
AUCTION_PHASES = (ADD, OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER)
BID_PHASE_OF_TYPE = {OPEN: OPEN_BIDS, ONCE_AROUND: ONCE_BIDS, SEALED: SEALED_BIDS, FIXED: PRICE}
AMOUNT_PHASES = frozenset((OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE))  # actions: pass or amounts


class ModernArtEngine(Engine):
    """The full game state; ``history`` replays it exactly.

    ``secret[i]`` is the seat that alone saw step ``i`` (a dealt card, a sealed bid before the
    reveal), or -1 for a public step; the reveal of a sealed auction makes its bids public.
    ``info_key`` masks the steps a seat did not see.
    """

    __slots__ = (
        "artist",
        "auction",
        "auctioneer",
        "bids",
        "bought",
        "cfg",
        "counts",
        "deal_left",
        "deal_seat",
        "deck",
        "deck_size",
        "hand_size",
        "hands",
        "high",
        "high_bidder",
        "last_sale",
        "money",
        "ncards",
        "next_start",
        "partner",
        "passes",
        "phase",
        "pile",
        "price",
        "round",
        "sales",
        "scores",
        "secret",
        "seen",
        "seller",
        "to_move",
        "values",
    )

    def __init__(self, cfg: Config) -> None:
        n = cfg.n
        self.cfg = cfg
        self.num_players = n
        self.history: list[int] = []
        self.secret: list[int] = []
        self.phase = DEAL
        self.to_move = CHANCE
        self.money = [cfg.money] * n
        self.hands = [[0] * cfg.kinds for _ in range(n)]
        self.hand_size = [0] * n
        self.deck = list(cfg.deck)
        self.deck_size = cfg.deck_size
        self.pile = [k for k, c in enumerate(cfg.deck) for _ in range(c)]
        self.round = 0
        self.counts = [0] * cfg.artists
        self.values = [0] * cfg.artists
        self.bought = [[0] * cfg.artists for _ in range(n)]
        self.seen = [0] * cfg.kinds
        self.deal_left = n * cfg.deal
        self.deal_seat = 0
        self.seller = -1
        self.auctioneer = -1
        self.partner = -1  # the first auctioneer of a Double sold the second way
        self.artist = -1
        self.auction = -1
        self.ncards = 0
        self.high = 0
        self.high_bidder = -1
        self.passes = 0
        self.bids = [0] * n
        self.price = 0
        self.next_start = 0
        self.sales = 0
        self.last_sale = (-1, 0)
        self.scores: list[tuple] = []

    def _copy_state(self) -> ModernArtEngine:
        new = ModernArtEngine.__new__(ModernArtEngine)
        new.cfg = self.cfg
        new.num_players = self.num_players
        new.phase = self.phase
        new.to_move = self.to_move
        new.money = self.money.copy()
        new.hands = [h.copy() for h in self.hands]
        new.hand_size = self.hand_size.copy()
        new.deck = self.deck.copy()
        new.deck_size = self.deck_size
        new.pile = self.pile.copy()
        new.round = self.round
        new.counts = self.counts.copy()
        new.values = self.values.copy()
        new.bought = [b.copy() for b in self.bought]
        new.seen = self.seen.copy()
        new.deal_left = self.deal_left
        new.deal_seat = self.deal_seat
        new.seller = self.seller
        new.auctioneer = self.auctioneer
        new.partner = self.partner
        new.artist = self.artist
        new.auction = self.auction
        new.ncards = self.ncards
        new.high = self.high
        new.high_bidder = self.high_bidder
        new.passes = self.passes
        new.bids = self.bids.copy()
        new.price = self.price
        new.next_start = self.next_start
        new.sales = self.sales
        new.last_sale = self.last_sale
        new.scores = self.scores.copy()
        return new

    def copy(self) -> ModernArtEngine:
        new = self._copy_state()
        new.history = self.history.copy()
        new.secret = self.secret.copy()
        return new

    # --- game loop ---------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.to_move

    def is_terminal(self) -> bool:
        return self.to_move == TERMINAL

    def is_chance(self) -> bool:
        return self.to_move == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == FIRST:
            p = 1.0 / self.num_players
            return [(s, p) for s in range(self.num_players)]
        total = self.deck_size
        return [(k, c / total) for k, c in enumerate(self.deck) if c]

    def sample_chance(self, rng: random.Random) -> int:
        if self.phase == FIRST:
            return rng.randrange(self.num_players)
        pile = self.pile  # one entry per card left, so a uniform pick is a deal
        return pile[int(rng.random() * len(pile))]

    def legal_actions(self) -> list[int]:
        to_move = self.to_move
        if to_move >= 0:
            return self.player_actions()
        if to_move == CHANCE:
            if self.phase == FIRST:
                return list(range(self.num_players))
            return [k for k, c in enumerate(self.deck) if c]
        return []

    def player_actions(self) -> list[int]:
        return _LEGAL[self.phase](self, self.to_move)

    # The legal actions of each phase for the seat ``q`` to move (``_LEGAL``, by phase).
    def _offers(self, q: int) -> list[int]:
        return offer_actions(self.hands[q], self.counts)

    def _partners(self, q: int) -> list[int]:
        return partner_actions(self.hands[q], self.artist)

    def amount_range(self, q: int) -> tuple[bool, int, int]:
        """The legal actions of seat ``q`` in an amount phase (``AMOUNT_PHASES``), written once
        for the legal lists, ``is_legal`` and ``random_playout``: ``(may_pass, low, high)``,
        meaning ``[PASS]`` if ``may_pass``, then the amounts ``low .. high`` (none if
        ``low > high``), in that order."""
        top = self.money[q]
        phase = self.phase
        if phase == SEALED_BIDS:
            return False, 0, top
        if phase == PRICE:  # a price of at least 1; a seat without money names 0
            return False, 1 if top else 0, top
        return True, self.high + 1, top  # Open and Once Around: pass, or raise the high bid

    def _amounts(self, q: int) -> list[int]:
        may_pass, low, high = self.amount_range(q)
        amounts = range(AMOUNT_BASE + low, AMOUNT_BASE + high + 1)
        return [PASS, *amounts] if may_pass else list(amounts)

    def _answers(self, q: int) -> list[int]:
        return [ACCEPT, DECLINE] if self.money[q] >= self.price else [DECLINE]

    def _no_actions(self, q: int) -> list[int]:
        return []

    def is_legal(self, action: int) -> bool:
        """``action in legal_actions()`` without building the list (amounts are ranges)."""
        to_move = self.to_move
        if to_move == TERMINAL:
            return False
        if to_move >= 0 and self.phase in AMOUNT_PHASES:
            may_pass, low, high = self.amount_range(to_move)
            return (may_pass and action == PASS) or low <= amount_of(action) <= high
        return action in self.legal_actions()

    def apply(self, action: int) -> None:
        self.history.append(action)
        _APPLY[self.phase](self, action)

    def random_playout(self, rng: random.Random) -> list[float]:
        """Plays uniformly random legal actions to the end; returns ``returns()``.

        Exactly the loop ``while not terminal: apply(legal[int(rng.random() * len(legal))])``
        with ``sample_chance(rng)`` at chance nodes: the same actions from the same ``rng``
        draws, the same history, secrets and final state in every field
        (tests/test_modern_art_playout.py checks it from every phase). Search rollouts spend
        almost all their time here, about 260 steps a game of which two thirds are bids, so a
        bid is picked by index arithmetic on its legal range (``amount_range``, the legal
        lists' own) instead of a list of every amount, and an Open or Once Around auction runs
        in local variables to its end (``open_auction_over``, ``_open_bid``'s own end rule),
        then settles through ``apply``'s helpers. Every other step is ``apply``'s two lines
        with the phase's handler named (a call less a step, about 100 steps a game), its
        legal list from the phase's own function (``offer_actions``, ``partner_actions``).
        This module is compiled (setup.py, ``games.core.compiled``); tests/test_compiled.py
        pins the compiled and the pure path.
        """
        random_ = rng.random
        history = self.history
        secret = self.secret
        push, hide = history.append, secret.append
        money = self.money  # mutated in place by sales and payouts, never replaced
        n = self.num_players
        while True:
            phase = self.phase
            if phase in (OPEN_BIDS, ONCE_BIDS):
                # legal = [PASS, high + 1 .. money]: index i > 0 is the bid of high + i.
                q = self.to_move
                high = self.high
                hb = self.high_bidder
                passes = self.passes
                once = phase == ONCE_BIDS
                x = self.auctioneer
                while True:
                    top = money[q]
                    i = int(random_() * (top - high + 1)) if top > high else int(random_())
                    hide(-1)
                    if i:
                        high += i
                        push(AMOUNT_BASE + high)
                        hb = q
                        passes = 0
                    elif not once:
                        push(PASS)
                        if open_auction_over(passes + 1, hb, n):
                            break
                        passes += 1
                    else:
                        push(PASS)
                    if once and q == x:  # Once Around: one bid each, the auctioneer last
                        break
                    q = q + 1 if q + 1 < n else 0
                self.high = high
                self.high_bidder = hb
                if not once:
                    self.passes = passes
                self.to_move = q
                self._settle_bids()
            elif phase == PLAY:
                legal = offer_actions(self.hands[self.to_move], self.counts)  # (``_offers``)
                action = legal[int(random_() * len(legal))]
                push(action)
                self._offer(action)
            elif phase == DEAL:
                action = self.sample_chance(rng)
                push(action)
                self._deal(action)
            elif phase == OVER:
                return self.returns()
            elif phase == ANSWER:
                # legal = [ACCEPT, DECLINE], or [DECLINE] without the money for the price.
                i = int(random_() * 2) if money[self.to_move] >= self.price else int(random_())
                action = DECLINE if i or money[self.to_move] < self.price else ACCEPT
                push(action)
                self._answer(action)
            elif phase == ADD:
                legal = partner_actions(self.hands[self.to_move], self.artist)  # (``_partners``)
                action = legal[int(random_() * len(legal))]
                push(action)
                self._add(action)
            elif phase == FIRST:
                self.apply(self.sample_chance(rng))
            else:  # Sealed bids and the fixed price: an amount from the legal range
                may_pass, low, high = self.amount_range(self.to_move)
                i = int(random_() * (high - low + 1 + may_pass))
                action = PASS if may_pass and not i else AMOUNT_BASE + low + i - may_pass
                push(action)
                _APPLY[phase](self, action)

    # --- the steps, in game order (``_APPLY`` dispatches on the phase) ------------------------
    def _deal(self, card: int) -> None:
        """One card from the deck to the seat whose turn it is in the round-robin deal."""
        q = self.deal_seat
        self.secret.append(q)
        self.deck[card] -= 1
        self.deck_size -= 1
        pile = self.pile
        i = pile.index(card)
        pile[i] = pile[-1]
        pile.pop()
        self.hands[q][card] += 1
        self.hand_size[q] += 1
        self.deal_left -= 1
        if self.deal_left:
            q += 1
            self.deal_seat = q if q < self.num_players else 0
        else:
            self._dealt()

    def _dealt(self) -> None:
        """A deal is complete: the first seller is drawn (first round) or the round starts."""
        if self.round == 0:
            self.phase = FIRST
        else:
            self._begin_turn(self.next_start)

    def _first_seller(self, seat: int) -> None:
        self.secret.append(-1)
        self._begin_turn(seat)

    def _begin_turn(self, seat: int) -> None:
        """The first seat from ``seat`` on with a card sells; nobody has one: the round ends."""
        n = self.num_players
        hand_size = self.hand_size
        for i in range(n):
            q = (seat + i) % n
            if hand_size[q]:
                self.seller = q
                self.phase = PLAY
                self.to_move = q
                return
        self._end_round(seat)

    def _offer(self, action: int) -> None:
        """The seller plays a card (or a Double with its partner) face up and auctions it."""
        self.secret.append(-1)
        s = self.to_move
        if action >= PAIR_BASE:
            double, partner = pair_kinds(action)
            self._play(s, double)
            self._play(s, partner)
            a, t = pair_of(action)
            if round_ends(self.counts[a]):
                self._end_round((s + 1) % self.num_players)
            else:
                self._start_auction(s, -1, a, t, 2)
            return
        kind = offered_kind(action)
        self._play(s, kind)
        a, t = divmod(kind, NUM_TYPES)
        if round_ends(self.counts[a]):
            self._end_round((s + 1) % self.num_players)
        elif t == DOUBLE:  # way 2: the others in turn may add a partner
            self.artist = a
            self.auction = DOUBLE
            self.auctioneer = s
            self.partner = -1
            self.ncards = 1
            self.phase = ADD
            self.to_move = (s + 1) % self.num_players
        else:
            self._start_auction(s, -1, a, t, 1)

    def _play(self, seat: int, kind: int) -> None:
        """A card leaves ``seat``'s hand face up and counts for its artist this round."""
        self.hands[seat][kind] -= 1
        self.hand_size[seat] -= 1
        self.seen[kind] += 1
        self.counts[kind // NUM_TYPES] += 1

    def _add(self, action: int) -> None:
        """A Double's second way: the seat adds a partner (and auctions both) or passes."""
        self.secret.append(-1)
        q = self.to_move
        n = self.num_players
        if action == PASS:
            nxt = (q + 1) % n
            if nxt != self.seller:
                self.to_move = nxt
                return
            # Nobody added: the seller takes the Double free; the seat after them sells next.
            self.bought[self.seller][self.artist] += 1
            self.sales += 1
            self.last_sale = (self.seller, 0)
            self._begin_turn(nxt + 1 if nxt + 1 < n else 0)
            return
        t = added_type(action)
        a = self.artist
        self._play(q, a * NUM_TYPES + t)
        if round_ends(self.counts[a]):
            self._end_round((q + 1) % n)
        else:
            self._start_auction(q, self.seller, a, t, 2)

    def _start_auction(self, auctioneer: int, partner: int, artist: int, t: int, ncards: int):
        self.auctioneer = auctioneer
        self.partner = partner
        self.artist = artist
        self.auction = t
        self.ncards = ncards
        self.high = 0
        self.high_bidder = -1
        self.passes = 0
        phase = BID_PHASE_OF_TYPE[t]
        self.phase = phase
        if phase == SEALED_BIDS:
            self.bids = [0] * self.num_players
            self.to_move = 0  # sealed bids are committed in seat order
        elif phase == PRICE:
            self.to_move = auctioneer
        else:
            self.to_move = (auctioneer + 1) % self.num_players

    def _open_bid(self, action: int) -> None:
        """Open: bids go round until all others pass after a bid (everyone, with no bid)."""
        self.secret.append(-1)
        n = self.num_players
        if action != PASS:
            self.high = amount_of(action)
            self.high_bidder = self.to_move
            self.passes = 0
        else:
            passes = self.passes + 1
            if open_auction_over(passes, self.high_bidder, n):
                self._settle_bids()
                return
            self.passes = passes
        q = self.to_move + 1
        self.to_move = q if q < n else 0

    def _once_bid(self, action: int) -> None:
        """Once Around: one bid or pass each, from the auctioneer's left, the auctioneer last."""
        self.secret.append(-1)
        q = self.to_move
        if action != PASS:
            self.high = amount_of(action)
            self.high_bidder = q
        if q == self.auctioneer:
            self._settle_bids()
        else:
            self.to_move = (q + 1) % self.num_players

    def _settle_bids(self) -> None:
        """An Open or Once Around auction is over: the high bidder buys, or nobody bid."""
        if self.high_bidder < 0:
            self._no_bid()
        else:
            self._sell(self.high_bidder, self.high)

    def _sealed_bid(self, action: int) -> None:
        """Sealed: bids committed in seat order, hidden until the last one reveals them all."""
        q = self.to_move
        n = self.num_players
        self.bids[q] = amount_of(action)
        if q < n - 1:
            self.secret.append(q)
            self.to_move = q + 1
            return
        self.secret.append(-1)
        secret = self.secret
        for i in range(max(0, len(secret) - n), len(secret) - 1):  # (narrate's copy has none)
            secret[i] = -1
        bids = self.bids
        best = max(bids)
        if best == 0:
            self._no_bid()
            return
        # Ties: the seed rules favour the seat nearest the auctioneer's left, the auctioneer
        # last; the classic rules the auctioneer first.
        x = self.auctioneer
        order = range(1, n + 1) if self.cfg.seed_rules else range(n)
        for i in order:
            q = (x + i) % n
            if bids[q] == best:
                self._sell(q, best)
                return

    def _price(self, action: int) -> None:
        """Fixed price: the auctioneer names it; the others answer in turn from the left."""
        self.secret.append(-1)
        self.price = amount_of(action)
        self.phase = ANSWER
        self.to_move = (self.to_move + 1) % self.num_players

    def _answer(self, action: int) -> None:
        self.secret.append(-1)
        q = self.to_move
        if action == ACCEPT:
            self._sell(q, self.price)
            return
        nxt = (q + 1) % self.num_players
        if nxt == self.auctioneer:  # nobody accepted: the auctioneer must buy it
            self._sell(nxt, self.price)
        else:
            self.to_move = nxt

    def _over(self, action: int) -> None:
        self.history.pop()
        raise ValueError("the game is over")

    # --- sales -------------------------------------------------------------------------------
    def no_bid_price(self) -> int:
        """Seed: the auctioneer pays 1 to the bank (0 without money); classic: free."""
        if self.cfg.seed_rules and self.money[self.auctioneer] > 0:
            return 1
        return 0

    def _no_bid(self) -> None:
        self._sell(self.auctioneer, self.no_bid_price())

    def seller_shares(self, price: int) -> tuple[int, int]:
        """The price's split between the auctioneer and the partner (the first auctioneer of
        a Double sold the second way): under the seed rules the partner gets half, rounded
        down; otherwise the auctioneer takes it all. A share owed to the buyer goes to the bank.
        """
        if self.partner_shares():
            low = price // 2
            return price - low, low
        return price, 0

    def partner_shares(self) -> bool:
        """Whether the current auction's partner gets a share of the price (the seed rules,
        a Double sold the second way): the one test ``seller_shares`` and ``payments`` use."""
        return self.partner >= 0 and self.cfg.seed_rules

    def payments(self, buyer: int, price: int) -> list[tuple[int, int, int]]:
        """``(payer, payee, amount)`` for a sale in the current auction; payee -1 is the bank."""
        # The auctioneer's share, then the partner's; the buyer's own share goes to the bank,
        # listed last. Written out per case: heuristics ask this ~90 times a simulation, so
        # the common case (no partner's share: the auctioneer's share is the price) returns
        # before asking for the split.
        x = self.auctioneer
        if not self.partner_shares():
            return [(buyer, -1 if x == buyer else x, price)]
        own, partner = self.seller_shares(price)
        p = self.partner
        out = []
        if x != buyer:
            out.append((buyer, x, own))
        if p != buyer:
            out.append((buyer, p, partner))
        if p == buyer:
            out.append((buyer, -1, partner))
        elif x == buyer:
            out.append((buyer, -1, own))
        return out

    def _sell(self, buyer: int, price: int) -> None:
        money = self.money
        money[buyer] -= price
        x = self.auctioneer
        own, partner = self.seller_shares(price)
        if buyer != x:
            money[x] += own
        if partner and buyer != self.partner:
            money[self.partner] += partner
        self.bought[buyer][self.artist] += self.ncards
        self.sales += 1
        self.last_sale = (buyer, price)
        nxt = x + 1
        self._begin_turn(nxt if nxt < self.num_players else 0)

    # --- rounds ------------------------------------------------------------------------------
    def ranking(self) -> list[int]:
        """This round's ranked artists: those with a card, by count, ties by board order."""
        return ranked_artists(self.counts, len(self.cfg.place_values))

    def _end_round(self, next_start: int) -> None:
        cfg = self.cfg
        ranked = self.ranking()
        values = self.values
        for place, a in enumerate(ranked):
            values[a] += cfg.place_values[place]
        payouts = []
        money = self.money
        for s, bought in enumerate(self.bought):
            pay = 0
            for a in ranked:
                pay += bought[a] * values[a]
            money[s] += pay
            payouts.append(pay)
        self.scores.append(
            (self.round, tuple(self.counts), tuple(ranked), tuple(values), tuple(payouts))
        )
        self.counts = [0] * cfg.artists
        self.bought = [[0] * cfg.artists for _ in range(self.num_players)]
        self.round += 1
        if self.round >= cfg.rounds:
            self.phase = OVER
            self.to_move = TERMINAL
            return
        self.next_start = next_start
        if self.round + 1 in REFILL_ROUNDS and cfg.refill:
            self.deal_left = self.num_players * cfg.refill
            self.deal_seat = 0
            self.phase = DEAL
            self.to_move = CHANCE
        else:
            self._begin_turn(next_start)

    # --- results -----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        n = self.num_players
        if self.phase != OVER:
            return [0.0] * n
        if not self.cfg.points:
            return [float(m) for m in self.money]
        return share_points(self.money, self.cfg.points_table)

    # --- what players know -------------------------------------------------------------------
    def narrate(self, action: int) -> Narration:
        """One public event per step; dealt cards and unrevealed sealed bids are hidden."""
        phase = self.phase
        q = self.to_move
        if phase == DEAL:
            q = self.deal_seat
            return Narration({"type": "deal", "seat": q}, card_struct(action), (q,))
        if phase == FIRST:
            return Narration({"type": "first_seller", "seat": action})
        if phase == SEALED_BIDS and q < self.num_players - 1:
            return Narration({"type": "sealed_bid", "seat": q}, {"amount": amount_of(action)}, (q,))
        public = {**action_struct(self, action), "seat": q}
        if not self._settles(action):
            return Narration(public)
        after = self._copy_state()
        after.history = []
        after.secret = []
        after.apply(action)
        if phase == SEALED_BIDS:
            public["bids"] = [*self.bids[:q], amount_of(action)]
        if after.sales != self.sales:
            buyer, price = after.last_sale
            sale: dict[str, Any] = {"buyer": buyer, "price": price, "cards": self.ncards}
            if phase == ADD:  # nobody added a partner: the seller keeps the Double
                sale["payments"] = []
            else:
                sale["payments"] = [
                    {"from": a, "to": "bank" if b < 0 else b, "amount": m}
                    for a, b, m in self.payments(buyer, price)
                    if m
                ]
            public["sale"] = sale
        if len(after.scores) != len(self.scores):
            public["scoring"] = [score_struct(s) for s in after.scores[len(self.scores) :]]
        return Narration(public)

    def _settles(self, action: int) -> bool:
        """Whether ``action`` ends a sale or a round (only then narrate replays it on a copy)."""
        phase = self.phase
        q = self.to_move
        n = self.num_players
        if phase == OPEN_BIDS:
            if action != PASS:
                return False
            return open_auction_over(self.passes + 1, self.high_bidder, n)
        if phase == ONCE_BIDS:
            return q == self.auctioneer
        if phase == ANSWER:
            return action == ACCEPT or (q + 1) % n == self.auctioneer
        if phase == PLAY:
            if action >= PAIR_BASE:
                return round_ends(self.counts[pair_of(action)[0]] + 2)
            return round_ends(self.counts[offered_kind(action) // NUM_TYPES] + 1)
        if phase == ADD:
            if action == PASS:
                return (q + 1) % n == self.seller
            return round_ends(self.counts[self.artist] + 1)
        return phase == SEALED_BIDS  # the last sealed bid (earlier ones return before)

    def info_key(self, player: int) -> Any:
        pairs = zip(self.history, self.secret, strict=True)
        return (player, tuple([a if o < 0 or o == player else -1 for a, o in pairs]))

    def auction_view(self, player: int) -> dict[str, Any] | None:
        """The auction in progress as ``player`` sees it (``None`` between auctions)."""
        phase = self.phase
        if phase not in AUCTION_PHASES:
            return None
        view: dict[str, Any] = {
            "artist": ARTIST_NAMES[self.artist],
            "auction": TYPE_NAMES[self.auction],
            "cards": self.ncards,
            "auctioneer": self.auctioneer,
        }
        if self.partner >= 0:
            view["partner"] = self.partner
        if phase in (OPEN_BIDS, ONCE_BIDS):
            view["high_bid"] = self.high
            view["high_bidder"] = self.high_bidder if self.high_bidder >= 0 else None
        if phase == OPEN_BIDS:
            view["passes"] = self.passes
        if phase == ANSWER:
            view["price"] = self.price
        if phase == SEALED_BIDS:
            view["bid_so_far"] = list(range(self.to_move))
            if 0 <= player < self.to_move:
                view["my_bid"] = self.bids[player]
        return view

    def observation(self, player: int) -> dict[str, Any]:
        cfg = self.cfg
        over = self.phase == OVER
        return {
            "seat": player,
            "round": cfg.rounds if over else self.round + 1,
            "phase": PHASE_NAMES[self.phase],
            "to_move": self.to_move if self.to_move >= 0 else None,
            "money": list(self.money),
            "hand": counts_by_card(self.hands[player]),
            "hand_sizes": list(self.hand_size),
            "deck_size": self.deck_size,
            "played_this_round": artist_counts(self.counts),
            "values": artist_counts(self.values),
            "bought": [artist_counts(b) for b in self.bought],
            "seen": counts_by_card(self.seen),
            "seller": self.seller if self.phase >= PLAY and not over else None,
            "auction": self.auction_view(player),
        }

    def describe(self) -> dict[str, Any]:
        out = self.observation(0)
        del out["seat"], out["hand"], out["auction"]
        out["hands"] = [counts_by_card(h) for h in self.hands]
        out["deck"] = counts_by_card(self.deck)
        auction = self.auction_view(-1)
        if auction is not None and self.phase == SEALED_BIDS:
            auction["bids"] = self.bids[: self.to_move]
        out["auction"] = auction
        out["rounds_scored"] = [score_struct(s) for s in self.scores]
        if self.phase == OVER:
            out["returns"] = self.returns()
        return out


# Per phase (indexed by the phase number): the step and the legal actions of the seat to move.
_APPLY = (
    ModernArtEngine._deal,
    ModernArtEngine._first_seller,
    ModernArtEngine._offer,
    ModernArtEngine._add,
    ModernArtEngine._open_bid,
    ModernArtEngine._once_bid,
    ModernArtEngine._sealed_bid,
    ModernArtEngine._price,
    ModernArtEngine._answer,
    ModernArtEngine._over,
)
_LEGAL = (
    ModernArtEngine._no_actions,
    ModernArtEngine._no_actions,
    ModernArtEngine._offers,
    ModernArtEngine._partners,
    ModernArtEngine._amounts,
    ModernArtEngine._amounts,
    ModernArtEngine._amounts,
    ModernArtEngine._amounts,
    ModernArtEngine._answers,
    ModernArtEngine._no_actions,
)
assert len(_APPLY) == len(_LEGAL) == NUM_PHASES


def round_ends(count: int) -> bool:
    """The round-end rule: an artist's ``count``-th card of a round ends it from the fifth
    (a module function the steps call directly: compiled, a C call, engine.pxd)."""
    return count >= ROUND_END_COUNT


def ranked_artists(counts: list[int], places: int) -> list[int]:
    """The artists with a card this round (``counts`` per artist), most cards first, ties in
    board order: the first ``places`` of them are ranked.

    An insertion into the ranked list (each artist goes after those with as many cards or
    more), typed in engine.pxd: it ends every round, and a sort with a key costs a bound method,
    a keyword dictionary and a key call per artist."""
    ranked = []
    for a in range(len(counts)):
        c = counts[a]
        if c:
            i = len(ranked)
            while i > 0 and counts[ranked[i - 1]] < c:
                i -= 1
            ranked.insert(i, a)
    return ranked[:places]


def offer_actions(hand: list[int], counts: list[int]) -> list[int]:
    """A seller's offers with ``hand`` (counts per card kind) when this round's counts per
    artist are ``counts``: one card of every kind held, in kind order; then, artist by artist,
    a Double with each partner type held (way 1), unless the Double is the artist's fifth card
    of the round, which ends the round by itself and needs no partner.

    An index loop over the id tables (typed in engine.pxd): random rollouts list the offers
    about 40 times a game, and slices and ``compress`` objects cost more than the walk."""
    types, double, partners = NUM_TYPES, DOUBLE, PARTNER_TYPES  # (C integers, compiled)
    offer_ids: tuple[int, ...] = OFFER_IDS
    actions = []
    for k in range(len(hand)):
        held = hand[k]
        if held:
            actions.append(offer_ids[k])
    for a in range(len(counts)):
        base = a * types
        held = hand[base + double]
        if held and not round_ends(counts[a] + 1):
            pair_ids: tuple[int, ...] = PAIR_IDS[a]
            for t in range(partners):
                held = hand[base + t]
                if held:
                    actions.append(pair_ids[t])
    return actions


def partner_actions(hand: list[int], artist: int) -> list[int]:
    """The answers to a Double of ``artist`` sold the second way with ``hand``: pass, or add
    a partner card of each type held (an index loop, typed in engine.pxd)."""
    base = artist * NUM_TYPES
    add_ids: tuple[int, ...] = ADD_IDS
    actions = [PASS]
    for t in range(PARTNER_TYPES):
        if hand[base + t]:
            actions.append(add_ids[t])
    return actions


def open_auction_over(passes: int, high_bidder: int, n: int) -> bool:
    """Open's end rule: ``passes`` passes in a row end it once all the others passed after a
    bid (all ``n`` seats, with no bid at all)."""
    return passes == (n if high_bidder < 0 else n - 1)


def artist_counts(counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    return {ARTIST_NAMES[a]: c for a, c in enumerate(counts) if c}


def score_struct(score: tuple) -> dict[str, Any]:
    """A round's scoring as JSON: counts, ranking, cumulative values of the ranked, payouts."""
    rnd, counts, ranked, values, payouts = score
    return {
        "round": rnd + 1,
        "counts": artist_counts(counts),
        "ranking": [ARTIST_NAMES[a] for a in ranked],
        "values": {ARTIST_NAMES[a]: values[a] for a in ranked},
        "payouts": list(payouts),
    }


def share_points(money: list[int], table: tuple[int, ...]) -> list[float]:
    """The seed's points by final money; players tied for places share those places' points."""
    n = len(money)
    order = sorted(range(n), key=lambda s: -money[s])
    out = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and money[order[j + 1]] == money[order[i]]:
            j += 1
        share = sum(table[i : j + 1]) / (j - i + 1)
        for k in range(i, j + 1):
            out[order[k]] = share
        i = j + 1
    return out


def action_struct(engine: ModernArtEngine, action: int) -> dict[str, Any]:
    """The JSON form of a player action in ``engine``'s current phase."""
    phase = engine.phase
    if is_amount(action):
        amount = amount_of(action)
        if phase == SEALED_BIDS:
            return {"type": "sealed_bid", "amount": amount}
        if phase == PRICE:
            return {"type": "price", "amount": amount}
        return {"type": "bid", "amount": amount}
    if is_pair(action):
        a, t = pair_of(action)
        return {"type": "offer_double", "artist": ARTIST_NAMES[a], "partner": TYPE_NAMES[t]}
    if is_offer(action):
        return {"type": "offer", **card_struct(offered_kind(action))}
    if is_add(action):
        return {
            "type": "add",
            "artist": ARTIST_NAMES[engine.artist],
            "auction": TYPE_NAMES[added_type(action)],
        }
    return {"type": SIMPLE_NAMES[action]}


def action_string(engine: ModernArtEngine, action: int) -> str:
    """Readable and unique among the legal actions of a state (``string_to_action`` parses it)."""
    phase = engine.phase
    if is_amount(action):
        amount = amount_of(action)
        if phase == SEALED_BIDS:
            return f"sealed bid {amount}"
        if phase == PRICE:
            return f"price {amount}"
        return f"bid {amount}"
    if is_pair(action):
        a, t = pair_of(action)
        return f"offer {ARTIST_NAMES[a]} Double with {TYPE_NAMES[t]}"
    if is_offer(action):
        return f"offer {card_name(offered_kind(action))}"
    if is_add(action):
        return f"add {ARTIST_NAMES[engine.artist]} {TYPE_NAMES[added_type(action)]}"
    return SIMPLE_NAMES[action]
