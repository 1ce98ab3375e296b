"""API keys, per-client rate limits and per-client cost limits on the search workers.

Keys and request-rate limits are off unless the configuration turns them on; the cost limits
(``CostLimiter``) are on by default.

A client is its API key when keys are required, else its address. Limits are token buckets
(``rate_limit_per_minute`` refilled continuously, ``rate_limit_burst`` deep) kept in a bounded
table, so a flood of distinct clients cannot grow memory without bound.

With ``--redis`` (``RedisAccessControl``, ``RedisCostLimiter``) the buckets and the counts of
running searches live in Redis, one per client for every instance: each check is one Lua
script (atomic in Redis, timed by Redis's clock), so instances cannot overspend a client's
bucket together, and a running search holds a lease that expires on its own if its instance
dies, so a killed instance cannot keep a client's slot.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from cachetools import TTLCache

from server.errors import ApiError

API_KEY_HEADER = "X-API-Key"
LEASE_MARGIN_S = 5.0


def rate_limited(rate_per_s: float, tokens: float) -> ApiError:
    """The 429 of an empty request bucket (``tokens`` left, refilled at ``rate_per_s``)."""
    wait = (1.0 - tokens) / rate_per_s
    return ApiError(
        f"rate limit of {round(rate_per_s * 60)} requests per minute exceeded; "
        f"retry in {wait:.1f} s",
        status=429,
        code="rate_limited",
        detail={"retry_after_s": round(wait, 3)},
        retry_after=wait,
    )


def search_time_exceeded(ms_per_minute: float, wait: float) -> ApiError:
    """The 429 of a client whose search time is used up for ``wait`` more seconds."""
    return ApiError(
        f"search time limit of {ms_per_minute / 1000:g} worker-seconds "
        f"per minute used up; retry in {wait:.1f} s",
        status=429,
        code="search_time_exceeded",
        detail={"search_ms_per_minute": ms_per_minute, "retry_after_s": round(wait, 3)},
        retry_after=wait,
    )


def too_many_searches(max_searches: int) -> ApiError:
    return ApiError(
        f"at most {max_searches} searches of one client may run or wait "
        f"at once; retry when one has finished",
        status=429,
        code="too_many_searches",
        detail={"max_searches": max_searches},
        retry_after=1.0,
    )


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
                raise rate_limited(self.rate, tokens)
            self._buckets[client] = (tokens - 1.0, now)


WINDOW_S = 60.0  # the "minute" of client_search_ms_per_minute
MAX_SPANS = 128  # finished searches kept per client and window before the oldest are merged


@dataclass
class _Span:
    """Worker time a finished search spent: ``ms`` spread evenly over [``start``, ``end``]
    (monotonic seconds; a point when they are equal)."""

    start: float
    end: float
    ms: float

    def before(self, t: float) -> float:
        """The milliseconds of this span spent before time ``t``."""
        if t >= self.end:
            return self.ms
        if t <= self.start:
            return 0.0
        return self.ms * (t - self.start) / (self.end - self.start)


@dataclass
class _Running:
    """A search admitted and not yet ended: the most it may cost, when its worker began, and
    (``RedisCostLimiter`` only) when its lease ends if its instance never releases it."""

    max_ms: float
    started: float | None = None
    expires: float | None = None

    def committed(self, now: float) -> float:
        """What it may still cost in all: at least its limit, more once it ran longer."""
        used = 0.0 if self.started is None else (now - self.started) * 1000.0
        return max(self.max_ms, used)


@dataclass
class _Usage:
    """One client's searches: those finished within the window, and those running."""

    spans: deque[_Span] = field(default_factory=deque)
    running: dict[str, _Running] = field(default_factory=dict)

    def prune(self, now: float) -> None:
        while self.spans and self.spans[0].end <= now - WINDOW_S:
            self.spans.popleft()
        while len(self.spans) > MAX_SPANS:
            # Merged into a point at the later end: the time leaves the window no earlier than
            # it would have, so the bound holds (a client this busy may be refused a little early).
            a, b = self.spans.popleft(), self.spans.popleft()
            self.spans.appendleft(_Span(b.end, b.end, a.ms + b.ms))

    def spent(self, now: float) -> float:
        """Milliseconds of finished searches within the window ending at ``now``."""
        return sum(span.ms - span.before(now - WINDOW_S) for span in self.spans)

    def committed(self, now: float) -> float:
        """``spent`` plus what the running searches may cost in all."""
        return self.spent(now) + sum(r.committed(now) for r in self.running.values())

    def freed_by(self, now: float, wait_s: float) -> float:
        """Milliseconds of finished searches that leave the window within ``wait_s``."""
        old, new = now - WINDOW_S, now - WINDOW_S + wait_s
        return sum(span.before(new) - span.before(old) for span in self.spans)

    def retry_after(self, now: float, over_ms: float) -> float:
        """Seconds until ``over_ms`` of finished searches have left the window (bisection: the
        time freed grows with the wait), else until the soonest running search may end."""
        if over_ms <= 0 or self.freed_by(now, WINDOW_S) < over_ms:
            ends = [
                r.started + r.max_ms / 1000.0 - now if r.started is not None else r.max_ms / 1000.0
                for r in self.running.values()
            ]
            return max(0.001, min(ends, default=1.0))
        lo, hi = 0.0, WINDOW_S
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self.freed_by(now, mid) < over_ms else (lo, mid)
        return hi + 0.001

    def end(self, lease: str | None, now: float, elapsed_ms: float, charge: bool) -> None:
        """Ends the search of ``lease`` (for a caller without leases, the oldest running one)
        and, if ``charge``, records the ``elapsed_ms`` its worker spent up to ``now``."""
        if lease in self.running:
            del self.running[lease]
        elif self.running:
            del self.running[next(iter(self.running))]
        if charge and elapsed_ms > 0:
            self.spans.append(_Span(now - elapsed_ms / 1000.0, now, elapsed_ms))
        self.prune(now)

    def figures(self, now: float) -> dict[str, float]:
        """The worker time in the window ending at ``now``: finished searches and the running
        ones so far (``spent_ms``), with the running ones at their worst (``committed_ms``)."""
        running = sum(
            (now - r.started) * 1000.0 for r in self.running.values() if r.started is not None
        )
        return {
            "spent_ms": self.spent(now) + running,
            "committed_ms": self.committed(now),
            "running": len(self.running),
        }


