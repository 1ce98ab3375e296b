"""``/play``: a browser page to play any game against the bots, with hints; ``/play/rules/<game>``:
a game's rules as a readable page.

The page is plain HTML, CSS and JavaScript (ES modules, no build step) under
``server/static/play/``. It talks to the service only through the public API (``/v1/games``,
``/v1/bots``, ``/v1/matches``, ``/v1/reviews``), so it doubles as a worked example of a client:
everything it shows comes from a seat's information set (a review's past positions too, drawn
from each decision's infoset), and every move it offers is one of that seat's
``legal_actions``. The rules pages render ``docs/rules/<game>.md`` (the same text as
``GET /v1/games/{game}/rules``) to HTML with markdown-it-py.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, redirect, send_from_directory
from markupsafe import escape

import games
from server.api.games import rules_markdown
from server.docs_page import FAVICON_LINK, render_markdown

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


@bp.get("/rules/<game>")
def rules_page(game: str) -> Response:
    """The rules of ``game`` as an HTML page (404 with a readable page for an unknown game)."""
    if game not in games.DEFINITIONS:
        known = ", ".join(sorted(games.DEFINITIONS))
        return _html_page(
            "Unknown game",
            f"<p>There is no game named <code>{escape(game)}</code>; the games "
            f"are {escape(known)}.</p>",
            status=404,
        )
    defn = games.definition(game)
    text = rules_markdown(defn)
    if text is None:
        return _html_page(
            f"{defn.long_name}: rules",
            "<p>The rules of this game are not installed with this server.</p>",
            status=404,
        )
    body = render_markdown(text)
    return _html_page(f"{defn.long_name}: rules", body)


def _html_page(title: str, body: str, status: int = 200) -> Response:
    html = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} · Atelier</title>\n"
        '<link rel="stylesheet" href="/play/static/play.css">\n'
        f"{FAVICON_LINK}\n</head>\n"
        '<body class="rules-page">\n<header class="top"><h1>Atelier <span>rules</span></h1>'
        '<nav><a href="/play">play</a> <a href="/docs">API docs</a></nav></header>\n'
        f'<main class="rules card-panel">\n{body}\n</main>\n</body>\n</html>\n'
    )
    response = Response(html, status=status, mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    return response
