"""Progress of a tournament on stderr: a tqdm bar on a terminal, plain lines elsewhere.

tqdm redraws its bar with carriage returns, which a log file or CI console shows as one
ever-growing line (and ``disable=None`` hides it altogether off a terminal, so a long run
there said nothing until the end). Off a terminal a line such as
``12/120 games, 40 s, ~6 min left`` is written every ``EVERY_SECONDS`` instead, and once at
the end, each ending in a newline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TextIO

# Seconds between two plain progress lines: often enough to see a run is alive, rare enough
# that a day-long run writes a few thousand lines, not one per game.
EVERY_SECONDS = 30.0


def duration(seconds: float) -> str:
    """``40 s``, ``6 min``, ``2.5 h``: a duration at the precision a progress line needs."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class ProgressLines:
    """Plain progress lines for a stream that is not a terminal.

    The estimate of the time left uses the games played by this run only (resumed games cost
    nothing), and says "at most" when the run may stop early (a sequential test).
    """

    def __init__(
        self,
        total: int,
        initial: int,
        stream: TextIO,
        *,
        at_most: bool = False,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.done, self.initial = total, initial, initial
        self.stream, self.at_most, self.clock = stream, at_most, clock
        self.every = EVERY_SECONDS if every is None else every
        self.start = self.last = clock()
        self.shown = initial

    def line(self, last: bool = False) -> str:
        """``12/120 games, 40 s, ~6 min left``; the last line has no estimate (the run is
        over, finished, decided or interrupted)."""
        elapsed = self.clock() - self.start
        text = f"{self.done}/{self.total} games, {duration(elapsed)}"
        played = self.done - self.initial
        if not last and played > 0 and self.done < self.total:
            left = elapsed / played * (self.total - self.done)
            text += f", ~{duration(left)} left" + (" at most" if self.at_most else "")
        return text

    def write(self, last: bool = False) -> None:
        self.stream.write(self.line(last) + "\n")
        self.stream.flush()
        self.last, self.shown = self.clock(), self.done

    def update(self, n: int = 1) -> None:
        self.done += n
        if self.done >= self.total or self.clock() - self.last >= self.every:
            self.write()

    def close(self) -> None:
        """The last line, unless it was already written for the games done now."""
        if self.shown != self.done:
            self.write(last=True)


def progress_for(total: int, initial: int, stream: TextIO, *, at_most: bool = False) -> Any:
    """A tqdm bar when ``stream`` is a terminal, else ``ProgressLines``; both have
    ``update(n)`` and ``close()``."""
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        from tqdm import tqdm

        return tqdm(
            total=total,
            initial=initial,
            unit="game",
            file=stream,
            dynamic_ncols=True,
            smoothing=0.1,
        )
    return ProgressLines(total, initial, stream, at_most=at_most)
