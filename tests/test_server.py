"""Endpoint tests of the hint service, run for every registered game and bot."""

from __future__ import annotations

import copy
import json
import random

import jsonschema
import pytest

import bots
import games
from server import ServiceConfig, close_app
from server.config import ConfigError
from tests.server_support import infoset_at, make_app
from tests.support import GAMES, playout


def hint(client, game, infoset, **body):
    return client.post(f"/v1/games/{game}/hint", json={"infoset": infoset, **body})


FAST = {"simulations": 20, "milliseconds": 500}


# --- listing -----------------------------------------------------------------------------------
def test_games_listing_has_every_game_with_params(client):
    r = client.get("/v1/games")
    assert r.status_code == 200
    listed = {g["name"]: g for g in r.json["games"]}
    assert sorted(listed) == GAMES
    for name, g in listed.items():
        defn = games.definition(name)
        assert [p["name"] for p in g["params"]] == [s.name for s in defn.param_specs]
        assert g["params"] == [s.to_json() for s in defn.param_specs]
        assert g["links"]["hint"] == f"/v1/games/{name}/hint"


def test_bots_listing(client):
    r = client.get("/v1/bots")
    assert r.status_code == 200
    assert sorted(b["name"] for b in r.json["bots"]) == sorted(bots.BOTS)
    assert r.json["default"] in bots.BOTS


@pytest.mark.parametrize("game", GAMES)
def test_game_detail_publishes_schemas_that_accept_real_infosets(client, game):
    r = client.get(f"/v1/games/{game}")
    assert r.status_code == 200
    detail = r.json
    schema = detail["infoset_schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    example = detail["example_infoset"]
    jsonschema.validate(example, schema)
    for seed in range(3):
        _, infoset = infoset_at(game, seed, 4 + 5 * seed)
        jsonschema.validate(infoset, schema)
    wrong = dict(example, game="not_" + game)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, schema)
    action_schema = detail["action_schema"]
    for action in example["view"]["legal_actions"]:
        jsonschema.validate(action["struct"], action_schema)
    assert detail["rules"]["href"] == f"/v1/games/{game}/rules"


@pytest.mark.parametrize("game", GAMES)
def test_rules_link_serves_markdown_or_says_why_not(client, game):
    r = client.get(f"/v1/games/{game}/rules")
    assert r.status_code in (200, 404)
    if r.status_code == 200:
        assert r.mimetype == "text/markdown" and len(r.data) > 100
    else:
        assert r.json["code"] == "rules_not_found"


def test_unknown_game_is_404_naming_known_games(client):
    for path in ("/v1/games/chess", "/v1/games/chess/rules"):
        r = client.get(path)
        assert r.status_code == 404 and r.json["code"] == "unknown_game"
        assert "gallery_rush" in r.json["message"]
    r = client.post("/v1/games/chess/hint", json={"infoset": {}})
    assert r.status_code == 404


