"""Scripted tests of Finger Auction, one per rule clause (docs/rules/finger_auction.md).

Chance is driven explicitly: reveals name the kind of card, tie-breaks the seat.
"""

from __future__ import annotations

import random

import pyspiel
import pytest

import games
from games.core.infoset import build_infoset
from games.finger_auction import FINGER_AUCTION, SMALL_VARIANT
from games.finger_auction.engine import (
    BID,
    MONET_2P_SCORES,
    MONET_3P_SCORES,
    OVER,
    PICK,
    REVEAL,
    TIE,
    VAN_GOGH_SCORES,
    VERMEER_SCORES,
    FingerAuctionEngine,
    score_and_assignment,
)
from games.paintings import (
    FORGERY_MONET,
    FORGERY_VERMEER,
    KIND_NAMES,
    MONA_LISA,
    MONET,
    VAN_GOGH,
    VERMEER,
)

VG, VM = VAN_GOGH, VERMEER

# A table with three kinds, so a winner has a real choice.
TABLE = (MONET, MONET, VG, VG, VM, VM, MONA_LISA)


def new(players: int = 2, **params) -> FingerAuctionEngine:
    return FINGER_AUCTION.new_engine(FINGER_AUCTION.validate_params({"players": players, **params}))


def reveal(engine: FingerAuctionEngine, cards=TABLE) -> None:
    for kind in cards:
        assert engine.phase == REVEAL
        engine.apply(kind)


def bid(engine: FingerAuctionEngine, *bids) -> dict:
    """Every seat of the auction bids in seat order; returns the public event of the reveal."""
    m = engine.max_bid
    story = None
    for b in bids:
        assert engine.phase == BID
        if isinstance(b, tuple):
            take, block = b
            action = (take - 1) * m + block - 1
        else:
            action = b - 1
        assert action in engine.legal_actions(), (b, engine.legal_actions())
        story = engine.narrate(action)
        engine.apply(action)
    return story.public


def pick(engine: FingerAuctionEngine, *kinds) -> None:
    for kind in kinds:
        assert engine.phase == PICK
        engine.apply(engine.max_bid**2 + kind)


def takes_allowed(engine: FingerAuctionEngine) -> set[int]:
    return {engine.decode_bid(a)[0] for a in engine.legal_actions()}


# --- the auction ---------------------------------------------------------------------------------
def test_round_starts_with_seven_public_reveals():
    e = new(3)
    for i, kind in enumerate(TABLE):
        assert e.is_chance()
        assert e.narrate(kind).public == {
            "type": "reveal",
            "round": 1,
            "slot": i + 1,
            "card": KIND_NAMES[kind],
        }
        e.apply(kind)
    assert e.phase == BID and e.current_player() == 0
    assert e.table_size == 7 and sum(e.deck) == 21


def test_seed_example_1_2_2_3_lowest_unmatched_wins():
    e = new(4)
    reveal(e)
    event = bid(e, 2, 1, 2, 3)  # the 2s cancel; 1 and 3 remain; the 1 wins
    assert event["outcome"] == "won" and event["winner"] == 1 and event["takes"] == 1
    assert [r["bid"] for r in event["revealed"]] == [2, 1, 2, 3]
    assert e.phase == PICK and e.current_player() == 1
    assert sorted(e.legal_actions()) == [25 + k for k in (MONET, VG, VM, MONA_LISA)]
    pick(e, MONA_LISA)
    assert e.collections[1][MONA_LISA] == 1
    # The winner left the round; the other three auction again for the six cards left.
    assert e.active == [0, 2, 3] and e.phase == BID and e.table_size == 6


def test_no_unique_bid_means_everyone_bids_again():
    e = new(4)
    reveal(e)
    event = bid(e, 1, 1, 3, 3)
    assert event["outcome"] == "void"
    assert e.phase == BID and e.active == [0, 1, 2, 3] and e.bids == [] and e.voids == 1
    event = bid(e, 2, 2, 2, 2)
    assert event["outcome"] == "void" and e.voids == 2
    event = bid(e, 2, 2, 2, 5)
    assert event["outcome"] == "won" and event["winner"] == 3 and e.voids == 0


def test_three_equal_bids_void_but_a_unique_higher_bid_wins():
    e = new(3)
    reveal(e)
    assert bid(e, 4, 4, 4)["outcome"] == "void"
    event = bid(e, 2, 5, 2)  # 5 is the only unmatched bid
    assert event["winner"] == 1 and event["takes"] == 5


