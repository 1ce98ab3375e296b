"""``atelier serve``: the service under gunicorn, with defaults fit for a small machine.

One gunicorn worker process handles HTTP; searches run in the app's own pool of
``search_workers`` processes (one per core by default). A single HTTP process keeps one cache,
one rate limiter and one set of counters for the whole service; Python search holds the GIL,
so the search processes, not more HTTP processes, are what use the cores.

The HTTP worker is gunicorn's gevent worker by default: each connection is a greenlet, so a
client that sends its request slowly, or opens a connection and sends nothing, holds no thread
and cannot starve the others (with the threaded worker, 16 such sockets used to stop the
service). Slow clients are still cut off: a request head must arrive within
``idle_timeout_s`` (gunicorn's keep-alive timeout, which the gevent worker applies to reading
the head), a body within ``body_timeout_s`` (``server.transport``), and at most
``max_connections`` connections are served at once (the rest wait in the listen backlog).
``http_worker = "gthread"`` keeps the threaded worker, for deployments behind a proxy that
buffers whole requests (see docs/api.md, "Operating it").
"""

from __future__ import annotations

import errno
import json
import logging
import math
import socket
import threading
import time
from typing import Any

from gunicorn import util as gunicorn_util
from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger as GunicornLogger
from gunicorn.workers.ggevent import GeventWorker
from gunicorn.workers.gthread import ThreadWorker

from server.app import close_app, create_app
from server.config import ServiceConfig

log = logging.getLogger("atelier.server")


# Codes of the errors gunicorn answers itself, before the app sees the request.
GUNICORN_CODES = {
    400: "bad_request",
    403: "forbidden",
    414: "uri_too_long",
    417: "expectation_failed",
    431: "headers_too_large",
    500: "internal",
    501: "not_implemented",
}


def write_json_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's own error page (a request line or headers too long, a malformed request), in
    the service's JSON error shape instead of HTML, with the headers of every JSON answer."""
    from server.logs import redact
    from server.security import API_HEADERS

    body = json.dumps(
        {
            "code": GUNICORN_CODES.get(status_int, "http_error"),
            "message": redact(f"{reason}: {mesg}" if mesg else reason),
            "detail": None,
        }
    ).encode()
    extra = "".join(f"{name}: {value}\r\n" for name, value in API_HEADERS)
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
    )
    gunicorn_util.write_nonblock(sock, head.encode("latin-1") + body)


def _json_errors() -> None:
    # gunicorn renders every error it answers itself through ``util.write_error``; this is the
    # one place to change them all, and only in the server process.
    gunicorn_util.write_error = write_json_error


class AtelierGeventWorker(GeventWorker):
    """gunicorn's gevent worker, answering its own errors as JSON."""

    def init_process(self) -> None:
        _json_errors()
        super().init_process()


class InThreadpool:
    """Runs every method of the wrapped object in gevent's thread pool.

    SQLite does its disk work (commits, WAL checkpoints with their fsync) in C without yielding
    to gevent: in the gevent worker, every connection would wait for every match write. In the
    thread pool the write blocks only its own request, as under threads.

    An exception is carried back to the caller by hand and raised there: one raised in the
    pool would also be printed, traceback and all, by gevent's hub, and expected ones (a
    database down for a moment is a 503 ``match_store_unavailable``, another instance's move
    a ``StaleRevision``) would fill the log with tracebacks that look like crashes.
    """

    def __init__(self, target: Any) -> None:
        self._target = target

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not callable(value):
            return value
        from gevent import get_hub

        def run(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Exception | None]:
            try:
                return value(*args, **kwargs), None
            except Exception as err:  # raised again by ``call``, in the request's greenlet
                return None, err

        def call(*args: Any, **kwargs: Any) -> Any:
            result, err = get_hub().threadpool.apply(run, (args, kwargs))
            if err is not None:
                raise err
            return result

        return call


class AtelierThreadWorker(ThreadWorker):
    """gunicorn's threaded worker, answering its own errors as JSON."""

    def init_process(self) -> None:
        _json_errors()
        super().init_process()


