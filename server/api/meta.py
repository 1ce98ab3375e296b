"""Health, the OpenAPI document and the browsable docs page."""

from __future__ import annotations

import hmac
import os

from flask import Blueprint, Response, current_app, jsonify, redirect, request

from server.docs_page import docs_html
from server.limits import API_KEY_HEADER
from server.openapi import build_openapi
from server.redis_conn import RedisUnavailable
from server.routes import documented, public
from server.service import resources
from server.store import StoreUnavailable

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
    errors=("503",),
)
def healthz() -> Response:
    """Liveness for anyone; the details (paths, PIDs, limits, counters) only for a key holder.

    When API keys are on, a monitor without a key still learns that the service answers, and
    nothing about how it is set up.
    """
    rt = resources()
    keyless = bool(rt.config.api_keys) and not _has_valid_key(rt.config.api_keys)
    try:
        rt.check_shared()  # 503 redis_unavailable / match_store_unavailable when one is down
    except RedisUnavailable:
        if keyless:  # the code, but not where the Redis is
            raise RedisUnavailable("the shared Redis does not answer") from None
        raise
    except StoreUnavailable:
        if keyless:  # the code, but not where the database is
            raise StoreUnavailable("the match database does not answer") from None
        raise
    if keyless:
        return jsonify({"status": "ok"})
    details = rt.health()
    details["http_pid"] = os.getpid()
    reviews = current_app.extensions.get("atelier.reviews")
    if reviews is not None:  # the job store's figures: the whole fleet's with --redis
        details["jobs"] = reviews.info()
    costs = getattr(rt, "costs", None)
    if costs is not None:
        details.setdefault("limits", {})["costs"] = costs.info()
    return jsonify(details)


def _has_valid_key(keys: tuple[str, ...]) -> bool:
    given = request.headers.get(API_KEY_HEADER) or ""
    return any(hmac.compare_digest(given.encode(), k.encode()) for k in keys)


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
    return jsonify(openapi_document())


def openapi_document() -> dict:
    """The app's OpenAPI document, built once per app."""
    doc = current_app.extensions.get("atelier_openapi")
    if doc is None:
        rt = resources()
        doc = build_openapi(current_app, rt.version, bool(rt.config.api_keys))
        current_app.extensions["atelier_openapi"] = doc
    return doc


@bp.get("/docs")
@public
def docs() -> Response:
    return Response(docs_html(openapi_document()["info"]["description"]), mimetype="text/html")


@bp.get("/")
@public
def index() -> Response:
    return redirect("/docs")
