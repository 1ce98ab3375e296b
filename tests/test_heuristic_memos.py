"""The rollout speed-ups of issue 40 compute exactly what they replace: every memoised
valuation equals a fresh computation, and every rewritten formula equals the one it replaced
(kept here as the reference). ``test_decisions_pinned`` pins the decisions as a whole."""

from __future__ import annotations

import gc
import random

import pytest

import games
from bots.heuristics import finger_auction as fa
from bots.heuristics import gallery_rush as gr
from bots.heuristics import modern_art as ma
from games.core.infoset import build_infoset, sample_engine
from games.gallery_rush.engine import BONUS_DRAWS
from games.modern_art.engine import ADD, ANSWER, ONCE_BIDS, OPEN_BIDS, PLAY, PRICE, SEALED_BIDS
from games.paintings import NUM_KINDS
from tests.support import decision_states

MA_MEMOS = (ma._FORECASTS, ma._VIEWS, ma._LOTS, ma._WEIGHTS)


def _clear_modern_art() -> None:
    for memo in MA_MEMOS:
        memo.clear()
    ma.forget_auction()


def _modern_art_bid_states(players: int, seed: int, continuations: int) -> list:
    """Worlds of one auction's information set (the same lot, other seats' hands), then copies
    of the bid and answer decisions of random continuations of that auction: the same deals,
    offers and partners, different prices, so the same lots come up again with other money,
    as in rollouts from one position."""
    defn = games.DEFINITIONS["modern_art"]
    start = defn.new_engine(defn.validate_params({"players": players}))
    params = defn.validate_params({"players": players})
    rng = random.Random(seed)
    while start.is_chance() or start.phase not in (OPEN_BIDS, ONCE_BIDS) or len(start.history) < 40:
        if start.is_chance():
            start.apply(start.sample_chance(rng))
        else:
            legal = start.player_actions()
            start.apply(legal[int(rng.random() * len(legal))])
    # The same auction in other worlds of the mover's information set: other seats' hands.
    mover = build_infoset(defn, params, start, start.current_player(), with_view=False)
    states = [sample_engine(defn, params, mover, random.Random(w)) for w in range(8)]
    for c in range(continuations):
        engine = start.copy()
        shared = random.Random(seed)  # deals, offers and partners: the same in every one
        own = random.Random(1000 * seed + c)  # amounts and answers: each its own
        while not engine.is_terminal() and len(states) < 300 * (c + 1):
            if engine.is_chance():
                engine.apply(engine.sample_chance(shared))
                continue
            bidding = engine.phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER)
            if bidding:
                states.append(engine.copy())
            legal = engine.player_actions()
            draw = own if bidding else shared
            engine.apply(legal[int(draw.random() * len(legal))])
    return states


def _lot_figures(engine, seat) -> tuple:
    lot = ma.Lot(engine, seat)
    return (lot.value, lot.market, lot.cap, lot.weights, lot.rivals_top)


@pytest.mark.parametrize("players", [3, 5])
def test_memoised_lots_equal_fresh_ones_at_every_bid_step(players):
    # Warm the memos over every seat of every state of several diverging continuations, then
    # recompute each from empty memos: a key missing something a valuation reads (the money,
    # the seat's hand, who is paid) would answer a stale lot here.
    states = _modern_art_bid_states(players, seed=players, continuations=6)
    _clear_modern_art()
    warm = [[_lot_figures(e, seat) for seat in range(players)] for e in states]
    for engine, figures in zip(states, warm, strict=True):
        for seat in range(players):
            _clear_modern_art()
            assert _lot_figures(engine, seat) == figures[seat]


