"""``atelier bench service``: the service measured as clients hit it, in one run.

Starts ``atelier serve`` on 127.0.0.1 (a free port, a temporary match database), then measures
against that one server:

1. ``trivial``: ``GET /ping`` throughput, the reference every other figure is compared to;
2. ``cached_hint``: throughput of a hint answered from the cache (target >= 0.5 x trivial);
3. ``uncached_hint``: p50/p99 latency of hints that must be searched, at a 200 ms budget and 2
   concurrent clients (target p99 <= budget + 50 ms);
4. ``soak``: a mixed load (cached and uncached hints, validation, listings, hosted matches) at
   16 concurrent clients for at least 60 s (target: zero errors);
5. ``slow_connections``: 256 connections that never finish their request, while ``/ping``
   and the cached hint are probed (target: every probe within 1 s; ``evaluation.bench.scenarios``);
6. ``memory``: 2,000 hints (``--memory-requests``; the issue's figure is 10,000) with distinct
   seeds for a Modern Art bid step at ``money: 10000`` (target: the HTTP process's resident
   memory grows by at most 200 MiB).

Every client here comes from 127.0.0.1, so the per-client cost limits and the match quota are
off for the bench's server (they would measure the limits, not the service); the reliability
tests (tests/test_reliability.py) check the limits themselves.

All traffic goes to the loopback address, every loop is bounded in time, and the server is
stopped at the end whatever happens.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import games
from evaluation.bench import scenarios
from server.examples import example_infoset

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Client:
    """One keep-alive HTTP connection (one per client thread)."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.port = port
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        decode: bool = True,
    ) -> tuple[int, Any]:
        """Status and parsed JSON (raw bytes with ``decode=False``); ``body`` may be bytes.

        The throughput phases send pre-encoded bytes and skip decoding: the client shares the
        machine's cores with the server, and its own JSON work would be measured as the
        server's.
        """
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            try:
                self.conn.request(method, path, body=data, headers=hdrs)
                response = self.conn.getresponse()
                raw = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                if not decode:
                    return response.status, raw
                return response.status, json.loads(raw) if raw else None
            except (ConnectionError, http.client.HTTPException, OSError):
                # A keep-alive connection the server closed while idle: reconnect once.
                self.close()
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def summarize(latencies: list[float], seconds: float, errors: int, statuses: Counter) -> dict:
    return {
        "requests": len(latencies),
        "seconds": round(seconds, 2),
        "per_second": round(len(latencies) / seconds, 1) if seconds else None,
        "p50_ms": _ms(percentile(latencies, 0.50)),
        "p90_ms": _ms(percentile(latencies, 0.90)),
        "p99_ms": _ms(percentile(latencies, 0.99)),
        "max_ms": _ms(max(latencies) if latencies else None),
        "mean_ms": _ms(statistics.fmean(latencies) if latencies else None),
        "errors": errors,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
    }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


def hammer(
    port: int | list[int],
    clients: int,
    seconds: float,
    make_request: Callable[[int, int, Client], int],
    max_requests: int | None = None,
    rotate_each_request: bool = False,
) -> dict[str, Any]:
    """``clients`` threads call ``make_request(client, i, conn)`` until time (or count) is up.

    ``make_request`` returns the number of HTTP errors it saw; latencies are per call. With
    several ports (a fleet), call ``i`` goes to port ``i mod n`` (round-robin), or with
    ``rotate_each_request`` every HTTP request of a call goes to the next port in turn.
    """
    ports = [port] if isinstance(port, int) else list(port)
    latencies: list[float] = []
    statuses: Counter = Counter()
    errors = 0
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds
    counter = iter(range(max_requests or 1 << 62))

    def loop(index: int) -> None:
        nonlocal errors
        conns = [Client(p) for p in ports]
        try:
            while time.perf_counter() < stop_at:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                conn: Any = _Rotating(conns, i) if rotate_each_request else conns[i % len(conns)]
                t0 = time.perf_counter()
                try:
                    status_list: list[int] = []
                    bad = make_request(index, i, _Recorder(conn, status_list))
                except Exception:
                    bad, status_list = 1, [-1]
                dt = time.perf_counter() - t0
                with lock:
                    latencies.append(dt)
                    errors += bad
                    statuses.update(status_list)
        finally:
            for conn in conns:
                conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(k,), daemon=True) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 120)
    return summarize(latencies, time.perf_counter() - started, errors, statuses)


