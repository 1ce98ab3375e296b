"""Attack scenarios against a running service, shared by ``atelier bench service`` and the
reliability tests (tests/test_reliability.py): slow connections, and memory under big answers.

Each returns a JSON-able report with its target and whether it was met; everything is bounded
in time and talks to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import threading
import time
from collections import Counter
from typing import Any

import games
from games.core.episode import random_position, stream_chance
from games.core.infoset import build_infoset

HOST = "127.0.0.1"
SLOW_TARGET_S = 1.0
MEMORY_TARGET_MIB = 200.0


def rss_mib(pid: int) -> float | None:
    """Resident memory of process ``pid`` in MiB (Linux ``/proc``; ``None`` elsewhere)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def big_bid_infoset(seed: int = 0) -> dict[str, Any]:
    """A Modern Art information set at a bid step with ``money: 10000`` (10,001 legal bids):
    two kilobytes of request whose naive answer is a megabyte."""
    defn = games.definition("modern_art")
    params = defn.validate_params({"money": 10000})
    rng = random.Random(seed)
    engine = random_position(
        defn, params, rng, lambda e: len(e.legal_actions()) >= 1000, chance=stream_chance(rng)
    )
    if engine is None:  # pragma: no cover - every seeded game reaches an auction
        raise RuntimeError("no big bid step in this game")
    return build_infoset(defn, params, engine, engine.current_player(), with_view=False)


def _request(
    method: str, path: str, body: bytes | None, headers: dict[str, str], port: int, timeout: float
) -> tuple[int, bytes]:
    """One request on a fresh connection (a new client, as an attacker's victims would be)."""
    import http.client

    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        hdrs = {"Content-Type": "application/json", **headers}
        conn.request(method, path, body=body, headers=hdrs)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _open_slow(port: int, kind: str, path: str) -> socket.socket:
    sock = socket.create_connection((HOST, port), timeout=5)
    if kind == "partial_body":
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{".encode()
        )
    else:  # "trickle": the request line now, then one header line every 2 s
        sock.sendall(f"POST {path} HTTP/1.1\r\n".encode())
    return sock


def _closed_by_server(sock: socket.socket) -> tuple[bool, bytes]:
    """Whether the server has closed ``sock`` (and what it sent first), without waiting."""
    sock.setblocking(False)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return True, data
            data += chunk
    except BlockingIOError:
        return False, data
    except OSError:
        return True, data