# --- hints -------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_hint_is_legal_and_cached_and_deterministic(client, game):
    engine, infoset = infoset_at(game, seed=11, min_steps=5)
    r = hint(client, game, infoset, bot="random", budget=FAST)
    assert r.status_code == 200, r.json
    out = r.json
    assert out["cached"] is False
    assert out["seat"] == infoset["seat"] and out["game"] == game
    assert out["action"]["id"] in engine.legal_actions()
    defn = games.definition(game)
    player = engine.current_player()
    assert out["action"]["struct"] == defn.action_to_struct(engine, player, out["action"]["id"])
    assert out["action"]["string"] == defn.action_to_string(engine, player, out["action"]["id"])
    assert {p["id"] for p in out["policy"]} <= set(engine.legal_actions())
    assert abs(sum(p["probability"] for p in out["policy"]) - 1.0) < 1e-6
    assert {"iterations", "elapsed_ms", "stopped_by"} <= set(out["stats"])
    assert out["bot"]["name"] == "random"
    # The same request again: same answer, now from the cache; the derived seed is stable.
    again = hint(client, game, infoset, bot="random", budget=FAST)
    assert again.json["cached"] is True
    assert again.json["action"] == out["action"] and again.json["seed"] == out["seed"]
    # Key order and the (optional) view do not change the canonical request's answer.
    shuffled = json.loads(json.dumps(dict(reversed(list(infoset.items())))))
    assert hint(client, game, shuffled, bot="random", budget=FAST).json["cached"] is True
    # An explicit seed is a different request; equal explicit seeds give equal answers.
    a = hint(client, game, infoset, bot="random", budget=FAST, seed=5).json
    b = hint(client, game, infoset, bot={"name": "random"}, budget=FAST, seed=5).json
    assert a["seed"] == 5 and b["cached"] is True and a["action"] == b["action"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bot", sorted(bots.BOTS))
def test_every_bot_answers_or_refuses_with_422(client, game, bot):
    _, infoset = infoset_at(game, seed=3, min_steps=3)
    r = hint(client, game, infoset, bot=bot, budget={"simulations": 30})
    assert r.status_code in (200, 422), r.json
    if r.status_code == 422:
        assert r.json["code"] in ("invalid_bot", "bot_unavailable"), r.json
        assert r.json["detail"]["field"] == "bot"


@pytest.mark.parametrize("game", GAMES)
def test_hint_when_not_your_turn_or_game_over_is_409(client, game):
    defn = games.definition(game)
    engine, _ = infoset_at(game, seed=2, min_steps=4)
    other = (engine.current_player() + 1) % engine.num_players
    infoset = games.build_infoset(defn, defn.validate_params({}), engine, other, with_view=False)
    r = hint(client, game, infoset, bot="random", budget=FAST)
    assert r.status_code == 409 and r.json["code"] == "not_your_turn"
    assert f"seat {other}" in r.json["message"]
    # A finished game.
    params = defn.validate_params({})
    final = playout(defn.new_engine(params), random.Random(4))
    done = games.build_infoset(defn, params, final, 0, with_view=False)
    r = hint(client, game, done, bot="random", budget=FAST)
    assert r.status_code == 409 and r.json["code"] == "game_over"
    v = client.post(f"/v1/games/{game}/validate", json={"infoset": done})
    assert v.status_code == 200 and v.json["terminal"] and v.json["to_move"] == "terminal"
    assert v.json["returns"] == final.returns()


@pytest.mark.parametrize("game", GAMES)
def test_validate_reports_turn_and_legal_actions(client, game):
    engine, infoset = infoset_at(game, seed=21, min_steps=6)
    defn = games.definition(game)
    r = client.post(f"/v1/games/{game}/validate", json={"infoset": infoset})
    assert r.status_code == 200, r.json
    out = r.json
    assert out["valid"] and out["your_turn"] and out["current_player"] == infoset["seat"]
    assert "legal_actions" not in out  # once, in the view
    assert [a["id"] for a in out["view"]["legal_actions"]] == engine.legal_actions()
    seat = infoset["seat"]
    assert [a["struct"] for a in out["view"]["legal_actions"]] == [
        defn.action_to_struct(engine, seat, a) for a in engine.legal_actions()
    ]
    # The view it returns is accepted back as part of the infoset.
    with_view = dict(infoset, view=out["view"])
    assert client.post(f"/v1/games/{game}/validate", json={"infoset": with_view}).status_code == 200
    wrong_view = copy.deepcopy(with_view)
    wrong_view["view"]["current_player"] = (seat + 1) % engine.num_players
    bad = client.post(f"/v1/games/{game}/validate", json={"infoset": wrong_view})
    assert bad.status_code == 422 and "view" in bad.json["message"]
    # A wrong view is never answered from the hint cache either.
    assert hint(client, game, infoset, bot="random", budget=FAST).status_code == 200
    assert hint(client, game, wrong_view, bot="random", budget=FAST).status_code == 422


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "infoset"),
        ({"infoset": [], "budget": FAST}, "infoset"),
        ({"infoset": "x"}, "infoset"),
        ({"INFOSET": {}}, "INFOSET"),
        ({"infoset": {}, "budget": {"milliseconds": -1}}, "budget.milliseconds"),
        ({"infoset": {}, "budget": {"simulations": 0}}, "budget.simulations"),
        ({"infoset": {}, "budget": {"simulations": "9"}}, "budget.simulations"),
        ({"infoset": {}, "budget": {"seconds": 1}}, "budget.seconds"),
        ({"infoset": {}, "seed": -1}, "seed"),
        ({"infoset": {}, "seed": 2**40}, "seed"),
        ({"infoset": {}, "seed": True}, "seed"),
        ({"infoset": {}, "params": []}, "params"),
    ],
)
def test_malformed_hint_requests_are_422_naming_the_field(client, body, field):
    r = client.post("/v1/games/gallery_rush/hint", json=body)
    assert r.status_code == 422, r.json
    assert set(r.json) == {"code", "message", "detail"}
    assert field in r.json["message"] and r.json["detail"]["field"] == field


