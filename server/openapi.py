"""The OpenAPI 3.1 document, generated from the pydantic models that validate the requests.

Paths are listed here (they are few and each needs prose); every body schema comes from
``server.schemas`` and the game list from ``games.DEFINITIONS``, so a new game or a changed
model shows up without touching this file.
"""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import models_json_schema

import games
from server.schemas import MAX_SEED, REQUEST_MODELS, RESPONSE_MODELS

REF = "#/components/schemas/{model}"

DESCRIPTION = """\
Suggested moves for any information set of Atelier's imperfect-information card games, and
hosted matches against bots.

* Every error is JSON `{code, message, detail}`; client mistakes are 4xx with a message naming
  the field. 503 (with `Retry-After`) means no capacity right now: retry.
* Hints are cached (game, parameters, canonical information set, bot, budget, seed). Without a
  seed the service derives one from the request, so equal requests get equal answers.
* `GET /v1/games/{game}` publishes each game's information-set JSON Schema and an example.
"""


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERRORS = {
    "400": "malformed request (body missing or not JSON)",
    "401": "API key or seat token missing or invalid",
    "403": "the seat token does not open a seat of this match",
    "404": "unknown game, match or route",
    "405": "method not allowed",
    "409": "valid request the state does not allow (not your turn, game over, busy match)",
    "410": "the match was played with a game version this server no longer plays",
    "413": "request body larger than the configured limit",
    "422": "well-formed request with invalid content; the message names the field",
    "429": "rate limit exceeded; see Retry-After",
    "503": "no search worker free in time, deadline exceeded or worker lost; see Retry-After",
}


def _responses(ok: dict[str, Any], *codes: str) -> dict[str, Any]:
    out = dict(ok)
    for code in ("400", "401", "405", "413", "429", *codes):
        out[code] = {"$ref": f"#/components/responses/E{code}"}
    return out


def _game_param() -> dict[str, Any]:
    return {
        "name": "game",
        "in": "path",
        "required": True,
        "description": "a game name from /v1/games",
        "schema": {"type": "string", "enum": sorted(games.DEFINITIONS)},
    }


MATCH_ID = {
    "name": "match_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
}
TOKEN_HEADER = {
    "name": "X-Seat-Token",
    "in": "header",
    "required": False,
    "description": "the secret token of a human seat (returned by POST /v1/matches)",
    "schema": {"type": "string"},
}
TOKEN_QUERY = {
    "name": "token",
    "in": "query",
    "required": False,
    "description": "the seat token, when a header is not convenient",
    "schema": {"type": "string"},
}


