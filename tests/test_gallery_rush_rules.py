"""One scripted test per Gallery Rush rule clause, with chance outcomes driven explicitly.

Card kinds: 0 Monet, 1 van Gogh, 2 Vermeer, 3-5 their forgeries, 6 Mona Lisa. Player actions:
0 explore, 1-5 declare Monet / van Gogh / Vermeer / forgery / Mona Lisa, 6 continue,
7 confirm, 8 pass, 9-12 steal Monet / van Gogh / Vermeer / Mona Lisa.
"""

from __future__ import annotations

import pyspiel
import pytest

import games
from games.gallery_rush.engine import GalleryRushEngine

M, G, V, FM, FG, FV, ML = range(7)
EXPLORE, D_M, D_G, D_V, D_FORGERY, D_ML, CONTINUE, CONFIRM, PASS = range(9)
STEAL_M, STEAL_G, STEAL_V, STEAL_ML = 9, 10, 11, 12


def new(players: int = 3, start: int = 0, max_turns: int = 300) -> GalleryRushEngine:
    engine = GalleryRushEngine(players, max_turns)
    engine.apply(start)  # chance: the start player
    return engine


def play(engine: GalleryRushEngine, *actions: int) -> GalleryRushEngine:
    for action in actions:
        assert action in engine.legal_actions(), (action, engine.legal_actions(), engine.describe())
        engine.apply(action)
    return engine


def collection(engine: GalleryRushEngine, seat: int) -> dict[str, int]:
    return engine.describe()["collections"][seat]


def test_explore_then_confirm_moves_keep_to_collection():
    e = play(new(), EXPLORE, M, CONTINUE, G, CONFIRM)
    assert collection(e, 0) == {"Monet": 1, "van Gogh": 1}
    assert e.current_player() == 1 and e.keep == [0, 0, 0]


def test_explore_bust_discards_keep_and_card():
    e = play(new(), EXPLORE, M, CONTINUE, G, CONTINUE, M)
    assert collection(e, 0) == {}
    assert e.describe()["discard"] == {"Monet": 2, "van Gogh": 1}
    assert e.current_player() == 1


def test_explore_forgery_discards_keep_and_that_painters_collection():
    e = play(new(), EXPLORE, M, CONTINUE, V, CONFIRM)  # seat 0: Monet, Vermeer
    e = play(e, D_G, M, D_V, V)  # seat 1 fails a declaration; seat 2 succeeds on Vermeer ...
    e = play(e, M, M)  # ... with two bonus Monets
    e = play(e, EXPLORE, G, CONTINUE, FM)  # seat 0: keep van Gogh, then the Monet forgery
    assert collection(e, 0) == {"Vermeer": 1}  # Monet gone, Vermeer kept
    assert e.describe()["discard"] == {
        "Monet": 2,
        "van Gogh": 1,
        "Monet forgery": 1,
    }


def test_mona_lisa_on_explore_joins_collection_with_keep():
    e = play(new(), EXPLORE, G, CONTINUE, ML)
    assert collection(e, 0) == {"van Gogh": 1, "Mona Lisa": 1}
    assert e.current_player() == 1


def test_declare_painter_success_draws_two_bonus_cards():
    e = play(new(), D_M, M, V, ML)
    assert collection(e, 0) == {"Monet": 1, "Vermeer": 1, "Mona Lisa": 1}
    assert e.current_player() == 1


def test_bonus_forgery_is_discarded_without_penalty():
    e = play(new(), D_M, M, FM, M)
    assert collection(e, 0) == {"Monet": 2}
    assert e.describe()["discard"] == {"Monet forgery": 1}


def test_declare_painter_wrong_painter_is_discarded():
    e = play(new(), D_M, G)
    assert collection(e, 0) == {}
    assert e.describe()["discard"] == {"van Gogh": 1}


def test_declare_painter_forgery_removes_the_declared_painter_not_the_forgers():
    e = play(new(2), EXPLORE, M, CONTINUE, G, CONFIRM)  # seat 0: Monet, van Gogh
    e = play(e, D_G, M)  # seat 1 fails
    e = play(e, EXPLORE, ML)  # seat 0 adds the Mona Lisa
    e = play(e, D_G, M)  # seat 1 fails again
    e = play(e, D_M, FG)  # seat 0 declares Monet, flips the van Gogh forgery
    assert collection(e, 0) == {"van Gogh": 1, "Mona Lisa": 1}  # Monet lost; ML never lost
    assert e.describe()["discard"]["van Gogh forgery"] == 1


def test_declare_painter_mona_lisa_joins_collection():
    e = play(new(), D_V, ML)
    assert collection(e, 0) == {"Mona Lisa": 1}


