"""The hint texts' counts agree with their nouns (issue 43 item 13: "You need 7 more cards for
7", "With 1 picks left"); the log's wording is checked in the browser (tests/test_play_e2e.py)."""

from __future__ import annotations

import random

import games
from games.core.episode import random_position, stream_chance
from games.core.explain import counted
from games.finger_auction import explain as finger_explain
from games.finger_auction.engine import PICK
from games.gallery_rush import explain as rush_explain


def test_counted_agrees_in_number():
    assert counted(1, "pick") == "1 pick"
    assert counted(2, "pick") == "2 picks"
    assert counted(0, "point") == "0 points"
    assert counted(-1, "point") == "-1 point"
    assert counted(1, "more card") == "1 more card" and counted(7, "more card") == "7 more cards"


def test_gallery_rush_names_the_goal_it_counts_toward():
    defn = games.definition("gallery_rush")
    engine = defn.new_engine(defn.validate_params({}))
    text = rush_explain.explain(engine, 0)["text"][0]
    assert text.startswith("You need 7 more cards for a Collection of 7, or 4 more "), text
    assert "cards for 7," not in text


def test_finger_auction_one_pick_left_is_singular():
    """Seed 0's random game reaches a pick with one pick left (step 10)."""
    defn = games.definition("finger_auction")
    rng = random.Random(0)
    params = defn.validate_params({})
    one_pick_left = lambda e: e.phase == PICK and e.picks_left == 1  # noqa: E731
    engine = random_position(defn, params, rng, one_pick_left, chance=stream_chance(rng))
    assert engine is not None, "the seeded game never reached one pick left"
    lines = finger_explain.explain(engine, engine.current_player())["text"]
    text = [t for t in lines if "pick" in t]
    assert text and text[0].startswith("With 1 pick left, the best card adds "), text
