"""API keys and per-client rate limits, both off unless the configuration turns them on.

A client is its API key when keys are required, else its address. Limits are token buckets
(``rate_limit_per_minute`` refilled continuously, ``rate_limit_burst`` deep) kept in a bounded
table, so a flood of distinct clients cannot grow memory without bound.
"""

from __future__ import annotations

import hmac
import threading
import time

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
