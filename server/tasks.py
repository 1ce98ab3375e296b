"""The work done inside search worker processes: plain JSON in, plain JSON out.

Workers never receive pickled states: a task is a game name, parameters, an information set,
a bot spec, a budget and a seed, and the worker rebuilds everything from those (replay is the
validator, see ``games.core.infoset``). Errors come back as data with the HTTP status they map
to, so a bad request never looks like a crashed worker.
"""

from __future__ import annotations

import json
import logging
import random
import time
import traceback
from dataclasses import dataclass
from typing import Any

import bots
import games
from bots.explain import explain_hint
from bots.protocol import NotYourTurn
from games.core.engine import CHANCE
from games.core.infoset import READER_ERRORS as SAMPLER_ERRORS
from games.core.infoset import build_view, first_difference, sample_checked
from server.answers import (
    MAX_ANSWER_BYTES,
    compact_view,
    is_compacted,
    truncate_policy,
)
from server.errors import ApiError, GameOver, Unprocessable, api_error_for

log = logging.getLogger("atelier.server.tasks")


def who_moves(engine: Any) -> str:
    if engine.is_terminal():
        return "nobody (the game is over)"
    player = engine.current_player()
    return "chance" if player == CHANCE else f"seat {player}"


# What a game's reader may raise when an information set has the right envelope but wrong value
# types inside (a list where a card name belongs): the client's data is at fault, so it is a
# 422 like any other impossible information set, never a 500. The sampler's own list, plus the
# assertions a replay may trip.
READER_ERRORS = (*SAMPLER_ERRORS, AssertionError)


@dataclass(frozen=True)
class CheckedHint:
    """A hint request the web process checked (``server.hints.HintService.check_hint``): the
    game definition's name, its validated parameters, an information set whose envelope matches
    them, a normalised bot spec, the effective budget and the seed.

    It crosses to the worker as JSON (``to_payload``) and comes back with ``from_payload``,
    which trusts it: the worker checks none of it again and only replays the information set
    (the replay validates its content, once). ``explain`` is off for hosted bots' own moves.
    """

    game: str
    params: dict[str, Any]
    infoset: dict[str, Any]
    bot: dict[str, Any]
    budget: bots.Budget
    seed: int
    explain: bool = True

    def to_payload(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "params": self.params,
            "infoset": self.infoset,
            "bot": self.bot,
            "budget": self.budget.to_json(),
            "seed": self.seed,
            "explain": self.explain,
        }

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> CheckedHint:
        """The request as the web process checked it (no ``Budget.from_json``: it was built
        from a checked ``Budget``)."""
        budget = payload["budget"]
        return cls(
            payload["game"],
            payload["params"],
            payload["infoset"],
            payload["bot"],
            bots.Budget(budget.get("simulations"), budget.get("milliseconds")),
            payload["seed"],
            payload.get("explain", True),
        )


def read_infoset(
    defn: Any,
    params: dict[str, Any],
    infoset: Any,
    rng: random.Random,
    prior: Any = None,
    *,
    checked: bool = False,
) -> Any:
    """``games.sample_engine`` with every failure reported as ``InvalidInfoset``.

    ``checked``: the web process checked the envelope (``CheckedHint``), so only the replay
    runs (``games.core.infoset.sample_checked``). Valid information sets never fail here (the
    conformance suite round-trips thousands per game), so a crash inside a game's sampler can
    only come from malformed input; the trace is logged for the game's authors all the same.
    """
    view = infoset.get("view") if isinstance(infoset, dict) else None
    compacted = isinstance(view, dict) and is_compacted(view.get("legal_actions"))
    if compacted:
        # A view as this service answers it, with compact ranges: compared in that form.
        infoset = {k: v for k, v in infoset.items() if k != "view"}
    try:
        sample = sample_checked if checked else games.sample_engine
        engine = sample(defn, params, infoset, rng, prior)
        if compacted:
            rebuilt = compact_view(build_view(defn, engine, infoset["seat"]))
            problem = first_difference("view", view, rebuilt)
            if problem:
                raise games.InvalidInfoset(problem)
        return engine
    except games.InvalidInfoset:
        raise
    except READER_ERRORS as err:
        log.warning("%s sampler failed on a malformed infoset", defn.name, exc_info=True)
        raise games.InvalidInfoset(
            f"the game could not read it ({type(err).__name__}: {err}); check each field's "
            f"type against the schema at GET /v1/games/{defn.name}"
        ) from None


def remaining(budget: bots.Budget, payload: dict[str, Any]) -> bots.Budget:
    """The budget left for the bot after this task's own work (reading the infoset).

    The client's milliseconds are the time the service may think about this request, so the
    replay that validates the infoset comes out of them; simulation counts are untouched.
    """
    received = payload.get("_received")
    if budget.milliseconds is None or received is None:
        return budget
    spent = (time.perf_counter() - received) * 1000.0
    return bots.Budget(budget.simulations, max(1.0, budget.milliseconds - spent))