@pytest.mark.parametrize("players", [3, 5])
def test_the_auction_cache_equals_fresh_lots_on_an_engine_played_in_place(players):
    # Rollouts play one engine object on: the per-auction cache answers a seat's valuation
    # from the auction's first bid step. Played in place through whole games (every sale,
    # round end and refill), each cached valuation equals a fresh one (a copy, empty memos);
    # a cache that outlived its auction (the same object, a later lot) would differ here.
    defn = games.DEFINITIONS["modern_art"]
    knowledge = ma.ModernArtKnowledge()
    rng = random.Random(players)
    cached = 0
    for _ in range(2):
        engine = defn.new_engine(defn.validate_params({"players": players}))
        while not engine.is_terminal():
            if engine.is_chance():
                engine.apply(engine.sample_chance(rng))
                continue
            if engine.phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER):
                for seat in range(players):
                    here = ma._AUCTION[0]
                    cached += here[0] is engine and seat in here[2]
                    ma._PLAYING[0] = engine  # as the rollout policy does
                    figures = _lot_figures(engine, seat)
                    ma._PLAYING[0] = None
                    kept = ma._AUCTION[0]  # the fresh valuation below (a copy) replaces it
                    for memo in MA_MEMOS:
                        memo.clear()
                    assert _lot_figures(engine.copy(), seat) == figures
                    ma._AUCTION[0] = kept
            engine.apply(knowledge.playout(engine, rng))
    assert cached > 100  # the cache answered: most bid steps are not an auction's first


def test_the_board_cache_equals_fresh_views_on_an_engine_played_in_place():
    # The views of the board in play are cached on the engine object until a deal, a card
    # played or a round's end. Asked at every step of a whole game played in place (the deals
    # too), each cached view equals a fresh one (a copy, empty memos); a cache that outlived
    # its board (keyed without the cards in hands) would differ here.
    defn = games.DEFINITIONS["modern_art"]
    knowledge = ma.ModernArtKnowledge()
    rng = random.Random(7)
    cached = 0
    engine = defn.new_engine(defn.validate_params({"players": 3}))
    while not engine.is_terminal():
        asked = [(-1, 0)]
        if engine.phase in (PLAY, ADD):  # a card about to be played: as the offers value it
            asked.append((rng.randrange(engine.cfg.artists), 1))
        for seat in range(-1, 3):
            for played, cards in asked:
                here = ma._BOARD[0]
                cached += here[0] is engine and (seat, played, cards) in here[3]
                ma._PLAYING[0] = engine  # as the rollout policy does
                view = ma.values_of(engine, seat, played, cards)
                ma._PLAYING[0] = None
                kept = ma._BOARD[0]  # the fresh view below (a copy) replaces it
                for memo in MA_MEMOS:
                    memo.clear()
                assert ma.values_of(engine.copy(), seat, played, cards) == view
                ma._BOARD[0] = kept
        if engine.is_chance():
            engine.apply(engine.sample_chance(rng))
        else:
            engine.apply(knowledge.playout(engine, rng))
    assert cached > 100  # the cache answered: most steps leave the board as it was


def test_the_per_engine_caches_answer_the_rollout_policy_alone():
    # An engine whose fields a caller sets (not by apply) is valued afresh by everything but
    # the rollout policy: the caches serve only the engine ``playout`` is deciding for.
    defn = games.DEFINITIONS["modern_art"]
    engine = defn.new_engine(defn.validate_params({"players": 4}))
    rng = random.Random(11)
    knowledge = ma.ModernArtKnowledge()
    while engine.is_chance() or engine.phase != PLAY:
        if engine.is_chance():
            engine.apply(engine.sample_chance(rng))
        else:
            engine.apply(knowledge.playout(engine, rng))
    seat = engine.current_player()
    knowledge.playout(engine, random.Random(1))  # fills the caches for this board
    assert ma._PLAYING[0] is None
    before = ma.values_of(engine, seat)
    engine.counts = [4, 3, 0, 0, 2]
    assert ma.values_of(engine, seat) != before


def _wanted_reference(values, kinds, table, most, rng):
    """The rollouts' take as ``FingerAuctionKnowledge.playout`` computed it before issue 40."""
    cards = [v for k in kinds for v in [values[k]] * table[k]]
    mean = sum(cards) / len(cards)
    t = sum(1 for v in cards if v > mean) or 1
    if rng.random() < 0.25 and t > 1:
        t -= 1
    return min(t, most)


