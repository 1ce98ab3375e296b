"""One scripted test per Modern Art rule clause (RULINGS.md), chance driven explicitly.

Every deal is a chance step whose outcome the test names (``deal``), the first seller is named
too, and players act through their readable action strings, so each script reads like a game
record. Money is computed by hand in the comments; everybody starts with 100 unless a test
says otherwise. Artists in board order: Lite Metal, Yoko, Christin P., Karl Gitter, Krypto.
"""

from __future__ import annotations

import json
import random

import pyspiel
import pytest

import games
from games.core.definition import InvalidAction, InvalidInfoset
from games.core.infoset import build_infoset
from games.modern_art import MODERN_ART
from games.modern_art.cards import ARTIST_NAMES, TYPE_NAMES, kind_of
from games.modern_art.engine import (
    ADD,
    AMOUNT_BASE,
    ANSWER,
    DEAL,
    FIRST,
    ONCE_BIDS,
    OPEN_BIDS,
    OVER,
    PASS,
    PLAY,
    PRICE,
    SEALED_BIDS,
    ModernArtEngine,
    share_points,
)

LITE_METAL, YOKO, CHRISTIN, KARL, KRYPTO = range(5)


# --- helpers ---------------------------------------------------------------------------------
def kind(card: str) -> int:
    """``"Yoko Once Around"`` -> the card kind."""
    for a, artist in enumerate(ARTIST_NAMES):
        if card.startswith(artist + " "):
            return kind_of(a, TYPE_NAMES.index(card[len(artist) + 1 :]))
    raise ValueError(card)


def deal(engine: ModernArtEngine, hands: list[list[str]]) -> None:
    """Drives a whole deal or refill: each seat receives its listed cards, in order."""
    assert engine.phase == DEAL
    queues = [list(h) for h in hands]
    while engine.phase == DEAL:
        card = kind(queues[engine.deal_seat].pop(0))
        assert card in engine.legal_actions(), "the deck has no such card left"
        engine.apply(card)
    assert not any(queues), "more cards listed than the deal gives"


def new(hands: list[list[str]], first: int = 0, **params) -> ModernArtEngine:
    """A game with ``len(hands)`` players dealt ``hands``, seat ``first`` selling first."""
    params = {"players": len(hands), "deal": len(hands[0]), "rounds": 1, **params}
    engine = MODERN_ART.new_engine(MODERN_ART.validate_params(params))
    deal(engine, hands)
    assert engine.phase == FIRST
    engine.apply(first)
    return engine


def act(engine: ModernArtEngine, *texts: str) -> ModernArtEngine:
    """Plays actions by their strings; an illegal one raises ``InvalidAction``."""
    for text in texts:
        engine.apply(MODERN_ART.string_to_action(engine, text))
    return engine


def legal(engine: ModernArtEngine) -> list[str]:
    player = engine.current_player()
    return [MODERN_ART.action_to_string(engine, player, a) for a in engine.legal_actions()]


def last_event(engine: ModernArtEngine, text: str) -> dict:
    """The public event the action ``text`` makes, then plays it."""
    action = MODERN_ART.string_to_action(engine, text)
    event = engine.narrate(action).public
    engine.apply(action)
    return event


def keep(engine: ModernArtEngine, card: str) -> None:
    """The seller offers ``card`` and nobody bids (the no-bid rule applies)."""
    act(engine, f"offer {card}")
    while engine.phase in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS):
        act(engine, "sealed bid 0" if engine.phase == SEALED_BIDS else "pass")


# Cards for the seats a test does not care about (distinct, so the deck always has them).
FILL = [
    ["Krypto Sealed", "Krypto Fixed"],
    ["Karl Gitter Open", "Karl Gitter Sealed"],
    ["Christin P. Open", "Christin P. Sealed"],
    ["Lite Metal Open", "Lite Metal Sealed"],
]


def table(seat_0: list[str], players: int = 4) -> list[list[str]]:
    """Seat 0 gets ``seat_0``; the other seats get their filler cards."""
    return [seat_0, *FILL[1:players]]


# --- Open ------------------------------------------------------------------------------------
def test_open_auction_passing_is_not_final_and_the_buyer_pays_the_auctioneer():
    e = new(table(["Yoko Open", "Krypto Open"]))
    act(e, "offer Yoko Open")
    assert (e.phase, e.current_player()) == (OPEN_BIDS, 1)  # the seat after the auctioneer
    act(e, "bid 10", "pass", "bid 15", "pass", "pass")  # 1: 10, 2 passes, 3: 15, 0 and 1 pass
    act(e, "bid 20")  # seat 2 passed before and still raises
    assert e.phase == OPEN_BIDS
    act(e, "pass", "pass")  # seats 3 and 0
    sale = last_event(e, "pass")["sale"]  # seat 1: everybody but seat 2 passed since its raise
    # Seat 2 pays 20 to the auctioneer, seat 0: 100 - 20 = 80, 100 + 20 = 120.
    assert e.money == [120, 100, 80, 100]
    assert sale == {
        "buyer": 2,
        "price": 20,
        "cards": 1,
        "payments": [{"from": 2, "to": 0, "amount": 20}],
    }
    assert e.bought[2][YOKO] == 1
    assert (e.phase, e.current_player()) == (PLAY, 1)  # the next seller is the seat after


def test_open_auction_bids_are_every_whole_amount_above_the_high_bid():
    e = new(table(["Yoko Open", "Krypto Open"]))
    act(e, "offer Yoko Open", "bid 10")
    assert e.legal_actions() == [PASS, *range(AMOUNT_BASE + 11, AMOUNT_BASE + 101)]
    with pytest.raises(InvalidAction):
        act(e, "bid 10")  # not above the high bid
    with pytest.raises(InvalidAction):
        act(e, "bid 101")  # more than the bidder's money


def test_open_auctioneer_outbidding_pays_the_bank():
    e = new(table(["Yoko Open", "Krypto Open"]))
    act(e, "offer Yoko Open", "bid 10", "pass", "pass", "bid 12", "pass", "pass", "pass")
    # The auctioneer buys its own painting: 100 - 12 to the bank = 88.
    assert e.money == [88, 100, 100, 100]
    assert e.bought[0][YOKO] == 1


