"""The Atelier hint service: a Flask app serving hints and hosted matches for every game.

``create_app(config)`` builds it; ``atelier serve`` runs it under gunicorn (``server.serve``).
See ``docs/api.md``.

The names below are imported on first use (PEP 562): ``server.commands`` (``atelier serve``)
lives in this package, and importing Flask for every ``atelier`` command, ``--help`` included,
cost most of the command line's start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.app import close_app, create_app
    from server.config import ServiceConfig

__all__ = ["ServiceConfig", "close_app", "create_app"]

_LAZY = {"close_app": "server.app", "create_app": "server.app", "ServiceConfig": "server.config"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'server' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)