def test_finger_auction_rollout_take_equals_the_reference():
    rng = random.Random(5)
    for _ in range(500):
        values = tuple(rng.choice([0.0, 0.1, 1.5, -0.01, 2.0, 0.3, 3.0]) for _ in range(NUM_KINDS))
        table = [0] * NUM_KINDS
        for _ in range(rng.randrange(1, 9)):
            table[rng.randrange(NUM_KINDS)] += 1
        kinds = [k for k in range(NUM_KINDS) if table[k]]
        most = rng.randrange(1, 5)
        seed = rng.randrange(1 << 30)
        a, b = random.Random(seed), random.Random(seed)
        assert fa.wanted(values, tuple(table), most, a) == _wanted_reference(
            values, kinds, table, most, b
        )
        assert a.random() == b.random()  # the same draws


def test_finger_auction_gains_equal_the_potential_difference():
    rng = random.Random(8)
    for _ in range(200):
        c = tuple(rng.randrange(3) for _ in range(NUM_KINDS))
        n = rng.choice([2, 3, 4])
        for kind in range(NUM_KINDS):
            added = (*c[:kind], c[kind] + 1, *c[kind + 1 :])
            expected = fa.potential(added, n, fa.VERMEER_PAIR) - fa.potential(c, n, fa.VERMEER_PAIR)
            assert fa.gain(list(c), kind, n, fa.VERMEER_PAIR) == expected


def test_finger_auction_memoised_rollout_takes_equal_fresh_ones():
    rng = random.Random(13)
    cases = []
    for _ in range(300):
        mine = tuple(rng.randrange(3) for _ in range(NUM_KINDS))
        theirs = tuple(rng.randrange(3) for _ in range(NUM_KINDS)) if rng.random() < 0.5 else None
        table = [0] * NUM_KINDS
        for _ in range(rng.randrange(1, 9)):
            table[rng.randrange(NUM_KINDS)] += 1
        cases.append((mine, theirs, tuple(table), rng.choice([2, 3, 4])))
    warm = [fa._rollout_take(*case) for case in cases + cases]
    for (mine, theirs, table, n), take in zip(cases + cases, warm, strict=True):
        pair = fa.VERMEER_PAIR
        values = [
            fa.potential((*c[:k], c[k] + 1, *c[k + 1 :]), n, pair) - fa.potential(c, n, pair)
            for c in (mine,)
            for k in range(NUM_KINDS)
        ]
        if theirs is not None:
            values = [
                v
                + (
                    fa.potential((*theirs[:k], theirs[k] + 1, *theirs[k + 1 :]), n, pair)
                    - fa.potential(theirs, n, pair)
                )
                for k, v in enumerate(values)
            ]
        kinds = [k for k in range(NUM_KINDS) if table[k]]
        cards = [v for k in kinds for v in [values[k]] * table[k]]
        mean = sum(cards) / len(cards)
        assert take == (sum(1 for v in cards if v > mean) or 1)


def _declare_outcomes_reference(painter, deck):
    """``declare_outcomes`` as it was before issue 40 (a recursion per bonus draw)."""
    size = sum(deck)
    gains: dict = {}

    def add(d, p):
        gains[d] = gains.get(d, 0.0) + p

    def bonus(d, rest, left, p):
        n = sum(rest)
        if not left or not n:
            add((d[0], d[1], d[2], d[3]), p)
            return
        for kind, count in enumerate(rest):
            if count:
                slot = kind if kind < 3 else 3 if kind == 6 else -1
                if slot >= 0:
                    d[slot] += 1
                bonus(d, gr._minus(rest, kind), left - 1, p * count / n)
                if slot >= 0:
                    d[slot] -= 1

    p_lose = 0.0
    for kind, count in enumerate(deck):
        if not count:
            continue
        p = count / size
        if kind == painter:
            first = [0, 0, 0, 0]
            first[painter] = 1
            bonus(first, gr._minus(deck, painter), BONUS_DRAWS, p)
        elif kind < 3:
            add((0, 0, 0, 0), p)
        elif kind < 6:
            p_lose += p
        else:
            add((0, 0, 0, 1), p)
    return tuple((p, d) for d, p in gains.items()), p_lose


