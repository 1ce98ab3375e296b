"""Reliability suite: a real ``atelier serve`` on 127.0.0.1, attacked as issue 16 describes.

Slow and idle connections, transport edges (413, chunked bodies, 414, 431, BOM and UTF-16),
costly requests from a few clients, memory under megabyte answers, secrets in the logs. Every
scenario is bounded in time. In CI (``ATELIER_REQUIRE_SERVER_TESTS=1``, set by ``.ci/run``) a
server that cannot start fails the suite; locally it skips.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluation.bench import scenarios
from evaluation.bench import service as bench
from server.examples import example_infoset
from tests.live_server import HOST, KEYS, Server, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    """The default configuration, API keys on (one per test, so cost limits stay apart)."""
    # Cost limits are the ``tight`` server's subject; here a slow machine must not run the
    # memory scenario's key out of search time.
    env = {"ATELIER_CLIENT_SEARCH_MS_PER_MINUTE": "600000"}
    srv = start_server(tmp_path_factory.mktemp("rel"), "default", env, ("--access-log",))
    yield srv
    bench.stop_server(srv.process)


@pytest.fixture(scope="module")
def tight(tmp_path_factory) -> Iterator[Server]:
    """Small cost limits, so that the cost scenario is short."""
    env = {
        "ATELIER_MAX_BUDGET_MS": "2000",
        "ATELIER_CLIENT_SEARCH_MS_PER_MINUTE": "2000",
        "ATELIER_CLIENT_MAX_SEARCHES": "1",
        "ATELIER_QUEUE_TIMEOUT_MS": "300",
        "ATELIER_BODY_TIMEOUT_S": "1",  # so that a 408 comes within a second
    }
    srv = start_server(tmp_path_factory.mktemp("rel"), "tight", env)
    yield srv
    bench.stop_server(srv.process)


def cached_hint(srv: Server, key: str) -> tuple[str, bytes]:
    """A hint request already answered once (so the next ones are cache hits)."""
    body = json.dumps(
        {
            "infoset": example_infoset("gallery_rush"),
            "bot": "random",
            "budget": {"milliseconds": 20},
            "seed": 3,
        }
    ).encode()
    status, data, _ = srv.request("POST", "/v1/games/gallery_rush/hint", body, key=key)
    assert status == 200, data
    return "/v1/games/gallery_rush/hint", body


# --- item 1: slow and idle clients -----------------------------------------------------------
def test_256_slow_connections_leave_ping_and_cached_hints_under_a_second(server):
    path, body = cached_hint(server, "slow")
    report = scenarios.slow_connections(
        server.port,
        connections=256,
        hold_s=6.0,
        cached_hint=(path, body),
        headers={"X-API-Key": "slow"},
        settle_s=14.0,
    )
    assert report["connections"] == {"partial_body": 128, "trickle": 128}, report
    assert report["probe_failures"] == {}, report
    assert report["met"], report  # every probe within 1 s
    assert report["probes"]["ping"] >= 5 and report["probes"]["cached_hint"] >= 5, report
    # The server cut every slow socket off by itself: heads within idle_timeout_s (5 s),
    # bodies within body_timeout_s (10 s, answered 408 in the JSON shape).
    assert report["closed_by_server"] == {"partial_body": 128, "trickle": 128}, report
    # (A reply can be lost to a reset when the socket closes; nearly all must be seen.)
    assert report["partial_bodies_answered_408"] >= 120, report


# --- item 7: transport edges -----------------------------------------------------------------
def raw_exchange(port: int, data: bytes, read_s: float = 5.0) -> tuple[bytes, bool]:
    """Sends ``data`` on a fresh socket; the reply and whether the server then closed."""
    with socket.create_connection((HOST, port), timeout=read_s) as sock:
        with contextlib.suppress(OSError):
            sock.sendall(data)
        reply = b""
        closed = False
        deadline = time.monotonic() + read_s
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                break
            except OSError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            reply += chunk
            head, sep, rest = reply.partition(b"\r\n\r\n")
            if sep:
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    None,
                )
                if length is not None and len(rest) >= length:
                    sock.settimeout(2.0)  # the body is in: does the server close now?
        return reply, closed


def parse_reply(reply: bytes) -> tuple[int, dict[str, str], Any]:
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}
    return status, headers, json.loads(body)


def test_413_says_close_and_closes(server):
    head = (
        f"POST /v1/games/gallery_rush/validate HTTP/1.1\r\nHost: {HOST}\r\n"
        "X-API-Key: edges\r\nContent-Type: application/json\r\n"
        f"Content-Length: {10 * 1024 * 1024}\r\n\r\n"
    ).encode()
    reply, closed = raw_exchange(server.port, head + b"{" * 1000)
    status, headers, body = parse_reply(reply)
    assert status == 413 and body["code"] == "too_large", reply[:300]
    assert headers.get("connection", "").lower() == "close", headers
    assert closed


def test_chunked_body_over_the_limit_gets_413_not_invalid_json(server):
    chunk = b"[" + b"1," * (1024 * 1024)
    chunks = b"".join(
        f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" for _ in range(3)
    )  # about 6 MB in three chunks, over the 2 MiB limit
    head = (
        f"POST /v1/games/gallery_rush/validate HTTP/1.1\r\nHost: {HOST}\r\n"
        "X-API-Key: edges\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    reply, _ = raw_exchange(server.port, head + chunks + b"0\r\n\r\n")
    status, headers, body = parse_reply(reply)
    assert status == 413 and body["code"] == "too_large", reply[:300]
    assert headers.get("connection", "").lower() == "close"


def test_414_and_431_come_back_in_the_json_error_shape(server):
    long_line = f"GET /v1/games?{'x' * 9000} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
    status, headers, body = parse_reply(raw_exchange(server.port, long_line)[0])
    assert status == 414 and body["code"] == "uri_too_long", body
    assert headers["content-type"] == "application/json"
    big_header = f"GET /ping HTTP/1.1\r\nHost: {HOST}\r\nX-Big: {'y' * 9000}\r\n\r\n".encode()
    status, headers, body = parse_reply(raw_exchange(server.port, big_header)[0])
    assert status == 431 and body["code"] == "headers_too_large", body
    assert set(body) == {"code", "message", "detail"}


def _post_head(length: int) -> bytes:
    return (
        f"POST /v1/games/gallery_rush/validate HTTP/1.1\r\nHost: {HOST}\r\n"
        f"X-API-Key: edges\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


ERROR_ANSWERS = {
    # status: (who answers, the raw request)
    400: ("gunicorn: a malformed request line", b"NOT AN HTTP REQUEST\r\n\r\n"),
    408: ("the body reader: a body that stops halfway", _post_head(100) + b'{"infoset": '),
    413: ("the body reader: a body over the limit", _post_head(10 * 1024 * 1024) + b"{" * 100),
    414: ("gunicorn: a request line too long", f"GET /v1/games?{'x' * 9000} HTTP/1.1\r\n\r\n"),
    431: ("gunicorn: a header too long", f"GET /ping HTTP/1.1\r\nX-Big: {'y' * 9000}\r\n\r\n"),
}


@pytest.mark.parametrize("status", sorted(ERROR_ANSWERS))
def test_errors_answered_before_the_app_carry_the_security_headers(tight, status):
    # Issue 42 item 6: these answers come from gunicorn or the body reader, not from Flask,
    # and lacked the headers docs/api.md promises on every answer.
    from server.security import API_CSP

    _, raw = ERROR_ANSWERS[status]
    raw = raw.encode() if isinstance(raw, str) else raw
    got, headers, body = parse_reply(raw_exchange(tight.port, raw)[0])
    assert got == status, (got, body)
    assert set(body) == {"code", "message", "detail"}
    assert headers.get("x-content-type-options") == "nosniff", headers
    assert headers.get("content-security-policy") == API_CSP, headers


def test_a_bom_body_refused_before_the_app_carries_the_security_headers(tight):
    from server.security import API_CSP

    body = b"\xef\xbb\xbf" + json.dumps({"infoset": example_infoset("gallery_rush")}).encode()
    status, headers, answer = parse_reply(raw_exchange(tight.port, _post_head(len(body)) + body)[0])
    assert status == 400 and answer["code"] == "invalid_json", answer
    assert headers.get("x-content-type-options") == "nosniff", headers
    assert headers.get("content-security-policy") == API_CSP, headers


@pytest.mark.parametrize(
    "encoding,prefix",
    [("utf-8", b"\xef\xbb\xbf"), ("utf-16", b""), ("utf-16-le", b""), ("utf-32", b"")],
)
def test_bom_and_utf16_bodies_are_refused_as_not_strict_json(server, encoding, prefix):
    text = json.dumps({"infoset": example_infoset("gallery_rush")})
    status, body, _ = server.request(
        "POST", "/v1/games/gallery_rush/validate", prefix + text.encode(encoding), key="edges"
    )
    assert status == 400 and body["code"] == "invalid_json", body
    assert "UTF-8" in body["message"]
    # The same request in plain UTF-8 is fine.
    status, body, _ = server.request(
        "POST", "/v1/games/gallery_rush/validate", text.encode(), key="edges"
    )
    assert status == 200, body


# --- item 3: cost limits ---------------------------------------------------------------------
def costly(game: str = "gallery_rush") -> dict[str, Any]:
    return {
        "infoset": example_infoset(game),
        "bot": "ismcts",
        "budget": {"simulations": 1_000_000, "milliseconds": 1e308},
    }


def test_costly_clients_are_limited_and_cheap_endpoints_keep_answering(tight):
    results: dict[str, list[tuple[int, Any]]] = {"cost-a": [], "cost-b": []}

    def attacker(key: str) -> None:
        for seed in range(4):
            status, body, headers = tight.request(
                "POST", "/v1/games/gallery_rush/hint", {**costly(), "seed": seed}, key=key
            )
            results[key].append((status, body, headers))

    threads = [threading.Thread(target=attacker, args=(k,)) for k in results]
    for t in threads:
        t.start()
    time.sleep(0.8)  # both search workers are now busy with 2 s searches
    worst = 0.0
    while any(t.is_alive() for t in threads):
        for path in ("/ping", "/v1/games", "/healthz"):
            t0 = time.monotonic()
            status, _, _ = tight.request("GET", path, key="cheap")
            worst = max(worst, time.monotonic() - t0)
            assert status == 200, path
        time.sleep(0.2)
    for t in threads:
        t.join(60)
    assert worst < 1.0, f"a cheap endpoint took {worst:.2f} s while the workers were busy"
    for key, answers in results.items():
        statuses = [s for s, _, _ in answers]
        # 2 s of worker time a minute: the first search may run, the budget is then spent.
        assert statuses[0] == 200, (key, answers[0][1])
        refused = [(b, h) for s, b, h in answers if s == 429]
        assert refused, (key, statuses)
        body, headers = refused[0]
        assert body["code"] == "search_time_exceeded" and int(headers["retry-after"]) >= 1
        assert answers[0][1]["budget"]["milliseconds"] == 2000  # capped to max_budget_ms
    # Another client is not held back by theirs.
    status, body, _ = tight.request(
        "POST",
        "/v1/games/gallery_rush/hint",
        {"infoset": example_infoset("gallery_rush"), "bot": "random", "seed": 9},
        key="cheap",
    )
    assert status == 200, body


def test_one_client_cannot_run_more_searches_than_its_limit(tight):
    first: list[int] = []
    thread = threading.Thread(
        target=lambda: first.append(
            tight.request("POST", "/v1/games/gallery_rush/hint", costly(), key="cost-c")[0]
        )
    )
    thread.start()
    # Asked once the search runs (not after a fixed 0.5 s, which a loaded machine could
    # reach before the search had started): from then on, 2 s of search against a 0.3 s wait.
    deadline = time.monotonic() + 30
    while not tight.details("cheap")["pool"]["busy_pids"] and time.monotonic() < deadline:
        time.sleep(0.02)
    status, body, _ = tight.request(
        "POST",
        "/v1/games/gallery_rush/validate",
        {"infoset": example_infoset("gallery_rush")},
        key="cost-c",
    )
    thread.join(30)
    assert first == [200]
    # client_max_searches = 1 and a 0.3 s wait: the second search of this client is refused.
    assert status == 429 and body["code"] == "too_many_searches", body


# --- faults ---------------------------------------------------------------------------------
def test_a_killed_search_worker_fails_one_request_and_the_service_goes_on(server):
    outcome: list[tuple[int, Any]] = []
    body = {**costly(), "budget": {"milliseconds": 3000}, "seed": 77}
    thread = threading.Thread(
        target=lambda: outcome.append(
            server.request("POST", "/v1/games/gallery_rush/hint", body, key="fault")[:2]
        )
    )
    thread.start()
    busy: list[int] = []
    deadline = time.monotonic() + 10
    while not busy and time.monotonic() < deadline:
        busy = server.details("fault")["pool"]["busy_pids"]
        time.sleep(0.1)
    assert busy, "the search never started"
    os.kill(busy[0], 9)
    thread.join(30)
    status, answer = outcome[0]
    assert status == 503 and answer["code"] == "worker_died", answer
    t0 = time.monotonic()
    status, _, _ = server.request("GET", "/ping")
    assert status == 200 and time.monotonic() - t0 < 1.0
    path, raw = cached_hint(server, "fault")
    status, answer, _ = server.request("POST", path, raw, key="fault")
    assert status == 200, answer
    pool = server.details("fault")["pool"]
    assert pool["alive"] == pool["size"] and pool["restarts"] >= 1


# --- item 2: memory under megabyte answers ---------------------------------------------------
def test_big_answers_do_not_pin_memory(server):
    pid = server.details("memory")["http_pid"]
    # Warm the code paths and allocator first, then measure the growth.
    scenarios.memory(server.port, pid, requests=10, headers={"X-API-Key": "memory"})
    report = scenarios.memory(
        server.port,
        pid,
        requests=60,
        clients=2,
        headers={"X-API-Key": "memory"},
        max_seconds=240,
    )
    assert report["statuses"] == {"200": 60}, report
    # Before the byte bound, 150 such requests grew this process by 964 MiB.
    assert report["growth_mib"] is not None and report["growth_mib"] <= 100, report
    cache = server.details("memory")["cache"]
    assert cache["bytes"] <= cache["max_bytes"], cache


# --- item 12: secrets out of the logs --------------------------------------------------------
def test_tokens_and_keys_never_reach_the_logs(server):
    token = "Zq3" + "x7Kp" * 8  # shaped like secrets.token_urlsafe(24)
    server.request("GET", f"/v1/matches/abc?token={token}", key="logs")
    server.request("GET", "/v1/matches/abc", key="logs", **{"X-Seat-Token": token})
    server.request("GET", f"/v1/games?{'q' * 20}={token}", key="logs")

    def logged() -> str:
        return Path(server.log_path).read_text(errors="replace")

    # The access log is written after each answer: wait until it holds all three requests
    # (a fixed 0.5 s was a guess at how soon a loaded machine writes it).
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log = logged()
        if log.count("GET /v1/matches/abc") >= 2 and f"GET /v1/games?{'q' * 20}" in log:
            break
        time.sleep(0.05)
    assert "/v1/matches/abc?token=[redacted]" in log  # the access log is on and readable
    assert f"GET /v1/games?{'q' * 20}" in log, log[-2000:]
    assert token not in log
    for key in KEYS:
        assert f"X-API-Key: {key}" not in log


def test_a_digit_free_seat_token_never_reaches_the_access_log(server):
    # Issue 42 item 4: a seat token with no digit (0.44% of them) was logged in clear in the
    # path, ?%74oken=, ?seat=, the Referer and the User-Agent.
    status, match, _ = server.request(
        "POST", "/v1/matches", {"game": "gallery_rush", "seats": ["human", "random"]}, key="logs"
    )
    assert status == 201, match
    assert all(t["token"].startswith("at_") for t in match["tokens"])
    secret = "kRvxQbTmZpLsWyNcFhJdAqweRtyUio-_"  # the shape of such a token, after the prefix
    token = "at_" + secret
    marker = "/v1/matches/digitfree"
    server.request(
        "GET",
        f"{marker}/{token}?%74oken={token}&seat={token}",
        key="logs",
        Referer=f"http://{HOST}/play?t={token}",
        **{"User-Agent": f"agent {token}"},
    )
    deadline = time.monotonic() + 30
    log = ""
    while time.monotonic() < deadline and marker not in log:
        time.sleep(0.05)
        log = Path(server.log_path).read_text(errors="replace")
    line = next(ln for ln in log.splitlines() if marker in ln)
    assert secret not in log and line.count("[redacted]") >= 5, line


# --- item 13: /healthz -----------------------------------------------------------------------
def test_open_healthz_is_minimal_when_keys_are_on(server):
    status, body, _ = server.request("GET", "/healthz")
    assert status == 200 and body == {"status": "ok"}
    status, body, _ = server.request("GET", "/healthz", key="wrong")
    assert status == 200 and body == {"status": "ok"}
    details = server.details("slow")
    assert {"pool", "matches", "limits", "cache"} <= set(details)
