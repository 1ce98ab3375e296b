"""Search worker processes with a hard deadline per request.

Python search holds the GIL, so searches run in separate processes, one per core by default.
``concurrent.futures.ProcessPoolExecutor`` cannot serve here: it cannot stop one overrunning
task, and one dead worker breaks the whole pool (every pending future fails). This pool keeps
one pipe per worker instead, so each request owns its worker while it runs:

* a request waits at most ``queue_timeout`` for an idle worker, else ``PoolBusy`` (503);
* it then waits at most its deadline (budget plus a margin) for the answer; past it the worker
  is killed and replaced, and only that request fails (``DeadlineExceeded``);
* a worker that dies mid-request fails only that request (``WorkerDied``) and is replaced.

Long jobs' tasks (``JOB_KINDS``: a review's decisions and luck split, an analysis's positions)
run in a lane of their own at a lower priority, so that interactive work (hints, validations,
match moves) always finds a worker: a job task takes a worker only while no interactive request
is waiting for one and another stays free after it (with one worker: only while nobody waits),
and at most ``size - 1`` job tasks run at once (at least 1). Jobs wait for their turn;
interactive requests never wait for a job's worker beyond the one task it is running with a
single worker.

Only JSON text crosses the pipes (game name, parameters, infoset, bot spec, budget, seed), never
pickled states.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import queue
import selectors
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from server.pool_errors import (  # the pool's failures, re-exported
    DeadlineExceeded,
    PoolBusy,
    PoolClosed,
    PoolError,
    WorkerDied,
)

__all__ = ["DeadlineExceeded", "PoolBusy", "PoolClosed", "PoolError", "SearchPool", "WorkerDied"]

log = logging.getLogger("atelier.server.pool")

PRELOAD = ["server.tasks"]
# Task kinds of long jobs, served in the job lane (module docstring).
JOB_KINDS = frozenset({"review_decision", "review_luck", "analysis_position"})
JOB_POLL_S = 0.02  # how often a waiting job task looks for a free worker
WARM_TIMEOUT_S = 60.0  # longest a worker may take to warm up before it is replaced
WARM_RETRY_S = 1.0  # pause before replacing a worker that died warming up (no spawn loop)
STOP = b"null"  # asks an idle worker to exit (EOF alone is not enough under "fork", where
# later workers inherit copies of the parent's ends of earlier workers' pipes)


def _worker_main(conn: Connection, nice: int = 0, warm_up_ms: float = 0.0) -> None:
    """Loop of a worker process: warm up and say so, then read one JSON task, answer one JSON
    result, repeat."""
    # The server handles Ctrl-C and shutdown; a worker just ends when its pipe closes.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice > 0:
        # Searches fill every core for their whole budget; a lower priority lets the HTTP
        # process pick up answers and new requests at once instead of queueing for a core.
        os.nice(nice)
    from server.tasks import run_task
    from server.warmup import degradation, warm_up

    # The first message: the worker is warm (``SearchPool._bring_up`` offers it work only now).
    try:
        conn.send_bytes(json.dumps({"warm": warm_up(warm_up_ms), "pid": os.getpid()}).encode())
    except (OSError, ValueError):
        return
    while True:
        try:
            raw = conn.recv_bytes()
        except (EOFError, OSError):
            return
        received = time.perf_counter()
        cpu = time.process_time()
        if raw == STOP:
            return
        try:
            kind, payload = json.loads(raw)
        except ValueError as err:  # pragma: no cover - the parent only sends valid JSON
            conn.send_bytes(json.dumps({"error": {"status": 500, "message": str(err)}}).encode())
            continue
        result = run_task(kind, payload, received)
        wall_s, cpu_s = time.perf_counter() - received, time.process_time() - cpu
        degraded = degradation(kind, payload, result, wall_s, cpu_s)
        if degraded is not None:
            result["ok"]["degraded"] = degraded
        try:
            conn.send_bytes(json.dumps(result).encode())
        except (OSError, ValueError):
            return


def _readable(conn: Connection, timeout: float) -> bool:
    """Whether ``conn`` has data within ``timeout`` seconds.

    ``Connection.poll`` waits with a selector class that ``multiprocessing`` picked when it was
    imported; under gunicorn's gevent worker that is the unpatched one, and the wait would
    stall every other connection. ``selectors.DefaultSelector`` looked up here, at call time,
    is gevent's cooperative one there and the plain one elsewhere.
    """
    with selectors.DefaultSelector() as selector:
        selector.register(conn.fileno(), selectors.EVENT_READ)
        return bool(selector.select(timeout))


@dataclass(eq=False)
class _Worker:
    process: Any
    conn: Connection
    started: float
    served: int = 0
    busy: bool = False


class SearchPool:
    """A fixed number of worker processes, each owned by one request at a time."""

    def __init__(
        self,
        size: int,
        start_method: str = "forkserver",
        queue_timeout: float = 5.0,
        nice: int = 0,
        job_kinds: frozenset[str] = JOB_KINDS,
        warm_up_ms: float = 0.0,
        warm_timeout: float = WARM_TIMEOUT_S,
    ) -> None:
        self.size = size
        self.warm_up_ms = warm_up_ms
        self.warm_timeout = warm_timeout
        self._warming = 0  # workers started and not yet warm
        self._ready = threading.Event()  # every worker of the first start warmed up
        self.last_warm_up: dict[str, Any] | None = None
        self.job_kinds = job_kinds
        self.job_slots = max(1, size - 1)
        self._jobs_running = 0
        self._waiting = 0  # interactive requests waiting for a worker
        self.nice = nice
        self.queue_timeout = queue_timeout
        self._ctx = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            self._ctx.set_forkserver_preload(PRELOAD)
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._started = False
        self._closed = False
        self.stats = {
            "tasks": 0,
            "errors": 0,
            "busy": 0,
            "timeouts": 0,
            "deaths": 0,
            "restarts": 0,
            "job_tasks": 0,
            "warm_ups": 0,
            "warm_up_failures": 0,
        }

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Starts the workers (done lazily by the first request otherwise) and returns at once;
        each is offered work once warm, and ``ready`` says when all of them are."""
        with self._lock:
            if self._closed:
                raise PoolClosed("the search pool is shut down")
            if self._started:
                return
            self._started = True
        for _ in range(self.size):
            self._launch(self._spawn())

    @property
    def ready(self) -> bool:
        """Whether every worker of the first start has warmed up (a worker replaced later,
        after a crash, warms up too, but the pool stays ready with the others meanwhile)."""
        return self._ready.is_set()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Waits until ``ready`` (at most ``timeout`` seconds); says whether it is."""
        return self._ready.wait(timeout)

    def _launch(self, worker: _Worker) -> None:
        """Has ``worker`` warmed up in a thread of its own (a greenlet under gevent), which
        then offers it work; a request never waits on another worker's warm-up."""
        with self._lock:
            self._warming += 1
        threading.Thread(
            target=self._bring_up, args=(worker,), name="atelier-warm-up", daemon=True
        ).start()

    def _bring_up(self, worker: _Worker) -> None:
        """Waits for ``worker``'s warm-up report, then puts it with the idle workers; a worker
        that dies or overruns ``warm_timeout`` warming up is replaced, after a pause."""
        report = None
        with contextlib.suppress(EOFError, OSError, ValueError):
            if _readable(worker.conn, self.warm_timeout):
                report = json.loads(worker.conn.recv_bytes())
        with self._lock:
            closed = self._closed
            if report is None:
                self.stats["warm_up_failures"] += 1
            else:
                self._warming -= 1
                self.stats["warm_ups"] += 1
                self.last_warm_up = report
                if self._warming == 0 and not closed:
                    self._ready.set()
        if report is not None:
            if not closed:
                self._idle.put(worker)
            return
        if not closed:
            log.error(
                "search worker %s did not warm up (exit code %s); replacing it",
                worker.process.pid,
                worker.process.exitcode,
            )
            time.sleep(WARM_RETRY_S)
            self._retire(worker)  # launches the replacement, which counts as warming
        with self._lock:
            self._warming -= 1

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe(duplex=True)
        for end in (parent, child):
            # Under gevent's monkey patching the socket pair comes back non-blocking, and a
            # worker reading a non-blocking pipe would stop at its first idle moment.
            os.set_blocking(end.fileno(), True)
        process = self._ctx.Process(
            target=_worker_main,
            args=(child, self.nice, self.warm_up_ms),
            name="atelier-search",
            daemon=True,
        )
        process.start()
        child.close()
        worker = _Worker(process, parent, time.monotonic())
        with self._lock:
            self._all.add(worker)
        return worker

    def _retire(self, worker: _Worker) -> None:
        """Kills ``worker`` (if still alive) and puts a fresh one in its place."""
        with self._lock:
            self._all.discard(worker)
            closed = self._closed
        with contextlib.suppress(OSError):
            worker.conn.close()
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(timeout=5)
        if closed:
            return
        try:
            replacement = self._spawn()
        except Exception:  # pragma: no cover - e.g. out of processes; next request retries
            log.exception("could not start a replacement search worker")
            threading.Timer(1.0, self._refill).start()
            return
        with self._lock:
            self.stats["restarts"] += 1
        self._launch(replacement)

    def _refill(self) -> None:  # pragma: no cover - only after a failed spawn
        with self._lock:
            missing = 0 if self._closed else self.size - len(self._all)
        for _ in range(missing):
            self._launch(self._spawn())

    def close(self) -> None:
        """Stops every worker; further requests get ``PoolClosed``."""
        with self._lock:
            self._closed = True
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            with contextlib.suppress(OSError, ValueError):
                if not worker.busy:
                    worker.conn.send_bytes(STOP)
                worker.conn.close()
        for worker in workers:
            worker.process.join(timeout=1)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=5)

    # --- requests ----------------------------------------------------------------------------
    def run(
        self,
        kind: str,
        payload: dict[str, Any],
        deadline: float,
        on_start: Callable[[], None] | None = None,
    ) -> dict[str, Any]:
        """Runs task ``kind`` in a worker; ``deadline`` seconds after it starts, gives up.

        ``on_start`` is called once a worker is ours (the cost limits time from there, not
        from the wait in the queue).
        """
        if not self._started:
            self.start()
        if self._closed:
            raise PoolClosed("the search pool is shut down")
        if not self.wait_ready(self.warm_timeout):
            raise PoolBusy(
                f"the search workers did not warm up within {self.warm_timeout:.0f} s; retry later"
            )
        job = kind in self.job_kinds
        worker = self._acquire_job() if job else self._acquire()
        if on_start is not None:
            on_start()
        healthy = False
        worker.busy = True
        try:
            message = json.dumps([kind, payload]).encode()
            try:
                worker.conn.send_bytes(message)
                if not _readable(worker.conn, deadline):
                    with self._lock:
                        self.stats["timeouts"] += 1
                    raise DeadlineExceeded(
                        f"the search did not finish within its deadline of {deadline * 1000:.0f} ms"
                    )
                raw = worker.conn.recv_bytes()
            except (EOFError, OSError) as err:
                with self._lock:
                    self.stats["deaths"] += 1
                code = worker.process.exitcode
                raise WorkerDied(
                    f"the search worker exited while serving this request (exit code {code})"
                ) from err
            result = json.loads(raw)
            healthy = True
            worker.served += 1
            with self._lock:
                self.stats["tasks"] += 1
                if "error" in result:
                    self.stats["errors"] += 1
            return result
        finally:
            worker.busy = False
            if job:
                with self._lock:
                    self._jobs_running -= 1
            if healthy:
                self._idle.put(worker)
            else:
                self._retire(worker)

    def _acquire(self) -> _Worker:
        """An idle, live worker; one that died while idle is replaced, not handed out."""
        with self._lock:
            self._waiting += 1
        try:
            return self._acquire_interactive()
        finally:
            with self._lock:
                self._waiting -= 1

    def _acquire_job(self) -> _Worker:
        """A worker for a job task, under the job lane's rules (module docstring); waits at
        most ``queue_timeout`` like any request, then ``PoolBusy`` (a job retries later)."""
        until = time.monotonic() + self.queue_timeout
        spare = 1 if self.size > 1 else 0
        while True:
            worker = None
            with self._lock:
                if (
                    self._jobs_running < self.job_slots
                    and self._waiting == 0
                    and self._idle.qsize() > spare
                ):
                    with contextlib.suppress(queue.Empty):
                        worker = self._idle.get_nowait()
                if worker is not None and spare and self._idle.qsize() == 0:
                    # An interactive request took a worker meanwhile: this was the last free.
                    self._idle.put(worker)
                    worker = None
                if worker is not None:
                    self._jobs_running += 1
                    self.stats["job_tasks"] += 1
            if worker is not None:
                if worker.process.is_alive():
                    return worker
                with self._lock:
                    self._jobs_running -= 1
                    self.stats["deaths"] += 1
                self._retire(worker)
                continue
            if time.monotonic() >= until:
                with self._lock:
                    self.stats["busy"] += 1
                raise PoolBusy(
                    f"no search worker was free for a job task for {self.queue_timeout:.1f} s "
                    "(jobs never take the last free worker)"
                )
            time.sleep(JOB_POLL_S)

    def _acquire_interactive(self) -> _Worker:
        until = time.monotonic() + self.queue_timeout
        while True:
            try:
                worker = self._idle.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                with self._lock:
                    self.stats["busy"] += 1
                raise PoolBusy(
                    f"all {self.size} search workers stayed busy for {self.queue_timeout:.1f} s"
                ) from None
            if worker.process.is_alive():
                return worker
            with self._lock:
                self.stats["deaths"] += 1
            self._retire(worker)

    def info(self) -> dict[str, Any]:
        with self._lock:
            alive = sum(1 for w in self._all if w.process.is_alive())
            pids = sorted(w.process.pid for w in self._all if w.process.pid)
            return {
                "size": self.size,
                "started": self._started,
                "alive": alive,
                "idle": self._idle.qsize(),
                "pids": pids,
                "busy_pids": sorted(w.process.pid for w in self._all if w.busy),
                "job_slots": self.job_slots,
                "jobs_running": self._jobs_running,
                "ready": self._ready.is_set(),
                "warming": self._warming,
                "last_warm_up": self.last_warm_up,
                **self.stats,
            }
