"""The request body, read whole before Flask sees it: bounded in size and time, strict UTF-8.

Reading the body here, in one place, settles what used to depend on who read it and how:

* a body larger than ``max_request_bytes`` gets ``413`` whether it declares a length or comes
  chunked (Werkzeug's limit truncated a chunked body silently, which then failed as bad JSON);
* a client that stops sending halfway gets ``408`` once ``body_timeout_s`` has passed, instead
  of holding its connection (and, under a threaded server, a thread) for as long as it likes;
* a body with a byte order mark, NUL bytes (UTF-16/32) or invalid UTF-8 gets ``400
  invalid_json``: JSON exchanged between systems is UTF-8 without a BOM (RFC 8259, 8.1), and
  Python's ``json.loads`` would otherwise guess UTF-16 from the bytes and accept it.

Each refusal is the service's JSON error shape, with the security headers of every JSON
answer (``server.security.API_HEADERS``, passed in), and closes the connection (``Connection:
close``): the rest of a refused body is never read, so the connection cannot carry another
request.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from typing import Any

BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
CHUNK = 64 * 1024

StartResponse = Callable[..., Any]


class Refused(Exception):
    """A request refused before it reaches the app; rendered as the JSON error shape."""

    def __init__(self, status: int, code: str, message: str, detail: Any = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.detail = status, code, message, detail


REASONS = {400: "BAD REQUEST", 408: "REQUEST TIMEOUT", 413: "REQUEST ENTITY TOO LARGE"}


def json_error(status: int, code: str, message: str, detail: Any = None) -> bytes:
    return json.dumps({"code": code, "message": message, "detail": detail}).encode()


def force_close(start_response: StartResponse) -> None:
    """Makes gunicorn close the connection after this response (and say so in its headers).

    gunicorn drops a ``Connection`` header set by the app; its response object, which owns
    ``start_response``, has ``force_close()`` for this. Other servers (the test client) ignore it.
    """
    owner = getattr(start_response, "__self__", None)
    if owner is not None and callable(getattr(owner, "force_close", None)):
        owner.force_close()


def _deadline(seconds: float) -> Any:
    """A total deadline on the reads below: ``gevent.Timeout`` under gevent, else nothing.

    Under gevent a blocked read only parks a greenlet, and a timeout can interrupt it; a
    threaded server gets a per-read socket timeout instead (see ``read_body``).
    """
    try:
        from gevent import Timeout, monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return None
    if not monkey.is_module_patched("socket"):
        return None
    return Timeout(seconds, TimeoutError)


def read_body(environ: dict[str, Any], max_bytes: int, timeout_s: float) -> bytes | None:
    """The whole body (``None`` if the request has none), or ``Refused``."""
    raw_length = environ.get("CONTENT_LENGTH") or ""
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    if not raw_length.strip() and not chunked:
        return None
    length = None
    if raw_length.strip() and not chunked:
        try:
            length = int(raw_length)
        except ValueError:
            raise Refused(
                400, "bad_request", f"Content-Length {raw_length!r} is not a number"
            ) from None
        if length > max_bytes:
            raise Refused(
                413,
                "too_large",
                f"the request body is larger than the limit of {max_bytes} bytes",
                {"max_bytes": max_bytes, "content_length": length},
            )
    stream = environ["wsgi.input"]
    sock = environ.get("gunicorn.socket")
    if sock is not None:
        sock.settimeout(timeout_s)
    want = length if length is not None else max_bytes + 1
    parts: list[bytes] = []
    got = 0
    timer = _deadline(timeout_s)
    try:
        if timer is not None:
            timer.start()
        while got < want:
            part = stream.read(min(CHUNK, want - got))
            if not part:
                break
            parts.append(part)
            got += len(part)
    except TimeoutError:  # socket.timeout is TimeoutError
        raise Refused(
            408,
            "request_timeout",
            f"the request body did not arrive within {timeout_s:g} s",
            {"body_timeout_s": timeout_s, "received_bytes": got},
        ) from None
    finally:
        if timer is not None:
            timer.close()
        if sock is not None:
            sock.settimeout(None)
    if got > max_bytes:
        raise Refused(
            413,
            "too_large",
            f"the request body is larger than the limit of {max_bytes} bytes",
            {"max_bytes": max_bytes},
        )
    if length is not None and got < length:
        raise Refused(400, "bad_request", f"the request body ended after {got} of {length} bytes")
    return b"".join(parts)


def check_utf8(body: bytes) -> None:
    """``Refused`` unless ``body`` is UTF-8 text without a byte order mark."""
    problem = None
    if body.startswith(BOMS):
        problem = "it starts with a byte order mark"
    elif b"\x00" in body:
        problem = "it contains NUL bytes (UTF-16 or UTF-32?)"
    else:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as err:
            problem = f"it is not valid UTF-8 ({err.reason} at byte {err.start})"
    if problem:
        raise Refused(
            400,
            "invalid_json",
            f"the request body is not valid JSON: {problem}; send UTF-8 without a byte order "
            "mark (RFC 8259, section 8.1)",
        )


class BufferedBody:
    """WSGI middleware: reads and checks the body (see the module docstring), then calls the app
    with it in memory."""

    def __init__(
        self,
        app: Callable[..., Any],
        max_bytes: int,
        timeout_s: float,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s
        self.headers = list(headers)  # added to each refusal (the app adds its own to the rest)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        try:
            body = read_body(environ, self.max_bytes, self.timeout_s)
            if body is not None:
                check_utf8(body)
        except Refused as err:
            force_close(start_response)
            payload = json_error(err.status, err.code, err.message, err.detail)
            start_response(
                f"{err.status} {REASONS.get(err.status, 'ERROR')}",
                [
                    ("Content-Type", "application/json"),
                    ("Content-Length", str(len(payload))),
                    ("Connection", "close"),
                    *self.headers,
                ],
            )
            return [payload]
        if body is not None:
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            environ.pop("HTTP_TRANSFER_ENCODING", None)
            environ["wsgi.input_terminated"] = False
        return self.app(environ, start_response)
