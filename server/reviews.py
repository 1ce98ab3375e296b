"""Game reviews as jobs: validated and planned in the request, run decision by decision.

A review costs one bot search and a few hundred rollouts per decision of the seat, seconds to
minutes in all, so it never runs in an HTTP handler. ``POST /v1/games/{game}/review`` checks
the request exactly as a hint is checked (``HintService``: game, parameters, the information
set's envelope, bot, budget), plans the review in one pool task (the seat's decisions, found
by replay; a record that cannot be replayed is refused there, with a 4xx), registers a job and
answers 202. A runner thread per job then submits one ``review_decision`` pool task per
decision through the service's ``MeteredPool``, charged to the client who asked (the cost
limits of hints apply: a review is as many searches as it has decisions, one at a time), and
updates the job's progress. Capacity problems on the way (a busy pool, the client's search
time used up) are waited out and retried, so a long review slows down instead of failing.
After the last decision one more task, ``review_luck``, splits the seat's result into luck and
decisions (``bots.review.summary_luck``: the summary's ``luck``) within ``review_luck_ms`` of
its own; past it (or off, or failing) the summary's luck is null with ``luck_skipped`` saying
why, and the review is done all the same. A cancel is honoured before and after it.

Under gunicorn's gevent worker the runner thread is a greenlet (threading is monkey-patched):
it waits for its worker on the pipe through the cooperative selector ``SearchPool`` uses, as
request handlers do, and does no disk work, so it never holds the hub (the match store's
SQLite calls, which would, go through gevent's thread pool: ``serve.InThreadpool``).

The review's decisions run in the pool's job lane (``server.pool``): they never take the last
free worker, so hints, validations and match moves of everyone else always find one. A
decision's deadline adds to twice its budget the replays it makes (its world pool replays the
record's prefix; the plan measured one whole replay, ``deadline``).

Bounds: at most ``review_max_decisions`` decisions (422 ``review_too_long`` up front) and
``review_max_answer_bytes`` of decisions (the job fails with ``review_too_large``, keeping
what it has); a decision carries its step, not the seat's information set, which
``GET /v1/reviews/{id}/decisions/{n}`` cuts from the record on demand.

Privacy: a job's id is unguessable (``issue_job_id``, redacted from logs), and a job answers
only its owner, the credential that created it: the client identity (the API key when keys
are required, else the address) for a posted review, the seat token for a match's; anyone
else gets the 404 of an unknown id. A match review's seed is keyed with ``server_secret``
(HMAC), so it reveals nothing about the match's seed. ``DELETE`` cancels a job between two
decisions.

Jobs go through the job queue (``server.jobs``: Dramatiq, in-process on one host, on the
fleet's Redis with ``--redis``), and their state lives in its ``JobStore``: any instance
creates, polls and cancels any job, and any instance's worker runs it, one decision after
another, writing each to the store and checking the store's cancel between them. A job whose
worker died resumes elsewhere after its last stored decision, or fails with ``worker_died``.
At most ``review_max_running`` jobs are queued or running in the whole service (503
``reviews_full``) and ``review_max_running_per_client`` per client (429
``too_many_reviews``); finished ones are kept ``review_ttl_s``, at most ``review_keep`` of
them and ``review_keep_bytes`` in all, in the store's backend.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import socket
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import bots
import games
from bots.review import (
    DEFAULT_SAMPLES,
    LUCK_PARTIAL,
    MAX_POOL,
    assemble,
    decision_seed,
    infoset_before,
)
from games.core.infoset import build_infoset
from server.cache import canonical
from server.config import ServiceConfig
from server.errors import ApiError, Conflict, NotFound, Unavailable, Unprocessable
from server.hints import HintService
from server.jobs import (
    FINISHED,
    HEARTBEAT_S,
    LIVE,
    JobQueue,
    JobStore,
    StoredJob,
    job_queue,
    job_store,
)
from server.logs import issue_job_id
from server.schemas import MAX_SEED, AnalysisRequest, BudgetIn, ReviewRequest

log = logging.getLogger("atelier.server.reviews")

# The client a review's runner thread works for: ``Resources.request_client`` answers it
# outside requests, so that the runner's pool tasks are charged to that client.
JOB_CLIENT: ContextVar[str | None] = ContextVar("atelier_review_client", default=None)

DEFAULT_BUDGET = BudgetIn(simulations=200, milliseconds=1000.0)
DEFAULT_TOP = 8  # an analysis's candidate moves besides those asked for (bots.analysis)
# Errors a runner waits out and retries, with how many retries: capacity (a busy pool, the
# client's limits) many times; a lost worker or an overrun deadline, which may be the
# decision's own doing and costs a worker each time, twice.
RETRIES = {
    "busy": 360,  # the job lane waits for a free worker (server.pool): slow, not failed
    "unavailable": 30,
    "too_many_searches": 30,
    "search_time_exceeded": 30,
    "rate_limited": 30,
    "deadline_exceeded": 2,
    "worker_died": 2,
}
# The luck split's task is retried on capacity errors only: over its deadline (``review_luck_ms``)
# it would overrun again, and the summary says it was skipped instead.
LUCK_RETRIES = {**RETRIES, "deadline_exceeded": 0, "worker_died": 0}
# Why a finished review has no luck though it ended (``summary.luck_skipped``).
LUCK_LOST = "its worker stopped between the last decision and the luck split"

# Replays of the record's prefix a decision makes besides its search (its world pool and the
# first world), times a safety factor for a loaded machine: its deadline allows for them.
REPLAYS_PER_DECISION = MAX_POOL + 2
REPLAY_SAFETY = 3.0


# What differs between the kinds of job (one runner, one store, one set of rules for both):
# a review (``bots.review``: each decision's played move against the bot's, then a summary)
# and an analysis (``bots.analysis``: each position's candidate moves, nothing to sum up).
KINDS: dict[str, dict[str, str]] = {
    "review": {
        "noun": "review",
        "url": "/v1/reviews/",
        "plan": "review_plan",
        "step": "review_decision",
        "unknown": "unknown_review",
        "too_large": "review_too_large",
    },
    "analysis": {
        "noun": "analysis",
        "url": "/v1/analyses/",
        "plan": "analysis_plan",
        "step": "analysis_position",
        "unknown": "unknown_analysis",
        "too_large": "analysis_too_large",
    },
}


def job_client() -> str | None:
    """The client of the review job running in this thread, ``None`` elsewhere."""
    return JOB_CLIENT.get()


@dataclass(eq=False)
class ReviewJob:
    """One job of analysis steps, a review or an analysis (``kind``, ``KINDS``): what to look
    at (the seat's information set and the steps planned in it) and where it stands."""

    id: str
    client: str  # charged for its searches
    owner: str  # who may read and cancel it (``ReviewService.owner_of``)
    game: str
    params: dict[str, Any]
    infoset: dict[str, Any]
    plan: dict[str, Any]
    spec: dict[str, Any]
    budget: bots.Budget
    seed: int
    samples: int
    warnings: list[str] = field(default_factory=list)
    match_id: str | None = None
    status: str = "queued"
    decisions: list[dict[str, Any]] = field(default_factory=list)
    review: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    created_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    queued_answer: dict[str, Any] | None = None
    encoded: bytes | None = None
    cancelled: bool = False
    decision_bytes: int = 0
    record_bytes: int = 0
    lost: bool = False  # its heartbeat was taken over: another worker runs it now
    kind: str = "review"

    def to_spec(self, sealed_client: str) -> dict[str, Any]:
        """What the job store keeps of it for good: everything but where it stands, with its
        client sealed (``ReviewService.seal``: an API key is never stored in clear)."""
        return {
            "id": self.id,
            "client": sealed_client,
            "owner": self.owner,
            "game": self.game,
            "params": self.params,
            "infoset": self.infoset,
            "plan": self.plan,
            "spec": self.spec,
            "budget": self.budget.to_json(),
            "seed": self.seed,
            "samples": self.samples,
            "warnings": self.warnings,
            "match_id": self.match_id,
            "created_at": self.created_at,
            "record_bytes": self.record_bytes,
            "kind": self.kind,
        }

    @classmethod
    def from_stored(cls, stored: StoredJob, client: str) -> ReviewJob:
        spec = dict(stored.spec)
        spec["client"] = client
        spec["budget"] = bots.Budget.from_json(spec["budget"])
        return cls(
            **spec,
            status=stored.status,
            decisions=stored.decisions,
            error=stored.error,
            finished_at=stored.finished_at,
            decision_bytes=stored.decision_bytes,
            cancelled=stored.status == "cancelled",
        )

    @property
    def size(self) -> int:
        """Bytes it holds, estimated: its answer (and the decisions in it) and its record."""
        answer = len(self.encoded) if self.encoded is not None else self.decision_bytes
        return 2 * answer + self.record_bytes

    @property
    def total(self) -> int:
        return len(self.plan["decisions"])

    def answer(self) -> dict[str, Any]:
        if self.kind == "analysis":
            return self.analysis_answer()
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "progress": {"done": len(self.decisions), "total": self.total},
            "url": f"/v1/reviews/{self.id}",
            "game": self.game,
            "seat": self.infoset["seat"],
            "bot": self.spec,
            "budget": self.budget.to_json(),
            "samples": self.samples,
            "seed": self.seed,
            "created_at": round(self.created_at, 3),
        }
        if self.match_id is not None:
            out["match_id"] = self.match_id
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.review is not None:  # a failed or cancelled job's: what it had, partial
            out["review"] = self.review
        if self.error is not None:
            out["error"] = self.error
        return out

    def analysis_answer(self) -> dict[str, Any]:
        """An analysis job (docs/api.md, "Analysis"): the positions analysed so far, in
        order, while it runs (partial results), all of them once done."""
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "done": len(self.decisions),
            "total": self.total,
            "url": f"/v1/analyses/{self.id}",
            "game": self.game,
            "seat": self.infoset["seat"],
            "bot": self.spec,
            "budget": self.budget.to_json(),
            "seed": self.seed,
            "top": self.plan.get("top", DEFAULT_TOP),
            "created_at": round(self.created_at, 3),
            "positions": self.decisions,
        }
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.error is not None:
            out["error"] = self.error
        return out