def test_gallery_rush_declare_outcomes_equal_the_reference():
    rng = random.Random(11)
    decks = [(0, 0, 1, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0, 0), (2, 1, 0, 0, 0, 0, 0)]
    decks += [tuple(rng.randrange(4) for _ in range(7)) for _ in range(150)]
    for deck in decks:
        if not sum(deck):
            continue
        for painter in range(3):
            gr.declare_outcomes.cache_clear()
            assert gr.declare_outcomes(painter, deck) == _declare_outcomes_reference(painter, deck)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_gallery_rush_memoised_ratings_equal_fresh_ones(players):
    """``rate`` memoises by ``_rating_key``: states sharing a key rate alike when computed
    afresh, and the memoised answer (filled in another order) equals the fresh one."""
    _, _, states = decision_states("gallery_rush", players, 1500, {"players": players})
    knowledge = gr.GalleryRushKnowledge()
    fresh: dict[tuple, list] = {}
    phases, ending = set(), 0
    for engine in states:
        sit = gr.Situation(engine, engine.player)
        mine = gr._collection(engine, engine.player)
        rated = knowledge._rate(engine, sit, mine)
        key = gr._rating_key(engine, sit, mine)
        assert fresh.setdefault(key, rated) == rated, key
        phases.add(engine.phase)
        ending += sit.target >= 0
    assert len(fresh) < len(states)  # some keys repeat: the memo is exercised
    assert phases == {gr.TURN, gr.CHOOSE, gr.STEAL} and ending
    gr._RATINGS.clear()
    for engine in reversed(states):
        sit = gr.Situation(engine, engine.player)
        key = gr._rating_key(engine, sit, gr._collection(engine, engine.player))
        assert knowledge.rate(engine) == fresh[key]


def test_gallery_rush_declare_outcomes_leaves_no_reference_cycle():
    """Its helpers once were closures (the recursive one holding itself): every uncached call
    left a cycle, thousands per search, for the garbage collector to find."""
    gc.collect()
    gc.disable()
    try:
        gr.declare_outcomes.cache_clear()
        for painter in range(3):
            gr.declare_outcomes(painter, (4, 3, 2, 1, 1, 1, 1))
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_modern_art_memo_keys_hold_no_object_the_garbage_collector_tracks():
    # Keys of ints, floats and strings only: CPython untracks such tuples, so the memos'
    # tens of thousands of entries cost the cyclic collector's passes nothing (a key holding
    # the Config kept every entry tracked and the collections took ~15% of a hint).
    import gc

    _clear_modern_art()
    knowledge = ma.ModernArtKnowledge()
    for engine in _modern_art_bid_states(4, seed=4, continuations=1):
        knowledge.rate(engine)
        knowledge.evaluate(engine)
    for _ in range(3):  # a pass untracks a tuple once its items are untracked: one per level
        gc.collect()
    for memo in MA_MEMOS:
        assert memo
        assert not [key for key in memo if gc.is_tracked(key)]


def test_modern_art_config_key_tells_every_parameter_apart():
    # The memos key the game by its parameters, which make the whole Config: equal parameters
    # share entries, any different one (here the rules' payments, the player count) does not.
    from games.modern_art.cards import Config

    defn = games.DEFINITIONS["modern_art"]
    seed = defn.validate_params({"players": 4})
    classic = defn.validate_params({"players": 4, "ruleset": "classic"})
    five = defn.validate_params({"players": 5})
    assert ma._cfg_key(Config(seed)) == ma._cfg_key(Config(dict(seed)))
    keys = {ma._cfg_key(Config(p)) for p in (seed, classic, five)}
    assert len(keys) == 3


