"""Opponent profiles in the APIs (issue 45): the hint request's ``profiles`` and a match seat's
bot options, checked against the game (422 naming the seat, tendency or value), forwarded to
the bot and part of the hint cache key."""

from __future__ import annotations

import pytest

from server.hints import HintService
from tests.server_support import OPEN_DEAL, infoset_at

BUDGET = {"simulations": 20}


def hint(client, game, infoset, **body):
    return client.post(f"/v1/games/{game}/hint", json={"infoset": infoset, **body})


def other_seat(infoset, players):
    return str((infoset["seat"] + 1) % players)


def test_hint_profiles_reach_the_bot_and_key_the_cache(client):
    _, infoset = infoset_at("detective_eye", seed=2, min_steps=12)
    seat = other_seat(infoset, 2)
    body = {"bot": "ismcts", "budget": BUDGET, "seed": 3}
    plain = hint(client, "detective_eye", infoset, **body)
    assert plain.status_code == 200, plain.json
    profiled = hint(client, "detective_eye", infoset, profiles={seat: {"bluff_rate": 0.4}}, **body)
    assert profiled.status_code == 200, profiled.json
    # Forwarded as the bot's option (the answer's spec is what the worker built the bot from).
    assert profiled.json["bot"]["options"]["opponents"] == {seat: {"bluff_rate": 0.4}}
    assert (
        "opponents" not in plain.json["bot"]["options"]
        or not plain.json["bot"]["options"]["opponents"]
    )
    # Part of the cache key: another profile is another request; the same one is a hit.
    assert profiled.json["cached"] is False
    other = hint(client, "detective_eye", infoset, profiles={seat: {"bluff_rate": 0.8}}, **body)
    assert other.json["cached"] is False
    again = hint(client, "detective_eye", infoset, profiles={seat: {"bluff_rate": 0.4}}, **body)
    assert again.json["cached"] is True
    # A profile written another way (a whole number for a number) is the same request.
    same = hint(client, "detective_eye", infoset, profiles={seat: {"noise": 0}}, **body)
    zero = hint(client, "detective_eye", infoset, profiles={seat: {"noise": 0.0}}, **body)
    assert same.json["cached"] is False and zero.json["cached"] is True


@pytest.mark.parametrize(
    ("profiles", "words"),
    [
        (
            {"1": {"bid_scale": 1.3}},
            ["unknown tendency 'bid_scale' for detective_eye", "bluff_rate"],
        ),
        ({"1": {"bluff_rate": 2}}, ["'bluff_rate'", "[0.0, 1.0]", "2"]),
        ({"1": {"bluff_rate": "often"}}, ["'bluff_rate'", "number"]),
        ({"5": {"bluff_rate": 0.2}}, ["seat 5 does not exist in a 2-player game"]),
        ({"one": {"bluff_rate": 0.2}}, ["seat 'one'"]),
        ({"1": 0.2}, ["profiles[1]", "object"]),
        ([1], ["JSON object"]),
    ],
)
def test_bad_hint_profiles_are_422_naming_what_is_wrong(client, profiles, words):
    _, infoset = infoset_at("detective_eye", seed=2, min_steps=12)
    r = hint(client, "detective_eye", infoset, bot="ismcts", budget=BUDGET, profiles=profiles)
    assert r.status_code == 422, r.json
    assert r.json["detail"]["field"] == "profiles"
    for w in words:
        assert w in r.json["message"], r.json["message"]


def test_profiles_need_a_bot_that_models_opponents(client):
    _, infoset = infoset_at("gallery_rush", seed=2, min_steps=4)
    r = hint(client, "gallery_rush", infoset, bot="random", profiles={"1": {"noise": 0.1}})
    assert r.status_code == 422 and r.json["code"] == "invalid_profiles"
    assert "bot 'random' does not model opponents" in r.json["message"]
    assert "ismcts" in r.json["message"]
    both = hint(
        client,
        "gallery_rush",
        infoset,
        bot={"name": "ismcts", "options": {"opponents": {"1": {"noise": 0.1}}}},
        profiles={"1": {"noise": 0.1}},
    )
    assert both.status_code == 422 and "in one place" in both.json["message"]


def test_a_bot_options_profile_is_checked_against_the_game(client):
    _, infoset = infoset_at("gallery_rush", seed=2, min_steps=4)
    bot = {"name": "ismcts", "options": {"opponents": {"1": {"bluff_rate": 0.1}}}}
    r = hint(client, "gallery_rush", infoset, bot=bot, budget=BUDGET)
    assert r.status_code == 422 and r.json["detail"]["field"] == "bot"
    assert "unknown tendency 'bluff_rate' for gallery_rush" in r.json["message"]


def test_a_match_seat_carries_its_profiles_and_bad_ones_are_422(client):
    seat_bot = {
        "name": "ismcts",
        "options": {"opponents": {"0": {"explore_until": 3}}, "profile_trust": 0.8},
    }
    body = {"game": "gallery_rush", "seats": ["human", seat_bot], **OPEN_DEAL}
    r = client.post("/v1/matches", json={**body, "budget": BUDGET})
    assert r.status_code == 201, r.json
    options = r.json["seats"][1]["bot"]["options"]
    assert options["opponents"] == {"0": {"explore_until": 3.0}}
    assert options["profile_trust"] == 0.8
    bad = {**seat_bot, "options": {"opponents": {"0": {"explore_until": 7}}}}
    r = client.post("/v1/matches", json={**body, "seats": ["human", bad]})
    assert r.status_code == 422 and r.json["detail"]["field"] == "seats[1]"
    assert "'explore_until' must be in [0.0, 3.0]" in r.json["message"]
    r = client.post(
        "/v1/matches",
        json={**body, "seats": ["human", {**seat_bot, "options": {"opponents": {"2": {}}}}]},
    )
    assert r.status_code == 422 and "seat 2 does not exist" in r.json["message"]


def test_profiled_bot_plays_a_hint_with_its_tendencies(client):
    _, infoset = infoset_at("gallery_rush", seed=2, min_steps=4)
    bot = {"name": "profiled", "options": {"tendencies": {"explore_until": 3}}}
    r = hint(client, "gallery_rush", infoset, bot=bot)
    assert r.status_code == 200, r.json
    assert r.json["bot"]["options"]["tendencies"] == {"explore_until": 3.0}
    bad = {"name": "profiled", "options": {"tendencies": {"bid_scale": 1.2}}}
    r = hint(client, "gallery_rush", infoset, bot=bad)
    assert (
        r.status_code == 422
        and "unknown tendency 'bid_scale' for gallery_rush" in r.json["message"]
    )


def test_with_profiles_leaves_a_spec_without_them_as_it_is():
    spec = {"name": "ismcts", "options": {"opponents": {}, "profile_trust": 0.5}}
    import games

    defn = games.definition("gallery_rush")
    params = defn.validate_params({})
    assert HintService.with_profiles(spec, None, defn, params) is spec