def own_charge(max_ms: float | None, ms_per_minute: float) -> float:
    """What a new search counts at while it runs: its ``max_ms``, at most the whole limit (so
    that one search always fits an empty window)."""
    return min(max_ms or 0.0, ms_per_minute)


def window_refusal(usage: _Usage, now: float, ms_per_minute: float, own: float) -> ApiError | None:
    """The 429 that refuses a search counting ``own`` ms, or ``None`` when it fits: admitted
    only if the window's finished searches, the running ones at their worst and ``own`` fit in
    ``ms_per_minute``. The one admission rule of ``CostLimiter`` and ``RedisCostLimiter``."""
    if ms_per_minute <= 0:
        return None
    committed = usage.committed(now)
    if committed >= ms_per_minute or committed + own > ms_per_minute:
        wait = usage.retry_after(now, committed + own - ms_per_minute)
        return search_time_exceeded(ms_per_minute, wait)
    return None


class CostLimiter:
    """Per-client cost limits on the search workers: searches at once, and worker time a minute.

    Request counts say nothing about cost: one hint with a 5 s budget costs as much as a
    hundred 50 ms ones. So each client (as in ``AccessControl.client_id``) may have at most
    ``max_searches`` pool tasks running or waiting for a worker (more wait their turn, up to
    ``wait_s``, then 429), and may use at most ``ms_per_minute`` milliseconds of worker time in
    any window of 60 s. A search is charged the real time its worker spent (from when a worker
    took it to its answer), as it spends it; and since a running search cannot be stopped short
    of its deadline, admission counts each running search at the most it may cost (its
    deadline, ``max_ms``) until it ends. A search is admitted only if the window's finished
    searches, the running ones at that worst case, and its own ``max_ms`` fit in
    ``ms_per_minute``, so the limit holds whatever a client sends at once (a token bucket, as
    before, let a client spend its depth plus a minute's refill in one minute: 130 worker-
    seconds against 60 were measured). A single search is always admitted into an empty window
    (its ``max_ms`` counts as at most ``ms_per_minute``): a deadline longer than the limit is a
    configuration the operator chose. Both limits are off at 0.
    """

    def __init__(self, max_searches: int, ms_per_minute: float, wait_s: float) -> None:
        self.max_searches = max_searches
        self.ms_per_minute = ms_per_minute
        self.wait_s = wait_s
        self._usage: dict[str, _Usage] = {}
        self._leases = itertools.count()
        self._swept = time.monotonic()
        self._cond = threading.Condition()
        self.refused = 0

    def _searches(self, client: str) -> int:
        usage = self._usage.get(client)
        return len(usage.running) if usage is not None else 0

    def acquire(
        self, client: str, hold_s: float | None = None, max_ms: float | None = None
    ) -> str | None:
        """Admits one task of ``client`` that may cost up to ``max_ms`` of worker time (returns
        its lease), or raises 429 with Retry-After.

        ``hold_s`` (the longest the task can hold its slot) matters only to
        ``RedisCostLimiter``. Without ``max_ms`` the task is counted as it runs only.
        """
        if self.ms_per_minute <= 0 and self.max_searches <= 0:
            return None
        with self._cond:
            self._wait_for_slot(client)
            now = time.monotonic()
            usage = self._usage.setdefault(client, _Usage())
            usage.prune(now)
            own = own_charge(max_ms, self.ms_per_minute)
            refusal = window_refusal(usage, now, self.ms_per_minute, own)
            if refusal is not None:
                self.refused += 1
                raise refusal
            lease = f"local:{next(self._leases)}"
            usage.running[lease] = _Running(own)
            return lease

    def _wait_for_slot(self, client: str) -> None:
        """Waits (up to ``wait_s``, lock held by the caller) until ``client`` may run one more."""
        if self.max_searches <= 0:
            return
        until = time.monotonic() + self.wait_s
        while self._searches(client) >= self.max_searches:
            left_s = until - time.monotonic()
            if left_s <= 0 or not self._cond.wait(left_s):
                if self._searches(client) < self.max_searches:
                    return
                self.refused += 1
                raise too_many_searches(self.max_searches)

    def started(self, client: str, lease: str | None) -> None:
        """The task of ``lease`` has a worker now: its time counts from here."""
        with self._cond:
            usage = self._usage.get(client)
            task = usage.running.get(lease or "") if usage is not None else None
            if task is not None:
                task.started = time.monotonic()

    def release(self, client: str, elapsed_ms: float, lease: str | None = None) -> None:
        """Ends one task of ``client`` that held a worker for ``elapsed_ms``."""
        if self.ms_per_minute <= 0 and self.max_searches <= 0:
            return
        with self._cond:
            now = time.monotonic()
            usage = self._usage.setdefault(client, _Usage())
            usage.end(lease, now, elapsed_ms, charge=self.ms_per_minute > 0)
            self._sweep(now)
            self._cond.notify_all()

    def _sweep(self, now: float) -> None:
        """Forgets clients with nothing running and nothing left in the window (once a window),
        so a flood of distinct clients cannot grow memory without bound."""
        if now - self._swept < WINDOW_S:
            return
        self._swept = now
        for client in list(self._usage):
            usage = self._usage[client]
            usage.prune(now)
            if not usage.running and not usage.spans:
                del self._usage[client]

    def usage(self, client: str) -> dict[str, float]:
        """``client``'s worker time in the current window: finished searches, and the running
        ones so far (what a test or an operator wants to see)."""
        with self._cond:
            return (self._usage.get(client) or _Usage()).figures(time.monotonic())

    def info(self) -> dict[str, Any]:
        with self._cond:
            return {
                "client_max_searches": self.max_searches,
                "client_search_ms_per_minute": self.ms_per_minute,
                "clients_searching": sum(1 for u in self._usage.values() if u.running),
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
        # A lease outlives the task at most by a margin: the pool gives up after its queue
        # wait plus the deadline.
        hold_s = getattr(self._pool, "queue_timeout", 0.0) + deadline + LEASE_MARGIN_S
        lease = self.costs.acquire(client, hold_s, max_ms=deadline * 1000.0)
        started: list[float] = []

        def on_start() -> None:
            started.append(time.monotonic())
            self.costs.started(client, lease)

        try:
            return self._pool.run(kind, payload, deadline, on_start=on_start)
        finally:
            elapsed = (time.monotonic() - started[0]) * 1000.0 if started else 0.0
            self.costs.release(client, elapsed, lease)


# --- shared limits (``--redis``) --------------------------------------------------------------
#
# Each limit is one Lua script, which Redis runs atomically: however many instances charge one
# client at once, a bucket is read, refilled and debited as one step, so they cannot overspend
# it together. Times come from Redis's clock (``TIME``), not the instances'.

_LUA_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
"""

# KEYS: the bucket (hash tokens, ts). ARGV: tokens per ms, depth. Returns {1, left} when a
# token was taken, {0, left} when the bucket is empty; the bucket expires once full again.
_LUA_TAKE_TOKEN = (
    _LUA_NOW
    + """
local rate, depth, want = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3] or 1)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or depth
local ts = tonumber(b[2]) or now
tokens = math.min(depth, tokens + math.max(0, now - ts) * rate)
local taken = 0
if tokens >= 1 then
  taken = math.min(want, math.floor(tokens))
  tokens = tokens - taken
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((depth - tokens) / rate) + 1000)
return {taken, tostring(tokens)}
"""
)

# The cost limits' two parts: a bucket of search milliseconds (hash left, ts) and a sorted set
# of leases (member: lease id, score: when it expires). A lease not released by then (its
# instance died mid-search) no longer counts.
_LUA_COSTS = (
    _LUA_NOW
    + """
