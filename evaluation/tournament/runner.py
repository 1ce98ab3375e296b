"""Running a tournament: resume from the games file, play what remains, summarise.

The runner keeps a bounded window of batches in flight on any ``concurrent.futures``
executor and appends each game's record as soon as its batch comes back, so a kill loses at
most the batches in flight. The summary is computed from the records sorted by index, never
from the order they arrived in, so it does not depend on the executor, the worker count, the
batch size or on how many times the run was interrupted.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluation.tournament.executors import ExecutorHandle
from evaluation.tournament.play import play_batch
from evaluation.tournament.spec import GameSlot, TournamentError, TournamentSpec
from evaluation.tournament.sprt import Sprt, sprt_report
from evaluation.tournament.stats import summarize
from evaluation.tournament.store import GamesFile
from games.core.seeds import derive_seed

MAX_BATCH = 32


def auto_batch_size(remaining: int, parallelism: int) -> int:
    """About eight batches per worker: few enough round trips that a Dask cluster's per-task
    overhead stays small, enough batches that the last ones do not leave workers idle."""
    return max(1, min(MAX_BATCH, remaining // (parallelism * 8)))


def chunks(slots: list[GameSlot], size: int) -> Iterable[list[GameSlot]]:
    for start in range(0, len(slots), size):
        yield slots[start : start + size]


def play_slots(
    spec: TournamentSpec,
    slots: list[GameSlot],
    handle: ExecutorHandle,
    on_record: Callable[[dict[str, Any]], None],
    batch_size: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> None:
    """Plays ``slots`` on ``handle``'s executor, calling ``on_record`` as each game finishes.

    At most two batches per worker are in flight, so memory stays flat for any tournament
    size and an interrupted run has little to throw away. A failed game stops the run with
    a ``TournamentError`` naming the game, seat and bot; games already reported are kept.
    Once ``should_stop()`` says so (a sequential test has decided), no batch is started any
    more; batches already running finish and are kept.
    """
    size = batch_size or auto_batch_size(len(slots), handle.parallelism)
    window = max(2, 2 * handle.parallelism)
    todo = iter(chunks(slots, size))
    pending: set[Future] = set()

    stopping = False

    def fill() -> None:
        nonlocal stopping
        if not stopping and should_stop is not None and should_stop():
            stopping = True
            for future in pending:
                future.cancel()
        while not stopping and len(pending) < window:
            batch = next(todo, None)
            if batch is None:
                return
            pending.add(handle.executor.submit(play_batch, spec.batch(batch)))

    finished = False
    try:
        fill()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                pending.discard(future)
                if stopping and future.cancelled():
                    continue
                try:
                    records = future.result()
                except CancelledError:
                    raise TournamentError("the executor cancelled a batch of games") from None
                except Exception as err:
                    raise TournamentError(
                        f"a worker failed ({handle.description}): {type(err).__name__}: {err}"
                    ) from None
                for record in records:
                    if "error" in record:
                        raise TournamentError(record["error"])
                    on_record(record)
            fill()
        finished = True
    finally:
        if not finished:
            for future in pending:
                future.cancel()
            handle.abort()


@dataclass
class Outcome:
    """What a run did: how many games were already there, how many it played, the summary."""

    spec: TournamentSpec
    records: list[dict[str, Any]]
    resumed: int
    played: int
    summary: dict[str, Any]


def summary_for(spec: TournamentSpec, records: list[dict[str, Any]], bootstrap: int) -> dict:
    """The summary of ``records`` (any order) for ``spec``."""
    ordered = sorted(records, key=lambda r: r["index"])
    return summarize(
        {**spec.to_json(), "fingerprint": spec.fingerprint},
        ordered,
        planned=spec.total_games,
        bootstrap=bootstrap,
        bootstrap_seed=derive_seed("atelier-tournament", spec.seed, "bootstrap"),
        utility_range=spec.utility_range,
    )


def write_json(path: Path, data: Any) -> None:
    """Writes JSON atomically (temp file + rename): a reader never sees half a summary."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a summary is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_tournament(
    spec: TournamentSpec,
    out: str | os.PathLike[str],
    open_executor: Callable[[], Any],
    *,
    restart: bool = False,
    batch_size: int | None = None,
    bootstrap: int = 1000,
    progress: Callable[[int, int], Any] | None = None,
    on_start: Callable[[int, int, str], None] | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    sprt: Sprt | None = None,
) -> Outcome:
    """Resumes or starts the tournament in games file ``out`` and returns its outcome.

    ``open_executor`` is a zero-argument context-manager factory yielding an
    ``ExecutorHandle``; it is only called when games remain, so re-running a finished
    tournament just recomputes the summary. ``progress(done, total)`` is called after every
    game; ``on_start(done, total, where)`` once before play starts.

    ``sprt`` (two bots only) makes the deals a limit: play stops once the sequential test has
    decided, and the summary covers the deals up to the decision only (games that were still
    running then are kept in the file but left out), so it is the same however the games
    were run or resumed. The test's report is the summary's ``sprt`` field.
    """
    if sprt is not None and len(spec.entrants) != 2:
        raise TournamentError(
            f"--sprt tests one bot against another: give exactly two bots, got {len(spec.entrants)}"
        )
    total = spec.total_games
    with GamesFile(out, spec) as store:
        done = store.load(restart=restart)
        resumed = len(done)
        remaining = [s for s in spec.schedule() if s.index not in done]

        def decided() -> bool:
            return sprt_report(spec, done, sprt)["decision"] is not None

        if sprt is not None and decided():
            remaining = []
        if remaining:
            with open_executor() as handle:
                if on_start:
                    on_start(resumed, total, handle.description)

                def keep(record: dict[str, Any]) -> None:
                    store.append(record)
                    done[record["index"]] = record
                    if progress:
                        progress(len(done), total)
                    if on_record:
                        on_record(record)

                if sprt is not None:
                    batch_size = batch_size or spec.games_per_deal
                play_slots(
                    spec,
                    remaining,
                    handle,
                    keep,
                    batch_size,
                    should_stop=decided if sprt is not None else None,
                )
        records = sorted(done.values(), key=lambda r: r["index"])
    played = len(records) - resumed
    if sprt is None:
        return Outcome(spec, records, resumed, played, summary_for(spec, records, bootstrap))
    report = sprt_report(spec, done, sprt)
    used = [r for r in records if r["deal"] < report["deals"]]
    summary = summary_for(spec, used, bootstrap)
    summary["sprt"] = report
    return Outcome(spec, records, resumed, played, summary)
