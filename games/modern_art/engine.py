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

Action ids (``docs/rules/modern_art.md`` has the table): 0 pass, 1 accept, 2 decline,
3-6 add a partner card of type Open / Once Around / Sealed / Fixed, 7-31 offer one card
(``7 + kind``), 32-51 offer a Double with a partner (``32 + artist * 4 + partner type``), and
``AMOUNT_BASE + x`` (52 + x) for a bid, sealed bid or fixed price of exactly ``x``,
``0 <= x <= Config.max_money``. Chance outcomes are card kinds (deals) or seats (first seller).
"""

from __future__ import annotations

import random
from itertools import compress
from typing import Any

from games.core.engine import CHANCE, TERMINAL, Engine, Narration
from games.modern_art.cards import (
    ARTIST_NAMES,
    DOUBLE,
    FIXED,
    MAX_ARTISTS,
    NUM_TYPES,
    ONCE_AROUND,
    OPEN,
    REFILL_ROUNDS,
    ROUND_END_COUNT,
    SEALED,
    TYPE_NAMES,
    Config,
    card_struct,
    counts_by_card,
)

# Player actions.
PASS, ACCEPT, DECLINE = 0, 1, 2
ADD_BASE = 3  # + partner type (Open, Once Around, Sealed, Fixed)
OFFER_BASE = 7  # + card kind (artist * 5 + type), 25 ids
PAIR_BASE = 32  # + artist * 4 + partner type: a Double sold with a partner card (way 1)
AMOUNT_BASE = 52  # + amount: bids, sealed bids and fixed prices
# Offer ids by card kind, and per artist the Double-with-partner ids by partner type.
OFFER_IDS = tuple(range(OFFER_BASE, PAIR_BASE))
PAIR_IDS = tuple(tuple(range(PAIR_BASE + 4 * a, PAIR_BASE + 4 * a + 4)) for a in range(MAX_ARTISTS))
ARTISTS = tuple(range(MAX_ARTISTS))
ADD_IDS = tuple(range(ADD_BASE, ADD_BASE + 4))  # add a partner of type Open .. Fixed

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


def num_actions(cfg: Config) -> int:
    return AMOUNT_BASE + cfg.max_money + 1


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
        phase = self.phase
        q = self.to_move
        if phase == OPEN_BIDS or phase == ONCE_BIDS:  # noqa: SIM109 (faster than `in`)
            top = self.money[q]
            if top > self.high:
                return [PASS, *range(AMOUNT_BASE + self.high + 1, AMOUNT_BASE + top + 1)]
            return [PASS]
        if phase == PLAY:
            return self._offers(q)
        if phase == SEALED_BIDS:
            return list(range(AMOUNT_BASE, AMOUNT_BASE + self.money[q] + 1))
        if phase == ANSWER:
            return [ACCEPT, DECLINE] if self.money[q] >= self.price else [DECLINE]
        if phase == ADD:
            base = self.artist * NUM_TYPES
            return [PASS, *compress(ADD_IDS, self.hands[q][base : base + DOUBLE])]
        if phase == PRICE:
            top = self.money[q]
            if top == 0:
                return [AMOUNT_BASE]
            return list(range(AMOUNT_BASE + 1, AMOUNT_BASE + top + 1))
        return []

    def _offers(self, seller: int) -> list[int]:
        # ``compress`` walks the hand in C (random rollouts list the offers ~40 times a game);
        # it stops at the shorter input, so the full-size id tables fit any number of artists.
        hand = self.hands[seller]
        actions = list(compress(OFFER_IDS, hand))
        counts = self.counts
        for a in compress(ARTISTS, hand[DOUBLE::NUM_TYPES]):  # artists with a Double in hand
            # Way 1 needs the Double and a partner; a Double that is the artist's fifth card
            # of the round ends the round by itself and needs no partner.
            if counts[a] < ROUND_END_COUNT - 1:
                base = a * NUM_TYPES
                actions.extend(compress(PAIR_IDS[a], hand[base : base + DOUBLE]))
        return actions

    def is_legal(self, action: int) -> bool:
        """``action in legal_actions()`` without building the list (amounts are ranges)."""
        to_move = self.to_move
        if to_move == TERMINAL:
            return False
        phase = self.phase
        if to_move >= 0 and phase != PLAY and phase != ADD and phase != ANSWER:
            amount = action - AMOUNT_BASE
            top = self.money[to_move]
            if phase == SEALED_BIDS:
                return 0 <= amount <= top
            if phase == PRICE:
                return (1 <= amount <= top) or (top == 0 and amount == 0)
            return action == PASS or self.high < amount <= top
        return action in self.legal_actions()

    def apply(self, action: int) -> None:
        self.history.append(action)
        phase = self.phase
        # Phases in the order of how often random play meets them; the commonest are inline.
        if phase == OPEN_BIDS:
            self.secret.append(-1)
            if action != PASS:
                q = self.to_move
                self.high = action - AMOUNT_BASE
                self.high_bidder = q
                self.passes = 0
                q += 1
                self.to_move = q if q < self.num_players else 0
            else:
                self._open_pass()
        elif phase == DEAL:
            q = self.deal_seat
            self.secret.append(q)
            self.deck[action] -= 1
            self.deck_size -= 1
            pile = self.pile
            i = pile.index(action)
            pile[i] = pile[-1]
            pile.pop()
            self.hands[q][action] += 1
            self.hand_size[q] += 1
            self.deal_left -= 1
            if self.deal_left:
                q += 1
                self.deal_seat = q if q < self.num_players else 0
            elif self.round == 0:
                self.phase = FIRST
            else:
                self._begin_turn(self.next_start)
        elif phase == PLAY:
            self.secret.append(-1)
            self._offer(action)
        elif phase == SEALED_BIDS:
            self._sealed_bid(action)
        elif phase == ONCE_BIDS:
            self.secret.append(-1)
            self._once_bid(action)
        elif phase == ANSWER:
            self.secret.append(-1)
            self._answer(action)
        elif phase == ADD:
            self.secret.append(-1)
            self._add(action)
        elif phase == PRICE:
            self.secret.append(-1)
            self.price = action - AMOUNT_BASE
            self.phase = ANSWER
            self.to_move = (self.to_move + 1) % self.num_players
        elif phase == FIRST:
            self.secret.append(-1)
            self._begin_turn(action)
        else:
            raise ValueError("the game is over")

    def random_playout(self, rng: random.Random) -> list[float]:
        """Plays uniformly random legal actions to the end; returns ``returns()``.

        Exactly the loop ``while not terminal: apply(legal[int(rng.random() * len(legal))])``
        with ``sample_chance(rng)`` at chance nodes: the same actions from the same ``rng``
        draws, the same history, secrets and final state in every field
        (tests/test_modern_art_playout.py checks it from every phase). Search rollouts spend
        almost all their time here, about 260 steps a game of which two thirds are bids, so:
        a bid is picked by index arithmetic on its legal range instead of a list of every
        amount, and each auction (and each deal) runs in local variables to its end, then
        settles through the same helpers ``apply`` uses (``_sell``, ``_no_bid``,
        ``_sealed_bid``, ``_begin_turn``). The rules of a bidding step are written twice, here
        and in ``apply``; the test is what keeps them equal.
        """
        random_ = rng.random
        history = self.history
        secret = self.secret
        push, hide = history.append, secret.append
        money = self.money  # mutated in place by sales and payouts, never replaced
        n = self.num_players
        while True:
            phase = self.phase
            if phase == OPEN_BIDS:
                # legal = [PASS, high + 1 .. money]: index i > 0 is the bid of high + i. Bids
                # go round until n - 1 passes in a row follow a bid (n with no bid at all).
                q = self.to_move
                high = self.high
                hb = self.high_bidder
                passes = self.passes
                while True:
                    top = money[q]
                    if top > high:
                        i = int(random_() * (top - high + 1))
                    else:
                        random_()  # the one-action list still takes its draw
                        i = 0
                    hide(-1)
                    if i:
                        high += i
                        push(AMOUNT_BASE + high)
                        hb = q
                        passes = 0
                    else:
                        push(PASS)
                        if passes + 1 == (n if hb < 0 else n - 1):
                            break
                        passes += 1
                    q = q + 1 if q + 1 < n else 0
                self.high = high
                self.high_bidder = hb
                self.passes = passes
                self.to_move = q
                if hb < 0:
                    self._no_bid()
                else:
                    self._sell(hb, high)
            elif phase == PLAY:
                legal = self._offers(self.to_move)
                action = legal[int(random_() * len(legal))]
                push(action)
                hide(-1)
                self._offer(action)
            elif phase == ONCE_BIDS:
                # The same legal ranges; one bid or pass each, the auctioneer last.
                q = self.to_move
                high = self.high
                hb = self.high_bidder
                x = self.auctioneer
                while True:
                    top = money[q]
                    if top > high:
                        i = int(random_() * (top - high + 1))
                    else:
                        random_()
                        i = 0
                    hide(-1)
                    if i:
                        high += i
                        push(AMOUNT_BASE + high)
                        hb = q
                    else:
                        push(PASS)
                    if q == x:
                        break
                    q = q + 1 if q + 1 < n else 0
                self.high = high
                self.high_bidder = hb
                self.to_move = q
                if hb < 0:
                    self._no_bid()
                else:
                    self._sell(hb, high)
            elif phase == SEALED_BIDS:
                # legal = [0 .. money] for each seat in order; the last bid reveals and sells.
                q = self.to_move
                bids = self.bids
                while q < n - 1:
                    amount = int(random_() * (money[q] + 1))
                    push(AMOUNT_BASE + amount)
                    bids[q] = amount
                    hide(q)  # committed, hidden from the others until the reveal
                    q += 1
                self.to_move = q
                action = AMOUNT_BASE + int(random_() * (money[q] + 1))
                push(action)
                self._sealed_bid(action)
            elif phase == DEAL:
                # One card at a time from the pile (as ``sample_chance``), seats round robin.
                pile = self.pile
                deck = self.deck
                hands = self.hands
                hand_size = self.hand_size
                q = self.deal_seat
                left = self.deal_left
                while True:
                    card = pile[int(random_() * len(pile))]
                    push(card)
                    hide(q)
                    deck[card] -= 1
                    j = pile.index(card)
                    pile[j] = pile[-1]
                    pile.pop()
                    hands[q][card] += 1
                    hand_size[q] += 1
                    left -= 1
                    if not left:
                        break
                    q = q + 1 if q + 1 < n else 0
                self.deck_size -= self.deal_left
                self.deal_left = 0
                self.deal_seat = q
                if self.round == 0:
                    self.phase = FIRST
                else:
                    self._begin_turn(self.next_start)
            elif phase == PRICE:
                # legal = [1 .. money], or [0] for a seat without money; then the answers.
                q = self.to_move
                top = money[q]
                if top:
                    price = 1 + int(random_() * top)
                else:
                    random_()
                    price = 0
                push(AMOUNT_BASE + price)
                hide(-1)
                self.price = price
                self.phase = ANSWER
                self.to_move = q + 1 if q + 1 < n else 0
            elif phase == ANSWER:
                # legal = [ACCEPT, DECLINE], or [DECLINE] without the money for the price.
                q = self.to_move
                price = self.price
                x = self.auctioneer
                while True:
                    if money[q] >= price:
                        accept = random_() < 0.5
                    else:
                        random_()
                        accept = False
                    hide(-1)
                    if accept:
                        push(ACCEPT)
                        self.to_move = q
                        self._sell(q, price)
                        break
                    push(DECLINE)
                    nxt = q + 1 if q + 1 < n else 0
                    if nxt == x:  # nobody accepted: the auctioneer must buy it
                        self.to_move = q
                        self._sell(x, price)
                        break
                    q = nxt
            elif phase == ADD:
                legal = self.player_actions()
                self.apply(legal[int(random_() * len(legal))])
            elif phase == FIRST:
                self.apply(rng.randrange(n))
            else:
                return self.returns()

    # --- deals and turns ---------------------------------------------------------------------
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
        s = self.to_move
        hand = self.hands[s]
        if action >= PAIR_BASE:
            a, t = divmod(action - PAIR_BASE, 4)
            double = a * NUM_TYPES + DOUBLE
            hand[double] -= 1
            hand[double - DOUBLE + t] -= 1
            self.seen[double] += 1
            self.seen[double - DOUBLE + t] += 1
            self.hand_size[s] -= 2
            count = self.counts[a] + 2
            self.counts[a] = count
            if count >= ROUND_END_COUNT:
                self._end_round((s + 1) % self.num_players)
            else:
                self._start_auction(s, -1, a, t, 2)
            return
        kind = action - OFFER_BASE
        a, t = divmod(kind, NUM_TYPES)
        hand[kind] -= 1
        self.seen[kind] += 1
        self.hand_size[s] -= 1
        count = self.counts[a] + 1
        self.counts[a] = count
        if count >= ROUND_END_COUNT:
            self._end_round((s + 1) % self.num_players)
        elif t == DOUBLE:
            self.artist = a
            self.auction = DOUBLE
            self.auctioneer = s
            self.partner = -1
            self.ncards = 1
            self.phase = ADD
            self.to_move = (s + 1) % self.num_players
        else:
            self._start_auction(s, -1, a, t, 1)

    def _add(self, action: int) -> None:
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
        t = action - ADD_BASE
        a = self.artist
        kind = a * NUM_TYPES + t
        self.hands[q][kind] -= 1
        self.hand_size[q] -= 1
        self.seen[kind] += 1
        count = self.counts[a] + 1
        self.counts[a] = count
        if count >= ROUND_END_COUNT:
            self._end_round((q + 1) % n)
        else:
            self._start_auction(q, self.seller, a, t, 2)

    # --- auctions ----------------------------------------------------------------------------
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

    def _open_pass(self) -> None:
        passes = self.passes + 1
        hb = self.high_bidder
        if hb < 0:
            if passes == self.num_players:
                self._no_bid()
                return
        elif passes == self.num_players - 1:
            self._sell(hb, self.high)
            return
        self.passes = passes
        self.to_move = (self.to_move + 1) % self.num_players

    def _once_bid(self, action: int) -> None:
        q = self.to_move
        if action != PASS:
            self.high = action - AMOUNT_BASE
            self.high_bidder = q
        if q == self.auctioneer:  # the auctioneer acts last
            if self.high_bidder < 0:
                self._no_bid()
            else:
                self._sell(self.high_bidder, self.high)
        else:
            self.to_move = (q + 1) % self.num_players

    def _sealed_bid(self, action: int) -> None:
        q = self.to_move
        n = self.num_players
        self.bids[q] = action - AMOUNT_BASE
        if q < n - 1:
            self.secret.append(q)
            self.to_move = q + 1
            return
        # The last bid reveals them all.
        self.secret.append(-1)
        secret = self.secret
        for i in range(max(0, len(secret) - n), len(secret) - 1):  # (narrate's copy has none)
            secret[i] = -1
        bids = self.bids
        best = max(bids)
        if best == 0:
            self._no_bid()
            return
        x = self.auctioneer
        order = range(1, n + 1) if self.cfg.seed_rules else range(n)
        for i in order:
            q = (x + i) % n
            if bids[q] == best:
                self._sell(q, best)
                return

    def _answer(self, action: int) -> None:
        q = self.to_move
        if action == ACCEPT:
            self._sell(q, self.price)
            return
        nxt = (q + 1) % self.num_players
        if nxt == self.auctioneer:  # nobody accepted: the auctioneer must buy it
            self._sell(nxt, self.price)
        else:
            self.to_move = nxt

    def no_bid_price(self) -> int:
        """Seed: the auctioneer pays 1 to the bank (0 without money); classic: free."""
        if self.cfg.seed_rules and self.money[self.auctioneer] > 0:
            return 1
        return 0

    def _no_bid(self) -> None:
        self._sell(self.auctioneer, self.no_bid_price())

    def payments(self, buyer: int, price: int) -> list[tuple[int, int, int]]:
        """``(payer, payee, amount)`` for a sale in the current auction; payee -1 is the bank."""
        x = self.auctioneer
        old = self.partner
        if old < 0 or not self.cfg.seed_rules:
            return [(buyer, -1 if buyer == x else x, price)]
        low = price // 2
        high = price - low
        if buyer == x:
            return [(buyer, old, low), (buyer, -1, high)]
        if buyer == old:
            return [(buyer, x, high), (buyer, -1, low)]
        return [(buyer, x, high), (buyer, old, low)]

    def _sell(self, buyer: int, price: int) -> None:
        money = self.money
        money[buyer] -= price
        x = self.auctioneer
        old = self.partner
        if old < 0 or not self.cfg.seed_rules:
            if buyer != x:
                money[x] += price
        else:
            low = price // 2
            if buyer == x:
                money[old] += low
            elif buyer == old:
                money[x] += price - low
            else:
                money[x] += price - low
                money[old] += low
        self.bought[buyer][self.artist] += self.ncards
        self.sales += 1
        self.last_sale = (buyer, price)
        nxt = x + 1
        self._begin_turn(nxt if nxt < self.num_players else 0)

    # --- rounds ------------------------------------------------------------------------------
    def ranking(self) -> list[int]:
        """This round's ranked artists: those with a card, by count, ties by board order."""
        counts = self.counts
        present = list(compress(ARTISTS, counts))  # (counts has one entry per artist)
        present.sort(key=counts.__getitem__, reverse=True)  # stable: board order breaks ties
        return present[: len(self.cfg.place_values)]

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
            return Narration(
                {"type": "sealed_bid", "seat": q}, {"amount": action - AMOUNT_BASE}, (q,)
            )
        public = {**action_struct(self, action), "seat": q}
        if not self._settles(action):
            return Narration(public)
        after = self._copy_state()
        after.history = []
        after.secret = []
        after.apply(action)
        if phase == SEALED_BIDS:
            public["bids"] = [*self.bids[:q], action - AMOUNT_BASE]
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
            return self.passes + 1 == (n if self.high_bidder < 0 else n - 1)
        if phase == ONCE_BIDS:
            return q == self.auctioneer
        if phase == ANSWER:
            return action == ACCEPT or (q + 1) % n == self.auctioneer
        if phase == PLAY:
            if action >= PAIR_BASE:
                return self.counts[(action - PAIR_BASE) // 4] + 2 >= ROUND_END_COUNT
            return self.counts[(action - OFFER_BASE) // NUM_TYPES] + 1 >= ROUND_END_COUNT
        if phase == ADD:
            if action == PASS:
                return (q + 1) % n == self.seller
            return self.counts[self.artist] + 1 >= ROUND_END_COUNT
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
    if action >= AMOUNT_BASE:
        amount = action - AMOUNT_BASE
        if phase == SEALED_BIDS:
            return {"type": "sealed_bid", "amount": amount}
        if phase == PRICE:
            return {"type": "price", "amount": amount}
        return {"type": "bid", "amount": amount}
    if action >= PAIR_BASE:
        a, t = divmod(action - PAIR_BASE, 4)
        return {"type": "offer_double", "artist": ARTIST_NAMES[a], "partner": TYPE_NAMES[t]}
    if action >= OFFER_BASE:
        return {"type": "offer", **card_struct(action - OFFER_BASE)}
    if action >= ADD_BASE:
        return {
            "type": "add",
            "artist": ARTIST_NAMES[engine.artist],
            "auction": TYPE_NAMES[action - ADD_BASE],
        }
    return {"type": ("pass", "accept", "decline")[action]}


def action_string(engine: ModernArtEngine, action: int) -> str:
    """Readable and unique among the legal actions of a state (``string_to_action`` parses it)."""
    phase = engine.phase
    if action >= AMOUNT_BASE:
        amount = action - AMOUNT_BASE
        if phase == SEALED_BIDS:
            return f"sealed bid {amount}"
        if phase == PRICE:
            return f"price {amount}"
        return f"bid {amount}"
    if action >= PAIR_BASE:
        a, t = divmod(action - PAIR_BASE, 4)
        return f"offer {ARTIST_NAMES[a]} Double with {TYPE_NAMES[t]}"
    if action >= OFFER_BASE:
        k = action - OFFER_BASE
        return f"offer {ARTIST_NAMES[k // NUM_TYPES]} {TYPE_NAMES[k % NUM_TYPES]}"
    if action >= ADD_BASE:
        return f"add {ARTIST_NAMES[engine.artist]} {TYPE_NAMES[action - ADD_BASE]}"
    return ("pass", "accept", "decline")[action]
