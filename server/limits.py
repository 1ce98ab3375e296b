"""API keys, per-client rate limits and per-client cost limits on the search workers.

Keys and request-rate limits are off unless the configuration turns them on; the cost limits
(``CostLimiter``) are on by default.

A client is its API key when keys are required, else its address. Limits are token buckets
(``rate_limit_per_minute`` refilled continuously, ``rate_limit_burst`` deep) kept in a bounded
table, so a flood of distinct clients cannot grow memory without bound.
"""

from __future__ import annotations

import hmac
import threading
import time
from typing import Any

from cachetools import TTLCache

from server.errors import ApiError

API_KEY_HEADER = "X-API-Key"


class AccessControl:
    """Checks the API key and charges one token from the client's bucket per request."""

    def __init__(self, api_keys: tuple[str, ...], per_minute: int, burst: int) -> None:
        self.api_keys = tuple(api_keys)
        self.rate = per_minute / 60.0
        self.burst = float(burst or per_minute)
        # client -> (tokens, last refill time); idle buckets expire once full again.
        ttl = 60.0 * max(1.0, self.burst / max(per_minute, 1))
        self._buckets: TTLCache[str, tuple[float, float]] = TTLCache(maxsize=100_000, ttl=ttl)
        self._lock = threading.Lock()
        self.refused = 0

    def client_id(self, api_key: str | None, address: str | None) -> str:
        if self.api_keys:
            self.check_key(api_key)
            return "key:" + str(api_key)
        return "addr:" + (address or "unknown")

    def check_key(self, api_key: str | None) -> None:
        if not self.api_keys:
            return
        if not api_key:
            raise ApiError(
                f"this service needs an API key in the {API_KEY_HEADER} header",
                status=401,
                code="unauthorized",
                detail={"header": API_KEY_HEADER},
            )
        if not any(hmac.compare_digest(api_key, k) for k in self.api_keys):
            raise ApiError(
                f"the API key in the {API_KEY_HEADER} header is not valid",
                status=401,
                code="unauthorized",
                detail={"header": API_KEY_HEADER},
            )

    def charge(self, client: str) -> None:
        """Takes one token from ``client``'s bucket; 429 with ``Retry-After`` when empty."""
        if self.rate <= 0:
            return
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                self.refused += 1
                wait = (1.0 - tokens) / self.rate
                raise ApiError(
                    f"rate limit of {round(self.rate * 60)} requests per minute exceeded; "
                    f"retry in {wait:.1f} s",
                    status=429,
                    code="rate_limited",
                    detail={"retry_after_s": round(wait, 3)},
                    retry_after=wait,
                )
            self._buckets[client] = (tokens - 1.0, now)


class CostLimiter:
    """Per-client cost limits on the search workers: searches at once, and worker time a minute.

    Request counts say nothing about cost: one hint with a 5 s budget costs as much as a
    hundred 50 ms ones. So each client (as in ``AccessControl.client_id``) may have at most
    ``max_searches`` pool tasks running or waiting for a worker (more wait their turn, up to
    ``wait_s``, then 429), and spends worker time from a bucket of ``ms_per_minute``
    milliseconds refilled continuously: a task may start while the bucket is positive, and its
    measured time is charged when it ends (so the bucket may dip below zero once, and the
    client then waits for it to refill). This is cost-based rate limiting as in GitHub's
    GraphQL API or Shopify's "calculated query cost", with the cost measured instead of
    predicted. Both limits are off at 0.
    """

    def __init__(self, max_searches: int, ms_per_minute: float, wait_s: float) -> None:
        self.max_searches = max_searches
        self.ms_per_minute = ms_per_minute
        self.wait_s = wait_s
        self._running: dict[str, int] = {}
        # client -> (milliseconds left, last refill time); a full idle bucket can be forgotten.
        self._buckets: TTLCache[str, tuple[float, float]] = TTLCache(maxsize=100_000, ttl=120.0)
        self._cond = threading.Condition()
        self.refused = 0

    def _balance(self, client: str, now: float) -> float:
        left, last = self._buckets.get(client, (self.ms_per_minute, now))
        return min(self.ms_per_minute, left + (now - last) * self.ms_per_minute / 60.0)

    def acquire(self, client: str) -> None:
        """Admits one task of ``client`` or raises 429 (``rate_limited``) with Retry-After."""
        with self._cond:
            if self.ms_per_minute > 0:
                now = time.monotonic()
                left = self._balance(client, now)
                if left <= 0:
                    self.refused += 1
                    wait = -left * 60.0 / self.ms_per_minute + 0.001
                    raise ApiError(
                        f"search time limit of {self.ms_per_minute / 1000:g} worker-seconds "
                        f"per minute used up; retry in {wait:.1f} s",
                        status=429,
                        code="search_time_exceeded",
                        detail={
                            "search_ms_per_minute": self.ms_per_minute,
                            "retry_after_s": round(wait, 3),
                        },
                        retry_after=wait,
                    )
            if self.max_searches <= 0:
                return
            until = time.monotonic() + self.wait_s
            while self._running.get(client, 0) >= self.max_searches:
                left_s = until - time.monotonic()
                if left_s <= 0 or not self._cond.wait(left_s):
                    if self._running.get(client, 0) < self.max_searches:
                        break
                    self.refused += 1
                    raise ApiError(
                        f"at most {self.max_searches} searches of one client may run or wait "
                        f"at once; retry when one has finished",
                        status=429,
                        code="too_many_searches",
                        detail={"max_searches": self.max_searches},
                        retry_after=1.0,
                    )
            self._running[client] = self._running.get(client, 0) + 1

    def release(self, client: str, elapsed_ms: float) -> None:
        """Ends one task of ``client`` that held a worker for ``elapsed_ms``."""
        with self._cond:
            if self.ms_per_minute > 0:
                now = time.monotonic()
                self._buckets[client] = (self._balance(client, now) - elapsed_ms, now)
            if self.max_searches > 0:
                count = self._running.get(client, 0) - 1
                if count > 0:
                    self._running[client] = count
                else:
                    self._running.pop(client, None)
                self._cond.notify_all()

    def info(self) -> dict[str, Any]:
        with self._cond:
            return {
                "client_max_searches": self.max_searches,
                "client_search_ms_per_minute": self.ms_per_minute,
                "clients_searching": len(self._running),
                "refused": self.refused,
            }


class MeteredPool:
    """The search pool seen through the cost limits of the client of the current request.

    Wraps ``SearchPool`` (same ``run``; everything else is passed through) so that every task,
    be it a hint, a validation or a hosted match's bot move, is admitted and charged in one
    place. Outside a request (start-up warm-up) nothing is charged.
    """

    def __init__(self, pool: Any, costs: CostLimiter, client_of: Any) -> None:
        self._pool = pool
        self.costs = costs
        self._client_of = client_of

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)

    def run(self, kind: str, payload: dict[str, Any], deadline: float) -> dict[str, Any]:
        client = self._client_of()
        if client is None:
            return self._pool.run(kind, payload, deadline)
        self.costs.acquire(client)
        started: list[float] = []
        try:
            return self._pool.run(
                kind, payload, deadline, on_start=lambda: started.append(time.monotonic())
            )
        finally:
            elapsed = (time.monotonic() - started[0]) * 1000.0 if started else 0.0
            self.costs.release(client, elapsed)
