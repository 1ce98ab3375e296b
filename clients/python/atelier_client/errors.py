"""The service's errors as exceptions: every error answer is ``{code, message, detail}``
(docs/api.md, "Errors"), raised as the subclass of its HTTP status so callers can catch a
kind (``except NotFound``) or read the API's ``code``."""

from __future__ import annotations

from typing import Any


class AtelierError(Exception):
    """An error answer of the service, or no answer at all (``status`` None).

    ``code`` is the API's machine-readable code (``invalid_action``, ``stale_step``, ...),
    ``message`` its sentence naming the offending field, ``detail`` its data (``detail.step``
    for ``stale_step``, ``detail.errors`` for field errors), ``retry_after`` the seconds the
    service asked to wait (429 and 503).
    """

    def __init__(
        self,
        code: str,
        message: str,
        detail: Any = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status or 'no answer'} {code}: {message}")
        self.code, self.message, self.detail = code, message, detail
        self.status, self.retry_after = status, retry_after


class ConnectionFailed(AtelierError):
    """The service could not be reached, or the connection broke before an answer."""


class BadRequest(AtelierError):
    """400: the request is malformed (not strict JSON, a token outside its header, ...)."""


class Unauthorized(AtelierError):
    """401: the API key or the seat token is missing or wrong."""


class Forbidden(AtelierError):
    """403: the seat token opens no seat of this match, or a cross-site request."""


class NotFound(AtelierError):
    """404: no such game, match, review or analysis (or not yours)."""


class Conflict(AtelierError):
    """409: the state does not allow it (``not_your_turn``, ``game_over``, ``stale_step``...)."""


class Gone(AtelierError):
    """410: the match was played with a game version this server no longer plays."""


class InvalidRequest(AtelierError):
    """422: well-formed JSON with wrong content (an illegal action, a bad information set)."""


class RateLimited(AtelierError):
    """429: over one of the client's limits; ``retry_after`` says when to try again."""


class Unavailable(AtelierError):
    """503: no capacity now (``busy``, ``deadline_exceeded``, ...); ``retry_after`` says when."""


class ServerError(AtelierError):
    """Any other 5xx: a bug in the service, never the client's fault."""


_BY_STATUS: dict[int, type[AtelierError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    422: InvalidRequest,
    429: RateLimited,
    503: Unavailable,
}


def error_for(status: int, body: Any, retry_after: float | None = None) -> AtelierError:
    """The exception of an error answer (its JSON body, or whatever came instead)."""
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        code, message, detail = body["code"], str(body.get("message", "")), body.get("detail")
    else:
        code, message, detail = "http_error", f"HTTP {status}: {str(body)[:200]}", None
    if status in _BY_STATUS:
        kind = _BY_STATUS[status]
    elif status >= 500:
        kind = ServerError
    else:
        kind = AtelierError
    return kind(code, message, detail, status, retry_after)
