"""Detective Eye rules, one scripted test per clause; chance outcomes are driven explicitly.

Actions go through the JSON structs a client would send (``struct_to_action``), so the tests
read like the game and check the action encoding on the way.
"""

from __future__ import annotations

import random

import pytest

import games
from games.core.infoset import build_infoset, sample_engine
from games.detective_eye import DETECTIVE_EYE, SMALL_VARIANT
from games.detective_eye.engine import BID, DISCARD, FIRST, FLIP, OVER, TURN, DetectiveEyeEngine

M, G, V = "Monet", "van Gogh", "Vermeer"
DEFN = DETECTIVE_EYE


# --- helpers ---------------------------------------------------------------------------------
def new(players: int = 2, **params) -> tuple[dict, DetectiveEyeEngine]:
    full = DEFN.validate_params({"players": players, **params})
    return full, DEFN.new_engine(full)


def act(e: DetectiveEyeEngine, struct: dict) -> None:
    e.apply(DEFN.struct_to_action(e, struct))


def deal(e: DetectiveEyeEngine, *hands: dict) -> None:
    for seat, hand in enumerate(hands):
        act(e, {"type": "deal", "seat": seat, "cards": hand})


def draft(e: DetectiveEyeEngine, *passes: dict) -> None:
    for cards in passes:
        act(e, {"type": "pass_cards", "cards": cards})


def start(e: DetectiveEyeEngine, seat: int) -> None:
    act(e, {"type": "start_player", "seat": seat})


def place(e: DetectiveEyeEngine, card: str) -> None:
    act(e, {"type": "place", "card": card})


def declare(e: DetectiveEyeEngine, painter: str, quantity: int) -> None:
    act(e, {"type": "declare", "painter": painter, "quantity": quantity})


def bid(e: DetectiveEyeEngine, painter: str, quantity: int) -> None:
    act(e, {"type": "raise", "painter": painter, "quantity": quantity})


def pass_(e: DetectiveEyeEngine) -> None:
    act(e, {"type": "pass"})


def flip(e: DetectiveEyeEngine, owner: int, position: int) -> None:
    act(e, {"type": "flip", "owner": owner, "position": position})


def discard(e: DetectiveEyeEngine, card: str) -> None:
    act(e, {"type": "discard", "card": card})


def hand(e: DetectiveEyeEngine, seat: int) -> dict[str, int]:
    return {e.names[c]: k for c, k in enumerate(e.owned[seat]) if k}


def privates(params: dict, e: DetectiveEyeEngine, seat: int) -> dict[int, dict]:
    info = build_infoset(DEFN, params, e, seat, with_view=False)
    return {p["at"]: {k: v for k, v in p.items() if k != "at"} for p in info["private"]}


def two_player_game(**params) -> tuple[dict, DetectiveEyeEngine]:
    """2 players after the draft: seat 0 holds M2 G1 V2, seat 1 holds M2 G1 V2; seat 0 starts."""
    full, e = new(2, **params)
    deal(e, {M: 3, G: 2}, {M: 1, V: 4})
    draft(e, {M: 1, G: 1}, {V: 2})
    start(e, 0)
    assert hand(e, 0) == {M: 2, G: 1, V: 2} and hand(e, 1) == {M: 2, G: 1, V: 2}
    return full, e


def three_player_game(**params) -> tuple[dict, DetectiveEyeEngine]:
    """3 players, no draft: seat 0 M3 G2, seat 1 M3 V2, seat 2 M2 G1 V2; seat 0 starts."""
    full, e = new(3, draft_size=0, **params)
    deal(e, {M: 3, G: 2}, {M: 3, V: 2}, {M: 2, G: 1, V: 2})
    start(e, 0)
    return full, e


