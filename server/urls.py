"""URLs of the services ``atelier serve`` talks to (match database, Redis), shown safely."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def redacted_url(url: str) -> str:
    """``url`` with its password (and a user name that may be a token) replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None and parts.username is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    user = "***" if parts.password is None else f"{parts.username or ''}:***"
    return urlunsplit(parts._replace(netloc=f"{user}@{host}"))
