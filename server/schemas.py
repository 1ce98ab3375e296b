"""Request and response schemas: one definition validates requests and writes the OpenAPI doc.

Requests are parsed by strict pydantic models (no silent coercion: ``"3"`` is not a seat). The
parts whose rules live in the games and bots (parameters, the information set, bot specs) are
typed as plain JSON here and checked by ``games``/``bots`` themselves, whose errors already
name the field; their published JSON Schema comes from the same definitions (``ParamSpec``,
``GameDefinition``), so the docs cannot drift from what the code accepts.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from games.core.definition import GameDefinition
from server.errors import Unprocessable

MAX_SEED = 2**32 - 1
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


# --- JSON Schemas derived from the game definitions -----------------------------------------
def param_schema(spec: Any) -> dict[str, Any]:
    """JSON Schema of one game parameter, from the same ``ParamSpec`` that validates it."""
    info = spec.to_json()
    out: dict[str, Any] = {
        "type": info["type"],
        "default": info["default"],
        "description": info["doc"],
    }
    for key in ("minimum", "maximum", "enum"):
        if key in info:
            out[key] = info[key]
    return out


def params_schema(defn: GameDefinition) -> dict[str, Any]:
    return {
        "type": "object",
        "description": "game parameters; omitted ones take their defaults",
        "properties": {s.name: param_schema(s) for s in defn.param_specs},
        "additionalProperties": False,
    }


def event_schema(defn: GameDefinition) -> dict[str, Any]:
    """One public event: an object with a string ``type`` (enumerated if the game lists them)."""
    type_schema: dict[str, Any] = {"type": "string"}
    event_types = getattr(defn, "event_types", None)
    if event_types:
        type_schema["enum"] = list(event_types)
    return {
        "type": "object",
        "required": ["type"],
        "properties": {"type": type_schema},
        "additionalProperties": True,
    }


def infoset_schema(defn: GameDefinition | None = None) -> dict[str, Any]:
    """The information-set envelope of ``games.core.infoset``; per game when ``defn`` is given.

    The schema states the shape; whether the events can happen is decided by replay
    (``POST /v1/games/{game}/validate``), which no schema can express.
    """
    generic = defn is None
    seat: dict[str, Any] = {"type": "integer", "minimum": 0}
    if not generic:
        seat["maximum"] = defn.max_players - 1
    return {
        "title": "InfosetEnvelope" if generic else f"{defn.long_name} information set",
        "description": (
            "What one seat knows: parameters, seat, the public events of every step (chance "
            "included) and the hidden parts this seat saw, each tagged with its step index. "
            "'view' is derived and optional; when present it must match the replay."
        ),
        "type": "object",
        "required": ["game", "version", "params", "seat", "events", "private"],
        "properties": {
            "game": {"type": "string"} if generic else {"const": defn.name},
            "version": {"type": "integer"} if generic else {"const": defn.version},
            "params": {"type": "object"} if generic else params_schema(defn),
            "seat": seat,
            "events": {
                "type": "array",
                "items": event_schema(defn)
                if not generic
                else {
                    "type": "object",
                    "required": ["type"],
                    "properties": {"type": {"type": "string"}},
                },
            },
            "private": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["at"],
                    "properties": {"at": {"type": "integer", "minimum": 0}},
                },
            },
            "view": {"type": "object"},
        },
        "additionalProperties": False,
    }


def action_schema(defn: GameDefinition | None = None) -> dict[str, Any]:
    """An action struct: an object with a string ``type`` plus the fields that type needs."""
    type_schema: dict[str, Any] = {"type": "string"}
    action_types = getattr(defn, "action_types", None) if defn is not None else None
    if action_types:
        type_schema["enum"] = list(action_types)
    return {
        "title": "ActionStruct",
        "description": (
            "An action as readable JSON, exactly as listed in 'legal_actions[*].struct' of a "
            "view or a validate answer."
        ),
        "type": "object",
        "required": ["type"],
        "properties": {"type": type_schema},
        "additionalProperties": True,
    }


BOT_SPEC_SCHEMA: dict[str, Any] = {
    "description": 'A bot by name ("random") or {"name": ..., "options": {...}}; see /v1/bots.',
    "oneOf": [
        {"type": "string"},
        {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"type": "string"}, "options": {"type": "object"}},
            "additionalProperties": False,
        },
    ],
}

SEAT_SPEC_SCHEMA: dict[str, Any] = {
    "description": '"human" for a seat played through the API, or a bot spec.',
    "oneOf": [{"const": "human"}, *BOT_SPEC_SCHEMA["oneOf"]],
}

InfosetJson = Annotated[dict[str, Any], WithJsonSchema(infoset_schema())]
BotSpecJson = Annotated[Any, WithJsonSchema(BOT_SPEC_SCHEMA)]
SeatSpecJson = Annotated[Any, WithJsonSchema(SEAT_SPEC_SCHEMA)]
ActionJson = Annotated[
    dict[str, Any] | int,
    WithJsonSchema(
        {
            "description": "the action struct (preferred) or its id",
            "oneOf": [action_schema(), {"type": "integer", "minimum": 0}],
        }
    ),
]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED, description="explicit seed for every random choice")]


# --- requests --------------------------------------------------------------------------------
class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class BudgetIn(Strict):
    """Simulations and/or milliseconds, whichever ends first; capped by the configuration."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"minProperties": 1})

    simulations: Annotated[int, Field(ge=1)] | None = None
    milliseconds: Annotated[float, Field(gt=0)] | None = None


