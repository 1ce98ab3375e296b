"""The searches' freeze of the garbage collector (``bots.ismcts.collector``): shared by
overlapping searches, and a process's own freeze is never undone by a search."""

from __future__ import annotations

import gc
import importlib
import os
import threading

import pytest

from bots import Budget, make_bot
from bots.ismcts.collector import SEARCHES, SharedFreeze
from bots.protocol import Clock
from games.core.infoset import build_infoset
from tests.support import decision_states


def is_frozen(obj: object) -> bool:
    """Whether ``obj`` is in the permanent generation (``gc.get_objects`` lists the others)."""
    return not any(o is obj for o in gc.get_objects())


@pytest.fixture
def unfrozen():
    """Starts and ends with nothing frozen and no process freeze remembered, whatever the test
    froze."""
    gc.unfreeze()
    assert SEARCHES.depth == 0
    SEARCHES.process_froze = False
    yield
    gc.unfreeze()
    SEARCHES.process_froze = False


def hint(seed: int = 0) -> None:
    defn, params, states = decision_states("gallery_rush", seed=3, count=2, params={"players": 3})
    engine = states[-1]
    infoset = build_infoset(defn, params, engine, engine.current_player())
    make_bot({"name": "ismcts"}).hint(defn, params, infoset, Budget(simulations=40), seed=seed)


def test_a_process_frozen_before_a_search_stays_frozen(unfrozen):
    kept = [object()]
    gc.freeze()  # a server freezing after its warm-up
    later = [object()]  # made after the process's freeze: the search freezes nothing more
    hint()
    assert is_frozen(kept) and not is_frozen(later)
    assert SEARCHES.process_froze  # remembered: the next searches do not count again
    hint(seed=1)
    assert is_frozen(kept) and not is_frozen(later)


def test_a_search_inside_another_keeps_the_outer_ones_freeze_and_both_restore_it(
    unfrozen, monkeypatch
):
    """The outer search's first budget check runs a whole other search: when that one ends,
    the outer one still runs frozen; when both have ended, nothing is frozen, as before."""
    seen: list[tuple[int, int]] = []

    class NestingClock(Clock):
        def running(self) -> bool:
            if not seen:
                seen.append((SEARCHES.depth, 0))
                hint(seed=1)
                seen.append((SEARCHES.depth, gc.get_freeze_count()))
            return super().running()

    clocks = iter([NestingClock, Clock, Clock])
    search_module = importlib.import_module("bots.ismcts.search")  # not the function
    monkeypatch.setattr(search_module, "Clock", lambda *a: next(clocks)(*a))
    hint()
    assert seen[0][0] == 1  # the outer search runs
    depth, count = seen[1]
    assert depth == 1 and count > 0  # the inner one ended and left the outer one frozen
    assert gc.get_freeze_count() == 0
    assert SEARCHES.depth == 0


def test_searches_that_end_in_another_order_than_they_began_share_one_freeze(unfrozen):
    """Thread A enters, B enters, A leaves (B still frozen), B leaves: as before."""
    freeze = SharedFreeze()
    a_in, a_out = threading.Event(), threading.Event()

    def first() -> None:
        with freeze:
            a_in.set()
            a_out.wait(10)

    thread = threading.Thread(target=first)
    thread.start()
    assert a_in.wait(10)
    with freeze:
        count = gc.get_freeze_count()
        assert count > 0 and freeze.depth == 2
        a_out.set()
        thread.join(10)
        assert freeze.depth == 1
        assert gc.get_freeze_count() > 0  # A's end did not unfreeze B's search
    assert gc.get_freeze_count() == 0
    assert freeze.depth == 0


def test_an_error_in_the_search_still_ends_its_freeze(unfrozen):
    freeze = SharedFreeze()
    with pytest.raises(ZeroDivisionError), freeze:
        1 / 0  # noqa: B018
    assert gc.get_freeze_count() == 0 and freeze.depth == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_during_a_search_starts_with_none_running(unfrozen):
    """The child has no search running: depth 0, the inherited freeze undone, a usable lock."""
    with SEARCHES:
        pid = os.fork()
        if pid == 0:  # the child: report through the exit status only
            ok = SEARCHES.depth == 0 and gc.get_freeze_count() == 0
            with SEARCHES:
                ok = ok and gc.get_freeze_count() > 0
            os._exit(0 if ok and gc.get_freeze_count() == 0 else 1)
        _, status = os.waitpid(pid, 0)
        assert SEARCHES.depth == 1 and gc.get_freeze_count() > 0
    assert os.waitstatus_to_exitcode(status) == 0
    assert gc.get_freeze_count() == 0