def _reference_forecast(counts, supply, values, places, plays):
    """``ma.forecast`` as it was written before its index loops (issue 40), kept to pin them."""
    import math

    artists = len(counts)
    weights = [s * (1.0 + ma.MOMENTUM * c) for s, c in zip(supply, counts, strict=True)]
    total = sum(weights)
    left = min(float(plays), sum(supply))
    if total > 0.0:
        share = [w / total for w in weights]
        for a in range(artists):
            need = ma.ROUND_END_COUNT - counts[a]
            if share[a] > 0.0 and supply[a] + 1.0 >= need:
                left = min(left, ma.RACE_FACTOR * need / share[a])
    else:
        share = [0.0] * artists
    mean = [
        min(ma.ROUND_END_COUNT, c + min(left * p, s))
        for c, p, s in zip(counts, share, supply, strict=True)
    ]
    var = [left * p * (1.0 - p) + ma.COUNT_SPREAD for p in share]
    present = [1.0 if c else 1.0 - math.exp(-left * p) for c, p in zip(counts, share, strict=True)]
    ahead = [[0.0] * artists for _ in range(artists)]
    for a in range(artists):
        for b in range(a):
            x = 0.5 * (
                1.0 + math.erf((mean[b] - mean[a] + 0.5) / math.sqrt(2.0 * (var[a] + var[b])))
            )
            ahead[b][a] = x
            ahead[a][b] = 1.0 - x
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
                x = present[b] * ahead[b][a]
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
    return (tuple(value), tuple(top))


def test_modern_art_forecast_equals_its_reference_bit_for_bit():
    # Random boards (counts up to the fifth card, empty and tiny supplies, 3 to 5 artists and
    # 1 to 3 places), then the forecasts of real decision states' views: exactly equal.
    rng = random.Random(40)
    cases = []
    for _ in range(3000):
        artists = rng.randint(3, 5)
        counts = tuple(rng.choice((0, 0, 1, 2, 3, 4)) for _ in range(artists))
        supply = tuple(rng.choice((0.0, 0.001, round(rng.random() * 8, 3))) for _ in range(artists))
        values = tuple(rng.choice((0, 10, 20, 30, 50)) for _ in range(artists))
        places = (30, 20, 10)[: rng.randint(1, 3)]
        cases.append((counts, supply, values, places, rng.randint(0, 40)))
    for engine in _modern_art_bid_states(4, seed=7, continuations=1):
        for seat in (-1, 0, 1):
            counts = tuple(engine.counts)
            cases.append(
                (counts, ma.supply_of(engine, seat), tuple(engine.values), (30, 20, 10), 9)
            )
    for case in cases:
        _clear_modern_art()
        assert ma.forecast(*case) == _reference_forecast(*case), case


def _turn_values_reference(sit, c, keep, deck, memo):
    """``TurnOdds.best_with_keep`` as it was before issue 40's twenty-first session: the deck a
    tuple at every node, every outcome valued through ``sit.value`` where it occurs."""
    key = (keep, deck)
    if key not in memo:
        memo[key] = max(
            sit.value(gr._with_keep(c, keep)), _flip_reference(sit, c, keep, deck, memo)
        )
    return memo[key]


def _flip_reference(sit, c, keep, deck, memo):
    size = sum(deck)
    if not size:
        return float("-inf")
    total = 0.0
    for kind, count in enumerate(deck):
        if not count:
            continue
        if kind < 3:
            if keep >> kind & 1:
                v = sit.value(c)
            else:
                v = _turn_values_reference(sit, c, keep | 1 << kind, gr._minus(deck, kind), memo)
        elif kind < 6:
            v = sit.value(gr._without_painter(c, kind - 3))
        else:
            v = sit.value(gr._add(gr._with_keep(c, keep), 3))
        total += count * v
    return total / size


