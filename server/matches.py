"""Hosted matches: humans play through the API against bots, each human seat behind a token.

A request that changes a match (create, a human move) stores the human move at once, then lets
chance and the bots play until a human must act or the game ends and stores their moves. If the
service dies in between, the next request resumes the bots where the stored history stops.
Chance outcomes and bot seeds derive from the match seed and the step index
(``games.core.seeds.derive_seed(seed, "chance" or "bot", step)``), so the resumed moves are the
ones that would have been played (for bots stopped by simulations, not by the clock).

The deal's seed is drawn by the server (a client who could choose the deal could read a bot's
hand from a human-only match with the same seed); the research option ``"reproducible": true``
uses the client's seed and marks the match as such in every answer. A move may
name the ``step`` it was chosen at: a retry of an applied move then gets the same answer and
changes nothing, and a move chosen at another step is refused with ``409 stale_step``.

Seat isolation: a token maps to exactly one seat, and a seat's answer is built from
``build_infoset`` for that seat only; without a token only the public events are shown (chance
steps are never described by their outcome, which may be a hidden card).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import threading
import time
import uuid
from typing import Any

import bots
import games
from games.core.definition import replay
from games.core.engine import CHANCE, Engine
from games.core.episode import Step, play_episode
from games.core.infoset import build_infoset
from games.core.seeds import derive_seed
from server import clock
from server.answers import compact_view
from server.config import ServiceConfig
from server.errors import ApiError, Conflict, NotFound, Unavailable, Unprocessable
from server.hints import HintService, checked_profiles
from server.logs import issue_token
from server.schemas import MAX_SEED, BudgetIn, MatchCreate
from server.store import Expiry, MatchRecord, MatchStore, StaleRevision, StoreUnavailable
from server.tasks import CheckedHint

HUMAN = "human"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def require_token(token: str | None, doing: str) -> None:
    """401 ``missing_token`` unless a seat token was sent."""
    if not token:
        raise ApiError(
            f"{doing} needs one of the match's seat tokens (the X-Seat-Token header)",
            status=401,
            code="missing_token",
            detail={"field": "X-Seat-Token"},
        )


class Match:
    """A stored match with its state rebuilt by replay."""

    def __init__(self, record: MatchRecord, defn: games.GameDefinition, engine: Engine) -> None:
        self.record = record
        self.defn = defn
        self.engine = engine

    @property
    def params(self) -> dict[str, Any]:
        return self.record.params

    def is_human(self, seat: int) -> bool:
        return self.record.seats[seat]["kind"] == HUMAN

    def needs_automation(self) -> bool:
        """Chance or a bot is to move (not yet played, e.g. after a crash mid-request)."""
        if self.engine.is_terminal():
            return False
        player = self.engine.current_player()
        return player == CHANCE or not self.is_human(player)


class BotsPaused(Unavailable):
    """The bots' thinking time for this request is used up; the next request resumes them."""

    code = "bots_paused"