local function balance(depth)
  local b = redis.call('HMGET', KEYS[1], 'left', 'ts')
  local left = tonumber(b[1]) or depth
  local ts = tonumber(b[2]) or now
  return math.min(depth, left + math.max(0, now - ts) * depth / 60000.0)
end
"""
)

# ARGV: ms per minute (0 = off), max searches (0 = off), lease id, lease ms.
# Returns {1, ''} admitted, {0, count} all slots held, {-1, left} search time used up.
_LUA_ADMIT = (
    _LUA_COSTS
    + """
local depth, max_searches = tonumber(ARGV[1]), tonumber(ARGV[2])
if depth > 0 then
  local left = balance(depth)
  if left <= 0 then return {-1, tostring(left)} end
end
if max_searches > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  local count = redis.call('ZCARD', KEYS[2])
  if count >= max_searches then return {0, tostring(count)} end
  local hold = tonumber(ARGV[4])
  redis.call('ZADD', KEYS[2], now + hold, ARGV[3])
  if redis.call('PTTL', KEYS[2]) < hold then redis.call('PEXPIRE', KEYS[2], math.ceil(hold)) end
end
return {1, ''}
"""
)

# ARGV: ms per minute (0 = off), lease id ('' = none), milliseconds spent.
_LUA_SETTLE = (
    _LUA_COSTS
    + """