class ReviewService:
    """Creates review jobs, runs them in the background and answers their polls."""

    def __init__(self, hints: HintService, config: ServiceConfig, shared: Any = None) -> None:
        self.hints = hints
        self.config = config
        self.shared = shared  # the fleet's ``SharedRedis``, or ``None`` on one host
        # Job state (in memory, or in the fleet's Redis) and the queue (``server.jobs``).
        self.store: JobStore = job_store(config, shared)
        self._queue: JobQueue | None = None
        self._reaper: threading.Thread | None = None
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._match_locks: dict[tuple[str, int], threading.Lock] = {}
        # Drawn here when not configured: then only this instance derives the same values.
        self._secret = (config.server_secret or secrets.token_hex(32)).encode()
        if shared is not None and not config.server_secret:
            log.warning(
                "reviews: --redis without server_secret: jobs made on this instance cannot run "
                "or be read on another (give every instance the same ATELIER_SERVER_SECRET)"
            )

    # --- who may see a job -------------------------------------------------------------------
    @staticmethod
    def owner_of(client: str, token: str | None = None) -> str:
        """The credential a job is bound to: a match review's seat token (as a digest, never
        the token itself), else the requesting client (``AccessControl.client_id``)."""
        if token:
            return "seat:" + hashlib.sha256(token.encode()).hexdigest()
        return "client:" + hashlib.sha256(client.encode()).hexdigest()

    # --- the client, sealed in the store ---------------------------------------------------------
    def seal(self, text: str) -> str:
        """``text`` encrypted and authenticated under the server secret (an HMAC-SHA256 key
        stream and tag): the job store (Redis, on a fleet) holds a job's client, which may be
        an API key, only sealed; any instance with the same ``server_secret`` opens it."""
        nonce = secrets.token_bytes(16)
        data = text.encode()
        sealed = bytes(a ^ b for a, b in zip(data, self._stream(nonce, len(data)), strict=True))
        tag = hmac.new(self._secret, b"tag" + nonce + sealed, hashlib.sha256).digest()[:16]
        return (nonce + tag + sealed).hex()

    def unseal(self, text: str) -> str:
        """``seal``'s text; ``Unavailable`` when this instance's ``server_secret`` is not the
        one that sealed it (a fleet's instances must share it)."""
        raw = bytes.fromhex(text)
        nonce, tag, sealed = raw[:16], raw[16:32], raw[32:]
        want = hmac.new(self._secret, b"tag" + nonce + sealed, hashlib.sha256).digest()[:16]
        if not hmac.compare_digest(tag, want):
            raise Unavailable(
                "this job was made by an instance with another server_secret: give every "
                "instance the same (ATELIER_SERVER_SECRET)",
                code="server_secret_mismatch",
            )
        stream = self._stream(nonce, len(sealed))
        return bytes(a ^ b for a, b in zip(sealed, stream, strict=True)).decode()

    def _stream(self, nonce: bytes, size: int) -> bytes:
        blocks = (size + 31) // 32
        return b"".join(
            hmac.new(self._secret, b"ks" + nonce + i.to_bytes(4, "big"), hashlib.sha256).digest()
            for i in range(blocks)
        )[:size]

    def _job(self, stored: StoredJob) -> ReviewJob:
        return ReviewJob.from_stored(stored, self.unseal(stored.spec["client"]))

    @staticmethod
    def client_digest(client: str) -> str:
        """How the store names a job's client (for the per-client running limit)."""
        return hashlib.sha256(client.encode()).hexdigest()

    def keyed_seed(self, *parts: Any) -> int:
        """A 32-bit seed derived from ``parts`` under the server secret (HMAC-SHA256): without
        the secret, no brute force over a published value leads back to a secret seed."""
        mac = hmac.new(self._secret, canonical(list(parts)).encode(), hashlib.sha256)
        return int(mac.hexdigest()[:8], 16)

    # --- polling -----------------------------------------------------------------------------
    def find(self, job_id: str) -> ReviewJob | None:
        stored = self.store.load(job_id) if job_id else None
        return None if stored is None else self._job(stored)

    def owned(self, job_id: str, client: str, token: str | None, kind: str = "review") -> ReviewJob:
        """The job of this ``kind``, if ``client`` or ``token`` is its owner; else the 404 of
        an unknown id (not 403: whether an id exists is not told to whoever does not own it;
        a review's id under /v1/analyses is unknown too)."""
        job = self.find(job_id)
        if job is not None and job.kind == kind:
            mine = [self.owner_of(client)] + ([self.owner_of(client, token)] if token else [])
            if any(hmac.compare_digest(job.owner, m) for m in mine):
                return job
        noun = KINDS[kind]["noun"]
        raise NotFound(
            f"no {noun} with this id for this credential (a job answers only the API "
            f"key, client or seat token that created it; jobs are kept "
            f"{self.config.review_ttl_s:g} s after they finish)",
            code=KINDS[kind]["unknown"],
        )

    def get(
        self, job_id: str, client: str, token: str | None = None, kind: str = "review"
    ) -> dict[str, Any]:
        return self.owned(job_id, client, token, kind).answer()

    def body(
        self, job_id: str, client: str, token: str | None = None, kind: str = "review"
    ) -> bytes:
        """The job's answer as JSON; a finished job's is encoded once, when it finishes."""
        job = self.owned(job_id, client, token, kind)
        if job.finished_at is not None:
            encoded = self.store.answer(job_id)
            if encoded is not None:
                return encoded
        return json.dumps(job.answer(), separators=(",", ":")).encode()

    def decision(
        self, job_id: str, index: int, client: str, token: str | None = None
    ) -> dict[str, Any]:
        """``GET /v1/reviews/{id}/decisions/{n}``: decision ``n`` with the seat's information
        set before it (no view: ``POST /v1/games/{game}/validate`` draws one), and its review
        once done. Cut from the record on demand, so answers stay linear in its length."""
        job = self.owned(job_id, client, token)
        planned = job.plan["decisions"]
        if not 0 <= index < len(planned):
            raise NotFound(
                f"review {job_id[:8]}... has decisions 0..{len(planned) - 1}, not {index}",
                code="unknown_decision",
                detail={"total": len(planned)},
            )
        item = planned[index]
        out: dict[str, Any] = {"index": index, "step": item["step"], "played": item["played"]}
        done = job.decisions[index] if index < len(job.decisions) else None
        if done is not None:
            out.update(done)
        out["reviewed"] = done is not None
        out["infoset"] = infoset_before(job.infoset, item["step"])
        return out

    def cancel(
        self, job_id: str, client: str, token: str | None = None, kind: str = "review"
    ) -> dict[str, Any]:
        """``DELETE``: a queued or running job stops before its next decision and no longer
        counts against the running limits; a finished one is left as it is."""
        job = self.owned(job_id, client, token, kind)
        error = {"code": "cancelled", "message": "cancelled by its client"}
        if self.store.transition(job_id, "cancelled", LIVE, error) and job.status == "queued":
            # No worker holds it (a claim makes it 'running'): finished here. A running one
            # is finished by its runner, before its next decision.
            self._finalize(job_id)
        now = self.find(job_id)
        return (now or job).answer()

    # --- creating ----------------------------------------------------------------------------
    def request(self, game: str, body: ReviewRequest, client: str) -> dict[str, Any]:
        """``POST /v1/games/{game}/review``: validated, planned, queued; the 202 answer."""
        defn, params, record = self._read_record(game, body)
        spec, budget, warnings = self._bot_and_budget(defn, params, body)
        samples = body.samples or DEFAULT_SAMPLES
        seed = self._seed(body.seed, defn, params, record, spec, budget, samples=samples)
        job = self._create(
            defn,
            params,
            record,
            spec,
            budget,
            seed,
            samples,
            client,
            self.owner_of(client),
            warnings,
        )
        return job.queued_answer or job.answer()

    def request_analysis(self, game: str, body: AnalysisRequest, client: str) -> dict[str, Any]:
        """``POST /v1/games/{game}/analysis``: one position (an information set where the
        seat is to move) or every decision of a record (``every_decision``, or a ``state``
        with its ``seat``); validated, planned, queued as a job of analysis steps."""
        defn, params, record = self._read_record(game, body)
        batch = body.every_decision or body.state is not None
        if body.every_decision is False and body.state is not None:
            raise Unprocessable(
                "field 'every_decision': a whole-state record is analysed at every decision "
                "of its seat; leave 'every_decision' out or true with 'state'",
                code="invalid_request",
                detail={"field": "every_decision"},
            )
        if batch and body.moves:
            raise Unprocessable(
                "field 'moves': moves to include are for one position; every decision of a "
                "record includes the move played there",
                code="invalid_request",
                detail={"field": "moves"},
            )
        spec, budget, warnings = self._bot_and_budget(defn, params, body)
        top = body.top or DEFAULT_TOP
        options = {"batch": batch, "top": top, "moves": body.moves or []}
        seed = self._seed(body.seed, defn, params, record, spec, budget, **options)
        job = self._create(
            defn,
            params,
            record,
            spec,
            budget,
            seed,
            0,
            client,
            self.owner_of(client),
            warnings,
            kind="analysis",
            options=options,
        )
        return job.queued_answer or job.answer()

    def _read_record(
        self, game: str, body: ReviewRequest | AnalysisRequest
    ) -> tuple[games.GameDefinition, dict[str, Any], dict[str, Any]]:
        """The game, its parameters and the record (``{"infoset"}`` or ``{"state", "seat"}``)
        of a review or analysis request, checked as a hint's are (422 naming the field)."""
        hints = self.hints
        defn = hints.definition(game)
        if (body.infoset is None) == (body.state is None):
            raise Unprocessable(
                "give the record as 'infoset' (the seat's information set) or as 'state' "
                "(state.to_struct()) with 'seat', not "
                + ("both" if body.infoset is not None else "neither"),
                code="invalid_request",
                detail={"field": "infoset" if body.infoset is None else "state"},
            )
        if body.infoset is not None:
            params = hints.params_for(defn, body.params, body.infoset)
            hints.check_infoset(defn, params, body.infoset)
            if body.seat is not None and body.seat != body.infoset["seat"]:
                raise Unprocessable(
                    f"field 'seat' is {body.seat} but the information set is seat "
                    f"{body.infoset['seat']}'s (leave 'seat' out with an infoset)",
                    code="invalid_request",
                    detail={"field": "seat"},
                )
            return defn, params, {"infoset": body.infoset}
        params = self._state_params(defn, body.params, body.state)
        seat = self._state_seat(body.seat, params)
        return defn, params, {"state": body.state, "seat": seat}

    def _bot_and_budget(
        self, defn: games.GameDefinition, params: dict[str, Any], body: Any
    ) -> tuple[dict[str, Any], bots.Budget, list[str]]:
        spec = self.hints.bot_spec(body.bot)
        self.hints.check_available(spec, defn, params, "bot")
        effective = self.hints.budget(body.budget or DEFAULT_BUDGET)
        return spec, effective.budget, effective.warnings

    @staticmethod
    def _seed(
        given: int | None,
        defn: games.GameDefinition,
        params: dict[str, Any],
        record: dict[str, Any],
        spec: dict[str, Any],
        budget: bots.Budget,
        **options: Any,
    ) -> int:
        """The request's seed, else one derived from the request: equal requests, equal
        answers."""
        if given is not None:
            return given
        text = canonical(
            {
                "game": defn.name,
                "params": params,
                **record,
                "bot": spec,
                "budget": budget.to_json(),
                **options,
            }
        )
        return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % (MAX_SEED + 1)

    @staticmethod
    def _state_params(
        defn: games.GameDefinition, given: dict[str, Any] | None, state: Any
    ) -> dict[str, Any]:
        """The parameters of a whole-state record: the request's or the record's (which must
        agree), validated; the record's game and history checked for shape."""
        assert isinstance(state, dict)
        if state.get("game", defn.name) != defn.name:
            raise Unprocessable(
                f"field 'state.game' is {state.get('game')!r}, expected {defn.name!r}",
                code="invalid_record",
                detail={"field": "state.game"},
            )
        history = state.get("history")
        if not isinstance(history, list) or not all(type(a) is int and a >= 0 for a in history):
            raise Unprocessable(
                "field 'state.history' must be the list of action ids (state.to_struct())",
                code="invalid_record",
                detail={"field": "state.history"},
            )
        raw = state.get("params", {})
        if not isinstance(raw, dict):
            raise Unprocessable(
                "field 'state.params' must be an object (the game's parameters)",
                code="invalid_record",
                detail={"field": "state.params"},
            )
        try:
            own = defn.validate_params(raw)
            params = defn.validate_params(given) if given is not None else own
        except games.InvalidParams as err:
            field_name = "params" if given is not None else "state.params"
            raise Unprocessable(
                f"{field_name}: {err}", code="invalid_params", detail={"field": field_name}
            ) from None
        if "params" in state and own != params:
            raise Unprocessable(
                "field 'params' differs from the record's 'state.params'",
                code="invalid_params",
                detail={"field": "params"},
            )
        return params

    @staticmethod
    def _state_seat(seat: int | None, params: dict[str, Any]) -> int:
        if seat is None:
            raise Unprocessable(
                "field 'seat' is required with 'state': which seat to review",
                code="invalid_request",
                detail={"field": "seat"},
            )
        if not 0 <= seat < params["players"]:
            raise Unprocessable(
                f"field 'seat' must be a seat 0..{params['players'] - 1}, got {seat}",
                code="invalid_request",
                detail={"field": "seat"},
            )
        return seat

    def for_match(self, matches: Any, match_id: str, token: str | None, client: str) -> Any:
        """``GET /v1/matches/{id}/review``: the token's seat's review of the finished match,
        created on the first call, the same job afterwards (a failed one is replaced)."""
        from server.matches import require_token

        require_token(token, "a review")
        match = matches.load(match_id)
        seat = matches.seat_of(match, token)
        if not match.engine.is_terminal():
            raise Conflict(
                "the match is not over: its review opens once the game has ended",
                code="match_not_over",
                detail={"step": len(match.engine.history)},
            )
        key = (match_id, seat)
        with self._lock:
            lock = self._match_locks.setdefault(key, threading.Lock())
        with lock:
            job_id = self.store.match_job(match_id, seat)
            job = self.find(job_id) if job_id is not None else None
            if job is not None and job.status not in ("failed", "cancelled"):
                return job.answer()  # the seat's token, the job's owner
            defn, params = match.defn, match.params
            infoset = build_infoset(defn, params, match.engine, seat, with_view=False)
            spec = self.hints.bot_spec(None)
            self.hints.check_available(spec, defn, params, "bot")
            budget = self.hints.budget(DEFAULT_BUDGET).budget
            # Keyed: an unkeyed hash of the 32-bit match seed would give that seed (and the
            # hidden cards) to a brute force over 2^32.
            seed = self.keyed_seed(match.record.seed, "review", seat)
            job = self._create(
                defn,
                params,
                {"infoset": infoset},
                spec,
                budget,
                seed,
                DEFAULT_SAMPLES,
                client,
                self.owner_of(client, token),
                [],
                match_id=match_id,
            )
            self.store.set_match_job(match_id, seat, job.id)
        with self._lock:
            self._match_locks.pop(key, None)
        return job.queued_answer or job.answer()

    def cancel_match(self, matches: Any, match_id: str, token: str | None, client: str) -> Any:
        """``DELETE /v1/matches/{id}/review``: cancels the token's seat's review (``cancel``);
        404 ``unknown_review`` when the seat has none."""
        from server.matches import require_token

        require_token(token, "cancelling a review")
        seat = matches.seat_of(matches.load(match_id), token)
        job_id = self.store.match_job(match_id, seat)
        return self.cancel(job_id or "", client, token)

    def _check_capacity(self, client: str) -> None:
        cfg = self.config
        running = [c for c, status in self.store.live().values() if status in LIVE]
        mine = running.count(self.client_digest(client))
        if mine >= cfg.review_max_running_per_client:
            raise ApiError(
                f"this client already has {mine} reviews queued or running, the limit; poll "
                "them and ask again when one is done",
                status=429,
                code="too_many_reviews",
                detail={"max_running_per_client": cfg.review_max_running_per_client},
                retry_after=5.0,
            )
        if len(running) >= cfg.review_max_running:
            raise Unavailable(
                f"the service runs {len(running)} reviews, its limit; retry later",
                code="reviews_full",
                detail={"max_running": cfg.review_max_running},
                retry_after=10.0,
            )

    def _create(
        self,
        defn: games.GameDefinition,
        params: dict[str, Any],
        record: dict[str, Any],
        spec: dict[str, Any],
        budget: bots.Budget,
        seed: int,
        samples: int,
        client: str,
        owner: str,
        warnings: list[str],
        match_id: str | None = None,
        kind: str = "review",
        options: dict[str, Any] | None = None,
    ) -> ReviewJob:
        self._check_capacity(client)  # refuse before planning, and again when registering
        payload = {"game": defn.name, "params": params, **record, "seed": seed, **(options or {})}
        timeout = self.config.validate_timeout_ms / 1000.0
        plan = self.hints.run(KINDS[kind]["plan"], payload, timeout)
        self._check_length(len(plan["decisions"]))
        job = ReviewJob(
            id=issue_job_id(),
            client=client,
            owner=owner,
            game=defn.name,
            params=params,
            infoset=plan.pop("infoset"),
            plan=plan,
            spec=spec,
            budget=budget,
            seed=seed,
            samples=samples,
            warnings=list(warnings),
            match_id=match_id,
            kind=kind,
        )
        job.record_bytes = len(canonical(job.infoset))
        with self._lock:
            self._check_capacity(client)
            self.store.create(job.id, self.client_digest(client), job.to_spec(self.seal(client)))
        job.queued_answer = job.answer()  # what the 202 reports, before a worker takes it
        self.queue.enqueue(job.id)
        return job

    def _check_length(self, decisions: int) -> None:
        cap = self.config.review_max_decisions
        if decisions > cap:
            raise Unprocessable(
                f"this record has {decisions} decisions to look at, over this service's cap of "
                f"{cap} per review or analysis (review_max_decisions); send a shorter record",
                code="review_too_long",
                detail={"decisions": decisions, "max_decisions": cap},
            )

    # --- the queue and its workers -----------------------------------------------------------
    @property
    def queue(self) -> JobQueue:
        """The job queue (built on first use: the tests that never enqueue start no worker)."""
        with self._lock:
            if self._queue is None:
                self._queue = job_queue(self.config, self.shared, self.run_job)
            return self._queue

    def start(self) -> None:
        """Starts this instance's job worker and its reaper (idempotent): it takes jobs that
        any instance enqueued, and re-queues those whose worker died."""
        self.queue.start()
        with self._lock:
            if self._reaper is None:
                self._reaper = threading.Thread(
                    target=self._reap_loop, name="atelier-job-reaper", daemon=True
                )
                self._reaper.start()

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            queue, self._queue = self._queue, None
        if queue is not None:
            queue.close()

    def _reap_loop(self) -> None:
        while not self._closed.wait(HEARTBEAT_S):
            try:
                self.reap()
            except ApiError as err:  # the shared Redis away for a moment: next round
                log.warning("job reaper: %s", err.message)
            except Exception:
                log.exception("job reaper failed")

    def reap(self) -> None:
        """One round of the reaper: a running job whose heartbeat expired (its worker died)
        goes back to the queue, or fails with ``worker_died`` past ``MAX_WORKER_DEATHS``; a
        cancelled or failed one nobody finished is finished."""
        for job_id, status in self.store.stale():
            if status == "running":
                verdict = self.store.retry_or_fail(job_id)
                if verdict == "queued":
                    log.warning("review %s lost its worker; queued again", job_id)
                    self.queue.enqueue(job_id)
                elif verdict == "failed":
                    self._finalize(job_id)
            elif status in FINISHED:
                self._finalize(job_id)

    # --- running -----------------------------------------------------------------------------
    def run_job(self, job_id: str) -> None:
        """The queue's actor: claims the job's heartbeat (so that one worker runs it), keeps it
        beating, and runs its remaining decisions."""
        # Names the process running it (read in Redis by an operator, and by the fleet tests).
        token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"
        verdict = self.store.claim(job_id, token)
        if verdict == "failed":  # its workers died too often
            self._finalize(job_id)
        if verdict != "claimed":
            return
        stored = self.store.load(job_id)
        if stored is None:
            return
        job = self._job(stored)
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(HEARTBEAT_S):
                try:
                    if not self.store.heartbeat(job_id, token):
                        job.lost = True
                        return
                except ApiError as err:
                    log.warning("review %s heartbeat: %s", job_id, err.message)

        beating = threading.Thread(target=beat, name=f"atelier-beat-{job_id[:8]}", daemon=True)
        beating.start()
        try:
            self._run(job)
        finally:
            stop.set()
            self.store.release(job_id, token)

    def _run(self, job: ReviewJob) -> None:
        JOB_CLIENT.set(job.client)
        luck: tuple[dict[str, Any] | None, str | None] | None = None
        try:
            # A job run again after its worker died resumes after its last stored decision.
            for index in range(len(job.decisions), job.total):
                item = job.plan["decisions"][index]
                if self._stopped(job):
                    break
                result = self._decision(job, item)
                if result is None or self._stopped(job):  # cancelled meanwhile: not recorded
                    break
                where = {"index": index, "step": item["step"]}
                if job.kind == "analysis" and "played" in item:
                    where["played"] = item["played"]
                self._record(job, {**where, **result})
            if job.kind == "review" and len(job.decisions) == job.total and not self._stopped(job):
                luck = self._luck(job)  # ``None``: cancelled meanwhile
        except ApiError as err:
            self._fail(job, {"code": err.code, "message": err.message})
        except Exception as err:  # a bug: keep the trace for the operator
            log.exception("review %s failed", job.id)
            self._fail(job, {"code": "internal", "message": f"{type(err).__name__}: {err}"})
        if job.lost:  # another worker runs it now, and finishes it
            return
        if len(job.decisions) == job.total:
            self.store.transition(job.id, "done", LIVE)
        self._finalize(job.id, luck)

    def _stopped(self, job: ReviewJob) -> bool:
        """Whether to stop before the next decision: cancelled (in the store: by whichever
        instance got the DELETE), or taken over by another worker."""
        if not job.cancelled and self.store.status(job.id) == "cancelled":
            job.cancelled = True
        return job.cancelled or job.lost

    def _record(self, job: ReviewJob, decision: dict[str, Any]) -> None:
        """Adds a reviewed decision to the store; past ``review_max_answer_bytes`` the job
        fails (its decisions so far are kept)."""
        size = len(json.dumps(decision, separators=(",", ":")))
        cap = self.config.review_max_answer_bytes
        if job.decision_bytes + size > cap:
            raise ApiError(
                f"the job's steps would exceed this service's cap of {cap} bytes per review "
                "or analysis (review_max_answer_bytes); the steps done so far are kept",
                status=422,
                code=KINDS[job.kind]["too_large"],
                detail={"max_answer_bytes": cap},
            )
        self.store.add_decision(job.id, decision, size)
        job.decisions.append(decision)
        job.decision_bytes += size

    def _fail(self, job: ReviewJob, error: dict[str, Any]) -> None:
        """Fails a running job (a cancelled one stays cancelled)."""
        self.store.transition(job.id, "failed", LIVE, error)

    def _finalize(
        self, job_id: str, luck: tuple[dict[str, Any] | None, str | None] | None = None
    ) -> None:
        """The review (partial unless done), the answer encoded once and handed to the store,
        which keeps it (bounded) in place of the running job. ``luck`` is ``_luck``'s split and
        reason, from the runner that just computed it (a partial review has none)."""
        stored = self.store.load(job_id)
        if stored is None or stored.status in LIVE:
            return
        job = self._job(stored)
        complete = job.status == "done"
        if job.kind == "review" and (complete or job.decisions):
            if not complete:
                luck = (None, LUCK_PARTIAL)
            split, skipped = luck if luck is not None else (None, LUCK_LOST)
            job.review = assemble(
                job.game,
                job.infoset["seat"],
                job.spec,
                job.budget,
                job.seed,
                job.samples,
                job.decisions,
                job.plan,
                luck=split,
                luck_skipped=skipped,
            )
            if not complete:
                job.review["partial"] = True
        job.finished_at = time.time()
        job.encoded = json.dumps(job.answer(), separators=(",", ":")).encode()
        self.store.finish(job.id, job.encoded, job.size)

    def deadline(self, job: ReviewJob, step: int) -> float:
        """Seconds a decision at ``step`` may take in its worker: the bot's search and the
        paired rollouts (each within the budget's milliseconds), the pool margin, and the
        replays of the record's prefix it makes (``REPLAYS_PER_DECISION``, each costing the
        plan's measured whole-record replay in proportion to the prefix, ``REPLAY_SAFETY``
        times over): long games get the time their replays take instead of a killed worker."""
        ms = job.budget.milliseconds or self.config.max_budget_ms
        steps = max(1, int(job.plan.get("steps", 1)))
        replay_ms = float(job.plan.get("replay_ms", 0.0)) * min(1.0, (step + 1) / steps)
        replays = REPLAYS_PER_DECISION * REPLAY_SAFETY * replay_ms
        return (2 * ms + self.config.deadline_margin_ms + replays) / 1000.0

    def _decision(self, job: ReviewJob, item: dict[str, Any]) -> dict[str, Any] | None:
        """One decision in the pool; capacity errors are waited out (``RETRIES``); ``None``
        once the job is cancelled."""
        payload = {
            "game": job.game,
            "params": job.params,
            "infoset": job.infoset,
            "step": item["step"],
            "bot": job.spec,
            "budget": job.budget.to_json(),
            "seed": decision_seed(job.seed, item["step"]),
        }
        if job.kind == "review":
            payload.update(played=item["played"]["id"], samples=job.samples)
        else:  # the move played (a record's decision) or those asked for, then the top
            played = [item["played"]["id"]] if "played" in item else []
            payload.update(include=played + job.plan.get("include", []), top=job.plan["top"])
        return self._task(job, KINDS[job.kind]["step"], payload, self.deadline(job, item["step"]))

    def _task(
        self,
        job: ReviewJob,
        kind: str,
        payload: dict[str, Any],
        deadline: float,
        retries: dict[str, int] = RETRIES,
    ) -> dict[str, Any] | None:
        """One pool task of ``job``; the errors in ``retries`` are waited out that many times
        (the others, and one too many, raise); ``None`` once the job is cancelled."""
        tried: dict[str, int] = {}
        while not self._stopped(job):
            try:
                return self.hints.run(kind, payload, deadline)
            except ApiError as err:
                tried[err.code] = tried.get(err.code, 0) + 1
                if tried[err.code] > retries.get(err.code, 0):
                    raise
                time.sleep(min(10.0, max(0.2, err.retry_after or 1.0)))
        return None

    def _luck(self, job: ReviewJob) -> tuple[dict[str, Any] | None, str | None] | None:
        """The review's luck split (``review_luck`` task: ``bots.review.summary_luck``) and,
        when it is null, why; ``None`` once the job is cancelled. Never raises a pool error:
        a split over ``review_luck_ms`` or failing leaves the review done without it."""
        ms = self.config.review_luck_ms
        if ms <= 0:
            return None, "off on this service (review_luck_ms = 0)"
        payload = {"game": job.game, "params": job.params, "infoset": job.infoset, "seed": job.seed}
        # Not charged to the client's search time: admitted at its deadline, the split would
        # wait for a whole idle minute of the client's (``client_search_ms_per_minute``) after
        # the decisions. It is bounded instead by ``review_luck_ms``, by the running-review
        # limits (one split per review) and by the job lane, which leaves a worker free.
        uncharged = JOB_CLIENT.set(None)
        try:
            out = self._task(job, "review_luck", payload, ms / 1000.0, LUCK_RETRIES)
        except ApiError as err:
            if err.code == "deadline_exceeded":
                return None, f"took longer than {ms:g} ms (review_luck_ms)"
            log.warning("review %s: no luck split: %s", job.id, err.message)
            return None, f"could not be computed ({err.code}): {err.message}"
        finally:
            JOB_CLIENT.reset(uncharged)
        if out is None:
            return None
        return out["luck"], out["skipped"]

    def info(self) -> dict[str, Any]:
        return self.store.info()
