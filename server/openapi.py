"""The OpenAPI 3.1 document, generated from the pydantic models that validate the requests.

Paths come from the app's routes and the ``@documented`` record on each view
(``server.routes``); every body schema from ``server.schemas``; the game list from
``games.DEFINITIONS``. A new route, game or model shows up without touching this file.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from pydantic.json_schema import models_json_schema

import games
from server.routes import RouteDoc, is_public, route_doc
from server.schemas import REQUEST_MODELS, RESPONSE_MODELS

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


# Schemas of the path parameters, by the name the routes give them.
PATH_PARAMS: dict[str, dict[str, Any]] = {
    "match_id": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
    "review_id": {"type": "string", "pattern": "^job_[A-Za-z0-9_-]{32}$"},
    "analysis_id": {"type": "string", "pattern": "^job_[A-Za-z0-9_-]{32}$"},
    "index": {"type": "integer", "minimum": 0},
}


def _path_param(name: str) -> dict[str, Any]:
    if name == "game":
        return {
            "name": "game",
            "in": "path",
            "required": True,
            "description": "a game name from /v1/games",
            "schema": {"type": "string", "enum": sorted(games.DEFINITIONS)},
        }
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": PATH_PARAMS.get(name, {"type": "string"}),
    }


def _operation(doc: RouteDoc, path_args: list[str], open_route: bool) -> dict[str, Any]:
    schema = _ref(doc.response) if isinstance(doc.response, str) else doc.response
    if doc.status == "204":
        ok: dict[str, Any] = {doc.status: {"description": doc.description}}
    else:
        content = {doc.content_type: {"schema": schema}}
        ok = {doc.status: {"description": doc.description, "content": content}}
    op: dict[str, Any] = {
        "summary": doc.summary,
        "operationId": doc.operation_id,
        "tags": [doc.tag],
    }
    params = [_path_param(name) for name in path_args] + list(doc.parameters)
    if params:
        op["parameters"] = params
    if doc.request is not None:
        op["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _ref(doc.request)}},
        }
    if open_route:
        op["security"] = []
        op["responses"] = ok
    else:
        codes = [*doc.errors]
        if path_args:
            codes.append("404")
        op["responses"] = _responses(ok, *sorted(set(codes)))
    op.update(doc.extra)
    return op


def openapi_paths(app: Flask) -> dict[str, Any]:
    """The paths of every documented route of ``app``, in the order they were registered."""
    paths: dict[str, Any] = {}
    for rule in app.url_map.iter_rules():
        view = app.view_functions.get(rule.endpoint)
        doc = route_doc(view) if view is not None else None
        if doc is None:
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        blueprint = rule.endpoint.rpartition(".")[0] or None
        open_route = is_public(app, rule.endpoint, blueprint)
        args = re.findall(r"{([^}]+)}", path)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            paths.setdefault(path, {})[method.lower()] = _operation(doc, args, open_route)
    return paths


def build_openapi(app: Flask, version: str, api_keys: bool) -> dict[str, Any]:
    models = [(m, "validation") for m in REQUEST_MODELS] + [
        (m, "serialization") for m in RESPONSE_MODELS
    ]
    _, top = models_json_schema(models, ref_template=REF)
    schemas = top.get("$defs", {})
    paths = openapi_paths(app)
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
