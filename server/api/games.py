"""``/v1/games`` and ``/v1/bots``: what is served, and stateless hints and validation."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for

import bots
import games
from server.api import _no_constants, json_body
from server.errors import NotFound, Unprocessable
from server.examples import default_example
from server.routes import documented
from server.schemas import (
    HintRequest,
    ValidateRequest,
    action_schema,
    infoset_schema,
    parse,
)
from server.service import hints, resources

bp = Blueprint("games", __name__)

REPO_ROOT = Path(games.__file__).resolve().parent.parent


def game_summary(defn: games.GameDefinition) -> dict[str, Any]:
    name = defn.name
    return {
        "name": name,
        "long_name": defn.long_name,
        "version": defn.version,
        "min_players": defn.min_players,
        "max_players": defn.max_players,
        "params": [s.to_json() for s in defn.param_specs],
        "links": {
            "self": url_for("games.game_detail", game=name),
            "hint": url_for("games.hint", game=name),
            "validate": url_for("games.validate", game=name),
            "rules": url_for("games.rules", game=name),
            "bots": url_for("games.game_bots", game=name),
            "levels": url_for("games.game_levels", game=name),
        },
    }


@bp.get("/games")
@documented(
    summary="The games served, with their parameters",
    operation_id="listGames",
    tag="games",
    response="GamesOut",
    description="every game",
)
def list_games() -> Response:
    return jsonify({"games": [game_summary(d) for _, d in sorted(games.DEFINITIONS.items())]})


@bp.get("/games/<game>")
@documented(
    summary="One game: parameters, information-set and action JSON Schemas",
    operation_id="getGame",
    tag="games",
    response="GameDetailOut",
    description="the game",
)
def game_detail(game: str) -> Response:
    defn = hints().definition(game)
    return jsonify(
        {
            **game_summary(defn),
            "infoset_schema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                **infoset_schema(defn),
            },
            "action_schema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                **action_schema(defn),
            },
            "example_infoset": default_example(defn.name),
            "rules": {
                "href": url_for("games.rules", game=defn.name),
                "path": defn.rules_doc or None,
            },
        }
    )


@bp.get("/games/<game>/rules")
@documented(
    summary="The rules as Markdown",
    operation_id="getRules",
    tag="games",
    response={"type": "string"},
    content_type="text/markdown",
    description="the rules",
)
def rules(game: str) -> Response:
    """The rules as Markdown, from ``docs/rules/<game>.md`` when the source tree is present."""
    defn = hints().definition(game)
    text = rules_markdown(defn)
    if text is None:
        raise NotFound(
            f"the rules of {game} are not installed with this server"
            + (f" (see {defn.rules_doc} in the source tree)" if defn.rules_doc else ""),
            code="rules_not_found",
        )
    return Response(text, mimetype="text/markdown")


def rules_markdown(defn: games.GameDefinition) -> str | None:
    """The game's rules document (``defn.rules_doc``), or ``None`` when it is not installed."""
    path = (REPO_ROOT / defn.rules_doc) if defn.rules_doc else None
    return path.read_text(encoding="utf-8") if path is not None and path.is_file() else None


@bp.post("/games/<game>/hint")
@documented(
    summary="A bot's suggested move for an information set",
    operation_id="hint",
    tag="games",
    request="HintRequest",
    response="HintOut",
    description="the hint; 'cached' says whether it came from the cache",
    errors=("409", "422", "503"),
)
def hint(game: str) -> Response:
    rt = resources()
    service = hints()
    # Fast path: these exact bytes were answered before. Equal bytes are an equal request (an
    # absent seed is derived from the request), so the stored answer is the answer; parsing and
    # validating them again would only repeat work.
    raw_key = "raw-hint:" + hashlib.sha256(game.encode() + b"\0" + request.get_data()).hexdigest()
    hit = rt.cache.peek(raw_key)
    if hit is not None:
        return Response(hit[1], mimetype="application/json")
    service.definition(game)
    req = parse(HintRequest, json_body())
    _, body = service.hint_answer(
        game,
        req.infoset,
        params=req.params,
        bot=req.bot,
        budget=req.budget,
        seed=req.seed,
        raw_key=raw_key,
        profiles=req.profiles,
    )
    return Response(body, mimetype="application/json")