class _Rotating:
    """The connections of a fleet seen as one: each request goes to the next instance."""

    def __init__(self, clients: list[Client], start: int) -> None:
        self.clients = clients
        self.next = start

    def request(self, *args: Any, **kw: Any) -> tuple[int, Any]:
        client = self.clients[self.next % len(self.clients)]
        self.next += 1
        return client.request(*args, **kw)


class _Recorder:
    """Wraps a ``Client`` to record every status code a scenario step sees."""

    def __init__(self, client: Client, statuses: list[int]) -> None:
        self.client = client
        self.statuses = statuses

    def request(self, *args: Any, **kw: Any) -> tuple[int, Any]:
        status, data = self.client.request(*args, **kw)
        self.statuses.append(status)
        return status, data


def start_server(
    port: int,
    db: str,
    extra_env: dict[str, str] | None = None,
    api_key: str | None = None,
    log_path: str | None = None,
    args: tuple[str, ...] = (),
) -> subprocess.Popen:
    """``atelier serve`` on 127.0.0.1:``port``, returned once its search workers are up.

    ``extra_env`` sets ``ATELIER_*`` options; ``api_key`` is sent to ``/healthz`` (whose
    details need it when keys are on); the server's log goes to ``log_path`` (else nowhere:
    a pipe nobody reads would fill up and stall the server).
    """
    env = dict(os.environ, **(extra_env or {}))
    # Run this very source tree, installed or not.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    cmd = [
        sys.executable,
        "-m",
        "evaluation.cli",
        "serve",
        "--host",
        HOST,
        "--port",
        str(port),
        "--db",
        db,
        *args,
    ]
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        process = subprocess.Popen(cmd, env=env, stdout=log, stderr=log, start_new_session=True)
    finally:
        if log_path:
            log.close()
    process.log_path = log_path  # type: ignore[attr-defined]
    deadline = time.monotonic() + 120
    client = Client(port, timeout=5)
    headers = {"X-API-Key": api_key} if api_key else None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = ""
            if log_path:
                with open(log_path, errors="replace") as fh:
                    tail = fh.read()[-3000:]
            raise RuntimeError(f"the server exited early (code {process.returncode}):\n{tail}")
        try:
            status, data = client.request("GET", "/healthz", headers=headers)
            pool = data.get("pool", {}) if isinstance(data, dict) else {}
            if status == 200 and pool.get("alive", 0) >= pool.get("size", 1):
                client.close()
                return process
        except OSError:
            pass
        time.sleep(0.3)
    stop_server(process)
    raise RuntimeError("the server did not become healthy within 120 s")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def infoset_pool(names: list[str], count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """``count`` distinct (game, infoset) pairs per game, at varied points of random games."""
    out = []
    for name in names:
        for k in range(count):
            out.append((name, example_infoset(name, seed=seed + k, min_steps=2 + 3 * (k % 7))))
    return out


def run(
    seconds: float = 10.0,
    soak_seconds: float = 60.0,
    uncached_seconds: float = 30.0,
    soak_clients: int = 16,
    throughput_clients: int = 4,
    budget_ms: float = 200.0,
    bot: str | None = None,
    names: list[str] | None = None,
    seed: int = 0,
    progress: Callable[[str], None] = lambda _: None,
    slow_connections: int = 256,
    memory_requests: int = 2_000,
) -> dict[str, Any]:
    names = names or sorted(games.DEFINITIONS)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="atelier-bench-") as tmp:
        progress(f"starting atelier serve on {HOST}:{port}")
        process = start_server(port, os.path.join(tmp, "matches.sqlite3"), extra_env=BENCH_ENV)
        try:
            report = _measure(
                port,
                seconds,
                soak_seconds,
                uncached_seconds,
                soak_clients,
                throughput_clients,
                budget_ms,
                bot,
                names,
                seed,
                progress,
            )
            report.update(_attacks(port, report, slow_connections, memory_requests, progress))
            return report
        finally:
            stop_server(process)


