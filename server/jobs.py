"""The job queue of long work (reviews): Dramatiq for the queue, a ``JobStore`` for job state.

Two parts behind one interface, each with an embedded backend for one host and a shared one
for a fleet (``--redis``):

* **The queue** (``JobQueue``) carries job ids to workers: Dramatiq, an existing library, with
  its ``StubBroker`` (in-process, no server) by default and its ``RedisBroker`` on the fleet's
  Redis. Each instance runs a Dramatiq ``Worker`` in its HTTP process with
  ``review_max_running`` threads (greenlets under gunicorn's gevent worker): any instance may
  take a job that any instance enqueued. Dramatiq's own middleware (time limits through
  asynchronous exceptions, retries on exceptions) is left out: a job's time is bounded per
  decision by the search pool's deadlines, and retries follow the rule below.
* **The store** (``JobStore``) keeps each job's state: its definition (what to review, its
  owner's digest), status, error, decisions done so far, the finished answer, and a heartbeat.
  ``MemoryJobStore`` holds it in this process, ``RedisJobStore`` in Redis (every change one
  atomic Lua script), so a job is polled and cancelled on any instance, and finished jobs live
  in the store's backend, bounded: at most ``review_keep`` of them and ``review_keep_bytes``
  in all (oldest evicted first), each kept ``review_ttl_s``.

A running job holds a heartbeat (``HEARTBEAT_S``, expiring after ``HEARTBEAT_TTL_S``). A job
seen ``running`` without one had its worker die (its instance killed): the reaper of any
instance, every ``HEARTBEAT_S``, puts it back in the queue, to resume after its last stored
decision, and after ``MAX_WORKER_DEATHS`` deaths fails it with ``worker_died``. So a killed
instance's job runs again elsewhere within ``HEARTBEAT_TTL_S + HEARTBEAT_S`` (12 s) plus the
wait for a free job worker. A message delivered twice (Dramatiq's Redis broker re-delivers
the messages of a worker it has not heard from) is harmless: a job runs only for whoever
claims its heartbeat, and a finished one is never run again.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger("atelier.server.jobs")

HEARTBEAT_S = 2.0  # a running job's heartbeat period, and the reaper's
HEARTBEAT_TTL_S = 10.0  # a heartbeat not renewed for this long: the worker died
MAX_WORKER_DEATHS = 2  # re-runs after a dead worker; the next death fails the job
QUEUE_NAME = "atelier-jobs"
ACTOR_NAME = "atelier_review"
LIVE = ("queued", "running")
FINISHED = ("done", "failed", "cancelled")
WORKER_DIED = {
    "code": "worker_died",
    "message": f"the worker running this job died {MAX_WORKER_DEATHS + 1} times (its instance "
    "was killed or lost); the decisions reviewed before are kept",
}


@dataclass
class StoredJob:
    """A job as the store holds it: its definition (fixed at creation) and where it stands."""

    spec: dict[str, Any]
    status: str = "queued"
    error: dict[str, Any] | None = None
    decisions: list[dict[str, Any]] = field(default_factory=list)
    decision_bytes: int = 0
    finished_at: float | None = None
    attempts: int = 0


class JobStore(Protocol):
    """Job state shared by whoever enqueues, runs, polls and cancels a job."""

    def create(self, job_id: str, client: str, spec: dict[str, Any]) -> None: ...
    def load(self, job_id: str) -> StoredJob | None: ...
    def answer(self, job_id: str) -> bytes | None: ...
    def status(self, job_id: str) -> str | None: ...
    def transition(
        self, job_id: str, to: str, allowed: tuple[str, ...], error: dict[str, Any] | None = None
    ) -> bool: ...
    def add_decision(self, job_id: str, decision: dict[str, Any], size: int) -> None: ...
    def claim(self, job_id: str, token: str) -> str: ...
    def heartbeat(self, job_id: str, token: str) -> bool: ...
    def release(self, job_id: str, token: str) -> None: ...
    def retry_or_fail(self, job_id: str) -> str | None: ...
    def finish(self, job_id: str, answer: bytes, size: int) -> None: ...
    def live(self) -> dict[str, tuple[str, str]]: ...
    def stale(self) -> list[tuple[str, str]]: ...
    def match_job(self, match_id: str, seat: int) -> str | None: ...
    def set_match_job(self, match_id: str, seat: int, job_id: str) -> None: ...
    def info(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


def live_figures(live: list[tuple[str, float | None]], now: float) -> dict[str, Any]:
    """What an operator reads of the live jobs ``(status, created at)`` (``/healthz``): how
    many run, how many wait, and the age of the oldest waiting one (seconds since it was
    created, which for a job queued again after its worker died includes its first run;
    ``None`` when none waits, or none that waits has a known creation time)."""
    statuses = [status for status, _ in live]
    waiting = [now - created for status, created in live if status == "queued" and created]
    return {
        "running": statuses.count("running"),
        "queued": statuses.count("queued"),
        "oldest_queued_s": round(max(waiting), 3) if waiting else None,
    }


class MemoryJobStore:
    """The embedded store: this process's memory, under one lock."""

    def __init__(self, ttl_s: float, keep: int, keep_bytes: int) -> None:
        self.ttl_s, self.keep, self.keep_bytes = ttl_s, keep, keep_bytes
        self._jobs: dict[str, StoredJob] = {}
        self._clients: dict[str, str] = {}  # live job id -> client
        self._created: dict[str, float] = {}  # live job id -> created at (time.time())
        self._answers: dict[str, bytes] = {}
        self._finished: dict[str, tuple[float, int]] = {}  # id -> (finished at, size), oldest first
        self._bytes = 0
        self._beats: dict[str, tuple[str, float]] = {}  # id -> (token, expires at)
        self._matches: dict[tuple[str, int], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def create(self, job_id: str, client: str, spec: dict[str, Any]) -> None:
        with self._lock:
            self._jobs[job_id] = StoredJob(spec=spec)
            self._clients[job_id] = client
            self._created[job_id] = time.time()

    def load(self, job_id: str) -> StoredJob | None:
        with self._lock:
            self._expire()
            job = self._jobs.get(job_id)
            if job is None:
                return None
            # A copy: the runner's view must not change under a poll, nor a poll's under it.
            return StoredJob(
                job.spec,
                job.status,
                job.error,
                list(job.decisions),
                job.decision_bytes,
                job.finished_at,
                job.attempts,
            )

    def answer(self, job_id: str) -> bytes | None:
        with self._lock:
            self._expire()
            return self._answers.get(job_id)

    def status(self, job_id: str) -> str | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return None if job is None else job.status

    def transition(
        self, job_id: str, to: str, allowed: tuple[str, ...], error: dict[str, Any] | None = None
    ) -> bool:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.status not in allowed:
                return False
            job.status = to
            if error is not None:
                job.error = error
            return True

    def add_decision(self, job_id: str, decision: dict[str, Any], size: int) -> None:
        with self._lock:
            job = self._jobs[job_id]
            job.decisions.append(decision)
            job.decision_bytes += size

    def claim(self, job_id: str, token: str) -> str:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return "missing"
            if job.status not in LIVE:
                return "finished"
            beat = self._beats.get(job_id)
            if beat is not None and beat[1] > time.monotonic():
                return "busy"
            if job.status == "running":  # its last worker died
                job.attempts += 1
                if job.attempts > MAX_WORKER_DEATHS:
                    job.status, job.error = "failed", dict(WORKER_DIED)
                    return "failed"
            job.status = "running"
            self._beats[job_id] = (token, time.monotonic() + HEARTBEAT_TTL_S)
            return "claimed"

    def heartbeat(self, job_id: str, token: str) -> bool:
        with self._lock:
            beat = self._beats.get(job_id)
            if beat is None or beat[0] != token:
                return False
            self._beats[job_id] = (token, time.monotonic() + HEARTBEAT_TTL_S)
            return True

    def release(self, job_id: str, token: str) -> None:
        with self._lock:
            if self._beats.get(job_id, ("",))[0] == token:
                del self._beats[job_id]

    def retry_or_fail(self, job_id: str) -> str | None:
        with self._lock:
            job = self._jobs.get(job_id)
            beat = self._beats.get(job_id)
            if job is None or job.status != "running":
                return None
            if beat is not None and beat[1] > time.monotonic():
                return None
            job.attempts += 1
            if job.attempts > MAX_WORKER_DEATHS:
                job.status, job.error = "failed", dict(WORKER_DIED)
                return "failed"
            job.status = "queued"
            return "queued"

    def finish(self, job_id: str, answer: bytes, size: int) -> None:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return
            job.finished_at = time.time()
            self._clients.pop(job_id, None)
            self._created.pop(job_id, None)
            self._beats.pop(job_id, None)
            self._answers[job_id] = answer
            self._finished.pop(job_id, None)
            self._finished[job_id] = (time.monotonic(), size)
            self._bytes += size
            self._expire()
            while self._finished and (
                self._bytes > self.keep_bytes or len(self._finished) > self.keep
            ):
                self._drop(next(iter(self._finished)))

    def _expire(self) -> None:
        cutoff = time.monotonic() - self.ttl_s
        while self._finished:
            oldest, (at, _) = next(iter(self._finished.items()))
            if at > cutoff:
                break
            self._drop(oldest)

    def _drop(self, job_id: str) -> None:
        _, size = self._finished.pop(job_id)
        self._bytes -= size
        self._jobs.pop(job_id, None)
        self._answers.pop(job_id, None)

    def live(self) -> dict[str, tuple[str, str]]:
        with self._lock:
            return {j: (c, self._jobs[j].status) for j, c in self._clients.items()}

    def stale(self) -> list[tuple[str, str]]:
        now = time.monotonic()
        with self._lock:
            return [
                (job_id, self._jobs[job_id].status)
                for job_id in self._clients
                if self._jobs[job_id].status != "queued"
                and self._beats.get(job_id, ("", 0.0))[1] <= now
            ]

    def match_job(self, match_id: str, seat: int) -> str | None:
        with self._lock:
            found = self._matches.get((match_id, seat))
            if found is None or found[1] <= time.monotonic():
                return None
            return found[0]

    def set_match_job(self, match_id: str, seat: int, job_id: str) -> None:
        with self._lock:
            now = time.monotonic()
            self._matches = {k: v for k, v in self._matches.items() if v[1] > now}
            self._matches[(match_id, seat)] = (job_id, now + self.ttl_s)

    def info(self) -> dict[str, Any]:
        with self._lock:
            jobs = [j for j in self._clients if j in self._jobs]
            live = [(self._jobs[j].status, self._created.get(j)) for j in jobs]
            return {
                "backend": "memory",
                **live_figures(live, time.time()),
                "finished": len(self._finished),
                "finished_bytes": self._bytes,
            }

    def close(self) -> None:
        pass


# --- Redis --------------------------------------------------------------------------------------
# Keys (all under the deployment's prefix, one hash slot): job:{id} a hash (spec, status,
# error, attempts, decision_bytes, finished_at, answer), job:{id}:d the decisions (a list of
# JSON), job:{id}:hb the heartbeat (the runner's token, expiring), jobs:live (id -> client of
# every queued or running job), jobs:done (finished ids by finish time), jobs:sizes (id ->
# bytes), jobs:bytes (their sum), jobs:match:{match}:{seat} (a match review's job id).

CLAIM = """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 'missing' end
if st ~= 'queued' and st ~= 'running' then return 'finished' end
if redis.call('EXISTS', KEYS[2]) == 1 then return 'busy' end
if st == 'running' then
  local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
  if n > tonumber(ARGV[3]) then
    redis.call('HSET', KEYS[1], 'status', 'failed', 'error', ARGV[4])
    return 'failed'
  end
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[1], 'status', 'running')
return 'claimed'
"""

HEARTBEAT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 1
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

TRANSITION = """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 0 end
for i = 3, #ARGV do
  if st == ARGV[i] then
    redis.call('HSET', KEYS[1], 'status', ARGV[1])
    if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[2]) end
    return 1
  end
end
return 0
"""

RETRY_OR_FAIL = """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return false end
if redis.call('EXISTS', KEYS[2]) == 1 then return false end
local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if n > tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'failed', 'error', ARGV[2])
  return 'failed'
end
redis.call('HSET', KEYS[1], 'status', 'queued')
return 'queued'
"""

# Stores a finished job's answer and evicts: expired ids first, then the oldest while the
# finished jobs hold more than the byte bound or the count bound.
FINISH = """
local job, dlist, live, done, sizes, total = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id, answer, size, now, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]),
  tonumber(ARGV[5])
local cap, keep, prefix = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
if redis.call('EXISTS', job) == 0 then return 0 end
redis.call('HSET', job, 'answer', answer, 'finished_at', ARGV[4])
redis.call('EXPIRE', job, ttl)
redis.call('EXPIRE', dlist, ttl)
redis.call('HDEL', live, id)
local old = redis.call('HGET', sizes, id)
if old then redis.call('DECRBY', total, old) end
redis.call('ZADD', done, now, id)
redis.call('HSET', sizes, id, size)
redis.call('INCRBY', total, size)
local function drop(oid)
  local s = redis.call('HGET', sizes, oid)
  if s then redis.call('DECRBY', total, s) end
  redis.call('HDEL', sizes, oid)
  redis.call('ZREM', done, oid)
  redis.call('DEL', prefix .. oid, prefix .. oid .. ':d')
end
for _, oid in ipairs(redis.call('ZRANGEBYSCORE', done, '-inf', now - ttl)) do drop(oid) end
while (tonumber(redis.call('GET', total) or '0') > cap or redis.call('ZCARD', done) > keep)
    and redis.call('ZCARD', done) > 0 do
  drop(redis.call('ZRANGE', done, 0, 0)[1])
end
return 1
"""


class RedisJobStore:
    """The fleet's store: every instance reads and writes the same jobs in Redis."""

    def __init__(self, shared: Any, ttl_s: float, keep: int, keep_bytes: int) -> None:
        self.shared = shared
        self.client = shared.client
        self.ttl = max(1, int(ttl_s))
        self.keep, self.keep_bytes = keep, keep_bytes
        self._claim = shared.script(CLAIM)
        self._heartbeat = shared.script(HEARTBEAT)
        self._release = shared.script(RELEASE)
        self._transition = shared.script(TRANSITION)
        self._retry = shared.script(RETRY_OR_FAIL)
        self._finish = shared.script(FINISH)

    def _job(self, job_id: str, part: str = "") -> str:
        return self.shared.key("job", job_id) + (f":{part}" if part else "")

    def create(self, job_id: str, client: str, spec: dict[str, Any]) -> None:
        pipe = self.client.pipeline()
        pipe.hset(
            self._job(job_id),
            mapping={
                "spec": json.dumps(spec, separators=(",", ":")),
                "status": "queued",
                "created_at": time.time(),
            },
        )
        pipe.expire(self._job(job_id), self.ttl)
        pipe.hset(self.shared.key("jobs", "live"), job_id, client)
        self.shared.call(pipe.execute)

    def load(self, job_id: str) -> StoredJob | None:
        pipe = self.client.pipeline()
        pipe.hmget(
            self._job(job_id),
            ["spec", "status", "error", "decision_bytes", "finished_at", "attempts"],
        )
        pipe.lrange(self._job(job_id, "d"), 0, -1)
        (spec, status, error, size, finished, attempts), decisions = self.shared.call(pipe.execute)
        if spec is None or status is None:
            return None
        return StoredJob(
            spec=json.loads(spec),
            status=status.decode(),
            error=json.loads(error) if error else None,
            decisions=[json.loads(d) for d in decisions],
            decision_bytes=int(size or 0),
            finished_at=float(finished) if finished else None,
            attempts=int(attempts or 0),
        )

    def answer(self, job_id: str) -> bytes | None:
        return self.shared.call(self.client.hget, self._job(job_id), "answer")

    def status(self, job_id: str) -> str | None:
        found = self.shared.call(self.client.hget, self._job(job_id), "status")
        return None if found is None else found.decode()

    def transition(
        self, job_id: str, to: str, allowed: tuple[str, ...], error: dict[str, Any] | None = None
    ) -> bool:
        text = json.dumps(error, separators=(",", ":")) if error is not None else ""
        return bool(self._transition([self._job(job_id)], [to, text, *allowed]))

    def add_decision(self, job_id: str, decision: dict[str, Any], size: int) -> None:
        pipe = self.client.pipeline()
        pipe.rpush(self._job(job_id, "d"), json.dumps(decision, separators=(",", ":")))
        pipe.hincrby(self._job(job_id), "decision_bytes", size)
        pipe.expire(self._job(job_id, "d"), self.ttl)
        self.shared.call(pipe.execute)

    def claim(self, job_id: str, token: str) -> str:
        keys = [self._job(job_id), self._job(job_id, "hb")]
        error = json.dumps(WORKER_DIED)
        found = self._claim(keys, [token, int(HEARTBEAT_TTL_S * 1000), MAX_WORKER_DEATHS, error])
        return found.decode() if isinstance(found, bytes) else str(found)

    def heartbeat(self, job_id: str, token: str) -> bool:
        keys = [self._job(job_id, "hb"), self._job(job_id), self._job(job_id, "d")]
        return bool(self._heartbeat(keys, [token, int(HEARTBEAT_TTL_S * 1000), self.ttl]))

    def release(self, job_id: str, token: str) -> None:
        self._release([self._job(job_id, "hb")], [token])

    def retry_or_fail(self, job_id: str) -> str | None:
        keys = [self._job(job_id), self._job(job_id, "hb")]
        found = self._retry(keys, [MAX_WORKER_DEATHS, json.dumps(WORKER_DIED)])
        return found.decode() if isinstance(found, bytes) else None

    def finish(self, job_id: str, answer: bytes, size: int) -> None:
        keys = [
            self._job(job_id),
            self._job(job_id, "d"),
            self.shared.key("jobs", "live"),
            self.shared.key("jobs", "done"),
            self.shared.key("jobs", "sizes"),
            self.shared.key("jobs", "bytes"),
        ]
        args = [
            job_id,
            answer,
            size,
            time.time(),
            self.ttl,
            self.keep_bytes,
            self.keep,
            self.shared.key("job") + ":",
        ]
        self._finish(keys, args)

    def _live_states(self) -> list[tuple[str, str, str | None, bool]]:
        """(id, client, status, has a heartbeat) of each live id."""
        found = self.shared.call(self.client.hgetall, self.shared.key("jobs", "live"))
        clients = {k.decode(): v.decode() for k, v in found.items()}
        if not clients:
            return []
        pipe = self.client.pipeline()
        for job_id in clients:
            pipe.hget(self._job(job_id), "status")
            pipe.exists(self._job(job_id, "hb"))
        states = self.shared.call(pipe.execute)
        out = []
        for i, (job_id, client) in enumerate(clients.items()):
            status = states[2 * i]
            out.append((job_id, client, status and status.decode(), bool(states[2 * i + 1])))
        return out

    def live(self) -> dict[str, tuple[str, str]]:
        return {j: (c, s) for j, c, s, _ in self._live_states() if s is not None}

    def stale(self) -> list[tuple[str, str]]:
        """Live jobs past 'queued' without a heartbeat; forgets live ids whose job expired."""
        states = self._live_states()
        gone = [j for j, _, s, _ in states if s is None]
        if gone:
            self.shared.call(self.client.hdel, self.shared.key("jobs", "live"), *gone)
        return [(j, s) for j, _, s, beating in states if s not in (None, "queued") and not beating]

    def match_job(self, match_id: str, seat: int) -> str | None:
        found = self.shared.call(
            self.client.get, self.shared.key("jobs", "match", match_id, str(seat))
        )
        return None if found is None else found.decode()

    def set_match_job(self, match_id: str, seat: int, job_id: str) -> None:
        key = self.shared.key("jobs", "match", match_id, str(seat))
        self.shared.call(self.client.set, key, job_id, ex=self.ttl)

    def info(self) -> dict[str, Any]:
        pipe = self.client.pipeline()
        pipe.zcard(self.shared.key("jobs", "done"))
        pipe.get(self.shared.key("jobs", "bytes"))
        finished, total = self.shared.call(pipe.execute)
        return {
            "backend": "redis",
            **live_figures(self._live_created(), time.time()),
            "finished": finished,
            "finished_bytes": int(total or 0),
        }

    def _live_created(self) -> list[tuple[str, float | None]]:
        """``(status, created at)`` of each live job: the creation time read for the queued
        ones only (few: the service bounds its live jobs), in one round trip."""
        live = self.live()
        queued = [j for j, (_, status) in live.items() if status == "queued"]
        created: dict[str, float | None] = {}
        if queued:
            pipe = self.client.pipeline()
            for job_id in queued:
                pipe.hget(self._job(job_id), "created_at")
            found = self.shared.call(pipe.execute)
            # A job created before the field was written has none (its age is not known).
            created = {j: float(c) if c else None for j, c in zip(queued, found, strict=True)}
        return [(status, created.get(j)) for j, (_, status) in live.items()]

    def close(self) -> None:
        pass


def job_store(config: Any, shared: Any | None) -> JobStore:
    """The Redis store with ``--redis``, else the in-memory one."""
    bounds = (config.review_ttl_s, config.review_keep, config.review_keep_bytes)
    if shared is not None:
        return RedisJobStore(shared, *bounds)
    return MemoryJobStore(*bounds)


# --- the queue ----------------------------------------------------------------------------------
class JobQueue:
    """Dramatiq on a broker of its own (one per app), with an in-process ``Worker`` that runs
    ``handler(job_id)`` for each message, on ``threads`` threads."""

    def __init__(self, broker: Any, handler: Callable[[str], None], threads: int) -> None:
        import dramatiq

        self.broker = broker
        self.threads = threads
        self.actor = dramatiq.actor(
            handler, broker=broker, actor_name=ACTOR_NAME, queue_name=QUEUE_NAME
        )
        self._worker: Any = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Starts this instance's worker (idempotent): from then on it takes jobs from the
        queue, whichever instance enqueued them."""
        with self._lock:
            if self._worker is not None:
                return
            from dramatiq import Worker

            worker = Worker(self.broker, worker_threads=self.threads, worker_timeout=500)
            # Takes no more messages than it has threads: a waiting job stays in the shared
            # queue for another instance instead of in this one's memory.
            worker.queue_prefetch = self.threads
            worker.start()
            self._worker = worker

    def enqueue(self, job_id: str) -> None:
        self.start()
        self.actor.send(job_id)

    def close(self) -> None:
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop(timeout=2000)
        self.broker.close()
        client = getattr(self.broker, "client", None)  # the Redis broker's own connections
        if client is not None:
            client.close()


def job_queue(config: Any, shared: Any | None, handler: Callable[[str], None]) -> JobQueue:
    """Dramatiq's ``RedisBroker`` on the fleet's Redis with ``--redis`` (its keys under the
    deployment's prefix), else its in-process ``StubBroker``."""
    if shared is not None:
        from dramatiq.brokers.redis import MAINTENANCE_SCALE, RedisBroker

        broker = RedisBroker(
            url=shared.url,
            middleware=[],
            namespace=f"{config.redis_prefix}-dramatiq",
            # A message prefetched by a killed instance goes back to the queue this soon.
            heartbeat_timeout=int(HEARTBEAT_TTL_S * 2000),
            maintenance_chance=MAINTENANCE_SCALE // 100,
        )
    else:
        from dramatiq.brokers.stub import StubBroker

        broker = StubBroker(middleware=[])
    return JobQueue(broker, handler, config.review_max_running)