def test_declare_forgery_success_steals_by_the_stealers_choice():
    e = play(new(4), EXPLORE, M, CONTINUE, G, CONFIRM)  # seat 0: Monet, van Gogh
    e = play(e, D_M, G)  # seat 1: nothing
    e = play(e, EXPLORE, V, CONFIRM)  # seat 2: Vermeer
    e = play(e, D_FORGERY, FV)  # seat 3 succeeds: seat 1 is empty and skipped
    assert e.describe()["stealing_from"] == [0, 2]
    assert e.legal_actions() == [STEAL_M, STEAL_G]
    e = play(e, STEAL_G)
    assert e.legal_actions() == [STEAL_V]
    e = play(e, STEAL_V)
    assert collection(e, 3) == {"van Gogh": 1, "Vermeer": 1}
    assert collection(e, 0) == {"Monet": 1} and collection(e, 2) == {}
    assert e.current_player() == 0


def test_declare_forgery_with_nobody_to_steal_from_ends_the_turn():
    e = play(new(), D_FORGERY, FM)
    assert e.current_player() == 1


def test_declare_forgery_failure_discards():
    e = play(new(), D_FORGERY, V)
    assert e.describe()["discard"] == {"Vermeer": 1}


def test_declare_mona_lisa_success_wins_at_once():
    e = play(new(3, start=1), D_ML, ML)
    assert e.is_terminal()
    assert e.returns() == [-0.5, 1.0, -0.5]


def test_declare_mona_lisa_failure_discards():
    e = play(new(), D_ML, M)
    assert not e.is_terminal() and e.describe()["discard"] == {"Monet": 1}


def test_third_forgery_in_discard_reshuffles_everything():
    e = play(new(), D_FORGERY, FM, D_FORGERY, FG)  # two forgeries discarded (no victims)
    e = play(e, D_M, G)  # a van Gogh discarded
    assert e.describe()["discard"] == {"van Gogh": 1, "Monet forgery": 1, "van Gogh forgery": 1}
    e = play(e, D_FORGERY, FV)  # the third forgery: after resolving it, shuffle back
    assert e.describe()["discard"] == {}
    assert e.deck_size == 28
    assert e.deck == [8, 8, 8, 1, 1, 1, 1]


def test_reshuffle_happens_between_bonus_draws():
    e = play(new(), D_FORGERY, FM, D_FORGERY, FG)
    e = play(e, D_V, V, FV)  # the first bonus draw is the third forgery: reshuffle now
    assert e.describe()["discard"] == {} and e.deck[FV] == 1
    e = play(e, FV)  # so the second bonus draw can flip that same forgery again
    assert e.describe()["discard"] == {"Vermeer forgery": 1}
    assert collection(e, 2) == {"Vermeer": 1}


def test_four_of_a_painter_qualifies_and_the_round_finishes():
    e = new(3, start=1)
    e = play(e, D_M, M, M, M)  # seat 1: three Monets
    assert not e.qualified[1]
    e = play(e, D_G, M, D_G, M)  # seats 2 and 0 fail
    e = play(e, D_M, M, V, G)  # seat 1: fourth Monet -> qualified
    assert e.qualified[1] and not e.is_terminal()
    e = play(e, D_G, M)  # seat 2 plays on
    assert not e.is_terminal()
    e = play(e, D_G, M)  # seat 0, the seat before the start player, ends the round
    assert e.is_terminal()
    assert e.winners() == [1]


def test_mona_lisa_counts_as_any_painter_for_the_four_goal():
    e = play(new(2), D_M, M, M, ML)  # seat 0: 2 Monets + Mona Lisa = 3
    assert not e.qualified[0]
    e = play(e, D_G, M)
    e = play(e, EXPLORE, M, CONFIRM)  # a third Monet: 3 + Mona Lisa = 4
    assert e.qualified[0]


def test_seven_cards_qualify():
    e = play(new(2), D_M, M, G, V, D_G, M)  # seat 0: 3 cards; seat 1 fails
    e = play(e, D_G, G, V, ML, D_G, M)  # seat 0: 6 cards (M, G, G, V, V, ML)
    assert not e.qualified[0]
    e = play(e, EXPLORE, M, CONFIRM)  # 7 cards (and 2 Monets + ML: 3, not 4)
    assert e.qualified[0]


def test_qualification_is_kept_after_losing_cards():
    e = new(3, start=0)
    e = play(e, D_M, M, M, M, D_G, V)  # seat 0: 3 Monets; seat 1 fails
    e = play(e, D_M, V)  # seat 2 fails
    e = play(e, EXPLORE, M, CONFIRM)  # seat 0: 4 Monets -> qualified
    e = play(e, D_G, V)  # seat 1 fails
    e = play(e, D_FORGERY, FM, STEAL_M)  # seat 2 steals a Monet from seat 0 (seat 1 empty)
    assert e.qualified[0] and collection(e, 0) == {"Monet": 3}
    assert e.is_terminal()  # seat 2 was the last seat of the round
    assert e.winners() == [0]


