"""Scenario tests: each game's heuristic makes the move a decent player would.

States are reached by play and then, where a scenario needs it, given a hand-set picture
(the heuristics read only the fields a seat can see, so setting those is enough).
"""

from __future__ import annotations

import math
import random

import pytest

import games
from bots.heuristics import knowledge_for
from bots.heuristics.gallery_rush import turns_to_qualify
from bots.heuristics.modern_art import Lot, artist_values, forecast
from bots.protocol import Budget, InvalidBotSpec
from bots.registry import make_bot
from games.core.infoset import build_infoset, sample_engine
from games.detective_eye import engine as de
from games.finger_auction import engine as fa
from games.gallery_rush import engine as gr
from games.modern_art import engine as ma
from games.modern_art.cards import DOUBLE, OPEN, SEALED, kind_of
from tests.support import decision_states

RNG = random.Random(0)


def best(name: str, engine) -> int:
    return knowledge_for(name).choose(engine, RNG)


# --- Gallery Rush ------------------------------------------------------------------------------
def _gallery(players: int = 2) -> gr.GalleryRushEngine:
    defn = games.definition("gallery_rush")
    engine = defn.new_engine(defn.validate_params({"players": players}))
    engine.apply(0)  # seat 0 starts
    return engine


def test_gallery_rush_expected_turns_shrink_with_progress():
    table = turns_to_qualify()
    assert table[(0, 0, 0, 0)] > table[(1, 0, 0, 0)] > table[(2, 0, 0, 0)] > table[(3, 0, 0, 0)]
    assert table[(2, 2, 2, 0)] < table[(1, 1, 1, 0)]


def test_gallery_rush_explores_first_and_pushes_a_small_keep():
    engine = _gallery()
    assert best("gallery_rush", engine) == gr.EXPLORE
    engine.apply(gr.EXPLORE)
    engine.apply(0)  # a Monet in the Keep: a bust needs one of 7 Monets out of 27
    assert best("gallery_rush", engine) == gr.CONTINUE


def test_gallery_rush_banks_a_keep_that_qualifies():
    engine = _gallery()
    engine.collections[0] = [3, 2, 0, 0]
    engine.apply(gr.EXPLORE)
    engine.apply(0)  # the fourth Monet qualifies on Confirm
    assert best("gallery_rush", engine) == gr.CONFIRM


def test_gallery_rush_declares_the_mona_lisa_when_the_deck_is_thin():
    engine = _gallery()
    engine.deck = [1, 0, 0, 0, 0, 0, 1]
    engine.deck_size = 2
    engine.discard = [7, 8, 8, 1, 1, 1, 0]
    assert best("gallery_rush", engine) == gr.DECLARE_MONA_LISA


def test_gallery_rush_goes_for_the_win_when_the_game_is_ending():
    engine = _gallery()
    engine.qualified[1] = True
    engine.collections[1] = [4, 2, 1, 0]  # 7 cards: we need 8 and a goal in one turn
    engine.collections[0] = [3, 3, 1, 0]
    engine.apply(gr.EXPLORE)
    engine.apply(2)  # a Vermeer in the Keep: Confirm gives 8 cards, a win
    assert best("gallery_rush", engine) == gr.CONFIRM


# --- Finger Auction ----------------------------------------------------------------------------
def test_finger_auction_picks_what_the_tables_reward():
    _, _, states = decision_states("finger_auction", seed=21, count=400, params={"players": 3})
    engine = next(e for e in states if e.phase == fa.PICK)
    seat = engine.picker
    engine.collections = [[0] * 7 for _ in range(3)]
    engine.collections[seat] = [4, 0, 0, 0, 0, 0, 0]  # four Monets: the fifth doubles them
    engine.table = [1, 1, 0, 0, 0, 0, 0]
    engine.table_size = 2
    assert best("finger_auction", engine) == engine.pick_base + 0
    engine.table = [0, 1, 0, 1, 0, 0, 0]  # a van Gogh or a Monet forgery: never the forgery
    assert best("finger_auction", engine) == engine.pick_base + 1


def test_finger_auction_two_player_bids_respect_the_no_repeat_rule():
    _, _, states = decision_states("finger_auction", seed=22, count=200)
    for engine in (e for e in states if e.phase == fa.BID):
        seat = engine.current_player()
        take, _ = engine.decode_bid(best("finger_auction", engine))
        assert take != engine.last_take[seat]


# --- Modern Art --------------------------------------------------------------------------------
MODERN_ART_BIDS = (ma.OPEN_BIDS, ma.ONCE_BIDS, ma.SEALED_BIDS)


def _modern_art_states(seed: int = 31, count: int = 300, players: int = 4):
    return decision_states("modern_art", seed=seed, count=count, params={"players": players})[2]


def _modern_art_in(phase: int, seed: int = 31):
    return next(e for e in _modern_art_states(seed) if e.phase == phase)