def slow_connections(
    port: int,
    connections: int = 256,
    hold_s: float = 6.0,
    probe_every_s: float = 0.5,
    cached_hint: tuple[str, bytes] | None = None,
    headers: dict[str, str] | None = None,
    settle_s: float = 12.0,
) -> dict[str, Any]:
    """``connections`` sockets that never finish their request (half send one byte of a
    1,000-byte body, half one header line every 2 s); meanwhile ``/ping`` and a cached hint
    (``(path, body)``, already answered once) are asked on fresh connections. Target: every
    probe answers within 1 s. Afterwards, how many of the slow sockets the server had closed by
    itself within ``settle_s`` more seconds (its read timeouts)."""
    headers = headers or {}
    socks: list[tuple[str, socket.socket]] = []
    opened = Counter()
    for k in range(connections):
        kind = "partial_body" if k % 2 == 0 else "trickle"
        try:
            socks.append((kind, _open_slow(port, kind, "/v1/games/gallery_rush/validate")))
            opened[kind] += 1
        except OSError:
            opened["failed"] += 1
    stop = threading.Event()

    def trickle() -> None:
        n = 0
        while not stop.wait(2.0):
            n += 1
            for kind, sock in socks:
                if kind == "trickle":
                    with contextlib.suppress(OSError):
                        sock.sendall(f"X-Slow-{n}: {n}\r\n".encode())

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    probes: dict[str, list[float]] = {"ping": [], "cached_hint": []}
    failures: Counter = Counter()
    start = time.monotonic()
    try:
        while time.monotonic() - start < hold_s:
            targets = [("ping", "GET", "/ping", None)]
            if cached_hint is not None:
                targets.append(("cached_hint", "POST", cached_hint[0], cached_hint[1]))
            for name, method, path, body in targets:
                t0 = time.monotonic()
                try:
                    status, _ = _request(method, path, body, headers, port, timeout=5.0)
                    if status != 200:
                        failures[f"{name}:{status}"] += 1
                except OSError as err:
                    failures[f"{name}:{type(err).__name__}"] += 1
                    status = -1
                probes[name].append(time.monotonic() - t0 if status == 200 else float("inf"))
            time.sleep(probe_every_s)
        # The server's own timeouts: a slow socket must not stay open for ever.
        closed = Counter()
        answered_408 = 0
        until = time.monotonic() + settle_s
        pending = list(socks)
        while pending and time.monotonic() < until:
            still = []
            for kind, sock in pending:
                done, data = _closed_by_server(sock)
                if done:
                    closed[kind] += 1
                    answered_408 += data.startswith(b"HTTP/1.1 408")
                else:
                    still.append((kind, sock))
            pending = still
            time.sleep(0.25)
    finally:
        stop.set()
        thread.join(5)
        for _, sock in socks:
            sock.close()
    worst = {k: (round(max(v) * 1000, 1) if v else None) for k, v in probes.items()}
    met = bool(probes["ping"]) and all(max(v) <= SLOW_TARGET_S for v in probes.values() if v)
    return {
        "connections": dict(opened),
        "hold_s": hold_s,
        "probes": {k: len(v) for k, v in probes.items()},
        "probe_failures": dict(failures),
        "worst_ms": worst,
        "target_ms": SLOW_TARGET_S * 1000,
        "met": met and not failures,
        "closed_by_server": dict(closed),
        "partial_bodies_answered_408": answered_408,
    }


def memory(
    port: int,
    http_pid: int,
    requests: int = 10_000,
    clients: int = 2,
    bot: str = "random",
    budget_ms: float = 20.0,
    headers: dict[str, str] | None = None,
    max_seconds: float = 900.0,
) -> dict[str, Any]:
    """``requests`` hints with distinct seeds for a Modern Art bid step at ``money: 10000``
    (``big_bid_infoset``), from ``clients`` threads; the HTTP process's resident memory before
    and after. Target: it grows by at most 200 MiB."""
    headers = headers or {}
    infoset = big_bid_infoset()
    before = rss_mib(http_pid)
    statuses: Counter = Counter()
    sizes: list[int] = []
    counter = iter(range(requests))
    lock = threading.Lock()
    deadline = time.monotonic() + max_seconds
    peak = [before or 0.0]

    def loop() -> None:
        while time.monotonic() < deadline:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            body = json.dumps(
                {"infoset": infoset, "bot": bot, "budget": {"milliseconds": budget_ms}, "seed": i}
            ).encode()
            try:
                status, raw = _request(
                    "POST", "/v1/games/modern_art/hint", body, headers, port, timeout=60.0
                )
            except OSError as err:
                status, raw = -1, type(err).__name__.encode()
            with lock:
                statuses[status] += 1
                sizes.append(len(raw))
                if i % 200 == 0:
                    peak[0] = max(peak[0], rss_mib(http_pid) or 0.0)

    t0 = time.monotonic()
    threads = [threading.Thread(target=loop, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max_seconds + 120)
    after = rss_mib(http_pid)
    done = sum(statuses.values())
    growth = None if before is None or after is None else round(after - before, 1)
    return {
        "requests": done,
        "seconds": round(time.monotonic() - t0, 1),
        "bot": bot,
        "budget_ms": budget_ms,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "answer_bytes_max": max(sizes) if sizes else None,
        "rss_idle_mib": None if before is None else round(before, 1),
        "rss_after_mib": None if after is None else round(after, 1),
        "rss_peak_mib": round(max(peak[0], after or 0.0), 1),
        "growth_mib": growth,
        "target_growth_mib": MEMORY_TARGET_MIB,
        "met": growth is not None and growth <= MEMORY_TARGET_MIB and done == requests,
    }