def test_qualifiers_ranked_by_collection_size_ties_share():
    e = new(3, start=0)
    e = play(e, D_M, M, M, M, D_G, G, G, G, D_V, V, V, V)
    e = play(e, EXPLORE, M, CONFIRM)  # seat 0: 4 Monets
    e = play(e, EXPLORE, G, CONFIRM)  # seat 1: 4 van Goghs
    e = play(e, D_V, G)  # seat 2 fails: 3 Vermeers, not qualified
    assert e.is_terminal()
    assert e.winners() == [0, 1]
    assert e.returns() == [0.5, 0.5, -1.0]


def test_all_players_tied_is_a_draw():
    e = new(2, start=0)
    e = play(e, D_M, M, M, M, D_G, G, G, G)
    e = play(e, EXPLORE, M, CONFIRM, EXPLORE, G, CONFIRM)
    assert e.is_terminal() and e.returns() == [0.0, 0.0]


def test_turn_cap_ranks_everybody():
    e = new(3, start=0, max_turns=3)
    e = play(e, EXPLORE, M, CONFIRM, EXPLORE, G, CONTINUE, V, CONFIRM, D_M, G)
    assert e.is_terminal()
    assert e.winners() == [1]
    assert e.returns() == [-0.5, 1.0, -0.5]


def test_continue_is_allowed_with_three_painters_in_keep_and_then_busts():
    e = play(new(), EXPLORE, M, CONTINUE, G, CONTINUE, V)
    assert CONTINUE in e.legal_actions()
    e = play(e, CONTINUE, G)
    assert e.describe()["discard"] == {"Monet": 1, "van Gogh": 2, "Vermeer": 1}


def test_empty_deck_is_refilled_from_the_discard_and_pass_when_nothing_is_left():
    e = new(2)
    e.deck = [0, 0, 0, 0, 0, 0, 0]  # contrived: every card sits in the discard or nowhere
    e.deck_size = 0
    e.discard = [1, 0, 0, 0, 0, 0, 0]
    play(e, EXPLORE)
    assert e.deck == [1, 0, 0, 0, 0, 0, 0] and e.is_chance()
    play(e, M)
    assert e.legal_actions() == [CONFIRM]  # nothing left to flip: continuing is impossible
    play(e, CONFIRM)
    assert e.legal_actions() == [PASS]


def test_through_pyspiel_and_infoset():
    game = pyspiel.load_game("gallery_rush", {"players": 2})
    state = game.new_initial_state()
    for action in (1, D_M, M, G, V):
        state.apply_action(action)
    infoset = state.to_observation_struct(0).to_dict()
    assert infoset["events"][:3] == [
        {"type": "start_player", "seat": 1},
        {"type": "declare", "call": "Monet", "seat": 1},
        {
            "type": "flip",
            "seat": 1,
            "card": "Monet",
            "outcomes": [{"type": "correct", "call": "Monet", "bonus_draws": 2}],
        },
    ]
    assert infoset["view"]["collections"][1] == {"Monet": 1, "van Gogh": 1, "Vermeer": 1}
    assert games.sample_state(game, infoset, seed=5).history() == state.history()
    with pytest.raises(games.InvalidAction, match="call"):
        state.action_from_struct({"type": "declare", "call": "Picasso"})


# --- narration: every step's event says what it led to ----------------------------------------
def outcomes_of(*actions: int, players: int = 3, start: int = 0) -> list[list[dict]]:
    """The ``outcomes`` of every step after the start player (``[]`` where there are none),
    as the information set tells them (built by replaying the history)."""
    from games.core.infoset import build_infoset

    defn = games.definition("gallery_rush")
    params = defn.validate_params({"players": players})
    engine = play(new(players, start), *actions)
    events = build_infoset(defn, params, engine, 0)["events"]
    return [event.get("outcomes", []) for event in events[1:]]


def test_narration_of_a_bust_names_the_cards_discarded():
    out = outcomes_of(EXPLORE, M, CONTINUE, G, CONTINUE, M)
    assert out[1] == [{"type": "keep"}] and out[3] == [{"type": "keep"}]
    assert out[5] == [{"type": "bust", "discarded": ["Monet", "van Gogh", "Monet"]}]


