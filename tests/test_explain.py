"""Explained hints: exact figures on scripted positions, the same explanation for the same
information set, and ``explain`` on every game's hint through the HTTP API."""

from __future__ import annotations

import random

import pytest

import bots
import games
from bots.explain import explain_hint
from bots.explain.example import heuristic_decision
from bots.explain.value import value_meaning
from games.core.infoset import build_infoset, sample_engine
from games.finger_auction.actions import bid, pick
from games.finger_auction.explain import explain as explain_finger_auction
from games.gallery_rush.actions import CONFIRM, CONTINUE, EXPLORE
from games.gallery_rush.explain import explain as explain_gallery_rush
from games.paintings import (
    FORGERY_MONET,
    FORGERY_VAN_GOGH,
    MONA_LISA,
    MONET,
    VAN_GOGH,
    VERMEER,
)
from tests.server_support import OPEN_DEAL
from tests.support import GAMES


def gallery_rush(actions: list[int], players: int = 2):
    defn = games.definition("gallery_rush")
    engine = defn.new_engine(defn.validate_params({"players": players}))
    for a in actions:
        assert engine.is_legal(a), a
        engine.apply(a)
    return engine


# --- Gallery Rush: odds against a hand count ----------------------------------------------------
def test_gallery_rush_continue_odds_are_the_hand_count():
    # Seat 0 starts, explores a Monet, continues to a van Gogh: 26 cards left (7 Monet,
    # 7 van Gogh, 8 Vermeer, 3 forgeries, the Mona Lisa), the Keep holds Monet and van Gogh.
    engine = gallery_rush([0, EXPLORE, MONET, CONTINUE, VAN_GOGH])
    flip = explain_gallery_rush(engine, 0)["figures"]["flip"]
    assert flip["exact"] is True
    odds = flip["value"]
    assert odds["deck_size"] == 26
    assert odds["bust"]["fraction"] == "7/13"  # 7 Monet + 7 van Gogh of 26
    assert odds["forgery"]["fraction"] == "3/26"
    assert odds["mona_lisa"]["fraction"] == "1/26"
    assert odds["new_painter"]["fraction"] == "4/13"  # the 8 Vermeer
    assert odds["forgery_by_painter"]["Monet"] == {
        "p": 0.038462,
        "fraction": "1/26",
        "would_lose": 2,
    }


def test_gallery_rush_declarations_and_goals_after_a_forgery():
    # Seat 0 banks Monet + van Gogh; seat 1 explores into the Monet forgery. Seat 0's turn:
    # 25 cards (7 Monet, 7 van Gogh, 8 Vermeer, 2 forgeries, the Mona Lisa).
    engine = gallery_rush([0, EXPLORE, MONET, CONTINUE, VAN_GOGH, CONFIRM, EXPLORE, FORGERY_MONET])
    out = explain_gallery_rush(engine, 0)
    decl = out["figures"]["declarations"]["value"]
    assert decl["Monet"]["success"]["fraction"] == "7/25"
    assert decl["Monet"]["forgery_penalty"]["fraction"] == "2/25"
    assert decl["Monet"]["would_lose"] == 1
    assert decl["Vermeer"]["success"]["fraction"] == "8/25"
    assert decl["forgery"] == {"success": {"p": 0.08, "fraction": "2/25"}, "steal_from": []}
    assert decl["Mona Lisa"]["success"]["fraction"] == "1/25"
    flip = out["figures"]["flip"]["value"]
    assert flip["bust"]["fraction"] == "0"  # a first flip cannot bust
    assert flip["forgery_by_painter"]["Monet"]["fraction"] == "0"  # that forgery is gone
    mine, theirs = out["figures"]["goals"]["value"]
    assert mine["seven_cards"] == 5 and mine["four_of_a_painter"]["Monet"] == 3
    assert mine["nearest"] == 3 and not mine["qualified"]
    assert theirs["seven_cards"] == 7
    assert any("2 in 25 (8%)" in line for line in out["text"])


def test_gallery_rush_mona_lisa_counts_toward_every_painter():
    engine = gallery_rush([1, EXPLORE, VERMEER, CONTINUE, MONA_LISA])  # seat 1 banks both
    goals = explain_gallery_rush(engine, 0)["figures"]["goals"]["value"][1]
    assert goals["collection"] == 2
    assert goals["four_of_a_painter"] == {"Monet": 3, "van Gogh": 3, "Vermeer": 2}


