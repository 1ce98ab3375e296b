"""Logs without secrets: seat tokens, API keys and anything token-like are redacted.

The access log records request lines, and a client may put a token anywhere (an old client's
``?token=``, a path, a header the log format prints); error messages may quote a request. So
every record of the service's loggers (gunicorn's error and access logs, ``atelier.*``) passes
``RedactSecrets`` on its way to a handler, which replaces

* the value of any ``...token=``, ``key=``, ``api_key=``, ``secret=``, ``password=`` pair,
  also when the name or the value is percent-encoded (``?%74oken=``: the server decodes it),
* the configured API keys, wherever they appear,
* every token the service issues (``issue_token``: ``at_`` and 32 URL-safe characters) and
  every job id (``issue_job_id``: ``job_`` and 32; whoever holds a job's id and its creator's
  credential reads it, so an id in a log is half a credential), wherever it appears, also
  percent-encoded: the prefix makes it recognisable whatever its random characters are,
* any run of 24 or more URL-safe base64 characters with both letters and digits that is not
  a hexadecimal identifier (match ids, hashes and seeds stay readable; ``secrets.token_urlsafe``
  output, JWT parts and most generated keys do not)

with ``[redacted]``. The last rule needs a digit, and about 0.44% of ``token_urlsafe(24)``
outputs have none: that is why issued tokens carry the prefix (tokens issued before it keep
opening their seats; their matches expire with ``match_idle_expiry_s``).
"""

from __future__ import annotations

import logging
import re
import secrets as random_secrets
from collections.abc import Iterable
from urllib.parse import unquote

REDACTED = "[redacted]"
TOKEN_PREFIX = "at_"
JOB_PREFIX = "job_"
SECRET_NAME = r"(?:[a-z0-9_-]*token|api[_-]?key|key|secret|password|authorization)"
SECRET_PAIR = re.compile(rf"(?i)({SECRET_NAME}[\"']?\s*[=:]\s*[\"']?)([^&\s\"',;}}]+)")
# A name=value pair whose name has a percent escape: decoded, it may be a secret's name.
ENCODED_PAIR = re.compile(
    r"(?<![A-Za-z0-9_.~%-])((?:[A-Za-z0-9_.~-]|%[0-9A-Fa-f]{2})*%[0-9A-Fa-f]{2}"
    r"(?:[A-Za-z0-9_.~-]|%[0-9A-Fa-f]{2})*=)([^&\s\"',;}]+)"
)
SECRET_NAME_ONLY = re.compile(rf"(?i){SECRET_NAME}")
ISSUED_TOKEN = re.compile(rf"(?<![A-Za-z0-9_-])(?:{TOKEN_PREFIX}|{JOB_PREFIX})[A-Za-z0-9_-]{{20,}}")
# A run of URL characters with percent escapes: decoded, it may hold an issued token.
ENCODED_RUN = re.compile(r"(?:[A-Za-z0-9_.~-]|%[0-9A-Fa-f]{2})*%[0-9A-Fa-f]{2}[A-Za-z0-9_.~%-]*")
TOKEN_LIKE = re.compile(
    r"(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])"
    r"(?![0-9a-fA-F]+(?![A-Za-z0-9_-]))[A-Za-z0-9_-]{24,}(?![A-Za-z0-9_-])"
)


def issue_token() -> str:
    """A new secret token (a match's seat token): 192 random bits behind ``TOKEN_PREFIX``, so
    that ``redact`` recognises it wherever it is logged, whatever its random characters."""
    return TOKEN_PREFIX + random_secrets.token_urlsafe(24)


def issue_job_id() -> str:
    """A new job id: unguessable (192 random bits) and behind ``JOB_PREFIX``, so that
    ``redact`` removes it from access-log lines (``GET /v1/reviews/job_...``) like a token."""
    return JOB_PREFIX + random_secrets.token_urlsafe(24)


def _encoded_pair(match: re.Match[str]) -> str:
    """``%74oken=VALUE`` -> ``%74oken=[redacted]``: the server decodes names, so must we."""
    name = match.group(1)
    if SECRET_NAME_ONLY.fullmatch(unquote(name[:-1])):
        return name + REDACTED
    return match.group(0)


def _encoded_run(match: re.Match[str]) -> str:
    """A percent-encoded run of a URL that decodes to a token is redacted whole."""
    decoded = unquote(match.group(0))
    if ISSUED_TOKEN.search(decoded) or TOKEN_LIKE.search(decoded):
        return REDACTED
    return match.group(0)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with the secrets of the module docstring replaced by ``REDACTED``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = SECRET_PAIR.sub(lambda m: m.group(1) + REDACTED, text)
    text = ENCODED_PAIR.sub(_encoded_pair, text)
    text = ISSUED_TOKEN.sub(REDACTED, text)
    text = ENCODED_RUN.sub(_encoded_run, text)
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
