"""Errors as JSON: every failure the service reports is ``{code, message, detail}``.

Client mistakes map to 4xx with a message naming the offending field; capacity problems to 503
with ``Retry-After``. A 500 means a bug in the service, never a bad request.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException

import bots
import games
from bots.protocol import NotYourTurn
from bots.review import InvalidRecord
from server.pool_errors import DeadlineExceeded, PoolBusy, PoolClosed, PoolError, WorkerDied
from server.store import StoreUnavailable

log = logging.getLogger("atelier.server")


class ApiError(Exception):
    """An error with an HTTP status, a stable ``code`` and a message for people."""

    status = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        detail: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.detail = detail
        self.retry_after = retry_after

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "detail": self.detail}


class Unprocessable(ApiError):
    """Well-formed JSON whose content is wrong (bad params, impossible infoset, bad bot)."""

    status = 422
    code = "invalid"


class NotFound(ApiError):
    status = 404
    code = "not_found"


class Conflict(ApiError):
    """The request is valid but the state does not allow it (not your turn, game over)."""

    status = 409
    code = "conflict"


class Unavailable(ApiError):
    """No capacity right now (no free worker, a worker died, a deadline passed): retry."""

    status = 503
    code = "unavailable"

    def __init__(self, message: str, *, retry_after: float = 1.0, **kw: Any) -> None:
        super().__init__(message, retry_after=retry_after, **kw)


class GameOver(ValueError):
    """The information set is valid, but the game has ended: there is no move to suggest."""


# The one table from exceptions raised by games, bots and the search pool to the error answer:
# (exception type, HTTP status, code, request field it concerns, Retry-After seconds). The web
# process (``api_error_for``) and the worker tasks (``server.tasks.run_task``) both read it.
# First match wins; ``LookupError`` matches only exactly: it is how a bot without data for a
# game or setting says so (the stored-solution CFR bot), while its subclasses KeyError and
# IndexError are bugs.
ERROR_TABLE: tuple[tuple[type[BaseException], int, str, str | None, float | None], ...] = (
    (games.InvalidInfoset, 422, "invalid_infoset", "infoset", None),
    (games.InvalidParams, 422, "invalid_params", "params", None),
    (bots.InvalidBotSpec, 422, "invalid_bot", "bot", None),
    (bots.InvalidBudget, 422, "invalid_budget", "budget", None),
    (games.InvalidAction, 422, "invalid_action", "action", None),
    (InvalidRecord, 422, "invalid_record", "state", None),
    (LookupError, 422, "bot_unavailable", "bot", None),
    (NotYourTurn, 409, "not_your_turn", "infoset", None),
    (GameOver, 409, "game_over", "infoset", None),
    (PoolBusy, 503, "busy", None, 1.0),
    (DeadlineExceeded, 503, "deadline_exceeded", None, 1.0),
    (WorkerDied, 503, "worker_died", None, 1.0),
    (PoolClosed, 503, "shutting_down", None, 5.0),
    (PoolError, 503, "unavailable", None, 1.0),
    (StoreUnavailable, 503, "match_store_unavailable", None, 2.0),
)


def api_error_for(err: BaseException) -> ApiError | None:
    """The ``ApiError`` the table gives ``err``, or ``None`` for an exception it does not list."""
    for exc_type, status, code, field_name, retry_after in ERROR_TABLE:
        matches = type(err) is exc_type if exc_type is LookupError else isinstance(err, exc_type)
        if not matches:
            continue
        message = str(err)
        if field_name and not message.startswith(field_name):
            message = f"{field_name}: {message}"
        cls = Unavailable if status == 503 else ApiError
        kwargs: dict[str, Any] = {"status": status, "code": code}
        if retry_after is not None:
            kwargs["retry_after"] = retry_after
        if field_name is not None:
            kwargs["detail"] = {"field": field_name}
        return cls(message, **kwargs)
    return None


def error_response(err: ApiError) -> Response:
    response = jsonify(err.to_json())
    response.status_code = err.status
    if err.retry_after is not None:
        response.headers["Retry-After"] = str(max(1, math.ceil(err.retry_after)))
    return response


# Stable codes for Werkzeug's own errors (unknown route, wrong method, body too large).
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


def register_error_handlers(app: Flask) -> None:
    """Renders every error, Werkzeug's and unexpected ones included, as the JSON shape."""

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> Response:
        return error_response(err)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Response:
        status = err.code or 500
        message = err.description or err.name
        if status == 413:
            limit = app.config.get("MAX_CONTENT_LENGTH")
            message = f"the request body is larger than the limit of {limit} bytes"
        detail = None
        if status == 405 and err.valid_methods:  # type: ignore[attr-defined]
            detail = {"allowed": sorted(err.valid_methods)}  # type: ignore[attr-defined]
        response = error_response(
            ApiError(
                message, status=status, code=HTTP_CODES.get(status, "http_error"), detail=detail
            )
        )
        if status == 405 and err.valid_methods:  # type: ignore[attr-defined]
            response.headers["Allow"] = ", ".join(sorted(err.valid_methods))  # type: ignore[attr-defined]
        return response

    @app.errorhandler(Exception)
    def _unexpected(err: Exception) -> Response:
        known = api_error_for(err)
        if known is not None:
            return error_response(known)
        log.exception("unhandled error")
        return error_response(
            ApiError(
                "internal error in the service (a bug); the request was not at fault",
                status=500,
                code="internal",
                detail={"exception": type(err).__name__},
            )
        )
