"""The match store, the same suite on both back-ends: SQLite always, PostgreSQL when
``ATELIER_TEST_POSTGRES_URL`` names a server (required in CI; see tests/postgres_support.py).

What is checked is what the service relies on: a record comes back as it went in, a write with
a stale revision changes nothing (also between processes racing on one row), the quota and
expiry queries, and the schema: created at first use, versioned, old files upgraded in place.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from server.config import ConfigError, ServiceConfig
from server.store import (
    SCHEMA_VERSION,
    Expiry,
    MatchRecord,
    StaleRevision,
    StoreError,
    open_store,
    parse_url,
)
from server.urls import redacted_url
from tests.postgres_support import fresh_database

BACKENDS = ["sqlite", "postgresql"]
NEVER = Expiry(idle_s=1e12, finished_s=1e12)  # no match expires


@pytest.fixture(params=BACKENDS)
def db_url(request, tmp_path) -> Iterator[str]:
    """An empty match database of each back-end."""
    if request.param == "sqlite":
        yield str(tmp_path / "matches.sqlite3")
    else:
        with fresh_database("store") as url:
            yield url


@pytest.fixture
def store(db_url):
    s = open_store(db_url)
    yield s
    s.close()


def record(match_id: str = "m1", **changes) -> MatchRecord:
    now = time.time()
    fields = dict(
        id=match_id,
        game="gallery_rush",
        version=1,
        params={"players": 3},
        seats=[{"kind": "human", "bot": None}, {"kind": "bot", "bot": {"name": "random"}}],
        token_hashes={0: "ab" * 32, 2: "cd" * 32},
        budget={"milliseconds": 200.0},
        seed=2**32 - 1,  # the largest seed a client may give
        history=[],
        revision=0,
        created_at=now,
        updated_at=now,
        client="c" * 64,
    )
    fields.update(changes)
    return MatchRecord(**fields)


# --- records -----------------------------------------------------------------------------------
def test_a_record_comes_back_as_it_went_in(store):
    original = record(reproducible=True)
    store.insert(original)
    assert store.get("m1") == original
    assert store.get("nope") is None
    assert store.count() == 1


def test_a_stale_revision_changes_nothing(store):
    store.insert(record())
    first, second = store.get("m1"), store.get("m1")
    first.history = [4, 7]
    store.save_history(first)
    assert first.revision == 1
    second.history = [5]
    second.finished = True
    with pytest.raises(StaleRevision, match="m1"):
        store.save_history(second)
    stored = store.get("m1")
    assert stored.history == [4, 7] and stored.revision == 1 and not stored.finished
    # The winner goes on from its new revision.
    first.history.append(9)
    first.finished = True
    store.save_history(first)
    stored = store.get("m1")
    assert stored.history == [4, 7, 9] and stored.revision == 2 and stored.finished


def test_saving_a_deleted_match_is_stale(store):
    store.insert(record())
    loaded = store.get("m1")
    assert store.delete("m1") is True
    assert store.delete("m1") is False
    with pytest.raises(StaleRevision):
        store.save_history(loaded)
    assert store.count() == 0


def test_quota_and_expiry_queries(store):
    now = 1_000_000.0
    expiry = Expiry(idle_s=60, finished_s=40)
    store.insert(record("idle", updated_at=now - 100))
    store.insert(record("fresh", updated_at=now - 1))
    store.insert(record("done", updated_at=now - 50, finished=True))
    store.insert(record("other", client="d" * 64, updated_at=now - 1))
    assert store.active_count("c" * 64, NEVER, now) == 2  # the finished one does not count
    # An expired match (a read answers 404) holds no place in the quota, purged or not.
    assert store.active_count("c" * 64, expiry, now) == 1
    assert [expiry.expired(store.get(m), now) for m in ("idle", "fresh", "done")] == [
        True,
        False,
        True,
    ]
    assert store.active_count("e" * 64, expiry, now) == 0
    # Unfinished: idle longer than 60 s goes; finished: older than 40 s goes.
    assert store.purge(expiry, now=now) == 2
    assert sorted(r for r in ("idle", "fresh", "done", "other") if store.get(r)) == [
        "fresh",
        "other",
    ]


def test_concurrent_creates_never_exceed_the_quota(db_url):
    """Creates racing in threads of two stores (two service instances) on one database: the
    count and the insert are one step per client, so exactly ``quota`` go in (a count, then a
    separate insert, let 150 racing creates through a quota of 100). Another client is not
    held back, and expired matches leave room."""
    stores = [open_store(db_url), open_store(db_url)]
    try:
        for s in stores:
            s.check()  # the schema exists before the race
        stores[0].insert(record("stale", updated_at=time.time() - 1000))
        expiry, quota, tries = Expiry(idle_s=600, finished_s=600), 5, 24
        barrier = threading.Barrier(tries)

        def attempt(i: int) -> bool:
            barrier.wait(timeout=60)
            client = "d" * 64 if i == tries - 1 else "c" * 64
            return stores[i % 2].insert_within_quota(record(f"m{i}", client=client), quota, expiry)

        with ThreadPoolExecutor(tries) as pool:
            created = list(pool.map(attempt, range(tries)))
        assert sum(created[:-1]) == quota and created[-1] is True
        assert stores[1].active_count("c" * 64, expiry) == quota
        assert stores[1].count() == quota + 2  # and the expired one, not yet purged
    finally:
        for s in stores:
            s.close()


# --- the schema --------------------------------------------------------------------------------
def test_a_new_database_gets_the_current_schema_version(store, db_url):
    assert store.check() == {
        "db": redacted_url(db_url),
        "backend": "sqlite" if "://" not in db_url else "postgresql",
        "schema_version": SCHEMA_VERSION,
    }
    # Opening it again (another instance, a restart) keeps what is there.
    store.insert(record())
    again = open_store(db_url)
    try:
        assert again.check()["schema_version"] == SCHEMA_VERSION
        assert again.get("m1") == store.get("m1")
    finally:
        again.close()


def test_a_new_sqlite_file_another_process_writes_opens_when_it_is_done(tmp_path):
    """The first use of a new SQLite file waits for another connection's write, as any lock
    is waited for.

    SQLite refuses the switch to WAL at once, without waiting, while another connection writes
    the file: two instances opening one new file at once made one's first request a 503
    ("database is locked"). Here the other connection writes for 0.3 s."""
    path = tmp_path / "new.sqlite3"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("CREATE TABLE other (x)")
    done = threading.Timer(0.3, lambda: writer.execute("COMMIT"))
    done.start()
    store = open_store(str(path))
    try:
        assert store.check()["schema_version"] == SCHEMA_VERSION
    finally:
        done.join()
        writer.close()
        store.close()


V1_TABLE = """CREATE TABLE matches (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, version INTEGER NOT NULL, params TEXT NOT NULL,
    seats TEXT NOT NULL, token_hashes TEXT NOT NULL, budget TEXT NOT NULL,
    seed BIGINT NOT NULL, history TEXT NOT NULL, revision INTEGER NOT NULL,
    created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL)"""
V1_ROW = (
    "INSERT INTO matches VALUES ('old', 'gallery_rush', 1, '{\"players\": 3}', '[]', "
    "'{\"0\": \"ff\"}', '{}', 12, '[3, 1, 4]', 5, 10.0, 20.0)"
)


def test_a_version_1_database_is_upgraded_in_place(db_url):
    """Version 1 had no client, finished or reproducible columns (and no version table)."""
    raw = sa.create_engine(parse_url(db_url), poolclass=sa.NullPool)
    with raw.begin() as db:
        db.exec_driver_sql(V1_TABLE)
        db.exec_driver_sql(V1_ROW)
    raw.dispose()
    store = open_store(db_url)
    try:
        assert store.check()["schema_version"] == SCHEMA_VERSION
        old = store.get("old")
        assert (old.history, old.revision, old.token_hashes) == ([3, 1, 4], 5, {0: "ff"})
        assert (old.client, old.finished, old.reproducible) == ("", False, False)
        old.history.append(1)
        store.save_history(old)
        assert store.get("old").history == [3, 1, 4, 1]
        assert store.active_count("", NEVER) == 1
    finally:
        store.close()


def test_a_version_2_sqlite_file_keeps_working(tmp_path):
    """A file written by the store before the version table (SQLite's user_version = 2)."""
    path = tmp_path / "matches.sqlite3"
    with sqlite3.connect(path) as con:
        con.execute(V1_TABLE)
        con.execute(V1_ROW)
        for column in ("client TEXT NOT NULL DEFAULT ''", "finished INTEGER NOT NULL DEFAULT 0"):
            con.execute(f"ALTER TABLE matches ADD COLUMN {column}")
        con.execute("ALTER TABLE matches ADD COLUMN reproducible INTEGER NOT NULL DEFAULT 0")
        con.execute("UPDATE matches SET finished = 1, client = 'x'")
        con.execute("PRAGMA user_version=2")
    store = open_store(str(path))
    try:
        assert store.get("old").finished is True and store.active_count("x", NEVER) == 0
    finally:
        store.close()
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT name, version FROM schema_version").fetchall() == [
            ("matches", SCHEMA_VERSION)
        ]
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_database_from_a_newer_atelier_is_refused(store, db_url):
    store.check()
    with store._engine.begin() as db:
        db.exec_driver_sql(f"UPDATE schema_version SET version = {SCHEMA_VERSION + 1}")
    newer = open_store(db_url)
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}.*upgrade atelier"):
        newer.check()
    newer.close()


