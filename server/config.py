"""Service configuration: one dataclass with embedded defaults, optionally overridden.

``atelier serve`` must work with no file at all, so every field has a default fit for this
kind of machine (a few cores). Overrides come, in increasing priority, from a TOML file (its
``[service]`` table, or the top level), from ``ATELIER_<FIELD>`` environment variables and
from keyword arguments (the command line).
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from server.store import StoreError, parse_url
from server.urls import redacted_url


def default_db_path() -> str:
    """``$ATELIER_DATA_DIR/matches.sqlite3``, else under the XDG data directory.

    A fixed per-user location (not the working directory) so that matches survive a restart
    of the service from another directory.
    """
    base = os.environ.get("ATELIER_DATA_DIR")
    if not base:
        xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        base = str(Path(xdg) / "atelier")
    return str(Path(base) / "matches.sqlite3")


def default_workers() -> int:
    """One search process per core: Python search holds the GIL, so more cannot help."""
    return max(1, os.cpu_count() or 1)


class ConfigError(ValueError):
    """A configuration value is unknown or of the wrong type; the message names it."""


@dataclass(frozen=True)
class ServiceConfig:
    """Everything the service can be told; see ``docs/api.md`` for the meaning of each."""

    # Network (used by ``atelier serve``; the Flask app itself ignores them).
    host: str = "127.0.0.1"
    port: int = 8000
    http_threads: int = 16  # gthread worker only
    # The HTTP front: "gevent" (one greenlet per connection, so slow or idle clients cost no
    # thread; the default) or "gthread" (``http_threads`` threads; needs a buffering proxy).
    http_worker: str = "gevent"
    max_connections: int = 1000  # open connections the gevent worker serves at once
    idle_timeout_s: float = 5.0  # to send a request head (also the keep-alive time)
    body_timeout_s: float = 10.0  # to send a whole request body
    trusted_proxies: int = 0  # reverse proxies in front whose X-Forwarded-* headers to trust
    # Host names the service answers to; empty = the loopback names plus ``host`` (any host
    # when ``host`` is a wildcard such as 0.0.0.0). Browser origins allowed to post cross-site.
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    # Search worker processes.
    search_workers: int = field(default_factory=default_workers)
    start_method: str = "forkserver"
    search_nice: int = 0  # niceness added to search processes (0 = same priority as HTTP)
    # A small search per game in each new search worker before it is offered work, shared
    # out between the games (0 = none: each game's first hint in a worker is then cold).
    warm_up_ms: float = 400.0
    # Budgets (milliseconds unless named otherwise).
    default_budget_ms: float = 500.0
    max_budget_ms: float = 5_000.0
    max_simulations: int = 200_000
    deadline_margin_ms: float = 1000.0
    queue_timeout_ms: float = 5_000.0
    validate_timeout_ms: float = 5_000.0
    # Results cache.
    cache_size: int = 10_000
    cache_ttl_s: float = 3_600.0
    cache_max_bytes: int = 64 * 1024 * 1024  # estimated in-memory size of all entries
    cache_max_entry_bytes: int = 4 * 1024 * 1024  # a bigger answer is not kept
    cache_near_bytes: int = 8 * 1024 * 1024  # with --redis: each instance's copy of hot entries
    # Requests and clients.
    max_request_bytes: int = 2 * 1024 * 1024
    api_keys: tuple[str, ...] = ()
    rate_limit_per_minute: int = 0  # 0 = no limit
    rate_limit_burst: int = 0  # 0 = same as the per-minute rate
    # Cost limits per client (0 = off): searches (hints, validations, bot moves) running or
    # waiting at once (-1 = search_workers - 1, at least 1: one client never holds every
    # worker), and worker time in any 60 s (``server.limits.CostLimiter``).
    client_max_searches: int = -1
    client_search_ms_per_minute: float = 60_000.0
    # Hosted matches: a SQLite file path (or sqlite:///PATH) or a postgresql:// URL; also
    # settable as ATELIER_DB.
    match_db: str = field(default_factory=default_db_path)
    match_budget_ms: float = 200.0
    match_lock_timeout_s: float = 30.0
    match_request_bot_ms: float = 5_000.0  # bots' total thinking per request; the rest resumes
    match_idle_expiry_s: float = 7 * 86_400.0  # an unfinished match untouched this long is gone
    match_finished_expiry_s: float = 86_400.0  # a finished match is kept this long
    match_quota_per_client: int = 100  # unfinished matches one client may hold (0 = no limit)
    # The bot used by GET /v1/matches/{id}/hint when the client names none: the first of these
    # that is registered.
    default_bots: tuple[str, ...] = ("ismcts", "heuristic", "random")
    # Shared state of several instances (docs/api.md, "Running several instances"): with a
    # Redis URL the results cache, rate limits and cost limits live there, under this prefix.
    redis_url: str = ""
    redis_prefix: str = "atelier"
    # Game reviews (jobs in this process; see docs/api.md "Game review"): reviews queued or
    # running at once, overall (503 when full) and per client (429), and how long a finished
    # review is kept for polling (at most review_keep of them).
    review_max_running: int = 4
    review_max_running_per_client: int = 2
    review_keep: int = 256
    review_ttl_s: float = 3_600.0
    # Bounds of one review (a 422 ``review_too_long`` names the first; a job whose decisions
    # outgrow the second fails with ``review_too_large``) and of all finished reviews kept.
    review_max_decisions: int = 200
    review_max_answer_bytes: int = 1024 * 1024
    review_keep_bytes: int = 64 * 1024 * 1024
    # The deadline of a review's luck split (one pool task after its decisions: about 40 s in
    # Modern Art, seconds elsewhere). Past it the summary's luck is null with luck_skipped;
    # 0 = never computed. The review itself never fails for it.
    review_luck_ms: float = 120_000.0
    # The key of every value the service derives from a secret seed and publishes (a match
    # review's seed): HMAC-SHA256 under it. Empty = a random one drawn at start; a fleet gives
    # every instance the same (ATELIER_SERVER_SECRET). Never shown by to_json.
    server_secret: str = ""

    def __post_init__(self) -> None:
        checks = {
            "port": self.port >= 0,
            "http_threads": self.http_threads >= 1,
            "max_connections": self.max_connections >= 1,
            "idle_timeout_s": self.idle_timeout_s > 0,
            "body_timeout_s": self.body_timeout_s > 0,
            "trusted_proxies": self.trusted_proxies >= 0,
            "client_max_searches": self.client_max_searches >= -1,
            "client_search_ms_per_minute": self.client_search_ms_per_minute >= 0,
            "cache_max_bytes": self.cache_max_bytes >= 0,
            "cache_max_entry_bytes": self.cache_max_entry_bytes >= 0,
            "cache_near_bytes": self.cache_near_bytes >= 0,
            "search_workers": self.search_workers >= 1,
            "search_nice": 0 <= self.search_nice <= 19,
            "warm_up_ms": 0 <= self.warm_up_ms <= 60_000,
            "default_budget_ms": self.default_budget_ms > 0,
            "max_budget_ms": self.max_budget_ms > 0,
            "max_simulations": self.max_simulations >= 1,
            "deadline_margin_ms": self.deadline_margin_ms >= 0,
            "queue_timeout_ms": self.queue_timeout_ms >= 0,
            "validate_timeout_ms": self.validate_timeout_ms > 0,
            "cache_size": self.cache_size >= 0,
            "cache_ttl_s": self.cache_ttl_s > 0,
            "max_request_bytes": self.max_request_bytes >= 1024,
            "rate_limit_per_minute": self.rate_limit_per_minute >= 0,
            "rate_limit_burst": self.rate_limit_burst >= 0,
            "match_budget_ms": self.match_budget_ms > 0,
            "match_lock_timeout_s": self.match_lock_timeout_s > 0,
            "match_request_bot_ms": self.match_request_bot_ms > 0,
            "match_idle_expiry_s": self.match_idle_expiry_s > 0,
            "match_finished_expiry_s": self.match_finished_expiry_s > 0,
            "match_quota_per_client": self.match_quota_per_client >= 0,
            "review_max_running": self.review_max_running >= 1,
            "review_max_running_per_client": self.review_max_running_per_client >= 1,
            "review_keep": self.review_keep >= 1,
            "review_ttl_s": self.review_ttl_s > 0,
            "review_max_decisions": self.review_max_decisions >= 1,
            "review_max_answer_bytes": self.review_max_answer_bytes >= 1024,
            "review_luck_ms": self.review_luck_ms >= 0,
            # One finished review (its answer and its record) always fits in the store.
            "review_keep_bytes": self.review_keep_bytes
            >= 2 * self.review_max_answer_bytes + self.max_request_bytes,
        }
        for name, ok in checks.items():
            if not ok:
                raise ConfigError(f"config '{name}' is out of range: {getattr(self, name)!r}")
        if self.redis_url:
            from server.redis_conn import check_url

            problem = check_url(self.redis_url)
            if problem:
                raise ConfigError(f"config 'redis_url' {problem}")
        if not self.redis_prefix or any(c in self.redis_prefix for c in "{} "):
            raise ConfigError(
                f"config 'redis_prefix' must be non-empty, without braces or spaces: "
                f"{self.redis_prefix!r}"
            )
        if self.http_worker not in ("gevent", "gthread"):
            raise ConfigError(
                f"config 'http_worker' must be gevent or gthread, got {self.http_worker!r}"
            )
        try:
            parse_url(self.match_db)
        except StoreError as err:
            raise ConfigError(f"config 'match_db': {err}") from None
        if self.start_method not in ("forkserver", "spawn", "fork"):
            raise ConfigError(
                "config 'start_method' must be forkserver, spawn or fork, "
                f"got {self.start_method!r}"
            )

    @property
    def searches_per_client(self) -> int:
        """``client_max_searches`` resolved: its ``-1`` default leaves a worker for others."""
        if self.client_max_searches == -1:
            return max(1, self.search_workers - 1)
        return self.client_max_searches

    # --- loading -----------------------------------------------------------------------------
    @classmethod
    def from_mapping(cls, data: dict[str, Any], base: ServiceConfig | None = None) -> ServiceConfig:
        """``base`` (or the defaults) with the values of ``data`` applied, type-checked."""
        base = base or cls()
        known = {f.name: f for f in fields(cls)}
        changes: dict[str, Any] = {}
        for key, value in data.items():
            key = key.replace("-", "_")
            if key not in known:
                raise ConfigError(f"unknown config '{key}'; known: {sorted(known)}")
            changes[key] = _coerce(key, getattr(base, key), value)
        return replace(base, **changes)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
        **overrides: Any,
    ) -> ServiceConfig:
        """Defaults, then the TOML file, then ``ATELIER_*`` variables, then ``overrides``."""
        config = cls()
        if path is not None:
            try:
                with open(path, "rb") as fh:
                    data = tomllib.load(fh)
            except (OSError, tomllib.TOMLDecodeError) as err:
                raise ConfigError(f"cannot read config file {path}: {err}") from None
            config = cls.from_mapping(data.get("service", data), config)
        env = os.environ if env is None else env
        from_env = {
            f.name: env[f"ATELIER_{f.name.upper()}"]
            for f in fields(cls)
            if f"ATELIER_{f.name.upper()}" in env
        }
        if "ATELIER_REDIS" in env:  # the short name docs/api.md gives; ATELIER_REDIS_URL wins
            from_env.setdefault("redis_url", env["ATELIER_REDIS"])
        short = env.get("ATELIER_DB")  # the short name of ATELIER_MATCH_DB
        if short is not None and from_env.setdefault("match_db", short) != short:
            raise ConfigError("ATELIER_DB and ATELIER_MATCH_DB name different databases")
        config = cls.from_mapping(from_env, config)
        return cls.from_mapping({k: v for k, v in overrides.items() if v is not None}, config)

    def to_json(self) -> dict[str, Any]:
        """The configuration without secrets (API keys are counted, not shown)."""
        out = asdict(self)
        out["api_keys"] = len(self.api_keys)
        out["server_secret"] = "given" if self.server_secret else "drawn at start"
        out["match_db"] = redacted_url(self.match_db)
        if self.redis_url:
            out["redis_url"] = redacted_url(self.redis_url)
        out["default_bots"] = list(self.default_bots)
        return out


def _coerce(name: str, current: Any, value: Any) -> Any:
    """Converts ``value`` (from TOML, the environment or the CLI) to the type of ``current``."""
    kind = type(current)
    try:
        if kind is tuple:
            if isinstance(value, str):
                value = json.loads(value) if value.strip().startswith("[") else value.split(",")
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise TypeError
            return tuple(v.strip() for v in value if v.strip())
        if kind is bool:
            if isinstance(value, str):
                return value.strip().lower() in ("1", "true", "yes", "on")
            return bool(value)
        if kind is int:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise TypeError
            return int(value)
        if kind is float:
            if isinstance(value, bool):
                raise TypeError
            return float(value)
        if kind is str:
            if not isinstance(value, str):
                raise TypeError
            return value
    except (TypeError, ValueError):
        pass
    else:
        return value
    raise ConfigError(f"config '{name}' must be of type {kind.__name__}, got {value!r}")