def _set_hand(engine, seat: int, cards: dict[tuple[int, int], int]) -> None:
    hand = engine.hands[seat]
    for kind in range(len(hand)):
        hand[kind] = 0
    for (artist, auction), count in cards.items():
        hand[kind_of(artist, auction)] = count
    engine.hand_size[seat] = sum(cards.values())


def _leading_lot(phase: int, seed: int, rivals_money: int):
    """An auction of one Lite Metal, the artist at four cards (it ends the round first and is
    worth about 30), the rivals with ``rivals_money`` each and the seat to move with 100."""
    engine = _modern_art_in(phase, seed=seed)
    seat = engine.current_player()
    engine.artist, engine.ncards = 0, 1
    engine.counts = [4, 0, 0, 0, 0]
    engine.money = [rivals_money] * engine.num_players
    engine.money[seat] = 100
    return engine, seat


def test_modern_art_values_follow_the_board():
    engine = _modern_art_in(ma.PLAY)
    seat = engine.current_player()
    engine.counts = [4, 0, 0, 0, 0]
    engine.values = [0, 0, 0, 0, 0]
    values = artist_values(engine, seat)
    assert values[0] == max(values) and values[0] > 20
    # Earlier markers count only if the artist is ranked again: with 60 in markers a Krypto in
    # third place is worth more than without, but less than a sure 60 + 10.
    engine.counts = [4, 3, 0, 0, 2]
    plain = artist_values(engine, seat)[4]
    engine.values = [0, 0, 0, 0, 60]
    rich = artist_values(engine, seat)[4]
    assert plain + 20 < rich < 70
    assert forecast((0, 0, 0, 0, 0), (0.0,) * 5, (0,) * 5, (30, 20, 10), 0) == ((0.0,) * 5,) * 2


@pytest.mark.parametrize("players", [3, 4, 5])
def test_modern_art_never_bids_above_what_the_lot_is_worth_to_it(players):
    """Bids, sealed bids and accepted prices stay within the lot's value to the bidder and
    within its money, in every bidding phase at every player count."""
    knowledge = knowledge_for("modern_art")
    checked = 0
    for engine in _modern_art_states(seed=40 + players, count=250, players=players):
        seat = engine.current_player()
        if engine.phase in MODERN_ART_BIDS:
            action = best("modern_art", engine)
            if action == ma.PASS:
                continue
            amount = action - ma.AMOUNT_BASE
            lot = Lot(engine, seat)
            assert amount <= engine.money[seat]
            assert amount <= lot.value, (engine.phase, amount, lot.value)
            checked += 1
        elif engine.phase == ma.ANSWER and knowledge.choose(engine, RNG) == ma.ACCEPT:
            assert engine.price <= Lot(engine, seat).value
            checked += 1
    assert checked > 20


def test_modern_art_takes_a_cheap_valuable_fixed_price_and_declines_a_dear_one():
    engine = _modern_art_in(ma.ANSWER, seed=32)
    seat = engine.current_player()
    engine.counts = [4, 0, 0, 0, 0]
    engine.artist = 0
    engine.money[seat] = 100
    engine.price = 1
    assert best("modern_art", engine) == ma.ACCEPT
    engine.price = 100  # the painting pays at most 30 this round
    assert best("modern_art", engine) == ma.DECLINE


def test_modern_art_passes_when_it_holds_the_high_bid_and_wins_cheaply_when_it_can():
    engine, seat = _leading_lot(ma.OPEN_BIDS, 33, rivals_money=6)
    engine.high, engine.high_bidder = 5, seat
    assert best("modern_art", engine) == ma.PASS
    # Nobody else can pay more than 6: a bid of 7 wins a painting worth about 30.
    engine.high_bidder = (seat + 1) % engine.num_players
    assert best("modern_art", engine) == ma.AMOUNT_BASE + 7


def test_modern_art_sealed_bid_is_one_more_than_any_rival_can_pay_when_that_is_cheap():
    engine, _ = _leading_lot(ma.SEALED_BIDS, 34, rivals_money=3)
    assert best("modern_art", engine) == ma.AMOUNT_BASE + 4


def test_modern_art_prices_a_fixed_lot_within_reach_of_the_buyers():
    engine, seat = _leading_lot(ma.PRICE, 35, rivals_money=100)
    price = best("modern_art", engine) - ma.AMOUNT_BASE
    value = Lot(engine, seat).market
    assert 0.4 * value <= price <= value


def test_modern_art_offers_a_double_with_its_partner_of_a_leading_artist():
    engine = _modern_art_in(ma.PLAY)
    seat = engine.current_player()
    engine.counts = [0, 0, 0, 0, 2]
    engine.values = [0, 0, 0, 0, 0]
    _set_hand(engine, seat, {(4, DOUBLE): 1, (4, OPEN): 1, (0, SEALED): 1})
    pair = ma.PAIR_BASE + 4 * 4 + OPEN
    assert pair in engine.legal_actions()
    assert best("modern_art", engine) == pair


