"""The connection to the Redis that several ``atelier serve`` instances share (``--redis``).

One ``SharedRedis`` per app: a ``redis.Redis`` client (its own connection pool) with bounded
socket timeouts, the key prefix of this deployment, and one rule for failures: a Redis that
does not answer is a 503 ``redis_unavailable`` (``RedisUnavailable``), never a 500 and never a
hang. A request waits at most about ``2 x (connect timeout + socket timeout)`` for it (one retry,
for a pooled connection that a restarted Redis closed).

The ``redis`` package is the ``fleet`` extra (``pip install 'atelier[fleet]'``); it is imported
only when a Redis URL is configured, so the default install needs nothing of this.

Every key starts with ``{prefix}:`` in braces, a Redis Cluster hash tag: all of one
deployment's keys share a slot, which the multi-key Lua scripts of ``server.cache`` and
``server.limits`` need. Tested against a standalone Redis (Debian's redis-server 7).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from server.errors import Unavailable
from server.urls import redacted_url

CONNECT_TIMEOUT_S = 1.0
SOCKET_TIMEOUT_S = 2.0
URL_SCHEMES = ("redis", "rediss", "unix")


def check_url(url: str) -> str | None:
    """Why ``url`` is not a Redis URL, or ``None`` if it looks like one."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme not in URL_SCHEMES:
        return f"must start with redis://, rediss:// or unix://, got {redacted_url(url)!r}"
    return None


class RedisUnavailable(Unavailable):
    """The shared Redis did not answer (down, unreachable, too slow): retry later."""

    code = "redis_unavailable"


class RedisStartupError(RuntimeError):
    """The Redis of ``--redis`` cannot be reached when the service starts (one-line message)."""


def _redis_module() -> Any:
    try:
        import redis
    except ImportError:  # pragma: no cover - depends on the install
        raise RedisStartupError(
            "--redis needs the redis package: pip install 'atelier[fleet]'"
        ) from None
    return redis


class SharedRedis:
    """A Redis client for one deployment: prefixed keys, Lua scripts, failures as 503."""

    def __init__(
        self,
        url: str,
        prefix: str = "atelier",
        connect_timeout: float = CONNECT_TIMEOUT_S,
        timeout: float = SOCKET_TIMEOUT_S,
    ) -> None:
        redis = _redis_module()
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.url = url
        self.shown_url = redacted_url(url)
        self.prefix = "{" + prefix + "}"
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self.client = redis.Redis.from_url(
            url,
            socket_connect_timeout=connect_timeout,
            socket_timeout=timeout,
            retry=Retry(NoBackoff(), 1),
            health_check_interval=30,
        )

    def key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def ping_at_start(self) -> None:
        """Raises ``RedisStartupError`` naming the URL (password hidden) if Redis is not there."""
        try:
            self.client.ping()
        except self._errors as err:
            raise RedisStartupError(
                f"cannot reach Redis at {self.shown_url}: {_one_line(err)}"
            ) from None

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``; a Redis failure becomes ``RedisUnavailable`` (503)."""
        try:
            return fn(*args, **kwargs)
        except self._errors as err:
            raise RedisUnavailable(
                f"the shared Redis ({self.shown_url}) does not answer: {_one_line(err)}",
                detail={"redis": self.shown_url},
            ) from None

    def script(self, source: str) -> Callable[[list[str], list[Any]], Any]:
        """A Lua script (sent once, then run by its SHA1), called as ``run(keys, args)``."""
        registered = self.client.register_script(source)
        return lambda keys, args: self.call(registered, keys=keys, args=args)

    def health(self) -> dict[str, Any]:
        """Whether Redis answers a PING now, and how fast (for ``/healthz``)."""
        started = time.perf_counter()
        try:
            self.client.ping()
        except self._errors as err:
            return {"url": self.shown_url, "ok": False, "error": _one_line(err)}
        return {
            "url": self.shown_url,
            "ok": True,
            "ping_ms": round((time.perf_counter() - started) * 1000, 3),
        }

    def close(self) -> None:
        self.client.close()


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text[:300]


def shared_redis(config: Any) -> SharedRedis | None:
    """The Redis of ``config.redis_url``, checked with a PING; ``None`` when there is none."""
    if not config.redis_url:
        return None
    shared = SharedRedis(config.redis_url, config.redis_prefix)
    shared.ping_at_start()
    return shared
