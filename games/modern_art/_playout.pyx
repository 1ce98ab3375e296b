# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Modern Art's uniform random playout, compiled (``ModernArtEngine.random_playout``).

The same game as ``ModernArtEngine.apply`` step for step, and the same draws as the plain loop
``while not terminal: apply(legal[int(rng.random() * len(legal))])`` with
``sample_chance(rng)`` at chance nodes: one ``rng.random()`` per step (``rng.randrange(n)`` for
the first seller), so the same ``rng`` gives the same actions, history, secrets, final state
and returns. ISMCTS rollouts are most of a Modern Art search and about 230 steps each; here a
step is a few C operations on arrays instead of Python calls and list building.

The state is read into C arrays, the game is played to its end, and every field is written
back (``history`` and ``secret`` are appended as the steps happen). The rules here mirror the
engine's handlers (``_deal`` .. ``_answer``, ``_sell``, ``_end_round``); the tests
tests/test_modern_art_playout.py and tests/test_modern_art_compiled_playout.py compare both
field by field from every phase, which is what keeps the two equal.
"""

DEF MAXN = 5
DEF MAXK = 25
DEF MAXA = 5
DEF MAXPILE = 128
DEF NTYPES = 5
DEF DOUBLE = 4
DEF FIVE = 5

# Phases and ids (checked against the engine's at import by ``games.modern_art.engine``).
DEF DEAL = 0
DEF FIRST = 1
DEF PLAY = 2
DEF ADD = 3
DEF OPEN_BIDS = 4
DEF ONCE_BIDS = 5
DEF SEALED_BIDS = 6
DEF PRICE = 7
DEF ANSWER = 8
DEF OVER = 9
DEF CHANCE = -1
DEF TERMINAL = -4
DEF PASS = 0
DEF ACCEPT = 1
DEF DECLINE = 2
DEF ADD_BASE = 3
DEF OFFER_BASE = 7
DEF PAIR_BASE = 32
DEF AMOUNT_BASE = 52

LAYOUT = (DEAL, FIRST, PLAY, ADD, OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER, OVER,
          CHANCE, TERMINAL, PASS, ACCEPT, DECLINE, ADD_BASE, OFFER_BASE, PAIR_BASE, AMOUNT_BASE)
LIMITS = (MAXN, MAXK, MAXA, MAXPILE)


cdef struct State:
    int n, A, K, rounds, refill, seed_rules, nplaces
    int place_values[3]
    long money[MAXN]
    int hands[MAXN][MAXK]
    int hand_size[MAXN]
    int deck[MAXK]
    int deck_size
    int pile[MAXPILE]
    int npile
    int round
    int counts[MAXA]
    long values[MAXA]
    int bought[MAXN][MAXA]
    int seen[MAXK]
    int deal_left, deal_seat, seller, auctioneer, partner, artist, auction, ncards
    long high
    int high_bidder, passes
    long bids[MAXN]
    long price
    int next_start, sales
    int last_buyer
    long last_price
    int phase, to_move
    int counts_replaced, bought_replaced, bids_replaced


cdef class _Sink:
    """Where the steps go: the engine's history and secret lists, and its scores."""
    cdef list history
    cdef list secret
    cdef list scores


cdef inline void step(_Sink out, long action, int seen_by):
    out.history.append(action)
    out.secret.append(seen_by)


cdef void begin_turn(State* s, _Sink out, int seat) except *:
    cdef int i, q
    for i in range(s.n):
        q = (seat + i) % s.n
        if s.hand_size[q]:
            s.seller = q
            s.phase = PLAY
            s.to_move = q
            return
    end_round(s, out, seat)


cdef void end_round(State* s, _Sink out, int next_start) except *:
    cdef int ranked[MAXA]
    cdef int nranked = 0, a, b, j, place, seat
    cdef long pay
    # Artists with a card, by count, ties by board order (a stable insertion sort).
    for a in range(s.A):
        if s.counts[a]:
            j = nranked
            while j > 0 and s.counts[ranked[j - 1]] < s.counts[a]:
                ranked[j] = ranked[j - 1]
                j -= 1
            ranked[j] = a
            nranked += 1
    if nranked > s.nplaces:
        nranked = s.nplaces
    for place in range(nranked):
        s.values[ranked[place]] += s.place_values[place]
    payouts = []
    for seat in range(s.n):
        pay = 0
        for j in range(nranked):
            pay += s.bought[seat][ranked[j]] * s.values[ranked[j]]
        s.money[seat] += pay
        payouts.append(pay)
    out.scores.append((
        s.round,
        tuple([s.counts[a] for a in range(s.A)]),
        tuple([ranked[j] for j in range(nranked)]),
        tuple([s.values[a] for a in range(s.A)]),
        tuple(payouts),
    ))
    for a in range(s.A):
        s.counts[a] = 0
        for seat in range(s.n):
            s.bought[seat][a] = 0
    s.counts_replaced = 1
    s.bought_replaced = 1
    s.round += 1
    if s.round >= s.rounds:
        s.phase = OVER
        s.to_move = TERMINAL
        return
    s.next_start = next_start
    if (s.round + 1 == 2 or s.round + 1 == 3) and s.refill:
        s.deal_left = s.n * s.refill
        s.deal_seat = 0
        s.phase = DEAL
        s.to_move = CHANCE
    else:
        begin_turn(s, out, next_start)