@pytest.mark.parametrize("ruleset, paid", [("seed", 1), ("classic", 0)])
def test_open_with_no_bid_the_auctioneer_takes_it_at_the_no_bid_price(ruleset, paid):
    e = new(table(["Yoko Open", "Krypto Open"]), ruleset=ruleset)
    act(e, "offer Yoko Open", "pass", "pass", "pass")
    assert e.phase == OPEN_BIDS  # the auctioneer has not passed yet
    act(e, "pass")
    # Seed: 1 to the bank (99); classic: free (100).
    assert e.money == [100 - paid, 100, 100, 100]
    assert e.bought[0][YOKO] == 1


def test_seed_no_bid_price_is_zero_for_an_auctioneer_without_money():
    e = new(table(["Yoko Open", "Krypto Open"]), money=0)
    act(e, "offer Yoko Open")
    assert e.legal_actions() == [PASS]  # nobody can bid without money
    act(e, "pass", "pass", "pass", "pass")
    assert e.money == [0, 0, 0, 0] and e.bought[0][YOKO] == 1


# --- Once Around -----------------------------------------------------------------------------
def test_once_around_each_player_once_the_auctioneer_last():
    e = new(table(["Yoko Once Around", "Krypto Open"]))
    act(e, "offer Yoko Once Around", "bid 5")
    assert e.legal_actions() == [PASS, *range(AMOUNT_BASE + 6, AMOUNT_BASE + 101)]
    act(e, "pass", "bid 9")  # seat 2 passes, seat 3 bids 9
    assert (e.phase, e.current_player()) == (ONCE_BIDS, 0)  # the auctioneer acts last
    act(e, "pass")
    # Seat 3 pays 9 to the auctioneer: 91 and 109; nobody gets a second turn.
    assert e.money == [109, 100, 100, 91]
    assert (e.phase, e.current_player()) == (PLAY, 1)


def test_once_around_auctioneer_may_outbid_and_pays_the_bank():
    e = new(table(["Yoko Once Around", "Krypto Open"]))
    act(e, "offer Yoko Once Around", "bid 5", "pass", "bid 9", "bid 12")
    assert e.money == [88, 100, 100, 100]  # 100 - 12 to the bank
    assert e.bought[0][YOKO] == 1


def test_once_around_auctioneer_may_bid_when_nobody_else_did():
    e = new(table(["Yoko Once Around", "Krypto Open"]))
    act(e, "offer Yoko Once Around", "pass", "pass", "pass")
    assert legal(e)[:3] == ["pass", "bid 1", "bid 2"]
    act(e, "bid 3")
    assert e.money == [97, 100, 100, 100] and e.bought[0][YOKO] == 1


@pytest.mark.parametrize("ruleset, paid", [("seed", 1), ("classic", 0)])
def test_once_around_with_no_bid(ruleset, paid):
    e = new(table(["Yoko Once Around", "Krypto Open"]), ruleset=ruleset)
    act(e, "offer Yoko Once Around", "pass", "pass", "pass", "pass")
    assert e.money == [100 - paid, 100, 100, 100]
    assert e.bought[0][YOKO] == 1


# --- Sealed ----------------------------------------------------------------------------------
def sealed_game(ruleset: str = "seed") -> ModernArtEngine:
    """Seat 1 auctions a Yoko Sealed; the bids are committed in seat order 0, 1, 2, 3."""
    hands = [FILL[0], ["Yoko Sealed", "Krypto Open"], FILL[2], FILL[3]]
    e = new(hands, first=1, ruleset=ruleset)
    act(e, "offer Yoko Sealed")
    assert (e.phase, e.current_player()) == (SEALED_BIDS, 0)
    return e


@pytest.mark.parametrize(
    "ruleset, winner, money",
    [
        # Seed: the tie at 30 goes to the nearest seat after the auctioneer (seat 2), the
        # auctioneer last; seat 2 pays 30 to seat 1: 70 and 130.
        ("seed", 2, [100, 130, 70, 100]),
        # Classic: the auctioneer first; seat 1 pays 30 to the bank: 70.
        ("classic", 1, [100, 70, 100, 100]),
    ],
)
def test_sealed_tie_with_the_auctioneer(ruleset, winner, money):
    e = sealed_game(ruleset)
    act(e, "sealed bid 20", "sealed bid 30", "sealed bid 30")
    event = last_event(e, "sealed bid 10")
    assert event["bids"] == [20, 30, 30, 10]  # the last bid reveals all of them
    assert event["sale"]["buyer"] == winner
    assert e.money == money


@pytest.mark.parametrize("ruleset", ["seed", "classic"])
def test_sealed_tie_between_other_seats_goes_round_from_the_auctioneer(ruleset):
    e = sealed_game(ruleset)
    act(e, "sealed bid 25", "sealed bid 0", "sealed bid 5", "sealed bid 25")
    # Seats 0 and 3 tie; from auctioneer 1 the order is 2, 3, 0 (either ruleset): seat 3 pays
    # 25 to seat 1: 75 and 125.
    assert e.money == [100, 125, 100, 75]


@pytest.mark.parametrize("ruleset, paid", [("seed", 1), ("classic", 0)])
def test_sealed_all_zero_is_no_bid(ruleset, paid):
    e = sealed_game(ruleset)
    act(e, "sealed bid 0", "sealed bid 0", "sealed bid 0", "sealed bid 0")
    assert e.money == [100, 100 - paid, 100, 100]
    assert e.bought[1][YOKO] == 1


def test_sealed_bids_stay_hidden_until_the_last_one_reveals_them():
    e = sealed_game()
    start = len(e.history)
    act(e, "sealed bid 20", "sealed bid 30")
    other = e.copy()
    other.history[start] = AMOUNT_BASE + 55  # another world where seat 0 bid 55 ...
    other.bids[0] = 55
    assert e.info_key(2) == other.info_key(2)  # ... is the same for seat 2
    assert e.info_key(0) != other.info_key(0)
    params = MODERN_ART.validate_params({"players": 4, "deal": 2, "rounds": 1})
    seen_by_2 = build_infoset(MODERN_ART, params, e, 2)
    assert seen_by_2["events"][start] == {"type": "sealed_bid", "seat": 0}
    assert all(p["at"] < start for p in seen_by_2["private"])
    assert "my_bid" not in seen_by_2["view"]["auction"]
    seen_by_0 = build_infoset(MODERN_ART, params, e, 0)
    assert seen_by_0["private"][-1] == {"at": start, "amount": 20}
    assert seen_by_0["view"]["auction"]["my_bid"] == 20
    act(e, "sealed bid 5", "sealed bid 1")
    revealed = build_infoset(MODERN_ART, params, e, 2)
    assert revealed["events"][-1]["bids"] == [20, 30, 5, 1]
    # Revealed, seat 0's bid is public: the two worlds are no longer the same for seat 2.
    act(other, "sealed bid 5", "sealed bid 1")
    assert e.info_key(2) != other.info_key(2)


