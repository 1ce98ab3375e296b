"""Logs without secrets: seat tokens, API keys and anything token-like are redacted.

The access log records request lines, and a client may put a token anywhere (an old client's
``?token=``, a path, a header the log format prints); error messages may quote a request. So
every record of the service's loggers (gunicorn's error and access logs, ``atelier.*``) passes
``RedactSecrets`` on its way to a handler, which replaces

* the value of any ``...token=``, ``key=``, ``api_key=``, ``secret=``, ``password=`` pair,
* the configured API keys, wherever they appear,
* any run of 24 or more URL-safe base64 characters with both letters and digits that is not
  a hexadecimal identifier (match ids, hashes and seeds stay readable; ``secrets.token_urlsafe``
  output, JWT parts and most generated keys do not)

with ``[redacted]``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

REDACTED = "[redacted]"
SECRET_PAIR = re.compile(
    r"(?i)((?:[a-z0-9_-]*token|api[_-]?key|key|secret|password|authorization)"
    r"[\"']?\s*[=:]\s*[\"']?)([^&\s\"',;}]+)"
)
TOKEN_LIKE = re.compile(
    r"(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])"
    r"(?![0-9a-fA-F]+(?![A-Za-z0-9_-]))[A-Za-z0-9_-]{24,}(?![A-Za-z0-9_-])"
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = SECRET_PAIR.sub(lambda m: m.group(1) + REDACTED, text)
    return TOKEN_LIKE.sub(REDACTED, text)


class RedactSecrets(logging.Filter):
    """Rewrites each record's final message (and traceback text) with secrets redacted."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = tuple(s for s in secrets if s)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to the handler to report
            return True
        record.msg, record.args = redact(message, self.secrets), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        return True


def install(handlers: Iterable[logging.Handler], secrets: Iterable[str] = ()) -> None:
    """Adds one ``RedactSecrets`` to each handler (idempotent)."""
    secrets = tuple(secrets)
    for handler in handlers:
        if not any(isinstance(f, RedactSecrets) for f in handler.filters):
            handler.addFilter(RedactSecrets(secrets))