# All bench clients share one address: per-client cost limits and the match quota off (see the
# module docstring).
BENCH_ENV = {
    "ATELIER_CLIENT_MAX_SEARCHES": "0",
    "ATELIER_CLIENT_SEARCH_MS_PER_MINUTE": "0",
    "ATELIER_MATCH_QUOTA_PER_CLIENT": "0",
}


def _attacks(
    port: int,
    report: dict[str, Any],
    slow_connections: int,
    memory_requests: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """The slow-connection and memory scenarios, after the latency phases (they disturb them)."""
    out: dict[str, Any] = {}
    targets = report["targets"]
    if slow_connections > 0:
        progress(f"slow connections: {slow_connections} open, probing /ping and a cached hint")
        cached = report.pop("_cached_request")
        out["slow_connections"] = scenarios.slow_connections(
            port, connections=slow_connections, cached_hint=cached
        )
        targets["slow_connections_probes_within_1s"] = out["slow_connections"]["met"]
    report.pop("_cached_request", None)
    if memory_requests > 0:
        progress(f"memory: {memory_requests} Modern Art bid-step hints with distinct seeds")
        _, health = Client(port).request("GET", "/healthz")
        out["memory"] = scenarios.memory(port, health["http_pid"], requests=memory_requests)
        targets["memory_growth_within_200MiB"] = out["memory"]["met"]
    return out


def warm_up(
    sides: list[list[int]], bot: str | None, names: list[str], budget_ms: float, seed: int
) -> tuple[str, list[tuple[str, dict[str, Any]]], dict[str, float], str, dict[str, Any]]:
    """The set-up both service benchmarks share (this one and ``service_fleet``'s): the bot
    (the server's default unless named), the pool of infosets, the hint budget, and the cached
    hint's game and body. Every instance of every side (a list of ports) answers its share of
    the pool once, so no phase pays for first imports and replays, and the cached hint is
    stored on the first instance of each side. Returns ``(bot, infosets, budget, cached_game,
    cached_body)``."""
    _, bots_info = Client(sides[0][0]).request("GET", "/v1/bots")
    bot = bot or bots_info["default"]
    infosets = infoset_pool(names, 8, seed)
    budget = {"milliseconds": budget_ms}
    cached_game, cached_infoset = infosets[0]
    cached_body = {"infoset": cached_infoset, "bot": bot, "budget": budget, "seed": 7}
    for ports in sides:
        for k, port in enumerate(ports):
            conn = Client(port)
            for name, infoset in infosets[k::8]:
                body = {"infoset": infoset, "bot": bot, "budget": budget, "seed": 1}
                conn.request("POST", f"/v1/games/{name}/hint", body)
            conn.close()
        status, data = Client(ports[0]).request(
            "POST", f"/v1/games/{cached_game}/hint", cached_body
        )
        if status != 200:
            raise RuntimeError(f"hint request failed: {status} {data}")
    return bot, infosets, budget, cached_game, cached_body


def _measure(
    port: int,
    seconds: float,
    soak_seconds: float,
    uncached_seconds: float,
    soak_clients: int,
    throughput_clients: int,
    budget_ms: float,
    bot: str | None,
    names: list[str],
    seed: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    load_start = round(os.getloadavg()[0], 2)
    probe = Client(port)
    _, health = probe.request("GET", "/healthz")
    bot, infosets, budget, cached_game, cached_body = warm_up([[port]], bot, names, budget_ms, seed)

    progress(f"trivial endpoint (GET /ping), {throughput_clients} clients, {seconds:.0f} s")
    trivial = hammer(
        port,
        throughput_clients,
        seconds,
        lambda c, i, conn: ok(conn.request("GET", "/ping", decode=False)[0]),
    )

    progress(f"cached hint, {throughput_clients} clients, {seconds:.0f} s")

    cached_bytes = json.dumps(cached_body).encode()
    cached = hammer(port, throughput_clients, seconds, cached_hint_step(cached_game, cached_bytes))
    cached["ratio_to_trivial"] = (
        round(cached["per_second"] / trivial["per_second"], 3) if trivial["per_second"] else None
    )

    # Long enough for a p99 that is not just the maximum of a handful of requests.
    uncached_seconds = max(uncached_seconds, 10 * budget_ms / 1000.0)
    progress(
        f"uncached hints ({bot}, {budget_ms:.0f} ms budget), 2 clients, {uncached_seconds:.0f} s"
    )
    uncached = hammer(port, 2, uncached_seconds, uncached_hint_step(infosets, bot, budget))
    uncached["budget_ms"] = budget_ms
    uncached["target_p99_ms"] = budget_ms + 50
    uncached["met"] = uncached["p99_ms"] is not None and uncached["p99_ms"] <= budget_ms + 50

    progress(f"soak: mixed load, {soak_clients} clients, {soak_seconds:.0f} s")
    soak = hammer(
        port,
        soak_clients,
        soak_seconds,
        _soak_step(names, infosets, cached_body, cached_game, bot, budget),
    )
    _, health_after = probe.request("GET", "/healthz")
    probe.close()
    return {
        "host": HOST,
        "cpus": os.cpu_count(),
        # Other work on the machine skews every figure: say how busy it was.
        "load_average_1m": {"start": load_start, "end": round(os.getloadavg()[0], 2)},
        "server": {"search_workers": health["pool"]["size"], "bot": bot, "games": names},
        "trivial": trivial,
        "cached_hint": cached,
        "uncached_hint": uncached,
        "soak": {**soak, "clients": soak_clients},
        "targets": {
            "uncached_p99_within_budget_plus_50ms": uncached["met"],
            "cached_throughput_at_least_half_trivial": (cached["ratio_to_trivial"] or 0) >= 0.5,
            "soak_zero_errors": soak["errors"] == 0 and soak["seconds"] >= min(60, soak_seconds),
        },
        "server_after": {"pool": health_after["pool"], "cache": health_after["cache"]},
        "_cached_request": (f"/v1/games/{cached_game}/hint", cached_bytes),
    }


def ok(status: int) -> int:
    """1 for an HTTP error status, else 0 (the steps below return error counts)."""
    return 0 if 200 <= status < 300 else 1


def cached_hint_step(game: str, body: bytes) -> Callable[[int, int, Any], int]:
    """A step sending the same pre-encoded hint, which must come from the cache."""

    def step(c: int, i: int, conn: Any) -> int:
        status, raw = conn.request("POST", f"/v1/games/{game}/hint", body, decode=False)
        return ok(status) + (0 if status != 200 or b'"cached":true' in raw else 1)

    return step


def uncached_hint_step(
    infosets: list[tuple[str, dict[str, Any]]], bot: str, budget: dict[str, Any]
) -> Callable[[int, int, Any], int]:
    """A step sending a hint with a seed never sent before, which must be searched."""
    seeds = iter(range(10_000_000, 20_000_000))
    lock = threading.Lock()

    def step(c: int, i: int, conn: Any) -> int:
        name, infoset = infosets[i % len(infosets)]
        with lock:
            s = next(seeds)
        body = {"infoset": infoset, "bot": bot, "budget": budget, "seed": s}
        status, data = conn.request("POST", f"/v1/games/{name}/hint", body)
        return ok(status) + (0 if status != 200 or not data["cached"] else 1)

    return step


def _soak_step(
    names: list[str],
    infosets: list[tuple[str, dict[str, Any]]],
    cached_body: dict[str, Any],
    cached_game: str,
    bot: str,
    budget: dict[str, Any],
) -> Callable[[int, int, Any], int]:
    """One step of the mixed scenario; the same mix as ``evaluation/bench/locustfile.py``."""
    seeds = iter(range(20_000_000, 30_000_000))
    lock = threading.Lock()

    def step(c: int, i: int, conn: Any) -> int:
        rng = random.Random(i)
        roll = rng.random()
        bad = 0
        if roll < 0.40:
            status, _ = conn.request("POST", f"/v1/games/{cached_game}/hint", cached_body)
            bad += status != 200
        elif roll < 0.50:
            name, infoset = infosets[rng.randrange(len(infosets))]
            with lock:
                s = next(seeds)
            body = {"infoset": infoset, "bot": bot, "budget": budget, "seed": s}
            status, _ = conn.request("POST", f"/v1/games/{name}/hint", body)
            bad += status != 200
        elif roll < 0.65:
            name, infoset = infosets[rng.randrange(len(infosets))]
            status, _ = conn.request("POST", f"/v1/games/{name}/validate", {"infoset": infoset})
            bad += status != 200
        elif roll < 0.75:
            status, _ = conn.request("GET", "/v1/games")
            bad += status != 200
        elif roll < 0.80:
            status, _ = conn.request("GET", f"/v1/games/{rng.choice(names)}")
            bad += status != 200
        else:
            bad += match_flow(conn, rng.choice(names), rng)
        return int(bad > 0)

    return step


def match_flow(conn: Any, name: str, rng: random.Random) -> int:
    """Create a match against random bots, look at it, play one move, ask for a hint."""
    status, info = conn.request("GET", f"/v1/games/{name}")
    if status != 200:
        return 1
    seats = ["human"] + ["random"] * (info["min_players"] - 1)
    status, match = conn.request(
        "POST", "/v1/matches", {"game": name, "seats": seats, "seed": rng.randrange(1 << 30)}
    )
    if status != 201:
        return 1
    mid, token = match["match_id"], match["tokens"][0]["token"]
    headers = {"X-Seat-Token": token}
    status, view = conn.request("GET", f"/v1/matches/{mid}", headers=headers)
    if status != 200:
        return 1
    if view["terminal"]:
        return 0
    status, _ = conn.request(
        "GET", f"/v1/matches/{mid}/hint?bot=random&milliseconds=50", headers=headers
    )
    if status != 200:
        return 1
    action = rng.choice(view["infoset"]["view"]["legal_actions"])["struct"]
    status, _ = conn.request(
        "POST", f"/v1/matches/{mid}/actions", {"action": action}, headers=headers
    )
    return int(status != 200)


def format_report(report: dict[str, Any]) -> str:
    t, c, u, s = (report[k] for k in ("trivial", "cached_hint", "uncached_hint", "soak"))
    lines = [
        f"server: {report['server']['search_workers']} search workers, bot "
        f"{report['server']['bot']}, {report['cpus']} cpus, load average "
        f"{report['load_average_1m']['start']} -> {report['load_average_1m']['end']}",
        f"trivial GET /ping    : {t['per_second']:>8} req/s  p50 {t['p50_ms']} ms  "
        f"p99 {t['p99_ms']} ms",
        f"cached hint          : {c['per_second']:>8} req/s  p50 {c['p50_ms']} ms  "
        f"p99 {c['p99_ms']} ms  ratio {c['ratio_to_trivial']} (target >= 0.5)",
        f"uncached hint        : {u['requests']} requests at {u['budget_ms']:.0f} ms budget, "
        f"2 clients: p50 {u['p50_ms']} ms  p99 {u['p99_ms']} ms "
        f"(target <= {u['target_p99_ms']:.0f} ms)",
        f"soak                 : {s['requests']} scenario steps in {s['seconds']} s at "
        f"{s['clients']} clients, {s['errors']} errors, statuses {s['statuses']}",
    ]
    if "slow_connections" in report:
        sc = report["slow_connections"]
        lines.append(
            f"slow connections     : {sum(sc['connections'].values())} open for {sc['hold_s']} s:"
            f" worst /ping {sc['worst_ms']['ping']} ms, cached hint "
            f"{sc['worst_ms']['cached_hint']} ms (target <= {sc['target_ms']:.0f} ms), "
            f"closed by the server {sc['closed_by_server']}"
        )
    if "memory" in report:
        m = report["memory"]
        lines.append(
            f"memory               : {m['requests']} bid-step hints (answers up to "
            f"{m['answer_bytes_max']} bytes): RSS {m['rss_idle_mib']} -> {m['rss_after_mib']} "
            f"MiB, growth {m['growth_mib']} MiB (target <= {m['target_growth_mib']:.0f}), "
            f"statuses {m['statuses']}"
        )
    lines.append("targets: " + ", ".join(f"{k}={v}" for k, v in report["targets"].items()))
    return "\n".join(lines)