@pytest.mark.parametrize("game", GAMES)
def test_domain_errors_are_422_naming_the_field(client, game):
    _, infoset = infoset_at(game, seed=1, min_steps=3)
    cases = [
        ({"bot": "nobody"}, "invalid_bot", "bot"),
        ({"bot": {"name": "random", "options": {"zzz": 1}}}, "invalid_bot", "zzz"),
        ({"bot": {"name": "random", "colour": 1}}, "invalid_bot", "colour"),
        ({"budget": {}}, "invalid_budget", "budget"),
        ({"params": {"players": 99}}, "invalid_params", "players"),
        ({"params": {"nonsense": 1}}, "invalid_params", "nonsense"),
    ]
    for extra, code, word in cases:
        r = hint(client, game, infoset, **extra)
        assert r.status_code == 422, (extra, r.json)
        assert r.json["code"] == code and word in r.json["message"], r.json
    other_params = dict(infoset["params"])
    players = games.definition(game).param_specs[0]
    assert players.name == "players"
    if players.max > other_params["players"]:
        other_params["players"] += 1
        r = hint(client, game, infoset, params=other_params)
        assert r.status_code == 422 and "params.players" in r.json["message"]


def test_budget_is_capped_by_configuration(tmp_path):
    app = make_app(tmp_path, max_budget_ms=300, max_simulations=50, search_workers=1)
    try:
        c = app.test_client()
        _, infoset = infoset_at("gallery_rush", seed=1, min_steps=3)
        r = hint(c, "gallery_rush", infoset, bot="random", budget={"milliseconds": 60_000})
        assert r.status_code == 200 and r.json["budget"] == {"milliseconds": 300.0}
        r = hint(c, "gallery_rush", infoset, bot="random", budget={"simulations": 10**6})
        assert r.json["budget"] == {"simulations": 50, "milliseconds": 300.0}
    finally:
        close_app(app)


# --- errors, limits, meta ----------------------------------------------------------------------
def test_not_json_and_wrong_method_and_unknown_route_are_json_errors(client):
    r = client.post(
        "/v1/games/gallery_rush/hint", data="{not json", content_type="application/json"
    )
    assert r.status_code == 400 and r.json["code"] == "invalid_json"
    r = client.post("/v1/games/gallery_rush/validate")
    assert r.status_code == 400 and r.json["code"] == "missing_body"
    # Not strict JSON, or nested past any information set: 400, never a recursion crash.
    for text, code in [
        ('{"infoset": {"version": NaN}}', "invalid_json"),
        ('{"infoset": {"version": 1e999}}', "invalid_json"),
        ("[" * 50_000, "too_deep"),
        ('{"infoset": ' + '{"a": ' * 40 + "1" + "}" * 41, "too_deep"),
    ]:
        for path in ("/v1/games/gallery_rush/hint", "/v1/matches"):
            r = client.post(path, data=text, content_type="application/json")
            assert r.status_code == 400 and r.json["code"] == code, (text[:40], r.json)
    r = client.delete("/v1/games")
    assert r.status_code == 405 and r.json["code"] == "method_not_allowed"
    assert "GET" in r.headers["Allow"]
    r = client.get("/v2/nothing")
    assert r.status_code == 404 and set(r.json) == {"code", "message", "detail"}


def test_request_size_limit_is_413(tmp_path):
    app = make_app(tmp_path, max_request_bytes=4096)
    try:
        r = app.test_client().post(
            "/v1/games/gallery_rush/hint", json={"infoset": {"pad": "x" * 10_000}}
        )
        assert r.status_code == 413 and r.json["code"] == "too_large"
        assert "4096" in r.json["message"]
    finally:
        close_app(app)


