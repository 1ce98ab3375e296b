"""A real ``atelier serve`` for the Python client's and the MCP server's tests: the API key it
accepts, small settings of each game that end a match in a second, and the start that skips
locally, or fails in CI (``ATELIER_REQUIRE_SERVER_TESTS=1``), when the server cannot start."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from evaluation.bench import service as bench

REQUIRED = os.environ.get("ATELIER_REQUIRE_SERVER_TESTS") == "1"
KEY = "client-test-key"
# Small settings of each game, played against cheap bots, so that a match ends in a second.
CHEAP = {
    "gallery_rush": ({"max_turns": 12}, 2),
    "finger_auction": ({"rounds": 1}, 2),
    "detective_eye": ({"max_rounds": 4}, 2),
    "modern_art": ({"rounds": 1, "players": 3}, 3),
}


def serve(tmp: Any, key: str = KEY) -> Iterator[str]:
    """``atelier serve`` on a free 127.0.0.1 port with API keys on; its base URL."""
    port = bench.free_port()
    try:
        process = bench.start_server(
            port,
            str(tmp / "matches.sqlite3"),
            extra_env={
                "ATELIER_API_KEYS": key,
                "ATELIER_SEARCH_WORKERS": "2",
                "ATELIER_CLIENT_SEARCH_MS_PER_MINUTE": "600000",
            },
            api_key=key,
            log_path=str(tmp / "serve.log"),
        )
    except (RuntimeError, OSError) as err:
        if REQUIRED:
            pytest.fail(f"atelier serve did not start: {err}")
        pytest.skip(f"atelier serve did not start here: {err}")
    try:
        yield f"http://{bench.HOST}:{port}"
    finally:
        bench.stop_server(process)
