"""Request and response schemas: one definition validates requests and writes the OpenAPI doc.

Requests are parsed by strict pydantic models (no silent coercion: ``"3"`` is not a seat). The
parts whose rules live in the games and bots (parameters, the information set, bot specs) are
typed as plain JSON here and checked by ``games``/``bots`` themselves, whose errors already
name the field; their published JSON Schema comes from the same definitions (``ParamSpec``,
``GameDefinition``), so the docs cannot drift from what the code accepts.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema

import bots
import games
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
    if defn.event_types:
        type_schema["enum"] = list(defn.event_types)
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
            "game": {"enum": sorted(games.DEFINITIONS)} if generic else {"const": defn.name},
            "version": {"enum": sorted({d.version for d in games.DEFINITIONS.values()})}
            if generic
            else {"const": defn.version},
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
    if defn is not None and defn.action_types:
        type_schema["enum"] = list(defn.action_types)
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


ACTION_STRING_SCHEMA: dict[str, Any] = {
    "title": "ActionString",
    "description": (
        "An action by its readable string, as listed in 'legal_actions[*].string' (e.g. "
        '"explore", "declare Monet"); letter case and extra spaces are forgiven when one legal '
        "action still matches. A string that begins several legal strings is refused as "
        "ambiguous, one that matches none as not legal, each with legal strings listed."
    ),
    "type": "string",
}


def bot_spec_schema() -> dict[str, Any]:
    """A bot spec: a registered name, or ``{"name", "options"}`` with that bot's options."""
    by_object = [
        {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"const": cls.name},
                "options": {
                    "type": "object",
                    "properties": {o.name: param_schema(o) for o in cls.options},
                    "additionalProperties": False,
                },
            },
            "additionalProperties": False,
        }
        for cls in bots.BOTS.values()
    ]
    return {
        "description": 'A bot by name ("random") or {"name": ..., "options": {...}}; see /v1/bots.',
        "oneOf": [{"type": "string", "enum": sorted(bots.BOTS)}, *by_object],
    }


BOT_SPEC_SCHEMA: dict[str, Any] = bot_spec_schema()

SEAT_SPEC_SCHEMA: dict[str, Any] = {
    "description": '"human" for a seat played through the API, or a bot spec.',
    "oneOf": [{"const": "human"}, *BOT_SPEC_SCHEMA["oneOf"]],
}


def _integral(value: Any) -> Any:
    """JSON Schema's integers include ``7.0``; so does the validator (strict otherwise)."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def _action(value: Any) -> Any:
    value = _integral(value)
    if type(value) is dict or (type(value) is int and value >= 0) or type(value) is str:
        return value
    raise ValueError(
        'an action is a struct like {"type": ...}, its string like "explore" (as listed in '
        f"legal_actions) or an action id >= 0, got {json_type(value)}"
    )


def json_int(**constraints: Any) -> Any:
    """A strict whole number that also takes ``7.0`` (the constraints first, so that they
    appear in the JSON Schema as ``minimum``/``maximum``)."""
    return Annotated[int, Field(**constraints), BeforeValidator(_integral)]


InfosetJson = Annotated[dict[str, Any], WithJsonSchema(infoset_schema())]
BotSpecJson = Annotated[Any, WithJsonSchema(BOT_SPEC_SCHEMA)]
SeatSpecJson = Annotated[Any, WithJsonSchema(SEAT_SPEC_SCHEMA)]
ActionJson = Annotated[
    Any,
    BeforeValidator(_action),
    WithJsonSchema(
        {
            "description": "the action struct (preferred), its readable string or its id, "
            "each as listed in 'legal_actions' ('struct', 'string', 'id')",
            "oneOf": [action_schema(), ACTION_STRING_SCHEMA, {"type": "integer", "minimum": 0}],
        }
    ),
]
Seed = json_int(ge=0, le=MAX_SEED, description="explicit seed for every random choice")


# --- requests --------------------------------------------------------------------------------
class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    # What the JSON of a nested model looks like, for the message when something else is sent
    # in its place (``parse``); by default its fields are listed. Never the class name.
    shape: ClassVar[str | None] = None


class BudgetIn(Strict):
    """Simulations and/or milliseconds, whichever ends first; capped by the configuration."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"minProperties": 1})
    shape = 'an object like {"milliseconds": N} or {"simulations": N} (or both)'

    # Omitted, not null: the schema then says exactly what the validator takes.
    simulations: json_int(ge=1) = None
    milliseconds: Annotated[float, Field(gt=0)] = None