# --- Fixed -----------------------------------------------------------------------------------
def test_fixed_price_first_to_accept_buys():
    e = new(table(["Yoko Fixed", "Krypto Open"]))
    act(e, "offer Yoko Fixed")
    assert (e.phase, e.current_player()) == (PRICE, 0)
    assert e.legal_actions() == list(range(AMOUNT_BASE + 1, AMOUNT_BASE + 101))
    act(e, "price 40", "decline")
    assert (e.phase, e.current_player()) == (ANSWER, 2)
    act(e, "accept")  # seat 3 is never asked
    assert e.money == [140, 100, 60, 100]  # seat 2 pays 40 to seat 0


def test_fixed_price_nobody_accepts_the_auctioneer_must_buy():
    e = new(table(["Yoko Fixed", "Krypto Open"]))
    act(e, "offer Yoko Fixed", "price 40", "decline", "decline")
    sale = last_event(e, "decline")["sale"]
    assert e.money == [60, 100, 100, 100]  # 40 to the bank
    assert sale["payments"] == [{"from": 0, "to": "bank", "amount": 40}]
    assert e.bought[0][YOKO] == 1


def test_fixed_price_a_player_who_cannot_pay_can_only_decline():
    e = new([["Yoko Open", "Krypto Open"], ["Krypto Fixed", "Krypto Open"], FILL[2], FILL[3]])
    act(e, "offer Yoko Open", "pass", "bid 50", "pass", "pass", "pass")  # seat 2 buys at 50
    assert e.money == [150, 100, 50, 100]
    act(e, "offer Krypto Fixed", "price 60")  # seat 1 names 60
    assert legal(e) == ["decline"]  # seat 2 has 50
    act(e, "decline", "decline", "accept")  # seats 2, 3 decline; seat 0 buys
    assert e.money == [90, 160, 50, 100]  # seat 0 pays 60 to seat 1


def test_fixed_price_is_zero_for_an_auctioneer_without_money():
    e = new(table(["Yoko Fixed", "Krypto Open"], 3), money=0)
    act(e, "offer Yoko Fixed")
    assert legal(e) == ["price 0"]
    act(e, "price 0", "accept")
    assert e.bought[1][YOKO] == 1 and e.money == [0, 0, 0]


# --- Double ----------------------------------------------------------------------------------
def test_double_way_1_sells_both_by_the_partners_auction_type():
    e = new(table(["Yoko Double", "Yoko Sealed"]))
    assert "offer Yoko Double with Sealed" in legal(e)
    act(e, "offer Yoko Double with Sealed")
    assert e.phase == SEALED_BIDS and e.counts[YOKO] == 2
    act(e, "sealed bid 0", "sealed bid 25", "sealed bid 7", "sealed bid 0")
    # Seat 1 pays 25 to seat 0 and gets both paintings.
    assert e.money == [125, 75, 100, 100]
    assert e.bought[1][YOKO] == 2
    assert e.current_player() == 1


def way_2_game(ruleset: str) -> ModernArtEngine:
    hands = [
        ["Yoko Double", "Krypto Open"],
        ["Yoko Fixed", "Yoko Sealed"],
        ["Yoko Open", "Krypto Open"],
        ["Yoko Once Around", "Krypto Open"],
    ]
    e = new(hands, ruleset=ruleset)
    act(e, "offer Yoko Double")
    assert (e.phase, e.current_player()) == (ADD, 1)
    return e


@pytest.mark.parametrize(
    "ruleset, money",
    [
        # Seed: seat 1 pays 21; the new auctioneer (seat 2) gets ceil(21/2) = 11, the old one
        # (seat 0) floor(21/2) = 10: 110, 79, 111, 100.
        ("seed", [110, 79, 111, 100]),
        # Classic: all 21 to the new auctioneer: 100, 79, 121, 100.
        ("classic", [100, 79, 121, 100]),
    ],
)
def test_double_way_2_third_party_buyer(ruleset, money):
    e = way_2_game(ruleset)
    assert legal(e) == ["pass", "add Yoko Sealed", "add Yoko Fixed"]
    act(e, "pass", "add Yoko Open")  # seat 2 adds: it auctions the pair, Open
    assert (e.phase, e.auctioneer, e.partner, e.current_player()) == (OPEN_BIDS, 2, 0, 3)
    act(e, "bid 15", "pass", "bid 21", "pass", "pass")
    sale = last_event(e, "pass")["sale"]
    assert e.money == money
    assert e.bought[1][YOKO] == 2
    if ruleset == "seed":
        assert sale["payments"] == [
            {"from": 1, "to": 2, "amount": 11},
            {"from": 1, "to": 0, "amount": 10},
        ]
    # The next seller is the seat after the new auctioneer: seat 1 loses its turn.
    assert (e.phase, e.current_player()) == (PLAY, 3)


@pytest.mark.parametrize(
    "ruleset, money",
    [
        # Seed: the old auctioneer (seat 0) pays 13: ceil = 7 to the new (seat 1), floor = 6
        # to the bank: 87 and 107.
        ("seed", [87, 107, 100, 100]),
        # Classic: all 13 to the new auctioneer: 87 and 113.
        ("classic", [87, 113, 100, 100]),
    ],
)
def test_double_way_2_old_auctioneer_buys(ruleset, money):
    e = way_2_game(ruleset)
    act(e, "add Yoko Fixed")
    assert (e.phase, e.current_player()) == (PRICE, 1)
    act(e, "price 13", "decline", "decline", "accept")
    assert e.money == money
    assert e.bought[0][YOKO] == 2
    assert e.current_player() == 2


