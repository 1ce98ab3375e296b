"""``Client``: the service's HTTP API (docs/api.md) as methods with typed answers.

Retries are safe by construction: a request is sent again (after a 503, a broken connection or
a timeout) only when repeating it cannot do anything twice: reads (GET), deletes (a retried
delete whose first attempt went through answers 404, taken as done), hints and validations
(pure computations), and match moves, which always carry the ``step`` of the view they were
chosen from, so that the service answers a repeat with the stored answer (``retried: true``)
instead of playing again. Creations (matches, reviews, analyses) are retried only when the
connection could not even be opened, since a lost answer may hide a created resource.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx

from atelier_client.errors import ConnectionFailed, error_for
from atelier_client.models import (
    AnalysisJob,
    Game,
    Hint,
    Match,
    MatchView,
    ReviewJob,
    Validation,
)

Job = TypeVar("Job", ReviewJob, AnalysisJob)
Progress = Callable[[Any], None]

# Requests that may be repeated whatever happened to the first attempt.
IDEMPOTENT, CREATE = "idempotent", "create"
# Connection errors after which the request surely never reached the service.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout)
_BROKEN = (httpx.TransportError,)


class Client:
    """A client of one Atelier service.

    ``base_url``: e.g. ``http://127.0.0.1:8000``; ``api_key``: sent as ``X-API-Key`` when the
    service requires keys; ``timeout``: seconds per HTTP request (a hint may take its budget
    plus the queue wait); ``retries``: further attempts after a retryable failure, waiting
    ``backoff * 2**n`` seconds (or the service's ``Retry-After``, whichever is longer, at most
    ``max_backoff``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        backoff: float = 0.25,
        max_backoff: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"User-Agent": "atelier-client/0.1"}
        if api_key:
            headers["X-API-Key"] = api_key
        self.retries, self.backoff, self.max_backoff = retries, backoff, max_backoff
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )
        # (match id, token) -> the step of the last view of that seat this client saw: the
        # ``step`` its next move carries.
        self._steps: dict[tuple[str, str], int] = {}

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games -------------------------------------------------------------------------------

    def games(self) -> list[Game]:
        """Every game with its parameters."""
        return [Game.from_json(g) for g in self._request("GET", "/v1/games")["games"]]

    def game(self, game: str) -> dict[str, Any]:
        """One game's details: parameters, information-set and action schemas, an example."""
        return self._request("GET", f"/v1/games/{game}")

    def rules(self, game: str) -> str:
        """The game's rules (Markdown)."""
        return self._request("GET", f"/v1/games/{game}/rules", raw_text=True)

    def bots(self, game: str | None = None, params: dict[str, Any] | None = None) -> Any:
        """The bots (for one game and parameters: which are available there)."""
        if game is None:
            return self._request("GET", "/v1/bots")
        query = {"params": _json(params)} if params else None
        return self._request("GET", f"/v1/games/{game}/bots", params=query)

    def levels(self, game: str) -> dict[str, Any]:
        """The ``level`` bot's levels 1-8 in this game, with their measured ratings."""
        return self._request("GET", f"/v1/games/{game}/levels")

    def validate(
        self, game: str, infoset: dict[str, Any], params: dict[str, Any] | None = None
    ) -> Validation:
        """Replays an information set: valid? whose turn? the seat's legal actions."""
        body = _body(infoset=infoset, params=params)
        return Validation.from_json(self._request("POST", f"/v1/games/{game}/validate", body))

    def hint(
        self,
        game: str,
        infoset: dict[str, Any],
        bot: str | dict[str, Any] | None = None,
        budget: dict[str, Any] | None = None,
        seed: int | None = None,
        params: dict[str, Any] | None = None,
        profiles: dict[str, dict[str, float]] | None = None,
    ) -> Hint:
        """A bot's move for an information set (``budget``: ``{"milliseconds": N}`` and/or
        ``{"simulations": N}``; ``profiles``: opponent profiles by seat, ``{"1": {"bid_scale":
        1.3}}``, as ``atelier profile`` fits them)."""
        body = _body(
            infoset=infoset, bot=bot, budget=budget, seed=seed, params=params, profiles=profiles
        )
        return Hint.from_json(self._request("POST", f"/v1/games/{game}/hint", body))

    def analyse(
        self,
        game: str,
        infoset: dict[str, Any] | None = None,
        *,
        state: dict[str, Any] | None = None,
        seat: int | None = None,
        every_decision: bool | None = None,
        moves: list[Any] | None = None,
        top: int | None = None,
        bot: str | dict[str, Any] | None = None,
        budget: dict[str, Any] | None = None,
        seed: int | None = None,
        wait: bool = True,
        progress: Progress | None = None,
        timeout: float | None = None,
    ) -> AnalysisJob:
        """Analyses a position (every candidate move valued with its interval), or every
        decision of a seat (``state`` + ``seat``, or ``every_decision=True``). Waits for the
        job unless ``wait`` is False; ``job.analysis`` is the (last) position's analysis."""
        body = _body(
            infoset=infoset,
            state=state,
            seat=seat,
            every_decision=every_decision,
            moves=moves,
            top=top,
            bot=bot,
            budget=budget,
            seed=seed,
        )
        data = self._request("POST", f"/v1/games/{game}/analysis", body, kind=CREATE)
        job = AnalysisJob.from_json(data)
        return self.wait(job, progress=progress, timeout=timeout) if wait else job

    # -- matches -----------------------------------------------------------------------------

    def new_match(
        self,
        game: str,
        seats: list[str | dict[str, Any]],
        params: dict[str, Any] | None = None,
        budget: dict[str, Any] | None = None,
        seed: int | None = None,
        reproducible: bool | None = None,
    ) -> Match:
        """Hosts a match: ``seats`` lists ``"human"`` or a bot spec per seat (e.g.
        ``{"name": "level", "options": {"level": 3}}``); ``budget`` is the bots' per move.
        The answer carries one token per human seat (``match.token``: the first)."""
        body = _body(
            game=game,
            seats=seats,
            params=params,
            budget=budget,
            seed=seed,
            reproducible=reproducible,
        )
        match = Match.from_json(self._request("POST", "/v1/matches", body, kind=CREATE))
        for entry in match.tokens:
            self._steps[(match.match_id, entry.token)] = match.step
        return match

    def get_match(self, match_id: str, token: str | None = None) -> MatchView:
        """The match as the token's seat sees it (without a token: the public view). Any read
        also lets bots that were left to move continue."""
        data = self._request("GET", f"/v1/matches/{match_id}", token=token)
        return self._seen(MatchView.from_json(data), token)

    def move(self, match_id: str, token: str, action: Any, step: int | None = None) -> MatchView:
        """The token's seat plays ``action`` (an id, a struct or the readable string from
        ``legal_actions``); then chance and the bots play until a human must act.

        ``step`` defaults to the step of the last view of this seat the client saw (read
        first if none), so that a retry is answered with the stored answer, never played
        twice; a move chosen from an older view gets 409 ``stale_step``.
        """
        if step is None:
            step = self._steps.get((match_id, token))
            if step is None:
                step = self.get_match(match_id, token).step
        body = {"action": action, "step": step}
        data = self._request("POST", f"/v1/matches/{match_id}/actions", body, token=token)
        return self._seen(MatchView.from_json(data), token)

    def match_hint(
        self,
        match_id: str,
        token: str,
        bot: str | None = None,
        milliseconds: float | None = None,
        simulations: int | None = None,
        seed: int | None = None,
    ) -> Hint:
        """A hint for the token's seat in its match."""
        query = _body(bot=bot, milliseconds=milliseconds, simulations=simulations, seed=seed)
        data = self._request("GET", f"/v1/matches/{match_id}/hint", params=query, token=token)
        return Hint.from_json(data)

    def delete_match(self, match_id: str, token: str) -> None:
        """Deletes the match (any of its seat tokens may)."""
        self._request("DELETE", f"/v1/matches/{match_id}", token=token, gone_ok=True)
        self._steps = {k: v for k, v in self._steps.items() if k[0] != match_id}

    # -- reviews -----------------------------------------------------------------------------

    def start_review(
        self,
        game: str,
        infoset: dict[str, Any] | None = None,
        *,
        state: dict[str, Any] | None = None,
        seat: int | None = None,
        bot: str | dict[str, Any] | None = None,
        budget: dict[str, Any] | None = None,
        samples: int | None = None,
        seed: int | None = None,
        params: dict[str, Any] | None = None,
    ) -> ReviewJob:
        """Starts a review of one seat's decisions (its information set, or a whole
        ``state`` and a ``seat``); poll it with ``wait``."""
        body = _body(
            infoset=infoset,
            state=state,
            seat=seat,
            bot=bot,
            budget=budget,
            samples=samples,
            seed=seed,
            params=params,
        )
        data = self._request("POST", f"/v1/games/{game}/review", body, kind=CREATE)
        return ReviewJob.from_json(data)

    def review_match(self, match_id: str, token: str) -> ReviewJob:
        """The token's seat's review of a finished match (the same job on every call)."""
        data = self._request("GET", f"/v1/matches/{match_id}/review", token=token)
        return ReviewJob.from_json(data, seat_token=token)

    def review_decision(self, job: ReviewJob, index: int) -> dict[str, Any]:
        """Decision ``index`` of a review, with the seat's information set before it."""
        if job.seat_token:
            raise ValueError("a match review has no decision endpoint; read job.review")
        return self._request("GET", f"{job.url}/decisions/{index}")

    # -- jobs (reviews and analyses) ---------------------------------------------------------

    def poll(self, job: Job) -> Job:
        """The job as it is now."""
        data = self._request("GET", job.url, token=job.seat_token)
        return type(job).from_json(data, seat_token=job.seat_token)

    def wait(
        self,
        job: Job,
        progress: Progress | None = None,
        interval: float = 0.5,
        timeout: float | None = None,
    ) -> Job:
        """Polls ``job`` until it is done, failed or cancelled; ``progress(job)`` is called
        after every poll (``job.done`` of ``job.total``). Past ``timeout`` seconds, a
        ``TimeoutError`` (the job goes on; ``cancel`` it if it is no longer wanted)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if progress is not None:
                progress(job)
            if job.finished:
                return job
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"job {job.id} not finished after {timeout} s: {job.status}")
            time.sleep(interval)
            job = self.poll(job)

    def cancel(self, job: Job) -> Job:
        """Cancels a job before its next position or decision (a finished one is answered
        as it is)."""
        data = self._request("DELETE", job.url, token=job.seat_token)
        return type(job).from_json(data, seat_token=job.seat_token)

    # -- HTTP --------------------------------------------------------------------------------

    def _seen(self, view: MatchView, token: str | None) -> MatchView:
        if token is not None:
            self._steps[(view.match_id, token)] = view.step
        return view

    def _request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        params: dict[str, Any] | None = None,
        kind: str = IDEMPOTENT,
        raw_text: bool = False,
        gone_ok: bool = False,
    ) -> Any:
        """One API call with the retry rule of the module docstring; an error answer raises
        its ``AtelierError`` subclass."""
        headers = {"X-Seat-Token": token} if token else None
        attempt = 0
        while True:
            retry_after: float | None = None
            try:
                response = self._http.request(
                    method, path, json=body, params=params, headers=headers
                )
            except _BROKEN as err:
                retryable = kind == IDEMPOTENT or isinstance(err, _NOT_SENT)
                if not retryable or attempt >= self.retries:
                    raise ConnectionFailed(
                        "connection_error",
                        f"{method} {path}: {type(err).__name__}: {err}",
                        detail={"retried": attempt},
                    ) from err
            else:
                if response.status_code < 400:
                    return _decode(response, raw_text)
                if gone_ok and attempt > 0 and response.status_code == 404:
                    return None  # the first attempt went through; its answer was lost
                retry_after = _retry_after(response)
                error = error_for(response.status_code, _decode(response, False), retry_after)
                if response.status_code != 503 or kind != IDEMPOTENT or attempt >= self.retries:
                    raise error
            delay = min(self.max_backoff, max(self.backoff * 2**attempt, retry_after or 0.0))
            time.sleep(delay)
            attempt += 1


def _decode(response: httpx.Response, raw_text: bool) -> Any:
    if response.status_code == 204:
        return None
    if raw_text:
        return response.text
    try:
        return response.json()
    except ValueError:
        return response.text


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None


def _body(**fields: Any) -> dict[str, Any]:
    """The fields that were given (None means: the service's default)."""
    return {k: v for k, v in fields.items() if v is not None}


def _json(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))


__all__ = ["Client"]
