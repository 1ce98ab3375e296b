"""PostgreSQL for the tests: a fresh database per test on the server that
``ATELIER_TEST_POSTGRES_URL`` names (``.ci/run`` starts one with ``.ci/postgres.sh``; locally:
``.ci/postgres.sh start /tmp/pg 55432`` prints the URL to export).

Without the variable the PostgreSQL cases skip, except under ``ATELIER_REQUIRE_SERVER_TESTS=1``
(CI), where they fail: a missing database there is a broken set-up, not a reason to pass.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

POSTGRES_URL = os.environ.get("ATELIER_TEST_POSTGRES_URL", "")
REQUIRED = os.environ.get("ATELIER_REQUIRE_SERVER_TESTS") == "1"


def require_postgres() -> str:
    """The server URL, or a skip (a failure in CI) when none is set."""
    if not POSTGRES_URL:
        message = "ATELIER_TEST_POSTGRES_URL is not set (start one with .ci/postgres.sh)"
        if REQUIRED:
            pytest.fail(message + ", and ATELIER_REQUIRE_SERVER_TESTS=1 requires it")
        pytest.skip(message)
    return POSTGRES_URL


def _admin(url: str):
    import sqlalchemy as sa

    from server.store import parse_url

    return sa.create_engine(parse_url(url), isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)


def drop_database(url: str) -> None:
    """Drops the database of ``url`` (made by ``fresh_database``), its sessions closed."""
    from server.store import parse_url

    name = parse_url(url).database
    admin = _admin(require_postgres())
    try:
        with admin.connect() as db:
            db.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.dispose()


@contextmanager
def fresh_database(tag: str) -> Iterator[str]:
    """A new, empty database on the test server (dropped afterwards); its URL."""
    from server.store import parse_url

    base = require_postgres()
    name = f"atelier_{tag}_{uuid.uuid4().hex[:10]}"
    admin = _admin(base)
    with admin.connect() as db:
        db.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = parse_url(base).set(database=name).render_as_string(hide_password=False)
    admin.dispose()
    url = url.replace("postgresql+psycopg://", "postgresql://", 1)
    try:
        yield url
    finally:
        drop_database(url)
