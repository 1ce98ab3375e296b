"""API keys, per-client rate limits and per-client cost limits on the search workers.

Keys and request-rate limits are off unless the configuration turns them on; the cost limits
(``CostLimiter``) are on by default.

A client is its API key when keys are required, else its address. Limits are token buckets
(``rate_limit_per_minute`` refilled continuously, ``rate_limit_burst`` deep) kept in a bounded
table, so a flood of distinct clients cannot grow memory without bound.

With ``--redis`` (``RedisAccessControl``, ``RedisCostLimiter``) the rate buckets and the
cost limits' windows live in Redis, one per client for every instance, timed by Redis's clock:
a bucket check is one Lua script (atomic in Redis), a window update is ``CostLimiter``'s own
rule applied to a snapshot and written back by a compare-and-set script, so instances cannot
overspend a client together; a running search holds a lease that ends on its own if its
instance dies, so a killed instance cannot keep a client's slot or running charge.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import itertools
import json
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cachetools import TTLCache

from server.errors import ApiError, Unavailable

_T = TypeVar("_T")

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
        and, if ``charge``, records the ``elapsed_ms`` its worker spent up to ``now``. A lease
        no longer there (it ended on its own in Redis) ends nothing else."""
        if lease in self.running:
            del self.running[lease]
        elif lease is None and self.running:
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
# Each change to a limit goes through a Lua script, which Redis runs atomically: however many
# instances charge one client at once, a bucket is read, refilled and debited as one step, and
# a cost window is written only over the version it was computed from, so they cannot
# overspend it together. Times come from Redis's clock (``TIME``), not the instances'.

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

# The cost limits keep one hash per client: ``state``, the client's ``_Usage`` as JSON (finished
# searches in the window, running ones with their lease's end), and ``v``, a random version
# that changes with every write. The window's arithmetic is ``CostLimiter``'s own, run in
# Python on a snapshot; Redis makes it atomic with a compare-and-set: a write that finds
# another version (another instance wrote first) is not made, and the caller starts again.

# KEYS: the client's hash. Returns Redis's clock (seconds, microseconds), the version and the
# state ('' when the client has none).
_LUA_READ_USAGE = """
local t = redis.call('TIME')
local s = redis.call('HMGET', KEYS[1], 'v', 'state')
return {t[1], t[2], s[1] or '', s[2] or ''}
"""