local depth = tonumber(ARGV[1])
if ARGV[2] ~= '' then redis.call('ZREM', KEYS[2], ARGV[2]) end
if depth > 0 then
  local left = balance(depth) - tonumber(ARGV[3])
  redis.call('HSET', KEYS[1], 'left', tostring(left), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil((depth - left) * 60000.0 / depth) + 1000)
end
return 1
"""
)


def client_key(client: str) -> str:
    """``client`` as it appears in Redis key names: a digest, so that an API key (``key:...``)
    is never readable by whoever can list the keys."""
    return hashlib.sha256(client.encode()).hexdigest()[:32]


class RedisAccessControl(AccessControl):
    """``AccessControl`` whose token buckets live in Redis, one per client for the whole fleet.

    API keys are still checked locally (every instance is given the same keys).

    A round trip to Redis per request would cost a cached hint most of its time, so an
    instance takes up to ``batch`` tokens at once (a tenth of the burst, at most 16) and spends
    them locally for up to ``HOLD_S``. The tokens are debited from the shared bucket when taken,
    so the fleet can never exceed a client's rate; what this costs is strictness the other way:
    tokens an instance holds (at most ``batch - 1`` each, for at most ``HOLD_S``) are unavailable
    to the others, so a client spread over instances may be refused a little early.
    """

    HOLD_S = 1.0
    MAX_BATCH = 16

    def __init__(self, shared: Any, api_keys: tuple[str, ...], per_minute: int, burst: int) -> None:
        super().__init__(api_keys, per_minute, burst)
        self.shared = shared
        self._take = shared.script(_LUA_TAKE_TOKEN)
        self.batch = max(1, min(self.MAX_BATCH, int(self.burst) // 10))
        self._held: dict[str, tuple[int, float]] = {}  # client -> (tokens, taken at)

    def charge(self, client: str) -> None:
        if self.rate <= 0:
            return
        now = time.monotonic()
        with self._lock:
            held, since = self._held.get(client, (0, now))
            if held > 0 and now - since < self.HOLD_S:
                self._held[client] = (held - 1, since)
                return
            self._held.pop(client, None)
        taken, left = self._take(
            [self.shared.key("rate", client_key(client))],
            [self.rate / 1000.0, self.burst, self.batch],
        )
        taken = int(taken)
        with self._lock:
            if taken:
                if taken > 1:
                    self._held[client] = (taken - 1, now)
                    if len(self._held) > 10_000:  # bounded: drop the oldest holdings
                        for old in sorted(self._held, key=lambda c: self._held[c][1])[:5_000]:
                            del self._held[old]
                return
            self.refused += 1
        raise rate_limited(self.rate, float(left))


class RedisCostLimiter(CostLimiter):
    """``CostLimiter`` with its state in Redis: one client's searches counted across the fleet.

    A running search holds a lease, an entry in the client's sorted set that expires after
    ``hold_s`` (the longest the task can take: the pool's queue wait plus its deadline, given by
    ``MeteredPool``) unless released first; so an instance killed mid-search gives its client's
    slots back within that time instead of never. A client at its limit polls for a free slot
    (every 20 to 100 ms) for up to ``wait_s``, then gets the same 429 as with one instance.

    Its worker time is still the earlier token bucket (``ms_per_minute`` deep, refilled
    continuously, charged when a search ends), not ``CostLimiter``'s window with running
    searches counted at their deadline: over a minute a client may use up to twice the limit.
    """

    DEFAULT_HOLD_S = 60.0

    def __init__(self, shared: Any, max_searches: int, ms_per_minute: float, wait_s: float) -> None:
        super().__init__(max_searches, ms_per_minute, wait_s)
        self.shared = shared
        self._admit = shared.script(_LUA_ADMIT)
        self._settle = shared.script(_LUA_SETTLE)
        self._instance = uuid.uuid4().hex[:12]
        self._leases = itertools.count()
        self._held: dict[str, int] = {}

    def _keys(self, client: str) -> list[str]:
        digest = client_key(client)
        return [self.shared.key("cost", "ms", digest), self.shared.key("cost", "run", digest)]

    def acquire(
        self, client: str, hold_s: float | None = None, max_ms: float | None = None
    ) -> str | None:
        """Admits one task of ``client`` (returns its lease) or raises 429 with Retry-After.

        ``max_ms`` is not used: the shared limit is still a bucket charged when a task ends
        (see the class docstring)."""
        if self.ms_per_minute <= 0 and self.max_searches <= 0:
            return None
        lease = f"{self._instance}:{next(self._leases)}"
        hold_ms = 1000.0 * (hold_s if hold_s is not None else self.DEFAULT_HOLD_S)
        args = [self.ms_per_minute, self.max_searches, lease, hold_ms]
        until = time.monotonic() + self.wait_s
        pause = 0.02
        while True:
            status, value = self._admit(self._keys(client), args)
            status = int(status)
            if status == 1:
                with self._cond:
                    self._held[client] = self._held.get(client, 0) + 1
                return lease if self.max_searches > 0 else None
            if status == -1:
                with self._cond:
                    self.refused += 1
                wait = -float(value) * 60.0 / self.ms_per_minute + 0.001
                raise search_time_exceeded(self.ms_per_minute, wait)
            left_s = until - time.monotonic()
            if left_s <= 0:
                with self._cond:
                    self.refused += 1
                raise too_many_searches(self.max_searches)
            time.sleep(min(pause, left_s))
            pause = min(0.1, pause * 1.5)

    def started(self, client: str, lease: str | None) -> None:
        """Nothing to do: the shared bucket is charged when the task ends."""

    def release(self, client: str, elapsed_ms: float, lease: str | None = None) -> None:
        """Ends one task of ``client``: frees its lease, charges ``elapsed_ms``."""
        if self.ms_per_minute <= 0 and self.max_searches <= 0:
            return
        with self._cond:
            count = self._held.get(client, 0) - 1
            if count > 0:
                self._held[client] = count
            else:
                self._held.pop(client, None)
        self._settle(self._keys(client), [self.ms_per_minute, lease or "", elapsed_ms])

    def info(self) -> dict[str, Any]:
        with self._cond:
            return {
                "backend": "redis",
                "client_max_searches": self.max_searches,
                "client_search_ms_per_minute": self.ms_per_minute,
                "clients_searching": len(self._held),
                "refused": self.refused,
            }


def access_control(config: Any, shared: Any = None) -> AccessControl:
    """The access control a ``ServiceConfig`` asks for: in Redis when ``shared`` is given."""
    args = (config.api_keys, config.rate_limit_per_minute, config.rate_limit_burst)
    return RedisAccessControl(shared, *args) if shared is not None else AccessControl(*args)


def cost_limiter(config: Any, shared: Any = None) -> CostLimiter:
    """The cost limits a ``ServiceConfig`` asks for: in Redis when ``shared`` is given."""
    args = (
        config.searches_per_client,
        config.client_search_ms_per_minute,
        config.queue_timeout_ms / 1000.0,
    )
    return RedisCostLimiter(shared, *args) if shared is not None else CostLimiter(*args)