@pytest.mark.parametrize("players", [2, 3, 4])
def test_gallery_rush_turn_expectimax_equals_the_reference(players):
    """The expectimax on deck codes (with the deck-independent outcomes looked up once per
    ``TurnOdds``) gives exactly the old values, in the race and when the game is ending, from
    every Keep; and a deck code holds the deck it was made of."""
    _, _, states = decision_states("gallery_rush", players + 10, 400, {"players": players})
    ending = 0
    for engine in states:
        sit = gr.Situation(engine, engine.player)
        ending += sit.target >= 0
        mine = gr._collection(engine, engine.player)
        deck = gr.flip_deck(engine)
        code = gr.deck_code(deck)
        assert [code >> 4 * k & 15 for k in range(7)] == list(deck)
        odds, memo = gr.TurnOdds(sit, mine), {}
        for keep in range(8):
            assert odds.flip_value(keep, deck) == _flip_reference(sit, mine, keep, deck, memo)
            assert odds.best_with_keep(keep, deck) == _turn_values_reference(
                sit, mine, keep, deck, memo
            )
    assert ending  # some states value Collections as the game ending


def _choose_reference(engine, seat):
    """``GalleryRushKnowledge.playout``'s Continue-or-Confirm as it was before issue 40's
    twenty-first session: every race value looked up where it is used."""
    deck, size = engine.deck, engine.deck_size
    if not size:
        deck = gr.flip_deck(engine)
        size = sum(deck)
    c = gr._collection(engine, seat)
    keep = engine.keep
    banked = gr._with_keep(c, keep[0] | keep[1] << 1 | keep[2] << 2)
    confirm = gr.race_value(banked)
    if not size or gr.goal_distance(banked) == 0:
        return gr.CONFIRM
    total = 0.0
    for kind in range(7):
        count = deck[kind]
        if not count:
            continue
        if kind < 3:
            v = gr.race_value(c) if keep[kind] else gr.race_value(gr._add(banked, kind))
        elif kind < 6:
            v = gr.race_value(gr._without_painter(c, kind - 3))
        else:
            v = gr.race_value(gr._add(banked, 3))
        total += count * v
    return gr.CONTINUE if total / size > confirm else gr.CONFIRM


@pytest.mark.parametrize("players", [2, 3, 4])
def test_gallery_rush_rollout_continue_or_confirm_equals_the_reference(players):
    """The rollout policy's Continue-or-Confirm from its memo of deck-free values (filled in
    another order first) decides as the reference does at every race decision to continue."""
    _, _, states = decision_states("gallery_rush", players + 20, 3000, {"players": players})
    knowledge = gr.GalleryRushKnowledge()
    rng = random.Random(0)
    chooses = [
        e
        for e in states
        if e.phase == gr.CHOOSE and not any(e.qualified[s] for s in range(players) if s != e.player)
    ]
    gr._CHOICE_VALUES.clear()
    for engine in reversed(chooses):
        knowledge.playout(engine, rng)
    decided = {gr.CONTINUE: 0, gr.CONFIRM: 0}
    for engine in chooses:
        move = knowledge.playout(engine, rng)
        assert move == _choose_reference(engine, engine.player)
        decided[move] += 1
    assert min(decided.values()) > 0  # both answers occur


def test_modern_art_rounded_supplies_equal_round_bit_for_bit():
    # Supplies are rounded to 3 decimals through a memo (round() is a decimal conversion):
    # every value, asked twice (a miss, then a hit), is exactly round(x, 3).
    rng = random.Random(3)
    xs = [
        m + h / t * u
        for m in range(8)
        for h in range(0, 40, 3)
        for t in (7, 23, 61)
        for u in range(0, 12, 5)
    ]
    xs += [rng.uniform(0.0, 20.0) for _ in range(2000)] + [0.0005, 0.0015, 2.0025, 1e-9]
    ma._ROUNDED.clear()
    for _ in range(2):
        assert [ma._round3(x) for x in xs] == [round(x, 3) for x in xs]


def test_modern_art_forecast_rejects_an_impossible_board_as_math_sqrt_did():
    # Compiled, the forecast takes libm's sqrt, which returns NaN where math.sqrt raised: a
    # board with fewer cards than none left (a negative variance) still raises ValueError.
    with pytest.raises(ValueError, match="math domain error"):
        ma.forecast((1, 0, 2, 0, 0), (2.0, 3.0, 1.0, 2.0, 2.0), (0,) * 5, (30, 20, 10), -20)