def failing_round(e: DetectiveEyeEngine, challenger: int) -> None:
    """A round that ``challenger`` ends by flipping a card that is not the declared painter."""
    n = e.num_players
    for _ in range(n):
        place(e, e.names[e.legal_actions()[0]])
    other = (challenger + 1) % n
    wrong = e.names[(e.rows[other][0] + 1) % e.painters]  # not the card at (other, 0)
    declare(e, wrong, 1)  # the start player, who may be the challenger
    while e.phase == BID:
        if e.player == challenger:
            bid(e, wrong, 2)
        else:
            pass_(e)
    assert e.phase == FLIP and e.player == challenger
    flip(e, other, 0)


# --- setup and the draft ---------------------------------------------------------------------
def test_two_player_draft_is_simultaneous_and_received_together():
    params, e = new(2)
    deal(e, {M: 3, G: 2}, {M: 1, V: 4})
    assert e.hands[1] == [1, 0, 4]
    draft(e, {M: 1, G: 1})
    # Seat 1 chooses from its own dealt hand and does not know what seat 0 passed.
    assert e.player == 1 and e.hands[1] == [1, 0, 4]
    assert privates(params, e, 1) == {1: {"cards": {M: 1, V: 4}}}
    assert privates(params, e, 0)[2] == {"passed": {M: 1, G: 1}}
    draft(e, {V: 2})
    assert hand(e, 0) == {M: 2, G: 1, V: 2}
    assert hand(e, 1) == {M: 2, G: 1, V: 2}
    assert privates(params, e, 0)[3] == {"received": {V: 2}}
    assert privates(params, e, 1)[3] == {"passed": {V: 2}, "received": {M: 1, G: 1}}
    info = build_infoset(DEFN, params, e, 0)
    assert info["events"][2:4] == [
        {"type": "pass_cards", "seat": 0, "cards": 2},
        {"type": "pass_cards", "seat": 1, "cards": 2},
    ]
    assert info["view"]["passed"] == {M: 1, G: 1} and info["view"]["received"] == {V: 2}


def test_cannot_pass_cards_not_held():
    _, e = new(2)
    deal(e, {M: 5}, {G: 5})
    with pytest.raises(games.InvalidAction):
        draft(e, {G: 2})
    assert [DEFN.action_to_struct(e, 0, a)["cards"] for a in e.legal_actions()] == [{M: 2}]


def test_four_player_draft_goes_to_the_next_seat():
    params, e = new(4)
    deal(e, {M: 5}, {G: 5}, {V: 5}, {M: 2, G: 2, V: 1})
    draft(e, {M: 2}, {G: 2})
    # Seat 2 is to pass next: it has not yet learnt what seat 1 passed to it.
    assert e.player == 2 and privates(params, e, 2) == {2: {"cards": {V: 5}}}
    draft(e, {V: 2}, {G: 1, V: 1})
    assert hand(e, 0) == {M: 3, G: 1, V: 1}  # from seat 3
    assert hand(e, 1) == {M: 2, G: 3}  # from seat 0
    assert hand(e, 2) == {G: 2, V: 3}  # from seat 1
    assert hand(e, 3) == {M: 2, G: 1, V: 2}  # from seat 2
    for seat, got in enumerate(({G: 1, V: 1}, {M: 2}, {G: 2}, {V: 2})):
        assert privates(params, e, seat)[7]["received"] == got
    start(e, 2)
    # First placements go in seat order, then turns start with the start player.
    assert e.phase == FIRST and e.player == 0
    for card in (M, M, G, V):
        place(e, card)
    assert e.phase == TURN and e.player == 2


def test_no_draft_variant_skips_the_passes():
    _, e = new(2, draft_size=0)
    deal(e, {M: 5}, {G: 5})
    assert e.is_chance() and e.legal_actions() == [0, 1]  # the start player


