"""Fixtures shared by the service tests: the app a module talks to and its test client.

A module gets the one default app that every module shares (its search workers start once per
test run). A module whose tests need an app of their own (they count matches, close the app,
or need other settings) says so with ``OWN_APP``, a dict of config overrides (``{}`` for the
defaults): it gets a fresh app with its own match database, closed after the module.

The browser tests share the service on a port (``base_url``), one Chromium per module
(``browser``) and the screenshot folders.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from server import close_app
from tests.server_support import make_app, shared_app


@pytest.fixture(scope="module")
def app(request, tmp_path_factory):
    overrides = getattr(request.module, "OWN_APP", None)
    if overrides is None:
        yield shared_app(tmp_path_factory.mktemp("shared-app"))
        return
    own = make_app(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]), **overrides)
    yield own
    close_app(own)


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


# --- the page's browser tests (tests/test_*_e2e.py) ------------------------------------------
# Chromium is imported inside the fixtures: tests/browser_support.py skips (or fails under CI)
# the module that imports it when there is no browser, which must not be this file.
@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """The service on 127.0.0.1 (werkzeug in a thread, port 0), for the page tests."""
    from werkzeug.serving import make_server

    app = make_app(tmp_path_factory.mktemp("play"), search_workers=2)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="play-e2e-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        close_app(app)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium per module."""
    from tests.browser_support import chromium

    driver = chromium(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where the docs' screenshots go: ``$ATELIER_PLAY_SCREENSHOTS``, else a temporary folder."""
    target = os.environ.get("ATELIER_PLAY_SCREENSHOTS")
    path = Path(target) if target else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def scratch_shots(tmp_path_factory) -> Path:
    """Screenshots only worth a look when a test fails (the end of each game)."""
    return tmp_path_factory.mktemp("scratch-screenshots")
