"""``atelier bench service --instances N --redis URL [--db URL]``: a fleet against one instance.

Starts, on 127.0.0.1 (free ports), N ``atelier serve`` instances sharing one Redis (a fresh key
prefix, removed at the end) and, with ``--db``, one match store, each with
``workers_per_instance`` search workers; and the reference: one instance with the same total
of search workers (N x ``workers_per_instance``), embedded defaults (in-process cache and
limits, SQLite). Then, on the same request mix, every request of the fleet's share going to
the next instance in turn (round-robin, as a load balancer without stickiness would):

1. ``cached_hint``: throughput of one cached hint (target: fleet >= 0.9 x reference);
2. ``uncached_hint``: p50/p99 latency of hints that must be searched, 2 clients (target:
   fleet p99 <= 1.1 x reference);
3. ``hit_rate``: one client sends a fixed sequence of hints with repeats; the fraction
   answered from the cache (target: equal; a cache per instance would miss each repeat that
   lands on an instance that has not seen it);
4. ``soak``: the mixed load of ``atelier bench service`` on the fleet (target: zero errors).

Phases 1 and 2 alternate reference and fleet in two rounds each, so that a change of load on
the machine weighs on both. The rate limits and per-client cost limits are on with limits
nothing here reaches (all clients share one address), so that every request pays for its
checks, in Redis for the fleet and in memory for the reference.

Without ``--db`` each instance keeps its own SQLite file: hosted matches are then not shared,
and each soak step (a whole match flow) is sent to one instance. With ``--db`` (PostgreSQL:
a fleet needs a store every instance reaches) every request goes to the next instance.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import uuid
from collections.abc import Callable
from typing import Any

import games
from evaluation.bench.service import (
    HOST,
    Client,
    _soak_step,
    cached_hint_step,
    free_port,
    hammer,
    start_server,
    stop_server,
    uncached_hint_step,
    warm_up,
)

# Limits on, out of reach: every request is checked, none is refused (see the docstring).
FLEET_ENV = {
    "ATELIER_RATE_LIMIT_PER_MINUTE": "100000000",
    "ATELIER_CLIENT_MAX_SEARCHES": "100000",
    "ATELIER_CLIENT_SEARCH_MS_PER_MINUTE": "1e12",
    "ATELIER_MATCH_QUOTA_PER_CLIENT": "0",
}


def check_db_url(db: str | None) -> str | None:
    """Why ``db`` cannot be a fleet's shared store, or ``None`` if it can (or is not given)."""
    if db is None or db.startswith(("postgresql://", "postgresql+psycopg://", "postgres://")):
        return None
    from server.urls import redacted_url

    return (
        f"--db {redacted_url(db)!r}: a fleet needs one match store every instance reaches, "
        "a PostgreSQL URL (postgresql://user:password@host/db); leave --db out to bench the "
        "shared cache and limits alone (each instance then keeps its own SQLite file)"
    )