# --- turns and bidding -----------------------------------------------------------------------
def test_placements_are_hidden_but_flips_are_public():
    params, e = two_player_game()
    place(e, V)
    place(e, G)
    seen_by_1 = build_infoset(DEFN, params, e, 1)
    assert seen_by_1["events"][-2] == {"type": "place", "seat": 0, "position": 0}
    assert 5 not in privates(params, e, 1) and privates(params, e, 0)[5] == {"card": V}
    assert seen_by_1["view"]["rows"] == [[None], [G]]
    declare(e, V, 2)  # the most possible with 2 cards down: the challenge starts at once
    assert e.phase == FLIP
    flip(e, 0, 0)
    flip(e, 1, 0)
    events = build_infoset(DEFN, params, e, 1)["events"]
    assert events[-2] == {"type": "flip", "seat": 0, "owner": 0, "position": 0, "card": V}
    assert events[-1] == {
        "type": "flip",
        "seat": 0,
        "owner": 1,
        "position": 0,
        "card": G,
        "outcome": "failure",
    }


def test_forced_declare_on_an_empty_hand_and_the_quantity_cap():
    _, e = two_player_game()
    place(e, M)
    place(e, M)
    for card in (M, V, V, G, G, V, V, M):  # both seats place everything, in turn
        place(e, card)
    assert e.player == 0 and sum(e.hands[0]) == 0 and e.table == 10
    legal = e.legal_actions()
    assert all(a >= e.bid_base for a in legal) and len(legal) == 3 * 10
    structs = [DEFN.action_to_struct(e, 0, a) for a in legal]
    assert {s["type"] for s in structs} == {"declare"}
    assert max(s["quantity"] for s in structs) == 10
    with pytest.raises(games.InvalidAction):
        declare(e, M, 11)
    declare(e, M, 10)  # the most possible: nobody can raise, the challenge starts at once
    assert e.phase == FLIP and e.player == 0


def test_raise_may_change_painter_and_must_raise_the_quantity():
    _, e = two_player_game()
    place(e, M)
    place(e, M)
    place(e, V)
    place(e, G)
    place(e, V)
    declare(e, M, 2)  # seat 1 declares; the bidding goes on from seat 0
    assert e.phase == BID and e.player == 0
    bid(e, V, 3)
    assert (e.bid_painter, e.bid_quantity, e.bidder, e.player) == (2, 3, 0, 1)
    with pytest.raises(games.InvalidAction):
        bid(e, M, 3)  # the same quantity is not a raise
    pass_(e)
    assert e.phase == FLIP and e.player == 0  # the last bidder standing challenges


def test_a_pass_is_final_for_the_bidding():
    _, e = three_player_game()
    for card in (M, M, M):
        place(e, card)
    place(e, M)  # seat 0: table of 4
    declare(e, M, 1)  # seat 1
    pass_(e)  # seat 2 is out of this bidding
    bid(e, M, 2)  # seat 0
    bid(e, G, 3)  # seat 1: seat 2 passed, so seat 0 answers
    assert e.player == 0
    pass_(e)
    assert e.phase == FLIP and e.player == 1


def test_example_round_from_the_docs():
    _, e = two_player_game()
    place(e, M)
    place(e, M)
    place(e, V)  # seat 0
    place(e, G)  # seat 1
    declare(e, M, 2)  # seat 0
    bid(e, V, 3)  # seat 1 changes painter
    pass_(e)  # seat 0
    assert e.phase == FLIP and e.player == 1
    flip(e, 0, 1)  # seat 0's Vermeer
    assert e.found == 1
    flip(e, 0, 0)  # seat 0's Monet: failure
    assert e.misses == [0, 1] and e.phase == FIRST and e.start == 0
    assert hand(e, 0) == {M: 2, G: 1, V: 2} and sum(e.hands[1]) == 5