def test_bids_above_the_cards_left_take_what_is_there():
    e = new(3)
    reveal(e)
    event = bid(e, 1, 1, 5)
    assert event["winner"] == 2 and event["takes"] == 5
    pick(e, MONA_LISA, VM, VM, VG, VG)
    assert e.collections[2] == [0, 2, 2, 0, 0, 0, 1]
    # Two Monets left for seats 0 and 1: a take of 4 gets both, automatically.
    event = bid(e, (4, 3), (3, 3))
    assert event["outcome"] == "won" and event["winner"] == 0 and event["takes"] == 2
    assert e.collections[0][MONET] == 2 and e.collections[1] == [0] * 7
    assert e.phase == REVEAL and e.round == 1  # the empty table ends the round


def test_forced_picks_are_automatic_and_the_last_player_takes_the_rest():
    e = new(2)
    reveal(e, (MONET,) * 5 + (VG, VG))
    bid(e, (3, 1), (5, 5))  # seat 0 takes 3; seat 1's 5 was not blocked but 3 is lower
    assert e.phase == PICK
    pick(e, VG)
    story = e.narrate(e.max_bid**2 + VG)
    pick(e, VG)  # then only Monets remain: the third card is taken without a step
    assert e.collections[0] == [1, 2, 0, 0, 0, 0, 0]
    assert e.collections[1] == [4, 0, 0, 0, 0, 0, 0]
    assert e.phase == REVEAL and e.round == 1
    # The event of the last pick says so: the forced Monet, and the rest for seat 1.
    assert story.public == {
        "type": "pick",
        "seat": 0,
        "card": "van Gogh",
        "auto_picked": {"Monet": 1},
        "leftover": {"seat": 1, "cards": {"Monet": 4}},
    }


def test_narration_of_a_take_made_without_a_choice_and_of_the_leftover():
    e = new(3)
    reveal(e)
    event = bid(e, 1, 1, 5)  # seat 2 takes 5 of 7: a real choice, so nothing automatic yet
    assert "auto_picked" not in event and "leftover" not in event
    pick(e, MONA_LISA, VM, VM, VG, VG)
    event = bid(e, (4, 3), (3, 3))  # seat 0's take of 4 covers the two Monets left
    assert event["auto_picked"] == {"Monet": 2} and "leftover" not in event
    # The last winner of a round picks; the seat left in the round takes the rest.
    e = new(3)
    reveal(e, (MONET, MONET, VG, VG, VM, VM, MONA_LISA))
    bid(e, 5, 5, 1)  # seat 2 takes 1
    pick(e, MONA_LISA)
    event = bid(e, (1, 1), (2, 1))  # seat 1 blocks seat 0's 1 and takes 2 of six: a choice
    assert event["winner"] == 1 and "leftover" not in event
    e.apply(e.max_bid**2 + MONET)
    story = e.narrate(e.max_bid**2 + VM)
    assert story.public["leftover"] == {
        "seat": 0,
        "cards": {"Monet": 1, "van Gogh": 2, "Vermeer": 1},
    }
    e.apply(e.max_bid**2 + VM)
    assert e.collections[0] == [1, 2, 1, 0, 0, 0, 0]


def test_narrated_takings_are_checked_on_replay():
    game = pyspiel.load_game("finger_auction", {"players": 2})
    e = new(2)
    reveal(e, (MONET,) * 5 + (VG, VG))
    bid(e, (3, 1), (5, 5))
    pick(e, VG, VG)
    infoset = build_infoset(FINGER_AUCTION, game.params, e, 0, with_view=False)
    assert games.sample_state(game, infoset, 0).engine.history == e.history
    infoset["events"][-1]["leftover"]["cards"] = {"Monet": 3}
    with pytest.raises(games.InvalidInfoset, match=r"events\[10\]"):
        games.sample_state(game, infoset, 0)


# --- the two-player rule -------------------------------------------------------------------------
def test_seed_two_player_example():
    """PL1 right 3 / left 3, PL2 right 3 / left 4: PL2's take is void, PL1 takes 3."""
    e = new(2)
    reveal(e)
    event = bid(e, (3, 3), (3, 4))
    assert event["revealed"] == [
        {"seat": 0, "take": 3, "block": 3},
        {"seat": 1, "take": 3, "block": 4},
    ]
    assert event["outcome"] == "won" and event["winner"] == 0 and event["takes"] == 3


