"""The Atelier hint service: a Flask app serving hints and hosted matches for every game.

``create_app(config)`` builds it; ``atelier serve`` runs it under gunicorn (``server.serve``).
See ``docs/api.md``.
"""

from server.app import close_app, create_app
from server.config import ServiceConfig

__all__ = ["ServiceConfig", "close_app", "create_app"]