def run(
    instances: int,
    redis_url: str,
    db_url: str | None = None,
    workers_per_instance: int = 1,
    seconds: float = 10.0,
    soak_seconds: float = 60.0,
    uncached_seconds: float = 30.0,
    soak_clients: int = 16,
    throughput_clients: int = 4,
    budget_ms: float = 200.0,
    bot: str | None = None,
    names: list[str] | None = None,
    seed: int = 0,
    hit_requests: int = 96,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    names = names or sorted(games.DEFINITIONS)
    prefix = f"atelier-bench-{uuid.uuid4().hex[:10]}"
    total_workers = instances * workers_per_instance
    processes = []
    with tempfile.TemporaryDirectory(prefix="atelier-fleet-") as tmp:
        try:
            ref_port = free_port()
            progress(f"reference: 1 instance x {total_workers} search workers on {HOST}:{ref_port}")
            processes.append(
                start_server(
                    ref_port,
                    os.path.join(tmp, "reference.sqlite3"),
                    extra_env=FLEET_ENV,
                    args=("--search-workers", str(total_workers)),
                )
            )
            fleet_ports = []
            for k in range(instances):
                port = free_port()
                progress(
                    f"fleet instance {k + 1}/{instances}: {workers_per_instance} search workers "
                    f"on {HOST}:{port}"
                )
                processes.append(
                    start_server(
                        port,
                        db_url or os.path.join(tmp, f"instance{k}.sqlite3"),
                        extra_env={**FLEET_ENV, "ATELIER_REDIS_PREFIX": prefix},
                        log_path=os.path.join(tmp, f"instance{k}.log"),
                        args=(
                            "--search-workers",
                            str(workers_per_instance),
                            "--redis",
                            redis_url,
                        ),
                    )
                )
                fleet_ports.append(port)
            report = _measure(
                ref_port,
                fleet_ports,
                shared_store=db_url is not None,
                seconds=seconds,
                soak_seconds=soak_seconds,
                uncached_seconds=uncached_seconds,
                soak_clients=soak_clients,
                throughput_clients=throughput_clients,
                budget_ms=budget_ms,
                bot=bot,
                names=names,
                seed=seed,
                hit_requests=hit_requests,
                progress=progress,
            )
        finally:
            for process in processes:
                stop_server(process)
            _forget(redis_url, prefix)
    report["fleet"] = {
        "instances": instances,
        "search_workers_each": workers_per_instance,
        "store": "shared (--db)" if db_url else "per-instance SQLite (no --db)",
        "redis_prefix": prefix,
    }
    report["reference"] = {"instances": 1, "search_workers": total_workers}
    return report


def _forget(redis_url: str, prefix: str) -> None:
    """Removes the bench's keys from Redis (its cache entries, buckets and leases)."""
    from server.redis_conn import SharedRedis

    shared = SharedRedis(redis_url, prefix)
    try:
        for key in shared.client.scan_iter(match=shared.key("*"), count=1000):
            shared.client.delete(key)
    except Exception:  # the keys expire anyway (TTLs); a bench result is not lost for them
        pass
    finally:
        shared.close()


def _measure(
    ref_port: int,
    fleet_ports: list[int],
    *,
    shared_store: bool,
    seconds: float,
    soak_seconds: float,
    uncached_seconds: float,
    soak_clients: int,
    throughput_clients: int,
    budget_ms: float,
    bot: str | None,
    names: list[str],
    seed: int,
    hit_requests: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    load_start = round(os.getloadavg()[0], 2)
    probe = Client(ref_port)
    sides: dict[str, list[int]] = {"reference": [ref_port], "fleet": fleet_ports}
    bot, infosets, budget, cached_game, cached_body = warm_up(
        list(sides.values()), bot, names, budget_ms, seed
    )

    cached_hint = cached_hint_step(cached_game, json.dumps(cached_body).encode())
    uncached_hint = uncached_hint_step(infosets, bot, budget)
    uncached_seconds = max(uncached_seconds, 10 * budget_ms / 1000.0)
    results: dict[str, dict[str, list[dict[str, Any]]]] = {side: {} for side in sides}
    phases = [
        ("cached_hint", throughput_clients, seconds / 2, cached_hint),
        ("uncached_hint", 2, uncached_seconds / 2, uncached_hint),
    ]
    for phase, clients, length, step in phases:
        for round_ in (1, 2):
            for side, ports in sides.items():
                progress(
                    f"{phase} round {round_}/2, {side} ({len(ports)} instance(s)), "
                    f"{clients} clients, {length:.0f} s"
                )
                results[side].setdefault(phase, []).append(hammer(ports, clients, length, step))

    hit_rates = {}
    for k, (side, ports) in enumerate(sides.items()):
        progress(f"hit rate, {side}: {hit_requests} hints with repeats, round-robin")
        hit_rates[side] = _hit_rate(ports, infosets, bot, seed, hit_requests, 40_000_000 + k)

    progress(
        f"soak: mixed load on the fleet, {soak_clients} clients, {soak_seconds:.0f} s"
        + ("" if shared_store else " (match flows pinned to one instance: no shared --db)")
    )
    soak = hammer(
        fleet_ports,
        soak_clients,
        soak_seconds,
        _soak_step(names, infosets, cached_body, cached_game, bot, budget),
        rotate_each_request=shared_store,
    )
    _, fleet_health = Client(fleet_ports[0]).request("GET", "/healthz")
    probe.close()

    merged = {side: {p: _merge(runs) for p, runs in res.items()} for side, res in results.items()}
    ref, fleet = merged["reference"], merged["fleet"]
    cached_ratio = _ratio(fleet["cached_hint"]["per_second"], ref["cached_hint"]["per_second"])
    p50_ratio = _ratio(fleet["uncached_hint"]["p50_ms"], ref["uncached_hint"]["p50_ms"])
    p99_ratio = _ratio(fleet["uncached_hint"]["p99_ms"], ref["uncached_hint"]["p99_ms"])
    return {
        "host": HOST,
        "cpus": os.cpu_count(),
        "load_average_1m": {"start": load_start, "end": round(os.getloadavg()[0], 2)},
        "bot": bot,
        "games": names,
        "budget_ms": budget_ms,
        "reference_figures": ref,
        "fleet_figures": fleet,
        "ratios": {
            "cached_hint_throughput": cached_ratio,
            "uncached_hint_p50": p50_ratio,
            "uncached_hint_p99": p99_ratio,
        },
        "hit_rate": hit_rates,
        "soak": {**soak, "clients": soak_clients},
        "fleet_cache": fleet_health.get("cache"),
        "targets": {
            "cached_throughput_within_10pct": cached_ratio is not None and cached_ratio >= 0.9,
            "uncached_p99_within_10pct": p99_ratio is not None and p99_ratio <= 1.1,
            "hit_rate_equal": hit_rates["fleet"]["hit_rate"] == hit_rates["reference"]["hit_rate"],
            "soak_zero_errors": soak["errors"] == 0 and soak["seconds"] >= min(60, soak_seconds),
        },
    }


def _hit_rate(
    ports: list[int],
    infosets: list[tuple[str, dict[str, Any]]],
    bot: str,
    seed: int,
    requests: int,
    seed_base: int,
) -> dict[str, Any]:
    """One client, a fixed sequence of hints with repeats (a quarter of them distinct), each to
    the next instance; the fraction answered from the cache."""
    rng = random.Random(seed)
    distinct = max(1, requests // 4)
    pool = [(infosets[k % len(infosets)], seed_base + k) for k in range(distinct)]
    sequence = [pool[k] for k in range(distinct)] + [
        rng.choice(pool) for _ in range(requests - distinct)
    ]
    rng.shuffle(sequence)
    conns = [Client(p) for p in ports]
    hits = errors = 0
    try:
        for i, ((name, infoset), s) in enumerate(sequence):
            body = {"infoset": infoset, "bot": bot, "budget": {"milliseconds": 20}, "seed": s}
            status, data = conns[i % len(conns)].request("POST", f"/v1/games/{name}/hint", body)
            if status != 200:
                errors += 1
            elif data["cached"]:
                hits += 1
    finally:
        for conn in conns:
            conn.close()
    return {
        "requests": len(sequence),
        "distinct": distinct,
        "hits": hits,
        "errors": errors,
        "hit_rate": round(hits / len(sequence), 4),
        "best_possible": round(1 - distinct / len(sequence), 4),
    }


def _merge(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Two rounds of one phase as one figure: summed counts, worst percentiles."""
    requests = sum(r["requests"] for r in runs)
    length = sum(r["seconds"] for r in runs)
    out = {
        "requests": requests,
        "seconds": round(length, 2),
        "per_second": round(requests / length, 1) if length else None,
        "errors": sum(r["errors"] for r in runs),
        "rounds": runs,
    }
    for key in ("p50_ms", "p99_ms"):
        values = [r[key] for r in runs if r[key] is not None]
        # The median of the rounds' p50s is their mean for two; p99 keeps the worse round.
        out[key] = (
            None
            if not values
            else round(sum(values) / len(values), 2)
            if key == "p50_ms"
            else max(values)
        )
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def format_report(report: dict[str, Any]) -> str:
    ref, fleet, ratios = report["reference_figures"], report["fleet_figures"], report["ratios"]
    f, h, s = report["fleet"], report["hit_rate"], report["soak"]
    rc, fc = ref["cached_hint"], fleet["cached_hint"]
    ru, fu = ref["uncached_hint"], fleet["uncached_hint"]
    lines = [
        f"fleet: {f['instances']} instances x {f['search_workers_each']} search workers, store "
        f"{f['store']}; reference: 1 instance x {report['reference']['search_workers']}; "
        f"bot {report['bot']}, {report['cpus']} cpus, load average "
        f"{report['load_average_1m']['start']} -> {report['load_average_1m']['end']}",
        f"cached hint     : reference {rc['per_second']} req/s, fleet {fc['per_second']} req/s"
        f"  ratio {ratios['cached_hint_throughput']} (target >= 0.9)",
        f"uncached hint   : {report['budget_ms']:.0f} ms budget, 2 clients: reference p50 "
        f"{ru['p50_ms']} p99 {ru['p99_ms']} ms, fleet p50 {fu['p50_ms']} p99 {fu['p99_ms']} ms"
        f"  ratios p50 {ratios['uncached_hint_p50']} p99 {ratios['uncached_hint_p99']} "
        f"(target p99 <= 1.1)",
        f"hit rate        : reference {h['reference']['hit_rate']}, fleet "
        f"{h['fleet']['hit_rate']} ({h['fleet']['requests']} hints, {h['fleet']['distinct']} "
        f"distinct, best possible {h['fleet']['best_possible']}; target equal)",
        f"soak (fleet)    : {s['requests']} scenario steps in {s['seconds']} s at {s['clients']} "
        f"clients, {s['errors']} errors, statuses {s['statuses']}",
        "targets: " + ", ".join(f"{k}={v}" for k, v in report["targets"].items()),
    ]
    return "\n".join(lines)