def test_modern_art_ends_the_round_when_it_cashes_in_its_paintings():
    """Its bought Lite Metals are first if the round ends now; the fifth card ends it."""
    engine = _modern_art_in(ma.PLAY)
    seat = engine.current_player()
    engine.counts = [4, 3, 3, 0, 0]
    engine.values = [0, 0, 0, 0, 0]
    for s in range(engine.num_players):
        engine.bought[s] = [0, 1, 1, 0, 0] if s != seat else [3, 0, 0, 0, 0]
    _set_hand(engine, seat, {(0, OPEN): 1, (1, OPEN): 1, (2, OPEN): 1})
    assert best("modern_art", engine) == ma.OFFER_BASE + kind_of(0, OPEN)


@pytest.mark.parametrize("style", ["default", "simple"])
def test_modern_art_reads_only_the_information_set(style):
    """Two worlds with the same information set (other hands, sealed bids differ) get the
    same ratings, playout move and explanation."""
    knowledge = knowledge_for("modern_art", style)
    defn = games.definition("modern_art")
    params = defn.validate_params({"players": 4})
    states = _modern_art_states(seed=36, count=120)
    differing = 0
    for i, engine in enumerate(states[::4]):
        seat = engine.current_player()
        infoset = build_infoset(defn, params, engine, seat)
        a, b = (sample_engine(defn, params, infoset, random.Random(s)) for s in (i, i + 1000))
        differing += a.hands != b.hands
        assert knowledge.rate(a) == knowledge.rate(b)
        assert knowledge.explain(a) == knowledge.explain(b)
        assert knowledge.evaluate(a) == knowledge.evaluate(b)
        assert knowledge.playout(a, random.Random(7)) == knowledge.playout(b, random.Random(7))
    assert differing > 5  # the worlds did differ in what the seat cannot see


def test_modern_art_heuristic_is_deterministic_and_its_ratings_soften_to_a_policy():
    """Same seed, same game; ratings are finite money figures with the choice on top."""
    knowledge = knowledge_for("modern_art")
    defn = games.definition("modern_art")
    params = defn.validate_params({"players": 3})

    def play(seed: int) -> list[int]:
        rng = random.Random(seed)
        engine = defn.new_engine(params)
        while not engine.is_terminal():
            if engine.is_chance():
                engine.apply(engine.sample_chance(rng))
                continue
            rated = knowledge.rate(engine)
            assert all(math.isfinite(r) for _, r in rated)
            action = knowledge.choose(engine, rng)
            assert dict(rated)[action] == max(r for _, r in rated)
            engine.apply(action)
        return engine.history

    assert play(5) == play(5)


def test_heuristic_bot_style_option_selects_the_simple_modern_art_heuristic():
    defn, params, states = decision_states("modern_art", seed=37, count=40)
    simple = make_bot({"name": "heuristic", "options": {"style": "simple"}})
    assert simple.spec() == {"name": "heuristic", "options": {"style": "simple"}}
    with pytest.raises(InvalidBotSpec, match="style"):
        make_bot({"name": "heuristic", "options": {"style": "clever"}})
    engine = next(e for e in states if e.phase == ma.OPEN_BIDS)
    infoset = build_infoset(defn, params, engine, engine.current_player())
    hint = simple.hint(defn, params, infoset, Budget(simulations=1), seed=0)
    old = knowledge_for("modern_art", "simple").choose(engine, random.Random(0))
    assert hint.action == old


# --- Detective Eye -----------------------------------------------------------------------------
def test_detective_eye_declares_what_it_placed_and_flips_its_own_cards_first():
    _, _, states = decision_states("detective_eye", seed=41, count=300)
    engine = next(e for e in states if e.phase == de.TURN)
    seat = engine.current_player()
    mine = engine.rows[seat][0]
    action = best("detective_eye", engine)
    assert action == engine.bid_action(mine, 1)
    engine.apply(action)
    while engine.phase == de.BID:
        engine.apply(engine.pass_action)
    if engine.phase == de.FLIP and engine.player == seat:
        assert best("detective_eye", engine) == engine.flip_action(seat, 0)


@pytest.mark.parametrize("players", [3, 5])
def test_modern_art_best_rated_is_the_top_of_its_ratings(players):
    """The opponent model's shortcut names exactly the actions ``rate`` ties at the top, in
    every phase (it skips rating the other amounts, the point of it)."""
    knowledge = knowledge_for("modern_art")
    for engine in _modern_art_states(seed=players, count=200, players=players):
        rated = knowledge.rate(engine)
        top = max(score for _, score in rated)
        expected = {a for a, score in rated if score >= top - 1e-9}
        assert knowledge.best_rated(engine) == expected, engine.phase