def test_api_keys_and_rate_limits(tmp_path):
    app = make_app(tmp_path, api_keys=("k1", "k2"), rate_limit_per_minute=3)
    try:
        c = app.test_client()
        r = c.get("/v1/games")
        assert r.status_code == 401 and "X-API-Key" in r.json["message"]
        assert c.get("/v1/games", headers={"X-API-Key": "wrong"}).status_code == 401
        assert c.get("/healthz").status_code == 200  # monitors need no key
        assert c.get("/ping").json == {"pong": True}
        statuses = [c.get("/v1/games", headers={"X-API-Key": "k1"}).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        r = c.get("/v1/games", headers={"X-API-Key": "k1"})
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        assert r.json["code"] == "rate_limited"
        # Another client (key) has its own bucket.
        assert c.get("/v1/games", headers={"X-API-Key": "k2"}).status_code == 200
        assert c.get("/healthz", headers={"X-API-Key": "k1"}).json["limits"]["refused"] == 2
        doc = c.get("/openapi.json").json
        assert doc["components"]["securitySchemes"]["apiKey"]["name"] == "X-API-Key"
    finally:
        close_app(app)


def test_healthz_counts_cache_hits_and_misses(client):
    before = client.get("/healthz").json
    assert before["status"] == "ok" and sorted(before["games"]) == GAMES
    _, infoset = infoset_at("gallery_rush", seed=99, min_steps=4)
    hint(client, "gallery_rush", infoset, bot="random", budget=FAST, seed=123)
    hint(client, "gallery_rush", infoset, bot="random", budget=FAST, seed=123)
    after = client.get("/healthz").json
    assert after["cache"]["misses"] == before["cache"]["misses"] + 1
    assert after["cache"]["hits"] == before["cache"]["hits"] + 1
    assert after["pool"]["alive"] == after["pool"]["size"]


def test_healthz_shows_the_job_queue(client):
    jobs = client.get("/healthz").json["jobs"]
    assert jobs["backend"] == "memory"
    assert (jobs["running"], jobs["queued"], jobs["oldest_queued_s"]) == (0, 0, None)


def test_openapi_document_and_docs_page(client):
    doc = client.get("/openapi.json").json
    assert doc["openapi"].startswith("3.1")
    for path in (
        "/v1/games",
        "/v1/games/{game}",
        "/v1/games/{game}/hint",
        "/v1/games/{game}/validate",
        "/v1/matches",
        "/v1/matches/{match_id}",
        "/v1/matches/{match_id}/actions",
        "/v1/matches/{match_id}/hint",
        "/healthz",
        "/ping",
    ):
        assert path in doc["paths"], path
    game_param = doc["paths"]["/v1/games/{game}/hint"]["post"]["parameters"][0]
    assert game_param["schema"]["enum"] == GAMES
    # The request schema is the one the server validates with.
    hint_schema = doc["components"]["schemas"]["HintRequest"]
    assert hint_schema["additionalProperties"] is False and "infoset" in hint_schema["required"]
    page = client.get("/docs")
    assert page.status_code == 200 and b"/openapi.json" in page.data
    assert client.get("/").status_code == 302


def test_config_defaults_files_and_environment(tmp_path):
    config = ServiceConfig()
    assert config.host == "127.0.0.1" and config.search_workers >= 1
    assert config.match_db.endswith("matches.sqlite3")
    path = tmp_path / "atelier.toml"
    path.write_text('[service]\nport = 9000\napi_keys = ["a"]\nmax_budget_ms = 1000\n')
    loaded = ServiceConfig.load(path, env={"ATELIER_PORT": "9100"}, search_workers=3)
    assert (loaded.port, loaded.api_keys, loaded.max_budget_ms) == (9100, ("a",), 1000.0)
    assert loaded.search_workers == 3
    assert loaded.to_json()["api_keys"] == 1
    with pytest.raises(ConfigError, match="colour"):
        ServiceConfig.from_mapping({"colour": 1})
    with pytest.raises(ConfigError, match="port"):
        ServiceConfig.from_mapping({"port": "eighty"})
    with pytest.raises(ConfigError, match="search_workers"):
        ServiceConfig.from_mapping({"search_workers": 0})