@bp.post("/games/<game>/validate")
@documented(
    summary="Check an information set: whose turn, and the legal actions",
    operation_id="validate",
    tag="games",
    request="ValidateRequest",
    response="ValidateOut",
    description="the information set is valid",
    errors=("422", "503"),
)
def validate(game: str) -> Response:
    service = hints()
    service.definition(game)
    req = parse(ValidateRequest, json_body())
    return jsonify(service.validate(game, req.infoset, params=req.params))


def availability(defn: games.GameDefinition, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every bot, whether it can play ``defn`` with ``params`` (validated), and why not."""
    out = []
    for name, cls in bots.BOTS.items():
        reason = cls.unavailable_reason(defn, params)
        detail = None if reason is None else cls.unavailable_detail(defn, params)
        out.append({"name": name, "available": reason is None, "reason": reason, "detail": detail})
    return out


def query_params(defn: games.GameDefinition) -> dict[str, Any]:
    """The ``params`` query parameter (a JSON object), validated; the defaults if absent."""
    raw = request.args.get("params")
    given: Any = {}
    if raw:
        try:
            given = json.loads(raw, parse_constant=_no_constants)
        except ValueError as err:
            raise Unprocessable(
                f"query parameter 'params' must be a JSON object: {err}",
                code="invalid_params",
                detail={"field": "params"},
            ) from None
    if not isinstance(given, dict):
        raise Unprocessable(
            "query parameter 'params' must be a JSON object like {\"players\": 3}",
            code="invalid_params",
            detail={"field": "params"},
        )
    try:
        return defn.validate_params(given)
    except games.InvalidParams as err:
        raise Unprocessable(
            f"params: {err}", code="invalid_params", detail={"field": "params"}
        ) from None


@bp.get("/games/<game>/bots")
@documented(
    summary="The bots that can play this game with these parameters, and why the others cannot",
    operation_id="gameBots",
    tag="games",
    response="GameBotsOut",
    description="every bot, with 'available' and the 'reason' when it is not",
    errors=("422",),
    parameters=(
        {
            "name": "params",
            "in": "query",
            "required": False,
            "description": 'the game parameters as a JSON object, e.g. {"players": 3}; '
            "omitted ones take their defaults",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
    ),
)
def game_bots(game: str) -> Response:
    service = hints()
    defn = service.definition(game)
    params = query_params(defn)
    listed = availability(defn, params)
    default = service.default_bot()
    if not any(b["name"] == default and b["available"] for b in listed):
        default = next((b["name"] for b in listed if b["available"]), None)
    return jsonify({"game": defn.name, "params": params, "bots": listed, "default": default})


@bp.get("/games/<game>/levels")
@documented(
    summary="The `level` bot's difficulty levels in this game: how each plays, its measured "
    "rating, and whether it plays worse than random",
    operation_id="gameLevels",
    tag="games",
    response="GameLevelsOut",
    description="levels 1-8, weakest first; ratings from the measured ladder (docs/bots.md)",
)
def game_levels(game: str) -> Response:
    from bots.levels import level_descriptions

    defn = hints().definition(game)
    return jsonify(level_descriptions(defn.name))


@bp.get("/bots")
@documented(
    summary="The bots and their options",
    operation_id="listBots",
    tag="games",
    response="BotsOut",
    description="every bot; 'available' says whether it plays some game's default setting",
)
def list_bots() -> Response:
    catalog = bots.bot_catalog()
    for entry in catalog:
        cls = bots.BOTS[entry["name"]]
        reasons, details = {}, {}
        for name, defn in sorted(games.DEFINITIONS.items()):
            params = defn.validate_params({})
            reason = cls.unavailable_reason(defn, params)
            if reason is not None:
                reasons[name] = reason
                detail = cls.unavailable_detail(defn, params)
                if detail is not None:
                    details[name] = detail
        entry["available"] = len(reasons) < len(games.DEFINITIONS)
        entry["unavailable"] = reasons
        entry["unavailable_detail"] = details
    return jsonify({"bots": catalog, "default": hints().default_bot()})
