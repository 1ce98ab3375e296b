"""The service's shared resources, and the Flask extension that wires the services on them.

``Atelier.init_app`` builds, per app: the ``Resources`` (search pool, results cache, access
control, match store), the ``HintService`` on the pool and cache, and the ``MatchService`` on
the store and the hint service. Request handlers reach them through ``resources()``,
``hints()`` and ``matches()``; the services know nothing of Flask or of each other's
internals (the layers run one way: resources <- hints <- matches <- api).
"""

from __future__ import annotations

import atexit
import time
from typing import Any

from flask import Flask, current_app, has_request_context, request

import bots
import games
from server.cache import result_cache
from server.config import ServiceConfig
from server.errors import Unavailable
from server.hints import HintService
from server.limits import API_KEY_HEADER, MeteredPool, access_control, cost_limiter
from server.matches import MatchService
from server.pool import SearchPool
from server.redis_conn import shared_redis
from server.reviews import ReviewService, job_client
from server.store import StoreError, open_store


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("atelier")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


class Resources:
    """What one app shares between its request threads: the pool, cache, limits and store."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.started = time.time()
        self.version = package_version()
        # With --redis the cache and the limits are shared by every instance (docs/api.md).
        self.redis = shared_redis(config)
        self.access = access_control(config, self.redis)
        self.costs = cost_limiter(config, self.redis)
        # Every task (hint, validation, a match's bot move) passes the per-client cost limits.
        self.pool = MeteredPool(
            SearchPool(
                config.search_workers,
                start_method=config.start_method,
                queue_timeout=config.queue_timeout_ms / 1000.0,
                nice=config.search_nice,
                warm_up_ms=config.warm_up_ms,
            ),
            self.costs,
            self.request_client,
        )
        self.cache = result_cache(config, self.redis)
        self.store = open_store(config.match_db)  # SQLite or PostgreSQL, by the URL
        self.closers: list[Any] = []  # what else stops with the app (the job worker)

    def request_client(self) -> str | None:
        """The client of the current request for the cost limits; outside requests, the
        client of the review job running in this thread (``None`` elsewhere)."""
        if not has_request_context():
            return job_client()
        return self.access.client_id(request.headers.get(API_KEY_HEADER), request.remote_addr)

    def close(self) -> None:
        for close in self.closers:
            close()
        self.pool.close()
        self.store.close()
        if self.redis is not None:
            self.redis.close()

    def check_ready(self) -> None:
        """Raises 503 ``warming_up`` while the search workers of a started pool warm up, so
        that a health check (and ``atelier serve``'s own start-up) sends no request to a
        worker that would spend its budget on one-time costs. A pool not started yet (an app
        without ``atelier serve``, whose first request starts it) is not warming."""
        info = self.pool.info()
        if info["started"] and not info["ready"]:
            raise Unavailable(
                f"the search workers are warming up ({info['warming']} of {info['size']} "
                "still warming); retry in a moment",
                code="warming_up",
                detail={"warming": info["warming"], "size": info["size"]},
            )

    def check_shared(self) -> None:
        """Raises ``RedisUnavailable`` or ``StoreUnavailable`` (503) when the shared Redis or
        the match database does not answer, so that a health check takes this instance out of
        rotation while it cannot serve matches."""
        self.check_ready()
        if self.redis is not None:
            self.redis.call(self.redis.client.ping)
        self.store.ping()

    def store_health(self) -> dict[str, Any]:
        """The match database (its URL without the password) and whether it answers now."""
        out = self.store.info()
        try:
            out["ping_ms"] = round(self.store.ping(), 3)
            out["reachable"] = True
        except StoreError as err:
            out["reachable"] = False
            out["error"] = str(err)
        return out

    def health(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "version": self.version,
            "uptime_s": round(time.time() - self.started, 3),
            "games": sorted(games.DEFINITIONS),
            "bots": sorted(bots.BOTS),
            "pool": self.pool.info(),
            "cache": self.cache.info(),
            "matches": self.store_health(),
            **({"redis": self.redis.health()} if self.redis is not None else {}),
            "limits": {
                "api_keys": bool(self.config.api_keys),
                "rate_limit_per_minute": self.config.rate_limit_per_minute,
                "refused": self.access.refused,
                "max_request_bytes": self.config.max_request_bytes,
                "max_budget_ms": self.config.max_budget_ms,
                "max_simulations": self.config.max_simulations,
            },
        }


class Atelier:
    """Flask extension: ``Atelier().init_app(app)`` wires the resources and services."""

    def __init__(self, app: Flask | None = None) -> None:
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask) -> None:
        config: ServiceConfig = app.config["ATELIER"]
        res = Resources(config)
        hint_service = HintService(res.pool, res.cache, config)
        app.extensions["atelier"] = res
        app.extensions["atelier.hints"] = hint_service
        app.extensions["atelier.matches"] = MatchService(res.store, hint_service, config)
        # Review jobs: in this process, or in the fleet's Redis with --redis (server.jobs).
        review_service = ReviewService(hint_service, config, res.redis)
        res.closers.append(review_service.close)
        app.extensions["atelier.reviews"] = review_service
        atexit.register(res.close)


atelier = Atelier()


def resources() -> Resources:
    """The ``Resources`` of the app handling the current request."""
    return current_app.extensions["atelier"]


def hints() -> HintService:
    """The hint service of the app handling the current request."""
    return current_app.extensions["atelier.hints"]


def matches() -> MatchService:
    """The match service of the app handling the current request."""
    return current_app.extensions["atelier.matches"]


def reviews() -> ReviewService:
    """The review service of the app handling the current request."""
    return current_app.extensions["atelier.reviews"]
