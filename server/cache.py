"""The results cache: bounded in entries and in bytes, with a time to live, thread-safe.

An entry count alone bounds nothing: one hint for a Modern Art bid step with 10,000 money is a
megabyte of answer (several in Python objects), so ten thousand entries could be gigabytes.
Each entry is therefore weighed (``approx_size``: what its Python objects occupy, measured
once when it is stored), the cache holds at most ``max_bytes`` of them (least recently used
out first, as ``cachetools`` evicts), and an entry heavier than ``max_entry_bytes`` is not
kept at all: answering it again costs a search, not memory.

Keys are built from the canonical request (game, parameters, canonical information set, bot
spec, effective budget, seed), so two requests that must give the same answer share one entry
whatever their key order or whitespace.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from typing import Any

from cachetools import TTLCache


def canonical(data: Any) -> str:
    """Compact, key-sorted JSON: the same text for equal JSON values."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(data: Any) -> str:
    return hashlib.sha256(canonical(data).encode()).hexdigest()


def approx_size(value: Any) -> int:
    """Bytes the Python objects of ``value`` occupy (containers walked, shared objects once).

    Iterative, so deep values cannot hit the recursion limit; costs about one pass over the
    value, like encoding it.
    """
    seen: set[int] = set()
    stack = [value]
    total = 0
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if type(item) is dict:
            stack.extend(item.keys())
            stack.extend(item.values())
        elif type(item) in (list, tuple, set, frozenset):
            stack.extend(item)
    return total


class ResultCache:
    """``cachetools.TTLCache`` weighed in bytes, behind a lock, with hit and miss counters.

    ``maxsize`` still bounds the number of entries: every entry weighs at least
    ``max_bytes / maxsize``.
    """

    def __init__(
        self,
        maxsize: int,
        ttl: float,
        max_bytes: int = 64 * 1024 * 1024,
        max_entry_bytes: int = 4 * 1024 * 1024,
    ) -> None:
        self.maxsize = maxsize
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.max_entry_bytes = min(max_entry_bytes, max_bytes)
        self._floor = max_bytes // maxsize if maxsize > 0 else 0
        self._cache: TTLCache[str, Any] | None = (
            TTLCache(maxsize=max_bytes, ttl=ttl, getsizeof=self._weight)
            if maxsize > 0 and max_bytes > 0
            else None
        )
        self._sizes: dict[int, int] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.too_big = 0

    @classmethod
    def from_config(cls, config: Any) -> ResultCache:
        """The cache a ``ServiceConfig`` asks for (``cache_size``, ``cache_ttl_s``,
        ``cache_max_bytes``, ``cache_max_entry_bytes``)."""
        return cls(
            config.cache_size,
            config.cache_ttl_s,
            config.cache_max_bytes,
            config.cache_max_entry_bytes,
        )

    def _weight(self, value: Any) -> int:
        return max(self._floor, self._sizes.get(id(value)) or approx_size(value))

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
        size = approx_size(value)  # outside the lock: other threads need not wait for it
        with self._lock:
            if size > self.max_entry_bytes:
                self.too_big += 1
                self._cache.pop(key, None)
                return
            self._sizes[id(value)] = size
            try:
                self._cache[key] = value
            finally:
                self._sizes.pop(id(value), None)

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
                "bytes": int(self._cache.currsize) if self._cache is not None else 0,
                "max_bytes": self.max_bytes,
                "max_entry_bytes": self.max_entry_bytes,
                "not_kept_too_big": self.too_big,
                "ttl_s": self.ttl,
            }