def hint_task(payload: dict[str, Any]) -> dict[str, Any]:
    """The bot's hint for the seat of ``payload["infoset"]``; it must be that seat's turn.

    The payload is a ``CheckedHint``: the web process validated the parameters, the envelope,
    the bot spec and the budget; here the information set is replayed once, and that world is
    the bot's first (``hint_replayed``).
    """
    checked = CheckedHint.from_payload(payload)
    defn = games.definition(checked.game)
    params, infoset, seed, budget = checked.params, checked.infoset, checked.seed, checked.budget
    bot = bots.build_checked(checked.bot)
    started = time.perf_counter()
    rng = random.Random(seed)
    # Any world consistent with the infoset gives the seat's legal actions and their names.
    engine = read_infoset(defn, params, infoset, rng, bot.prior_for(defn.name), checked=True)
    seat = infoset["seat"]
    if engine.is_terminal():
        raise GameOver("the game in this information set is over: there is no move to suggest")
    if engine.current_player() != seat:
        raise NotYourTurn(f"it is not seat {seat}'s turn: {who_moves(engine)} to move")
    legal = engine.legal_actions()
    hint = bot.hint_replayed(
        defn, params, infoset, remaining(budget, payload), seed, engine, rng, started
    )
    if hint.action not in legal:
        raise RuntimeError(f"bot {bot.name!r} chose illegal action {hint.action}")
    hint.policy, omitted = truncate_policy(hint.policy, hint.action)
    out = hint.to_json(defn, engine)
    if omitted is not None:
        out["policy_omitted"] = omitted
    if checked.explain:  # off for hosted bots' own moves (server.matches)
        out["explain"] = explain_hint(
            defn,
            engine,
            seat,
            out,
            params=params,
            infoset=infoset,
            bot=checked.bot,
            seed=seed,
            budget=payload["budget"],
        )
    return out


def validate_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Checks an information set by replay; says whose turn it is and the seat's legal moves.

    The web process checked the parameters and the envelope (``HintService.validate``).
    """
    defn = games.definition(payload["game"])
    params = payload["params"]
    infoset = payload["infoset"]
    rng = random.Random(payload.get("seed", 0))
    engine = read_infoset(defn, params, infoset, rng, checked=True)
    seat = infoset["seat"]
    view = compact_view(build_view(defn, engine, seat))
    player = engine.current_player()
    return {
        "valid": True,
        "seat": seat,
        "terminal": engine.is_terminal(),
        "to_move": "terminal" if engine.is_terminal() else "chance" if player == CHANCE else "seat",
        "current_player": view["current_player"],
        "your_turn": player == seat,
        "steps": len(infoset["events"]),
        "returns": view.get("returns"),
        "view": view,
    }


def ping_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Round trip through a worker (health checks and tests)."""
    import os

    return {"pong": True, "pid": os.getpid(), "echo": payload.get("echo")}


TASKS = {"hint": hint_task, "validate": validate_task, "ping": ping_task}


def run_task(kind: str, payload: dict[str, Any], received: float | None = None) -> dict[str, Any]:
    """Runs one task; returns ``{"ok": result}`` or ``{"error": {...}}``, never raises.

    ``received`` is the ``time.perf_counter()`` at which the worker got the task.
    """
    if received is not None:
        payload = {**payload, "_received": received}
    try:
        result = TASKS[kind](payload)
        size = len(json.dumps(result, separators=(",", ":")))
        if size > MAX_ANSWER_BYTES:
            return {
                "error": {
                    "status": 422,
                    "code": "answer_too_large",
                    "message": f"the answer would be {size} bytes, over this service's cap of "
                    f"{MAX_ANSWER_BYTES}",
                    "detail": {"max_bytes": MAX_ANSWER_BYTES},
                }
            }
        return {"ok": result}
    except Exception as err:
        # A task may raise the answer itself (an ``ApiError`` naming a nested field).
        known = err if isinstance(err, ApiError) else api_error_for(err)
        if known is not None:
            return {
                "error": {
                    "status": known.status,
                    "code": known.code,
                    "message": known.message,
                    "detail": known.detail,
                }
            }
        # A bug in a game or bot, not the client's fault: log the trace where the operator
        # reads it, answer with the exception's name only.
        log.error("task %s failed:\n%s", kind, traceback.format_exc())
        return {
            "error": {
                "status": 500,
                "code": "internal",
                "message": f"internal error while running {kind!r}: {type(err).__name__}: {err}",
                "detail": {"exception": type(err).__name__},
            }
        }


