"""Hardening that needs no real server: hosts, cross-site posts, security headers, the cost
limiter, the cache's byte bound, log redaction, body checks (issue 16 items 2, 3, 7, 12-14)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import re

import pytest

from server import close_app
from server.cache import ResultCache, approx_size
from server.config import ServiceConfig
from server.errors import ApiError
from server.examples import example_infoset
from server.limits import CostLimiter
from server.logs import REDACTED, RedactSecrets, redact
from server.transport import BufferedBody
from tests.server_support import make_app

# Its own app (tests/conftest.py): one search worker.
OWN_APP: dict[str, object] = {"search_workers": 1}


def match_body() -> bytes:
    return json.dumps({"game": "gallery_rush", "seats": ["human", "random"]}).encode()


# --- item 14: hosts, cross-site posts, headers -----------------------------------------------
def test_unknown_host_is_refused_by_default_on_loopback(app):
    c = app.test_client()
    assert c.get("/v1/games", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert c.get("/v1/games", headers={"Host": "localhost"}).status_code == 200
    r = c.get("/v1/games", headers={"Host": "rebound.attacker.example"})
    assert r.status_code == 400 and r.json["code"] == "host_not_allowed"
    assert r.json["detail"] == {"host": "rebound.attacker.example"}


def test_allowed_hosts_is_configurable(tmp_path):
    app = make_app(tmp_path, allowed_hosts=["api.example.org"])
    c = app.test_client()
    assert c.get("/ping", headers={"Host": "api.example.org"}).status_code == 200
    assert c.get("/ping", headers={"Host": "localhost"}).status_code == 400
    assert ServiceConfig.load(env={"ATELIER_ALLOWED_HOSTS": "a.org,b.org"}).allowed_hosts == (
        "a.org",
        "b.org",
    )
    any_host = make_app(tmp_path, host="0.0.0.0").test_client()
    assert any_host.get("/ping", headers={"Host": "whatever.example"}).status_code == 200


def test_cross_site_text_plain_post_is_refused_and_creates_nothing(app):
    c = app.test_client()
    rt = app.extensions["atelier"]
    before = rt.store.count()
    r = c.post(
        "/v1/matches",
        data=match_body(),
        headers={"Content-Type": "text/plain", "Origin": "https://evil.example"},
    )
    assert r.status_code == 403 and r.json["code"] == "cross_site"
    assert "evil.example" in r.json["message"]
    r = c.post(
        "/v1/matches",
        data=match_body(),
        headers={"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"},
    )
    assert r.status_code == 403
    assert rt.store.count() == before
    # The service's own page (same origin) and non-browser clients (no Origin) still work.
    same = c.post(
        "/v1/matches",
        data=match_body(),
        headers={"Content-Type": "application/json", "Origin": "http://localhost"},
    )
    assert same.status_code == 201, same.json
    assert c.post("/v1/matches", data=match_body()).status_code == 201
    # Reading is harmless: a foreign Origin may GET.
    assert c.get("/v1/games", headers={"Origin": "https://evil.example"}).status_code == 200


def test_allowed_origins_may_post(tmp_path):
    app = make_app(tmp_path, allowed_origins=["https://partner.example"])
    r = app.test_client().post(
        "/v1/matches", data=match_body(), headers={"Origin": "https://partner.example"}
    )
    assert r.status_code == 201
    close_app(app)


def test_pages_carry_csp_frame_ancestors_and_nosniff(app):
    c = app.test_client()
    for path in ("/play", "/docs"):
        r = c.get(path)
        assert r.status_code == 200
        csp = r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";", 1)[0]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"
    # The docs page's inline script is allowed by its hash, and only it.
    docs = c.get("/docs")
    scripts = re.findall(rb"<script>(.*?)</script>", docs.data, re.S)
    assert scripts
    for script in scripts:
        digest = base64.b64encode(hashlib.sha256(script).digest()).decode()
        assert f"'sha256-{digest}'" in docs.headers["Content-Security-Policy"]
    api = c.get("/v1/games")
    assert api.headers["X-Content-Type-Options"] == "nosniff"
    assert api.headers["Content-Security-Policy"].startswith("default-src 'none'")


# --- item 13 (test client side) --------------------------------------------------------------
def test_healthz_details_need_the_key(tmp_path):
    app = make_app(tmp_path, api_keys=["k"])
    c = app.test_client()
    assert c.get("/healthz").json == {"status": "ok"}
    details = c.get("/healthz", headers={"X-API-Key": "k"}).json
    assert details["matches"]["db"].endswith("matches.sqlite3")
    assert "costs" in details["limits"] and isinstance(details["http_pid"], int)
    open_app = make_app(tmp_path)  # no keys: nothing to hide behind
    assert "pool" in open_app.test_client().get("/healthz").json


# --- item 7 (test client side) ---------------------------------------------------------------
def test_bom_and_utf16_refused_through_the_app(app):
    c = app.test_client()
    text = json.dumps({"infoset": example_infoset("gallery_rush")})
    for raw in (b"\xef\xbb\xbf" + text.encode(), text.encode("utf-16"), b"\xff{}"):
        r = c.post("/v1/games/gallery_rush/validate", data=raw)
        assert r.status_code == 400 and r.json["code"] == "invalid_json", r.json
    assert c.post("/v1/games/gallery_rush/validate", data=text.encode()).status_code == 200


def _call(middleware: BufferedBody, environ: dict) -> tuple[str, bytes]:
    seen: list[str] = []
    body = b"".join(middleware(environ, lambda status, headers: seen.append(status)))
    return (seen[0] if seen else "app"), body


def test_buffered_body_refuses_chunked_bodies_over_the_limit():
    def inner(environ, start_response):
        start_response("200 OK", [])
        return [environ["wsgi.input"].read()]

    mw = BufferedBody(inner, max_bytes=1024, timeout_s=1.0)
    chunked = {"HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input": io.BytesIO(b"[" * 5000)}
    status, body = _call(mw, chunked)
    assert status.startswith("413") and json.loads(body)["code"] == "too_large"
    ok = {"HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input": io.BytesIO(b"[1]")}
    assert _call(mw, ok) == ("200 OK", b"[1]")
    short = {"CONTENT_LENGTH": "10", "wsgi.input": io.BytesIO(b"[1]")}
    status, body = _call(mw, short)
    assert status.startswith("400") and "ended after 3 of 10" in json.loads(body)["message"]


# --- item 3: the cost limiter ----------------------------------------------------------------
def test_cost_limiter_bounds_searches_at_once_and_time_per_minute():
    costs = CostLimiter(max_searches=1, ms_per_minute=1000, wait_s=0.1)
    costs.acquire("a")
    with pytest.raises(ApiError) as err:
        costs.acquire("a")  # its one search is still running
    assert err.value.status == 429 and err.value.code == "too_many_searches"
    costs.acquire("b")  # another client is not affected
    costs.release("b", 10)
    costs.release("a", 1500)  # ran 1.5 s: more than its 1 s a minute
    with pytest.raises(ApiError) as err:
        costs.acquire("a")
    assert err.value.code == "search_time_exceeded"
    # 0.5 s over: the first 0.5 s of those 1.5 s leave the 60 s window in 58.5 to 59 s.
    assert 58 <= err.value.retry_after <= 59.1
    costs.acquire("b")
    assert costs.info()["refused"] == 2


def test_cost_limits_off_at_zero():
    costs = CostLimiter(max_searches=0, ms_per_minute=0, wait_s=0.1)
    for _ in range(5):
        costs.acquire("a")
    costs.release("a", 1e9)
    costs.acquire("a")
    # Off: nothing refused, nothing even tracked.
    assert costs.info()["refused"] == 0 and costs.info()["clients_searching"] == 0


def test_default_budget_caps_are_lower():
    config = ServiceConfig()
    assert config.max_budget_ms == 5000 and config.max_simulations == 200_000
    assert ServiceConfig.load(env={"ATELIER_MAX_BUDGET_MS": "800"}).max_budget_ms == 800


# --- item 2: the cache's byte bound ----------------------------------------------------------
def test_cache_is_bounded_in_bytes_and_skips_huge_entries():
    cache = ResultCache(10_000, 60, max_bytes=1_000_000, max_entry_bytes=200_000)
    for i in range(100):
        cache.put(f"k{i}", {"policy": [{"id": j, "p": 0.5} for j in range(500)], "i": i})
    info = cache.info()
    assert info["bytes"] <= 1_000_000 and 0 < info["size"] < 100
    assert cache.get("k99") is not None and cache.get("k0") is None  # oldest out first
    huge = {"policy": [{"id": j} for j in range(10_000)]}
    assert approx_size(huge) > 200_000
    cache.put("huge", huge)
    assert cache.get("huge") is None and cache.info()["not_kept_too_big"] == 1
    # The entry count still bounds small entries.
    small = ResultCache(5, 60, max_bytes=1_000_000)
    for i in range(20):
        small.put(str(i), i)
    assert small.info()["size"] == 5


# --- item 12: redaction ----------------------------------------------------------------------
def test_redaction_of_token_like_text():
    token = "kR2v9xQ0bT7mZ1pL4sW8yN3cF6hJ5dA-"
    line = f'"GET /v1/matches/0f3a9c2b7d4e4f1a8b6c5d4e3f2a1b0c?token={token} HTTP/1.1" 200'
    out = redact(line)
    assert token not in out and "0f3a9c2b7d4e4f1a8b6c5d4e3f2a1b0c" in out
    assert "token=" + REDACTED in out
    assert redact(f"X-Seat-Token: {token}") == f"X-Seat-Token: {REDACTED}"
    assert redact("api_key=hunter2&x=1") == f"api_key={REDACTED}&x=1"
    assert redact("key is change-me", ["change-me"]) == f"key is {REDACTED}"
    assert redact(f"stray {token} here") == f"stray {REDACTED} here"
    readable = "cached_throughput_at_least_half_trivial uncached_hint modern_art"
    assert redact(readable) == readable


def test_redacting_filter_rewrites_records_and_tracebacks():
    record = logging.LogRecord(
        "atelier", logging.ERROR, __file__, 1, "bad token=%s", ("s3cr3tT0kenValue",), None
    )
    try:
        raise ValueError("leaked X-API-Key: change-me")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    RedactSecrets(["change-me"]).filter(record)
    assert record.getMessage() == f"bad token={REDACTED}"
    assert "change-me" not in record.exc_text


# --- issue 18 item 12: the serve help says its defaults like every other option --------------
def test_serve_help_shows_every_default_the_same_way():
    from click.testing import CliRunner

    from server.commands import serve

    text = CliRunner().invoke(serve, ["--help"], terminal_width=200).output
    assert "[16]" not in text
    assert "HTTP threads of the gthread front.  [default: 16]" in text
    for option in ("--host", "--port", "--search-workers", "--http-worker", "--db"):
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(option))
        assert "[default: " in line, line
