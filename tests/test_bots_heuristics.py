"""Scenario tests: each game's heuristic makes the move a decent player would.

States are reached by play and then, where a scenario needs it, given a hand-set picture
(the heuristics read only the fields a seat can see, so setting those is enough).
"""

from __future__ import annotations

import random

import games
from bots.heuristics import knowledge_for
from bots.heuristics.gallery_rush import turns_to_qualify
from bots.heuristics.modern_art import Lot, artist_values
from games.detective_eye import engine as de
from games.finger_auction import engine as fa
from games.gallery_rush import engine as gr
from games.modern_art import engine as ma
from tests.test_bots import decision_states

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
def _modern_art_in(phase: int, seed: int = 31):
    _, _, states = decision_states("modern_art", seed=seed, count=300)
    return next(e for e in states if e.phase == phase)


def test_modern_art_values_follow_the_board():
    engine = _modern_art_in(ma.PLAY)
    seat = engine.current_player()
    engine.counts = [4, 0, 0, 0, 0]
    engine.values = [0, 0, 0, 0, 0]
    values = artist_values(engine, seat)
    assert values[0] == max(values) and values[0] > 20


def test_modern_art_never_bids_above_its_cap_or_money():
    for phase in (ma.OPEN_BIDS, ma.SEALED_BIDS, ma.ONCE_BIDS):
        engine = _modern_art_in(phase)
        seat = engine.current_player()
        action = best("modern_art", engine)
        if action == ma.PASS:
            continue
        amount = action - ma.AMOUNT_BASE
        assert amount <= engine.money[seat]
        assert amount <= max(Lot(engine, seat).cap, engine.high + 1)


def test_modern_art_answers_a_fixed_price_by_its_cap():
    engine = _modern_art_in(ma.ANSWER, seed=32)
    seat = engine.current_player()
    engine.counts = [4, 0, 0, 0, 0]
    engine.artist = 0
    engine.money[seat] = 100
    engine.price = 1
    assert best("modern_art", engine) == ma.ACCEPT
    engine.price = 100
    assert best("modern_art", engine) == ma.DECLINE


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