# --- game review (bots.review) -------------------------------------------------------------------
def review_plan_task(payload: dict[str, Any]) -> dict[str, Any]:
    """A review's decisions: the seat's information set (from ``infoset``, or reduced from a
    whole-state ``state`` and ``seat``) and the steps where the seat chose, with its moves."""
    from bots.review import plan_review, plan_seed, seat_infoset_of_state

    defn = games.definition(payload["game"])
    params = payload["params"]
    infoset = payload.get("infoset")
    if infoset is None:
        infoset = seat_infoset_of_state(defn, params, payload["state"], payload["seat"])
    # Validated as a hint's infoset is (a view, if given, must match); reviewed without it.
    # That replay of the whole record is timed: each decision replays its prefix many times
    # (its world pool), and its deadline grows with that (``ReviewService.deadline``).
    started = time.perf_counter()
    world = read_infoset(defn, params, infoset, random.Random(plan_seed(payload["seed"])))
    replay_ms = (time.perf_counter() - started) * 1000.0
    infoset = {k: v for k, v in infoset.items() if k != "view"}
    plan = plan_review(defn, params, infoset, payload["seed"], world)
    return {"infoset": infoset, **plan, "replay_ms": round(replay_ms, 3)}


def review_decision_task(payload: dict[str, Any]) -> dict[str, Any]:
    """One decision of a review: the bot's move at ``step`` of the seat's information set and
    the paired values of it and of the move ``played`` (``bots.review.review_decision``)."""
    from bots.review import infoset_before, review_decision

    defn = games.definition(payload["game"])
    infoset = infoset_before(payload["infoset"], payload["step"])
    out = review_decision(
        defn,
        payload["params"],
        infoset,
        payload["played"],
        bots.make_bot(payload["bot"]),
        bots.Budget.from_json(payload["budget"]),
        payload["seed"],
        payload["samples"],
    )
    return out


def review_luck_task(payload: dict[str, Any]) -> dict[str, Any]:
    """A review's luck split, once after its decisions (``bots.review.summary_luck``: the
    rule ``atelier review`` runs too): ``{"luck": split or None, "skipped": reason or None}``."""
    from bots.review import summary_luck

    defn = games.definition(payload["game"])
    luck, skipped = summary_luck(defn, payload["params"], payload["infoset"], payload["seed"])
    return {"luck": luck, "skipped": skipped}


TASKS.update(
    review_plan=review_plan_task, review_decision=review_decision_task, review_luck=review_luck_task
)


# --- analysis (bots.analysis) ----------------------------------------------------------------
def analysis_plan_task(payload: dict[str, Any]) -> dict[str, Any]:
    """An analysis's positions: every decision of the seat in the record (``batch``: the
    review's plan, each with the move played), or the one position of the information set,
    where the seat must be to move; the moves asked for (``moves``: ids, structs or strings)
    decoded there as ids."""
    plan = review_plan_task(payload)
    plan["top"] = payload["top"]
    if payload["batch"]:
        plan["include"] = []
        return plan
    defn = games.definition(payload["game"])
    infoset = plan["infoset"]
    engine = read_infoset(defn, payload["params"], infoset, random.Random(payload["seed"]))
    seat = infoset["seat"]
    if engine.is_terminal():
        raise GameOver("the game in this information set is over: there is no move to analyse")
    if engine.current_player() != seat:
        raise NotYourTurn(f"it is not seat {seat}'s turn: {who_moves(engine)} to move")
    include = []
    for i, move in enumerate(payload["moves"]):
        try:
            include.append(defn.decode_action(engine, move))
        except games.InvalidAction as err:
            raise Unprocessable(
                f"field 'moves[{i}]': {err}",
                code="invalid_action",
                detail={"field": f"moves[{i}]"},
            ) from None
    plan["include"] = list(dict.fromkeys(include))
    plan["decisions"] = [{"step": len(infoset["events"])}]
    return plan


def analysis_position_task(payload: dict[str, Any]) -> dict[str, Any]:
    """One position of an analysis: ``bots.analysis.analyse`` of the seat's information set
    before ``step``, with the moves to ``include`` and the search's ``top`` others."""
    from bots.analysis import analyse
    from bots.review import infoset_before

    defn = games.definition(payload["game"])
    params = payload["params"]
    infoset = infoset_before(payload["infoset"], payload["step"])
    bot = bots.make_bot(payload["bot"])
    world = read_infoset(defn, params, infoset, random.Random(payload["seed"]), checked=True)
    found = analyse(
        defn,
        params,
        infoset,
        bot,
        bots.Budget.from_json(payload["budget"]),
        payload["seed"],
        include=tuple(payload["include"]),
        top=payload["top"],
    )
    return {"analysis": found.to_json(defn, world)}


TASKS.update(analysis_plan=analysis_plan_task, analysis_position=analysis_position_task)