PROFILES_DOC = (
    'opponent profiles by seat, e.g. {"1": {"bid_scale": 1.3}} (the tendencies '
    "'atelier profile' fits; docs/bots.md lists each game's): the bot models those seats by "
    "the heuristic with these tendencies (the ismcts option 'opponents', weighed by its "
    "'profile_trust' times, under 'profile_evidence', how far each seat's moves so far bear its "
    "profile out); part of the cache key"
)


class HintRequest(Strict):
    """A stateless hint: the service samples worlds from ``infoset`` and asks the bot."""

    infoset: InfosetJson
    params: dict[str, Any] | None = Field(
        None, description="game parameters; default: the infoset's own (they must agree)"
    )
    bot: BotSpecJson = Field(None, description="default: the strongest registered bot")
    budget: BudgetIn | None = Field(None, description="default: the configured budget")
    seed: Seed | None = Field(None, description="default: derived from the request")
    profiles: Annotated[
        dict[str, Any] | None,
        WithJsonSchema(
            {
                "type": "object",
                "description": PROFILES_DOC,
                "propertyNames": {"pattern": "^[0-9]+$"},
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": {"type": "number"},
                },
            }
        ),
    ] = Field(None, description=PROFILES_DOC)


class ValidateRequest(Strict):
    infoset: InfosetJson
    params: dict[str, Any] | None = None


class MatchCreate(Strict):
    """A hosted match: one entry per seat, ``"human"`` or a bot spec."""

    game: Annotated[str, WithJsonSchema({"enum": sorted(games.DEFINITIONS)})] = Field(
        description="a game name from /v1/games"
    )
    seats: Annotated[
        list[SeatSpecJson],
        Field(min_length=1, max_length=16),
        WithJsonSchema(
            {
                "type": "array",
                "items": SEAT_SPEC_SCHEMA,
                "minItems": 1,
                "maxItems": 16,
                "contains": {"const": "human"},
                "description": 'one entry per seat; at least one "human"',
            }
        ),
    ]
    params: dict[str, Any] | None = Field(None, description="'players' defaults to len(seats)")
    budget: BudgetIn | None = Field(None, description="the bots' budget per move")
    seed: Seed | None = Field(
        None,
        description="seed for the deal and the bots, used only with 'reproducible': otherwise "
        "the server draws the seed, so that no client can choose (and so know) a deal",
    )
    reproducible: bool = Field(
        False,
        description="research option: deal from 'seed' as given; the match is marked "
        "'reproducible' in every answer, since anyone knowing the seed knows the hidden cards",
    )


class MatchAction(Strict):
    """A move of the seat whose token is in the ``X-Seat-Token`` header."""

    action: ActionJson
    step: json_int(ge=0) | None = Field(
        None,
        description="the match's 'step' the move was chosen at: a retry of an applied move "
        "then gets the same answer and changes nothing; another step gets 409 stale_step",
    )


class ReviewRequest(Strict):
    """A game review of one seat: the record as that seat's information set, or as a whole
    state (``state.to_struct()``) with the ``seat`` to review."""

    infoset: InfosetJson | None = Field(
        None, description="the seat's (final) information set; its seat is the reviewed seat"
    )
    state: dict[str, Any] | None = Field(
        None, description="a whole-state record (state.to_struct(): game, params, history)"
    )
    seat: json_int(ge=0) | None = Field(None, description="the reviewed seat (with 'state')")
    params: dict[str, Any] | None = Field(
        None, description="game parameters; default: the record's"
    )
    bot: BotSpecJson = Field(None, description="the reviewing bot; default: the service's default")
    budget: BudgetIn | None = Field(
        None,
        description="the bot's budget per decision, capped like a hint's; default "
        "{simulations: 200, milliseconds: 1000}",
    )
    samples: json_int(ge=32, le=2000) | None = Field(
        None, description="paired rollouts per decision (default 100)"
    )
    seed: Seed | None = Field(None, description="default: derived from the request")