# --- challenges ------------------------------------------------------------------------------
def test_success_across_two_owners_discards_two():
    params, e = two_player_game()
    place(e, M)
    place(e, M)
    declare(e, M, 2)
    flip(e, 0, 0)
    assert e.phase == FLIP and e.found == 1
    flip(e, 1, 0)
    assert e.phase == DISCARD and e.discards_left == 2 and e.player == 0
    assert [DEFN.action_to_string(e, 0, a) for a in e.legal_actions()] == [
        "discard Monet",
        "discard van Gogh",
        "discard Vermeer",
    ]
    discard(e, G)
    discard(e, V)
    assert hand(e, 0) == {M: 2, V: 1} and hand(e, 1) == {M: 2, G: 1, V: 2}
    assert e.discard_pile == [0, 1, 1]
    assert e.phase == FIRST and e.start == 1 and e.round == 1
    view = build_infoset(DEFN, params, e, 1)["view"]
    assert view["discard"] == {G: 1, V: 1} and view["hand_sizes"] == [3, 5]


def test_success_across_one_owner_discards_one():
    _, e = two_player_game()
    place(e, M)
    place(e, G)
    place(e, M)  # seat 0's second Monet
    declare(e, M, 2)  # seat 1
    pass_(e)  # seat 0 lets seat 1 challenge
    assert e.player == 1
    flip(e, 0, 0)
    flip(e, 0, 1)
    assert e.phase == DISCARD and e.discards_left == 1 and e.player == 1
    discard(e, V)
    assert hand(e, 1) == {M: 2, G: 1, V: 1}
    assert e.start == 0  # the seat after the challenger


def test_flipping_own_cards_counts_the_challenger_as_an_owner():
    _, e = two_player_game()
    place(e, V)
    place(e, V)
    declare(e, V, 2)
    flip(e, 0, 0)  # its own card: the challenger counts itself
    flip(e, 1, 0)
    assert e.phase == DISCARD and e.discards_left == 2


def test_failure_adds_a_miss_and_the_second_takes_a_forgery():
    params, e = three_player_game()
    failing_round(e, 0)
    assert e.misses == [1, 0, 0] and e.held == [0, 0, 0] and e.forgeries == 3
    assert all(not row for row in e.rows) and hand(e, 0) == {M: 3, G: 2}  # cards went back
    assert e.start == 1
    failing_round(e, 0)
    assert e.misses == [0, 0, 0] and e.held == [1, 0, 0] and e.forgeries == 2
    view = build_infoset(DEFN, params, e, 2)["view"]
    assert view["forgeries_held"] == [1, 0, 0] and view["forgery_supply"] == 2


def test_success_while_holding_forgeries_returns_them_first():
    """The seed's example: holding 2 forgeries and succeeding on 3, return both, discard 1."""
    _, e = three_player_game()
    for _ in range(4):
        failing_round(e, 0)
    assert e.held == [2, 0, 0] and e.forgeries == 1 and e.start == 1
    for card in (M, M, M):
        place(e, card)
    declare(e, M, 1)  # seat 1
    pass_(e)  # seat 2
    bid(e, M, 3)  # seat 0: the most possible, the challenge starts at once
    for owner in range(3):
        flip(e, owner, 0)
    assert e.held == [0, 0, 0] and e.forgeries == 3
    assert e.phase == DISCARD and e.discards_left == 1
    discard(e, G)
    assert hand(e, 0) == {M: 3, G: 1}


def test_success_returning_every_forgery_discards_nothing():
    _, e = three_player_game()
    for _ in range(2):
        failing_round(e, 0)
    assert e.held == [1, 0, 0] and e.start == 1
    for card in (M, M, M):
        place(e, card)
    place(e, V)  # seat 1
    place(e, G)  # seat 2
    declare(e, M, 1)  # seat 0
    pass_(e)
    pass_(e)
    flip(e, 0, 0)  # one owner: the one forgery held goes back, nothing is discarded
    assert e.held == [0, 0, 0] and e.forgeries == 3
    assert e.phase == FIRST and hand(e, 0) == {M: 3, G: 2} and e.start == 1


