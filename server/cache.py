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

With ``--redis`` (``RedisResultCache``) the cache is one for every instance, kept in Redis with
the same three bounds. Each entry is a string key with a time to live; two sorted sets (last
use, expiry, both scored by Redis's clock) and a hash of sizes with their running total do the
accounting, and a Lua script per operation keeps it exact under concurrent instances: a put
drops the expired entries, then the least recently used, until the new one fits. Sizes are the
encoded bytes plus the key plus a fixed per-entry allowance for Redis's own overhead, so the
byte bound does not depend on Redis's ``maxmemory`` (whose eviction would only turn entries
into misses). A small near cache per instance (an in-process ``ResultCache``) keeps hot entries
out of Redis round trips; an entry never changes under its key, so a copy cannot be stale.
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


# --- the shared cache (``--redis``) -----------------------------------------------------------

# Entries expired by their time to live leave the accounting first, then the least recently
# used go until the new entry fits both bounds. ``drop`` forgets one entry everywhere.
_LUA_DROP = """
local function drop(member)
  local size = tonumber(redis.call('HGET', KEYS[3], member) or '0')
  if size > 0 then
    redis.call('HDEL', KEYS[3], member)
    redis.call('HINCRBY', KEYS[4], 'bytes', -size)
  end
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZREM', KEYS[2], member)
  redis.call('DEL', ARGV[1] .. member)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: lru zset, expiry zset, sizes hash, meta hash. ARGV: entry prefix, member, value,
# ttl ms, max bytes, max entries, max entry bytes, overhead per entry, the value's length (an
# entry too big to keep is not sent: its value is empty, and only its old version is dropped).
_LUA_PUT = (
    _LUA_DROP
    + """
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)) do
  drop(m)
end
local member, value = ARGV[2], ARGV[3]
local ttl, max_bytes, max_entries = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
drop(member)
if tonumber(ARGV[9]) > tonumber(ARGV[7]) then
  redis.call('HINCRBY', KEYS[4], 'too_big', 1)
  return 0
end
local size = #value + #member + tonumber(ARGV[8])
local total = tonumber(redis.call('HGET', KEYS[4], 'bytes') or '0')
while total + size > max_bytes or redis.call('ZCARD', KEYS[1]) >= max_entries do
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)
  if #oldest == 0 then break end
  drop(oldest[1])
  redis.call('HINCRBY', KEYS[4], 'evicted', 1)
  total = tonumber(redis.call('HGET', KEYS[4], 'bytes') or '0')
end
if total + size > max_bytes then return 0 end
redis.call('SET', ARGV[1] .. member, value, 'PX', ttl)
redis.call('ZADD', KEYS[1], now, member)
redis.call('ZADD', KEYS[2], now + ttl, member)
redis.call('HSET', KEYS[3], member, size)
redis.call('HINCRBY', KEYS[4], 'bytes', size)
return 1
"""
)

# KEYS as above. ARGV: entry prefix, member, count a miss (1/0), hits of the near cache not
# yet counted. A hit is the most recently used entry from now on.
_LUA_GET = (
    _LUA_DROP
    + """
local value = redis.call('GET', ARGV[1] .. ARGV[2])
if tonumber(ARGV[4]) > 0 then redis.call('HINCRBY', KEYS[4], 'hits', ARGV[4]) end
if value then
  redis.call('ZADD', KEYS[1], 'XX', now, ARGV[2])
  redis.call('HINCRBY', KEYS[4], 'hits', 1)
elseif ARGV[3] == '1' then
  redis.call('HINCRBY', KEYS[4], 'misses', 1)
