"""This instance's wall clock, in the one place that reads it for matches.

``now()`` is ``time.time()`` plus ``ATELIER_CLOCK_OFFSET_S`` (seconds, default 0), an offset
meant for tests only: it gives one ``atelier serve`` of a fleet a clock a few seconds off, as a
machine whose clock drifts would have, without changing the machine's clock. Decisions that
several instances must agree on (a match's expiry, the matches a quota counts) do not use this
clock but the database's (``server.store``), so an offset must not change them; what still
uses it is local only (how often this instance purges expired matches).

A value that is not a number is refused when the module is imported, naming the variable.
"""

from __future__ import annotations

import math
import os
import time

OFFSET_ENV = "ATELIER_CLOCK_OFFSET_S"


def _offset(text: str | None) -> float:
    """The offset ``text`` gives (``None`` or blank: 0); ``ValueError`` naming the variable."""
    if text is None or not text.strip():
        return 0.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(f"{OFFSET_ENV} must be a number of seconds, got {text!r}")
    return value


OFFSET_S = _offset(os.environ.get(OFFSET_ENV))


def now() -> float:
    """Seconds since the epoch by this instance's clock (offset included)."""
    return time.time() + OFFSET_S