def test_modern_art_forecast_names_too_many_artists():
    # Compiled, the forecast's per-artist scratch is C arrays of five: a sixth artist is a
    # clear error on both paths, never a write past them.
    with pytest.raises(ValueError, match="at most 5 artists, got 6"):
        ma.forecast((0,) * 6, (1.0,) * 6, (0,) * 6, (30, 20, 10), 12)


def _modern_art_decision(seed: int):
    """A Modern Art decision state past the first round (cards seen, values, hands)."""
    _, _, states = decision_states("modern_art", seed, 400, {"players": 4})
    return next(e for e in reversed(states) if e.round >= 1 and e.phase == PLAY)


def test_modern_art_board_code_tells_every_figure_apart():
    # The views' and lots' memo keys code the board one byte a figure (``_board_code``): a
    # change to any one list it reads gives another code, and the market's code (seat -1)
    # leaves the hand out.
    engine = _modern_art_decision(seed=71)
    seat = engine.to_move
    base = ma._board_code(engine, seat)
    assert isinstance(base, bytes)
    kind = max(range(len(engine.hands[seat])), key=engine.hands[seat].__getitem__)
    for field, index in (("counts", 0), ("values", 1), ("seen", 2), ("hand_size", 3)):
        other = engine.copy()
        getattr(other, field)[index] += 1
        assert ma._board_code(other, seat) != base, field
        assert ma._board_code(other, -1) != ma._board_code(engine, -1), field
    other = engine.copy()
    other.hands[seat][kind] -= 1
    other.hands[seat][(kind + 1) % len(other.hands[seat])] += 1
    assert ma._board_code(other, seat) != base
    assert ma._board_code(other, -1) == ma._board_code(engine, -1)


def test_modern_art_board_code_keeps_figures_past_a_byte_apart():
    # A figure above 255 cannot be a byte: the code falls back to the figures as a tuple, so a
    # cumulative value of 300 never shares a memo entry with 44 (300 mod 256), which a C byte
    # store without the range check would give, and the view follows the value.
    engine = _modern_art_decision(seed=72)
    seat = engine.to_move
    high, wrapped = engine.copy(), engine.copy()
    high.values[0] = 300
    wrapped.values[0] = 300 % 256
    assert ma._board_code(high, seat) == tuple(
        high.counts + high.values + high.seen + high.hand_size + high.hands[seat]
    )
    assert ma._board_code(high, seat) != ma._board_code(wrapped, seat)
    _clear_modern_art()
    fresh = ma.values_of(high, seat)
    _clear_modern_art()
    ma.values_of(wrapped, seat)
    assert ma.values_of(high, seat) == fresh
    assert fresh != ma.values_of(wrapped, seat)


def _reference_estimated_returns(engine, values):
    """``ma.estimated_returns`` as written before its index loops (issue 40), the reference."""
    import math

    est = [
        engine.money[s] + sum(b * v for b, v in zip(engine.bought[s], values, strict=True))
        for s in range(engine.num_players)
    ]
    if not engine.cfg.points:
        return est
    top = max(est)
    weights = [math.exp((x - top) / 30.0) for x in est]
    total = sum(weights)
    table = engine.cfg.points_table
    return [
        w / total * table[0] + (1 - w / total) * table[1] / max(1, len(est) - 1) for w in weights
    ]


@pytest.mark.parametrize("params", [{"players": 5}, {"players": 3, "payoff": "money"}])
def test_modern_art_estimated_returns_equals_the_reference(params):
    # The cut-off evaluation's index loops sum in the order ``sum`` did: the same bits, for
    # both payoffs, on boards with paintings bought (and with negative values, which no
    # forecast gives, to catch a sign or order slip).
    _, _, states = decision_states("modern_art", 73, 120, params)
    rng = random.Random(5)
    for engine in states:
        values = list(ma.market_values(engine))
        for vals in (values, [rng.uniform(-20.0, 60.0) for _ in values]):
            assert ma.estimated_returns(engine, vals) == _reference_estimated_returns(engine, vals)