class AnalysisRequest(Strict):
    """An analysis (docs/api.md, "Analysis"): one position (an information set where its seat
    is to move), or every decision of a record (``every_decision`` with an information set,
    or a whole ``state`` with its ``seat``)."""

    infoset: InfosetJson | None = Field(
        None, description="the seat's information set: its position, or its whole record"
    )
    state: dict[str, Any] | None = Field(
        None, description="a whole-state record (state.to_struct()); every decision of 'seat'"
    )
    seat: json_int(ge=0) | None = Field(None, description="the analysed seat (with 'state')")
    every_decision: bool | None = Field(
        None,
        description="true: every decision of the seat in the record (a batch), each with the "
        "move played; default: the one position of the information set",
    )
    params: dict[str, Any] | None = Field(
        None, description="game parameters; default: the record's"
    )
    bot: BotSpecJson = Field(None, description="the analysing bot; default: the service's default")
    budget: BudgetIn | None = Field(
        None,
        description="the search's budget per position, capped like a hint's; default "
        "{simulations: 200, milliseconds: 1000}",
    )
    moves: Annotated[list[ActionJson], Field(max_length=32)] | None = Field(
        None, description="moves that must be analysed (one position only), besides the top"
    )
    top: json_int(ge=1, le=32) | None = Field(
        None,
        description="how many of the search's best moves to analyse (default 8; every legal "
        "move when there are at most that many)",
    )
    seed: Seed | None = Field(None, description="default: derived from the request")


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


class FigureOut(Open):
    """One figure of an explained hint (docs/api.md, "Explained hints"; per game)."""

    value: Any = Field(description="a number, or an object or list of them (per game)")
    exact: bool = Field(description="true: computed exactly from the information set")
    label: str = Field(description="what the figure is, for a reader")
    samples: int | None = Field(None, description="an estimate's sample size (worlds, rollouts)")
    method: str | None = Field(None, description="how an estimate's samples were drawn")


class ValueMeaningOut(BaseModel):
    measures: str | None = Field(description="what the hint's value is (null: no value)")
    scale: str | None = Field(description="its scale and what an even share is")
    text: str = Field(description="this hint's value interpreted in one sentence")


class ExplainOut(BaseModel):
    figures: dict[str, FigureOut] = Field(description="named figures, per game")
    text: list[str] = Field(description="sentences a player reads")
    value: ValueMeaningOut
    unavailable: str | None = Field(
        None, description="when the figures could not be computed (an internal error, logged)"
    )
    recommends: dict[str, Any] | None = Field(
        None,
        description="the moves the figures rank best, whether the hint is among them "
        "('agrees') and, when not, the sentence saying why the search prefers its move ('why')",
    )


class HintOut(BaseModel):
    game: str
    seat: int
    action: ActionOut
    policy: list[PolicyEntry]
    value: float | None
    stats: dict[str, Any]
    policy_omitted: dict[str, Any] | None = Field(
        None, description="when the policy is truncated: how many actions, their probability"
    )
    cached: bool
    seed: int
    bot: dict[str, Any]
    budget: dict[str, Any]
    warnings: list[str] | None = None
    degraded: dict[str, Any] | None = Field(
        None,
        description="when the search got far less than its budget for the server's reasons "
        "(reasons: cold_worker, cpu_starved; cpu_share; message): such an answer is not cached "
        "(docs/api.md, 'Cold start')",
    )
    explain: ExplainOut = Field(
        description="figures a player reasons with, and what 'value' measures (docs/api.md, "
        "'Explained hints')"
    )
    analysis: HintAnalysisOut | None = Field(
        None,
        description="the search's top moves, each with its value and 95% interval (docs/api.md, "
        "'Analysis'); absent for bots without per-move values",
    )