# --- Finger Auction: take points on a scripted table -------------------------------------------
def finger_auction_after_first_auction():
    """3 players; the table 3 Monet, 2 Vermeer, a van Gogh forgery, the Mona Lisa; bids 1, 2, 2
    (seat 0 wins with 1 and picks the Mona Lisa); seats 1 and 2 then auction two-handed."""
    defn = games.definition("finger_auction")
    engine = defn.new_engine(defn.validate_params({"players": 3}))
    for kind in (MONET, MONET, MONET, VERMEER, VERMEER, FORGERY_VAN_GOGH, MONA_LISA):
        engine.apply(kind)
    for amount in (1, 2, 2):
        engine.apply(bid(amount))
    engine.apply(pick(MONA_LISA, engine.max_bid))
    return engine


def test_finger_auction_take_points_per_player():
    engine = finger_auction_after_first_auction()
    assert engine.current_player() == 1
    out = explain_finger_auction(engine, 1)
    takes = out["figures"]["takes"]["value"]
    assert out["figures"]["takes"]["exact"] is True
    # An empty collection (3-4 players: Monet 1, 2, 4; Vermeer 2 = 8): take 1 is a Monet,
    # 2 the Vermeers, 3 adds a Monet (9), 4 two Monets (10), 5 three (12).
    assert [t["points"][1] for t in takes] == [1, 8, 9, 10, 12]
    assert [t["points"][2] for t in takes] == [1, 8, 9, 10, 12]
    # Seat 0 holds the Mona Lisa (3 points as a van Gogh): one Vermeer makes it a Vermeer
    # pair (8, +5); two Vermeers with the Mona Lisa as van Gogh make 11 (+8).
    assert takes[0]["points"][0] == 5 and takes[1]["points"][0] == 8
    assert takes[0]["best_cards"][0] == {"Vermeer": 1}
    # Seat 1 bid 2 in the round's previous auction: in a two-handed auction it may not take 2.
    assert takes[1].get("banned") is True and "banned" not in takes[0]
    values = {v["seat"]: v for v in out["figures"]["card_values"]["value"]}
    assert values[0]["score"] == 3 and values[1]["score"] == 0
    # A van Gogh forgery cancels the Mona Lisa's van Gogh: it is worth most as a Monet (1).
    assert values[0]["one_more"]["van Gogh forgery"] == -2
    assert values[1]["one_more"]["Vermeer"] == 0  # one Vermeer alone scores nothing
    left = out["figures"]["cards_left"]["value"]
    assert left["table"] == {"Monet": 3, "Vermeer": 2, "van Gogh forgery": 1}
    assert left["rounds_left"] == 4 and sum(left["deck"].values()) == 21


def test_sentences_count_seats_from_one_as_the_play_page():
    """Issue 43.6: the JSON counts seats from 0, sentences for people from 1 ("seat N+1"), as
    /play's seatName does; they said "seat 2's" of the page's Seat 3."""
    engine = finger_auction_after_first_auction()
    out = explain_finger_auction(engine, 1)  # seat 1's decision; seat 2 the rival
    take = next(line for line in out["text"] if line.startswith("Taking"))
    assert take.endswith("the same take would add 12 to seat 3's.")
    assert {v["seat"] for v in out["figures"]["card_values"]["value"]} == {0, 1, 2}  # JSON: 0..


def test_detective_eye_standing_bid_names_the_bidder_from_one():
    for seed in range(40):
        defn, params, engine = heuristic_decision("detective_eye", seed, 3)
        if engine.describe()["phase"] == "bidding" and engine.bid_painter >= 0:
            break
    else:
        pytest.fail("no bidding decision with a standing bid in 40 seeded games")
    seat = engine.current_player()
    infoset = build_infoset(defn, params, engine, seat, with_view=False)
    hint = {"action": {"id": -1}, "value": None, "stats": {"stopped_by": "policy"}}
    spec = {"name": "heuristic", "options": {}}
    out = explain_hint(defn, engine, seat, hint, params=params, infoset=infoset, bot=spec, seed=0)
    assert out["figures"]["declarations"]["value"]["current"]["bidder"] == engine.bidder
    line = next(t for t in out["text"] if "standing bid" in t)
    assert line.startswith(f"Seat {engine.bidder + 1}'s standing bid, ")