@pytest.mark.parametrize(
    "ruleset, money",
    [
        # Seed: the new auctioneer (seat 3) pays 17: floor = 8 to the old (seat 0), ceil = 9 to
        # the bank: 108 and 83.
        ("seed", [108, 100, 100, 83]),
        # Classic: the new auctioneer pays all 17 to the bank.
        ("classic", [100, 100, 100, 83]),
    ],
)
def test_double_way_2_new_auctioneer_buys_and_seats_between_are_skipped(ruleset, money):
    e = way_2_game(ruleset)
    act(e, "pass", "pass", "add Yoko Once Around")
    assert (e.phase, e.current_player()) == (ONCE_BIDS, 0)
    act(e, "bid 8", "pass", "bid 10", "bid 17")  # seat 3, the auctioneer, outbids last
    assert e.money == money
    assert e.bought[3][YOKO] == 2
    # Seats 1 and 2 lose their turn: the seat after the new auctioneer (seat 0) sells.
    assert (e.phase, e.current_player()) == (PLAY, 0)


@pytest.mark.parametrize("ruleset, money", [("seed", [100, 99, 100, 100]), ("classic", [100] * 4)])
def test_double_way_2_no_bid_uses_the_split(ruleset, money):
    e = way_2_game(ruleset)
    act(e, "add Yoko Sealed")
    act(e, "sealed bid 0", "sealed bid 0", "sealed bid 0", "sealed bid 0")
    # Seed: the new auctioneer takes it for 1: floor(1/2) = 0 to seat 0, 1 to the bank.
    assert e.money == money
    assert e.bought[1][YOKO] == 2


def test_double_way_2_nobody_adds_the_seller_takes_it_free():
    e = way_2_game("seed")
    act(e, "pass", "pass")
    sale = last_event(e, "pass")["sale"]  # seat 3; the seller is never asked
    assert sale == {"buyer": 0, "price": 0, "cards": 1, "payments": []}
    assert e.money == [100, 100, 100, 100]
    assert e.bought[0][YOKO] == 1
    assert (e.phase, e.current_player()) == (PLAY, 1)


# --- round end -------------------------------------------------------------------------------
def test_fifth_card_a_double_ends_the_round_unsold_and_ties_go_by_board_order():
    hands = [
        ["Yoko Open", "Yoko Open", "Yoko Double"],
        ["Yoko Once Around", "Yoko Sealed", "Krypto Open"],
        ["Lite Metal Open", "Krypto Open", "Krypto Fixed"],
    ]
    e = new(hands, rounds=2, refill=1)
    keep(e, "Yoko Open")  # Yoko 1; seed no-bid price: seat 0 99
    keep(e, "Yoko Once Around")  # Yoko 2; seat 1 99
    keep(e, "Lite Metal Open")  # seat 2 99
    keep(e, "Yoko Open")  # Yoko 3; seat 0 98
    keep(e, "Yoko Sealed")  # Yoko 4; seat 1 98
    keep(e, "Krypto Open")  # seat 2 98
    assert e.money == [98, 98, 98]
    event = last_event(e, "offer Yoko Double")  # the fifth Yoko: no partner, no auction
    # Yoko 5 first (30); Lite Metal and Krypto tie at 1: Lite Metal is left on the board (20),
    # Krypto third (10). Seat 0 and seat 1 own two Yoko each (60); seat 2 one Lite Metal and
    # one Krypto (30). The Double belongs to nobody.
    assert event["scoring"] == [
        {
            "round": 1,
            "counts": {"Lite Metal": 1, "Yoko": 5, "Krypto": 1},
            "ranking": ["Yoko", "Lite Metal", "Krypto"],
            "values": {"Yoko": 30, "Lite Metal": 20, "Krypto": 10},
            "payouts": [60, 60, 30],
        }
    ]
    assert e.money == [158, 158, 128]
    assert e.bought == [[0] * 5] * 3 and e.counts == [0] * 5
    deal(e, [["Christin P. Open"], ["Karl Gitter Open"], ["Krypto Sealed"]])
    # The player after the one who ended the round sells first.
    assert (e.round, e.phase, e.current_player()) == (1, PLAY, 1)
    # Money above the starting 100 is biddable to the last unit.
    act(e, "offer Karl Gitter Open", "pass")
    assert "bid 158" in legal(e) and "bid 159" not in legal(e)


def test_a_double_cannot_take_a_partner_when_it_is_the_fifth_card():
    hands = [
        ["Krypto Open", "Krypto Open", "Yoko Double", "Yoko Sealed"],
        ["Yoko Open", "Yoko Open", "Karl Gitter Open", "Karl Gitter Open"],
        ["Yoko Sealed", "Yoko Once Around", "Christin P. Open", "Christin P. Open"],
    ]
    e = new(hands, ruleset="classic")
    for card in ("Krypto Open", "Yoko Open", "Yoko Sealed"):
        keep(e, card)
    assert "offer Yoko Double with Sealed" in legal(e)  # seat 0 again, Yoko 2: way 1 is open
    for card in ("Krypto Open", "Yoko Open", "Yoko Once Around"):
        keep(e, card)
    assert e.current_player() == 0 and e.counts[YOKO] == 4
    assert legal(e) == ["offer Yoko Sealed", "offer Yoko Double"]
    act(e, "offer Yoko Double")
    assert e.phase == OVER  # rounds=1: the fifth Yoko ended the game


def test_double_and_partner_as_fourth_and_fifth_cards_way_1():
    hands = [
        ["Yoko Open", "Yoko Double", "Yoko Open"],
        ["Yoko Sealed", "Krypto Open", "Krypto Open"],
        ["Yoko Once Around", "Krypto Open", "Krypto Open"],
    ]
    e = new(hands, rounds=2, refill=1)
    keep(e, "Yoko Open")  # seat 0 99
    keep(e, "Yoko Sealed")  # seat 1 99
    keep(e, "Yoko Once Around")  # seat 2 99; Yoko 3
    event = last_event(e, "offer Yoko Double with Open")  # the 4th and 5th Yoko, both void
    assert event["scoring"][0]["counts"] == {"Yoko": 5}
    assert event["scoring"][0]["payouts"] == [30, 30, 30]  # one Yoko each, 30 each
    assert e.money == [129, 129, 129]
    deal(e, [["Karl Gitter Open"], ["Karl Gitter Open"], ["Karl Gitter Open"]])
    assert e.current_player() == 1  # after seat 0, who played the fifth card


