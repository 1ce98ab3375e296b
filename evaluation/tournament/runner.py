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
) -> None:
    """Plays ``slots`` on ``handle``'s executor, calling ``on_record`` as each game finishes.

    At most two batches per worker are in flight, so memory stays flat for any tournament
    size and an interrupted run has little to throw away. A failed game stops the run with
    a ``TournamentError`` naming the game, seat and bot; games already reported are kept.
    """
    size = batch_size or auto_batch_size(len(slots), handle.parallelism)
    window = max(2, 2 * handle.parallelism)
    todo = iter(chunks(slots, size))
    pending: set[Future] = set()

    def fill() -> None:
        while len(pending) < window:
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
) -> Outcome:
    """Resumes or starts the tournament in games file ``out`` and returns its outcome.

    ``open_executor`` is a zero-argument context-manager factory yielding an
    ``ExecutorHandle``; it is only called when games remain, so re-running a finished
    tournament just recomputes the summary. ``progress(done, total)`` is called after every
    game; ``on_start(done, total, where)`` once before play starts.
    """
    total = spec.total_games
    with GamesFile(out, spec) as store:
        done = store.load(restart=restart)
        resumed = len(done)
        remaining = [s for s in spec.schedule() if s.index not in done]
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

                play_slots(spec, remaining, handle, keep, batch_size)
        records = sorted(done.values(), key=lambda r: r["index"])
    return Outcome(
        spec, records, resumed, len(records) - resumed, summary_for(spec, records, bootstrap)
    )
