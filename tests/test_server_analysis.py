"""Analysis through the service (``POST /v1/games/{game}/analysis``): one position or every
decision of a record, as a job of analysis steps on the review machinery (``server.reviews``),
polled with the positions finished so far. Checked against the contract's shape
(docs/api.md, "Analysis"), never against a particular evaluator's numbers."""

from __future__ import annotations

import time

import pytest

from bots.protocol import HINT_TABLE_TOP
from bots.review import infoset_before
from games.core.infoset import build_infoset
from tests.server_support import infoset_at
from tests.support import GAMES, heuristic_game

TINY = {"simulations": 8}
OTHER_CLIENT = {"REMOTE_ADDR": "10.9.8.7"}
MOVE_KEYS = {
    "id",
    "string",
    "struct",
    "value",
    "stderr",
    "interval",
    "points",
    "visits",
    "prior",
    "loss",
    "loss_interval",
    "within_noise",
    "continuation",
    "samples",
}


def poll(client, url, timeout=120.0, environ_base=None):
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        r = client.get(url, environ_base=environ_base or {})
        assert r.status_code == 200, r.json
        if r.json["status"] not in ("queued", "running"):
            return r.json
        time.sleep(0.05)
    raise AssertionError(f"analysis {url} did not finish: {r.json['done']}/{r.json['total']}")


def record(seed=2, seat=0):
    defn, params, engine = heuristic_game("gallery_rush", seed=seed)
    return engine, build_infoset(defn, params, engine, seat, with_view=False)


def check_position(analysis, played=None):
    """One position's JSON has the contract's shape, and its figures their invariants."""
    assert {"seat", "units", "best", "value", "interval", "moves", "iterations"} <= set(analysis)
    moves = analysis["moves"]
    assert moves and moves[0]["id"] == analysis["best"]["id"]  # best first: the suggestion
    for m in moves:
        assert set(m) >= MOVE_KEYS, set(m) ^ MOVE_KEYS
        lo, hi = m["interval"]
        assert lo <= m["value"] <= hi and lo >= 0.0 and hi <= 1.0
        assert m["loss"] >= 0.0 and isinstance(m["within_noise"], bool)
    ids = [m["id"] for m in moves]
    assert len(ids) == len(set(ids))
    if played is not None:
        assert played["id"] in ids  # the move played is always analysed


def test_one_position_with_a_move_named_by_its_string(client):
    _, infoset = record()
    # A position where seat 0 is to move: the record's first decision of seat 0.
    first = client.post(
        "/v1/games/gallery_rush/analysis",
        json={"infoset": infoset, "every_decision": True, "bot": "heuristic", "budget": TINY},
    ).json
    decision = poll(client, first["url"])["positions"][1]
    step, played = decision["step"], decision["played"]
    r = client.post(
        "/v1/games/gallery_rush/analysis",
        json={
            "infoset": infoset_before(infoset, step),
            "bot": "ismcts",
            "budget": TINY,
            "moves": [played["string"]],
            "top": 1,
            "seed": 3,
        },
    )
    assert r.status_code == 202, r.json
    assert r.json["url"] == f"/v1/analyses/{r.json['id']}" == r.headers["Location"]
    assert r.json["total"] == 1 and r.json["positions"] == []
    done = poll(client, r.json["url"])
    assert done["status"] == "done" and done["done"] == 1, done
    (position,) = done["positions"]
    assert position["step"] == step and "played" not in position
    check_position(position["analysis"])
    # top 1, plus the move asked for by its string (unless it is the top one itself).
    ids = [m["id"] for m in position["analysis"]["moves"]]
    assert played["id"] in ids and len(ids) <= 2


