"""Where games run: this process, a local process pool, or a Dask ``distributed`` cluster.

The runner only needs a ``concurrent.futures.Executor`` and how many tasks it can run at
once. Tasks are plain data and the worker function is importable (``play_batch``), so any
executor gives the same records; only the speed differs.

* ``workers=0``: ``SerialExecutor``, everything in this process (debugging, tests).
* default: ``ProcessPoolExecutor``, one worker per core, started by a fork server that has
  already imported the games and bots (fast start, and safe even when this process has
  threads, unlike a plain fork).
* ``dask_address``: an existing Dask scheduler; ``Client.get_executor()`` is the executor and
  the parallelism is the number of worker threads the scheduler reports.
* ``dask_local=N``: a throwaway ``LocalCluster`` of N single-threaded worker processes bound
  to 127.0.0.1, without a dashboard, closed when the run ends.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from evaluation.tournament.spec import TournamentError

PRELOAD = ["games", "bots", "evaluation.tournament.play"]


class SerialExecutor(Executor):
    """Runs each task when it is submitted, in this process."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as err:
            future.set_exception(err)
        return future


@dataclass
class ExecutorHandle:
    """An executor, how many tasks it runs at once, and a description for messages."""

    executor: Executor
    parallelism: int
    description: str
    abort: Callable[[], None] = field(default=lambda: None)


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _ignore_sigint() -> None:
    # Ctrl-C goes to the whole process group; the parent handles it and stops the pool, so
    # workers must not die mid-task printing tracebacks of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def process_pool(workers: int) -> ProcessPoolExecutor:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_ignore_sigint)


def _terminate_pool(pool: ProcessPoolExecutor) -> None:
    """Stops the pool's workers now instead of letting them finish their current batch."""
    processes = dict(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes.values():
        if proc.is_alive():
            proc.terminate()


# A game is pure Python on one core, and every sample of Dask's statistical profiler (one
# stack walk per 10 ms by default) or of its memory monitor is taken from the same core.
# Tournament tasks need none of these watchdogs: slowed or off for the clusters we start.
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.gil.enabled": False,
    # Every process checks its event loop for blocking every 20 ms by default.
    "distributed.admin.tick.interval": "500ms",
}


def local_cluster(workers: int):
    """A Dask ``LocalCluster`` for this machine only: 127.0.0.1, no dashboard, quiet logs."""
    import dask
    from distributed import LocalCluster

    # The nannies hand this configuration to the worker processes they start.
    with dask.config.set(LOCAL_CLUSTER_CONFIG):
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            scheduler_port=0,
            dashboard_address=None,
            worker_dashboard_address=None,
            # The scheduler always serves a few HTTP routes (health, metrics); without this it
            # would take port 8787 on 127.0.0.1. No dashboard either way.
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.ERROR,
            # Workers whose scheduler vanished (the run was killed) exit by themselves.
            death_timeout="20s",
        )


def check_reachable(address: str) -> None:
    """Fails fast, with a readable message, on a malformed or unreachable scheduler address.

    Checked before a ``Client`` exists: a ``Client`` that failed to connect still tries to
    close itself when collected, which blocks for half a minute and prints a traceback.
    """
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as err:
        raise TournamentError(
            f"bad Dask scheduler address {address!r} ({err}); expected tcp://HOST:PORT"
        ) from None
    try:
        socket.create_connection((host, port), timeout=10).close()
    except OSError as err:
        raise TournamentError(
            f"cannot reach the Dask scheduler at {address}: {err.strerror or err}"
        ) from None


@contextmanager
def dask_client(address: str | None = None, local_workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address`` or for a new local cluster; closed on exit."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - distributed is a dependency
        raise TournamentError("Dask is not installed: pip install distributed") from None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if local_workers is not None:
        if local_workers < 1:
            raise TournamentError(f"--dask-local needs at least 1 worker, got {local_workers}")
        try:
            cluster = local_cluster(local_workers)
        except Exception as err:
            raise TournamentError(
                f"cannot start a local Dask cluster: {type(err).__name__}: {err}"
            ) from None
        try:
            client = Client(cluster, set_as_default=False)
            try:
                try:
                    client.wait_for_workers(local_workers, timeout=120)
                except TimeoutError:
                    raise TournamentError(
                        f"the local Dask cluster did not start {local_workers} workers in 120 s"
                    ) from None
                yield client
            finally:
                client.close()
        finally:
            cluster.close()
        return
    check_reachable(address)
    try:
        client = Client(address, timeout="15s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise TournamentError(f"cannot reach the Dask scheduler at {address}: {err}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=30)
        except TimeoutError:
            raise TournamentError(
                f"the Dask scheduler at {address} has no workers (start some with "
                f"'dask worker {address} --nthreads 1')"
            ) from None
        yield client
    finally:
        client.close()


def dask_parallelism(client: Any) -> int:
    return max(1, sum(client.nthreads().values()))


@contextmanager
def open_executor(
    workers: int | None = None,
    dask_address: str | None = None,
    dask_local: int | None = None,
) -> Iterator[ExecutorHandle]:
    """The executor the command line asked for, shut down (or aborted) on exit."""
    if dask_address is not None or dask_local is not None:
        with dask_client(dask_address, dask_local) as client:
            executor = client.get_executor(pure=False)
            where = (
                f"Dask local cluster ({dask_local} workers)"
                if dask_local is not None
                else f"Dask cluster at {dask_address}"
            )
            n = dask_parallelism(client)
            handle = ExecutorHandle(
                executor, n, f"{where}, {n} worker threads", lambda: executor.shutdown(wait=False)
            )
            try:
                yield handle
            finally:
                executor.shutdown(wait=False)
        return
    if workers == 0:
        yield ExecutorHandle(SerialExecutor(), 1, "this process (serial)")
        return
    n = workers or cpu_count()
    if n < 0:
        raise TournamentError(f"--workers must be >= 0, got {n}")
    pool = process_pool(n)
    handle = ExecutorHandle(pool, n, f"local process pool, {n} workers", lambda: None)
    handle.abort = lambda: _terminate_pool(pool)
    try:
        yield handle
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