class MatchService:
    """Creates, shows and advances matches; used by the ``matches`` blueprint."""

    # Expired matches are deleted by the request that creates one, at most this often.
    PURGE_EVERY_S = 60.0
    # Attempts of a move whose save found the match changed by another instance.
    STALE_RETRIES = 5

    def __init__(self, store: MatchStore, hints: HintService, config: ServiceConfig) -> None:
        self.store = store
        self.hints = hints
        self.config = config
        self.expiry = Expiry(config.match_idle_expiry_s, config.match_finished_expiry_s)
        self._last_purge = 0.0
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    # --- locking -----------------------------------------------------------------------------
    def _lock(self, match_id: str) -> threading.Lock:
        with self._locks_guard:
            lock = self._locks.get(match_id)
            if lock is None:
                if len(self._locks) > 4096:
                    for key in [k for k, v in self._locks.items() if not v.locked()]:
                        del self._locks[key]
                lock = self._locks[match_id] = threading.Lock()
            return lock

    def _acquire(self, match_id: str) -> threading.Lock:
        lock = self._lock(match_id)
        if not lock.acquire(timeout=self.config.match_lock_timeout_s):
            raise Conflict(
                "the match is busy with another request; retry",
                code="match_busy",
                retry_after=1.0,
            )
        return lock

    # --- loading -----------------------------------------------------------------------------
    def load(self, match_id: str) -> Match:
        record = self.store.get(match_id)
        if record is None or self.expiry.expired(record):
            raise NotFound(
                f"no match with id {match_id!r} (matches expire "
                f"{self.config.match_idle_expiry_s:g} s after their last move, finished ones "
                f"after {self.config.match_finished_expiry_s:g} s)",
                code="unknown_match",
            )
        defn = games.DEFINITIONS.get(record.game)
        if defn is None or defn.version != record.version:
            raise ApiError(
                f"match {match_id} was played with {record.game} version {record.version}, "
                "which this server no longer plays",
                status=410,
                code="match_obsolete",
            )
        return Match(record, defn, replay(defn, record.params, record.history))

    def _purge(self) -> None:
        now = clock.now()
        if now - self._last_purge < self.PURGE_EVERY_S:
            return
        self._last_purge = now
        self.store.purge(self.expiry)

    def seat_of(self, match: Match, token: str | None) -> int | None:
        """The seat a token opens, ``None`` without a token; 403 for a token of no seat."""
        if token is None or token == "":
            return None
        digest_ = hash_token(token)
        for seat, stored in match.record.token_hashes.items():
            if hmac.compare_digest(stored, digest_):
                return seat
        raise ApiError(
            "this token opens no seat of this match",
            status=403,
            code="bad_token",
            detail={"field": "token"},
        )

    # --- creating ----------------------------------------------------------------------------
    def create(self, body: MatchCreate, client: str = "") -> dict[str, Any]:
        """Creates a match for ``client`` (who counts against the quota) and plays the bots
        up to the first human decision."""
        defn = self.hints.definition(body.game)
        seats = self._seat_specs(body.seats)
        params = dict(body.params or {})
        params.setdefault("players", len(seats))
        try:
            params = defn.validate_params(params)
        except games.InvalidParams as err:
            raise Unprocessable(
                f"params: {err}", code="invalid_params", detail={"field": "params"}
            ) from None
        if params["players"] != len(seats):
            raise Unprocessable(
                f"field 'seats' lists {len(seats)} seats but params.players is {params['players']}",
                code="invalid_request",
                detail={"field": "seats"},
            )
        if not any(s["kind"] == HUMAN for s in seats):
            raise Unprocessable(
                "field 'seats' needs at least one \"human\" seat (bot-only games belong to "
                "`atelier tournament`)",
                code="invalid_request",
                detail={"field": "seats"},
            )
        for i, spec in enumerate(seats):
            if spec["bot"] is not None:
                # A seat's opponent profiles (its bot's options) checked against the game.
                spec["bot"] = checked_profiles(spec["bot"], defn, params, f"seats[{i}]")
                self.hints.check_available(spec["bot"], defn, params, f"seats[{i}]")
        effective = self.hints.budget(body.budget, self.config.match_budget_ms)
        seed = self._deal_seed(body.seed, body.reproducible)
        self._purge()
        # Issued with the prefix that keeps them out of the logs (server.logs).
        tokens = {s: issue_token() for s, spec in enumerate(seats) if spec["kind"] == HUMAN}
        now = self.store.now()  # the store's clock: the same for every instance
        record = MatchRecord(
            id=uuid.uuid4().hex,
            game=defn.name,
            version=defn.version,
            params=params,
            seats=seats,
            token_hashes={s: hash_token(t) for s, t in tokens.items()},
            budget=effective.budget.to_json(),
            seed=seed,
            history=[],
            revision=0,
            created_at=now,
            updated_at=now,
            client=hash_token(client) if client else "",
            reproducible=body.reproducible,
        )
        self._insert(record)
        lock = self._acquire(record.id)
        try:
            match = Match(record, defn, defn.new_engine(params))
            moves: list[dict[str, Any]] = []
            warning = self._advance_or_warn(match, moves)
        finally:
            lock.release()
        out = self.describe(match, None)
        out["moves"] = moves
        if warning:
            out["warning"] = warning
        warnings = [*effective.warnings, *self._seed_warnings(body)]
        if warnings:
            out["warnings"] = warnings
        out["tokens"] = [{"seat": s, "token": t} for s, t in sorted(tokens.items())]
        return out

    def _insert(self, record: MatchRecord) -> None:
        """Stores a new match; 429 ``match_quota`` if its client holds the quota already.

        The store counts and inserts in one locked transaction, so concurrent creates (in
        any instance sharing the database) never get past the quota.
        """
        quota = self.config.match_quota_per_client
        if not quota or not record.client:
            self.store.insert(record)
        elif not self.store.insert_within_quota(record, quota, self.expiry):
            raise ApiError(
                f"this client already holds {quota} unfinished matches, the limit; finish or "
                "DELETE some (idle ones expire by themselves)",
                status=429,
                code="match_quota",
                detail={"quota": quota},
                retry_after=60.0,
            )

    @staticmethod
    def _seed_warnings(body: MatchCreate) -> list[str]:
        """Says that a seed sent without ``reproducible`` was not used (see ``_deal_seed``):
        a client expecting a chosen deal would otherwise not know it got another."""
        if body.seed is None or body.reproducible:
            return []
        return [
            "field 'seed' was ignored: the server drew this match's deal; a client's seed is "
            "used only with 'reproducible': true (research use)"
        ]

    @staticmethod
    def _deal_seed(given: int | None, reproducible: bool) -> int:
        """The seed of the deal and the bots: drawn by the server, or (research option
        ``reproducible``) the client's as given.

        A client's seed is not used otherwise, not even mixed with a server secret: any fixed
        mix gives equal deals for equal seeds, so a human-only match would still show the
        cards a bot holds in another match made with the same seed.
        """
        if reproducible:
            if given is None:
                raise Unprocessable(
                    "field 'reproducible' needs a 'seed' (the deal is then that seed's, as in "
                    "`atelier tournament`)",
                    code="invalid_request",
                    detail={"field": "seed"},
                )
            return given
        return secrets.randbelow(MAX_SEED + 1)

    def delete(self, match_id: str, token: str | None) -> None:
        """Deletes a match; any of its seat tokens may."""
        require_token(token, "deleting a match")
        lock = self._acquire(match_id)
        try:
            match = self.load(match_id)
            self.seat_of(match, token)
            self.store.delete(match_id)
        finally:
            lock.release()

    def _seat_specs(self, seats: list[Any]) -> list[dict[str, Any]]:
        out = []
        for i, spec in enumerate(seats):
            if spec == HUMAN:
                out.append({"kind": HUMAN, "bot": None})
            elif isinstance(spec, str) and spec not in bots.BOTS:
                raise Unprocessable(
                    f'seats[{i}]: unknown seat kind {spec!r}; a seat is "human" or a bot: '
                    f"{sorted(bots.BOTS)}",
                    code="invalid_bot",
                    detail={"field": f"seats[{i}]"},
                )
            else:
                out.append({"kind": "bot", "bot": self.hints.bot_spec(spec, f"seats[{i}]")})
        return out

    # --- playing -----------------------------------------------------------------------------
    def _advance(self, match: Match, played: list[dict[str, Any]]) -> None:
        """Plays chance and bot moves until a human must act or the game ends.

        Appends the public event of each step to ``played`` (so a failure part-way still
        reports the steps that happened) and saves once at the end, or at the failure. Losing
        unsaved automatic steps to a crash is harmless: nobody has seen them, and the next
        request plays them again from the same seeds. The bots think at most
        ``match_request_bot_ms`` in all per request: past that, ``BotsPaused`` is raised after
        saving, and the next request continues (as after a crash).
        """
        engine = match.engine
        record = match.record
        saved = len(record.history)
        thought = [0.0]
        limit = self.config.match_request_bot_ms

        def bot_move(engine: Engine, seat: int, _: int) -> int:
            if thought[0] >= limit:
                raise BotsPaused(f"the bots used this request's {limit:g} ms of thinking")
            started = time.perf_counter()
            action = self._bot_move(match, seat, len(engine.history))
            thought[0] += (time.perf_counter() - started) * 1000.0
            return action

        def chance(engine: Engine) -> int:
            step = len(engine.history)
            return engine.sample_chance(random.Random(derive_seed(record.seed, "chance", step)))

        def record_event(engine: Engine, step: Step) -> None:
            event = engine.narrate(step.action).public
            played.append({"step": len(engine.history), "event": event})

        shown = len(played)
        try:
            play_episode(
                engine, bot_move, chance, record_event, stop=lambda _: not match.needs_automation()
            )
        finally:
            if len(engine.history) != saved:
                record.history = list(engine.history)
                record.finished = engine.is_terminal()
                try:
                    self._save(record)
                except StoreUnavailable:
                    self._forget_unsaved(match, saved)
                    del played[shown:]
                    raise

    @staticmethod
    def _forget_unsaved(match: Match, saved: int) -> None:
        """Takes the match back to its first ``saved`` steps, the ones stored: automatic moves
        whose save failed must not be shown, since the next request plays them again (a bot
        stopped by the clock may then choose otherwise)."""
        record = match.record
        record.history = record.history[:saved]
        match.engine = replay(match.defn, record.params, record.history)
        record.finished = match.engine.is_terminal()

    def _bot_move(self, match: Match, seat: int, step: int) -> int:
        record = match.record
        infoset = build_infoset(match.defn, record.params, match.engine, seat, with_view=False)
        budget = bots.Budget.from_json(record.budget)
        seed = derive_seed(record.seed, "bot", step) % (MAX_SEED + 1)  # a hint's seed range
        # Built here from the match's record (checked when the match was created): trusted.
        checked = CheckedHint(
            record.game,
            record.params,
            infoset,
            record.seats[seat]["bot"],
            budget,
            seed,
            explain=False,  # a bot's own move: nobody reads its explanation
        )
        try:
            result = self.hints.run("hint", checked.to_payload(), self.hints.deadline(budget))
        except Unavailable as err:
            err.message = f"seat {seat}'s bot could not move: {err.message}"
            raise
        action = result["action"]["id"]
        if action not in match.engine.legal_actions():  # pragma: no cover - checked in worker
            raise ApiError(
                f"seat {seat}'s bot chose an illegal action", status=500, code="internal"
            )
        return action

    def _save(self, record: MatchRecord) -> None:
        try:
            self.store.save_history(record)
        except StaleRevision as err:
            raise Conflict(str(err) + "; reload and retry", code="match_changed") from None

    def act(
        self, match_id: str, token: str | None, action: Any, step: int | None = None
    ) -> dict[str, Any]:
        """Applies a human move, then lets the bots play; a refused move changes nothing.

        With ``step`` (the step the move was chosen at), a retry of a move already applied
        answers as the first time did and changes nothing; a move for any other step is
        refused with ``409 stale_step`` and the current step.

        Another instance sharing the database may store a change between our load and our
        save (the per-match lock is per process): the save's revision check then refuses
        ours, and the move is tried again on the match as now stored, as if this request had
        waited for the lock.
        """
        require_token(token, "a move")
        lock = self._acquire(match_id)
        try:
            for _ in range(self.STALE_RETRIES):
                try:
                    return self._act(match_id, token, action, step)
                except StaleRevision:
                    continue
            raise Conflict(
                "the match keeps being changed by other requests; reload and retry",
                code="match_changed",
            )
        finally:
            lock.release()

    def _act(
        self, match_id: str, token: str | None, action: Any, step: int | None
    ) -> dict[str, Any]:
        """One attempt of ``act``; ``StaleRevision`` if the human move could not be stored."""
        match = self.load(match_id)
        seat = self.seat_of(match, token)
        assert seat is not None
        moves: list[dict[str, Any]] = []
        if step is not None and step < len(match.record.history):
            return self._retry(match, seat, action, step)
        # Bots left by an interrupted request; nothing of this request is stored yet.
        warning = self._advance_or_warn(match, moves, after_commit=False)
        engine = match.engine
        if step is not None and step != len(engine.history):
            raise self._stale(match, step)
        if engine.is_terminal():
            raise Conflict("the match is over", code="game_over")
        if engine.current_player() != seat:
            raise Conflict(
                f"it is not seat {seat}'s turn: seat {engine.current_player()} to move",
                code="not_your_turn",
                detail={"current_player": engine.current_player()},
            )
        action_id = self._decode(match.defn, engine, action)
        at = len(engine.history)
        story = engine.narrate(action_id)
        engine.apply(action_id)
        match.record.history = list(engine.history)
        match.record.finished = engine.is_terminal()
        self.store.save_history(match.record)  # StaleRevision: nothing of ours was stored
        moves.append({"step": at, "event": story.public})
        warning = self._advance_or_warn(match, moves) or warning
        out = self.describe(match, seat)
        out["moves"] = moves
        if warning:
            out["warning"] = warning
        return out

    @staticmethod
    def _stale(match: Match, step: int) -> Conflict:
        current = len(match.engine.history)
        return Conflict(
            f"field 'step' is {step}, but the match is at step {current}: reload it and choose "
            "again",
            code="stale_step",
            detail={"field": "step", "step": current},
        )

    def _retry(self, match: Match, seat: int, action: Any, step: int) -> dict[str, Any]:
        """The answer to a repeated move: the same as the first time if this seat played this
        action at ``step`` and nothing has happened since but the bots' replies; else 409."""
        defn, history = match.defn, match.record.history
        engine = replay(defn, match.params, history[:step])
        if engine.is_terminal() or engine.current_player() != seat:
            raise self._stale(match, step)
        try:
            action_id = self._decode(defn, engine, action)
        except ApiError:
            raise self._stale(match, step) from None
        if history[step] != action_id:
            raise self._stale(match, step)
        moves = []
        for i in range(step, len(history)):
            player = engine.current_player()
            if i > step and player >= 0 and match.is_human(player):
                raise self._stale(match, step)  # a human moved since: not a plain retry
            moves.append({"step": i, "event": engine.narrate(history[i]).public})
            engine.apply(history[i])
        out = self.describe(match, seat)
        out["moves"] = moves
        out["retried"] = True
        return out

    def _advance_or_warn(
        self, match: Match, moves: list[dict[str, Any]], *, after_commit: bool = True
    ) -> str | None:
        """Advances after a saved change; a failure of the bots, or of the database while
        saving their moves, is then reported in a warning, not as an error.

        The change was stored, so failing the request (a 4xx or a 503, which both promise
        that nothing was written) would invite the client to repeat a move that already
        happened. The bots resume on the next request. Before anything of this request is
        stored (``after_commit=False``), a database that does not answer stays a 503.
        """
        try:
            self._advance(match, moves)
        except ApiError as err:
            return f"{err.message}; the bots will resume on the next request"
        except StoreUnavailable as err:
            if not after_commit:
                raise
            return (
                f"{err}, so the moves after the stored ones were not saved; the bots' replies "
                "follow on the next request (send 'step' with a repeated move)"
            )
        return None

    @staticmethod
    def _decode(defn: games.GameDefinition, engine: Engine, action: Any) -> int:
        try:
            return defn.decode_action(engine, action)  # a struct, an id or the string
        except games.InvalidAction as err:
            raise Unprocessable(
                f"action: {err}", code="invalid_action", detail={"field": "action"}
            ) from None

    def view(self, match_id: str, token: str | None) -> dict[str, Any]:
        match = self.load(match_id)
        seat = self.seat_of(match, token)
        if match.needs_automation():
            # Bots left to move (a restart mid-request): finish their moves now if nobody is.
            lock = self._lock(match_id)
            if lock.acquire(blocking=False):
                try:
                    match = self.load(match_id)
                    self._advance(match, [])
                except ApiError:
                    # Shown as "bots_to_move" (the next request continues), or as another
                    # instance that moved them at the same time stored them.
                    match = self.load(match_id)
                finally:
                    lock.release()
        return self.describe(match, seat)

    def hint(
        self,
        match_id: str,
        token: str | None,
        bot: Any,
        budget: BudgetIn | None,
        seed: int | None,
    ) -> dict[str, Any]:
        match = self.load(match_id)
        seat = self.seat_of(match, token)
        if seat is None:
            require_token(None, "a hint")
        engine = match.engine
        if engine.is_terminal():
            raise Conflict("the match is over", code="game_over")
        if engine.current_player() != seat:
            raise Conflict(
                f"it is not seat {seat}'s turn: {self._who(engine)} to move",
                code="not_your_turn",
            )
        infoset = build_infoset(match.defn, match.params, engine, seat, with_view=False)
        return self.hints.hint(match.record.game, infoset, bot=bot, budget=budget, seed=seed)

    # --- showing -----------------------------------------------------------------------------
    @staticmethod
    def _who(engine: Engine) -> str:
        player = engine.current_player()
        return "chance" if player == CHANCE else f"seat {player}"

    def describe(self, match: Match, seat: int | None) -> dict[str, Any]:
        """The public view, plus the seat's information set when ``seat`` is given."""
        engine = match.engine
        record = match.record
        terminal = engine.is_terminal()
        player = engine.current_player()
        public = build_infoset(match.defn, record.params, engine, 0, with_view=False)["events"]
        out: dict[str, Any] = {
            "match_id": record.id,
            "game": record.game,
            "version": record.version,
            "params": record.params,
            "seats": [
                {"seat": i, "kind": s["kind"], "bot": s["bot"]} for i, s in enumerate(record.seats)
            ],
            "status": "finished"
            if terminal
            else "bots_to_move"
            if match.needs_automation()
            else "waiting",
            "step": len(engine.history),
            "terminal": terminal,
            "current_player": None if player < 0 else player,
            "to_move": "terminal" if terminal else "chance" if player == CHANCE else "seat",
            "returns": engine.returns() if terminal else None,
            "events": public,
        }
        if record.reproducible:
            out["reproducible"] = True  # the deal follows the client's seed: research use only
        if seat is not None:
            infoset = build_infoset(match.defn, record.params, engine, seat, with_view=True)
            infoset["view"] = compact_view(infoset["view"])
            out["seat"] = seat
            out["infoset"] = infoset  # its view lists the legal actions (once)
        return out
