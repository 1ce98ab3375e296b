"""What the service's blueprints share: reading a JSON body, query numbers and the seat token.

The blueprints (``server.api.games``, ``matches``, ``meta``, ``reviews``, ``play``) import this
package; ``server.app`` registers them, so that this package never imports its own blueprints
(a cycle, issue 44.5).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from flask import request

from server.errors import ApiError, Unprocessable

SEAT_TOKEN_HEADER = "X-Seat-Token"


# A JSON escape of a UTF-16 surrogate (paired or lone); only bodies holding one are searched.
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def lone_surrogate_at(value: Any, where: str = "body") -> str | None:
    """The path of the first string (key or value) in ``value`` that is not valid text.

    JSON's ``"\\ud800"`` decodes to a lone surrogate, which a Python string holds but no
    encoder writes; it would fail later (cache keys, the worker pipe) as a 500.
    """
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, path = stack.pop()
        if type(item) is str:
            if not item.isascii() and _not_utf8(item):
                return path
        elif type(item) is dict:
            for key, child in item.items():
                if _not_utf8(key):
                    return f"{path}.{key.encode('utf-8', 'backslashreplace').decode()}"
                stack.append((child, key if path == "body" else f"{path}.{key}"))
        elif type(item) is list:
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))
    return None


def _not_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# Information sets nest about six levels deep; anything far deeper is not one, and would only
# risk recursion limits further on (replay, canonical JSON, the worker pipe).
MAX_JSON_DEPTH = 32


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is out of range")
    return value


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers deeper than ``limit`` (level by level, no recursion)."""
    frontier = [value] if type(value) in (dict, list) else []
    depth = 0
    while frontier:
        depth += 1
        if depth > limit:
            return True
        deeper = []
        for item in frontier:
            for child in item.values() if type(item) is dict else item:
                if type(child) is dict or type(child) is list:
                    deeper.append(child)
        frontier = deeper
    return False


def json_body() -> Any:
    """The parsed JSON body (any content type); 400 if it is missing, not JSON or too deep.

    Strict JSON: ``NaN`` and ``Infinity`` (which Python's parser would accept) are refused.
    """
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise ApiError("the request needs a JSON body", code="missing_body")
    too_deep = False
    try:
        data = json.loads(raw, parse_constant=_no_constants, parse_float=_finite_float)
    except RecursionError:
        data, too_deep = None, True
    except (ValueError, UnicodeDecodeError) as err:
        raise ApiError(f"the request body is not valid JSON: {err}", code="invalid_json") from None
    if too_deep or json_depth_exceeds(data, MAX_JSON_DEPTH):
        raise ApiError(
            f"the request body nests deeper than {MAX_JSON_DEPTH} levels",
            code="too_deep",
            detail={"max_depth": MAX_JSON_DEPTH},
        )
    if SURROGATE_ESCAPE.search(raw):
        where = lone_surrogate_at(data)
        if where is not None:
            raise Unprocessable(
                f"field '{where}' holds a lone UTF-16 surrogate escape, which is not text",
                code="invalid_text",
                detail={"field": where},
            )
    return data


def query_number(
    name: str,
    kind: type,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive_min: bool = False,
) -> Any:
    """A numeric query parameter or ``None``; 422 naming the parameter when malformed."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = kind(raw)
    except ValueError:
        raise Unprocessable(
            f"query parameter '{name}' must be a {'whole ' if kind is int else ''}number, "
            f"got {raw!r}",
            code="invalid_request",
            detail={"field": name},
        ) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise Unprocessable(
            f"query parameter '{name}' must be finite",
            code="invalid_request",
            detail={"field": name},
        )
    too_low = minimum is not None and (value <= minimum if exclusive_min else value < minimum)
    if too_low or (maximum is not None and value > maximum):
        bound = f"> {minimum}" if exclusive_min else f">= {minimum}"
        rng = bound if maximum is None else f"{bound} and <= {maximum}"
        raise Unprocessable(
            f"query parameter '{name}' must be {rng}, got {raw}",
            code="invalid_request",
            detail={"field": name},
        )
    return value


def seat_token() -> str | None:
    """The seat token, from the ``X-Seat-Token`` header only.

    A token in the query string would land in access logs and browser histories, so
    ``?token=`` is refused with a message that says where the token belongs.
    """
    if "token" in request.args:
        raise ApiError(
            f"send the seat token in the {SEAT_TOKEN_HEADER} header, not in the URL (URLs are "
            "logged)",
            code="token_in_url",
            detail={"field": "token"},
        )
    return request.headers.get(SEAT_TOKEN_HEADER) or None
