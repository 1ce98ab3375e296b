"""The searches' freeze of the garbage collector, shared by every search of the process.

Why freeze: a search grows its tree by tens of thousands of objects, so the cyclic collector
runs full collections during it, and each traverses everything alive (the process's modules,
tables, the heuristics' memos). ``gc.freeze()`` moves every object alive into a permanent
generation that collections skip: over 12 Gallery Rush hints, 0.19 s of collection became
0.06 s (docs/bots.md).

Why not ``gc.freeze()`` / ``gc.unfreeze()`` around each search: ``gc.unfreeze()`` releases the
whole permanent generation, whoever froze it (there is no partial unfreeze), so a server that
froze after its warm-up (gunicorn's advice before forking workers) would lose its freeze to
the first search, and of two searches overlapping (threads, greenlets, a search run inside
another's loop) the first to end would unfreeze the other's. ``SharedFreeze`` instead:

* counts the searches running (a depth, under a lock): the first one in freezes, the last one
  out unfreezes; a search that starts while another runs finds the heap frozen already;
* freezes only when nothing is frozen (``gc.get_freeze_count() == 0``). A process that froze
  on its own keeps its freeze untouched, and its searches run without one of their own.
  Trade-off: their collections still traverse what was made since the process's freeze
  (what it froze, usually the bulk, they skip). Freezing on top would be worse: nothing could
  ever unfreeze those objects without undoing the process's freeze too, so every cycle alive
  at the search's start would stay uncollected for good;
* remembers such a process freeze (``process_froze``) and does not look again: the count
  walks the whole permanent generation (measured 7 ms for 260,000 objects, against
  microseconds for ``gc.freeze`` and ``gc.unfreeze``, which splice lists), so it is asked
  only by the first search in, while none of ours is frozen: instantly when nothing is, and
  once when a process's freeze is. For the same reason the searches' own freeze is never
  counted. A process that unfreezes later gets searches without a freeze (slower, never
  wrong);
* cannot see a freeze made by someone else *while* a search runs (that would take counting
  our own freeze): the last search out undoes it with its own. A process freezes before it
  serves, not during searches;
* resets in a forked child (``os.register_at_fork``): the child has no running search, so it
  gets a fresh lock (the parent's might be held) and depth 0, and it undoes a search's freeze
  it inherited, as that search would have.
"""

from __future__ import annotations

import gc
import os
import threading
from types import TracebackType


class SharedFreeze:
    """A context manager: the objects alive when the first of the overlapping ``with`` blocks
    began are frozen until the last one ends, unless the process froze on its own (module
    doc)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.depth = 0  # the ``with`` blocks running, in every thread
        self.ours = False  # whether the running blocks' freeze is ours to undo
        self.process_froze = False  # a freeze not ours was seen: never freeze in this process

    def __enter__(self) -> SharedFreeze:
        with self._lock:
            if self.depth == 0 and not self.process_froze:
                if gc.get_freeze_count() == 0:  # cheap: nothing frozen, nothing to walk
                    gc.freeze()
                    self.ours = True
                else:
                    self.process_froze = True
            self.depth += 1
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        with self._lock:
            self.depth -= 1
            if self.depth == 0:
                self._release()

    def _release(self) -> None:
        if self.ours:
            gc.unfreeze()
            self.ours = False

    def reset_after_fork(self) -> None:
        """In a forked child: no search runs there, whatever ran in the parent."""
        self._lock = threading.Lock()
        self.depth = 0
        self._release()


SEARCHES = SharedFreeze()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=SEARCHES.reset_after_fork)