# --- writers in other processes ------------------------------------------------------------------
ROUNDS = 12
WRITERS = 4


def _racer(url: str, index: int, barrier, results) -> None:
    """One writer: each round, load the match, wait for the others, try to append a move."""
    store = open_store(url)
    try:
        for _ in range(ROUNDS):
            loaded = store.get("race")
            barrier.wait(timeout=60)
            loaded.history = [*loaded.history, index]
            try:
                store.save_history(loaded)
                results.put(("won", loaded.revision))
            except StaleRevision:
                results.put(("stale", loaded.revision))
            barrier.wait(timeout=60)  # everyone has written before the next round loads
    finally:
        store.close()


def test_writers_in_several_processes_never_interleave(store, db_url):
    """The compare-and-set holds across processes (each with its own engine and connections):
    of the writers holding one revision exactly one wins, every round, and the stored history
    is exactly the winners' moves."""
    store.insert(record("race"))
    # fork: the writers start at once (no re-import); each opens its own engine, and a forked
    # process ends with os._exit, so the parent's pooled connections are left alone.
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(WRITERS), context.Queue()
    processes = [
        context.Process(target=_racer, args=(db_url, i, barrier, results)) for i in range(WRITERS)
    ]
    for p in processes:
        p.start()
    outcomes = [results.get(timeout=120) for _ in range(ROUNDS * WRITERS)]
    for p in processes:
        p.join(30)
        assert p.exitcode == 0
    won = sorted(revision for outcome, revision in outcomes if outcome == "won")
    assert won == list(range(1, ROUNDS + 1))  # exactly one winner per revision
    final = store.get("race")
    assert final.revision == ROUNDS and len(final.history) == ROUNDS


