"""Hosted matches in SQLite or PostgreSQL: the action history is the state, so it survives
restarts, and several service instances can share one PostgreSQL database.

A match row holds what cannot be recomputed (game, version, parameters, seat specs, hashes of
the seat tokens, the bots' budget, the seed) and the list of action ids played. The state is
rebuilt by replaying that list through the engine, exactly as ``new_initial_state(struct)``
does. Tokens are stored only as SHA-256 hashes.

Every write of a history is a compare-and-set on the row's ``revision``: the ``UPDATE`` carries
``WHERE revision = <the revision read>`` and its row count is checked. The database, not this
process, decides which of two writers wins, so two requests can never interleave moves even
when they are served by different processes or machines; the service's per-match lock only
spares a process from racing itself.

One interface, two back-ends, chosen by a URL (``open_store``): a file path or
``sqlite:///path`` (the embedded default), or ``postgresql://user:password@host:port/db``
(driver psycopg 3, from the ``fleet`` extra). Both go through SQLAlchemy Core, so every query
is written once.

The schema carries a version in a ``schema_version`` table (row ``name = 'matches'``). At the
first use a store brings the database to ``SCHEMA_VERSION`` under a database lock (SQLite
``BEGIN IMMEDIATE``, a PostgreSQL advisory lock), so instances starting together upgrade it
once: an empty database gets the current tables; an older one runs the steps of ``UPGRADES``
in order. Files written before the version table existed (version 1 and 2, which kept their
version in SQLite's ``user_version``) are recognised by their columns.

Times (``created_at``, ``updated_at``, a match's idle time, what ``purge`` deletes) are read
from one clock that every instance shares (``MatchStore.now``): PostgreSQL's own, since the
instances of a fleet run on machines whose clocks may differ by seconds; for SQLite, this
machine's (a SQLite file is shared only by the processes of one machine). So a match expires
at the same moment for every instance, whichever wrote its last move.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.engine.url import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, OperationalError

from server.urls import redacted_url

SCHEMA_VERSION = 2

# How long a SQLite connection waits for another's lock before the store answers 503.
SQLITE_LOCK_WAIT_S = 10.0

metadata = sa.MetaData()

# Booleans are stored as 0/1 integers and JSON as text: the columns version-1 files have.
matches = sa.Table(
    "matches",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("seats", sa.Text, nullable=False),
    sa.Column("token_hashes", sa.Text, nullable=False),
    sa.Column("budget", sa.Text, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),  # up to 2**32 - 1
    sa.Column("history", sa.Text, nullable=False),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Column("client", sa.Text, nullable=False, server_default=""),
    sa.Column("finished", sa.Integer, nullable=False, server_default="0"),
    sa.Column("reproducible", sa.Integer, nullable=False, server_default="0"),
    sa.Index("matches_client", "client"),
)

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
)

# Columns added by version 2, with their SQL definitions (a version-1 database gains them).
V2_COLUMNS = {
    "client": "TEXT NOT NULL DEFAULT ''",
    "finished": "INTEGER NOT NULL DEFAULT 0",
    "reproducible": "INTEGER NOT NULL DEFAULT 0",
}


def _upgrade_1_to_2(db: Connection) -> None:
    have = {c["name"] for c in sa.inspect(db).get_columns("matches")}
    for name, definition in V2_COLUMNS.items():
        if name not in have:
            db.exec_driver_sql(f"ALTER TABLE matches ADD COLUMN {name} {definition}")
    db.exec_driver_sql("CREATE INDEX IF NOT EXISTS matches_client ON matches (client)")


# UPGRADES[n] moves a database from version n to n + 1. A later change of the schema bumps
# SCHEMA_VERSION, changes the tables above and adds its step here.
UPGRADES: dict[int, Callable[[Connection], None]] = {1: _upgrade_1_to_2}

# Any fixed number: the key of the PostgreSQL advisory lock held while the schema is upgraded.
_SCHEMA_LOCK_KEY = 0x61746C72  # "atlr"
# The first of the two 32-bit keys of a client's quota lock (the second hashes the client).
# PostgreSQL keeps two-key advisory locks apart from one-key ones such as the schema lock.
_QUOTA_LOCK_CLASS = 0x61746C71  # "atlq"


class StaleRevision(Exception):
    """Another request changed the match since it was loaded."""


class StoreError(RuntimeError):
    """The match database URL is unsupported, or the database cannot be reached or used; the
    message names the URL without its password."""


class StoreUnavailable(StoreError):
    """The database did not answer (down, unreachable, locked too long): the request may be
    retried; nothing was written."""


@dataclass
class MatchRecord:
    id: str
    game: str
    version: int
    params: dict[str, Any]
    seats: list[dict[str, Any]]
    token_hashes: dict[int, str]
    budget: dict[str, Any]
    seed: int
    history: list[int]
    revision: int
    created_at: float
    updated_at: float
    client: str = ""  # a hash of the creating client (its API key or address), for quotas
    finished: bool = False
    reproducible: bool = False  # the client's seed was used as is (research option)
    # Seconds since ``updated_at`` by the store's clock when the record was read (not stored):
    # what expiry is judged by, so that no instance's own clock enters into it.
    idle_s: float = field(default=0.0, compare=False)


@dataclass(frozen=True)
class Expiry:
    """When a match expires: unfinished ones ``idle_s`` after their last move, finished ones
    ``finished_s`` after it.

    The one rule for reading a match (``expired``, on a loaded record), purging and counting a
    client's matches for the quota (``clause``, the same test in SQL), so that a match that
    answers 404 never holds a place in the quota.
    """

    idle_s: float
    finished_s: float

    def ttl(self, finished: bool) -> float:
        return self.finished_s if finished else self.idle_s

    def expired(self, record: MatchRecord, now: float | None = None) -> bool:
        """By the store's clock when the record was read (``record.idle_s``), so no instance's
        own clock enters into it, unless ``now`` is given."""
        if now is None:
            return record.idle_s > self.ttl(record.finished)
        return record.updated_at < now - self.ttl(record.finished)

    def clause(self, now: float | sa.ColumnElement[Any]) -> sa.ColumnElement[bool]:
        """``expired`` as a condition on the ``matches`` table, ``now`` a number or the store's
        clock in SQL (``MatchStore._clock``)."""
        return sa.or_(
            sa.and_(matches.c.finished == 0, matches.c.updated_at < now - self.idle_s),
            sa.and_(matches.c.finished == 1, matches.c.updated_at < now - self.finished_s),
        )


# --- URLs ------------------------------------------------------------------------------------
URL_FORMS = "a file path, sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE"


def parse_url(text: str) -> URL:
    """The SQLAlchemy URL of a match database: a plain path or ``sqlite:///path`` is SQLite,
    ``postgresql://`` (or ``postgres://``, ``postgresql+psycopg://``) PostgreSQL via psycopg.

    Raises ``StoreError`` for anything else, naming the URL without its password.
    """
    if "://" not in text:
        if not text.strip():
            raise StoreError(f"the match database is empty; give {URL_FORMS}")
        return URL.create("sqlite", database=str(Path(text).expanduser()))
    try:
        url = make_url(text)
    except ArgumentError:
        raise StoreError(
            f"cannot parse the match database URL {redacted_url(text)!r}; give {URL_FORMS}"
        ) from None
    backend, _, driver = url.drivername.partition("+")
    if backend == "sqlite" and driver in ("", "pysqlite"):
        if not url.database or url.database == ":memory:":
            raise StoreError(
                f"the SQLite URL {text!r} names no file (sqlite:///relative/path or "
                "sqlite:////absolute/path); an in-memory database would lose every match"
            )
        return url.set(drivername="sqlite", database=str(Path(url.database).expanduser()))
    if backend in ("postgresql", "postgres") and driver in ("", "psycopg"):
        if not url.database:
            raise StoreError(
                f"the PostgreSQL URL {redacted_url(text)!r} names no database "
                "(…/DATABASE at the end)"
            )
        return url.set(drivername="postgresql+psycopg")
    raise StoreError(
        f"unsupported match database URL {redacted_url(text)!r}: give {URL_FORMS} "
        "(PostgreSQL goes through psycopg 3)"
    )


# --- the store -------------------------------------------------------------------------------
class MatchStore:
    """The matches of one database, SQLite or PostgreSQL, through a SQLAlchemy engine.

    Connections come from the engine's pool (a few per process); each operation is one short
    transaction. The schema is created or upgraded at the first operation (or ``check()``).
    """

    def __init__(self, url: str) -> None:
        self.url = parse_url(url)
        self.backend = "postgresql" if self.url.drivername.startswith("postgresql") else "sqlite"
        self.display = redacted_url(url)
        self._engine: Engine | None = None
        self._init_lock = threading.Lock()
        self._ready = False

    # --- the engine and the schema -------------------------------------------------------------
    def _create_engine(self) -> Engine:
        if self.backend == "sqlite":
            Path(self.url.database or "").parent.mkdir(parents=True, exist_ok=True)
            engine = sa.create_engine(
                self.url,
                connect_args={"timeout": SQLITE_LOCK_WAIT_S, "check_same_thread": False},
            )

            @sa.event.listens_for(engine, "connect")
            def _pragmas(dbapi_connection: Any, _record: Any) -> None:
                # WAL with synchronous=NORMAL: a commit survives a crash of the service (not of
                # the machine's power) without an fsync per move.
                dbapi_connection.execute("PRAGMA synchronous=NORMAL")

            return engine
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise StoreError(
                f"the match database {self.display} is PostgreSQL, whose driver is not "
                "installed: pip install 'atelier[fleet]'"
            ) from None
        # pool_pre_ping: a connection the server dropped (a restart, a fail-over) is replaced
        # instead of failing the next request.
        return sa.create_engine(self.url, pool_pre_ping=True, connect_args={"connect_timeout": 10})

    def _ensure(self) -> Engine:
        if self._ready:
            assert self._engine is not None
            return self._engine
        with self._init_lock:
            if not self._ready:
                if self._engine is None:
                    self._engine = self._create_engine()
                try:
                    self._migrate(self._engine)
                except DBAPIError as err:
                    raise StoreUnavailable(
                        f"cannot open the match database {self.display}: {_reason(err)}"
                    ) from None
                self._ready = True
        return self._engine

    def _migrate(self, engine: Engine) -> None:
        """Brings the schema to ``SCHEMA_VERSION``, in one transaction under a database lock
        (instances starting together upgrade in turn)."""
        if self.backend == "sqlite":
            _switch_to_wal(engine)
        with self._locked(engine, (_SCHEMA_LOCK_KEY,)) as db:
            self._upgrade(db)
            if self.backend == "sqlite":
                db.exec_driver_sql(f"PRAGMA user_version={SCHEMA_VERSION}")

    @contextmanager
    def _locked(self, engine: Engine, key: tuple[int, ...]) -> Iterator[Connection]:
        """One transaction that holds a database lock from its first statement, so that what
        it reads cannot change before it commits, in any process sharing the database.

        SQLite: ``BEGIN IMMEDIATE`` takes the database's one write lock (``key`` is unused).
        PostgreSQL: a transaction-scoped advisory lock on ``key`` (one or two integers), so
        transactions with other keys run in parallel; it is released at the commit, so the
        next holder's statements see what this one wrote.
        """
        if self.backend == "sqlite":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as db:
                db.exec_driver_sql("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    db.exec_driver_sql("ROLLBACK")
                    raise
                db.exec_driver_sql("COMMIT")
        else:
            with engine.begin() as db:
                db.execute(sa.select(sa.func.pg_advisory_xact_lock(*key)))
                yield db

    def _upgrade(self, db: Connection) -> None:
        recorded = _recorded_version(db)
        current = stored_version(db) if recorded is None else recorded
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"the match database {self.display} has schema version {current}, newer than "
                f"this atelier's ({SCHEMA_VERSION}): upgrade atelier"
            )
        if current == 0:
            metadata.create_all(db)
        else:
            for version in range(current, SCHEMA_VERSION):
                UPGRADES[version](db)
            schema_version.create(db, checkfirst=True)
        if recorded != SCHEMA_VERSION:
            db.execute(sa.delete(schema_version).where(schema_version.c.name == "matches"))
            db.execute(sa.insert(schema_version).values(name="matches", version=SCHEMA_VERSION))

    def check(self) -> dict[str, Any]:
        """Connects, creates or upgrades the schema; what ``/healthz`` shows of the store.
        Raises ``StoreError`` if the database cannot be reached or used."""
        with self._transaction() as db:
            version = stored_version(db)
        return self.info(version)

    def ping(self) -> float:
        """Milliseconds of a round trip to the database; ``StoreUnavailable`` if it is down."""
        started = time.perf_counter()
        with self._transaction() as db:
            db.execute(sa.select(1))
        return (time.perf_counter() - started) * 1000.0

    @contextmanager
    def _transaction(self, lock: tuple[int, ...] | None = None) -> Iterator[Connection]:
        """One transaction, committed at the end, holding the database lock ``lock`` (see
        ``_locked``) if given; a database that does not answer is ``StoreUnavailable`` (a 503
        for the client), not an internal error."""
        engine = self._ensure()
        try:
            with engine.begin() if lock is None else self._locked(engine, lock) as db:
                yield db
        except (OperationalError, InterfaceError) as err:
            raise StoreUnavailable(
                f"the match database {self.display} did not answer: {_reason(err)}"
            ) from None

    def _clock(self) -> sa.ColumnElement[Any]:
        """Now in seconds since the epoch, as SQL, by the clock the instances share (see the
        module's docstring): PostgreSQL's ``clock_timestamp()``, or this machine's for SQLite."""
        if self.backend == "postgresql":
            return sa.cast(sa.func.extract("epoch", sa.func.clock_timestamp()), sa.Float)
        return sa.literal(time.time(), sa.Float)

    def now(self) -> float:
        """Now in seconds since the epoch by the store's clock (a round trip for PostgreSQL):
        the creation time of a new match."""
        if self.backend != "postgresql":
            return time.time()
        with self._transaction() as db:
            return float(db.execute(sa.select(self._clock())).scalar_one())

    def info(self, version: int | None = None) -> dict[str, Any]:
        return {
            "db": self.display,
            "backend": self.backend,
            "schema_version": SCHEMA_VERSION if version is None else version,
        }

    def close(self) -> None:
        """Closes the pooled connections (a later operation opens new ones)."""
        if self._engine is not None:
            self._engine.dispose()

    # --- operations --------------------------------------------------------------------------
    def insert(self, record: MatchRecord) -> None:
        with self._transaction() as db:
            db.execute(_insert_statement(record))

    def insert_within_quota(
        self, record: MatchRecord, quota: int, expiry: Expiry, now: float | None = None
    ) -> bool:
        """Inserts ``record`` unless its client already holds ``quota`` active matches (see
        ``active_count``); whether it did.

        The count and the insert are one transaction under a lock of the client, so creates
        racing in threads, processes or instances sharing the database never exceed the quota
        (a count followed by a separate insert let 150 concurrent creates through a quota of
        100). Expiry is judged by the store's clock unless ``now`` is given.
        """
        when = self._clock() if now is None else now
        with self._transaction(lock=_client_lock_key(record.client)) as db:
            if db.execute(_active_query(record.client, expiry, when)).scalar_one() >= quota:
                return False
            db.execute(_insert_statement(record))
        return True

    def get(self, match_id: str) -> MatchRecord | None:
        with self._transaction() as db:
            idle = (self._clock() - matches.c.updated_at).label("idle_s")
            row = (
                db.execute(sa.select(matches, idle).where(matches.c.id == match_id))
                .mappings()
                .first()
            )
        if row is None:
            return None
        return MatchRecord(
            id=row["id"],
            game=row["game"],
            version=row["version"],
            params=json.loads(row["params"]),
            seats=json.loads(row["seats"]),
            token_hashes={int(k): v for k, v in json.loads(row["token_hashes"]).items()},
            budget=json.loads(row["budget"]),
            seed=row["seed"],
            history=json.loads(row["history"]),
            revision=row["revision"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            client=row["client"],
            finished=bool(row["finished"]),
            reproducible=bool(row["reproducible"]),
            idle_s=float(row["idle_s"]),
        )

    def save_history(self, record: MatchRecord) -> None:
        """Writes ``record.history`` if nobody else wrote since; bumps ``record.revision``.

        The revision check is in the ``UPDATE`` itself: of two writers holding the same
        revision, in any processes, the database lets exactly one change the row (the other
        waits for its row lock, then finds the revision moved and updates nothing). The time
        of the move is the store's clock's.
        """
        with self._transaction() as db:
            now = db.execute(
                sa.update(matches)
                .where(matches.c.id == record.id, matches.c.revision == record.revision)
                .values(
                    history=json.dumps(record.history),
                    finished=int(record.finished),
                    revision=matches.c.revision + 1,
                    updated_at=self._clock(),
                )
                .returning(matches.c.updated_at)
            ).scalar_one_or_none()
        if now is None:
            raise StaleRevision(f"match {record.id} was changed by another request")
        record.revision += 1
        record.updated_at = now
        record.idle_s = 0.0

    def count(self) -> int:
        with self._transaction() as db:
            return db.execute(sa.select(sa.func.count()).select_from(matches)).scalar_one()

    def delete(self, match_id: str) -> bool:
        """Removes a match; whether it existed."""
        with self._transaction() as db:
            return db.execute(sa.delete(matches).where(matches.c.id == match_id)).rowcount == 1

    def purge(self, expiry: Expiry, now: float | None = None) -> int:
        """Deletes the matches ``expiry`` says are expired (by the store's clock unless ``now``
        is given); how many went."""
        when = self._clock() if now is None else now
        with self._transaction() as db:
            return db.execute(sa.delete(matches).where(expiry.clause(when))).rowcount

    def active_count(self, client: str, expiry: Expiry, now: float | None = None) -> int:
        """Unfinished, unexpired matches created by ``client`` (by the store's clock unless
        ``now`` is given): its place in the quota."""
        when = self._clock() if now is None else now
        with self._transaction() as db:
            return db.execute(_active_query(client, expiry, when)).scalar_one()


def _insert_statement(record: MatchRecord) -> sa.Insert:
    return sa.insert(matches).values(
        id=record.id,
        game=record.game,
        version=record.version,
        params=json.dumps(record.params),
        seats=json.dumps(record.seats),
        token_hashes=json.dumps({str(k): v for k, v in record.token_hashes.items()}),
        budget=json.dumps(record.budget),
        seed=record.seed,
        history=json.dumps(record.history),
        revision=record.revision,
        created_at=record.created_at,
        updated_at=record.updated_at,
        client=record.client,
        finished=int(record.finished),
        reproducible=int(record.reproducible),
    )


def _active_query(
    client: str, expiry: Expiry, now: float | sa.ColumnElement[Any]
) -> sa.Select[tuple[int]]:
    """How many matches of ``client`` count against its quota: unfinished and not expired (a
    match that answers 404 holds no place, even before the purge deletes it)."""
    return (
        sa.select(sa.func.count())
        .select_from(matches)
        .where(matches.c.client == client, matches.c.finished == 0, sa.not_(expiry.clause(now)))
    )


def _switch_to_wal(engine: Engine) -> None:
    """Puts a SQLite file in WAL mode, waiting for other connections as a lock would.

    SQLite does not wait for another writer before this switch: two instances opening a new file
    at once made one fail at once with "database is locked" (about one start in three in a
    thread race), which the first request answered as a 503. So the switch is retried for as
    long as a connection waits for a lock.
    """
    deadline = time.monotonic() + SQLITE_LOCK_WAIT_S
    while True:
        try:
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as db:
                db.exec_driver_sql("PRAGMA journal_mode=WAL")
            return
        except OperationalError as err:
            if "locked" not in str(err.orig) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _client_lock_key(client: str) -> tuple[int, int]:
    """The PostgreSQL advisory lock of a client's creates: two clients sharing a key (one in
    2**32) only wait for each other."""
    digest = hashlib.sha256(client.encode()).digest()
    return (_QUOTA_LOCK_CLASS, int.from_bytes(digest[:4], "big", signed=True))


def _recorded_version(db: Connection) -> int | None:
    """The version in the ``schema_version`` table, ``None`` if there is none."""
    if "schema_version" not in sa.inspect(db).get_table_names():
        return None
    return db.execute(
        sa.select(schema_version.c.version).where(schema_version.c.name == "matches")
    ).scalar_one_or_none()


def stored_version(db: Connection) -> int:
    """The schema version of the database ``db`` is connected to; 0 when it has no tables.

    Databases from before the ``schema_version`` table are told apart by their columns.
    """
    recorded = _recorded_version(db)
    if recorded is not None:
        return recorded
    if "matches" not in sa.inspect(db).get_table_names():
        return 0
    columns = {c["name"] for c in sa.inspect(db).get_columns("matches")}
    return 2 if set(V2_COLUMNS) <= columns else 1


def open_store(url: str) -> MatchStore:
    """The match store at ``url`` (see ``parse_url``); nothing is opened until first use."""
    return MatchStore(url)


def _reason(err: DBAPIError) -> str:
    """The driver's message of ``err``, on one line, without the SQL."""
    text = str(err.orig) if err.orig is not None else str(err)
    return " ".join(text.split()) or type(err.orig).__name__


__all__ = [
    "SCHEMA_VERSION",
    "Expiry",
    "MatchRecord",
    "MatchStore",
    "StaleRevision",
    "StoreError",
    "StoreUnavailable",
    "open_store",
    "parse_url",
]
