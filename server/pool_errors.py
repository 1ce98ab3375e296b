"""How the search pool fails, in a module of their own.

``server.errors`` maps these to 503 answers and ``server.pool`` raises them; the pool's
workers run ``server.tasks``, which reads ``server.errors``' table. Were the classes in
``server.pool``, that would be a cycle errors -> pool -> tasks -> errors (issue 44.5).
"""

from __future__ import annotations


class PoolError(Exception):
    """Base class: the pool could not produce an answer for this request."""


class PoolBusy(PoolError):
    """No worker became free within the queue timeout."""


class DeadlineExceeded(PoolError):
    """The worker did not answer before the deadline; it was killed and replaced."""


class WorkerDied(PoolError):
    """The worker exited (crash, kill) while serving the request; it was replaced."""


class PoolClosed(PoolError):
    """The pool has been shut down."""
