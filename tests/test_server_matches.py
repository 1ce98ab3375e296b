"""Hosted matches: tokens, seat isolation, refused moves, persistence across restarts."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

import games
from games.core.definition import replay as replay_history
from games.core.infoset import build_infoset
from server import close_app
from tests.server_support import make_app, quick_params
from tests.support import GAMES

# Its own app (tests/conftest.py): the matches these tests count are theirs alone.
OWN_APP: dict[str, object] = {}


def create(client, game, seats, seed=1, **extra):
    r = client.post("/v1/matches", json={"game": game, "seats": seats, "seed": seed, **extra})
    assert r.status_code == 201, r.json
    return r.json


def seat_headers(token):
    return {"X-Seat-Token": token}


def replay(app, view):
    """The engine of a match, rebuilt from the history stored in SQLite."""
    db = app.config["ATELIER"].match_db
    with sqlite3.connect(db) as con:
        row = con.execute("SELECT history FROM matches WHERE id = ?", (view["match_id"],))
        history = json.loads(row.fetchone()[0])
    return replay_history(games.definition(view["game"]), view["params"], history)


@pytest.mark.parametrize("game", GAMES)
def test_match_against_bots_plays_to_the_end(app, client, game):
    defn = games.definition(game)
    params = quick_params(game)
    seats = ["human"] + ["random"] * (params["players"] - 1)
    match = create(client, game, seats, seed=5, params=params)
    assert [t["seat"] for t in match["tokens"]] == [0]
    assert match["status"] in ("waiting", "finished")
    assert "infoset" not in match and "legal_actions" not in match  # creation shows public view
    mid, token = match["match_id"], match["tokens"][0]["token"]
    for _ in range(400):
        view = client.get(f"/v1/matches/{mid}", headers=seat_headers(token)).json
        if view["terminal"]:
            break
        assert view["status"] == "waiting" and view["current_player"] == 0
        engine = replay(app, view)
        assert view["infoset"] == build_infoset(defn, view["params"], engine, 0)
        assert "legal_actions" not in view  # once, in the seat's infoset view
        h = client.get(
            f"/v1/matches/{mid}/hint?bot=random&simulations=5", headers=seat_headers(token)
        )
        assert h.status_code == 200 and h.json["seat"] == 0
        assert h.json["action"]["id"] in engine.legal_actions()
        r = client.post(
            f"/v1/matches/{mid}/actions",
            json={"action": h.json["action"]["struct"]},
            headers=seat_headers(token),
        )
        assert r.status_code == 200, r.json
        assert r.json["moves"][0]["step"] == view["step"]
    else:
        pytest.fail("the match did not finish")
    assert view["status"] == "finished" and len(view["returns"]) == params["players"]
    r = client.post(f"/v1/matches/{mid}/actions", json={"action": 0}, headers=seat_headers(token))
    assert r.status_code == 409 and r.json["code"] == "game_over"


@pytest.mark.parametrize("game", GAMES)
def test_tokens_open_only_their_own_seat(app, client, game):
    defn = games.definition(game)
    n = defn.min_players
    match = create(client, game, ["human"] * n, seed=8)
    mid = match["match_id"]
    tokens = {t["seat"]: t["token"] for t in match["tokens"]}
    assert sorted(tokens) == list(range(n)) and len(set(tokens.values())) == n
    # Play a few moves so that private information exists.
    for _ in range(6):
        public = client.get(f"/v1/matches/{mid}").json
        if public["terminal"]:
            break
        mover = public["current_player"]
        view = client.get(f"/v1/matches/{mid}", headers=seat_headers(tokens[mover])).json
        r = client.post(
            f"/v1/matches/{mid}/actions",
            json={"action": view["infoset"]["view"]["legal_actions"][-1]["struct"]},
            headers=seat_headers(tokens[mover]),
        )
        assert r.status_code == 200, r.json
    engine = replay(app, public)
    for seat, token in tokens.items():
        view = client.get(f"/v1/matches/{mid}", headers=seat_headers(token)).json
        assert view["seat"] == seat
        assert view["infoset"] == build_infoset(defn, view["params"], engine, seat)
        for other in range(n):
            if other == seat:
                continue
            theirs = build_infoset(defn, view["params"], engine, other, with_view=False)
            mine = view["infoset"]["private"]
            secret = [e for e in theirs["private"] if e not in mine]
            text = json.dumps(view)
            for entry in secret:
                assert json.dumps(entry) not in text
    public = client.get(f"/v1/matches/{mid}").json
    assert "infoset" not in public and "seat" not in public and "legal_actions" not in public
    assert public["events"] == build_infoset(defn, public["params"], engine, 0)["events"]
    # A token of another match, or a made-up one, opens nothing.
    other = create(client, game, ["human"] * n, seed=9)
    r = client.get(f"/v1/matches/{mid}", headers=seat_headers(other["tokens"][0]["token"]))
    assert r.status_code == 403 and r.json["code"] == "bad_token"
    assert client.get(f"/v1/matches/{mid}", headers=seat_headers("guess")).status_code == 403


@pytest.mark.parametrize("game", GAMES)
def test_refused_moves_change_nothing(app, client, game):
    defn = games.definition(game)
    n = defn.min_players
    match = create(client, game, ["human"] * n, seed=3)
    mid = match["match_id"]
    tokens = {t["seat"]: t["token"] for t in match["tokens"]}
    public = client.get(f"/v1/matches/{mid}").json
    mover = public["current_player"]
    waiting = (mover + 1) % n
    before = replay(app, public).history
    view = client.get(f"/v1/matches/{mid}", headers=seat_headers(tokens[mover])).json
    legal = view["infoset"]["view"]["legal_actions"][0]
    illegal_id = 10**6
    attempts = [
        (tokens[waiting], legal["struct"], 409, "not_your_turn"),
        (tokens[mover], {"type": "no_such_move"}, 422, "invalid_action"),
        (tokens[mover], illegal_id, 422, "invalid_action"),
        (tokens[mover], {"type": legal["struct"]["type"], "bogus": 1}, 422, "invalid_action"),
        ("not-a-token", legal["struct"], 403, "bad_token"),
        (None, legal["struct"], 401, "missing_token"),
    ]
    for token, action, status, code in attempts:
        headers = {} if token is None else seat_headers(token)
        r = client.post(f"/v1/matches/{mid}/actions", json={"action": action}, headers=headers)
        assert r.status_code == status and r.json["code"] == code, (action, r.json)
        assert replay(app, public).history == before
    r = client.post(
        f"/v1/matches/{mid}/actions", json={"action": True}, headers=seat_headers(tokens[mover])
    )
    assert r.status_code == 422
    h = client.get(f"/v1/matches/{mid}/hint", headers=seat_headers(tokens[waiting]))
    assert h.status_code == 409 and h.json["code"] == "not_your_turn"
    assert client.get(f"/v1/matches/{mid}/hint").status_code == 401
    # The legal move by the right seat is accepted and applied once.
    r = client.post(
        f"/v1/matches/{mid}/actions",
        json={"action": legal["id"]},
        headers=seat_headers(tokens[mover]),
    )
    assert r.status_code == 200
    assert replay(app, public).history[: len(before) + 1] == [*before, legal["id"]]


def test_match_creation_errors_name_the_field(client):
    cases = [
        ({"game": "chess", "seats": ["human", "random"]}, 404, "unknown_game"),
        ({"game": "gallery_rush", "seats": ["random", "random"]}, 422, "invalid_request"),
        ({"game": "gallery_rush", "seats": ["human", "nobody"]}, 422, "invalid_bot"),
        ({"game": "gallery_rush", "seats": ["human"] * 3, "params": {"players": 2}}, 422, None),
        ({"game": "gallery_rush", "seats": ["human"] * 9}, 422, "invalid_params"),
        ({"game": "gallery_rush", "seats": []}, 422, "invalid_request"),
        ({"game": "gallery_rush", "seats": ["human", "random"], "seed": -3}, 422, None),
        ({"game": "gallery_rush", "seats": ["human", {"name": "random", "x": 1}]}, 422, None),
    ]
    for body, status, code in cases:
        r = client.post("/v1/matches", json=body)
        assert r.status_code == status, (body, r.json)
        if code:
            assert r.json["code"] == code, r.json
    r = client.post("/v1/matches", json={"game": "gallery_rush", "seats": ["human", "nobody"]})
    assert "seats[1]" in r.json["message"]
    assert client.get("/v1/matches/" + "0" * 32).status_code == 404


def test_matches_survive_a_restart_and_resume_interrupted_bots(tmp_path):
    game = "gallery_rush"
    app = make_app(tmp_path, search_workers=1)
    c = app.test_client()
    # A reproducible deal: on a deal the server draws, random bots end the game before seat
    # 0's first move about once in 160 (128 of 20,000 seeded deals), leaving no human move to
    # cut back to (a flaky failure).
    match = create(
        c, game, ["human", "random", "random"], seed=12, reproducible=True, params={"players": 3}
    )
    mid, token = match["match_id"], match["tokens"][0]["token"]
    for _ in range(3):
        view = c.get(f"/v1/matches/{mid}", headers=seat_headers(token)).json
        if view["terminal"]:
            break
        r = c.post(
            f"/v1/matches/{mid}/actions",
            json={"action": view["infoset"]["view"]["legal_actions"][0]["struct"]},
            headers=seat_headers(token),
        )
        assert r.status_code == 200
    before = c.get(f"/v1/matches/{mid}", headers=seat_headers(token)).json
    close_app(app)
    # A new server process on the same database: same match, same view.
    app2 = make_app(tmp_path, search_workers=1)
    try:
        c2 = app2.test_client()
        after = c2.get(f"/v1/matches/{mid}", headers=seat_headers(token)).json
        assert after == before
        # Simulate a crash in the middle of the bots' moves: cut the stored history back to
        # just after seat 0's last move. The next request replays the same bot moves (seeds
        # derive from the match seed and the step).
        engine = replay(app2, after)
        defn = games.definition(game)
        last_human = max(
            i for i in range(len(engine.history)) if _mover_at(defn, after, engine, i) == 0
        )
        cut = replay_history(defn, after["params"], engine.history[: last_human + 1])
        with sqlite3.connect(app2.config["ATELIER"].match_db) as con:
            con.execute(
                "UPDATE matches SET history = ? WHERE id = ?", (json.dumps(cut.history), mid)
            )
        assert len(cut.history) < len(engine.history)  # the bots had moved after seat 0
        resumed = c2.get(f"/v1/matches/{mid}", headers=seat_headers(token)).json
        assert resumed == after
    finally:
        close_app(app2)


def _mover_at(defn, view, engine, index):
    return replay_history(defn, view["params"], engine.history[:index]).current_player()


def test_a_reproducible_deal_and_the_bot_seeds_follow_the_one_seed_derivation(app, client):
    """Chance steps draw from derive_seed(seed, "chance", step), bots from (seed, "bot", step)."""
    import random

    import bots
    from games.core.engine import CHANCE
    from games.core.seeds import derive_seed
    from server.schemas import MAX_SEED

    seats = ["random", "random", "human"]
    params = {"players": 3}
    match = create(client, "detective_eye", seats, seed=77, reproducible=True, params=params)
    played = replay(app, match).history
    defn = games.definition("detective_eye")
    engine = defn.new_engine(match["params"])
    for step, action in enumerate(played):
        if engine.current_player() == CHANCE:
            expected = engine.sample_chance(random.Random(derive_seed(77, "chance", step)))
        else:  # the random bot draws from its hint seed
            infoset = build_infoset(defn, match["params"], engine, engine.current_player())
            seed = derive_seed(77, "bot", step) % (MAX_SEED + 1)
            budget = bots.Budget(simulations=1)
            hint = bots.make_bot("random").hint(defn, match["params"], infoset, budget, seed)
            expected = hint.action
        assert action == expected, f"step {step}"
        engine.apply(action)
    # Three deals and the two bots' passes were checked; the human passes next.
    assert engine.current_player() == 2 and len(played) == 5


# --- a store that fails after the human's move is stored -----------------------------------------
def _fail_saves_after(monkeypatch, store, good: int) -> None:
    """Lets ``good`` history saves through, then makes every save fail as a database that has
    stopped answering would (``StoreUnavailable``)."""
    from server.store import StoreUnavailable

    real = store.save_history
    calls = [0]

    def save_history(record):
        calls[0] += 1
        if calls[0] > good:
            raise StoreUnavailable("the match database test did not answer: stopped")
        return real(record)

    monkeypatch.setattr(store, "save_history", save_history)


def test_a_store_failure_after_the_human_move_answers_200_with_a_warning(tmp_path, monkeypatch):
    """The human's move is committed, then saving the bots' replies fails: the answer is 200
    (not a 503, which promises nothing was written) with a warning, shows only what is stored,
    and a retry with ``step`` changes nothing; the bots move on the next request."""
    app = make_app(tmp_path, search_workers=1)
    try:
        c = app.test_client()
        match = create(c, "gallery_rush", ["human", "random"], seed=1, reproducible=True)
        mid, token = match["match_id"], match["tokens"][0]["token"]
        view = c.get(f"/v1/matches/{mid}", headers=seat_headers(token)).json
        assert view["status"] == "waiting"
        before = replay(app, view).history
        body = {"action": view["infoset"]["view"]["legal_actions"][0]["struct"]}
        store = app.extensions["atelier.matches"].store
        with monkeypatch.context() as patch:
            _fail_saves_after(patch, store, good=1)  # the human's move, then the bots' fail
            r = c.post(f"/v1/matches/{mid}/actions", json=body, headers=seat_headers(token))
        assert r.status_code == 200, r.json
        assert "did not answer" in r.json["warning"] and "next request" in r.json["warning"]
        stored = replay(app, view).history
        assert len(stored) == len(before) + 1  # exactly the human's move
        # The answer shows what is stored: no bot move that might be played otherwise later.
        assert r.json["step"] == len(stored) and r.json["status"] == "bots_to_move"
        assert [m["step"] for m in r.json["moves"]] == [view["step"]]
        # The client repeats the move with its step (the documented way): nothing changes.
        again = {**body, "step": view["step"]}
        r = c.post(f"/v1/matches/{mid}/actions", json=again, headers=seat_headers(token))
        assert r.status_code == 200 and r.json["retried"] is True, r.json
        assert replay(app, view).history == stored
        # The next request plays the bots' replies.
        after = c.get(f"/v1/matches/{mid}", headers=seat_headers(token)).json
        assert after["step"] > len(stored) and replay(app, view).history[: len(stored)] == stored
    finally:
        close_app(app)


def test_a_store_failure_after_a_creation_still_hands_out_the_tokens(tmp_path, monkeypatch):
    """The match row is committed, then saving the deal (chance's and the bots' moves) fails:
    201 with the tokens and a warning, not a 503 that leaves a match nobody can open."""
    app = make_app(tmp_path, search_workers=1)
    try:
        c = app.test_client()
        store = app.extensions["atelier.matches"].store
        with monkeypatch.context() as patch:
            _fail_saves_after(patch, store, good=0)
            match = create(c, "gallery_rush", ["random", "human"], seed=1, reproducible=True)
        assert "did not answer" in match["warning"]
        assert match["step"] == 0 and match["moves"] == [] and match["status"] == "bots_to_move"
        token = match["tokens"][0]["token"]
        view = c.get(f"/v1/matches/{match['match_id']}", headers=seat_headers(token)).json
        assert view["step"] > 0 and view["seat"] == 1
    finally:
        close_app(app)


# --- the match quota ---------------------------------------------------------------------------
HUMANS_ONLY = {"game": "detective_eye", "seats": ["human", "human"]}  # no bot work to wait for


def _slow_match_inserts(conn, cursor, statement, parameters, context, executemany):
    """A loaded database: each match insert takes 20 ms, so creates overlap as under load."""
    if statement.lstrip().upper().startswith("INSERT INTO MATCHES"):
        time.sleep(0.02)


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_db(request, tmp_path):
    """The match database two instances share: a SQLite file, or a fresh PostgreSQL database
    when ``ATELIER_TEST_POSTGRES_URL`` names a server (see tests/postgres_support.py)."""
    if request.param == "sqlite":
        yield str(tmp_path / "shared.sqlite3")
    else:
        from tests.postgres_support import fresh_database

        with fresh_database("quota") as url:
            yield url


def test_concurrent_creates_on_two_instances_stop_at_the_quota(tmp_path, shared_db):
    """Creates from one address racing on two instances that share one database: exactly the
    quota gets 201, the others 429 ``match_quota`` (a check before a separate insert let 14 or
    15 of 16 through a quota of 3 on SQLite)."""
    quota, tries = 3, 16
    apps = [
        make_app(tmp_path, search_workers=1, match_quota_per_client=quota, match_db=shared_db)
        for _ in "ab"
    ]
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", _slow_match_inserts)
    try:
        barrier = threading.Barrier(tries)

        def attempt(i: int) -> int:
            client = apps[i % 2].test_client()
            barrier.wait(timeout=60)
            return client.post("/v1/matches", json=HUMANS_ONLY).status_code

        with ThreadPoolExecutor(tries) as pool:
            statuses = sorted(pool.map(attempt, range(tries)))
        assert statuses == [201] * quota + [429] * (tries - quota)
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", _slow_match_inserts)
        for app in apps:
            close_app(app)


def test_expired_matches_leave_the_quota_at_once(tmp_path, monkeypatch):
    """A match that answers 404 as expired holds no place in the quota, though the purge (at
    most once a minute) has not deleted it yet."""
    app = make_app(tmp_path, search_workers=1, match_quota_per_client=2, match_idle_expiry_s=30)
    try:
        c = app.test_client()
        made = [c.post("/v1/matches", json=HUMANS_ONLY) for _ in range(3)]
        assert [r.status_code for r in made] == [201, 201, 429]
        # 45 s on: past the expiry, short of the next purge (at most once a minute).
        later = types.SimpleNamespace(time=lambda: time.time() + 45.0)
        for module in ("server.matches", "server.store"):
            monkeypatch.setattr(f"{module}.time", later)
        assert c.get(f"/v1/matches/{made[0].json['match_id']}").status_code == 404
        r = c.post("/v1/matches", json=HUMANS_ONLY)
        assert r.status_code == 201, r.json
        with sqlite3.connect(app.config["ATELIER"].match_db) as con:
            assert con.execute("SELECT count(*) FROM matches").fetchone()[0] == 3  # not purged
    finally:
        close_app(app)


# --- a seed without "reproducible" -------------------------------------------------------------
def test_a_seed_without_reproducible_is_ignored_with_a_warning(client):
    """The documented rule (the server draws the deal; a client's seed only with
    ``reproducible``) is said in the answer, not applied in silence."""
    m = create(client, "detective_eye", ["human", "human"], seed=4242)
    assert "reproducible" not in m
    assert any("'seed'" in w and "'reproducible'" in w for w in m["warnings"]), m
    chosen = create(client, "detective_eye", ["human", "human"], seed=4242, reproducible=True)
    r = client.post("/v1/matches", json={"game": "detective_eye", "seats": ["human", "human"]})
    assert r.status_code == 201
    for quiet in (chosen, r.json):
        assert "warnings" not in quiet, quiet
