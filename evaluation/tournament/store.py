"""The games file: one JSON line per finished game, appended as games finish, resumable.

Resuming reads the file back, checks that every line belongs to this tournament (same
fingerprint, an index in range, the seats the schedule says), drops a half-written last line
left by a kill, and tells the runner which games remain. Lines are written with a single
``write`` on a file opened for appending, so a killed run leaves at worst one partial last
line, never a torn line in the middle; a game in flight when the run was killed is simply
played again. A lock keeps two runs from appending to the same file at once.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from evaluation.tournament.spec import TournamentError, TournamentSpec

# Fields that are measured rather than computed: they differ between runs of the same game.
MEASURED = ("time",)


def deterministic_part(record: dict[str, Any]) -> dict[str, Any]:
    """A record without its measured fields: identical for the same game on any executor."""
    return {k: v for k, v in record.items() if k not in MEASURED}


class GamesFile:
    """The JSON-lines file of one tournament's games, opened for resuming and appending."""

    def __init__(self, path: str | os.PathLike[str], spec: TournamentSpec) -> None:
        self.path = Path(path)
        self.spec = spec
        self._fd: int | None = None

    # --- reading -----------------------------------------------------------------------------
    def load(self, restart: bool = False) -> dict[int, dict[str, Any]]:
        """Opens (and locks) the file; returns the games already played, by index.

        ``restart`` discards whatever the file held. Raises ``TournamentError`` with a
        readable reason for a file that is not this tournament's.
        """
        if self.path.is_dir():
            raise TournamentError(f"{self.path} is a directory; --out needs a file name")
        if not self.path.parent.exists():
            raise TournamentError(f"directory {self.path.parent} does not exist")
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as err:
            raise TournamentError(f"cannot open {self.path}: {err.strerror}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.close()
            raise TournamentError(
                f"{self.path} is being written by another tournament run; wait for it to end "
                "or choose another --out"
            ) from None
        if restart:
            os.ftruncate(self._fd, 0)
            return {}
        try:
            with open(self.path, "rb") as fh:
                data = fh.read()
        except OSError as err:
            self.close()
            raise TournamentError(f"cannot read {self.path}: {err.strerror}") from None
        try:
            return self._parse(data)
        except TournamentError:
            self.close()
            raise

    def _parse(self, data: bytes) -> dict[int, dict[str, Any]]:
        end = data.rfind(b"\n") + 1
        if end < len(data):
            # A line cut short by a kill: drop it, its game is played again.
            os.ftruncate(self._fd, end)
            data = data[:end]
        done: dict[int, dict[str, Any]] = {}
        schedule = None
        fingerprint = self.spec.fingerprint
        total = self.spec.total_games
        for lineno, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{self.path} line {lineno}"
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as err:
                raise TournamentError(
                    f"{where} is not valid JSON ({err}); is this a tournament games file?"
                ) from None
            if not isinstance(record, dict) or "tournament" not in record:
                raise TournamentError(f"{where} is not a tournament game record")
            if record["tournament"] != fingerprint:
                raise TournamentError(
                    f"{self.path} holds games of a different tournament (fingerprint "
                    f"{record['tournament']}, this one is {fingerprint}): the game, its "
                    "parameters, the bots, format, deals, seed or budget differ. Choose another "
                    "--out, or pass --restart to discard those games."
                )
            index = record.get("index")
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < total:
                raise TournamentError(f"{where}: game index {index!r} is not in 0..{total - 1}")
            if schedule is None:
                schedule = self.spec.schedule()
            expect = [self.spec.entrants[i].label for i in schedule[index].seats]
            if record.get("seats") != expect or record.get("deal") != schedule[index].deal:
                raise TournamentError(f"{where}: game {index} does not match the schedule")
            if index in done:
                if deterministic_part(done[index]) != deterministic_part(record):
                    raise TournamentError(
                        f"{where}: game {index} appears twice with different results"
                    )
                continue
            done[index] = record
        return done

    # --- writing -----------------------------------------------------------------------------
    def append(self, record: dict[str, Any]) -> None:
        """Writes one record as one line, in one ``write`` call."""
        assert self._fd is not None, "load() first"
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        view = memoryview(line)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # also releases the lock
            self._fd = None

    def __enter__(self) -> GamesFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