def test_double_and_partner_as_fourth_and_fifth_cards_way_2():
    hands = [
        ["Yoko Open", "Yoko Double", "Krypto Open"],
        ["Yoko Open", "Krypto Open", "Yoko Sealed"],
        ["Yoko Sealed", "Yoko Open", "Krypto Open"],
    ]
    e = new(hands, rounds=2, refill=1)
    keep(e, "Yoko Open")  # seat 0 99
    keep(e, "Yoko Open")  # seat 1 99
    keep(e, "Yoko Sealed")  # seat 2 99; Yoko 3
    act(e, "offer Yoko Double", "pass")  # the 4th Yoko; seat 1 does not add
    event = last_event(e, "add Yoko Open")  # seat 2's partner is the 5th: the round ends
    assert event["scoring"][0]["counts"] == {"Yoko": 5}
    assert e.money == [129, 129, 129]  # one bought Yoko each pays 30
    deal(e, [["Karl Gitter Open"], ["Karl Gitter Open"], ["Karl Gitter Open"]])
    assert e.current_player() == 0  # after seat 2, who played the fifth card


def test_ranking_ties_by_board_order_and_artists_without_cards_are_not_ranked():
    hands = [
        ["Krypto Open", "Krypto Open"],
        ["Karl Gitter Open", "Krypto Sealed"],
        ["Christin P. Open", "Krypto Once Around"],
        ["Yoko Open", "Krypto Sealed"],
    ]
    e = new(hands, ruleset="classic")  # classic: a painting nobody bids on is free
    for card in (
        "Krypto Open",  # seat 0, Krypto 1
        "Karl Gitter Open",
        "Christin P. Open",
        "Yoko Open",
        "Krypto Open",  # seat 0, Krypto 2
        "Krypto Sealed",  # seat 1, Krypto 3
        "Krypto Once Around",  # seat 2, Krypto 4
    ):
        keep(e, card)
    event = last_event(e, "offer Krypto Sealed")  # seat 3: the fifth Krypto
    # Krypto 5 first; Yoko, Christin P. and Karl Gitter tie at 1: board order gives Yoko 20 and
    # Christin P. 10, Karl Gitter nothing. Lite Metal has no card and is not ranked.
    scoring = event["scoring"][0]
    assert scoring["ranking"] == ["Krypto", "Yoko", "Christin P."]
    # Seat 0: two Krypto 60; seat 1: Karl 0 + Krypto 30; seat 2: Christin 10 + Krypto 30;
    # seat 3: Yoko 20.
    assert scoring["payouts"] == [60, 30, 40, 20]
    assert e.money == [160, 130, 140, 120]
    assert e.returns() == [4.0, 0.0, 0.0, 0.0]  # rounds=1: over; 4 players: 1st gets 4


def test_round_with_two_artists_ranks_two_and_all_hands_empty_ends_it():
    e = new([["Yoko Open"], ["Yoko Open"], ["Krypto Open"]], ruleset="classic", rounds=2, refill=1)
    keep(e, "Yoko Open")
    keep(e, "Yoko Open")
    act(e, "offer Krypto Open")
    assert e.phase == OPEN_BIDS
    act(e, "pass", "pass")
    event = last_event(e, "pass")  # the last sale empties every hand: the round ends
    assert event["scoring"][0]["ranking"] == ["Yoko", "Krypto"]  # nobody third
    assert event["scoring"][0]["values"] == {"Yoko": 30, "Krypto": 20}
    assert e.values == [0, 30, 0, 0, 20]
    assert e.money == [130, 130, 120]
    deal(e, [["Yoko Sealed"], ["Yoko Sealed"], ["Yoko Sealed"]])
    assert e.current_player() == 0  # the seat after the last seller (seat 2)


def test_a_round_without_cards_is_scored_at_once_with_nothing():
    e = new([["Yoko Open"], ["Yoko Open"], ["Krypto Open"]], rounds=2, refill=0)
    keep(e, "Yoko Open")
    keep(e, "Yoko Open")
    act(e, "offer Krypto Open", "pass", "pass")
    event = last_event(e, "pass")  # round 1 ends with empty hands; round 2 has no card at all
    assert [s["round"] for s in event["scoring"]] == [1, 2]
    assert event["scoring"][1]["ranking"] == [] and event["scoring"][1]["payouts"] == [0, 0, 0]
    # Seed: each paid 1; round 1 paid Yoko 30 and Krypto 20.
    assert e.money == [129, 129, 119]
    assert e.phase == OVER


def test_values_accumulate_and_pay_only_for_artists_ranked_this_round():
    # Classic rules, everybody passes: every seller keeps its own painting free.
    hands = [["Yoko Open"], ["Yoko Open"], ["Krypto Open"], ["Lite Metal Open"]]
    e = new(hands, first=1, ruleset="classic", rounds=2, refill=2)
    for card in ("Yoko Open", "Krypto Open", "Lite Metal Open", "Yoko Open"):  # seats 1, 2, 3, 0
        keep(e, card)
    # Round 1: Yoko 2 (30); Krypto and Lite Metal 1: Lite Metal 20, Krypto 10.
    assert e.values == [20, 30, 0, 0, 10]
    assert e.money == [130, 130, 110, 120]
    deal(
        e,
        [
            ["Christin P. Open", "Christin P. Open"],
            ["Karl Gitter Open", "Karl Gitter Open"],
            ["Krypto Open", "Krypto Once Around"],
            ["Yoko Once Around", "Lite Metal Once Around"],
        ],
    )
    assert e.current_player() == 1  # all hands emptied; the last seller was seat 0
    for card in (
        "Karl Gitter Open",
        "Krypto Open",
        "Yoko Once Around",
        "Christin P. Open",
        "Karl Gitter Open",
        "Krypto Once Around",
        "Lite Metal Once Around",
        "Christin P. Open",
    ):
        keep(e, card)
    # Round 2: Christin P., Karl Gitter and Krypto 2 each (board order: 30, 20, 10); Yoko and
    # Lite Metal 1 each are not ranked. Values: Christin 30, Karl 20, Krypto 10 + 10 = 20;
    # Yoko keeps 30 and Lite Metal 20 but they pay nothing this round.
    assert e.values == [20, 30, 30, 20, 20]
    # Payouts: seat 0 two Christin 60; seat 1 two Karl 40; seat 2 two Krypto 40; seat 3 a Yoko
    # and a Lite Metal, unranked: 0.
    assert e.money == [190, 170, 150, 120]
    assert e.phase == OVER
    assert e.returns() == [4.0, 0.0, 0.0, 0.0]


