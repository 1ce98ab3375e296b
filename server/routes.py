"""What a route says about itself: ``@public`` (no API key, no rate limit) and ``@documented``.

The OpenAPI document (``server.openapi``) is generated from the routes the app registers and
what these decorators record on their view functions, so a route and its documentation are
written in one place and cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Blueprint, Flask

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T", Callable[..., Any], Blueprint)

PUBLIC_ATTR = "atelier_public"
DOC_ATTR = "atelier_doc"


def public(target: T) -> T:
    """Marks a view (or a whole blueprint, its static files included) as reachable without an
    API key and outside the rate limit: liveness, documentation, the play page's files."""
    setattr(target, PUBLIC_ATTR, True)
    return target


def is_public(app: Flask, endpoint: str | None, blueprint: str | None) -> bool:
    """Whether the request's endpoint is public (unknown routes are not: they need a key)."""
    if endpoint is None:
        return False
    if blueprint is not None and getattr(app.blueprints.get(blueprint), PUBLIC_ATTR, False):
        return True
    return getattr(app.view_functions.get(endpoint), PUBLIC_ATTR, False)


@dataclass(frozen=True)
class RouteDoc:
    """One operation's documentation; models are names of ``server.schemas`` models."""

    summary: str
    operation_id: str
    tag: str
    response: str | dict[str, Any]  # a model name, or an inline JSON Schema
    description: str = "the answer"
    status: str = "200"
    request: str | None = None
    errors: tuple[str, ...] = ()
    parameters: tuple[dict[str, Any], ...] = ()
    content_type: str = "application/json"
    extra: dict[str, Any] = field(default_factory=dict)


def documented(**kwargs: Any) -> Callable[[F], F]:
    """Records the operation's ``RouteDoc`` on the view (see ``server.openapi``)."""
    doc = RouteDoc(**kwargs)

    def mark(view: F) -> F:
        setattr(view, DOC_ATTR, doc)
        return view

    return mark


def route_doc(view: Callable[..., Any]) -> RouteDoc | None:
    return getattr(view, DOC_ATTR, None)


SEAT_TOKEN_PARAM: dict[str, Any] = {
    "name": "X-Seat-Token",
    "in": "header",
    "required": False,
    "description": "the secret token of a human seat (returned by POST /v1/matches)",
    "schema": {"type": "string", "minLength": 1},
}
