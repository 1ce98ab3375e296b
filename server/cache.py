"""The results cache: bounded, with a time to live, safe to share between request threads.

Keys are built from the canonical request (game, parameters, canonical information set, bot
spec, effective budget, seed), so two requests that must give the same answer share one entry
whatever their key order or whitespace.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from cachetools import TTLCache


def canonical(data: Any) -> str:
    """Compact, key-sorted JSON: the same text for equal JSON values."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(data: Any) -> str:
    return hashlib.sha256(canonical(data).encode()).hexdigest()


class ResultCache:
    """``cachetools.TTLCache`` behind a lock, with hit and miss counters."""

    def __init__(self, maxsize: int, ttl: float) -> None:
        self.maxsize = maxsize
        self.ttl = ttl
        self._cache: TTLCache[str, Any] | None = (
            TTLCache(maxsize=maxsize, ttl=ttl) if maxsize > 0 else None
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Any | None:
        with self._lock:
            value = self._cache.get(key) if self._cache is not None else None
            if value is None:
                self.misses += 1
            else:
                self.hits += 1
            return value

    def peek(self, key: str) -> Any | None:
        """Like ``get``, but a miss is not counted (for the raw-bytes fast path, whose misses
        fall through to a counted lookup)."""
        with self._lock:
            value = self._cache.get(key) if self._cache is not None else None
            if value is not None:
                self.hits += 1
            return value

    def put(self, key: str, value: Any) -> None:
        if self._cache is None:
            return
        with self._lock:
            self._cache[key] = value

    def clear(self) -> None:
        with self._lock:
            if self._cache is not None:
                self._cache.clear()

    def info(self) -> dict[str, Any]:
        with self._lock:
            size = len(self._cache) if self._cache is not None else 0
            total = self.hits + self.misses
            return {
                "hits": self.hits,
                "misses": self.misses,
                "hit_rate": round(self.hits / total, 4) if total else None,
                "size": size,
                "maxsize": self.maxsize,
                "ttl_s": self.ttl,
            }
