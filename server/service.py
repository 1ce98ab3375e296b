"""The service's shared resources (pool, cache, limits, match store) and the hint logic.

``Atelier`` is the Flask extension: ``init_app`` builds one ``Runtime`` per app from the app's
``ServiceConfig``. Request handlers stay thin; everything that decides *what* to compute
(parameters, effective budget, derived seed, cache key) lives here so that stateless hints and
hints inside hosted matches go through exactly the same path.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import time
from typing import Any

from flask import Flask, current_app

import bots
import games
from games.core.infoset import CANONICAL_KEYS, check_envelope
from server.cache import ResultCache, canonical, digest
from server.config import ServiceConfig
from server.errors import ApiError, NotFound, Unavailable, Unprocessable
from server.limits import AccessControl
from server.pool import DeadlineExceeded, PoolBusy, PoolClosed, PoolError, SearchPool, WorkerDied
from server.schemas import MAX_SEED, BudgetIn
from server.store import MatchStore


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("atelier")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


class Runtime:
    """Everything one app shares between its request threads."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.started = time.time()
        self.version = package_version()
        self.pool = SearchPool(
            config.search_workers,
            start_method=config.start_method,
            queue_timeout=config.queue_timeout_ms / 1000.0,
            nice=config.search_nice,
        )
        self.cache = ResultCache.from_config(config)
        self.access = AccessControl(
            config.api_keys, config.rate_limit_per_minute, config.rate_limit_burst
        )
        self.store = MatchStore(config.match_db)
        from server.matches import MatchService

        self.matches = MatchService(self)

    def close(self) -> None:
        self.pool.close()

    # --- inputs ------------------------------------------------------------------------------
    def definition(self, name: str) -> games.GameDefinition:
        defn = games.DEFINITIONS.get(name)
        if defn is None:
            raise NotFound(
                f"unknown game {name!r}; known: {sorted(games.DEFINITIONS)}",
                code="unknown_game",
                detail={"field": "game", "known": sorted(games.DEFINITIONS)},
            )
        return defn

    def default_bot(self) -> str:
        for name in self.config.default_bots:
            if name in bots.BOTS:
                return name
        return sorted(bots.BOTS)[0]

    def bot_spec(self, spec: Any, field: str = "bot") -> dict[str, Any]:
        """The normalised spec (``{"name", "options"}`` with defaults filled) or 422."""
        if spec is None:
            spec = self.default_bot()
        try:
            return bots.make_bot(spec).spec()
        except bots.InvalidBotSpec as err:
            raise Unprocessable(
                f"{field}: {err}", code="invalid_bot", detail={"field": field}
            ) from None

    def budget(self, given: BudgetIn | None, default_ms: float | None = None) -> bots.Budget:
        """The effective budget: the client's, capped; always with a time limit.

        A simulations-only budget still gets the configured maximum time, so every search has
        a deadline the pool can enforce.
        """
        cfg = self.config
        if given is None or (given.simulations is None and given.milliseconds is None):
            if given is not None:
                raise Unprocessable(
                    "budget: give 'simulations' or 'milliseconds' (or both)",
                    code="invalid_budget",
                    detail={"field": "budget"},
                )
            return bots.Budget(
                milliseconds=min(default_ms or cfg.default_budget_ms, cfg.max_budget_ms)
            )
        sims = None if given.simulations is None else min(given.simulations, cfg.max_simulations)
        ms = min(given.milliseconds or cfg.max_budget_ms, cfg.max_budget_ms)
        return bots.Budget(simulations=sims, milliseconds=ms)

    def deadline(self, budget: bots.Budget) -> float:
        """Seconds a worker may take: the budget plus the configured margin."""
        ms = budget.milliseconds or self.config.max_budget_ms
        return (ms + self.config.deadline_margin_ms) / 1000.0

    def params_for(
        self, defn: games.GameDefinition, given: dict[str, Any] | None, infoset: dict[str, Any]
    ) -> dict[str, Any]:
        """Validated parameters: the request's, else the infoset's own."""
        if given is not None:
            field, raw = "params", given
        else:
            field, raw = "infoset.params", infoset.get("params")
            if not isinstance(raw, dict):
                raise Unprocessable(
                    "field 'infoset.params' must be an object (the game's parameters)",
                    code="invalid_infoset",
                    detail={"field": "infoset.params"},
                )
        try:
            return defn.validate_params(raw)
        except games.InvalidParams as err:
            raise Unprocessable(
                f"{field}: {err}", code="invalid_params", detail={"field": field}
            ) from None

    def check_infoset(
        self, defn: games.GameDefinition, params: dict[str, Any], infoset: dict[str, Any]
    ) -> None:
        """The envelope check (cheap, in this process); replay happens in the worker."""
        try:
            check_envelope(defn, params, infoset)
        except games.InvalidInfoset as err:
            raise Unprocessable(
                f"infoset: {err}", code="invalid_infoset", detail={"field": "infoset"}
            ) from None

    # --- running tasks -----------------------------------------------------------------------
    def run(self, kind: str, payload: dict[str, Any], deadline: float) -> dict[str, Any]:
        """Runs a task in the pool; maps worker-side errors and pool failures to ``ApiError``."""
        try:
            result = self.pool.run(kind, payload, deadline)
        except PoolBusy as err:
            raise Unavailable(str(err), code="busy", retry_after=1.0) from None
        except DeadlineExceeded as err:
            raise Unavailable(str(err), code="deadline_exceeded", retry_after=1.0) from None
        except WorkerDied as err:
            raise Unavailable(str(err), code="worker_died", retry_after=1.0) from None
        except PoolClosed as err:
            raise Unavailable(str(err), code="shutting_down", retry_after=5.0) from None
        except PoolError as err:  # pragma: no cover - every subclass is handled above
            raise Unavailable(str(err)) from None
        if "error" in result:
            e = result["error"]
            raise ApiError(
                e["message"],
                status=e.get("status", 500),
                code=e.get("code", "internal"),
                detail=e.get("detail"),
            )
        return result["ok"]

    def hint(
        self,
        game: str,
        infoset: dict[str, Any],
        *,
        params: dict[str, Any] | None = None,
        bot: Any = None,
        budget: BudgetIn | None = None,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """A hint for ``infoset`` (cached); the answer says whether it came from the cache."""
        return self.hint_answer(game, infoset, params=params, bot=bot, budget=budget, seed=seed)[0]

    def hint_answer(
        self,
        game: str,
        infoset: dict[str, Any],
        *,
        params: dict[str, Any] | None = None,
        bot: Any = None,
        budget: BudgetIn | None = None,
        seed: int | None = None,
        raw_key: str | None = None,
    ) -> tuple[dict[str, Any], bytes]:
        """The hint as a dict and as JSON text (a cache hit costs no encoding at all).

        ``raw_key`` (a digest of the exact request bytes) is stored next to the canonical key,
        so that the same bytes again are answered without parsing (see ``api.games.hint``).
        """
        defn = self.definition(game)
        full_params = self.params_for(defn, params, infoset)
        self.check_infoset(defn, full_params, infoset)
        spec = self.bot_spec(bot)
        effective = self.budget(budget)
        request = {
            "game": defn.name,
            "version": defn.version,
            "params": full_params,
            # The view is not canonical, but when present it must match the replay: keep it in
            # the key so that a wrong view is never answered from the cache.
            "infoset": {k: infoset[k] for k in (*CANONICAL_KEYS, "view") if k in infoset},
            "bot": spec,
            "budget": effective.to_json(),
        }
        text = canonical(request)
        if seed is None:
            seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % (MAX_SEED + 1)
        key = "hint:" + hashlib.sha256(f"{text}#seed={seed}".encode()).hexdigest()
        hit = self.cache.get(key)
        if hit is not None:
            if raw_key is not None:
                self.cache.put(raw_key, hit)
            return hit
        payload = {
            "game": defn.name,
            "params": full_params,
            "infoset": infoset,
            "bot": spec,
            "budget": effective.to_json(),
            "seed": seed,
        }
        result = self.run("hint", payload, self.deadline(effective))
        answer = {
            "game": defn.name,
            "seat": infoset["seat"],
            **result,
            "seed": seed,
            "bot": spec,
            "budget": effective.to_json(),
        }
        # One encoding serves both answers: they differ only in the trailing "cached" flag.
        head = json.dumps(answer, separators=(",", ":")).encode()[:-1]
        hit_body = head + b',"cached":true}'
        self.cache.put(key, ({**answer, "cached": True}, hit_body))
        if raw_key is not None:
            self.cache.put(raw_key, ({**answer, "cached": True}, hit_body))
        return {**answer, "cached": False}, head + b',"cached":false}'

    def validate(
        self, game: str, infoset: dict[str, Any], params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Replays the infoset in a worker: whose turn it is and the seat's legal actions."""
        defn = self.definition(game)
        full_params = self.params_for(defn, params, infoset)
        self.check_infoset(defn, full_params, infoset)
        payload = {"game": defn.name, "params": full_params, "infoset": infoset}
        key = "validate:" + digest(payload)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        result = self.run("validate", payload, self.config.validate_timeout_ms / 1000.0)
        self.cache.put(key, result)
        return result

    def health(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "version": self.version,
            "uptime_s": round(time.time() - self.started, 3),
            "games": sorted(games.DEFINITIONS),
            "bots": sorted(bots.BOTS),
            "pool": self.pool.info(),
            "cache": self.cache.info(),
            "matches": {"db": self.config.match_db},
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
    """Flask extension: ``Atelier().init_app(app)`` attaches a ``Runtime`` to the app."""

    def __init__(self, app: Flask | None = None) -> None:
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask) -> None:
        config: ServiceConfig = app.config["ATELIER"]
        runtime = Runtime(config)
        app.extensions["atelier"] = runtime
        atexit.register(runtime.close)


atelier = Atelier()


def runtime() -> Runtime:
    """The ``Runtime`` of the app handling the current request."""
    return current_app.extensions["atelier"]
