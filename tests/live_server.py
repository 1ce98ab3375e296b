"""A real ``atelier serve`` on 127.0.0.1 for the reliability, fleet and job suites: the API keys
it accepts (one per scenario, so that cost limits stay apart), a small HTTP client for it, and
the start that skips locally, or fails in CI (``ATELIER_REQUIRE_SERVER_TESTS=1``), when the
server cannot start."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from evaluation.bench import service as bench

REQUIRED = os.environ.get("ATELIER_REQUIRE_SERVER_TESTS") == "1"
KEYS = ("slow", "edges", "memory", "logs", "fault", "cost-a", "cost-b", "cost-c", "cheap")
HOST = bench.HOST


class Server:
    """One running ``atelier serve``: its port, process and log file, and JSON requests to it."""

    def __init__(self, port: int, process: Any, log_path: str) -> None:
        self.port, self.process, self.log_path = port, process, log_path

    def request(
        self, method: str, path: str, body: Any = None, key: str | None = None, **headers: str
    ) -> tuple[int, Any, dict[str, str]]:
        import http.client

        conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json", **headers}
        if key:
            hdrs["X-API-Key"] = key
        try:
            conn.request(method, path, body=data, headers=hdrs)
            resp = conn.getresponse()
            raw = resp.read()
            parsed = json.loads(raw) if raw[:1] in (b"{", b"[") else raw
            return resp.status, parsed, {k.lower(): v for k, v in resp.getheaders()}
        finally:
            conn.close()

    def details(self, key: str) -> dict[str, Any]:
        status, data, _ = self.request("GET", "/healthz", key=key)
        assert status == 200, data
        return data


def start_server(
    tmp: Path, name: str, env: dict[str, str], args: tuple[str, ...] = (), db: str | None = None
) -> Server:
    """``atelier serve`` on a free port with its matches in ``db`` (default: a SQLite file in
    ``tmp``); skips, or fails in CI, if it cannot start."""
    port = bench.free_port()
    log_path = str(tmp / f"{name}.log")
    try:
        process = bench.start_server(
            port,
            db or str(tmp / f"{name}.sqlite3"),
            extra_env={"ATELIER_API_KEYS": ",".join(KEYS), "ATELIER_SEARCH_WORKERS": "2", **env},
            api_key=KEYS[0],
            log_path=log_path,
            args=args,
        )
    except (RuntimeError, OSError) as err:
        if REQUIRED:
            pytest.fail(f"atelier serve did not start: {err}")
        pytest.skip(f"atelier serve did not start here: {err}")
    return Server(port, process, log_path)
