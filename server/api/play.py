"""``/play``: a browser page to play any game against the bots, with hints.

The page is plain HTML, CSS and JavaScript (ES modules, no build step) under
``server/static/play/``. It talks to the service only through the public API (``/v1/games``,
``/v1/bots``, ``/v1/matches``), so it doubles as a worked example of a client: everything it
shows comes from a seat's information set, and every move it offers is one of that seat's
``legal_actions``.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, redirect, send_from_directory

STATIC_DIR = Path(__file__).resolve().parent.parent / "static" / "play"

bp = Blueprint(
    "play",
    __name__,
    static_folder=str(STATIC_DIR),
    static_url_path="/static",
    url_prefix="/play",
)


@bp.get("")
def page() -> Response:
    """The page itself; its scripts and styles are under ``/play/static/``."""
    response = send_from_directory(STATIC_DIR, "index.html", mimetype="text/html")
    # The page is small and changes with the server; never serve a stale copy after an upgrade.
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/")
def page_slash() -> Response:
    return redirect("/play")