def test_mutual_block_is_void():
    e = new(2)
    reveal(e)
    assert bid(e, (2, 3), (3, 2))["outcome"] == "void"
    assert e.phase == BID and e.voids == 1 and e.active == [0, 1]


def test_equal_surviving_takes_are_void():
    e = new(2)
    reveal(e)
    assert bid(e, (2, 1), (2, 4))["outcome"] == "void"


def test_both_takes_survive_lower_wins():
    e = new(2)
    reveal(e)
    event = bid(e, (4, 1), (2, 3))
    assert event["winner"] == 1 and event["takes"] == 2


def test_only_surviving_take_wins_even_if_higher():
    e = new(2)
    reveal(e)
    event = bid(e, (1, 2), (5, 1))  # seat 1 blocks 1; seat 0 blocks 2, not 5
    assert event["winner"] == 1 and event["takes"] == 5


def test_no_repeat_take_in_a_two_player_game():
    e = new(2)
    reveal(e)
    assert takes_allowed(e) == {1, 2, 3, 4, 5}
    bid(e, (2, 3), (3, 2))  # mutual block
    # Seat 0 may not take 2 again, seat 1 not 3; blocks may repeat.
    assert takes_allowed(e) == {1, 3, 4, 5}
    blocks = {e.decode_bid(a)[1] for a in e.legal_actions()}
    assert blocks == {1, 2, 3, 4, 5}
    e.apply(FINGER_AUCTION.struct_to_action(e, {"type": "bid", "take": 3, "block": 3}))
    assert takes_allowed(e) == {1, 2, 4, 5}
    with pytest.raises(games.InvalidAction):
        FINGER_AUCTION.struct_to_action(e, {"type": "bid", "take": 3, "block": 1})
    e.apply(FINGER_AUCTION.struct_to_action(e, {"type": "bid", "take": 4, "block": 3}))
    # seat 0's take 3 was blocked, seat 1's take 4 survived: seat 1 wins with 4
    assert e.phase == PICK and e.current_player() == 1
    pick(e, MONA_LISA, VM, VM, VG)
    # The next round starts with no constraint.
    reveal(e, (MONET, MONET, VG, VG, VM, VM, VM))
    assert takes_allowed(e) == {1, 2, 3, 4, 5}


def test_no_repeat_applies_to_the_last_two_of_a_four_player_round():
    e = new(4)
    reveal(e)
    bid(e, 1, 3, 3, 4)  # seat 0 wins with 1
    pick(e, MONA_LISA)
    event = bid(e, 2, 1, 1)  # seats 1, 2, 3: seat 1 wins with 2
    assert event["winner"] == 1
    pick(e, VM, VM)
    assert e.active == [2, 3]
    # Their previous auction was a multi-player one in which both bid 1.
    assert takes_allowed(e) == {2, 3, 4, 5}
    event = bid(e, (2, 4), (4, 2))
    assert event["outcome"] == "void"
    assert takes_allowed(e) == {1, 3, 4, 5}
    e.apply(FINGER_AUCTION.struct_to_action(e, {"type": "bid", "take": 1, "block": 1}))
    assert takes_allowed(e) == {1, 2, 3, 5}
    e.apply(FINGER_AUCTION.struct_to_action(e, {"type": "bid", "take": 5, "block": 2}))
    # seat 2 takes 1 (not blocked, lower than 5); seat 3 takes the rest
    assert e.phase == PICK and e.current_player() == 2


def test_multi_player_auctions_have_no_repeat_rule():
    e = new(3)
    reveal(e)
    bid(e, 2, 2, 2)
    assert e.legal_actions() == [0, 1, 2, 3, 4]


# --- the void-auction cap ------------------------------------------------------------------------
def test_cap_two_player_chance_picks_either_who_takes_own_take():
    e = new(2, max_void_auctions=2)
    reveal(e)
    assert bid(e, (2, 3), (3, 2))["outcome"] == "void"
    event = bid(e, (4, 1), (4, 5))
    assert event["outcome"] == "tie_break" and event["tied"] == [0, 1]
    assert e.phase == TIE and e.is_chance()
    assert e.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert e.narrate(1).public == {"type": "tie_break", "winner": 1, "takes": 4}
    e.apply(1)
    assert e.phase == PICK and e.current_player() == 1 and e.picks_left == 4