# --- URLs and configuration ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,backend",
    [
        ("/var/lib/atelier/m.sqlite3", "sqlite"),
        ("relative/m.sqlite3", "sqlite"),
        ("sqlite:////var/lib/m.sqlite3", "sqlite"),
        ("postgresql://u:pw@db.example:5432/atelier", "postgresql+psycopg"),
        ("postgres://db/atelier", "postgresql+psycopg"),
        ("postgresql+psycopg://db/atelier", "postgresql+psycopg"),
    ],
)
def test_the_url_picks_the_back_end(text, backend):
    assert parse_url(text).drivername == backend


@pytest.mark.parametrize(
    "text,words",
    [
        ("mysql://root:hunter2@db/atelier", "unsupported"),
        ("postgresql+asyncpg://root:hunter2@db/atelier", "unsupported"),
        ("postgresql://root:hunter2@db", "names no database"),
        ("sqlite://", "names no file"),
        ("", "empty"),
    ],
)
def test_unsupported_urls_are_refused_without_their_password(text, words):
    with pytest.raises(StoreError, match=words) as err:
        parse_url(text)
    assert "hunter2" not in str(err.value)
    with pytest.raises(ConfigError, match="match_db") as config_err:
        ServiceConfig(match_db=text)
    assert "hunter2" not in str(config_err.value)


def test_an_unreachable_database_is_named_without_its_password():
    store = open_store("postgresql://atelier:hunter2@127.0.0.1:1/atelier")
    with pytest.raises(StoreError, match=r"atelier:\*\*\*@127\.0\.0\.1:1/atelier") as err:
        store.check()
    assert "hunter2" not in str(err.value)
    assert "refused" in str(err.value).lower()


def test_atelier_db_sets_the_match_database(tmp_path):
    url = "postgresql://u:pw@db/atelier"
    assert ServiceConfig.load(env={"ATELIER_DB": url}).match_db == url
    assert ServiceConfig.load(env={"ATELIER_DB": url, "ATELIER_MATCH_DB": url}).match_db == url
    with pytest.raises(ConfigError, match="ATELIER_DB and ATELIER_MATCH_DB"):
        ServiceConfig.load(env={"ATELIER_DB": url, "ATELIER_MATCH_DB": "other.sqlite3"})
    # The command line wins over the environment; secrets stay out of the shown config.
    assert ServiceConfig.load(env={"ATELIER_DB": url}, match_db="x.db").match_db == "x.db"
    assert ServiceConfig(match_db=url).to_json()["match_db"] == "postgresql://u:***@db/atelier"


# --- a database that goes away -------------------------------------------------------------------
def test_a_database_that_goes_away_is_a_503_not_a_500(tmp_path):
    """PostgreSQL only (a SQLite file cannot go away under root): the service answers 503
    ``match_store_unavailable`` with Retry-After, and /healthz answers the same 503 (a load
    balancer's health check takes the instance out of rotation)."""
    from server import close_app
    from tests.postgres_support import drop_database
    from tests.server_support import make_app

    with fresh_database("gone") as url:
        app = make_app(tmp_path, match_db=url, search_workers=1)
        try:
            client = app.test_client()
            r = client.post(
                "/v1/matches", json={"game": "detective_eye", "seats": ["human", "human"]}
            )
            assert r.status_code == 201, r.json
            health = app.extensions["atelier"].store_health()
            assert health["reachable"] is True and health["backend"] == "postgresql"
            drop_database(url)
            r = client.get(f"/v1/matches/{r.json['match_id']}")
            assert r.status_code == 503 and r.json["code"] == "match_store_unavailable", r.json
            assert int(r.headers["Retry-After"]) >= 1
            health = app.extensions["atelier"].store_health()
            assert health["reachable"] is False and "did not answer" in health["error"]
            r = client.get("/healthz")
            assert r.status_code == 503 and r.json["code"] == "match_store_unavailable", r.json
        finally:
            close_app(app)
