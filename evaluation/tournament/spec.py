"""What a tournament is: the game, the bots, the format, the deals, and every game's seeds.

A tournament is a pure function of its ``TournamentSpec``: the list of games (``schedule``)
and each game's seeds are computed from the spec alone, never from the order in which games
were run or from the number of workers. That is what makes results identical across
executors and makes resuming exact.

Duplicate format: a *deal* fixes the chance outcomes (see ``play.py`` for exactly what is
shared); every lineup of bots plays every deal, and within a lineup every cyclic rotation of
the seats, so each bot sits in every seat over the same deals and seat or card luck cancels
out of the comparison.

Games are numbered deal-major: game ``i`` belongs to deal ``i // games_per_deal``, so a
tournament stopped early still has whole deals for every lineup at the front of its index
range.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

import games
from bots import Budget, InvalidBotSpec, make_bot, search_clock
from evaluation.params import resolve_alias
from games.core.seeds import derive_seed

# Bumped when the meaning of a game record or of the seeds changes; part of the fingerprint,
# so an old games file is never silently resumed with a new scheme.
SCHEMA = 1

LABEL_RE = re.compile(r"^[A-Za-z0-9_.+\-]{1,40}$")


class TournamentError(ValueError):
    """A tournament that cannot be set up or continued; the message says why and what to do."""


class Format(StrEnum):
    """Which lineups play.

    ``ROUND_ROBIN``: every set of distinct bots that fills the table (every pair in 2-player
    games); with fewer bots than seats, every multiset of bots that uses at least two of them.
    ``GAUNTLET``: the first bot against each other bot, which fills all the other seats.
    """

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"


@dataclass(frozen=True, slots=True)
class Entrant:
    """A bot in the tournament: a label unique in the tournament and its normalised spec."""

    label: str
    spec: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GameSlot:
    """One scheduled game: its index, deal, lineup, rotation and who sits where."""

    index: int
    deal: int
    lineup: int
    rotation: int
    seats: tuple[int, ...]  # entrant index per seat


def normalise_spec(spec: Any) -> dict[str, Any]:
    """The bot's full spec with every option's default filled in (``InvalidBotSpec`` if bad).

    Normalising makes ``"random"`` and ``{"name": "random"}`` the same bot, so the fingerprint
    and the records do not depend on how a spec was typed.
    """
    return make_bot(spec).spec()


def default_label(spec: Any) -> str:
    return spec if isinstance(spec, str) else str(spec.get("name", "bot"))


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that decides a tournament's games and results (and nothing that does not).

    Workers, executors and batch sizes are deliberately absent: they change how fast the
    games are played, never which games or what happens in them.
    """

    game: str
    params: dict[str, Any]
    entrants: tuple[Entrant, ...]
    format: Format = Format.ROUND_ROBIN
    deals: int = 10
    seed: int = 0
    budget: Budget = field(default_factory=lambda: Budget(simulations=1000))
    # The value estimate of the luck-corrected scores (``evaluation.luck``), or None for none.
    # Part of the definition (and fingerprint) only when set: old tournaments keep theirs.
    luck: dict[str, Any] | None = None
    # The clock a time budget counts (``bots.search_clock``): "wall", or "cpu" for strength
    # measured on a shared machine. Part of the definition only when "cpu", like ``luck``.
    clock: str = "wall"

    @classmethod
    def build(
        cls,
        game: str,
        params: dict[str, Any] | None,
        bots: list[tuple[str | None, Any]],
        format: Format | str = Format.ROUND_ROBIN,
        deals: int = 10,
        seed: int = 0,
        budget: Budget | None = None,
        luck: dict[str, Any] | bool | None = None,
        clock: str = "wall",
    ) -> TournamentSpec:
        """Validates everything up front so that workers never see a bad game or bot."""
        try:
            defn = games.definition(game)
        except KeyError as err:
            raise TournamentError(str(err.args[0])) from None
        full_params = defn.validate_params(params or {})  # InvalidParams names the parameter
        if len(bots) < 2:
            raise TournamentError("a tournament needs at least two bots (give --bot twice)")
        entrants: list[Entrant] = []
        for label, raw in bots:
            label = label or default_label(raw)
            if not LABEL_RE.match(label):
                raise TournamentError(
                    f"bot label {label!r} must be 1-40 letters, digits or _ . + - characters"
                )
            if any(e.label == label for e in entrants):
                raise TournamentError(
                    f"two bots are labelled {label!r}; give each its own label as LABEL=SPEC"
                )
            try:
                entrants.append(Entrant(label, normalise_spec(resolve_alias(raw))))
            except InvalidBotSpec as err:
                raise TournamentError(f"bot {label!r}: {err}") from None
        if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
            raise TournamentError(f"the number of deals must be >= 1, got {deals!r}")
        try:
            fmt = Format(format)
        except ValueError:
            raise TournamentError(
                f"unknown format {format!r}; known: {[f.value for f in Format]}"
            ) from None
        luck_setting = None
        if luck is not None and luck is not False:
            from evaluation.luck import InvalidLuckConfig, luck_config

            try:
                luck_setting = luck_config(game, None if luck is True else luck)
            except InvalidLuckConfig as err:
                raise TournamentError(f"--luck-corrected: {err}") from None
        try:
            search_clock.check(clock)
        except ValueError as err:
            raise TournamentError(f"--clock: {err}") from None
        if clock != "wall" and (budget is None or budget.milliseconds is None):
            raise TournamentError(
                f"--clock {clock} counts a time budget's milliseconds: give --milliseconds"
            )
        return cls(
            game=game,
            params=full_params,
            entrants=tuple(entrants),
            format=fmt,
            deals=deals,
            seed=seed,
            budget=budget or Budget(simulations=1000),
            luck=luck_setting,
            clock=clock,
        )

    # --- identity ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "game": self.game,
            "version": games.definition(self.game).version,
            "params": dict(self.params),
            "bots": [{"label": e.label, "spec": e.spec} for e in self.entrants],
            "format": self.format.value,
            "deals": self.deals,
            "seed": self.seed,
            "budget": self.budget.to_json(),
            **({"luck": dict(self.luck)} if self.luck is not None else {}),
            **({"clock": self.clock} if self.clock != "wall" else {}),
        }

    @cached_property
    def fingerprint(self) -> str:
        """16 hex digits naming this tournament; every game record carries it."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # --- the schedule ------------------------------------------------------------------------
    @property
    def players(self) -> int:
        return int(self.params["players"])

    @property
    def utility_range(self) -> float:
        numbers = games.definition(self.game).numbers(self.params)
        return float(numbers.max_utility - numbers.min_utility)

    @property
    def labels(self) -> list[str]:
        return [e.label for e in self.entrants]

    def lineups(self) -> list[tuple[int, ...]]:
        """The lineups (entrant indices, one per seat before rotation) in a fixed order."""
        n, b = self.players, len(self.entrants)
        if self.format is Format.GAUNTLET:
            return [(0, *([j] * (n - 1))) for j in range(1, b)]
        if b >= n:
            return list(itertools.combinations(range(b), n))
        return [c for c in itertools.combinations_with_replacement(range(b), n) if len(set(c)) > 1]

    @staticmethod
    def rotations(lineup: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The distinct cyclic rotations: seat ``s`` of rotation ``r`` gets ``lineup[s+r]``.

        A lineup that repeats with a shorter period (A B A B) has fewer distinct rotations;
        they still give every entrant every seat equally often.
        """
        n = len(lineup)
        seen: list[tuple[int, ...]] = []
        for r in range(n):
            seats = tuple(lineup[(s + r) % n] for s in range(n))
            if seats not in seen:
                seen.append(seats)
        return seen

    def _block(self) -> list[tuple[int, int, tuple[int, ...]]]:
        return [
            (j, r, seats)
            for j, lineup in enumerate(self.lineups())
            for r, seats in enumerate(self.rotations(lineup))
        ]

    @property
    def games_per_deal(self) -> int:
        return len(self._block())

    @property
    def total_games(self) -> int:
        return self.deals * self.games_per_deal

    def schedule(self) -> list[GameSlot]:
        """Every game of the tournament in index order."""
        block = self._block()
        return [
            GameSlot(d * len(block) + k, d, j, r, seats)
            for d in range(self.deals)
            for k, (j, r, seats) in enumerate(block)
        ]

    # --- seeds -------------------------------------------------------------------------------
    def deal_seed(self, deal: int) -> int:
        """Seeds the chance stream shared by every game of ``deal``."""
        return derive_seed("atelier-tournament", self.seed, "deal", deal)

    def game_seed(self, index: int) -> int:
        """Seeds the bots' per-move seeds of game ``index``."""
        return derive_seed("atelier-tournament", self.seed, "game", index)

    def task(self, slot: GameSlot) -> dict[str, Any]:
        """One game as plain data for a worker: nothing pickled but dicts, lists and ints."""
        return {
            "index": slot.index,
            "deal": slot.deal,
            "lineup": slot.lineup,
            "rotation": slot.rotation,
            "seed": self.game_seed(slot.index),
            "deal_seed": self.deal_seed(slot.deal),
            "seats": [self.entrants[i].label for i in slot.seats],
            "bots": [self.entrants[i].spec for i in slot.seats],
            **({"luck": dict(self.luck)} if self.luck is not None else {}),
        }

    def batch(self, slots: list[GameSlot]) -> dict[str, Any]:
        """Several games sharing one game, parameter set and budget, as one worker task."""
        return {
            "tournament": self.fingerprint,
            "game": self.game,
            "params": dict(self.params),
            "budget": self.budget.to_json(),
            "clock": self.clock,
            "games": [self.task(s) for s in slots],
        }