def test_cap_multi_player_tie_break_among_lowest_bidders():
    e = new(4, max_void_auctions=1)
    reveal(e)
    event = bid(e, 3, 1, 3, 1)
    assert event["outcome"] == "tie_break" and event["tied"] == [1, 3]
    assert e.chance_outcomes() == [(1, 0.5), (3, 0.5)]
    e.apply(3)
    assert e.phase == PICK and e.picker == 3 and e.picks_left == 1
    assert e.active == [0, 1, 2]


def test_cap_counts_only_voids_in_a_row():
    e = new(3, max_void_auctions=2)
    reveal(e)
    assert bid(e, 1, 1, 1)["outcome"] == "void"
    assert bid(e, 1, 2, 2)["outcome"] == "won"
    pick(e, MONA_LISA)
    assert bid(e, (1, 1), (1, 1))["outcome"] == "void"
    assert e.phase == BID  # one void since the last win: no tie-break yet


# --- scoring -------------------------------------------------------------------------------------
SEED_ROWS = {
    "monet_2p": [1, 3, 6, 10, 15, 21, 28, 36, 45],
    "monet_3p": [1, 2, 4, 8, 16, 32, 64, 128, 256],
    "van_gogh": [3, 6, 9, 12, 15, 18, 21, 24, 27],
    "vermeer": [0, 8, 0, 16, 0, 24, 0, 32, 0],
}


def collection(monet=0, van_gogh=0, vermeer=0, forgeries=(), mona_lisa=0) -> list[int]:
    c = [monet, van_gogh, vermeer, 0, 0, 0, mona_lisa]
    for f in forgeries:
        c[f] += 1
    return c


@pytest.mark.parametrize("count", range(1, 9))
def test_every_scoring_row_of_the_seed(count):
    assert MONET_2P_SCORES[count] == SEED_ROWS["monet_2p"][count - 1]
    assert MONET_3P_SCORES[count] == SEED_ROWS["monet_3p"][count - 1]
    assert VAN_GOGH_SCORES[count] == SEED_ROWS["van_gogh"][count - 1]
    assert VERMEER_SCORES[count] == SEED_ROWS["vermeer"][count - 1]
    assert score_and_assignment(collection(monet=count), 2) == (
        SEED_ROWS["monet_2p"][count - 1],
        -1,
    )
    for players in (3, 4):
        assert score_and_assignment(collection(monet=count), players)[0] == MONET_3P_SCORES[count]
    assert score_and_assignment(collection(van_gogh=count), 3)[0] == VAN_GOGH_SCORES[count]
    assert score_and_assignment(collection(vermeer=count), 4)[0] == VERMEER_SCORES[count]


def test_ninth_column_needs_the_mona_lisa():
    assert score_and_assignment(collection(monet=8, mona_lisa=1), 2) == (45, 0)
    assert score_and_assignment(collection(monet=8, mona_lisa=1), 3) == (256, 0)
    assert score_and_assignment(collection(van_gogh=8, mona_lisa=1), 2) == (27, 1)


def test_seed_reading_the_table_examples():
    assert score_and_assignment(collection(monet=4), 3)[0] == 8
    assert score_and_assignment(collection(vermeer=3), 3)[0] == 0
    assert score_and_assignment(collection(vermeer=4), 3)[0] == 16


def test_painters_add_up():
    c = collection(monet=3, van_gogh=2, vermeer=2)
    assert score_and_assignment(c, 2)[0] == 6 + 6 + 8
    assert score_and_assignment(c, 4)[0] == 4 + 6 + 8


def test_forgeries_count_minus_one_and_never_below_zero():
    assert score_and_assignment(collection(monet=3, forgeries=[FORGERY_MONET]), 2)[0] == 3
    assert score_and_assignment(collection(van_gogh=2, forgeries=[FORGERY_MONET]), 2)[0] == 6
    assert score_and_assignment(collection(vermeer=3, forgeries=[FORGERY_VERMEER]), 2)[0] == 8
    # A forgery without paintings scores 0, not -1 on that painter or anything elsewhere.
    assert score_and_assignment(collection(forgeries=[FORGERY_MONET]), 2)[0] == 0
    assert score_and_assignment(collection(van_gogh=1, forgeries=[FORGERY_MONET]), 2)[0] == 3


