"""What the service does for every request before and after Flask's routing, for the open web.

``harden(app)`` (called once by the app factory) installs:

* the request body read whole, bounded in size and time, strict UTF-8 (``server.transport``),
  behind Werkzeug's ``ProxyFix`` when ``trusted_proxies`` says how many proxies stand in front;
* an allowed-hosts check: a ``Host`` the service was not told to answer to gets ``400
  host_not_allowed`` (a DNS-rebinding page reaches a loopback service with its own host name);
* a cross-site check: a state-changing request (POST, PUT, PATCH, DELETE) whose ``Origin`` is
  another site, or that the browser marks ``Sec-Fetch-Site: cross-site``, gets ``403
  cross_site``. Browsers send a cross-site ``text/plain`` or form POST without asking first
  (no CORS preflight), and the API reads JSON whatever the content type, so without this any
  page a user visits could create matches or spend their API key's budget;
* security headers: ``X-Content-Type-Options: nosniff`` everywhere; on HTML pages (``/play``,
  ``/docs``) a Content-Security-Policy (own scripts only, inline ones by hash; no framing) and
  ``X-Frame-Options: DENY``; on JSON answers a CSP that allows nothing to run (``API_HEADERS``,
  which the errors answered before Flask, by ``server.transport`` and gunicorn, carry too).

The per-client cost limits sit on the search pool itself (``server.service.Resources`` wraps
it in ``server.limits.MeteredPool``), so the hint and match services are charged alike.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from flask import Flask, Response, request
from werkzeug.middleware.proxy_fix import ProxyFix

from server.config import ServiceConfig
from server.errors import ApiError
from server.transport import BufferedBody

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)

PAGE_CSP = (
    "default-src 'self'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
API_CSP = "default-src 'none'; frame-ancestors 'none'"
# The headers of every answer that is not an HTML page: JSON answers of the app, and the errors
# answered before the app sees the request (``server.transport``'s 400/408/413, gunicorn's own
# 400/414/431 in ``server.serve``). Defined once here, passed to both.
API_HEADERS: tuple[tuple[str, str], ...] = (
    ("X-Content-Type-Options", "nosniff"),
    ("Content-Security-Policy", API_CSP),
)


def allowed_hosts(config: ServiceConfig) -> frozenset[str] | None:
    """The host names to answer to (lower case, no port); ``None`` means any.

    Explicit ``allowed_hosts`` win (``*`` = any). Otherwise a service bound to a wildcard
    address answers to any host (say which in production), and one bound to a specific
    address answers to that address and the loopback names.
    """
    if config.allowed_hosts:
        if "*" in config.allowed_hosts:
            return None
        return frozenset(h.lower().strip("[]") for h in config.allowed_hosts)
    if config.host in WILDCARD_BINDS:
        return None
    return frozenset((*LOOPBACK_HOSTS, config.host.lower().strip("[]")))


def host_name(host: str) -> str:
    """``example.org:8000`` -> ``example.org``; ``[::1]:80`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def origin_host(origin: str) -> str | None:
    """The host[:port] of an ``Origin`` header, ``None`` for ``null`` or garbage."""
    scheme, sep, rest = origin.partition("://")
    if not sep or scheme not in ("http", "https") or not rest:
        return None
    return rest.split("/", 1)[0].lower()


def check_host(allowed: frozenset[str] | None) -> None:
    if allowed is None:
        return
    name = host_name(request.host or "")
    if name not in allowed:
        raise ApiError(
            f"this service does not answer to the host {name!r} (see allowed_hosts)",
            status=400,
            code="host_not_allowed",
            detail={"host": name},
        )


def check_same_site(allowed_origins: frozenset[str]) -> None:
    """403 for a state-changing request sent by a page of another site."""
    if request.method not in UNSAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    fetch_site = request.headers.get("Sec-Fetch-Site", "").lower()
    if origin is None:
        if fetch_site == "cross-site":
            raise _cross_site(None)
        return  # not a browser (curl, SDKs): nothing to forge
    if origin.lower().rstrip("/") in allowed_origins:
        return
    if origin_host(origin) != (request.host or "").lower():
        raise _cross_site(origin)


def _cross_site(origin: str | None) -> ApiError:
    return ApiError(
        "cross-site requests may not change anything here"
        + (f" (Origin {origin!r} is not this service)" if origin else "")
        + "; add the page's origin to allowed_origins to allow it",
        status=403,
        code="cross_site",
        detail={"origin": origin},
    )


def page_csp(body: bytes) -> str:
    """The page CSP, with a hash for each inline script of ``body`` (as CSP level 2 allows)."""
    hashes = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(m.group(1)).digest()).decode()}'"
        for m in INLINE_SCRIPT.finditer(body)
    )
    return PAGE_CSP.format(scripts=hashes)


def add_security_headers(response: Response) -> Response:
    """``API_HEADERS`` on every answer, except that an HTML page gets its own CSP."""
    headers = response.headers
    if response.mimetype == "text/html":
        body = b"" if response.direct_passthrough else response.get_data()
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("Content-Security-Policy", page_csp(body))
        headers.setdefault("X-Frame-Options", "DENY")
        headers.setdefault("Referrer-Policy", "same-origin")
    else:
        for name, value in API_HEADERS:
            headers.setdefault(name, value)
    return response


def harden(app: Flask) -> None:
    """Installs everything in the module docstring on ``app`` (once, from ``create_app``)."""
    config: ServiceConfig = app.config["ATELIER"]
    wsgi: Any = BufferedBody(
        app.wsgi_app, config.max_request_bytes, config.body_timeout_s, API_HEADERS
    )
    if config.trusted_proxies:
        n = config.trusted_proxies
        wsgi = ProxyFix(wsgi, x_for=n, x_proto=n, x_host=n, x_port=n)
    app.wsgi_app = wsgi  # type: ignore[method-assign]
    hosts = allowed_hosts(config)
    origins = frozenset(o.lower().rstrip("/") for o in config.allowed_origins)

    @app.before_request
    def _check_request() -> None:
        check_host(hosts)
        check_same_site(origins)

    app.after_request(add_security_headers)
