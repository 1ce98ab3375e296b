"""The clock every search deadline reads: wall time, or this thread's CPU time for benchmarks.

A ``milliseconds`` budget is wall time: the service promises an answer within it, whatever
else the machine is doing. A benchmark wants the other reading. On a shared machine a 500 ms
search gets whatever share of a core the other processes leave it (issue 45's 500 ms designs
rows were played at a 3-16% CPU share: a tenth of the search a quiet core gives), so a
strength table at a wall-time budget measures the load as much as the bot. Under
``measured_by("cpu")`` every deadline of a search (the budget's ``Clock``, the belief pool's
share, the weights' cut-off, an analysis's or a review's rounds) counts the calling thread's
CPU time (``time.thread_time``) instead: the search a quiet core gives in that many
milliseconds, reproducible under load up to the cache effects of sharing a core.

The setting is process-wide for the duration of the ``with`` block, not per thread, so it is
for processes that run one search at a time (tournaments, ``atelier bench strength``); the
service never sets it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
"""The clocks a budget's milliseconds can be counted in, by the name the CLIs take."""

_now: Callable[[], float] = time.perf_counter


def now() -> float:
    """Seconds on the clock in force: compare only with other ``now()`` readings."""
    return _now()


def current() -> Callable[[], float]:
    """The clock in force, for a loop that reads it every iteration (one call, not two)."""
    return _now


def check(name: str) -> str:
    """``name`` if it names a clock, else a ``ValueError`` that lists them."""
    if name not in CLOCKS:
        raise ValueError(f"unknown clock {name!r}; known: {sorted(CLOCKS)}")
    return name


@contextmanager
def measured_by(name: str) -> Iterator[None]:
    """Within the block every search deadline counts clock ``name`` ("wall" or "cpu")."""
    global _now
    chosen = CLOCKS[check(name)]
    previous, _now = _now, chosen
    try:
        yield
    finally:
        _now = previous