class ValidateOut(BaseModel):
    valid: bool
    seat: int
    terminal: bool
    to_move: Literal["seat", "chance", "terminal"]
    current_player: int | None
    your_turn: bool
    steps: int
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
    available: bool
    unavailable: dict[str, str] = Field(
        description="game -> why its default setting is not (one sentence)"
    )
    unavailable_detail: dict[str, dict[str, Any]] = Field(
        description="game -> the data behind that reason, where the bot has some (cfr: "
        "'solutions', the settings it can play)"
    )


class BotsOut(BaseModel):
    bots: list[BotOut]
    default: str


class BotAvailabilityOut(BaseModel):
    name: str
    available: bool
    reason: str | None = Field(description="why the bot cannot play here (one sentence), or null")
    detail: dict[str, Any] | None = Field(
        description="the data behind 'reason' where the bot has some (cfr: 'solutions', a list "
        "of {game, version, params} it can play), else null"
    )


class GameBotsOut(BaseModel):
    game: str
    params: dict[str, Any]
    bots: list[BotAvailabilityOut]
    default: str | None = Field(description="the default hint bot if available, else the first")


class LevelRatingOut(BaseModel):
    elo: int = Field(description="measured Elo against level 1 (0), whole Elo as published")
    elo_ci95: list[int] = Field(description="its 95% percentile bootstrap interval over deals")
    games: int = Field(description="games the level played in the calibration")
    above_random: int | None = Field(
        default=None,
        description="Elo above the level that plays uniformly random moves (negative: below)",
    )


class LevelOut(BaseModel):
    level: int
    preset: dict[str, Any] = Field(description="the preset (bots/levels.py): bot and knobs")
    plays: str = Field(description="how the level plays, in words")
    random_play: bool = Field(description="the level plays uniformly random moves")
    worse_than_random: bool | None = Field(
        description="measured below random play (by design in Gallery Rush and Modern Art); "
        "null when not measured"
    )
    rating: LevelRatingOut | None = Field(
        description="the measured rating, null when this preset was not measured"
    )
    text: str = Field(description="the level in sentences a player reads (the play page's)")


class LevelsMeasuredOut(BaseModel):
    players: int = Field(description="the player count the ladder was measured at")
    method: str
    games: int
    deals: int
    relative_to: str
    source: str


class GameLevelsOut(BaseModel):
    game: str
    levels: list[LevelOut]
    default: int = Field(description="the level the play page picks by default")
    random_level: int | None = Field(description="the level that plays uniformly random moves")
    measured: LevelsMeasuredOut | None = Field(
        description="how the ratings were measured, null when not measured with these presets"
    )


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
    moves: list[dict[str, Any]] | None = None
    warning: str | None = None
    warnings: list[str] | None = None
    reproducible: bool | None = None
    retried: bool | None = None


class MatchCreatedOut(MatchOut):
    tokens: list[TokenOut]


class ReviewProgress(BaseModel):
    done: int
    total: int


class ReviewJobOut(Open):
    """A review job; ``review`` when done, ``error`` when failed (docs/api.md)."""

    id: str
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    progress: ReviewProgress
    url: str
    review: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class AnalysisMoveOut(ActionOut):
    """One candidate move (bots/analysis.py; docs/api.md, "Analysis")."""

    value: float = Field(description="first-place share of the seat, 0-1")
    stderr: float
    interval: list[float] = Field(description="95% interval of value")
    points: float | None = Field(None, description="expected final score in the game's units")
    visits: int
    prior: float | None = None
    loss: float = Field(description="best move's value minus this one's, paired, >= 0")
    loss_interval: list[float] = Field(description="paired 95% interval of the loss")
    within_noise: bool = Field(description="not distinguishable from the best move")
    continuation: list[str] = Field(description="the most visited line after this move")
    samples: int


class AnalysisOut(Open):
    """The analysis of one position."""

    seat: int
    units: dict[str, str]
    best: ActionOut = Field(description="the suggested move: the best analysed move")
    value: float
    interval: list[float]
    iterations: int
    elapsed_ms: float
    effective_worlds: float | None
    moves: list[AnalysisMoveOut] = Field(description="candidates, best first")


