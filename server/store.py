"""Hosted matches in SQLite: the action history is the state, so it survives restarts.

A match row holds what cannot be recomputed (game, version, parameters, seat specs, hashes of
the seat tokens, the bots' budget, the seed) and the list of action ids played. The state is
rebuilt by replaying that list through the engine, exactly as ``new_initial_state(struct)``
does. Tokens are stored only as SHA-256 hashes. Every write is a compare-and-set on a row
version, so two writers can never interleave moves.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id          TEXT PRIMARY KEY,
    game        TEXT NOT NULL,
    version     INTEGER NOT NULL,
    params      TEXT NOT NULL,
    seats       TEXT NOT NULL,
    token_hashes TEXT NOT NULL,
    budget      TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    history     TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    client      TEXT NOT NULL DEFAULT '',
    finished    INTEGER NOT NULL DEFAULT 0,
    reproducible INTEGER NOT NULL DEFAULT 0
)
"""

# Columns added since schema version 1, with their definitions (a version-1 file gains them).
ADDED_COLUMNS = {
    "client": "TEXT NOT NULL DEFAULT ''",
    "finished": "INTEGER NOT NULL DEFAULT 0",
    "reproducible": "INTEGER NOT NULL DEFAULT 0",
}
COLUMNS = (
    "id, game, version, params, seats, token_hashes, budget, seed, history, revision, "
    "created_at, updated_at, client, finished, reproducible"
)


class StaleRevision(Exception):
    """Another request changed the match since it was loaded."""


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


class MatchStore:
    """A thin layer over one SQLite file; one short-lived connection per operation."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._init_lock = threading.Lock()
        self._ready = False

    def _ensure(self) -> None:
        with self._init_lock:
            if self._ready:
                return
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(SCHEMA)
                have = {row[1] for row in db.execute("PRAGMA table_info(matches)")}
                for name, definition in ADDED_COLUMNS.items():
                    if name not in have:
                        db.execute(f"ALTER TABLE matches ADD COLUMN {name} {definition}")
                db.execute("CREATE INDEX IF NOT EXISTS matches_client ON matches (client)")
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self._ready = True

    @contextmanager
    def _connect(self):
        db = sqlite3.connect(str(Path(self.path).expanduser()), timeout=10.0)
        # WAL with synchronous=NORMAL: a commit survives a crash of the service (not of the
        # machine's power) without an fsync per move.
        db.execute("PRAGMA synchronous=NORMAL")
        try:
            with db:
                yield db
        finally:
            db.close()

    def insert(self, record: MatchRecord) -> None:
        self._ensure()
        with self._connect() as db:
            db.execute(
                f"INSERT INTO matches ({COLUMNS}) VALUES ({', '.join('?' * 15)})",
                (
                    record.id,
                    record.game,
                    record.version,
                    json.dumps(record.params),
                    json.dumps(record.seats),
                    json.dumps({str(k): v for k, v in record.token_hashes.items()}),
                    json.dumps(record.budget),
                    record.seed,
                    json.dumps(record.history),
                    record.revision,
                    record.created_at,
                    record.updated_at,
                    record.client,
                    int(record.finished),
                    int(record.reproducible),
                ),
            )

    def get(self, match_id: str) -> MatchRecord | None:
        self._ensure()
        with self._connect() as db:
            row = db.execute(f"SELECT {COLUMNS} FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            return None
        return MatchRecord(
            id=row[0],
            game=row[1],
            version=row[2],
            params=json.loads(row[3]),
            seats=json.loads(row[4]),
            token_hashes={int(k): v for k, v in json.loads(row[5]).items()},
            budget=json.loads(row[6]),
            seed=row[7],
            history=json.loads(row[8]),
            revision=row[9],
            created_at=row[10],
            updated_at=row[11],
            client=row[12],
            finished=bool(row[13]),
            reproducible=bool(row[14]),
        )

    def save_history(self, record: MatchRecord) -> None:
        """Writes ``record.history`` if nobody else wrote since; bumps ``record.revision``."""
        self._ensure()
        now = time.time()
        with self._connect() as db:
            cursor = db.execute(
                "UPDATE matches SET history = ?, finished = ?, revision = revision + 1, "
                "updated_at = ? WHERE id = ? AND revision = ?",
                (
                    json.dumps(record.history),
                    int(record.finished),
                    now,
                    record.id,
                    record.revision,
                ),
            )
        if cursor.rowcount != 1:
            raise StaleRevision(f"match {record.id} was changed by another request")
        record.revision += 1
        record.updated_at = now

    def count(self) -> int:
        self._ensure()
        with self._connect() as db:
            return db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]

    def delete(self, match_id: str) -> bool:
        """Removes a match; whether it existed."""
        self._ensure()
        with self._connect() as db:
            return db.execute("DELETE FROM matches WHERE id = ?", (match_id,)).rowcount == 1

    def purge(self, idle_s: float, finished_s: float, now: float | None = None) -> int:
        """Deletes unfinished matches idle longer than ``idle_s`` and finished ones older than
        ``finished_s`` (since their last move); how many went."""
        self._ensure()
        now = time.time() if now is None else now
        with self._connect() as db:
            return db.execute(
                "DELETE FROM matches WHERE (finished = 0 AND updated_at < ?) "
                "OR (finished = 1 AND updated_at < ?)",
                (now - idle_s, now - finished_s),
            ).rowcount

    def active_count(self, client: str) -> int:
        """Unfinished matches created by ``client``."""
        self._ensure()
        with self._connect() as db:
            return db.execute(
                "SELECT COUNT(*) FROM matches WHERE client = ? AND finished = 0", (client,)
            ).fetchone()[0]