def test_mona_lisa_goes_where_it_scores_most():
    # 1 Vermeer + ML = 2 Vermeer (8) beats Monet 1 (1) and van Gogh 1 (3).
    assert score_and_assignment(collection(vermeer=1, mona_lisa=1), 2) == (8, 2)
    # 3 Vermeer: ML to Vermeer makes 4 (16 vs 0) rather than to Monet (+1).
    assert score_and_assignment(collection(monet=2, vermeer=3, mona_lisa=1), 2) == (3 + 16, 2)
    # 2 Vermeer: ML to Vermeer would make 3 (0): van Gogh gains more.
    assert score_and_assignment(collection(van_gogh=2, vermeer=2, mona_lisa=1), 2) == (9 + 8, 1)
    # Many Monets in a 3-4 player game: doubling wins.
    assert score_and_assignment(collection(monet=6, van_gogh=6, mona_lisa=1), 3) == (64 + 18, 0)
    # It can cancel a forgery.
    assert score_and_assignment(
        collection(vermeer=2, forgeries=[FORGERY_VERMEER], mona_lisa=1), 2
    ) == (8, 2)
    # Alone, it is one painting of the best painter: van Gogh's 3.
    assert score_and_assignment(collection(mona_lisa=1), 2) == (3, 1)


def finished(players: int, *collections) -> FingerAuctionEngine:
    e = new(players)
    e.collections = [list(c) for c in collections]
    e.phase = OVER
    return e


def test_highest_score_wins():
    e = finished(3, collection(van_gogh=2), collection(vermeer=2), collection(monet=3))
    assert e.scores() == [6, 8, 4]
    assert e.returns() == [-0.5, 1.0, -0.5]


def test_tie_on_score_fewer_cards_wins():
    # 8 points each: 2 Vermeer (2 cards) against 1 Vermeer + Mona Lisa + a Monet forgery (3).
    e = finished(
        2,
        collection(vermeer=1, mona_lisa=1, forgeries=[FORGERY_MONET]),
        collection(vermeer=2),
    )
    assert e.scores() == [8, 8]
    assert e.returns() == [-1.0, 1.0]


def test_tie_on_score_and_cards_is_shared():
    e = finished(
        4,
        collection(van_gogh=2),
        collection(van_gogh=2),
        collection(monet=1),
        collection(monet=2, van_gogh=1),
    )
    assert e.scores() == [6, 6, 1, 5]
    assert e.winners() == [0, 1]
    assert e.returns() == [0.5, 0.5, -0.5, -0.5]


def test_everybody_tied_is_a_draw():
    e = finished(3, collection(monet=2), collection(monet=2), collection(monet=2))
    assert e.returns() == [0.0, 0.0, 0.0]


# --- whole games ---------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_card_ends_in_a_collection(players):
    rng = random.Random(players)
    for _ in range(20):
        e = new(players)
        while not e.is_terminal():
            e.apply(e.sample_chance(rng) if e.is_chance() else rng.choice(e.legal_actions()))
        totals = [sum(c[k] for c in e.collections) for k in range(7)]
        assert totals == [8, 8, 8, 1, 1, 1, 1]
        assert e.round == 4
        assert sum(e.returns()) == pytest.approx(0.0)


def test_bad_deck_parameters_name_the_parameter():
    with pytest.raises(games.InvalidParams, match="cards_per_round"):
        FINGER_AUCTION.validate_params({"rounds": 4, "cards_per_round": 8})
    with pytest.raises(games.InvalidParams, match="deck_mona_lisa"):
        FINGER_AUCTION.validate_params({"deck_mona_lisa": 2})
    with pytest.raises(games.InvalidParams, match="max_bid"):
        FINGER_AUCTION.validate_params({"max_bid": 1})


# --- information ---------------------------------------------------------------------------------
def test_later_bidder_never_sees_an_earlier_bid_of_the_same_auction():
    game = pyspiel.load_game("finger_auction", {"players": 3})
    worlds = []
    for first in (1, 4):
        e = new(3)
        reveal(e)
        e.apply(first - 1)
        worlds.append(e)
    a, b = worlds
    for seat in (1, 2):
        ia = build_infoset(FINGER_AUCTION, game.params, a, seat)
        ib = build_infoset(FINGER_AUCTION, game.params, b, seat)
        assert ia == ib
        assert a.info_key(seat) == b.info_key(seat)
        assert ia["events"][-1] == {"type": "bid", "seat": 0}
    own_a = build_infoset(FINGER_AUCTION, game.params, a, 0)
    assert own_a["private"] == [{"at": 7, "bid": 1}] and own_a["view"]["your_bid"] == {"bid": 1}
    assert a.info_key(0) != b.info_key(0)