def test_finger_auction_picks_say_what_each_card_adds():
    defn = games.definition("finger_auction")
    engine = defn.new_engine(defn.validate_params({"players": 3}))
    for kind in (MONET, MONET, MONET, VERMEER, VERMEER, FORGERY_VAN_GOGH, MONA_LISA):
        engine.apply(kind)
    for amount in (2, 1, 1):  # seat 0 wins alone with 2: two picks
        engine.apply(bid(amount))
    assert engine.current_player() == 0
    picks = explain_finger_auction(engine, 0)["figures"]["picks"]["value"]
    assert picks["picks_left"] == 2
    by_card = {p["card"]: p["points"] for p in picks["cards"]}
    assert by_card["Mona Lisa"] == [3, 3, 3] and by_card["Monet"] == [1, 1, 1]
    assert by_card["van Gogh forgery"] == [0, 0, 0]
    # Two Vermeers, or a Vermeer with the Mona Lisa as the second: 8 either way.
    assert picks["best_rest_points"] == 8 and sum(picks["best_rest"].values()) == 2


# --- the value's meaning ------------------------------------------------------------------------
def test_value_meaning_names_units_and_scale():
    two = value_meaning("gallery_rush", {"players": 2}, "ismcts", 0.0, "time")
    assert "expected return" in two["measures"] and "50%" in two["text"]
    four = value_meaning("detective_eye", {"players": 4}, "ismcts", 0.2, "time")
    assert "-0.333" in four["scale"] and "40%" in four["text"]  # (3 * 0.2 + 1) / 4
    points = value_meaning("modern_art", {"players": 3}, "oos", 1.5, "time")
    assert "0 to 3" in points["scale"] and "50%" in points["text"]
    five = value_meaning("modern_art", {"players": 5}, "ismcts", 2.0, "time")
    assert "1.8 is an even share" in five["scale"]
    money = value_meaning("modern_art", {"players": 3, "payoff": "money"}, "ismcts", 143, "time")
    assert "money" in money["measures"] and "143" in money["text"]
    none = value_meaning("finger_auction", {"players": 2}, "heuristic", None, "policy")
    assert none["measures"] is None and "no value" in none["text"]
    single = value_meaning("finger_auction", {"players": 2}, "ismcts", None, "single_action")
    assert "only one legal move" in single["text"]


# --- same information set, same explanation ------------------------------------------------------
def twin(defn, params, engine, seat):
    """Another state with ``seat``'s information set (hidden parts redrawn when any)."""
    infoset = build_infoset(defn, params, engine, seat, with_view=False)
    other = None
    for i in range(20):
        other = sample_engine(defn, params, infoset, random.Random(i))
        if other.describe() != engine.describe():
            break
    return infoset, other


@pytest.mark.parametrize("game", GAMES)
def test_same_information_set_same_explanation(game):
    defn, params, engine = heuristic_decision(game, 11, 3)
    seat = engine.current_player()
    infoset, other = twin(defn, params, engine, seat)
    if game in ("detective_eye", "modern_art"):
        assert other.describe() != engine.describe()  # the hidden cards differ
    bot = bots.make_bot("heuristic")
    hint = bot.hint(defn, params, infoset, bots.Budget(simulations=1), 0).to_json(defn, engine)
    spec = bot.spec()
    a = explain_hint(defn, engine, seat, hint, params=params, infoset=infoset, bot=spec, seed=3)
    b = explain_hint(defn, other, seat, hint, params=params, infoset=infoset, bot=spec, seed=3)
    assert "unavailable" not in a
    assert a == b
    assert a["figures"] and a["text"]


# --- through the API ----------------------------------------------------------------------------


def check_figures(explain: dict) -> None:
    assert "unavailable" not in explain
    for name, fig in explain["figures"].items():
        assert isinstance(fig["exact"], bool) and fig["label"], name
        if not fig["exact"]:
            assert fig.get("method"), name
    assert all(isinstance(line, str) and line for line in explain["text"])
    assert explain["value"]["text"]


