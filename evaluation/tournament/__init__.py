"""Tournaments: seeded, resumable, rated, and run on any ``concurrent.futures`` executor.

``spec`` says what a tournament is (game, bots, format, deals, seeds), ``play`` plays one
scheduled game in a worker, ``executors`` provides the process pool and Dask executors,
``store`` is the resumable JSON-lines games file, ``runner`` ties them together, ``stats``
computes the summary and ``report`` prints and plots it; ``sprt`` is the sequential test
and ``evaluation.luck`` the luck-corrected (AIVAT) scores. See ``docs/evaluation.md``.
"""

from evaluation.params import parse_bot_arg
from evaluation.tournament.executors import ExecutorHandle, SerialExecutor, open_executor
from evaluation.tournament.runner import Outcome, run_tournament, summary_for
from evaluation.tournament.spec import (
    Entrant,
    Format,
    GameSlot,
    TournamentError,
    TournamentSpec,
)
from evaluation.tournament.sprt import Sprt
from evaluation.tournament.store import GamesFile, deterministic_part
from games.core.seeds import derive_seed

__all__ = [
    "Entrant",
    "ExecutorHandle",
    "Format",
    "GameSlot",
    "GamesFile",
    "Outcome",
    "SerialExecutor",
    "Sprt",
    "TournamentError",
    "TournamentSpec",
    "derive_seed",
    "deterministic_part",
    "open_executor",
    "parse_bot_arg",
    "run_tournament",
    "summary_for",
]
