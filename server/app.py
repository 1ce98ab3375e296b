"""``create_app(config)``: the Flask application factory of the hint service."""

from __future__ import annotations

from typing import Any

from flask import Flask, request

from server.api.analyses import bp as analyses_bp
from server.api.games import bp as games_bp
from server.api.matches import bp as matches_bp
from server.api.meta import bp as meta_bp
from server.api.play import bp as play_bp
from server.api.reviews import bp as reviews_bp
from server.config import ServiceConfig
from server.errors import register_error_handlers
from server.limits import API_KEY_HEADER
from server.routes import is_public, public
from server.security import harden
from server.service import atelier, resources


def register_blueprints(app: Flask) -> None:
    """The API's blueprints at their URL prefixes (the play page is registered apart)."""
    app.register_blueprint(meta_bp)
    app.register_blueprint(games_bp, url_prefix="/v1")
    app.register_blueprint(matches_bp, url_prefix="/v1/matches")
    app.register_blueprint(reviews_bp, url_prefix="/v1")
    app.register_blueprint(analyses_bp, url_prefix="/v1")


def create_app(config: ServiceConfig | dict[str, Any] | None = None) -> Flask:
    """Builds the app; ``config`` is a ``ServiceConfig``, a dict of overrides, or ``None``.

    ``None`` means the defaults plus ``ATELIER_*`` environment variables. Search workers start
    with the first request that needs them; call ``close_app(app)`` to stop them.
    """
    if config is None:
        config = ServiceConfig.load()
    elif isinstance(config, dict):
        config = ServiceConfig.from_mapping(config)
    app = Flask("atelier")
    app.config["ATELIER"] = config
    app.config["MAX_CONTENT_LENGTH"] = config.max_request_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.compact = True  # type: ignore[attr-defined]
    atelier.init_app(app)
    register_error_handlers(app)
    register_blueprints(app)
    app.register_blueprint(public(play_bp))  # the browser play page, /play
    harden(app)  # body limits, hosts, cross-site posts, headers, cost limits (server/security.py)

    @app.before_request
    def _access() -> None:
        if is_public(app, request.endpoint, request.blueprint):
            return
        access = resources().access
        client = access.client_id(request.headers.get(API_KEY_HEADER), request.remote_addr)
        access.charge(client)

    return app


def close_app(app: Flask) -> None:
    """Stops the app's search workers."""
    app.extensions["atelier"].close()