def test_a_seller_with_an_empty_hand_is_skipped():
    hands = [
        ["Yoko Double", "Yoko Open"],
        ["Krypto Open", "Krypto Open"],
        ["Christin P. Open", "Christin P. Open"],
    ]
    e = new(hands, ruleset="classic")
    act(e, "offer Yoko Double with Open", "pass", "pass", "pass")  # seat 0 empties its hand
    keep(e, "Krypto Open")  # seat 1
    keep(e, "Christin P. Open")  # seat 2
    assert e.hand_size == [0, 1, 1]
    assert (e.seller, e.current_player()) == (1, 1)  # seat 0 skipped


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("ruleset", ["seed", "classic"])
def test_deal_and_refill_sizes(players, ruleset):
    params = MODERN_ART.validate_params({"players": players, "ruleset": ruleset})
    deal_size = {3: 11 if ruleset == "seed" else 10, 4: 9, 5: 8}[players]
    refill = {3: 6, 4: 4, 5: 3}[players]
    rng = random.Random(players)
    e = MODERN_ART.new_engine(params)
    dealt_by_round = [[0] * players for _ in range(4)]
    while not e.is_terminal():
        if e.phase == DEAL:
            dealt_by_round[e.round][e.deal_seat] += 1
        e.apply(e.sample_chance(rng) if e.is_chance() else rng.choice(e.legal_actions()))
    # Rounds 2 and 3 start with a refill; round 4 does not.
    assert dealt_by_round == [[deal_size] * players] + [[refill] * players] * 2 + [[0] * players]
    assert e.deck_size == 70 - players * (deal_size + 2 * refill)


# --- end of the game -------------------------------------------------------------------------
def test_four_rounds_then_the_points_table():
    # Classic rules, 3 players, deal 3, refill 2; nobody ever bids, so each seller keeps its
    # own painting free and only payouts change money.
    e = new(
        [
            ["Yoko Open", "Yoko Open", "Yoko Once Around"],
            ["Yoko Sealed", "Yoko Sealed", "Krypto Open"],
            ["Yoko Once Around", "Krypto Open", "Krypto Open"],
        ],
        ruleset="classic",
        rounds=4,
        refill=2,
    )
    for card in ("Yoko Open", "Yoko Sealed", "Yoko Once Around", "Yoko Open", "Yoko Sealed"):
        keep(e, card)  # sellers 0, 1, 2, 0, 1: the fifth Yoko (seat 1) is void
    # Round 1: Yoko 30; bought: seat 0 two, seats 1 and 2 one each.
    assert e.money == [160, 130, 130] and e.round == 1
    deal(
        e,
        [
            ["Krypto Sealed", "Krypto Once Around"],
            ["Lite Metal Open", "Lite Metal Open"],
            ["Lite Metal Sealed", "Lite Metal Once Around"],
        ],
    )
    assert e.current_player() == 2
    for card in (
        "Krypto Open",
        "Krypto Sealed",
        "Krypto Open",
        "Krypto Open",
        "Krypto Once Around",
    ):
        keep(e, card)  # sellers 2, 0, 1, 2, 0: the fifth Krypto (seat 0) is void
    # Round 2: Krypto 30; bought: seat 2 two, seats 0 and 1 one each.
    assert e.money == [190, 160, 190]
    deal(
        e,
        [
            ["Lite Metal Once Around", "Yoko Sealed"],
            ["Krypto Open", "Krypto Sealed"],
            ["Christin P. Open", "Christin P. Open"],
        ],
    )
    assert e.current_player() == 1
    for card in (
        "Lite Metal Open",
        "Lite Metal Sealed",
        "Lite Metal Once Around",
        "Lite Metal Open",
        "Lite Metal Once Around",
    ):
        keep(e, card)  # sellers 1, 2, 0, 1, 2: the fifth Lite Metal (seat 2) is void
    # Round 3: Lite Metal 30; bought: seat 1 two, seats 0 and 2 one each.
    assert e.money == [220, 220, 220]
    assert e.phase == PLAY and e.current_player() == 0  # no refill before round 4
    assert e.hand_size == [2, 2, 2]
    for card in (
        "Yoko Once Around",
        "Krypto Open",
        "Christin P. Open",
        "Yoko Sealed",
        "Krypto Sealed",
        "Christin P. Open",
    ):
        keep(e, card)
    # Round 4: Yoko, Christin P. and Krypto 2 each: Yoko 30 (value 60), Christin P. 20 (20),
    # Krypto 10 (40). Payouts: seat 0 two Yoko 120, seat 1 two Krypto 80, seat 2 two Christin
    # 40: 340, 300, 260.
    assert e.values == [30, 60, 20, 0, 40]
    assert e.money == [340, 300, 260]
    assert e.phase == OVER and e.is_terminal()
    assert e.returns() == [3.0, 0.0, 0.0]  # 3 players: the first gets 3


@pytest.mark.parametrize(
    "money, points",
    [
        ([10, 10, 5, 3, 1], [4.5, 4.5, 0, 0, 0]),  # tied first share 5 + 4
        ([10, 8, 8, 1, 0], [5, 2, 2, 0, 0]),  # tied second share 4 + 0
        ([7, 7, 7, 1, 1], [3, 3, 3, 0, 0]),  # three tied first share 5 + 4 + 0
        ([0, 9, 0, 0, 0], [1, 5, 1, 1, 1]),  # four tied second share 4
        ([50, 50, 10, 0], [2, 2, 0, 0]),
        ([5, 5, 5, 5], [1, 1, 1, 1]),
        ([9, 3, 9], [1.5, 0, 1.5]),
        ([1, 2, 3], [0, 0, 3]),
    ],
)
def test_points_table_with_ties(money, points):
    table = {3: (3, 0, 0), 4: (4, 0, 0, 0), 5: (5, 4, 0, 0, 0)}[len(money)]
    assert share_points(money, table) == points


