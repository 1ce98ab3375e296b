"""Fleet edges (issue 42, item 8): real ``atelier serve`` instances sharing PostgreSQL and Redis,
through what a fleet meets in production but ``tests/test_fleet.py`` does not try:

* Redis restarted empty in the middle of matches: the instances answer 503
  ``redis_unavailable`` during the outage only (never 500), the limits and the cache rebuild in
  the new Redis, and every acknowledged move is in its match;
* PostgreSQL restarted under moves from 16 concurrent clients (each its own match, each move
  with its ``step``): errors only 503 with a code during the outage, and afterwards each
  match's stored history holds exactly the moves its client saw acknowledged (none lost, none
  twice);
* instances whose clocks differ by a few seconds (``ATELIER_CLOCK_OFFSET_S``, see
  ``server/clock.py``): a match expires when the database's clock says so, whichever instance
  moved it or reads it, and a quota counts the same matches on every instance.

The PostgreSQL and the Redis restarted here are this module's own (``.ci/postgres.sh``,
``.ci/redis.sh``, each on a free port), so the servers the rest of the suite shares are left
alone. Skips locally unless ``ATELIER_TEST_POSTGRES_URL`` or ``ATELIER_REQUIRE_SERVER_TESTS=1``
is set (as ``.ci/run`` does); fails in CI if a server cannot start. Every scenario is bounded:
a move budget per client, a deadline per outage, a timeout per test.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import games
from evaluation.bench import service as bench
from games.core.engine import CHANCE
from server.store import open_store, parse_url
from tests.live_server import KEYS, Server, start_server
from tests.server_support import quick_params

REQUIRED = os.environ.get("ATELIER_REQUIRE_SERVER_TESTS") == "1"
ROOT = Path(__file__).resolve().parent.parent
KEY = KEYS[0]
# One search worker each: the servers share the machine with the rest of the suite.
BASE_ENV = {"ATELIER_SEARCH_WORKERS": "1", "ATELIER_MATCH_QUOTA_PER_CLIENT": "0"}
OUTAGE_S = 1.5  # how long Redis or PostgreSQL stays down
PATIENCE_S = 40.0  # how long a client waits out 503s before giving up on a request
RECOVERY_S = 3.0  # 503s may go on this long once the back-end is up again (stale connections)

pytestmark = pytest.mark.timeout(240)


def _gate() -> None:
    """These tests start servers: run them where the suite's servers run (CI, or locally
    with a PostgreSQL URL set); skip elsewhere."""
    if not (REQUIRED or os.environ.get("ATELIER_TEST_POSTGRES_URL")):
        pytest.skip("fleet edges run with ATELIER_REQUIRE_SERVER_TESTS=1 (as in .ci/run)")


def _script(*args: str) -> str:
    """Runs a ``.ci`` script; its stdout. A failure fails (or, locally, skips) the test."""
    done = subprocess.run(
        [str(ROOT / ".ci" / args[0]), *args[1:]], capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        message = f".ci/{args[0]} {args[1]} failed: {done.stderr.strip()[-500:]}"
        if REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    return done.stdout


@dataclass
class Backends:
    """This module's own PostgreSQL cluster and Redis, which its tests may restart."""

    pg_dir: str
    pg_url: str
    redis_dir: str
    redis_url: str

    def database(self, tag: str) -> str:
        """A new, empty database on the cluster; its URL."""
        import sqlalchemy as sa

        name = f"edges_{tag}_{uuid.uuid4().hex[:8]}"
        admin = sa.create_engine(
            parse_url(self.pg_url), isolation_level="AUTOCOMMIT", poolclass=sa.NullPool
        )
        with admin.connect() as db:
            db.exec_driver_sql(f'CREATE DATABASE "{name}"')
        admin.dispose()
        return self.pg_url.rsplit("/", 1)[0] + "/" + name

    def restart_postgres(self) -> None:
        _script("postgres.sh", "restart", self.pg_dir, str(OUTAGE_S))

    def restart_redis(self) -> None:
        _script("redis.sh", "restart", self.redis_dir, str(OUTAGE_S))


