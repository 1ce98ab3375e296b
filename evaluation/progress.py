"""Progress of a long command on stderr: a tqdm bar on a terminal, plain lines in a log.

tqdm redraws its bar with ``\\r``; written into a redirected stderr (a log file, CI) that is a
run of overwritten fragments. ``Progress`` keeps the bar when the stream is a terminal and
otherwise prints one plain line now and then (every ``every_fraction`` of the total, or every
``every_s`` seconds, whichever comes first), e.g.
``reviewing seat 0: 4/13 decisions, 12 s, ~27 s left``. Any command counting work towards a
known total can use it (``update`` for one more done, ``set`` for a count reported whole):
``atelier review`` and ``atelier tournament`` do.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Any


class Progress:
    """``done``/``total`` of one piece of work, shown on ``file`` (stderr by default).

    The total may be unknown when the work starts (``set`` gives it with the first count): the
    bar is only drawn once it is known, so it starts as ``0/13``, never as a bare counter.
    ``initial`` units were done before this run (a resumed tournament's games): they cost no
    time, so the estimate of the time left counts only the units done since. ``at_most`` says
    the work may stop before its total (a sequential test), so the estimate is an upper bound.
    An empty ``desc`` prints lines with no label (``12/120 games, 40 s, ~36 min left``).
    """

    def __init__(
        self,
        desc: str,
        unit: str,
        total: int | None = None,
        initial: int = 0,
        file: IO[str] | None = None,
        every_fraction: float = 0.1,
        every_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        at_most: bool = False,
    ) -> None:
        self.desc, self.unit, self.at_most = desc, unit, at_most
        self.total, self.done, self.initial = total, initial, initial
        self.file = file if file is not None else sys.stderr
        self.every_fraction, self.every_s = every_fraction, every_s
        self.clock = clock
        self.started = clock()
        self.terminal = bool(getattr(self.file, "isatty", lambda: False)())
        self._bar: Any = None
        self._last_line: tuple[int, float] | None = None  # (done, time) of the last plain line

    def set(self, done: int, total: int | None = None) -> None:
        """``done`` units finished (of ``total``, when it is given or changes)."""
        if total is not None:
            self.total = total
        self.done = done
        self._show()

    def update(self, n: int = 1) -> None:
        """``n`` more units finished."""
        self.set(self.done + n)

    def close(self) -> None:
        """Removes the bar; in a log, the last count is printed if it was not yet."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif not self.terminal and self.total is not None and self._due(final=True):
            self._print_line(last=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- drawing ---------------------------------------------------------------------------------
    def _show(self) -> None:
        if self.total is None:
            return
        if self.terminal:
            self._draw_bar()
        elif self._due():
            self._print_line()

    def _draw_bar(self) -> None:
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(
                desc=self.desc,
                unit=self.unit,
                total=self.total,
                initial=self.done,
                file=self.file,
                leave=False,
                dynamic_ncols=True,
            )
        self._bar.total = self.total
        self._bar.n = self.done
        self._bar.refresh()

    def _due(self, final: bool = False) -> bool:
        """A plain line is due: the first, a step of ``every_fraction``, ``every_s`` seconds
        since the last, or (``final``) a count not yet printed."""
        if self._last_line is None:
            return True
        done, at = self._last_line
        if final:
            return self.done != done
        step = max(1, round(self.every_fraction * (self.total or 0)))
        return (
            self.done >= done + step
            or (self.done == self.total and done != self.total)
            or (self.done != done and self.clock() - at >= self.every_s)
        )

    def _print_line(self, last: bool = False) -> None:
        """One line; the ``last`` (the work is over: finished, decided or interrupted) has no
        estimate of the time left."""
        now = self.clock()
        elapsed = now - self.started
        text = f"{self.done}/{self.total} {self.unit}s, {duration(elapsed)}"
        if self.desc:
            text = f"{self.desc}: {text}"
        played = self.done - self.initial
        if not last and played > 0 and self.done < (self.total or 0):
            left = elapsed / played * (self.total - self.done)  # type: ignore[operator]
            text += f", ~{duration(left)} left" + (" at most" if self.at_most else "")
        print(text, file=self.file, flush=True)
        self._last_line = (self.done, now)


def duration(seconds: float) -> str:
    """``40 s``, ``6 min``, ``2.5 h``: an estimate, so rounded to what a reader needs."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
