"""Health, the OpenAPI document and the browsable docs page."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, redirect

from server.docs_page import DOCS_HTML
from server.openapi import build_openapi
from server.service import runtime

bp = Blueprint("meta", __name__)


PONG = b'{"pong":true}'


@bp.get("/ping")
def ping() -> Response:
    """Liveness only: no locks, no work. The bench's trivial reference endpoint."""
    return Response(PONG, mimetype="application/json")


@bp.get("/healthz")
def healthz() -> Response:
    return jsonify(runtime().health())


@bp.get("/openapi.json")
def openapi() -> Response:
    doc = current_app.extensions.get("atelier_openapi")
    if doc is None:
        rt = runtime()
        doc = build_openapi(rt.version, bool(rt.config.api_keys))
        current_app.extensions["atelier_openapi"] = doc
    return jsonify(doc)


@bp.get("/docs")
def docs() -> Response:
    return Response(DOCS_HTML, mimetype="text/html")


@bp.get("/")
def index() -> Response:
    return redirect("/docs")