def test_money_payoff_returns_final_money():
    e = new([["Yoko Open"], ["Krypto Open"], ["Krypto Open"]], payoff="money")
    keep(e, "Yoko Open")
    keep(e, "Krypto Open")
    keep(e, "Krypto Open")
    # Seed: each paid 1 for its own painting; Krypto 2 is first (30 each), Yoko second (20).
    assert e.returns() == [119.0, 129.0, 129.0]


# --- parameters, encoding, information sets --------------------------------------------------
@pytest.mark.parametrize("players, cap", [(3, 2700), (4, 2800), (5, 2900)])
def test_money_cap_and_action_count(players, cap):
    params = MODERN_ART.validate_params({"players": players})
    numbers = MODERN_ART.numbers(params)
    # players * 100 + 4 paintings * 60 per round * (1 + 2 + 3 + 4)
    assert MODERN_ART.config(params).max_money == cap == players * 100 + 4 * 60 * 10
    assert numbers.num_distinct_actions == AMOUNT_BASE + cap + 1
    assert numbers.max_utility == {3: 3, 4: 4, 5: 5}[players]


def test_invalid_parameter_combinations_name_the_parameter():
    with pytest.raises(games.InvalidParams, match="deal"):
        MODERN_ART.validate_params({"deal": 0})
    with pytest.raises(games.InvalidParams, match="deal"):
        MODERN_ART.validate_params({"players": 5, "deal": 12})  # 5 * (12 + 3 + 3) > 70
    with pytest.raises(games.InvalidParams, match="deal"):
        MODERN_ART.validate_params({"artists": 1, "cards_per_artist": 5, "players": 3})
    small = {"artists": 1, "cards_per_artist": 6, "players": 3, "deal": 2, "refill": 0}
    # One artist, six cards cycling Open, Once Around, Sealed, Fixed, Double, Open.
    assert MODERN_ART.config(MODERN_ART.validate_params(small)).deck == (2, 1, 1, 1, 1)


def test_action_structs_and_strings():
    e = way_2_game("seed")
    add = MODERN_ART.string_to_action(e, "add Yoko Fixed")
    assert MODERN_ART.action_to_struct(e, 1, add) == {
        "type": "add",
        "artist": "Yoko",
        "auction": "Fixed",
    }
    with pytest.raises(InvalidAction, match="amount"):
        MODERN_ART.struct_to_action(e, {"type": "bid", "amount": "ten"})
    with pytest.raises(InvalidAction):
        MODERN_ART.struct_to_action(e, {"type": "add", "artist": "Krypto", "auction": "Fixed"})
    e = new(table(["Yoko Double", "Yoko Sealed"], 3))
    pair = MODERN_ART.struct_to_action(
        e, {"type": "offer_double", "artist": "Yoko", "partner": "Sealed"}
    )
    assert MODERN_ART.action_to_string(e, 0, pair) == "offer Yoko Double with Sealed"


def scripted_midgame() -> tuple[ModernArtEngine, dict]:
    """Seat 2 sells a Yoko Open dealt to it; seat 0 auctions a Krypto Sealed, seats 0 and 1 bid."""
    hands = [
        ["Krypto Open", "Lite Metal Fixed", "Krypto Sealed"],
        ["Karl Gitter Fixed", "Krypto Sealed", "Christin P. Once Around"],
        ["Yoko Open", "Yoko Sealed", "Lite Metal Double"],
    ]
    e = new(hands, first=2, rounds=2, refill=1)
    act(e, "offer Yoko Open", "bid 30", "pass", "pass")  # seat 0 pays 30 to seat 2
    act(e, "offer Krypto Sealed", "sealed bid 12", "sealed bid 40")  # seat 0 auctions
    return e, MODERN_ART.validate_params({"players": 3, "deal": 3, "rounds": 2, "refill": 1})


def test_infoset_shows_own_cards_public_events_and_money_only():
    e, params = scripted_midgame()
    infoset = build_infoset(MODERN_ART, params, e, 0)
    text = json.dumps(infoset)
    assert [p.get("artist") for p in infoset["private"][:3]] == ["Krypto", "Lite Metal", "Krypto"]
    assert infoset["private"][-1] == {"at": len(e.history) - 2, "amount": 12}
    assert "Karl Gitter" not in text and "Christin" not in text  # seat 1's unplayed cards
    assert "deck" not in infoset["view"] and "40" not in json.dumps(infoset["events"][-1])
    assert infoset["view"]["money"] == [70, 100, 130]  # every payment is public
    assert infoset["view"]["hand"] == {"Lite Metal Fixed": 1, "Krypto Open": 1}


def test_sampler_deals_played_cards_to_their_players_and_fills_hidden_bids():
    e, params = scripted_midgame()
    game = pyspiel.load_game("modern_art", params)
    infoset = build_infoset(MODERN_ART, params, e, 2)  # seat 2 has not bid yet
    hands_1 = set()
    bids = set()
    for seed in range(40):
        sampled = games.sample_engine(MODERN_ART, params, infoset, random.Random(seed))
        # Seat 0's Krypto Sealed was dealt to seat 0 in every world (checked by the replay).
        assert sampled.hand_size == e.hand_size
        assert sampled.hands[2] == e.hands[2]
        assert sampled.money == e.money
        hands_1.add(tuple(sampled.hands[1]))
        bids.add(tuple(sampled.bids[:2]))
        assert 0 <= sampled.bids[0] <= 70 and 0 <= sampled.bids[1] <= 100
    assert len(hands_1) > 10 and len(bids) > 30

    # A prior that puts all weight on 7 fills both hidden bids with 7.
    def only_seven(engine, candidates):
        return [1.0 if a == AMOUNT_BASE + 7 else 0.0 for a in candidates]

    state = games.sample_state(game, infoset, seed=3, prior=only_seven)
    assert state.engine.bids[:2] == [7, 7]