def test_reaching_one_card_wins_at_once():
    params, e = two_player_game()
    place(e, M)
    place(e, M)
    declare(e, M, 2)
    flip(e, 0, 0)
    flip(e, 1, 0)
    discard(e, G)
    discard(e, V)
    assert sum(e.owned[0]) == 3 and e.start == 1
    place(e, M)
    place(e, M)
    declare(e, V, 1)  # seat 1 starts this round
    bid(e, M, 2)  # seat 0: the most possible
    flip(e, 1, 0)
    flip(e, 0, 0)
    assert e.phase == OVER and e.winners == [0] and e.returns() == [1.0, -1.0]
    assert build_infoset(DEFN, params, e, 1)["view"]["end"] == "one_card"


# --- the end of the game ---------------------------------------------------------------------
def test_forced_end_when_the_supply_is_empty_ties_share():
    _, e = three_player_game(forgeries=1)
    failing_round(e, 0)
    failing_round(e, 0)
    assert e.phase == OVER and e.forgeries == 0 and e.held == [1, 0, 0]
    # Seats 1 and 2 hold no forgery and 5 cards each: they share the win.
    assert e.winners == [1, 2] and e.returns() == [-1.0, 0.5, 0.5]


def test_forced_end_fewest_cards_breaks_the_tie():
    _, e = three_player_game(forgeries=1)
    for card in (M, M, M):
        place(e, card)
    declare(e, M, 1)  # seat 0
    bid(e, M, 2)  # seat 1
    pass_(e)  # seat 2
    pass_(e)  # seat 0
    flip(e, 1, 0)
    flip(e, 2, 0)
    discard(e, V)
    discard(e, V)
    assert sum(e.owned[1]) == 3 and e.start == 2
    failing_round(e, 0)
    failing_round(e, 0)
    assert e.phase == OVER and e.winners == [1] and e.returns() == [-0.5, 1.0, -0.5]


def test_forgeries_count_before_cards_at_the_forced_end():
    _, e = three_player_game(forgeries=2)
    for card in (M, M, M):
        place(e, card)
    declare(e, M, 1)  # seat 0
    bid(e, M, 2)  # seat 1
    pass_(e)  # seat 2
    pass_(e)  # seat 0
    flip(e, 1, 0)
    flip(e, 2, 0)
    discard(e, V)
    discard(e, V)
    failing_round(e, 1)
    failing_round(e, 1)  # seat 1 has the fewest cards but now holds a forgery
    assert e.held == [0, 1, 0] and sum(e.owned[1]) == 3
    failing_round(e, 0)
    failing_round(e, 0)  # the last forgery
    assert e.phase == OVER and e.held == [1, 1, 0] and e.end_reason == 2
    assert e.winners == [2] and e.returns() == [-0.5, -0.5, 1.0]


def test_round_cap_ends_by_the_same_criterion():
    _, e = two_player_game(max_rounds=1)
    failing_round(e, 0)
    assert e.phase == OVER and e.misses == [1, 0]
    assert e.winners == [0, 1] and e.returns() == [0.0, 0.0]  # a draw among all
    _, e = two_player_game(max_rounds=2)
    place(e, M)
    place(e, M)
    declare(e, M, 2)
    flip(e, 0, 0)
    flip(e, 1, 0)
    discard(e, G)
    discard(e, V)
    assert e.phase == FIRST
    failing_round(e, 1)
    assert e.phase == OVER and e.winners == [0] and e.returns() == [1.0, -1.0]


def test_next_start_player_is_the_seat_after_the_last_challenger():
    _, e = three_player_game()
    failing_round(e, 2)
    assert e.start == 0
    failing_round(e, 1)
    assert e.start == 2
    assert e.phase == FIRST and e.player == 0  # first placements still go in seat order
    for card in (M, M, M):
        place(e, card)
    assert e.phase == TURN and e.player == 2


def test_game_length_stays_within_the_declared_bound():
    params = DEFN.validate_params({"players": 4, "max_rounds": 3})
    bound = DEFN.numbers(params).max_game_length
    rng = random.Random(5)
    for _ in range(200):
        e = DEFN.new_engine(params)
        while not e.is_terminal():
            legal = e.legal_actions()
            # Slow bidding (the smallest raise) makes the longest rounds.
            e.apply(legal[1] if e.phase == BID and len(legal) > 1 else rng.choice(legal))
        assert len(e.history) <= bound