@pytest.fixture(scope="module")
def backends() -> Iterator[Backends]:
    _gate()
    pg_dir = tempfile.mkdtemp(prefix="atelier-edges-pg.")  # its parents: searchable by all
    try:
        pg_url = _script("postgres.sh", "start", pg_dir).strip()
        exports = dict(
            line.removeprefix("export ").split("=", 1)
            for line in _script("redis.sh", "start", str(bench.free_port())).splitlines()
        )
        try:
            yield Backends(
                pg_dir, pg_url, exports["ATELIER_TEST_REDIS_DIR"], exports["ATELIER_TEST_REDIS_URL"]
            )
        finally:
            subprocess.run([str(ROOT / ".ci/redis.sh"), "stop", exports["ATELIER_TEST_REDIS_DIR"]])
    finally:
        subprocess.run([str(ROOT / ".ci/postgres.sh"), "stop", pg_dir])
        shutil.rmtree(pg_dir, ignore_errors=True)


def start_fleet(
    tmp: Path, name: str, db: str, envs: list[dict[str, str]], args: tuple[str, ...] = ()
) -> list[Server]:
    """One instance per entry of ``envs`` (added to ``BASE_ENV``), all on ``db``, started
    together (they create its schema together, as a fleet's first start does)."""
    started: dict[int, Server] = {}
    errors: list[BaseException] = []

    def start(i: int) -> None:
        try:
            started[i] = start_server(tmp, f"{name}{i}", {**BASE_ENV, **envs[i]}, args, db=db)
        except BaseException as err:  # pytest's skip and fail are BaseExceptions
            errors.append(err)

    threads = [threading.Thread(target=start, args=(i,)) for i in range(len(envs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        stop_fleet(list(started.values()))
        raise errors[0]
    return [started[i] for i in range(len(envs))]


def stop_fleet(servers: list[Server]) -> None:
    for server in servers:
        bench.stop_server(server.process)


class Patient:
    """A client behind a round-robin balancer that waits out an outage: a 503 is retried
    (on the next instance, after 0.2 s) for up to ``PATIENCE_S``, its code counted; any other
    5xx is recorded and fails the request."""

    def __init__(self, servers: list[Server], start: int = 0, key: str = KEY) -> None:
        self.servers, self.next, self.key = servers, start, key
        self.unavailable: Counter[str] = Counter()  # code of each 503 answer
        self.last_unavailable = 0.0  # when the last 503 came (time.monotonic())
        self.errors: list[tuple[str, str, int, Any]] = []

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"X-Seat-Token": token} if token else {}
        deadline = time.monotonic() + PATIENCE_S
        while True:
            server = self.servers[self.next % len(self.servers)]
            self.next += 1
            status, data, _ = server.request(method, path, body, key=self.key, **headers)
            if status == 503:
                code = data.get("code") if isinstance(data, dict) else None
                self.unavailable[str(code)] += 1
                self.last_unavailable = time.monotonic()
                assert time.monotonic() < deadline, f"{method} {path}: 503 for {PATIENCE_S} s"
                time.sleep(0.2)
                continue
            if status >= 500:
                self.errors.append((method, path, status, data))
                raise AssertionError(f"{method} {path}: {status} {data}")
            return status, data


@dataclass
class Player:
    """One client's match, and the moves it was answered 200 for (step -> action id)."""

    client: Patient
    game: str
    params: dict[str, Any]
    match_id: str
    tokens: dict[int, str]
    acked: dict[int, int] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return f"/v1/matches/{self.match_id}"


def open_match(client: Patient, game: str, seed: int) -> Player:
    """A match of ``game``'s quickest settings with every seat human (the client holds every
    token), its deal reproducible from ``seed``."""
    params = quick_params(game)
    body = {
        "game": game,
        "seats": ["human"] * params["players"],
        "params": params,
        "seed": seed,
        "reproducible": True,
    }
    status, match = client.request("POST", "/v1/matches", body)
    assert status == 201, match
    tokens = {t["seat"]: t["token"] for t in match["tokens"]}
    return Player(client, game, params, match["match_id"], tokens)


Chooser = Callable[[Player, int, str], int]


def hinted(player: Player, step: int, token: str) -> int:
    """The move a seeded random hint suggests (a search: cost limits and cache at work)."""
    status, hint = player.client.request(
        "GET", f"{player.path}/hint?bot=random&seed={step}", token=token
    )
    assert status == 200, hint
    return hint["action"]["id"]


def seeded_legal(player: Player, step: int, token: str) -> int:
    """A legal move drawn from the seat's view with a seed of the match and step (no search)."""
    status, view = player.client.request("GET", player.path, token=token)
    assert status == 200 and view["step"] == step, view
    ids: list[int] = []
    for action in view["infoset"]["view"]["legal_actions"]:
        if "range" in action:
            ids.extend(range(action["ids"]["min"], action["ids"]["max"] + 1))
        else:
            ids.append(action["id"])
    return random.Random(f"{player.match_id}:{step}").choice(ids)


def play(player: Player, choose: Chooser, max_moves: int, on_ack: Callable[[], None]) -> None:
    """Plays up to ``max_moves`` moves (or to the end), each sent with its step; each move
    answered 200 is recorded as acknowledged."""
    for _ in range(4 * max_moves):
        if len(player.acked) >= max_moves:
            return
        status, view = player.client.request("GET", player.path)
        assert status == 200, view
        if view["terminal"]:
            return
        if view["status"] != "waiting":
            continue
        step, token = view["step"], player.tokens[view["current_player"]]
        action = choose(player, step, token)
        body = {"action": action, "step": step}
        status, answer = player.client.request("POST", f"{player.path}/actions", body, token)
        assert status == 200, answer
        assert step not in player.acked, (step, answer)
        player.acked[step] = action
        on_ack()


def play_all(players: list[Player], choose: Chooser, max_moves: int, event: Callable[[int], None]):
    """Every player in its own thread; ``event(total)`` after each acknowledged move."""
    lock = threading.Lock()
    total = [0]
    failures: list[BaseException] = []

    def on_ack() -> None:
        with lock:
            total[0] += 1
            count = total[0]
        event(count)

    def run(player: Player) -> None:
        try:
            play(player, choose, max_moves, on_ack)
        except BaseException as err:
            failures.append(err)

    threads = [threading.Thread(target=run, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    assert not any(t.is_alive() for t in threads), "a client did not finish within 180 s"
    if failures:
        raise failures[0]


def lost_and_extra(db: str, player: Player) -> tuple[dict[int, int], dict[int, int]]:
    """Acknowledged moves missing from the stored history (or stored differently), and
    stored human moves nobody was answered 200 for (a move applied twice lands there)."""
    store = open_store(db)
    try:
        record = store.get(player.match_id)
    finally:
        store.close()
    assert record is not None, player.match_id
    engine = games.definition(player.game).new_engine(player.params)
    human: dict[int, int] = {}
    for step, action in enumerate(record.history):
        if engine.current_player() != CHANCE:
            human[step] = action
        engine.apply(action)
    lost = {s: a for s, a in player.acked.items() if human.get(s) != a}
    extra = {s: a for s, a in human.items() if s not in player.acked}
    return lost, extra


class Restart:
    """Restarts a back-end from a thread once ``at`` moves are acknowledged; remembers how
    many were acknowledged when it was up again (moves after that prove the fleet recovered)."""

    def __init__(self, at: int, restart: Callable[[], None]) -> None:
        self.at, self.restart = at, restart
        self.thread: threading.Thread | None = None
        self.moves_at_end: int | None = None
        self.ended = 0.0  # when the back-end was up again (time.monotonic())
        self.total = 0
        self.error: BaseException | None = None

    def __call__(self, total: int) -> None:
        self.total = max(self.total, total)
        if total == self.at and self.thread is None:
            self.thread = threading.Thread(target=self._run)
            self.thread.start()

    def _run(self) -> None:
        try:
            self.restart()
        except BaseException as err:
            self.error = err
        self.moves_at_end = self.total
        self.ended = time.monotonic()

    def join(self, clients: list[Patient]) -> int:
        """Moves acknowledged after the back-end was up again; fails if a client was answered
        503 later than ``RECOVERY_S`` after that."""
        assert self.thread is not None, f"fewer than {self.at} moves: nothing was restarted"
        self.thread.join(60)
        if self.error is not None:
            raise self.error
        assert self.moves_at_end is not None
        late = [c.last_unavailable - self.ended for c in clients]
        assert max(late) <= RECOVERY_S, f"503s up to {max(late):.1f} s after the restart"
        return self.total - self.moves_at_end


def check_matches(db: str, players: list[Player]) -> tuple[int, int, int]:
    """(acknowledged, lost, extra) over every match; fails naming the first bad match."""
    acked = lost = extra = 0
    for player in players:
        missing, unacked = lost_and_extra(db, player)
        assert not missing and not unacked, (player.match_id, missing, unacked, player.acked)
        acked += len(player.acked)
        lost += len(missing)
        extra += len(unacked)
    return acked, lost, extra


# --- (a) Redis restarted empty in the middle of matches ---------------------------------------
REDIS_ENV = {
    # Limits on, in Redis: high enough for the players, low enough to drain in a second.
    "ATELIER_RATE_LIMIT_PER_MINUTE": "3000",
    "ATELIER_RATE_LIMIT_BURST": "150",
    "ATELIER_CLIENT_MAX_SEARCHES": "2",
    "ATELIER_CLIENT_SEARCH_MS_PER_MINUTE": "600000",
}
REDIS_PLAYERS = 4


def test_redis_restarted_empty_mid_match_answers_503_only_and_rebuilds(backends, tmp_path):
    import redis

    db = backends.database("redis")
    servers = start_fleet(tmp_path, "redis", db, [REDIS_ENV] * 2, ("--redis", backends.redis_url))
    try:
        clients = [Patient(servers, i, KEYS[4 + i]) for i in range(REDIS_PLAYERS)]
        players = [open_match(c, "gallery_rush", 500 + i) for i, c in enumerate(clients)]
        restart = Restart(6, backends.restart_redis)
        play_all(players, hinted, 40, restart)
        after = restart.join(clients)
        assert after > 0, "every match ended before Redis was back: no move after the restart"
        assert not [e for c in clients for e in c.errors]
        outage = sum((c.unavailable for c in clients), Counter())
        assert set(outage) <= {"redis_unavailable"}, outage
        acked, lost, extra = check_matches(db, players)
        print(f"redis restart: {acked} acknowledged, {lost} lost, {extra} extra; 503s {outage}")

        # The limits live in the new Redis again: each player's request bucket and search time.
        fresh = redis.Redis.from_url(backends.redis_url)
        rate_keys = fresh.keys("{atelier}:rate:*")
        cost_keys = fresh.keys("{atelier}:cost:window:*")
        assert len(rate_keys) >= REDIS_PLAYERS and len(cost_keys) >= REDIS_PLAYERS
        # ... and hold: a client draining its bucket is refused within the burst (plus what
        # each instance may hold, plus the refill while draining).
        drain = Patient(servers, 0, "cheap")
        started, served = time.monotonic(), 0
        for _ in range(400):
            status, _ = drain.request("GET", "/v1/games")
            if status == 429:
                break
            served += 1
        allowed = 150 + 2 * 15 + 50 * (time.monotonic() - started) + 1
        assert status == 429 and served <= allowed, (served, allowed)
        # The cache fills again, shared: a hint stored through one instance is a hit on the
        # other (its near cache cannot have it).
        hint_path = "/v1/games/gallery_rush/hint"
        body = {"infoset": _an_infoset(), "bot": "random", "seed": 991}
        for server in servers:
            status, _, _ = server.request("POST", hint_path, body, key=KEY)
            assert status == 200
        cache = servers[1].details(KEY)["cache"]
        assert cache["fleet_hits"] >= 1 and cache["size"] >= 1, cache
        assert fresh.zcard("{atelier}:cache:lru") >= 1
    finally:
        stop_fleet(servers)


def _an_infoset() -> dict[str, Any]:
    from server.examples import example_infoset

    return example_infoset("gallery_rush")


# --- (b) PostgreSQL restarted under moves from 16 clients -------------------------------------
PG_CLIENTS = 16


def test_postgres_restarted_under_16_clients_loses_and_doubles_no_move(backends, tmp_path):
    db = backends.database("moves")
    servers = start_fleet(tmp_path, "pg", db, [{}] * 2)
    try:
        clients = [Patient(servers, i) for i in range(PG_CLIENTS)]
        players = [open_match(c, "gallery_rush", 700 + i) for i, c in enumerate(clients)]
        restart = Restart(3 * PG_CLIENTS, backends.restart_postgres)
        play_all(players, seeded_legal, 12, restart)
        after = restart.join(clients)
        assert after > 0, "every client stopped before PostgreSQL was back"
        assert not [e for c in clients for e in c.errors]
        outage = sum((c.unavailable for c in clients), Counter())
        assert set(outage) <= {"match_store_unavailable"}, outage
        acked, lost, extra = check_matches(db, players)
        # An outage is no crash: the 503s are not logged with tracebacks.
        for server in servers:
            assert "Traceback" not in Path(server.log_path).read_text(), server.log_path
        print(
            f"postgres restart: {acked} acknowledged ({after} after the restart), {lost} lost, "
            f"{extra} duplicated; 503s {outage}"
        )
    finally:
        stop_fleet(servers)


# --- (c) instances whose clocks differ by a few seconds ---------------------------------------
EXPIRY_S = 8.0
SKEW_S = 4.0  # instance 1's clock is this far ahead


def test_a_skewed_clock_changes_neither_expiry_nor_quotas(backends, tmp_path):
    """Instance 1's clock runs ``SKEW_S`` ahead. A match moved through instance 0 is still
    there for instance 1 at 5 s (it would be past ``EXPIRY_S`` by instance 1's clock), one
    moved through instance 1 is gone for instance 0 at 10 s (by instance 1's clock it was
    moved 4 s later); and instance 1's purge does not free a quota by deleting live matches."""
    db = backends.database("clock")
    env = {"ATELIER_MATCH_IDLE_EXPIRY_S": str(EXPIRY_S), "ATELIER_MATCH_QUOTA_PER_CLIENT": "2"}
    skewed = {**env, "ATELIER_CLOCK_OFFSET_S": str(SKEW_S)}
    servers = start_fleet(tmp_path, "clock", db, [env, skewed])
    try:
        quota = {i: Patient([s], 0, "cost-a") for i, s in enumerate(servers)}
        other = {i: Patient([s], 0, "cost-b") for i, s in enumerate(servers)}
        started = time.monotonic()
        first = open_match(other[0], "gallery_rush", 1)
        held = [open_match(quota[0], "gallery_rush", 1) for _ in range(2)]

        _sleep_until(started + 5.0)
        status, view = other[1].request("GET", first.path)
        assert status == 200, f"5 s after its last move, instance 1 says: {view}"
        status, answer = quota[1].request("POST", "/v1/matches", _body())
        assert status == 429 and answer["code"] == "match_quota", answer
        for match in held:
            assert quota[0].request("GET", match.path)[0] == 200

        moved = time.monotonic()
        second = open_match(other[1], "gallery_rush", 1)
        _sleep_until(moved + EXPIRY_S - 2.0)
        for client in other.values():
            status, view = client.request("GET", second.path)
            assert status == 200, view
        _sleep_until(moved + EXPIRY_S + 2.0)
        for client in other.values():
            for match in (first, second):
                status, view = client.request("GET", match.path)
                assert status == 404 and view["code"] == "unknown_match", view
    finally:
        stop_fleet(servers)


def _body() -> dict[str, Any]:
    params = quick_params("gallery_rush")
    return {
        "game": "gallery_rush",
        "seats": ["human"] * params["players"],
        "params": params,
        "seed": 1,
        "reproducible": True,
    }


def _sleep_until(when: float) -> None:
    time.sleep(max(0.0, when - time.monotonic()))