def _masked_history(engine: FingerAuctionEngine, player: int) -> tuple[int, ...]:
    """The key by its definition: the seat, then the history with the bids of the auction in
    progress by other seats masked as -1."""
    history = list(engine.history)
    if engine.phase == BID:
        cut = len(history) - len(engine.bids)
        for i in range(len(engine.bids)):
            if engine.active[i] != player:
                history[cut + i] = -1
    return (player, *history)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_info_key_is_the_history_with_other_seats_pending_bids_masked(players):
    rng = random.Random(players)
    for _ in range(3):
        e = new(players)
        while not e.is_terminal():
            for seat in range(players):
                key = e.info_key(seat)
                assert type(key) is tuple and key == _masked_history(e, seat)
            legal = e.legal_actions()
            e.apply(legal[int(rng.random() * len(legal))])


def test_sampler_keeps_revealed_bids_and_draws_hidden_ones():
    game = pyspiel.load_game("finger_auction", {"players": 3})
    e = new(3)
    reveal(e)
    bid(e, 2, 2, 2)  # void: these bids are public now
    e.apply(4)  # seat 0 bids 5, still hidden
    infoset = build_infoset(FINGER_AUCTION, game.params, e, 1)
    seen = set()
    for seed in range(12):
        state = games.sample_state(game, infoset, seed)
        history = state.engine.history
        assert history[:10] == e.history[:10]
        seen.add(history[10])
    assert len(seen) > 2  # seat 0's hidden bid is drawn, not read from the true state
    # Seat 0 knows its own bid: its samples are the true history.
    own = build_infoset(FINGER_AUCTION, game.params, e, 0)
    assert games.sample_state(game, own, 3).engine.history == e.history


def test_sampler_prior_weights_hidden_bids():
    game = pyspiel.load_game("finger_auction", {"players": 2})
    e = new(2)
    reveal(e)
    e.apply(2 * 5 + 0)  # seat 0: take 3, block 1
    infoset = build_infoset(FINGER_AUCTION, game.params, e, 1)

    def only_take_five(engine, candidates):
        return [1.0 if engine.decode_bid(a)[0] == 5 else 0.0 for a in candidates]

    for seed in range(5):
        state = games.sample_state(game, infoset, seed, prior=only_take_five)
        assert state.engine.decode_bid(state.engine.history[-1])[0] == 5


def test_tampered_reveal_is_rejected():
    game = pyspiel.load_game("finger_auction", {"players": 2})
    e = new(2)
    reveal(e)
    bid(e, (3, 3), (3, 4))
    infoset = build_infoset(FINGER_AUCTION, game.params, e, 1, with_view=False)
    infoset["events"][8]["winner"] = 1
    with pytest.raises(games.InvalidInfoset, match=r"events\[8\]"):
        games.sample_state(game, infoset, 0)


def test_small_variant_is_registered_and_small():
    game = pyspiel.load_game("finger_auction", SMALL_VARIANT)
    assert game.num_players() == 2
    assert game.max_game_length() <= 20


def test_small_variant_solves_with_cfr_plus_to_a_symmetric_value():
    """OpenSpiel's C++ CFR+ on the cached tree: NashConv falls fast and the value is 0.

    Seat order only sequences simultaneous commits, so the two seats are symmetric and the
    game's value is 0; a wrong information structure (a later bidder seeing an earlier bid)
    would hand seat 1 a positive value.
    """
    game = pyspiel.load_game("finger_auction", SMALL_VARIANT)
    tree = pyspiel.convert_to_cached_tree(game)
    solver = pyspiel.CFRPlusSolver(tree)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    assert pyspiel.nash_conv(tree, policy) < 0.02
    values = pyspiel.expected_returns(tree.new_initial_state(), policy, -1, True)
    assert values[0] == pytest.approx(0.0, abs=0.01)


def test_view_splits_the_score_by_painter_with_the_mona_lisa_where_it_counts():
    e = new(2)
    e.collections[0] = [2, 1, 2, 0, 1, 0, 1]  # Monet 2 (+ML -> 3), van Gogh 1 - 1, Vermeer 2
    view = e.observation(0)
    assert view["points_by_painter"][0] == {"Monet": 6, "van Gogh": 0, "Vermeer": 8}
    assert sum(view["points_by_painter"][0].values()) == view["scores"][0] == 14
