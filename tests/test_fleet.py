"""A fleet: three real ``atelier serve`` instances sharing one PostgreSQL database (and one
Redis, when ``ATELIER_TEST_REDIS_URL`` names one), played as a client behind a load balancer
would play them.

Every request goes to the next instance in turn: a match is created on one, each of its moves
and hints goes to another. One instance is killed with SIGKILL in the middle of the matches,
and its clients go on with the others. Each match must end with exactly the history a single
instance (the control, on its own SQLite file) gives for the same seats, seed and moves: the
deal follows the match's reproducible seed, the bots and the hints their seeds, so any
difference is a move lost, doubled or interleaved. Concurrent copies of one move sent to
different instances must be applied once, as on one instance.

Skips locally without PostgreSQL (``.ci/postgres.sh``; see tests/postgres_support.py); fails
under ``ATELIER_REQUIRE_SERVER_TESTS=1``. Bounded: every loop has a request budget, and each
test its timeout.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

import games
from evaluation.bench import service as bench
from server.store import open_store
from tests.live_server import KEYS, Server, start_server
from tests.postgres_support import fresh_database
from tests.server_support import quick_params

REDIS_URL = os.environ.get("ATELIER_TEST_REDIS_URL", "")
KEY = KEYS[0]
# One search worker each (four servers share the machine); the per-client limits are not
# this test's subject (and, without Redis, are per instance).
FLEET_ENV = {
    "ATELIER_SEARCH_WORKERS": "1",
    "ATELIER_CLIENT_MAX_SEARCHES": "0",
    "ATELIER_CLIENT_SEARCH_MS_PER_MINUTE": "0",
    "ATELIER_MATCH_QUOTA_PER_CLIENT": "0",
}
INSTANCES = 3
MAX_REQUESTS = 2_000  # per match: far more than any of these games needs

pytestmark = pytest.mark.timeout(900)


@dataclass
class Fleet:
    servers: list[Server]
    control: Server
    db_url: str  # the fleet's PostgreSQL database
    control_db: str  # the control's SQLite file
    down: set[int] = field(default_factory=set)  # instances seen dead, shared by the clients


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Iterator[Fleet]:
    tmp = tmp_path_factory.mktemp("fleet")
    with fresh_database("fleet") as url:
        args = ("--redis", REDIS_URL) if REDIS_URL else ()
        names = [f"fleet{i}" for i in range(INSTANCES)]
        started: dict[str, Server] = {}
        errors: list[BaseException] = []

        def start(name: str, db: str | None, extra: tuple[str, ...]) -> None:
            try:
                started[name] = start_server(tmp, name, FLEET_ENV, extra, db=db)
            except BaseException as err:  # pytest's skip and fail are BaseExceptions
                errors.append(err)

        # All at once: the instances create the schema of one empty database together.
        threads = [threading.Thread(target=start, args=(n, url, args)) for n in names]
        threads.append(threading.Thread(target=start, args=("control", None, ())))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        try:
            if errors:
                raise errors[0]
            yield Fleet(
                [started[n] for n in names], started["control"], url, str(tmp / "control.sqlite3")
            )
        finally:
            for server in started.values():
                bench.stop_server(server.process)


class Rotation:
    """A client behind a round-robin balancer: each request goes to the next instance; one
    that does not answer is taken as down (for every client) and the request goes on to the
    next. Moves carry their step, so resending one that a dying instance may have stored is
    safe."""

    def __init__(self, servers: list[Server], start: int, down: set[int]) -> None:
        self.servers, self.next, self.down = servers, start, down
        self.failovers = 0
        self.answered_by: list[int] = []

    def request(self, method: str, path: str, body: Any = None, token: str | None = None):
        headers = {"X-Seat-Token": token} if token else {}
        for _ in range(2 * len(self.servers)):
            index = self.next % len(self.servers)
            self.next += 1
            if index in self.down:
                continue
            try:
                status, data, _ = self.servers[index].request(
                    method, path, body, key=KEY, **headers
                )
            except (OSError, http.client.HTTPException):
                self.down.add(index)
                self.failovers += 1
                continue
            self.answered_by.append(index)
            return index, status, data
        raise AssertionError(f"no instance answered {method} {path}")


def seats_for(players: int) -> list[str]:
    """Two human seats (two tokens to pass around) and bots in between."""
    return ["human", *["random"] * (players - 2), "human"]


def create(
    client: Rotation, game: str, seed: int, quick: bool = True
) -> tuple[str, dict[int, str]]:
    """A reproducible match (the deal follows ``seed``): the game's quickest conformance
    settings, or (``quick=False``) its defaults."""
    params = quick_params(game) if quick else games.definition(game).validate_params({})
    body = {
        "game": game,
        "seats": seats_for(params["players"]),
        "params": params,
        "seed": seed,
        "reproducible": True,
    }
    _, status, match = client.request("POST", "/v1/matches", body)
    assert status == 201, match
    return match["match_id"], {t["seat"]: t["token"] for t in match["tokens"]}


def human_turn(client: Rotation, match_id: str) -> dict[str, Any] | None:
    """The public view at the next human decision, ``None`` once the match is over."""
    for _ in range(50):
        _, status, view = client.request("GET", f"/v1/matches/{match_id}")
        assert status == 200, view
        if view["terminal"]:
            return None
        if view["status"] == "waiting":
            return view
    raise AssertionError(f"match {match_id} stays at {view['status']}")


def hinted_move(client: Rotation, match_id: str, token: str, step: int) -> int:
    """The move a seeded random hint suggests: the same on any instance, for the same step."""
    path = f"/v1/matches/{match_id}/hint?bot=random&seed={step}"
    _, status, hint = client.request("GET", path, token=token)
    assert status == 200, hint
    return hint["action"]["id"]


def play(client: Rotation, match_id: str, tokens: dict[int, str], after_move=None) -> None:
    """Plays a match to its end, each request to the next instance."""
    for moves in range(MAX_REQUESTS):
        view = human_turn(client, match_id)
        if view is None:
            return
        step, token = view["step"], tokens[view["current_player"]]
        action = hinted_move(client, match_id, token, step)
        body = {"action": action, "step": step}
        _, status, answer = client.request(
            "POST", f"/v1/matches/{match_id}/actions", body, token=token
        )
        assert status == 200, answer
        if after_move is not None:
            after_move(moves + 1)
    raise AssertionError(f"match {match_id} did not end within {MAX_REQUESTS} moves")


def stored_history(url: str, match_id: str) -> list[int]:
    store = open_store(url)
    try:
        found = store.get(match_id)
        assert found is not None, match_id
        return found.history
    finally:
        store.close()


def control_history(
    fleet: Fleet, game: str, seed: int, quick: bool = True
) -> tuple[list[int], dict[int, Any]]:
    """The history of the same match played on the control, and each seat's final view."""
    client = Rotation([fleet.control], 0, set())
    match_id, tokens = create(client, game, seed, quick)
    play(client, match_id, tokens)
    return stored_history(fleet.control_db, match_id), final_views(client, match_id, tokens)