# --- information sets ------------------------------------------------------------------------
def test_sampled_worlds_respect_passed_and_revealed_cards():
    params, e = two_player_game()
    place(e, V)
    place(e, G)
    declare(e, V, 2)
    flip(e, 0, 0)
    flip(e, 1, 0)  # seat 1's van Gogh is revealed; the round ends
    info = build_infoset(DEFN, params, e, 0)
    worlds = set()
    for seed in range(30):
        world = sample_engine(DEFN, params, info, random.Random(seed))
        # Seat 1 holds the two cards seat 0 passed it and the van Gogh it showed: one M, one G.
        assert world.owned[1][0] >= 1 and world.owned[1][1] >= 1
        assert world.owned[0] == e.owned[0]  # its own hand is never resampled
        worlds.add(tuple(world.owned[1]))
    assert len(worlds) > 1  # the three other cards vary


def test_sampled_face_down_cards_come_from_the_owners_hand():
    params, e = two_player_game()
    place(e, V)
    place(e, G)
    place(e, M)
    info = build_infoset(DEFN, params, e, 1)
    seen = set()
    for seed in range(30):
        world = sample_engine(DEFN, params, info, random.Random(seed))
        assert world.rows[1] == [1]  # its own card, as it knows it
        assert world.owned[0][2] >= 2  # seat 1 passed two Vermeers to seat 0
        seen.add(tuple(world.rows[0]))
    assert len(seen) > 1


def flipped_infoset() -> tuple[dict, dict]:
    """Seat 1's information set right after a failed flip of its own van Gogh."""
    params, e = two_player_game()
    place(e, V)
    place(e, G)
    declare(e, V, 2)
    flip(e, 1, 0)
    return params, build_infoset(DEFN, params, e, 1, with_view=False)


def test_impossible_reveals_are_rejected_naming_the_event():
    params, info = flipped_infoset()
    assert info["events"][-1]["card"] == G and "outcome" in info["events"][-1]
    info["events"][-1]["card"] = M  # seat 1 knows its own card is a van Gogh
    with pytest.raises(games.InvalidInfoset, match=r"events\[|private\["):
        sample_engine(DEFN, params, info, random.Random(0))


@pytest.mark.parametrize("bad", [[], {}, None, 3, "Picasso"])
def test_a_card_of_the_wrong_type_is_named_not_a_crash(bad):
    """A card field holding a list (unhashable) once escaped as a bare TypeError."""
    params, info = flipped_infoset()
    info["events"][-1]["card"] = bad
    with pytest.raises(games.InvalidInfoset, match=r"events\[\d+\].*field 'card'"):
        sample_engine(DEFN, params, info, random.Random(0))


# --- the small variant -----------------------------------------------------------------------
def test_small_variant_size_matches_the_docs():
    params = DEFN.validate_params(SMALL_VARIANT)
    infosets: list[set] = [set(), set()]
    nodes = 0
    stack = [DEFN.new_engine(params)]
    while stack:
        e = stack.pop()
        nodes += 1
        if e.is_terminal():
            continue
        if not e.is_chance():
            infosets[e.player].add(e.info_key(e.player))
        for a in e.legal_actions():
            child = e.copy()
            child.apply(a)
            stack.append(child)
    assert nodes == 51_133
    assert [len(s) for s in infosets] == [7_233, 7_233]


@pytest.mark.slow
def test_cfr_plus_solves_the_small_variant():
    import pyspiel

    spec = ",".join(f"{k}={v}" for k, v in SMALL_VARIANT.items())
    game = pyspiel.load_game(f"cached_tree(game=detective_eye({spec}))")
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(64):
        solver.evaluate_and_update_policy()
    assert pyspiel.nash_conv(game, solver.average_policy()) < 0.005