def build_openapi(version: str, api_keys: bool) -> dict[str, Any]:
    models = [(m, "validation") for m in REQUEST_MODELS] + [
        (m, "serialization") for m in RESPONSE_MODELS
    ]
    _, top = models_json_schema(models, ref_template=REF)
    schemas = top.get("$defs", {})

    def body(model: str) -> dict[str, Any]:
        return {"required": True, "content": {"application/json": {"schema": _ref(model)}}}

    paths: dict[str, Any] = {
        "/ping": {
            "get": {
                "summary": "Liveness: answers at once, touches nothing",
                "operationId": "ping",
                "tags": ["meta"],
                "security": [],
                "responses": {
                    "200": _json(
                        {
                            "type": "object",
                            "properties": {"pong": {"const": True}},
                            "required": ["pong"],
                        },
                        "alive",
                    )
                },
            }
        },
        "/healthz": {
            "get": {
                "summary": "Liveness, workers, cache hits and misses",
                "operationId": "health",
                "tags": ["meta"],
                "security": [],
                "responses": {"200": _json(_ref("HealthOut"), "the service is up")},
            }
        },
        "/openapi.json": {
            "get": {
                "summary": "This document",
                "operationId": "openapi",
                "tags": ["meta"],
                "security": [],
                "responses": {"200": _json({"type": "object"}, "the OpenAPI document")},
            }
        },
        "/v1/games": {
            "get": {
                "summary": "The games served, with their parameters",
                "operationId": "listGames",
                "tags": ["games"],
                "responses": _responses(_json_ok("GamesOut", "every game")),
            }
        },
        "/v1/games/{game}": {
            "get": {
                "summary": "One game: parameters, information-set and action JSON Schemas",
                "operationId": "getGame",
                "tags": ["games"],
                "parameters": [_game_param()],
                "responses": _responses(_json_ok("GameDetailOut", "the game"), "404"),
            }
        },
        "/v1/games/{game}/rules": {
            "get": {
                "summary": "The rules as Markdown",
                "operationId": "getRules",
                "tags": ["games"],
                "parameters": [_game_param()],
                "responses": _responses(
                    {
                        "200": {
                            "description": "the rules",
                            "content": {"text/markdown": {"schema": {"type": "string"}}},
                        }
                    },
                    "404",
                ),
            }
        },
        "/v1/games/{game}/hint": {
            "post": {
                "summary": "A bot's suggested move for an information set",
                "operationId": "hint",
                "tags": ["games"],
                "parameters": [_game_param()],
                "requestBody": body("HintRequest"),
                "responses": _responses(
                    _json_ok("HintOut", "the hint; 'cached' says whether it came from the cache"),
                    "404",
                    "409",
                    "422",
                    "503",
                ),
            }
        },
        "/v1/games/{game}/validate": {
            "post": {
                "summary": "Check an information set: whose turn, and the legal actions",
                "operationId": "validate",
                "tags": ["games"],
                "parameters": [_game_param()],
                "requestBody": body("ValidateRequest"),
                "responses": _responses(
                    _json_ok("ValidateOut", "the information set is valid"), "404", "422", "503"
                ),
            }
        },
        "/v1/bots": {
            "get": {
                "summary": "The bots and their options",
                "operationId": "listBots",
                "tags": ["games"],
                "responses": _responses(_json_ok("BotsOut", "every bot")),
            }
        },
        "/v1/matches": {
            "post": {
                "summary": 'Host a match: a bot spec or "human" per seat',
                "operationId": "createMatch",
                "tags": ["matches"],
                "requestBody": body("MatchCreate"),
                "responses": _responses(
                    {
                        "201": _json(
                            _ref("MatchCreatedOut"),
                            "the match, with one secret token per human seat",
                        )
                    },
                    "404",
                    "409",
                    "422",
                    "503",
                ),
            }
        },
        "/v1/matches/{match_id}": {
            "get": {
                "summary": "A match: the token's seat view, or the public view without a token",
                "operationId": "getMatch",
                "tags": ["matches"],
                "parameters": [MATCH_ID, TOKEN_HEADER, TOKEN_QUERY],
                "responses": _responses(_json_ok("MatchOut", "the match"), "403", "404", "410"),
            }
        },
        "/v1/matches/{match_id}/actions": {
            "post": {
                "summary": "Play the token's seat's move; the bots then play until a human must",
                "operationId": "playAction",
                "tags": ["matches"],
                "parameters": [MATCH_ID, TOKEN_HEADER],
                "requestBody": body("MatchAction"),
                "responses": _responses(
                    _json_ok("MatchOut", "the move was played"),
                    "403",
                    "404",
                    "409",
                    "410",
                    "422",
                    "503",
                ),
            }
        },
        "/v1/matches/{match_id}/hint": {
            "get": {
                "summary": "A hint for the token's seat",
                "operationId": "matchHint",
                "tags": ["matches"],
                "parameters": [
                    MATCH_ID,
                    TOKEN_HEADER,
                    TOKEN_QUERY,
                    {"name": "bot", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "milliseconds",
                        "in": "query",
                        "schema": {"type": "number", "exclusiveMinimum": 0},
                    },
                    {
                        "name": "simulations",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1},
                    },
                    {
                        "name": "seed",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_SEED},
                    },
                ],
                "responses": _responses(
                    _json_ok("HintOut", "the hint"), "403", "404", "409", "410", "422", "503"
                ),
            }
        },
    }
    error_responses = {
        f"E{code}": {
            **_json(_ref("ErrorOut"), text),
            **(
                {"headers": {"Retry-After": {"schema": {"type": "string"}}}}
                if code in ("429", "503")
                else {}
            ),
        }
        for code, text in ERRORS.items()
    }
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Atelier hint service", "version": version, "description": DESCRIPTION},
        "paths": paths,
        "components": {"schemas": schemas, "responses": error_responses},
        "tags": [
            {"name": "games", "description": "games, bots, stateless hints"},
            {"name": "matches", "description": "hosted matches"},
            {"name": "meta", "description": "health and documentation"},
        ],
    }
    if api_keys:
        doc["components"]["securitySchemes"] = {
            "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}
        }
        doc["security"] = [{"apiKey": []}]
    return doc


def _json_ok(model: str, description: str) -> dict[str, Any]:
    return {"200": _json(_ref(model), description)}
