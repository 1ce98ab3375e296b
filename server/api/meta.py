"""Health, the OpenAPI document and the browsable docs page."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, redirect

from server.docs_page import DOCS_HTML
from server.openapi import build_openapi
from server.routes import documented, public
from server.service import runtime

bp = Blueprint("meta", __name__)


PONG = b'{"pong":true}'


@bp.get("/ping")
@public
@documented(
    summary="Liveness: answers at once, touches nothing",
    operation_id="ping",
    tag="meta",
    response={"type": "object", "properties": {"pong": {"const": True}}, "required": ["pong"]},
    description="alive",
)
def ping() -> Response:
    """Liveness only: no locks, no work. The bench's trivial reference endpoint."""
    return Response(PONG, mimetype="application/json")


@bp.get("/healthz")
@public
@documented(
    summary="Liveness, workers, cache hits and misses",
    operation_id="health",
    tag="meta",
    response="HealthOut",
    description="the service is up",
)
def healthz() -> Response:
    return jsonify(runtime().health())


@bp.get("/openapi.json")
@public
@documented(
    summary="This document",
    operation_id="openapi",
    tag="meta",
    response={"type": "object"},
    description="the OpenAPI document",
)
def openapi() -> Response:
    doc = current_app.extensions.get("atelier_openapi")
    if doc is None:
        rt = runtime()
        doc = build_openapi(current_app, rt.version, bool(rt.config.api_keys))
        current_app.extensions["atelier_openapi"] = doc
    return jsonify(doc)


@bp.get("/docs")
@public
def docs() -> Response:
    return Response(DOCS_HTML, mimetype="text/html")


@bp.get("/")
@public
def index() -> Response:
    return redirect("/docs")
