"""The shared cache and limits (``--redis``) against a real Redis, not a mock (issue 21).

Two ``Resources`` (two apps) on one Redis stand for two instances: what one caches or charges,
the other sees. Atomicity under concurrent threads, the cache's byte bounds, leases that expire
when their instance dies, the worker-time window of the cost limits replayed on a fake clock
across instances, and a Redis that goes away (503, then recovery).

Needs ``ATELIER_TEST_REDIS_URL`` (``eval "$(.ci/redis.sh start 56379)"`` locally; ``.ci/run``
sets it). Without it these tests skip, except when ``ATELIER_REQUIRE_SERVER_TESTS=1`` (CI),
where they fail. The tests that start and stop their own Redis need Debian's redis-server.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from server import close_app
from server.cache import RedisResultCache, ResultCache
from server.config import ServiceConfig
from server.errors import ApiError
from server.examples import example_infoset
from server.limits import AccessControl, CostLimiter, RedisAccessControl, RedisCostLimiter
from server.redis_conn import (
    RedisStartupError,
    RedisUnavailable,
    SharedRedis,
    shared_redis,
)
from server.urls import redacted_url
from tests.limits_support import charged_in_worst_window, replay_capped_hints
from tests.server_support import make_app

REDIS_URL = os.environ.get("ATELIER_TEST_REDIS_URL", "")
REQUIRED = os.environ.get("ATELIER_REQUIRE_SERVER_TESTS") == "1"
FAST = {"milliseconds": 30}


def _missing(what: str) -> None:
    if REQUIRED:
        pytest.fail(f"ATELIER_REQUIRE_SERVER_TESTS=1 but {what}")
    pytest.skip(what)


@pytest.fixture
def redis_url() -> str:
    if not REDIS_URL:
        _missing("ATELIER_TEST_REDIS_URL is not set (start one: .ci/redis.sh start 56379)")
    return REDIS_URL


@pytest.fixture
def prefix(redis_url):
    """A key prefix of this test's own, wiped afterwards (the Redis is shared)."""
    name = f"atelier-test-{uuid.uuid4().hex[:10]}"
    yield name
    shared = SharedRedis(redis_url, name)
    for key in shared.client.scan_iter(match="{" + name + "}:*", count=1000):
        shared.client.delete(key)
    shared.close()


@pytest.fixture
def shared(redis_url, prefix):
    s = SharedRedis(redis_url, prefix)
    yield s
    s.close()


def two_apps(tmp_path: Path, redis_url: str, prefix: str, **overrides):
    """Two apps ("instances") sharing one Redis prefix, each with its own match database."""
    apps = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        apps.append(
            make_app(
                tmp_path / name,
                search_workers=1,
                redis_url=redis_url,
                redis_prefix=prefix,
                **overrides,
            )
        )
    return apps


# --- two instances ---------------------------------------------------------------------------
def test_a_hint_searched_on_one_instance_is_a_cache_hit_on_the_other(tmp_path, redis_url, prefix):
    a, b = two_apps(tmp_path, redis_url, prefix)
    try:
        infoset = example_infoset("gallery_rush", seed=3)
        body = {"infoset": infoset, "bot": "random", "budget": FAST, "seed": 11}
        first = a.test_client().post("/v1/games/gallery_rush/hint", json=body)
        assert first.status_code == 200 and first.json["cached"] is False
        other = b.test_client().post("/v1/games/gallery_rush/hint", json=body)
        assert other.status_code == 200 and other.json["cached"] is True
        assert {k: v for k, v in other.json.items() if k != "cached"} == {
            k: v for k, v in first.json.items() if k != "cached"
        }
        # Validations are shared the same way.
        va = a.test_client().post("/v1/games/gallery_rush/validate", json={"infoset": infoset})
        vb = b.test_client().post("/v1/games/gallery_rush/validate", json={"infoset": infoset})
        assert va.status_code == vb.status_code == 200 and va.json == vb.json
        health = b.test_client().get("/healthz").json
        assert health["redis"]["ok"] is True
        assert health["cache"]["backend"] == "redis"
        assert health["cache"]["fleet_hits"] >= 2  # b's hits, counted for the whole fleet
        assert health["cache"]["size"] >= 2
    finally:
        close_app(a)
        close_app(b)