def test_every_decision_of_a_record_each_with_the_move_played(client):
    engine, infoset = record(seed=3, seat=1)
    body = {"bot": "ismcts", "budget": TINY, "seed": 5, "top": 2}
    a = client.post(
        "/v1/games/gallery_rush/analysis", json={**body, "infoset": infoset, "every_decision": True}
    )
    b = client.post(
        "/v1/games/gallery_rush/analysis",
        json={**body, "state": {"history": list(engine.history)}, "seat": 1},
    )
    assert a.status_code == b.status_code == 202, (a.json, b.json)
    da, db = poll(client, a.json["url"]), poll(client, b.json["url"])
    assert da["status"] == db["status"] == "done"
    assert da["done"] == da["total"] == len(da["positions"]) > 1
    for k, p in enumerate(da["positions"]):
        assert p["index"] == k and p["played"]["id"] == engine.history[p["step"]]
        check_position(p["analysis"], p["played"])
    # The same record as an information set or a whole state: the same positions, analysed
    # alike (same seed per step).
    for pa, pb in zip(da["positions"], db["positions"], strict=True):
        assert (pa["step"], pa["played"]) == (pb["step"], pb["played"])
        assert [m["id"] for m in pa["analysis"]["moves"]] == [
            m["id"] for m in pb["analysis"]["moves"]
        ]


def wait_until(check, timeout=60.0):
    until = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < until, "timed out"
        time.sleep(0.02)


def test_partial_results_while_it_runs_then_a_cancel_keeps_them(tmp_path):
    from server import close_app
    from tests.server_support import make_app

    app = make_app(tmp_path, search_workers=1, review_max_running_per_client=1)
    service = app.extensions["atelier.reviews"]
    try:
        client = app.test_client()
        _, infoset = record()
        # Each position a search of 150 ms: seconds in all, polled while it runs.
        body = {"infoset": infoset, "every_decision": True, "bot": "ismcts"}
        body["budget"] = {"simulations": 200000, "milliseconds": 150}
        job = client.post("/v1/games/gallery_rush/analysis", json=body).json
        assert job["total"] > 3, job
        wait_until(lambda: client.get(job["url"]).json["done"] >= 1)
        partial = client.get(job["url"]).json
        assert partial["status"] == "running" and partial["done"] < partial["total"]
        assert len(partial["positions"]) == partial["done"]
        check_position(partial["positions"][0]["analysis"], partial["positions"][0]["played"])
        r = client.delete(job["url"])
        assert r.status_code == 200 and r.json["status"] == "cancelled", r.json
        assert r.json["error"]["code"] == "cancelled"
        # Its slot is free at once (one job per client here).
        second = client.post("/v1/games/gallery_rush/analysis", json=body)
        assert second.status_code == 202, second.json
        assert client.delete(second.json["url"]).json["status"] == "cancelled"
        wait_until(lambda: not service.store.live())
        final = client.get(job["url"]).json
        assert final["status"] == "cancelled" and final["done"] < final["total"]
        assert final["positions"][: partial["done"]] == partial["positions"]
    finally:
        close_app(app)


def test_an_analysis_answers_only_its_creator_and_is_not_a_review(client):
    from server.logs import redact

    _, infoset = record()
    body = {"infoset": infoset, "every_decision": True, "bot": "heuristic", "budget": TINY}
    job = client.post("/v1/games/gallery_rush/analysis", json=body).json
    url = job["url"]
    assert job["id"].startswith("job_") and len(job["id"]) == 36, job["id"]
    for method in ("get", "delete"):
        other = getattr(client, method)(url, environ_base=OTHER_CLIENT)
        assert other.status_code == 404 and other.json["code"] == "unknown_analysis", other.json
    # The same id under /v1/reviews is unknown (a job is read through its own kind only).
    assert client.get(f"/v1/reviews/{job['id']}").json["code"] == "unknown_review"
    assert job["id"] not in redact(f'"GET {url} HTTP/1.1" 200 512')
    assert poll(client, url)["status"] == "done"


_, _RECORD = record()
BAD = [
    ({}, "infoset"),
    ({"infoset": _RECORD, "state": {"history": []}, "seat": 0}, "state"),
    ({"state": {"history": []}}, "seat"),
    ({"state": {"history": []}, "seat": 0, "every_decision": False}, "every_decision"),
    ({"infoset": _RECORD, "every_decision": True, "moves": [0]}, "moves"),
    ({"infoset": _RECORD, "top": 0}, "top"),
    ({"infoset": _RECORD, "top": 99}, "top"),
    ({"infoset": _RECORD, "moves": [-1]}, "moves[0]"),
    ({"infoset": _RECORD, "moves": "explore"}, "moves"),
    ({"infoset": _RECORD, "every_decision": "yes"}, "every_decision"),
    ({"infoset": _RECORD, "budget": {"simulations": 0}}, "budget.simulations"),
    ({"infoset": _RECORD, "bot": "nobody"}, "bot"),
    ({"infoset": _RECORD, "seat": 1}, "seat"),
    ({"infoset": _RECORD, "colour": 1}, "colour"),
]