def test_narration_of_a_forgery_penalty_names_the_paintings_lost():
    steps = (EXPLORE, M, CONTINUE, V, CONFIRM, D_G, M, D_V, V, M, M, EXPLORE, G, CONTINUE, FM)
    out = outcomes_of(*steps)
    assert out[4] == [{"type": "bank", "cards": ["Monet", "Vermeer"]}]
    assert out[-1] == [
        {"type": "forgery_penalty", "painter": "Monet", "lost": 1, "discarded": ["van Gogh"]}
    ]
    # Declaring a painter and flipping any forgery costs that painter's paintings.
    out = outcomes_of(D_M, M, G, V, D_G, M, D_V, M, D_M, FG)
    assert out[-1] == [{"type": "forgery_penalty", "painter": "Monet", "lost": 1, "discarded": []}]


def test_narration_of_a_correct_declaration_and_its_bonus_draws():
    out = outcomes_of(D_M, M, FM, ML)
    assert out[1] == [{"type": "correct", "call": "Monet", "bonus_draws": 2}]
    assert out[2] == [{"type": "bonus", "kept": False, "left": 1}]  # a forgery: no penalty
    assert out[3] == [{"type": "bonus", "kept": True, "left": 0}]
    assert outcomes_of(D_G, M)[1] == [{"type": "discard", "card": "Monet"}]
    assert outcomes_of(D_V, ML)[1] == [{"type": "mona_lisa", "banked": []}]
    assert outcomes_of(EXPLORE, G, CONTINUE, ML)[3] == [
        {"type": "mona_lisa", "banked": ["van Gogh"]}
    ]


def test_narration_of_a_forgery_declaration_lists_the_victims_then_the_steals():
    steps = (EXPLORE, M, CONTINUE, G, CONFIRM, D_M, G, EXPLORE, V, CONFIRM, D_FORGERY, FV)
    out = outcomes_of(*steps, players=4)
    assert out[-1] == [{"type": "correct", "call": "forgery", "steal_from": [0, 2]}]
    assert outcomes_of(D_FORGERY, FM)[1] == [
        {"type": "correct", "call": "forgery", "steal_from": []}
    ]


def test_narration_of_the_reshuffle_after_the_third_forgery():
    out = outcomes_of(D_FORGERY, FM, D_FORGERY, FG, D_V, V, FV, FV)
    # The discard held the three forgeries and nothing else when it went back.
    assert out[6] == [
        {"type": "bonus", "kept": False, "left": 1},
        {"type": "reshuffle", "cards": 3},
    ]


def test_narration_of_a_refill_of_the_empty_deck_before_a_flip():
    e = new(2)
    e.deck = [0, 0, 0, 0, 0, 0, 0]  # contrived, as in the empty-deck rule test
    e.deck_size = 0
    e.discard = [1, 0, 0, 0, 0, 0, 0]
    event = e.narrate(EXPLORE).public
    assert event == {"type": "explore", "seat": 0, "outcomes": [{"type": "reshuffle", "cards": 1}]}


def test_narration_of_qualifying_and_of_the_end():
    e_steps = (D_M, M, M, M, D_G, M, D_G, M, D_M, M, V, G, D_G, M, D_G, M)
    out = outcomes_of(*e_steps, start=1)
    assert {"type": "qualify", "seat": 1} in out[11]
    assert out[-1][-1] == {"type": "game_over", "reason": "round_over", "winners": [1]}
    assert outcomes_of(D_ML, ML, start=1)[1] == [
        {"type": "correct", "call": "Mona Lisa"},
        {"type": "game_over", "reason": "mona_lisa", "winners": [1]},
    ]


def test_narrated_outcomes_are_checked_on_replay():
    """The sampler replays the history and rejects an outcome the table would not have seen."""
    import random

    defn = games.definition("gallery_rush")
    params = defn.validate_params({"players": 3})
    for seed in range(4):
        rng = random.Random(seed)
        engine = defn.new_engine(params)
        while not engine.is_terminal():
            actions = engine.legal_actions()
            engine.apply(engine.sample_chance(rng) if engine.is_chance() else rng.choice(actions))
        from games.core.infoset import build_infoset, sample_engine

        infoset = build_infoset(defn, params, engine, seed % 3)
        assert sample_engine(defn, params, infoset, random.Random(seed)).history == engine.history
        flips = [i for i, ev in enumerate(infoset["events"]) if ev["type"] == "flip"]
        assert all(infoset["events"][i]["outcomes"] for i in flips)
        tampered = {**infoset, "events": [dict(ev) for ev in infoset["events"]]}
        tampered["events"][flips[0]]["outcomes"] = [{"type": "bust", "discarded": []}]
        with pytest.raises(games.InvalidInfoset, match=f"events\\[{flips[0]}\\]"):
            sample_engine(defn, params, tampered, random.Random(seed))