end
return value
"""
)


def encode_entry(value: Any) -> bytes:
    """The bytes Redis keeps for ``value``: JSON, or a hint's ``(answer, body)`` pair as its body.

    ``server.hints`` caches a hint as ``(answer, body)`` where ``body`` is the JSON text of
    ``answer``; keeping the text alone halves the entry, and decoding it gives the answer back.
    """
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], bytes):
        return b"h" + value[1]
    return b"j" + canonical(value).encode()


def decode_entry(raw: bytes) -> Any:
    if raw[:1] == b"h":
        body = raw[1:]
        return json.loads(body), body
    return json.loads(raw[1:])


class RedisResultCache:
    """The results cache in Redis, shared by every instance that names the same Redis and prefix.

    Same interface as ``ResultCache``. Each entry is a Redis string with a time to live
    (``SET ... PX``), and the bounds are kept by Lua scripts, each atomic in Redis, so that
    concurrent instances cannot overshoot them:

    * a sorted set orders the entries by last use (scores from Redis's own clock, ``TIME``, so
      the instances' clocks do not matter), a second one by expiry time, and a hash holds each
      entry's size with the running total;
    * a put first forgets the entries past their time to live, then drops the least recently
      used ones until the new entry fits in ``max_bytes`` and ``maxsize``; an entry whose
      encoding is longer than ``max_entry_bytes`` is not kept (answering it again costs a
      search, not memory);
    * an entry's size is its encoded bytes plus its key plus ``ENTRY_OVERHEAD`` for what Redis
      spends per key and per set member, so ``max_bytes`` bounds what the cache occupies in
      Redis, independently of Redis's ``maxmemory`` (which should not evict these keys: set
      ``maxmemory-policy noeviction`` or ``volatile-*``; an entry evicted by Redis anyway is
      just a miss, and its bytes leave the accounting when it reaches the end of the order).

    In front of Redis, each instance keeps a small near cache (a ``ResultCache`` of
    ``near_bytes``, config ``cache_near_bytes``, 0 = none) of the entries it has read or
    written: an entry's key names everything its answer depends on (game version included), so
    an entry never changes and a copy cannot be stale; a hot entry then costs no Redis round
    trip. Its hits do not refresh the entry's place in Redis's order (Redis may drop it first;
    the next instance that needs it searches and stores it again).

    Counters: ``hits``/``misses`` are this instance's; ``fleet_hits``/``fleet_misses`` count
    every instance's lookups (kept in Redis by the same scripts; near-cache hits are added
    with the instance's next Redis lookup or ``info``). A Redis that does not answer raises
    ``RedisUnavailable`` (503).
    """

    ENTRY_OVERHEAD = 200

    def __init__(
        self,
        shared: Any,
        maxsize: int,
        ttl: float,
        max_bytes: int = 64 * 1024 * 1024,
        max_entry_bytes: int = 4 * 1024 * 1024,
        near_bytes: int = 0,
    ) -> None:
        self.shared = shared
        self.maxsize = maxsize
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.max_entry_bytes = min(max_entry_bytes, max_bytes)
        self.enabled = maxsize > 0 and max_bytes > 0
        self._keys = [shared.key("cache", name) for name in ("lru", "expiry", "sizes", "meta")]
        self._entry_prefix = shared.key("cache", "e") + ":"
        self._put = shared.script(_LUA_PUT)
        self._get = shared.script(_LUA_GET)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.too_big = 0
        self.near = (
            ResultCache(maxsize, ttl, near_bytes, max_entry_bytes)
            if self.enabled and near_bytes > 0
            else None
        )
        self._near_hits = 0  # not yet added to the fleet's counter in Redis

    @classmethod
    def from_config(cls, config: Any, shared: Any) -> RedisResultCache:
        return cls(
            shared,
            config.cache_size,
            config.cache_ttl_s,
            config.cache_max_bytes,
            config.cache_max_entry_bytes,
            config.cache_near_bytes,
        )

    def _take_near_hits(self) -> int:
        with self._lock:
            count, self._near_hits = self._near_hits, 0
            return count

    def _lookup(self, key: str, count_miss: bool) -> Any | None:
        if not self.enabled:
            if count_miss:
                with self._lock:
                    self.misses += 1
            return None
        if self.near is not None:
            value = self.near.peek(key)
            if value is not None:
                with self._lock:
                    self.hits += 1
                    self._near_hits += 1
                return value
        pending = self._take_near_hits()
        try:
            raw = self._get(
                self._keys, [self._entry_prefix, key, "1" if count_miss else "0", pending]
            )
        except Exception:
            with self._lock:
                self._near_hits += pending
            raise
        with self._lock:
            if raw is not None:
                self.hits += 1
            elif count_miss:
                self.misses += 1
        if raw is None:
            return None
        value = decode_entry(raw)
        if self.near is not None:
            self.near.put(key, value)
        return value

    def get(self, key: str) -> Any | None:
        return self._lookup(key, count_miss=True)

    def peek(self, key: str) -> Any | None:
        """Like ``get``, but a miss is not counted (see ``ResultCache.peek``)."""
        return self._lookup(key, count_miss=False)

    def put(self, key: str, value: Any) -> None:
        if not self.enabled:
            return
        raw = encode_entry(value)
        too_big = len(raw) > self.max_entry_bytes
        if too_big:
            with self._lock:
                self.too_big += 1
        self._put(
            self._keys,
            [
                self._entry_prefix,
                key,
                b"" if too_big else raw,
                max(1, round(self.ttl * 1000)),
                self.max_bytes,
                self.maxsize,
                self.max_entry_bytes,
                self.ENTRY_OVERHEAD,
                len(raw),
            ],
        )
        if self.near is not None:
            self.near.put(key, value)

    def clear(self) -> None:
        """Forgets every entry of this deployment (all instances see an empty cache)."""
        client = self.shared.client

        def wipe() -> None:
            for key in client.scan_iter(match=self._entry_prefix + "*", count=1000):
                client.delete(key)
            client.delete(*self._keys)

        self.shared.call(wipe)
        if self.near is not None:
            self.near.clear()

    def info(self) -> dict[str, Any]:
        client = self.shared.client

        pending = self._take_near_hits()

        def read() -> tuple[int, dict[bytes, bytes]]:
            pipe = client.pipeline(transaction=False)
            if pending:
                pipe.hincrby(self._keys[3], "hits", pending)
            pipe.zcard(self._keys[0])
            pipe.hgetall(self._keys[3])
            *_, size, meta = pipe.execute()
            return size, meta

        size, meta = self.shared.call(read)
        fleet = {k.decode(): int(v) for k, v in meta.items()}
        with self._lock:
            total = self.hits + self.misses
            fleet_total = fleet.get("hits", 0) + fleet.get("misses", 0)
            return {
                "backend": "redis",
                "hits": self.hits,
                "misses": self.misses,
                "hit_rate": round(self.hits / total, 4) if total else None,
                "fleet_hits": fleet.get("hits", 0),
                "fleet_misses": fleet.get("misses", 0),
                "fleet_hit_rate": (
                    round(fleet.get("hits", 0) / fleet_total, 4) if fleet_total else None
                ),
                "size": size,
                "maxsize": self.maxsize,
                "bytes": fleet.get("bytes", 0),
                "max_bytes": self.max_bytes,
                "max_entry_bytes": self.max_entry_bytes,
                "not_kept_too_big": self.too_big,
                "evicted": fleet.get("evicted", 0),
                "ttl_s": self.ttl,
                "near_bytes": self.near.info()["bytes"] if self.near is not None else 0,
                "near_max_bytes": self.near.max_bytes if self.near is not None else 0,
            }


def result_cache(config: Any, shared: Any = None) -> ResultCache | RedisResultCache:
    """The cache a ``ServiceConfig`` asks for: in Redis when ``shared`` is given."""
    if shared is not None:
        return RedisResultCache.from_config(config, shared)
    return ResultCache.from_config(config)
