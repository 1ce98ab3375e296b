"""The audit's cost-limit scenario (issue 42, item 5), shared by the one-instance limiter's
test (tests/test_server_hardening.py) and the fleet's (tests/test_redis.py): one client's
capped hints replayed on a fake clock, and the most worker time any 60 s window held."""

from __future__ import annotations

from typing import Any

from server.errors import ApiError


def charged_in_worst_window(spans: list[tuple[float, float]], step: float = 0.1) -> float:
    """The most worker time (ms) the finished ``spans`` (start, end in s) put in any 60 s."""
    ends = max(end for _, end in spans)
    worst, t = 0.0, 60.0
    while t <= ends + 60.0:
        inside = sum(max(0.0, min(e, t) - max(s, t - 60.0)) for s, e in spans)
        worst = max(worst, inside * 1000.0)
        t += step
    return worst


def replay_capped_hints(
    limiters: list[Any], now: list[float]
) -> tuple[list[tuple[float, float]], int, list[int]]:
    """The audit's load (one client, 4 threads of hints capped at 5 s: a 6 s deadline) for
    three minutes of ``now``, thread k on ``limiters[k % len(limiters)]``: each thread asks again
    as soon as its search ends, or when its 429's Retry-After says. Returns the searches' (start,
    end) spans, the refusals, and how many searches each limiter admitted."""
    threads = [{"free_at": 0.0, "ends": None, "lease": None} for _ in range(4)]
    spans: list[tuple[float, float]] = []
    refused = 0
    admitted = [0] * len(limiters)
    while now[0] < 180.0:
        for k, th in enumerate(threads):
            costs = limiters[k % len(limiters)]
            if th["ends"] is not None and now[0] >= th["ends"]:
                costs.release("addr:x", 5000.0, th["lease"])
                spans.append((now[0] - 5.0, now[0]))
                th["ends"], th["free_at"] = None, now[0]
            if th["ends"] is None and now[0] >= th["free_at"]:
                try:
                    th["lease"] = costs.acquire("addr:x", hold_s=11.0, max_ms=6000.0)
                except ApiError as err:
                    assert err.code == "search_time_exceeded" and err.retry_after > 0
                    refused += 1
                    th["free_at"] = now[0] + err.retry_after
                    continue
                admitted[k % len(limiters)] += 1
                costs.started("addr:x", th["lease"])
                th["ends"] = now[0] + 5.0
        now[0] = round(now[0] + 0.05, 2)
    return spans, refused, admitted
