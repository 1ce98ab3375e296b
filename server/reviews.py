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

Under gunicorn's gevent worker the runner thread is a greenlet (threading is monkey-patched):
it waits for its worker on the pipe through the cooperative selector ``SearchPool`` uses, as
request handlers do, and does no disk work, so it never holds the hub (the match store's
SQLite calls, which would, go through gevent's thread pool: ``serve.InThreadpool``).

Jobs live in this process: a bounded ``TTLCache`` of finished jobs (``review_keep``, kept
``review_ttl_s``) plus the running ones, at most ``review_max_running`` at once overall (503
``reviews_full``) and ``review_max_running_per_client`` per client (429 ``too_many_reviews``).
Behind several instances a client must poll the instance that answered the POST (a later
fleet can move jobs into the shared store).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import uuid
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from cachetools import TTLCache

import bots
import games
from bots.review import DEFAULT_SAMPLES, assemble, decision_seed
from games.core.infoset import build_infoset
from server.cache import canonical, digest
from server.config import ServiceConfig
from server.errors import ApiError, Conflict, NotFound, Unavailable, Unprocessable
from server.hints import HintService
from server.schemas import MAX_SEED, BudgetIn, ReviewRequest

log = logging.getLogger("atelier.server.reviews")

# The client a review's runner thread works for: ``Resources.request_client`` answers it
# outside requests, so that the runner's pool tasks are charged to that client.
JOB_CLIENT: ContextVar[str | None] = ContextVar("atelier_review_client", default=None)

DEFAULT_BUDGET = BudgetIn(simulations=200, milliseconds=1000.0)
# Errors a runner waits out and retries, with how many retries: capacity (a busy pool, the
# client's limits) many times; a lost worker or an overrun deadline, which may be the
# decision's own doing and costs a worker each time, twice.
RETRIES = {
    "busy": 30,
    "unavailable": 30,
    "too_many_searches": 30,
    "search_time_exceeded": 30,
    "rate_limited": 30,
    "deadline_exceeded": 2,
    "worker_died": 2,
}


def job_client() -> str | None:
    """The client of the review job running in this thread, ``None`` elsewhere."""
    return JOB_CLIENT.get()


@dataclass(eq=False)
class ReviewJob:
    """One review: what to review (the seat's information set and its decisions) and where it
    stands."""

    id: str
    client: str
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

    @property
    def total(self) -> int:
        return len(self.plan["decisions"])

    def answer(self) -> dict[str, Any]:
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
        if self.status == "done":
            out["review"] = self.review
        if self.status == "failed":
            out["error"] = self.error
        return out


class ReviewService:
    """Creates review jobs, runs them in the background and answers their polls."""

    def __init__(self, hints: HintService, config: ServiceConfig) -> None:
        self.hints = hints
        self.config = config
        self._finished: TTLCache[str, ReviewJob] = TTLCache(
            maxsize=config.review_keep, ttl=config.review_ttl_s
        )
        self._live: dict[str, ReviewJob] = {}
        # (match id, seat) -> job id: a finished match's review is made once per seat.
        self._by_match: TTLCache[tuple[str, int], str] = TTLCache(
            maxsize=max(1024, config.review_keep), ttl=config.review_ttl_s
        )
        self._lock = threading.Lock()
        self._match_locks: dict[tuple[str, int], threading.Lock] = {}

    # --- polling -----------------------------------------------------------------------------
    def find(self, job_id: str) -> ReviewJob | None:
        with self._lock:
            return self._live.get(job_id) or self._finished.get(job_id)

    def get(self, job_id: str) -> dict[str, Any]:
        return self._job(job_id).answer()

    def body(self, job_id: str) -> bytes:
        """The job's answer as JSON; a finished job's (a review can be megabytes: one
        information set per decision) is encoded once, not on every poll."""
        job = self._job(job_id)
        if job.encoded is not None:
            return job.encoded
        status = job.status
        text = json.dumps(job.answer(), separators=(",", ":")).encode()
        if status in ("done", "failed"):
            job.encoded = text
        return text

    def _job(self, job_id: str) -> ReviewJob:
        job = self.find(job_id)
        if job is None:
            raise NotFound(
                f"no review with id {job_id!r} (reviews are kept {self.config.review_ttl_s:g} s "
                "after they finish, by the instance that accepted them)",
                code="unknown_review",
            )
        return job

    # --- creating ----------------------------------------------------------------------------
    def request(self, game: str, body: ReviewRequest, client: str) -> dict[str, Any]:
        """``POST /v1/games/{game}/review``: validated, planned, queued; the 202 answer."""
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
        record: dict[str, Any]
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
            record = {"infoset": body.infoset}
        else:
            params = self._state_params(defn, body.params, body.state)
            seat = self._state_seat(body.seat, params)
            record = {"state": body.state, "seat": seat}
        spec = hints.bot_spec(body.bot)
        hints.check_available(spec, defn, params, "bot")
        effective = hints.budget(body.budget or DEFAULT_BUDGET)
        samples = body.samples or DEFAULT_SAMPLES
        seed = body.seed
        if seed is None:
            text = canonical(
                {
                    "game": defn.name,
                    "params": params,
                    **record,
                    "bot": spec,
                    "budget": effective.budget.to_json(),
                    "samples": samples,
                }
            )
            seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % (MAX_SEED + 1)
        job = self._create(
            defn,
            params,
            record,
            spec,
            effective.budget,
            seed,
            samples,
            client,
            effective.warnings,
        )
        return job.queued_answer or job.answer()

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
            job_id = self._by_match.get(key)
            job = self.find(job_id) if job_id is not None else None
            if job is not None and job.status != "failed":
                return job.answer()
            defn, params = match.defn, match.params
            infoset = build_infoset(defn, params, match.engine, seat, with_view=False)
            spec = self.hints.bot_spec(None)
            self.hints.check_available(spec, defn, params, "bot")
            budget = self.hints.budget(DEFAULT_BUDGET).budget
            seed = int(digest([match.record.seed, "review", seat])[:8], 16)
            job = self._create(
                defn,
                params,
                {"infoset": infoset},
                spec,
                budget,
                seed,
                DEFAULT_SAMPLES,
                client,
                [],
                match_id=match_id,
            )
            self._by_match[key] = job.id
        with self._lock:
            self._match_locks.pop(key, None)
        return job.queued_answer or job.answer()

    def _check_capacity(self, client: str) -> None:
        cfg = self.config
        running = [j for j in self._live.values() if j.status in ("queued", "running")]
        mine = sum(1 for j in running if j.client == client)
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
                f"this instance runs {len(running)} reviews, its limit; retry later",
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
        warnings: list[str],
        match_id: str | None = None,
    ) -> ReviewJob:
        with self._lock:
            self._check_capacity(client)  # refuse before planning, and again when registering
        payload = {"game": defn.name, "params": params, **record, "seed": seed}
        plan = self.hints.run("review_plan", payload, self.config.validate_timeout_ms / 1000.0)
        job = ReviewJob(
            id=uuid.uuid4().hex,
            client=client,
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
        )
        with self._lock:
            self._check_capacity(client)
            self._live[job.id] = job
            job.queued_answer = job.answer()  # what the 202 reports, before the runner starts
        threading.Thread(
            target=self._run, args=(job,), name=f"atelier-review-{job.id[:8]}", daemon=True
        ).start()
        return job

    # --- running -----------------------------------------------------------------------------
    def _run(self, job: ReviewJob) -> None:
        JOB_CLIENT.set(job.client)
        job.status = "running"
        try:
            for index, item in enumerate(job.plan["decisions"]):
                result = self._decision(job, item)
                job.decisions.append({"index": index, "step": item["step"], **result})
            job.review = assemble(
                job.game,
                job.infoset["seat"],
                job.spec,
                job.budget,
                job.seed,
                job.samples,
                job.decisions,
                job.plan,
            )
            job.status = "done"
        except ApiError as err:
            job.error = {"code": err.code, "message": err.message}
            job.status = "failed"
        except Exception as err:  # a bug: keep the trace for the operator
            log.exception("review %s failed", job.id)
            job.error = {"code": "internal", "message": f"{type(err).__name__}: {err}"}
            job.status = "failed"
        finally:
            job.finished_at = time.time()
            with self._lock:
                self._live.pop(job.id, None)
                self._finished[job.id] = job

    def _decision(self, job: ReviewJob, item: dict[str, Any]) -> dict[str, Any]:
        """One decision in the pool; capacity errors are waited out (``RETRIES``)."""
        payload = {
            "game": job.game,
            "params": job.params,
            "infoset": job.infoset,
            "step": item["step"],
            "played": item["played"]["id"],
            "bot": job.spec,
            "budget": job.budget.to_json(),
            "seed": decision_seed(job.seed, item["step"]),
            "samples": job.samples,
        }
        ms = job.budget.milliseconds or self.config.max_budget_ms
        # The bot's search and then the paired rollouts, each within the budget's time.
        deadline = (2 * ms + self.config.deadline_margin_ms) / 1000.0
        tried: dict[str, int] = {}
        while True:
            try:
                return self.hints.run("review_decision", payload, deadline)
            except ApiError as err:
                tried[err.code] = tried.get(err.code, 0) + 1
                if tried[err.code] > RETRIES.get(err.code, 0):
                    raise
                time.sleep(min(10.0, max(0.2, err.retry_after or 1.0)))

    def info(self) -> dict[str, Any]:
        with self._lock:
            return {
                "running": sum(1 for j in self._live.values() if j.status == "running"),
                "queued": sum(1 for j in self._live.values() if j.status == "queued"),
                "finished": len(self._finished),
            }