class HintRequest(Strict):
    """A stateless hint: the service samples worlds from ``infoset`` and asks the bot."""

    infoset: InfosetJson
    params: dict[str, Any] | None = Field(
        None, description="game parameters; default: the infoset's own (they must agree)"
    )
    bot: BotSpecJson = Field(None, description="default: the strongest registered bot")
    budget: BudgetIn | None = Field(None, description="default: the configured budget")
    seed: Seed | None = Field(None, description="default: derived from the request")


class ValidateRequest(Strict):
    infoset: InfosetJson
    params: dict[str, Any] | None = None


class MatchCreate(Strict):
    """A hosted match: one entry per seat, ``"human"`` or a bot spec."""

    game: str = Field(description="a game name from /v1/games")
    seats: list[SeatSpecJson] = Field(min_length=1, max_length=16)
    params: dict[str, Any] | None = Field(None, description="'players' defaults to len(seats)")
    budget: BudgetIn | None = Field(None, description="the bots' budget per move")
    seed: Seed | None = Field(None, description="seed for the deal and the bots")


class MatchAction(Strict):
    action: ActionJson
    token: str | None = Field(None, description="the seat token (or the X-Seat-Token header)")


# --- responses (documentation; handlers build plain dicts of this shape) ---------------------
class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorOut(BaseModel):
    code: str = Field(description="stable machine-readable error code")
    message: str = Field(description="what went wrong, naming the field")
    detail: Any = Field(description="structured context, or null")


class ActionOut(Open):
    id: int
    struct: dict[str, Any]
    string: str


class PolicyEntry(ActionOut):
    probability: float
    visits: int | None = None
    value: float | None = None


class HintOut(BaseModel):
    game: str
    seat: int
    action: ActionOut
    policy: list[PolicyEntry]
    value: float | None
    stats: dict[str, Any]
    cached: bool
    seed: int
    bot: dict[str, Any]
    budget: dict[str, Any]


class ValidateOut(BaseModel):
    valid: bool
    seat: int
    terminal: bool
    to_move: Literal["seat", "chance", "terminal"]
    current_player: int | None
    your_turn: bool
    steps: int
    legal_actions: list[ActionOut]
    returns: list[float] | None
    view: dict[str, Any]


class ParamOut(Open):
    name: str
    type: str
    default: Any
    doc: str


class GameOut(BaseModel):
    name: str
    long_name: str
    version: int
    min_players: int
    max_players: int
    params: list[ParamOut]
    links: dict[str, str]


class GameDetailOut(GameOut):
    infoset_schema: dict[str, Any]
    action_schema: dict[str, Any]
    example_infoset: dict[str, Any] | None
    rules: dict[str, Any]


class GamesOut(BaseModel):
    games: list[GameOut]


class BotOut(Open):
    name: str
    description: str
    options: list[dict[str, Any]]


class BotsOut(BaseModel):
    bots: list[BotOut]
    default: str


class SeatOut(BaseModel):
    seat: int
    kind: Literal["human", "bot"]
    bot: dict[str, Any] | None


class TokenOut(BaseModel):
    seat: int
    token: str


class MatchOut(Open):
    match_id: str
    game: str
    version: int
    params: dict[str, Any]
    seats: list[SeatOut]
    status: Literal["waiting", "bots_to_move", "finished"]
    step: int
    terminal: bool
    current_player: int | None
    to_move: Literal["seat", "chance", "terminal"]
    returns: list[float] | None
    events: list[dict[str, Any]]
    seat: int | None = None
    infoset: dict[str, Any] | None = None
    legal_actions: list[ActionOut] | None = None
    moves: list[dict[str, Any]] | None = None


class MatchCreatedOut(MatchOut):
    tokens: list[TokenOut]


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str
    uptime_s: float
    games: list[str]
    bots: list[str]
    pool: dict[str, Any]
    cache: dict[str, Any]
    matches: dict[str, Any]
    limits: dict[str, Any]


REQUEST_MODELS: tuple[type[BaseModel], ...] = (
    HintRequest,
    ValidateRequest,
    MatchCreate,
    MatchAction,
)
RESPONSE_MODELS: tuple[type[BaseModel], ...] = (
    ErrorOut,
    HintOut,
    ValidateOut,
    GamesOut,
    GameDetailOut,
    BotsOut,
    MatchOut,
    MatchCreatedOut,
    HealthOut,
)


# --- parsing ---------------------------------------------------------------------------------
def location(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse(model: type[Strict], data: Any) -> Any:
    """``model`` from request JSON; 422 naming the first bad field otherwise."""
    if not isinstance(data, dict):
        raise Unprocessable(
            "the request body must be a JSON object", code="invalid_body", detail={"field": None}
        )
    try:
        return model.model_validate(data)
    except ValidationError as err:
        errors = err.errors(include_url=False, include_input=False, include_context=False)
        # A misspelt field explains a "missing" one better than the other way round.
        errors.sort(key=lambda e: e["type"] != "extra_forbidden")
        first = errors[0]
        where = location(first["loc"]) or "body"
        message = first["msg"]
        if first["type"] == "extra_forbidden":
            message = "unknown field"
        elif first["type"] == "missing":
            message = "required field is missing"
        raise Unprocessable(
            f"field '{where}': {message}",
            code="invalid_request",
            detail={
                "field": where,
                "errors": [{"field": location(e["loc"]), "message": e["msg"]} for e in errors],
            },
        ) from None