def final_views(client: Rotation, match_id: str, tokens: dict[int, str]) -> dict[int, Any]:
    views = {}
    for seat, token in tokens.items():
        _, status, view = client.request("GET", f"/v1/matches/{match_id}", token=token)
        assert status == 200 and view["terminal"], view
        views[seat] = {k: v for k, v in view.items() if k != "match_id"}
    return views


# --- concurrent copies of a move, through different instances ---------------------------------
def test_copies_of_a_move_sent_to_every_instance_at_once_apply_it_once(fleet):
    """The race test of one instance (tests/test_server_hardening.py), with each copy sent to
    a different instance: no per-process lock is shared, only the revision check."""
    game, seed = "gallery_rush", 404
    hints = Rotation(fleet.servers, 0, fleet.down)
    match_id, tokens = create(hints, game, seed)
    decisions = 0
    while (view := human_turn(hints, match_id)) is not None:
        step, token = view["step"], tokens[view["current_player"]]
        body = {"action": hinted_move(hints, match_id, token, step), "step": step}
        answers: list[tuple[int, Any]] = []
        barrier = threading.Barrier(INSTANCES)

        def send(server: Server, body=body, token=token, barrier=barrier, answers=answers):
            barrier.wait(30)
            status, data, _ = server.request(
                "POST", f"/v1/matches/{match_id}/actions", body, key=KEY, **{"X-Seat-Token": token}
            )
            answers.append((status, data))

        threads = [threading.Thread(target=send, args=(s,)) for s in fleet.servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert [s for s, _ in answers] == [200] * INSTANCES, answers
        assert sum(1 for _, a in answers if not a.get("retried")) == 1, answers
        assert stored_history(fleet.db_url, match_id)[step] == body["action"]
        decisions += 1
        assert decisions < MAX_REQUESTS
    expected, views = control_history(fleet, game, seed)
    assert stored_history(fleet.db_url, match_id) == expected
    assert final_views(hints, match_id, tokens) == views


# --- matches across the fleet, one instance killed ---------------------------------------------
GAMES_PLAYED = [("gallery_rush", 11), ("finger_auction", 12), ("detective_eye", 13)]
KILLED = 2  # the instance killed; match 0's client kills it after its third move


def test_matches_across_the_fleet_survive_a_killed_instance_and_match_the_control(fleet):
    assert not fleet.down, "an earlier test lost an instance"
    clients = [Rotation(fleet.servers, i, fleet.down) for i in range(len(GAMES_PLAYED))]
    created = [
        create(c, game, seed, quick=False)
        for c, (game, seed) in zip(clients, GAMES_PLAYED, strict=True)
    ]
    # Each match was created on its own instance (the first request of each client).
    assert [c.answered_by[0] for c in clients] == [0, 1, 2]
    killed = threading.Event()

    def kill_after(moves: int) -> None:
        if moves == 3 and not killed.is_set():
            os.killpg(fleet.servers[KILLED].process.pid, signal.SIGKILL)
            fleet.servers[KILLED].process.wait(30)
            killed.set()

    failures: list[BaseException] = []

    def run(i: int) -> None:
        match_id, tokens = created[i]
        try:
            play(clients[i], match_id, tokens, kill_after if i == 0 else None)
        except BaseException as err:
            failures.append(err)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert not any(t.is_alive() for t in threads), "a match did not finish in 600 s"
    if failures:
        raise failures[0]
    assert killed.is_set(), "match 0 ended before its third move: nothing was killed mid-match"
    assert fleet.down == {KILLED}
    # Clients did meet the dead instance, and moved on; every instance answered some requests.
    assert sum(c.failovers for c in clients) >= 1
    assert {i for c in clients for i in c.answered_by} == set(range(INSTANCES))
    live = Rotation(fleet.servers, 0, fleet.down)
    for (game, seed), (match_id, tokens) in zip(GAMES_PLAYED, created, strict=True):
        expected, views = control_history(fleet, game, seed, quick=False)
        got = stored_history(fleet.db_url, match_id)
        assert got == expected, (game, json.dumps(got), json.dumps(expected))
        assert final_views(live, match_id, tokens) == views, game
