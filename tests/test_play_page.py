"""The /play page's files as the service serves them (no browser needed; see
``tests/test_play_e2e.py`` for the games played in Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

from server.api.play import STATIC_DIR

# Its own app (tests/conftest.py): closed with the module.
OWN_APP: dict[str, object] = {}

IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["'](\.[^"']+)["'];""", re.M | re.S)


def test_page_is_html_and_not_cached(client):
    r = client.get("/play")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert r.headers["Cache-Control"] == "no-cache"
    html = r.get_data(as_text=True)
    assert '<script type="module" src="/play/static/app.js">' in html
    assert '<link rel="stylesheet" href="/play/static/play.css">' in html
    assert client.get("/play/").headers["Location"].endswith("/play")


def test_every_script_is_served_with_a_javascript_type(client):
    scripts = sorted(STATIC_DIR.rglob("*.js"))
    assert {p.name for p in scripts} >= {
        "app.js",
        "api.js",
        "moves.js",
        "renderers.js",
        "review.js",
    }
    for path in scripts:
        rel = path.relative_to(STATIC_DIR).as_posix()
        r = client.get(f"/play/static/{rel}")
        assert r.status_code == 200, rel
        assert r.mimetype in ("text/javascript", "application/javascript"), (rel, r.mimetype)
        assert r.get_data() == path.read_bytes()
    assert client.get("/play/static/play.css").mimetype == "text/css"
    assert client.get("/play/static/nothing.js").status_code == 404


def test_module_imports_resolve():
    """Every relative import of every module names a file that exists (a typo would only
    show as a blank page in the browser)."""
    for path in STATIC_DIR.rglob("*.js"):
        for target in IMPORT.findall(path.read_text(encoding="utf-8")):
            assert (path.parent / target).resolve().is_file(), f"{path.name} imports {target}"


def test_page_uses_only_the_public_api():
    """The page is a worked example of a client: it calls only documented /v1 endpoints."""
    api = (STATIC_DIR / "api.js").read_text(encoding="utf-8")
    paths = set(re.findall(r'"(/v1/[^"`]*)"|`(/v1/[^`]*)`', api))
    flat = {p for pair in paths for p in pair if p}
    assert flat == {
        "/v1/games",
        "/v1/bots",
        "/v1/matches",
        "/v1/matches/${id}",
        "/v1/matches/${id}/actions",
        "/v1/matches/${id}/hint",
        "/v1/games/${game}/bots",
        "/v1/games/${game}/levels",
        "/v1/matches/${id}/review",
        "/v1/reviews/${id}",
        "/v1/reviews/${id}/decisions/${n}",
        "/v1/games/${game}/validate",
    }
    others = [p for p in STATIC_DIR.rglob("*.js") if p.name != "api.js"]
    for path in others:
        text = path.read_text(encoding="utf-8")
        assert "fetch(" not in text and "/v1/" not in text, f"{path.name} calls the API itself"


def test_every_game_with_a_renderer_exists():
    import games

    renderers = (STATIC_DIR / "renderers.js").read_text(encoding="utf-8")
    named = set(re.findall(r"^\s+(\w+): \w+,$", renderers, re.M))
    assert named and named <= set(games.DEFINITIONS)
    for game in named:
        assert Path(STATIC_DIR / "games" / f"{game}.js").is_file()


def test_rules_pages_render_every_game_as_html(client):
    import games

    for name, defn in games.DEFINITIONS.items():
        r = client.get(f"/play/rules/{name}")
        assert r.status_code == 200 and r.mimetype == "text/html", name
        html = r.get_data(as_text=True)
        assert f"<title>{defn.long_name}: rules" in html
        assert "<table>" in html and 'id="rulings"' in html  # tables and the #rulings anchor
        assert "shared/" not in html and "RULINGS" not in html, name  # no internal paths
        assert "<h2" in html and "## " not in html  # rendered, not raw Markdown
    r = client.get("/play/rules/chess")
    assert r.status_code == 404 and "no game named <code>chess</code>" in r.get_data(as_text=True)


def test_rules_markdown_escapes_raw_html():
    from server.docs_page import heading_slug, render_markdown

    out = render_markdown("# A `b` c\n\n<script>alert(1)</script>\n")
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert 'id="a-b-c"' in out
    assert heading_slug("The small variant") == "the-small-variant"


def test_rules_pages_open_with_the_rules_not_code(client):
    """Issue 43 item 5: a player's page starts with the game; loading it from Python (and every
    other code block) comes in the Actions section or later."""
    import games

    for name in games.DEFINITIONS:
        html = client.get(f"/play/rules/{name}").get_data(as_text=True)
        actions = html.index('id="actions"')
        assert "<pre" not in html[:actions], name
        assert "pyspiel.load_game" in html[actions:], name  # moved, not lost


def test_every_page_declares_its_icon(client):
    """Issue 43 item 9: no page makes the browser ask for /favicon.ico (a 404 in the console)."""
    from server.docs_page import FAVICON_LINK

    for path in ("/play", "/play/rules/gallery_rush", "/play/rules/chess", "/docs"):
        assert FAVICON_LINK in client.get(path).get_data(as_text=True), path


def test_the_docs_page_renders_the_description(client):
    """Issue 43 item 9: the OpenAPI description as HTML on /docs, not Markdown in a <pre>."""
    html = client.get("/docs").get_data(as_text=True)
    about = html[html.index('<section id="about"') : html.index("</section>")]
    assert "<ul>" in about and "<code>Retry-After</code>" in about and "`" not in about