@pytest.mark.parametrize("body,field", BAD, ids=[f for _, f in BAD])
def test_bad_analysis_requests_are_422s_naming_the_field(client, body, field):
    r = client.post("/v1/games/gallery_rush/analysis", json=body)
    assert r.status_code == 422 and r.json["detail"]["field"] == field, r.json
    assert field.split(".")[0].split("[")[0] in r.json["message"], r.json["message"]


def test_a_position_where_the_seat_is_not_to_move_or_a_move_not_legal_there(client):
    _, infoset = record()
    over = client.post("/v1/games/gallery_rush/analysis", json={"infoset": infoset})
    assert over.status_code == 409 and over.json["code"] == "game_over", over.json
    first = client.post(
        "/v1/games/gallery_rush/analysis",
        json={"infoset": infoset, "every_decision": True, "bot": "heuristic", "budget": TINY},
    ).json
    step = poll(client, first["url"])["positions"][0]["step"]
    cut = infoset_before(infoset, step)
    r = client.post("/v1/games/gallery_rush/analysis", json={"infoset": cut, "moves": ["fly"]})
    assert r.status_code == 422 and r.json["detail"]["field"] == "moves[0]", r.json
    assert "not legal" in r.json["message"] or "ambiguous" in r.json["message"]


def test_analyses_are_bounded_in_positions_and_in_bytes(tmp_path):
    from server import close_app
    from tests.server_support import make_app

    app = make_app(tmp_path, search_workers=1, review_max_decisions=4, review_max_answer_bytes=1024)
    try:
        client = app.test_client()
        _, infoset = record()  # more than 4 decisions of seat 0
        body = {"every_decision": True, "bot": "ismcts", "budget": TINY}
        r = client.post("/v1/games/gallery_rush/analysis", json={"infoset": infoset, **body})
        assert r.status_code == 422 and r.json["code"] == "review_too_long", r.json
        assert r.json["detail"]["max_decisions"] == 4
        short = infoset_before(infoset, 12)
        r = client.post("/v1/games/gallery_rush/analysis", json={"infoset": short, **body})
        assert r.status_code == 202 and 2 <= r.json["total"] <= 4, r.json
        done = poll(client, r.json["url"])
        # A position is over a kilobyte with its moves: the job fails naming the cap.
        assert done["status"] == "failed" and done["error"]["code"] == "analysis_too_large", done
        assert "review_max_answer_bytes" in done["error"]["message"]
        assert done["done"] == len(done["positions"]) < done["total"]
    finally:
        close_app(app)


# --- the hint's table ---------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_a_hint_carries_the_per_move_table_of_its_own_search(client, game):
    _, infoset = infoset_at(game, seed=11, min_steps=5)
    body = {"infoset": infoset, "bot": "ismcts", "budget": {"simulations": 60}, "seed": 1}
    out = client.post(f"/v1/games/{game}/hint", json=body).json
    table = out["analysis"]
    moves = table["moves"]
    assert moves[0]["id"] == out["action"]["id"] and moves[0]["within_noise"] is True
    assert table["value"] == moves[0]["value"]
    assert table["interval"] == moves[0]["interval"]
    visits = {p["id"]: p.get("visits") for p in out["policy"]}
    for m in moves:
        lo, hi = m["interval"]
        assert lo <= m["value"] <= hi and set(m) == {
            "id",
            "struct",
            "string",
            "value",
            "interval",
            "visits",
            "within_noise",
        }
        assert m["visits"] == visits[m["id"]] and m["visits"] > 0
    assert len(moves) <= HINT_TABLE_TOP


def test_a_bot_without_per_move_values_has_no_table(client):
    _, infoset = infoset_at("gallery_rush", seed=11, min_steps=5)
    out = client.post("/v1/games/gallery_rush/hint", json={"infoset": infoset, "bot": "random"})
    assert out.status_code == 200 and "analysis" not in out.json