class AnalysisPositionOut(Open):
    index: int
    step: int = Field(description="the step of the record the position is at")
    played: ActionOut | None = Field(None, description="the move played there (a record)")
    analysis: AnalysisOut


class AnalysisJobOut(Open):
    """An analysis job; ``positions`` holds the positions finished so far (docs/api.md)."""

    id: str
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    done: int
    total: int
    url: str
    positions: list[AnalysisPositionOut]
    error: dict[str, Any] | None = None


class HintAnalysisMoveOut(Open):
    id: int
    string: str
    value: float
    interval: list[float]
    visits: int
    within_noise: bool


class HintAnalysisOut(BaseModel):
    """The hint's per-move table, compact (the top moves of the same search)."""

    value: float | None
    interval: list[float] | None
    moves: list[HintAnalysisMoveOut]


HintOut.model_rebuild()


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
    redis: dict[str, Any] | None = None  # with --redis: its URL (no password), ping_ms
    jobs: dict[str, Any] | None = None  # the job store: running, queued, oldest_queued_s, ...


REQUEST_MODELS: tuple[type[BaseModel], ...] = (
    HintRequest,
    ValidateRequest,
    MatchCreate,
    MatchAction,
    ReviewRequest,
    AnalysisRequest,
)
RESPONSE_MODELS: tuple[type[BaseModel], ...] = (
    ErrorOut,
    HintOut,
    ValidateOut,
    GamesOut,
    GameDetailOut,
    BotsOut,
    GameBotsOut,
    GameLevelsOut,
    MatchOut,
    MatchCreatedOut,
    HealthOut,
    ReviewJobOut,
    AnalysisJobOut,
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
        errors = err.errors(include_url=False)
        # A misspelt field explains a "missing" one better than the other way round.
        errors.sort(key=lambda e: e["type"] != "extra_forbidden")
        where = location(errors[0]["loc"]) or "body"
        raise Unprocessable(
            f"field '{where}': {error_message(errors[0])}",
            code="invalid_request",
            detail={
                "field": where,
                "errors": [
                    {"field": location(e["loc"]), "message": error_message(e)} for e in errors
                ],
            },
        ) from None


# pydantic's wording for a wrong JSON type names Python types ("dictionary", "instance of
# BudgetIn"); a client sent JSON, so the message says what JSON goes there.
_JSON_TYPE_MESSAGES = {
    "dict_type": "must be a JSON object",
    "list_type": "must be a JSON array",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
}
_NESTED_MODEL_TYPES = ("model_type", "model_attributes_type", "dataclass_type", "is_instance_of")


def error_message(error: Any) -> str:
    """One pydantic error as a sentence for a client: JSON words, never a Python class name."""
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "missing":
        return "required field is missing"
    if kind == "value_error":
        return error["msg"].removeprefix("Value error, ")
    got = f", got {json_type(error.get('input'))}" if "input" in error else ""
    if kind in _NESTED_MODEL_TYPES:
        name = (error.get("ctx") or {}).get("class_name")
        return f"must be {model_shape(name)}{got}"
    if kind in _JSON_TYPE_MESSAGES:
        return _JSON_TYPE_MESSAGES[kind] + got
    return error["msg"]


def json_type(value: Any) -> str:
    """What a client sent, as a message names it: a number itself, else its JSON type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def model_shape(class_name: str | None) -> str:
    """What the JSON of the request model called ``class_name`` looks like (its ``shape``, else
    its fields); the class name itself is an implementation detail and never shown."""
    model = next((m for m in _strict_models() if m.__name__ == class_name), None)
    if model is None:
        return "a JSON object"
    if model.shape:
        return model.shape
    return "an object with the fields " + ", ".join(f"'{f}'" for f in model.model_fields)


def _strict_models() -> list[type[Strict]]:
    """Every request model (``Strict`` and its subclasses, at any depth)."""
    out: list[type[Strict]] = []
    todo: list[type[Strict]] = [Strict]
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo.extend(cls.__subclasses__())
    return out
