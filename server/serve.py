"""``atelier serve``: the service under gunicorn, with defaults fit for a small machine.

One gunicorn worker process with ``http_threads`` threads handles HTTP; searches run in the
app's own pool of ``search_workers`` processes (one per core by default). A single HTTP process
keeps one cache, one rate limiter and one set of counters for the whole service; Python search
holds the GIL, so the search processes, not more HTTP processes, are what use the cores.
"""

from __future__ import annotations

import logging
from typing import Any

from gunicorn.app.base import BaseApplication

from server.app import close_app, create_app
from server.config import ServiceConfig

log = logging.getLogger("atelier.server")


def gunicorn_options(config: ServiceConfig, access_log: bool = False) -> dict[str, Any]:
    return {
        "bind": f"{config.host}:{config.port}",
        "workers": 1,
        "worker_class": "gthread",
        "threads": config.http_threads,
        # The gthread worker's heartbeat runs outside request threads, so searches never trip
        # it; deadlines are enforced by the search pool.
        "timeout": 120,
        "graceful_timeout": 15,
        "keepalive": 5,
        "backlog": 256,
        "accesslog": "-" if access_log else None,
        "errorlog": "-",
        "loglevel": "info",
        "proc_name": "atelier-serve",
        "preload_app": False,
    }


class AtelierServer(BaseApplication):
    """Gunicorn application that builds the Flask app inside the worker process."""

    def __init__(self, config: ServiceConfig, access_log: bool = False) -> None:
        self.service_config = config
        self.access_log = access_log
        self.flask_app = None
        super().__init__()

    def load_config(self) -> None:
        for key, value in gunicorn_options(self.service_config, self.access_log).items():
            self.cfg.set(key, value)
        if "control_socket_disable" in self.cfg.settings:
            # gunicorn >= 25.1 opens a control socket at a fixed per-user path; two servers
            # (a bench next to a running service) would fight over it, and nothing uses it.
            self.cfg.set("control_socket_disable", True)
        self.cfg.set("post_worker_init", self._warm)
        self.cfg.set("worker_exit", self._stop)

    def load(self):
        self.flask_app = create_app(self.service_config)
        return self.flask_app

    def _warm(self, worker: Any) -> None:
        """Starts the search processes before the first request (a cold start takes seconds)."""
        runtime = worker.wsgi.extensions["atelier"]
        runtime.pool.start()
        for _ in range(runtime.pool.size):
            runtime.pool.run("ping", {}, 30.0)
        worker.log.info(
            "atelier: %d search workers ready; matches in %s",
            runtime.pool.size,
            runtime.config.match_db,
        )

    def _stop(self, server: Any, worker: Any) -> None:
        app = getattr(worker, "wsgi", None)
        if app is not None and "atelier" in getattr(app, "extensions", {}):
            close_app(app)


def run(config: ServiceConfig, access_log: bool = False) -> None:
    """Serves until interrupted."""
    AtelierServer(config, access_log).run()