def test_the_rate_limit_is_one_bucket_for_every_instance(tmp_path, redis_url, prefix):
    a, b = two_apps(tmp_path, redis_url, prefix, rate_limit_per_minute=1, rate_limit_burst=5)
    try:
        ca, cb = a.test_client(), b.test_client()
        statuses = [c.get("/v1/games").status_code for c in (ca, cb, ca, cb, ca)]
        assert statuses == [200] * 5
        refused = cb.get("/v1/games")
        assert refused.status_code == 429 and refused.json["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        assert ca.get("/v1/games").status_code == 429  # the other instance agrees
        # Another client (address) has its own bucket.
        other = ca.get("/v1/games", environ_base={"REMOTE_ADDR": "10.0.0.9"})
        assert other.status_code == 200
    finally:
        close_app(a)
        close_app(b)


def test_search_time_spent_on_one_instance_is_refused_on_the_other(tmp_path, redis_url, prefix):
    # A microsecond of search time a minute: any search costs more, however fast the machine
    # (a millisecond was more than a quick random hint could cost).
    a, b = two_apps(tmp_path, redis_url, prefix, client_search_ms_per_minute=0.001)
    try:
        infoset = example_infoset("gallery_rush", seed=4)

        def body(seed):
            return {"infoset": infoset, "bot": "random", "budget": FAST, "seed": seed}

        # The first search may start (the bucket is full) and costs more than 1 µs.
        assert a.test_client().post("/v1/games/gallery_rush/hint", json=body(1)).status_code == 200
        r = b.test_client().post("/v1/games/gallery_rush/hint", json=body(2))
        assert r.status_code == 429 and r.json["code"] == "search_time_exceeded"
        assert b.extensions["atelier"].costs.info()["refused"] == 1
    finally:
        close_app(a)
        close_app(b)


def test_without_redis_the_in_process_versions_stay(tmp_path):
    app = make_app(tmp_path, search_workers=1)
    res = app.extensions["atelier"]
    assert res.redis is None
    assert type(res.cache) is ResultCache
    assert type(res.access) is AccessControl and type(res.costs) is CostLimiter
    assert "redis" not in app.test_client().get("/healthz").json
    close_app(app)


def test_api_keys_never_appear_in_redis_key_names(shared):
    access = RedisAccessControl(shared, ("sekrit-key-123",), per_minute=60, burst=5)
    client = access.client_id("sekrit-key-123", "10.0.0.1")
    access.charge(client)
    costs = RedisCostLimiter(shared, 2, 1000.0, 0.1)
    costs.release(client, 5.0, costs.acquire(client, hold_s=5))
    names = [k.decode() for k in shared.client.scan_iter(match=shared.key("*"))]
    assert len(names) >= 2  # the rate bucket and the search-time bucket
    assert not any("sekrit" in name for name in names)


# --- atomicity -------------------------------------------------------------------------------
def run_threads(count: int, target) -> None:
    threads = [threading.Thread(target=target, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)


def test_concurrent_instances_cannot_overspend_a_rate_bucket(redis_url, prefix, monkeypatch):
    # Two instances (own connections) and 12 threads race for 40 tokens; the refill (1 a
    # minute) adds less than one token during the test. Tokens an instance holds stay good
    # for the whole test (a minute, not 1 s), so that a slow machine loses none to expiry.
    monkeypatch.setattr(RedisAccessControl, "HOLD_S", 60.0)
    limiters = [
        RedisAccessControl(SharedRedis(redis_url, prefix), (), per_minute=1, burst=40)
        for _ in range(2)
    ]
    granted = []
    lock = threading.Lock()

    def spend(k: int) -> None:
        for _ in range(10):
            try:
                limiters[k % 2].charge("addr:racer")
            except ApiError as err:
                assert err.code == "rate_limited"
            else:
                with lock:
                    granted.append(k)

    run_threads(12, spend)
    # Never more than the bucket; at most the tokens each instance still held (it takes
    # ``batch`` at once) fewer.
    assert 40 - 2 * (limiters[0].batch - 1) <= len(granted) <= 40
    assert sum(lim.refused for lim in limiters) == 12 * 10 - len(granted)


def test_concurrent_instances_never_run_more_searches_than_the_limit(redis_url, prefix):
    limiters = [
        RedisCostLimiter(SharedRedis(redis_url, prefix), 3, 0, wait_s=30.0) for _ in range(2)
    ]
    running = 0
    peak = 0
    done = 0
    lock = threading.Lock()

    def search(k: int) -> None:
        nonlocal running, peak, done
        for _ in range(4):
            lease = limiters[k % 2].acquire("addr:busy", hold_s=30)
            with lock:
                running += 1
                peak = max(peak, running)
            # 100 ms a search: three threads hold a slot together if three acquisitions fall
            # within 100 ms, as on any machine (20 ms asked that of a loaded one); the 40
            # searches still take only about 2 s.
            time.sleep(0.1)
            with lock:
                running -= 1
                done += 1
            limiters[k % 2].release("addr:busy", 100.0, lease)

    run_threads(10, search)
    assert done == 40
    assert peak <= 3
    assert peak == 3  # the limit is used, not just respected by running one at a time


def test_a_client_at_its_limit_waits_for_a_slot_freed_by_another_instance(redis_url, prefix):
    a, b = (RedisCostLimiter(SharedRedis(redis_url, prefix), 1, 0, wait_s=30.0) for _ in range(2))
    lease = a.acquire("addr:c", hold_s=30)
    released: list[float] = []

    def free() -> None:
        released.append(time.monotonic())  # before the release: b cannot get in earlier
        a.release("addr:c", 1.0, lease)

    threading.Timer(0.3, free).start()
    second = b.acquire("addr:c", hold_s=30)
    got = time.monotonic()
    # b waited for the slot (it got it only once a freed it), and took it up promptly: it
    # polls every 100 ms at most, so 10 s is room for a loaded machine, not for a lost wake.
    assert released and got - released[0] < 10.0
    b.release("addr:c", 1.0, second)
    quick = RedisCostLimiter(SharedRedis(redis_url, prefix), 1, 0, wait_s=0.1)
    held = a.acquire("addr:c", hold_s=30)
    with pytest.raises(ApiError) as err:
        quick.acquire("addr:c", hold_s=30)
    assert err.value.status == 429 and err.value.code == "too_many_searches"
    a.release("addr:c", 1.0, held)


# --- leases ----------------------------------------------------------------------------------
def test_a_lease_of_an_instance_killed_mid_search_expires(redis_url, prefix):
    """A real process takes the client's only slot and is SIGKILLed: the slot comes back when
    the lease ends, and not before."""
    root = Path(__file__).resolve().parent.parent
    code = textwrap.dedent(
        f"""
        import sys, time
        from server.limits import RedisCostLimiter
        from server.redis_conn import SharedRedis
        limiter = RedisCostLimiter(SharedRedis({redis_url!r}, {prefix!r}), 1, 0, wait_s=0.1)
        limiter.acquire("addr:victim", hold_s=5.0)
        print("held", flush=True)
        time.sleep(60)
        """
    )
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout.readline().strip() == b"held"
    finally:
        proc.kill()
        proc.wait(10)
    # The lease lasts 5 s from before "held": the survivor asks well within it on any
    # machine (with 2 s, a loaded one could be late), and waits up to 30 s for its end.
    survivor = RedisCostLimiter(SharedRedis(redis_url, prefix), 1, 0, wait_s=0.1)
    with pytest.raises(ApiError) as err:
        survivor.acquire("addr:victim", hold_s=10)
    assert err.value.code == "too_many_searches"
    waiting = RedisCostLimiter(SharedRedis(redis_url, prefix), 1, 0, wait_s=30.0)
    lease = waiting.acquire("addr:victim", hold_s=10)  # once the dead one's lease has expired
    waiting.release("addr:victim", 1.0, lease)


# --- the worker-time window across the fleet (issue 42.5) -------------------------------------
def fake_clocked(redis_url: str, prefix: str, now: list[float], *args) -> RedisCostLimiter:
    """An 'instance' of the cost limits on the shared Redis, timed by ``now[0]`` (seconds)
    instead of Redis's clock, so that a test replays minutes of load at once."""
    return RedisCostLimiter(SharedRedis(redis_url, prefix), *args, clock=lambda: now[0])


@pytest.mark.parametrize("instances", [1, 2])
def test_concurrent_capped_hints_cannot_exceed_the_window_charge_on_the_fleet(
    redis_url, prefix, instances
):
    # The one-instance test's scenario (tests/test_server_hardening.py) on the shared limits:
    # the earlier bucket let the client spend its 60 s depth plus a minute's refill. With two
    # instances, the client's threads alternate between them and together stay within 60 s.
    now = [0.0]
    limiters = [fake_clocked(redis_url, prefix, now, 4, 60_000, 0.0) for _ in range(instances)]
    spans, refused, admitted = replay_capped_hints(limiters, now)
    worst = charged_in_worst_window(spans)
    assert worst <= 60_000 + 1e-6, worst
    assert worst >= 50_000 and refused > 0  # the client did use what it may (a live test)
    assert all(count > 0 for count in admitted), admitted  # every instance served it
    assert sum(lim.refused for lim in limiters) == refused


def test_running_searches_count_at_their_deadline_on_every_instance(redis_url, prefix):
    # Redis's own clock: nothing here depends on time passing. Three searches running on one
    # instance (6 s deadlines, 20 s a minute): a fourth is refused on the other before any has
    # ended, and admitted once they ended early.
    a, b = (RedisCostLimiter(SharedRedis(redis_url, prefix), 0, 20_000, 0.0) for _ in range(2))
    leases = [a.acquire("addr:y", max_ms=6000.0) for _ in range(3)]
    with pytest.raises(ApiError) as err:
        b.acquire("addr:y", max_ms=6000.0)
    assert err.value.code == "search_time_exceeded" and err.value.retry_after > 0
    assert b.usage("addr:y")["committed_ms"] == 18_000
    for lease in leases:
        a.release("addr:y", 100.0, lease)  # they ended early: the rest is free again
    assert b.usage("addr:y") == {"spent_ms": 300.0, "committed_ms": 300.0, "running": 0}
    b.release("addr:y", 0.0, b.acquire("addr:y", max_ms=6000.0))


def test_a_dead_instance_frees_its_running_charge_when_its_lease_ends(redis_url, prefix):
    now = [1000.0]
    dead = fake_clocked(redis_url, prefix, now, 0, 10_000, 0.0)
    survivor = fake_clocked(redis_url, prefix, now, 0, 10_000, 0.0)
    dead.started("addr:d", dead.acquire("addr:d", hold_s=11.0, max_ms=6000.0))
    # ... and its instance is killed: no release ever comes.
    with pytest.raises(ApiError) as err:
        survivor.acquire("addr:d", max_ms=6000.0)
    assert err.value.code == "search_time_exceeded"
    assert err.value.retry_after == pytest.approx(6.0)  # when the search's deadline passes
    now[0] = 1010.9  # past its deadline, it counts at the time it has run, until its lease ends
    with pytest.raises(ApiError):
        survivor.acquire("addr:d", max_ms=6000.0)
    assert survivor.usage("addr:d")["committed_ms"] == pytest.approx(10_900)
    now[0] = 1011.0  # the lease has ended: what it held is free (nothing is charged for it)
    lease = survivor.acquire("addr:d", max_ms=6000.0)
    assert survivor.usage("addr:d")["committed_ms"] == 6000.0
    survivor.release("addr:d", 10.0, lease)


def test_a_search_that_outlived_its_lease_ends_no_other_search(redis_url, prefix):
    now = [0.0]
    a, b = (fake_clocked(redis_url, prefix, now, 0, 60_000, 0.0) for _ in range(2))
    late = a.acquire("addr:l", hold_s=11.0, max_ms=6000.0)
    now[0] = 12.0  # its lease has ended; b's search runs
    running = b.acquire("addr:l", hold_s=11.0, max_ms=6000.0)
    now[0] = 12.5
    a.release("addr:l", 12_000.0, late)  # still charged what it spent, ...
    usage = b.usage("addr:l")
    assert usage["running"] == 1 and usage["committed_ms"] == 18_000  # ... b's search still runs
    b.release("addr:l", 500.0, running)


def test_search_ms_are_charged_to_the_fleet_window(redis_url, prefix):
    now = [100.0]
    a, b = (fake_clocked(redis_url, prefix, now, 0, 600.0, 0.1) for _ in range(2))
    a.release("addr:t", 700.0, a.acquire("addr:t"))  # 600 ms a minute, 700 spent in [99.3, 100]
    with pytest.raises(ApiError) as err:
        b.acquire("addr:t")
    assert err.value.code == "search_time_exceeded"
    # The 100 ms over are the search's first 100 ms: out of the window at 99.4 + 60.
    assert err.value.retry_after == pytest.approx(59.4, abs=0.01)
    now[0] += err.value.retry_after
    b.release("addr:t", 1.0, b.acquire("addr:t"))


def test_an_idle_client_costs_nothing_in_redis(redis_url, prefix):
    shared = SharedRedis(redis_url, prefix)
    slots_only = RedisCostLimiter(shared, 1, 0, 0.0)
    slots_only.release("addr:i", 5.0, slots_only.acquire("addr:i", hold_s=10))
    assert not list(shared.client.scan_iter(match=shared.key("*")))  # nothing left to count
    windowed = RedisCostLimiter(shared, 1, 1000.0, 0.0)
    windowed.release("addr:i", 5.0, windowed.acquire("addr:i", hold_s=10, max_ms=100.0))
    [key] = list(shared.client.scan_iter(match=shared.key("*")))
    assert 59_000 < shared.client.pttl(key) <= 61_000  # the span leaves the window, then the key
    shared.close()


def test_a_write_over_another_instances_write_is_retried_not_lost(redis_url, prefix):
    # a reads the client's window, b ends its search and writes, then a ends its own: a's
    # write of what it read would lose b's charge and bring b's search back to life.
    a, b = (RedisCostLimiter(SharedRedis(redis_url, prefix), 0, 60_000, 0.0) for _ in range(2))
    mine, theirs = a.acquire("addr:r", max_ms=100.0), b.acquire("addr:r", max_ms=100.0)
    read, reads = a._read, []

    def raced(keys, args):
        snapshot = read(keys, args)
        reads.append(1)
        if len(reads) == 1:
            b.release("addr:r", 50.0, theirs)
        return snapshot

    a._read = raced
    a.release("addr:r", 70.0, mine)
    assert len(reads) == 2  # the first write was refused, the change applied again
    assert a.usage("addr:r") == {"spent_ms": 120.0, "committed_ms": 120.0, "running": 0}


def test_a_redis_failure_as_a_search_starts_is_not_raised_to_the_pool():
    # The pool calls ``started`` holding a worker: an error there would lose the worker.
    gone = RedisCostLimiter(SharedRedis(f"redis://127.0.0.1:{free_port()}/0"), 1, 1000.0, 0.0)
    gone.started("addr:s", "lease")
    with pytest.raises(RedisUnavailable):
        gone.acquire("addr:s", max_ms=10.0)


# --- the cache's bounds ----------------------------------------------------------------------
def stored_bytes(shared: SharedRedis) -> int:
    """What the cache's entries really occupy as values in Redis (STRLEN of each)."""
    client = shared.client
    keys = list(client.scan_iter(match=shared.key("cache", "e") + ":*", count=1000))
    return sum(client.strlen(k) for k in keys)


def test_the_shared_cache_stays_within_its_byte_bound_under_concurrent_puts(redis_url, prefix):
    caches = [
        RedisResultCache(SharedRedis(redis_url, prefix), 10_000, 60, 40_000, 5_000)
        for _ in range(2)
    ]

    def fill(k: int) -> None:
        for i in range(40):
            caches[k % 2].put(f"t{k}:{i}", "x" * (500 + 37 * i))

    run_threads(8, fill)
    info = caches[0].info()
    assert info["bytes"] <= 40_000
    assert stored_bytes(caches[0].shared) <= info["bytes"]
    assert info["size"] > 0 and info["evicted"] > 0
    # Accounting matches what is there: every counted entry exists, nothing stored is uncounted.
    client = caches[0].shared.client
    sizes = client.hgetall(caches[0].shared.key("cache", "sizes"))
    assert sum(int(v) for v in sizes.values()) == info["bytes"]
    entries = client.scan_iter(match=caches[0].shared.key("cache", "e") + ":*", count=1000)
    assert len(list(entries)) == len(sizes) == info["size"]


def test_an_entry_over_the_entry_cap_is_not_kept_and_replaces_the_old_one(shared):
    cache = RedisResultCache(shared, 100, 60, 100_000, 2_000)
    cache.put("k", {"small": 1})
    assert cache.get("k") == {"small": 1}
    cache.put("k", {"big": "x" * 3_000})
    assert cache.get("k") is None
    assert cache.info()["not_kept_too_big"] == 1 and cache.info()["bytes"] == 0


def test_the_least_recently_used_entry_goes_first(shared):
    cache = RedisResultCache(shared, 3, 60, 1_000_000, 10_000)
    for key in "abc":
        cache.put(key, key)
        time.sleep(0.005)  # Redis's clock has millisecond steps
    assert cache.get("a") == "a"  # a is now the most recent
    time.sleep(0.005)
    cache.put("d", "d")  # over 3 entries: b goes
    assert cache.get("b") is None
    assert [cache.get(k) for k in "acd"] == ["a", "c", "d"]


def test_expired_entries_leave_the_accounting(shared):
    cache = RedisResultCache(shared, 100, 0.2, 100_000, 10_000)
    cache.put("old", "x" * 1000)
    assert cache.info()["bytes"] > 1000
    time.sleep(0.35)
    assert cache.get("old") is None
    cache.put("new", "y")
    assert cache.info()["size"] == 1 and cache.info()["bytes"] < 1000


def test_the_near_cache_answers_hot_entries_and_reports_its_hits_to_the_fleet(shared):
    cache = RedisResultCache(shared, 100, 60, 100_000, 10_000, near_bytes=50_000)
    other = RedisResultCache(shared, 100, 60, 100_000, 10_000, near_bytes=50_000)
    cache.put("k", {"v": 1})
    assert other.get("k") == {"v": 1}  # from Redis, now also in other's near cache
    shared.client.delete(shared.key("cache", "e") + ":k")  # Redis loses it ...
    assert other.get("k") == {"v": 1}  # ... other still answers from its copy
    assert cache.get("k") == {"v": 1}  # cache wrote it, so it has a copy too
    info = other.info()
    assert info["hits"] == 2 and info["fleet_hits"] >= 2 and info["near_bytes"] > 0


def test_a_hint_answer_round_trips_as_its_body(shared):
    cache = RedisResultCache(shared, 100, 60)
    answer = {"action": {"id": 3}, "cached": True}
    body = b'{"action":{"id":3},"cached":true}'
    cache.put("h", (answer, body))
    assert cache.peek("h") == (answer, body)


# --- Redis going away ------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(port: int, directory: Path) -> subprocess.Popen:
    binary = shutil.which("redis-server")
    if binary is None:
        _missing("redis-server is not installed (apt-get install redis-server)")
    args = ["--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    proc = subprocess.Popen(
        [binary, *args, "--dir", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    probe = SharedRedis(f"redis://127.0.0.1:{port}/0", "probe")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if probe.health()["ok"]:
            probe.close()
            return proc
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("redis-server did not answer PING within 20 s")


def test_redis_going_away_is_a_503_then_service_resumes(tmp_path, redis_url):
    port = free_port()
    server = start_redis(port, tmp_path)
    app = make_app(tmp_path, search_workers=1, redis_url=f"redis://127.0.0.1:{port}/0")
    client = app.test_client()
    (tmp_path / "keyed").mkdir()
    keyed = make_app(
        tmp_path / "keyed", redis_url=f"redis://127.0.0.1:{port}/0", api_keys=["k" * 16]
    )
    infoset = example_infoset("gallery_rush", seed=5)
    body = {"infoset": infoset, "bot": "random", "budget": FAST, "seed": 3}
    try:
        assert client.post("/v1/games/gallery_rush/hint", json=body).status_code == 200
        server.kill()
        server.wait(10)
        # An answer this instance holds in its near cache is still given ...
        again = client.post("/v1/games/gallery_rush/hint", json=body)
        assert again.status_code == 200 and again.json["cached"] is True
        # ... anything that needs Redis is a clear 503.
        body = {**body, "seed": 4}
        started = time.monotonic()
        r = client.post("/v1/games/gallery_rush/hint", json=body)
        assert time.monotonic() - started < 10  # bounded timeouts, no hang
        assert r.status_code == 503 and r.json["code"] == "redis_unavailable"
        assert f"127.0.0.1:{port}" in r.json["message"]
        assert "Retry-After" in r.headers
        health = client.get("/healthz")
        assert health.status_code == 503 and health.json["code"] == "redis_unavailable"
        # Without an API key, a monitor learns that Redis is down, not where it is.
        anonymous = keyed.test_client().get("/healthz")
        assert anonymous.status_code == 503 and anonymous.json["code"] == "redis_unavailable"
        assert str(port) not in anonymous.json["message"]
        # The match store is not in Redis: a match of humans is still created.
        created = client.post("/v1/matches", json={"game": "gallery_rush", "seats": ["human"] * 2})
        assert created.status_code == 201  # matches without bots need no Redis
        server = start_redis(port, tmp_path)
        r = client.post("/v1/games/gallery_rush/hint", json=body)
        assert r.status_code == 200 and r.json["cached"] is False
        assert client.get("/healthz").status_code == 200
    finally:
        server.kill()
        server.wait(10)
        close_app(app)
        close_app(keyed)


def test_an_unreachable_redis_at_start_up_is_one_line_naming_it_without_the_password():
    port = free_port()  # nothing listens there
    url = f"redis://:hunter2@127.0.0.1:{port}/0"
    with pytest.raises(RedisStartupError) as err:
        shared_redis(ServiceConfig(redis_url=url))
    message = str(err.value)
    assert f"127.0.0.1:{port}" in message and "hunter2" not in message and "\n" not in message

    from evaluation.cli import main

    result = CliRunner().invoke(main, ["serve", "--redis", url, "--port", "0"])
    assert result.exit_code == 1
    assert "cannot reach Redis at redis://:***@127.0.0.1" in result.output
    assert "hunter2" not in result.output and "Traceback" not in result.output


def test_redis_config_url_env_alias_and_redaction():
    assert ServiceConfig.load(env={"ATELIER_REDIS": "redis://h:1/0"}).redis_url == "redis://h:1/0"
    both = {"ATELIER_REDIS": "redis://a/0", "ATELIER_REDIS_URL": "redis://b/0"}
    assert ServiceConfig.load(env=both).redis_url == "redis://b/0"
    shown = ServiceConfig(redis_url="redis://user:s3cret@h:6379/0").to_json()["redis_url"]
    assert shown == "redis://user:***@h:6379/0"
    assert redacted_url("redis://h:6379/0") == "redis://h:6379/0"
    with pytest.raises(ValueError, match="redis_url"):
        ServiceConfig(redis_url="http://h:6379")


def test_a_redis_error_is_a_redis_unavailable_apierror():
    assert issubclass(RedisUnavailable, ApiError)
    assert RedisUnavailable("x").status == 503 and RedisUnavailable("x").code == "redis_unavailable"


# --- the fleet bench -------------------------------------------------------------------------
def test_the_fleet_bench_refuses_a_store_the_instances_do_not_share():
    from evaluation.cli import main

    args = ["bench", "service", "--instances", "3", "--redis", "redis://127.0.0.1:1/0"]
    result = CliRunner().invoke(main, [*args, "--db", "/tmp/m.sqlite3"])
    assert result.exit_code == 2 and "a fleet needs one match store" in result.output
    result = CliRunner().invoke(main, ["bench", "service", "--instances", "3"])
    assert result.exit_code == 2 and "--redis" in result.output


def test_the_fleet_bench_shares_its_cache_and_cleans_up(redis_url):
    """Two real instances on the Redis: the fleet's hit rate is one instance's, the soak has no
    errors, and the bench leaves no keys behind."""
    from evaluation.bench import service_fleet as bench_fleet

    report = bench_fleet.run(
        2,
        redis_url,
        seconds=1,
        soak_seconds=3,
        uncached_seconds=2,
        soak_clients=4,
        budget_ms=50,
        bot="random",
        names=["gallery_rush"],
        hit_requests=24,
    )
    hits = report["hit_rate"]
    assert hits["fleet"]["hit_rate"] == hits["reference"]["hit_rate"]
    assert hits["fleet"]["hit_rate"] == hits["fleet"]["best_possible"] == 0.75
    assert report["soak"]["errors"] == 0 and report["soak"]["requests"] > 0
    assert report["fleet_figures"]["cached_hint"]["errors"] == 0
    assert report["fleet_cache"]["backend"] == "redis"
    leftover = SharedRedis(redis_url, report["fleet"]["redis_prefix"])
    assert not list(leftover.client.scan_iter(match=leftover.key("*")))
    assert "ratio" in bench_fleet.format_report(report)


def test_an_instance_takes_tokens_in_batches_and_the_fleet_still_never_overspends(
    redis_url, prefix, monkeypatch
):
    """Cached hints would pay a Redis round trip each for the rate limit; an instance takes a
    tenth of the burst at once instead. Those tokens leave the shared bucket when taken, so
    what one instance holds the other cannot spend, and the total stays the burst."""
    # a holds its tokens for a minute here, not 1 s: they must still be good after b's 90
    # charges however slow the machine (the expiry itself is not this test's subject).
    monkeypatch.setattr(RedisAccessControl, "HOLD_S", 60.0)
    a, b = (
        RedisAccessControl(SharedRedis(redis_url, prefix), (), per_minute=1, burst=100)
        for _ in range(2)
    )
    assert a.batch == 10
    a.charge("addr:batched")  # takes 10: spends 1, holds 9
    spent_b = 0
    with pytest.raises(ApiError):
        while True:
            b.charge("addr:batched")
            spent_b += 1
    assert spent_b == 90
    for _ in range(9):  # a's held tokens are still good
        a.charge("addr:batched")
    with pytest.raises(ApiError):
        a.charge("addr:batched")