# KEYS: the client's hash. ARGV: the version read ('' = none), the new version, the new state
# ('' = nothing left: the key goes), its lifetime in ms. Returns 1 if written, 0 if the
# version changed since the read.
_LUA_WRITE_USAGE = """
if (redis.call('HGET', KEYS[1], 'v') or '') ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'state', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""


def usage_to_json(usage: _Usage) -> str:
    """``usage`` as stored in Redis ('' when nothing is left)."""
    if not usage.spans and not usage.running:
        return ""
    return json.dumps(
        {
            "spans": [[s.start, s.end, s.ms] for s in usage.spans],
            "running": {k: [r.max_ms, r.started, r.expires] for k, r in usage.running.items()},
        },
        separators=(",", ":"),
    )


def usage_from_json(raw: bytes | str) -> _Usage:
    """The ``_Usage`` that ``usage_to_json`` stored (an empty one for '')."""
    if not raw:
        return _Usage()
    data = json.loads(raw)
    return _Usage(
        spans=deque(_Span(*span) for span in data["spans"]),
        running={k: _Running(*r) for k, r in data["running"].items()},
    )


def usage_lifetime_ms(usage: _Usage, now: float) -> int:
    """How long Redis keeps ``usage``: until its last search has left the window and its last
    lease has ended, so that an idle client costs nothing."""
    until = [s.end + WINDOW_S for s in usage.spans]
    until += [r.expires for r in usage.running.values() if r.expires is not None]
    return max(1, math.ceil((max(until, default=now) - now) * 1000.0)) + 1000


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

    The rule is ``CostLimiter``'s, to the line (``window_refusal``, ``_Usage``): each search is
    charged the worker time it really spent in a sliding 60 s window, running searches count at
    their deadline until they end, and a search is admitted only if the window, the running
    searches and its own deadline fit the limit, whichever instance they ran on. Each change
    (admit, start, end) reads the client's state, applies the rule and writes it back only if no
    other instance wrote in between (``_LUA_WRITE_USAGE``), else starts again; so instances
    cannot overspend a client together. Times are Redis's clock, one for the whole fleet, unless
    ``clock`` (seconds) is given, as tests do to replay minutes of load at once.

    A running search holds a lease that ends after ``hold_s`` (the longest the task can take:
    the pool's queue wait plus its deadline, given by ``MeteredPool``) unless released first; so
    an instance killed mid-search gives its client's slot and running charge back within that
    time instead of never (what its search spent before the kill is not charged). A client at
    its limit of searches polls for a free slot (every 20 to 100 ms) for up to ``wait_s``, then
    gets the same 429 as with one instance.
    """

    DEFAULT_HOLD_S = 60.0
    MAX_WRITE_TRIES = 50

    def __init__(
        self,
        shared: Any,
        max_searches: int,
        ms_per_minute: float,
        wait_s: float,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__(max_searches, ms_per_minute, wait_s)
        self.shared = shared
        self.clock = clock
        self._read = shared.script(_LUA_READ_USAGE)
        self._write = shared.script(_LUA_WRITE_USAGE)
        self._instance = uuid.uuid4().hex[:12]
        self._leases = itertools.count()
        self._held: dict[str, int] = {}

    def _key(self, client: str) -> str:
        return self.shared.key("cost", "window", client_key(client))

    def _update(self, client: str, change: Callable[[_Usage, float], tuple[_T, bool]]) -> _T:
        """``change(usage, now)`` applied to ``client``'s state atomically: it returns its
        result and whether it changed the state (written back only then). Leases past their end
        and searches out of the window are dropped first."""
        key = [self._key(client)]
        for _ in range(self.MAX_WRITE_TRIES):
            seconds, micros, version, state = self._read(key, [])
            now = self.clock() if self.clock is not None else int(seconds) + int(micros) / 1e6
            usage = usage_from_json(state)
            for lease, task in list(usage.running.items()):
                if task.expires is not None and task.expires <= now:
                    del usage.running[lease]
            usage.prune(now)
            result, changed = change(usage, now)
            if not changed:
                return result
            args = [version, uuid.uuid4().hex, usage_to_json(usage), usage_lifetime_ms(usage, now)]
            if int(self._write(key, args)):
                return result
        raise Unavailable(
            "the shared cost limits are too contended to update now; retry",
            code="busy",
        )

    def acquire(
        self, client: str, hold_s: float | None = None, max_ms: float | None = None
    ) -> str | None:
        """Admits one task of ``client`` that may cost up to ``max_ms`` of worker time (returns
        its lease, which ends by itself after ``hold_s``), or raises 429 with Retry-After."""
        if self.ms_per_minute <= 0 and self.max_searches <= 0:
            return None
        lease = f"{self._instance}:{next(self._leases)}"
        hold = hold_s if hold_s is not None else self.DEFAULT_HOLD_S
        own = own_charge(max_ms, self.ms_per_minute)

        def admit(usage: _Usage, now: float) -> tuple[ApiError | None, bool]:
            if 0 < self.max_searches <= len(usage.running):
                return too_many_searches(self.max_searches), False
            refusal = window_refusal(usage, now, self.ms_per_minute, own)
            if refusal is not None:
                return refusal, False
            usage.running[lease] = _Running(own, expires=now + hold)
            return None, True

        until = time.monotonic() + self.wait_s
        pause = 0.02
        while True:
            refusal = self._update(client, admit)
            if refusal is None:
                with self._cond:
                    self._held[client] = self._held.get(client, 0) + 1
                return lease
            left_s = until - time.monotonic()
            if refusal.code != "too_many_searches" or left_s <= 0:
                with self._cond:
                    self.refused += 1
                raise refusal
            time.sleep(min(pause, left_s))
            pause = min(0.1, pause * 1.5)

    def started(self, client: str, lease: str | None) -> None:
        """The task of ``lease`` has a worker now: its time counts from here.

        A Redis that fails here is not raised: the pool calls this holding a worker, and the
        search still counts at its deadline (it ends with a 503 when its release fails)."""
        if self.ms_per_minute <= 0:
            return  # only the window needs to know (a slot is held from admission)

        def start(usage: _Usage, now: float) -> tuple[None, bool]:
            task = usage.running.get(lease or "")
            if task is not None:
                task.started = now
            return None, task is not None

        with contextlib.suppress(Unavailable):
            self._update(client, start)

    def release(self, client: str, elapsed_ms: float, lease: str | None = None) -> None:
        """Ends one task of ``client`` that held a worker for ``elapsed_ms``."""
        if self.ms_per_minute <= 0 and self.max_searches <= 0:
            return
        with self._cond:
            count = self._held.get(client, 0) - 1
            if count > 0:
                self._held[client] = count
            else:
                self._held.pop(client, None)

        def end(usage: _Usage, now: float) -> tuple[None, bool]:
            usage.end(lease, now, elapsed_ms, charge=self.ms_per_minute > 0)
            return None, True

        self._update(client, end)

    def usage(self, client: str) -> dict[str, float]:
        return self._update(client, lambda usage, now: (usage.figures(now), False))

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