@pytest.mark.parametrize("game", GAMES)
def test_every_hint_carries_explain(client, game):
    expected = {
        "gallery_rush": {"deck", "goals"},
        "finger_auction": {"cards_left", "card_values"},
        "detective_eye": {"stakes"},
        "modern_art": {"money", "artists", "standings"},
    }[game]
    for seed, bot in ((5, "heuristic"), (6, "ismcts")):
        defn, params, engine = heuristic_decision(game, seed, 3)
        infoset = build_infoset(defn, params, engine, engine.current_player(), with_view=False)
        r = client.post(
            f"/v1/games/{game}/hint",
            json={
                "infoset": infoset,
                "params": params,
                "bot": bot,
                "budget": {"simulations": 30},
                "seed": 1,
            },
        )
        assert r.status_code == 200, r.json
        explain = r.json["explain"]
        check_figures(explain)
        assert expected <= set(explain["figures"])
        if bot == "ismcts" and r.json["value"] is not None:
            assert explain["value"]["measures"].startswith(("expected return", "expected points"))
        if bot == "heuristic":
            assert explain["value"]["measures"] is None
    if game == "detective_eye":
        assert "declarations" in explain["figures"] or "challenge" in explain["figures"]
        estimate = explain["figures"].get("declarations") or explain["figures"]["challenge"]
        assert estimate["exact"] is False and estimate["samples"] == 16


def test_bench_explain_reports_the_ratio_to_the_hint():
    import json

    from click.testing import CliRunner

    from evaluation.cli import main

    args = ["bench", "explain", "--game", "finger_auction", "--states", "1", "--budget-ms", "20"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)
    assert row["game"] == "finger_auction" and row["players"] == 2
    assert row["ratio_median"] == round(row["ratio_median"], 3) and row["hint_ms_median"] > 0
    bad = CliRunner().invoke(main, ["bench", "explain", "--states", "0"])
    assert bad.exit_code != 0 and "--states" in bad.output


def test_longer_time_budgets_buy_more_samples():
    defn, params, engine = heuristic_decision("detective_eye", 11, 3)
    seat = engine.current_player()
    infoset = build_infoset(defn, params, engine, seat, with_view=False)
    hint = {"action": {"id": -1}, "value": None, "stats": {"stopped_by": "time"}}
    spec = {"name": "ismcts", "options": {}}

    def samples(budget):
        out = explain_hint(
            defn,
            engine,
            seat,
            hint,
            params=params,
            infoset=infoset,
            bot=spec,
            seed=0,
            budget=budget,
        )
        figures = out["figures"]
        return (figures.get("declarations") or figures["challenge"])["samples"]

    assert samples({"milliseconds": 200}) == samples(None) == 16
    assert samples({"milliseconds": 1000}) == 32
    assert samples({"milliseconds": 60_000}) == 64  # at most 4 times
    assert samples({"simulations": 30, "milliseconds": 5000}) == 16  # may have stopped early


def test_a_hosted_match_hint_is_explained_and_bot_moves_are_not(client):
    from server.tasks import hint_task

    r = client.post(
        "/v1/matches",
        # A fixed deal: the match must still be open after its creation (OPEN_DEAL).
        json={"game": "gallery_rush", "seats": ["human", "random"], **OPEN_DEAL},
    )
    assert r.status_code == 201, r.json
    mid, token = r.json["match_id"], r.json["tokens"][0]["token"]
    view = client.get(f"/v1/matches/{mid}", headers={"X-Seat-Token": token}).json
    assert not view["terminal"] and view["current_player"] == 0
    h = client.get(
        f"/v1/matches/{mid}/hint?bot=random&simulations=5", headers={"X-Seat-Token": token}
    )
    assert h.status_code == 200, h.json
    check_figures(h.json["explain"])
    assert {"deck", "goals"} <= set(h.json["explain"]["figures"])
    payload = {
        "game": "gallery_rush",
        "params": view["params"],
        "infoset": view["infoset"],
        "bot": {"name": "random", "options": {}},
        "budget": {"simulations": 1},
        "seed": 0,
    }
    assert "explain" in hint_task(payload)
    assert "explain" not in hint_task({**payload, "explain": False})


def test_seat_words_is_the_play_pages_seat_name():
    """One numbering for people: games.seats.seat_words says what /play's seatName shows."""
    import re
    from pathlib import Path

    from games.seats import seat_words

    js = (Path(__file__).parent.parent / "server/static/play/widgets.js").read_text()
    assert re.search(r"function seatName\(seat\) \{\s*return `Seat \$\{Number\(seat\) \+ 1\}`;", js)
    assert seat_words(0) == "seat 1" and seat_words(2, capital=True) == "Seat 3"
