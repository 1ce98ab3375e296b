"""Fixtures shared by the service tests: the app a module talks to and its test client.

A module gets the one default app that every module shares (its search workers start once per
test run). A module whose tests need an app of their own (they count matches, close the app,
or need other settings) says so with ``OWN_APP``, a dict of config overrides (``{}`` for the
defaults): it gets a fresh app with its own match database, closed after the module.
"""

from __future__ import annotations

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