class RedactingLogger(GunicornLogger):
    """gunicorn's logger with secrets redacted from every record (see ``server.logs``); the
    ``atelier`` loggers write to the same handlers."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        from server.logs import install

        secrets = getattr(cfg, "atelier_secrets", ())
        install([*self.error_log.handlers, *self.access_log.handlers], secrets)
        ours = logging.getLogger("atelier")
        ours.handlers = list(self.error_log.handlers)
        ours.setLevel(logging.INFO)
        ours.propagate = False


WORKER_CLASSES = {
    "gevent": "server.serve.AtelierGeventWorker",
    "gthread": "server.serve.AtelierThreadWorker",
}


def gunicorn_options(config: ServiceConfig, access_log: bool = False) -> dict[str, Any]:
    return {
        "bind": f"{config.host}:{config.port}",
        "workers": 1,
        "worker_class": WORKER_CLASSES[config.http_worker],
        "threads": config.http_threads,
        "worker_connections": config.max_connections,
        # The worker's heartbeat runs outside request handlers, so searches never trip it;
        # deadlines are enforced by the search pool.
        "timeout": 120,
        "graceful_timeout": 15,
        # Also the time a client has to send a request head under the gevent worker.
        "keepalive": max(1, math.ceil(config.idle_timeout_s)),
        "backlog": 2048,
        "logger_class": "server.serve.RedactingLogger",
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
        # Read by ``RedactingLogger`` (gunicorn's Config keeps unknown attributes).
        self.cfg.atelier_secrets = self.service_config.api_keys
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
        """Starts the search processes, which warm up (``server.warmup``) while the HTTP front
        already answers: ``/healthz`` says 503 ``warming_up`` until every one is warm, then
        the log says the service is ready."""
        runtime = worker.wsgi.extensions["atelier"]
        if isinstance(worker, GeventWorker):
            runtime.store.count()  # creates the schema here, in the hub, before any request
            # The match service holds the store too: both must see the wrapped one.
            store = InThreadpool(runtime.store)
            runtime.store = worker.wsgi.extensions["atelier.matches"].store = store
        started = time.monotonic()
        runtime.pool.start()
        # This instance's job worker: it takes review jobs whichever instance queued them
        # (their tasks wait for a warm worker like any request).
        worker.wsgi.extensions["atelier.reviews"].start()

        def announce() -> None:
            if not runtime.pool.wait_ready(runtime.pool.warm_timeout + 5.0):
                worker.log.error("atelier: the search workers did not warm up; see above")
                return
            worker.log.info(
                "atelier: ready: %d search workers warmed up in %.1f s; matches in %s",
                runtime.pool.size,
                time.monotonic() - started,
                runtime.store.display,
            )

        # A thread (a greenlet under gevent): the front answers meanwhile.
        threading.Thread(target=announce, name="atelier-ready", daemon=True).start()

    def _stop(self, server: Any, worker: Any) -> None:
        app = getattr(worker, "wsgi", None)
        if app is not None and "atelier" in getattr(app, "extensions", {}):
            close_app(app)


def address_problem(host: str, port: int) -> str | None:
    """Why gunicorn could not listen on ``host:port`` (one line, naming what to change), or
    ``None`` when it can.

    On a busy port gunicorn logs "Connection in use" five times, a second apart, and then exits
    with "Can't connect": checked first, ``atelier serve`` says so before its banner and exits
    at once. The probe binds as gunicorn does (``SO_REUSEADDR``, so a port whose last
    connections are in TIME_WAIT counts as free) and never listens, so it leaves nothing behind.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as err:
        return f"cannot listen on {host!r}: {err.strerror}; give another --host"
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is already in use (another atelier serve?); "
                    f"choose another with --port, e.g. --port {port + 1}"
                )
            return f"cannot listen on {host}:{port}: {err.strerror}; choose another --port"
    return None


def run(config: ServiceConfig, access_log: bool = False) -> None:
    """Serves until interrupted."""
    AtelierServer(config, access_log).run()
