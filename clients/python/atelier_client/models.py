"""Typed answers of the service.

Each class mirrors one response schema of the service's OpenAPI document (``SCHEMA``: the
operation whose answer it is); ``tests/test_client.py`` compares the fields with
``GET /openapi.json`` so that they cannot drift. Fields the schema requires have no default;
optional ones default to None. Every object keeps the answer it came from in ``raw``
(fields a newer service adds are there too).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

T = TypeVar("T", bound="Model")

# Fields of the client's own, not the service's (excluded from the OpenAPI comparison).
CLIENT_FIELDS = frozenset({"raw", "seat_token"})


@dataclass
class Model:
    """Base: ``from_json`` keeps the fields this class knows and converts nested ones."""

    # (method, path, status[, property]) of the operation whose answer this is (or of one
    # property of it: an array's items) in the OpenAPI document.
    SCHEMA: ClassVar[tuple[str, ...]] = ()
    # field -> Model class (a list of them when the field is a list).
    NESTED: ClassVar[dict[str, type[Model]]] = {}

    @classmethod
    def from_json(cls: type[T], data: dict[str, Any], **extra: Any) -> T:
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name in CLIENT_FIELDS or f.name not in data:
                continue
            value, kind = data[f.name], cls.NESTED.get(f.name)
            if kind is not None and isinstance(value, list):
                value = [kind.from_json(v) for v in value]
            elif kind is not None and isinstance(value, dict):
                value = kind.from_json(value)
            values[f.name] = value
        missing = [
            f.name
            for f in dataclasses.fields(cls)
            if f.name not in values
            and f.name not in CLIENT_FIELDS
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        ]
        if missing:
            raise ValueError(f"{cls.__name__}: the answer lacks {missing}: {str(data)[:300]}")
        return cls(**values, raw=data, **extra)


@dataclass
class Action(Model):
    """One action in its three forms; any of them can be played back."""

    SCHEMA = ("post", "/v1/games/{game}/hint", "200", "action")
    id: int
    struct: dict[str, Any]
    string: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class PolicyEntry(Model):
    SCHEMA = ("post", "/v1/games/{game}/hint", "200", "policy")
    id: int
    struct: dict[str, Any]
    string: str
    probability: float
    visits: int | None = None
    value: float | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Game(Model):
    """A game and its parameters (each with type, default, range or enum, doc)."""

    SCHEMA = ("get", "/v1/games", "200", "games")
    name: str
    long_name: str
    version: int
    min_players: int
    max_players: int
    params: list[dict[str, Any]]
    links: dict[str, str]
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Hint(Model):
    """A bot's suggestion for an information set: ``action.string`` is the move to play."""

    SCHEMA = ("post", "/v1/games/{game}/hint", "200")
    NESTED: ClassVar[dict[str, type[Model]]] = {"action": Action, "policy": PolicyEntry}
    game: str
    seat: int
    action: Action
    policy: list[PolicyEntry]
    value: float | None
    stats: dict[str, Any]
    cached: bool
    seed: int
    bot: dict[str, Any]
    budget: dict[str, Any]
    explain: dict[str, Any]
    policy_omitted: dict[str, Any] | None = None
    warnings: list[str] | None = None
    # The search's per-move table (value, 95% interval, visits, within_noise per move).
    analysis: dict[str, Any] | None = None
    # Set when the search got far less than its budget for the server's reasons (not cached).
    degraded: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Validation(Model):
    """The replay of an information set: whose turn it is and the seat's legal actions."""

    SCHEMA = ("post", "/v1/games/{game}/validate", "200")
    valid: bool
    seat: int
    terminal: bool
    to_move: str
    current_player: int | None
    your_turn: bool
    steps: int
    returns: list[float] | None
    view: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def legal_actions(self) -> list[dict[str, Any]]:
        return list(self.view.get("legal_actions") or [])


@dataclass
class Seat(Model):
    SCHEMA = ("get", "/v1/matches/{match_id}", "200", "seats")
    seat: int
    kind: str
    bot: dict[str, Any] | None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class SeatToken(Model):
    """The secret of one human seat: send it as ``X-Seat-Token`` (the client does)."""

    SCHEMA = ("post", "/v1/matches", "201", "tokens")
    seat: int
    token: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class MatchView(Model):
    """A hosted match as one seat sees it (``infoset`` and legal actions with a token; the
    public view without one). ``moves``: the steps the last request played."""

    SCHEMA = ("get", "/v1/matches/{match_id}", "200")
    NESTED: ClassVar[dict[str, type[Model]]] = {"seats": Seat}
    match_id: str
    game: str
    version: int
    params: dict[str, Any]
    seats: list[Seat]
    status: str
    step: int
    terminal: bool
    current_player: int | None
    to_move: str
    returns: list[float] | None
    events: list[dict[str, Any]]
    seat: int | None = None
    infoset: dict[str, Any] | None = None
    moves: list[dict[str, Any]] | None = None
    warning: str | None = None
    warnings: list[str] | None = None
    reproducible: bool | None = None
    retried: bool | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def legal_actions(self) -> list[dict[str, Any]]:
        """The seat's legal actions: ``{id, struct, string}`` entries, or compact ranges
        (``{"range": ..., "struct": ..., "ids": ..., "string": "bid 1 .. bid 10000"}``)."""
        view = (self.infoset or {}).get("view") or {}
        return list(view.get("legal_actions") or [])

    @property
    def your_turn(self) -> bool:
        return not self.terminal and self.seat is not None and self.current_player == self.seat


@dataclass
class Match(MatchView):
    """A new match: the first view plus one token per human seat (``token``: the first)."""

    SCHEMA = ("post", "/v1/matches", "201")
    NESTED: ClassVar[dict[str, type[Model]]] = {"seats": Seat, "tokens": SeatToken}
    tokens: list[SeatToken] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.match_id

    @property
    def token(self) -> str:
        return self.tokens[0].token

    def token_of(self, seat: int) -> str:
        for entry in self.tokens:
            if entry.seat == seat:
                return entry.token
        raise KeyError(f"seat {seat} is not a human seat of match {self.match_id}")


@dataclass
class ReviewProgress(Model):
    SCHEMA = ("get", "/v1/reviews/{review_id}", "200", "progress")
    done: int
    total: int
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class ReviewJob(Model):
    """A review job; ``review`` is there once ``status`` is ``done`` (partial when failed or
    cancelled). ``seat_token``: the seat token a match review is polled with (client side)."""

    SCHEMA = ("get", "/v1/reviews/{review_id}", "200")
    NESTED: ClassVar[dict[str, type[Model]]] = {"progress": ReviewProgress}
    id: str
    status: str
    progress: ReviewProgress
    url: str
    review: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    seat_token: str | None = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def done(self) -> int:
        return self.progress.done

    @property
    def total(self) -> int:
        return self.progress.total


@dataclass
class AnalysisJob(Model):
    """An analysis job (issue 38's contract): ``positions`` holds the positions analysed so
    far, each ``{"step", "played"?, "analysis": {...}}``."""

    SCHEMA = ("get", "/v1/analyses/{analysis_id}", "200")
    id: str
    status: str
    done: int
    total: int
    url: str
    positions: list[dict[str, Any]]
    error: dict[str, Any] | None = None  # why a failed job failed ({code, message})
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    seat_token: str | None = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def analysis(self) -> dict[str, Any] | None:
        """The last position's analysis (the one position of a single-position request)."""
        return self.positions[-1]["analysis"] if self.positions else None


FINISHED = frozenset({"done", "failed", "cancelled"})