def test_sampler_uses_revealed_bids_and_rejects_impossible_plays():
    e, params = scripted_midgame()
    act(e, "sealed bid 3")
    infoset = build_infoset(MODERN_ART, params, e, 2)
    for seed in range(5):
        sampled = games.sample_engine(MODERN_ART, params, infoset, random.Random(seed))
        assert sampled.history[-3:] == e.history[-3:]
    # Claim seat 1 played a card of an artist this game does not have.
    bad = json.loads(json.dumps(infoset))
    at = next(i for i, ev in enumerate(bad["events"]) if ev.get("artist") == "Krypto")
    bad["events"][at]["artist"] = "Nobody"
    with pytest.raises(InvalidInfoset, match=rf"events\[{at}\]"):
        games.sample_engine(MODERN_ART, params, bad, random.Random(0))
    # Claim seat 0 offered its Krypto as an Open auction: the sealed bids that follow no
    # longer fit.
    bad = json.loads(json.dumps(infoset))
    bad["events"][at]["auction"] = "Open"
    with pytest.raises(InvalidInfoset):
        games.sample_engine(MODERN_ART, params, bad, random.Random(0))


FULL_GAMES = [(p, r) for p in (3, 4, 5) for r in ("seed", "classic")]


@pytest.mark.parametrize("players, ruleset", FULL_GAMES)
def test_full_game_random_playouts_keep_every_invariant(players, ruleset):
    params = MODERN_ART.validate_params({"players": players, "ruleset": ruleset})
    cfg = MODERN_ART.config(params)
    game = pyspiel.load_game("modern_art", params)
    rng = random.Random(players * 10 + len(ruleset))
    checked = 0
    for _ in range(3):
        e = MODERN_ART.new_engine(params)
        while not e.is_terminal():
            assert all(0 <= m <= cfg.max_money for m in e.money)
            held = [sum(h[k] for h in e.hands) for k in range(cfg.kinds)]
            assert [d + h + s for d, h, s in zip(e.deck, held, e.seen, strict=True)] == list(
                cfg.deck
            )
            if rng.random() < 0.01:  # a few information-set round trips, every seat
                for seat in range(players):
                    infoset = build_infoset(MODERN_ART, params, e, seat)
                    sampled = games.sample_state(game, infoset, seed=checked)
                    assert sampled.to_observation_struct(seat).to_dict() == infoset
                    checked += 1
            e.apply(e.sample_chance(rng) if e.is_chance() else rng.choice(e.legal_actions()))
        events = build_infoset(MODERN_ART, params, e, 0, with_view=False)["events"]
        assert {ev["type"] for ev in events} <= set(MODERN_ART.event_types)
        returns = e.returns()
        assert sum(returns) == pytest.approx(sum(cfg.points_table))
        assert all(0 <= r <= cfg.points_table[0] for r in returns)
        assert e.round == 4
    assert checked >= players


@pytest.mark.slow
@pytest.mark.timeout(7200)
@pytest.mark.parametrize("players, ruleset", FULL_GAMES)
def test_full_game_passes_the_whole_conformance_suite(players, ruleset):
    """The shared suite on the full game (tens of minutes for 5 players; ``-m slow``)."""
    from tests import test_conformance as suite

    game = pyspiel.load_game("modern_art", {"players": players, "ruleset": ruleset})
    assert suite.run_game_checks(game) == list(suite.GAME_CHECKS)
    assert len(suite.GAME_CHECKS) == suite.GAME_CHECK_COUNT


def _reference_payments(engine, buyer: int, price: int) -> list:
    """``payments`` as written before issue 40's per-case form, kept to pin it."""
    own, partner = engine.seller_shares(price)
    out = []
    bank = None
    seats = [(engine.auctioneer, own)]
    if engine.partner_shares():
        seats.append((engine.partner, partner))
    for seat, share in seats:
        if seat == buyer:
            bank = share
        else:
            out.append((buyer, seat, share))
    if bank is not None:
        out.append((buyer, -1, bank))
    return out


@pytest.mark.parametrize("ruleset", ["seed", "classic"])
def test_payments_equal_their_reference_for_every_buyer_and_partner(ruleset):
    # Every auctioneer, partner (none, or any other seat) and buyer, odd and even prices.
    import games

    defn = games.definition("modern_art")
    engine = defn.new_engine(defn.validate_params({"players": 4, "ruleset": ruleset}))
    for x in range(4):
        for partner in range(-1, 4):
            if partner == x:
                continue
            engine.auctioneer, engine.partner = x, partner
            for buyer in range(4):
                for price in (0, 1, 7, 30):
                    got = engine.payments(buyer, price)
                    assert got == _reference_payments(engine, buyer, price)


def test_offers_partners_and_ranking_equal_their_reference_forms():
    # The engine's index loops (typed when compiled) against the forms they replaced: offers
    # by ``compress`` over the id tables, the ranking by a stable keyed sort. Random hands
    # with every artist's counts this round, and every count vector of up to five cards.
    from itertools import compress, product

    from games.modern_art.actions import ADD_IDS, OFFER_IDS, PAIR_IDS
    from games.modern_art.cards import DOUBLE, NUM_TYPES, ROUND_END_COUNT
    from games.modern_art.engine import offer_actions, partner_actions, ranked_artists

    def offers(hand, counts):
        out = list(compress(OFFER_IDS, hand))
        for a in compress(range(len(counts)), hand[DOUBLE::NUM_TYPES]):
            if counts[a] + 1 < ROUND_END_COUNT:
                out.extend(compress(PAIR_IDS[a], hand[a * NUM_TYPES : a * NUM_TYPES + DOUBLE]))
        return out

    rng = random.Random(7)
    for _ in range(3000):
        artists = rng.choice((3, 4, 5))
        hand = [rng.choice((0, 0, 1, 2)) for _ in range(artists * NUM_TYPES)]
        counts = [rng.randrange(5) for _ in range(artists)]
        assert offer_actions(hand, counts) == offers(hand, counts)
        artist = rng.randrange(artists)
        base = artist * NUM_TYPES
        assert partner_actions(hand, artist) == [PASS, *compress(ADD_IDS, hand[base : base + 4])]
    for counts in product(range(6), repeat=5):
        present = [a for a in range(5) if counts[a]]
        present.sort(key=counts.__getitem__, reverse=True)
        for places in (1, 3):
            assert ranked_artists(list(counts), places) == present[:places]