cdef inline void play(State* s, int seat, int kind):
    s.hands[seat][kind] -= 1
    s.hand_size[seat] -= 1
    s.seen[kind] += 1
    s.counts[kind // NTYPES] += 1


cdef void start_auction(State* s, int auctioneer, int partner, int artist, int t, int ncards):
    cdef int i
    s.auctioneer = auctioneer
    s.partner = partner
    s.artist = artist
    s.auction = t
    s.ncards = ncards
    s.high = 0
    s.high_bidder = -1
    s.passes = 0
    if t == 0:
        s.phase = OPEN_BIDS
        s.to_move = (auctioneer + 1) % s.n
    elif t == 1:
        s.phase = ONCE_BIDS
        s.to_move = (auctioneer + 1) % s.n
    elif t == 2:
        s.phase = SEALED_BIDS
        for i in range(s.n):
            s.bids[i] = 0
        s.bids_replaced = 1
        s.to_move = 0
    else:
        s.phase = PRICE
        s.to_move = auctioneer


cdef void sell(State* s, _Sink out, int buyer, long price) except *:
    cdef long low = 0, own = price
    cdef int x = s.auctioneer
    s.money[buyer] -= price
    if s.partner >= 0 and s.seed_rules:  # seller_shares: the partner gets half, rounded down
        low = price // 2
        own = price - low
    if buyer != x:
        s.money[x] += own
    if low and buyer != s.partner:
        s.money[s.partner] += low
    s.bought[buyer][s.artist] += s.ncards
    s.sales += 1
    s.last_buyer = buyer
    s.last_price = price
    begin_turn(s, out, (x + 1) % s.n)


cdef void no_bid(State* s, _Sink out) except *:
    sell(s, out, s.auctioneer, 1 if s.seed_rules and s.money[s.auctioneer] > 0 else 0)


cdef void settle_bids(State* s, _Sink out) except *:
    if s.high_bidder < 0:
        no_bid(s, out)
    else:
        sell(s, out, s.high_bidder, s.high)


cdef inline bint bid_or_pass(State* s, _Sink out, int q, double r):
    """One Open or Once Around step: legal = [PASS, high + 1 .. money], index i > 0 bids
    high + i (a seat without more money than the high bid can only pass). True for a bid."""
    cdef long top = s.money[q], amount = 0
    if top > s.high:
        amount = <long>(r * (top - s.high + 1))
    if amount:
        s.high += amount
        step(out, AMOUNT_BASE + s.high, -1)
        s.high_bidder = q
        return True
    step(out, PASS, -1)
    return False


cdef int pick_offer(State* s, int q, double r):
    """The offer at index ``int(r * len(legal))`` of ``ModernArtEngine._offers(q)``."""
    cdef int legal[64]
    cdef int m = 0, k, a, t, base
    for k in range(s.K):
        if s.hands[q][k]:
            legal[m] = OFFER_BASE + k
            m += 1
    for a in range(s.A):
        base = a * NTYPES
        if s.hands[q][base + DOUBLE] and s.counts[a] + 1 < FIVE:
            for t in range(DOUBLE):
                if s.hands[q][base + t]:
                    legal[m] = PAIR_BASE + a * DOUBLE + t
                    m += 1
    return legal[<int>(r * m)]


cdef void offer(State* s, _Sink out, int action) except *:
    cdef int q = s.to_move, a, t, kind
    step(out, action, -1)
    if action >= PAIR_BASE:
        a = (action - PAIR_BASE) // DOUBLE
        t = (action - PAIR_BASE) % DOUBLE
        play(s, q, a * NTYPES + DOUBLE)
        play(s, q, a * NTYPES + t)
        if s.counts[a] >= FIVE:
            end_round(s, out, (q + 1) % s.n)
        else:
            start_auction(s, q, -1, a, t, 2)
        return
    kind = action - OFFER_BASE
    play(s, q, kind)
    a = kind // NTYPES
    t = kind % NTYPES
    if s.counts[a] >= FIVE:
        end_round(s, out, (q + 1) % s.n)
    elif t == DOUBLE:
        s.artist = a
        s.auction = DOUBLE
        s.auctioneer = q
        s.partner = -1
        s.ncards = 1
        s.phase = ADD
        s.to_move = (q + 1) % s.n
    else:
        start_auction(s, q, -1, a, t, 1)


cdef void add_partner(State* s, _Sink out, double r) except *:
    cdef int legal[5]
    cdef int m = 1, t, q = s.to_move, base = s.artist * NTYPES, action, nxt
    legal[0] = PASS
    for t in range(DOUBLE):
        if s.hands[q][base + t]:
            legal[m] = ADD_BASE + t
            m += 1
    action = legal[<int>(r * m)]
    step(out, action, -1)
    if action == PASS:
        nxt = (q + 1) % s.n
        if nxt != s.seller:
            s.to_move = nxt
            return
        s.bought[s.seller][s.artist] += 1
        s.sales += 1
        s.last_buyer = s.seller
        s.last_price = 0
        begin_turn(s, out, (nxt + 1) % s.n)
        return
    t = action - ADD_BASE
    play(s, q, base + t)
    if s.counts[s.artist] >= FIVE:
        end_round(s, out, (q + 1) % s.n)
    else:
        start_auction(s, q, s.seller, s.artist, t, 2)


cdef list _ints(const int* values, int count):
    return [values[i] for i in range(count)]


cdef list _longs(const long* values, int count):
    return [values[i] for i in range(count)]


def random_playout(engine, rng):
    """Plays ``engine`` to the end with uniform random moves; returns ``engine.returns()``."""
    cdef State s
    cdef _Sink out = _Sink()
    cdef int q, i, j, card, x, nxt, accept
    cdef long top, amount, price, best
    cdef double r
    cfg = engine.cfg
    random_ = rng.random
    if engine.num_players > MAXN or cfg.kinds > MAXK or cfg.artists > MAXA or len(engine.pile) > MAXPILE:
        raise ValueError("this setting is larger than the compiled playout's arrays")
    s.n = engine.num_players
    s.A = cfg.artists
    s.K = cfg.kinds
    s.rounds = cfg.rounds
    s.refill = cfg.refill
    s.seed_rules = cfg.seed_rules
    s.nplaces = len(cfg.place_values)
    for i in range(s.nplaces):
        s.place_values[i] = cfg.place_values[i]
    out.history = engine.history
    out.secret = engine.secret
    out.scores = engine.scores
    for q in range(s.n):
        s.money[q] = engine.money[q]
        s.hand_size[q] = engine.hand_size[q]
        s.bids[q] = engine.bids[q]
        hand = engine.hands[q]
        bought = engine.bought[q]
        for i in range(s.K):
            s.hands[q][i] = hand[i]
        for i in range(s.A):
            s.bought[q][i] = bought[i]
    for i in range(s.K):
        s.deck[i] = engine.deck[i]
        s.seen[i] = engine.seen[i]
    for i in range(s.A):
        s.counts[i] = engine.counts[i]
        s.values[i] = engine.values[i]
    pile = engine.pile
    s.npile = len(pile)
    for i in range(s.npile):
        s.pile[i] = pile[i]
    s.deck_size = engine.deck_size
    s.round = engine.round
    s.deal_left = engine.deal_left
    s.deal_seat = engine.deal_seat
    s.seller = engine.seller
    s.auctioneer = engine.auctioneer
    s.partner = engine.partner
    s.artist = engine.artist
    s.auction = engine.auction
    s.ncards = engine.ncards
    s.high = engine.high
    s.high_bidder = engine.high_bidder
    s.passes = engine.passes
    s.price = engine.price
    s.next_start = engine.next_start
    s.sales = engine.sales
    last_sale = engine.last_sale
    s.phase = engine.phase
    s.to_move = engine.to_move
    s.counts_replaced = s.bought_replaced = s.bids_replaced = 0
    sales_before = s.sales

    while s.phase != OVER:
        if s.phase == OPEN_BIDS:
            # Bids go round until all others pass after a bid (everyone, with no bid).
            q = s.to_move
            while True:
                if bid_or_pass(&s, out, q, random_()):
                    s.passes = 0
                else:
                    if s.passes + 1 == (s.n if s.high_bidder < 0 else s.n - 1):
                        break
                    s.passes += 1
                q = (q + 1) % s.n
            s.to_move = q
            settle_bids(&s, out)
        elif s.phase == PLAY:
            offer(&s, out, pick_offer(&s, s.to_move, random_()))
        elif s.phase == ONCE_BIDS:
            # One bid or pass each from the auctioneer's left, the auctioneer last.
            q = s.to_move
            x = s.auctioneer
            while True:
                bid_or_pass(&s, out, q, random_())
                if q == x:
                    break
                q = (q + 1) % s.n
            s.to_move = q
            settle_bids(&s, out)
        elif s.phase == SEALED_BIDS:
            # legal = [0 .. money] in seat order; the last bid reveals them all.
            q = s.to_move
            while q < s.n:
                amount = <long>(random_() * (s.money[q] + 1))
                s.bids[q] = amount
                if q < s.n - 1:
                    step(out, AMOUNT_BASE + amount, q)
                    q += 1
                else:
                    step(out, AMOUNT_BASE + amount, -1)
                    break
            s.to_move = q
            secret = out.secret
            for i in range(max(0, len(secret) - s.n), len(secret) - 1):
                secret[i] = -1
            best = 0
            for i in range(s.n):
                if s.bids[i] > best:
                    best = s.bids[i]
            if best == 0:
                no_bid(&s, out)
            else:
                x = s.auctioneer
                for i in range(s.n):
                    j = (x + i + (1 if s.seed_rules else 0)) % s.n
                    if s.bids[j] == best:
                        sell(&s, out, j, best)
                        break
        elif s.phase == DEAL:
            # One card at a time from the pile (as ``sample_chance``), seats round robin.
            q = s.deal_seat
            while True:
                card = s.pile[<int>(random_() * s.npile)]
                step(out, card, q)
                s.deck[card] -= 1
                j = 0
                while s.pile[j] != card:  # the first entry of the card (``list.index``)
                    j += 1
                s.npile -= 1
                s.pile[j] = s.pile[s.npile]
                s.hands[q][card] += 1
                s.hand_size[q] += 1
                s.deal_left -= 1
                s.deck_size -= 1
                if not s.deal_left:
                    break
                q = (q + 1) % s.n
            s.deal_seat = q
            if s.round == 0:
                s.phase = FIRST
            else:
                begin_turn(&s, out, s.next_start)
        elif s.phase == PRICE:
            q = s.to_move
            top = s.money[q]
            r = random_()
            price = 1 + <long>(r * top) if top else 0
            step(out, AMOUNT_BASE + price, -1)
            s.price = price
            s.phase = ANSWER
            s.to_move = (q + 1) % s.n
        elif s.phase == ANSWER:
            q = s.to_move
            x = s.auctioneer
            while True:
                r = random_()
                accept = s.money[q] >= s.price and r < 0.5
                if accept:
                    step(out, ACCEPT, -1)
                    s.to_move = q
                    sell(&s, out, q, s.price)
                    break
                step(out, DECLINE, -1)
                nxt = (q + 1) % s.n
                if nxt == x:  # nobody accepted: the auctioneer must buy it
                    s.to_move = q
                    sell(&s, out, x, s.price)
                    break
                q = nxt
        elif s.phase == ADD:
            add_partner(&s, out, random_())
        elif s.phase == FIRST:
            q = rng.randrange(s.n)
            step(out, q, -1)
            begin_turn(&s, out, q)
        else:
            raise ValueError(f"unknown phase {s.phase}")

    # Write every field back (lists the engine replaces are new lists, as there).
    money = engine.money
    hand_size = engine.hand_size
    for q in range(s.n):
        money[q] = s.money[q]
        hand_size[q] = s.hand_size[q]
        hand = engine.hands[q]
        for i in range(s.K):
            hand[i] = s.hands[q][i]
    deck = engine.deck
    seen = engine.seen
    for i in range(s.K):
        deck[i] = s.deck[i]
        seen[i] = s.seen[i]
    values = engine.values
    for i in range(s.A):
        values[i] = s.values[i]
    if s.counts_replaced:
        engine.counts = _ints(s.counts, s.A)
    else:
        counts = engine.counts
        for i in range(s.A):
            counts[i] = s.counts[i]
    if s.bought_replaced:
        engine.bought = [_ints(s.bought[q], s.A) for q in range(s.n)]
    else:
        for q in range(s.n):
            bought = engine.bought[q]
            for i in range(s.A):
                bought[i] = s.bought[q][i]
    if s.bids_replaced:
        engine.bids = _longs(s.bids, s.n)
    else:
        bids = engine.bids
        for q in range(s.n):
            bids[q] = s.bids[q]
    del pile[s.npile:]
    for i in range(s.npile):
        pile[i] = s.pile[i]
    engine.deck_size = s.deck_size
    engine.round = s.round
    engine.deal_left = s.deal_left
    engine.deal_seat = s.deal_seat
    engine.seller = s.seller
    engine.auctioneer = s.auctioneer
    engine.partner = s.partner
    engine.artist = s.artist
    engine.auction = s.auction
    engine.ncards = s.ncards
    engine.high = s.high
    engine.high_bidder = s.high_bidder
    engine.passes = s.passes
    engine.price = s.price
    engine.next_start = s.next_start
    engine.sales = s.sales
    if s.sales != sales_before:
        engine.last_sale = (s.last_buyer, s.last_price)
    engine.phase = s.phase
    engine.to_move = s.to_move
    return engine.returns()
