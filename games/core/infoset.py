"""Information sets as JSON, and the sampler that turns one back into full states.

Shape (the same for every game)::

    {"game": ..., "version": ..., "params": {...}, "seat": p,
     "events": [public event of step 0, step 1, ...],
     "private": [{"at": i, ...hidden part of step i that seat p saw}, ...],
     "view": {...derived picture: hand, table, whose turn, legal actions...}}

``events`` has exactly one entry per step of the game (chance outcomes included), so ``at``
is both an index into ``events`` and into the action history. Everything but ``view`` is the
canonical part: two states give the same canonical JSON for ``p`` exactly when they give the
same ``information_state_string(p)``.

``sample_state`` follows the replay principle of ``DESIGN.md``: the game's definition fills
every hidden outcome and commit to propose a full history (reading only the JSON), the
history is replayed through the engine, and the result's information set must equal the
input; the first field or event that differs is named in ``InvalidInfoset``.
"""

from __future__ import annotations

import json
import random
from typing import Any

from games.core.definition import GameDefinition, InvalidInfoset, Prior, replay
from games.core.engine import Engine
from games.core.params import InvalidParams
from games.core.pieces import HistoryFields, flatten

CANONICAL_KEYS = ("game", "version", "params", "seat", "events", "private")
MAX_SAMPLE_ATTEMPTS = 200


def canonical_json(infoset: dict[str, Any]) -> str:
    """The canonical part of an infoset as a compact, key-sorted JSON string."""
    return json.dumps(
        {k: infoset[k] for k in CANONICAL_KEYS}, sort_keys=True, separators=(",", ":")
    )


def narrated_steps(defn: GameDefinition, params: dict[str, Any], history: list[int]):
    """Yields ``(engine_before, action, narration)`` for every step of ``history``."""
    engine = defn.new_engine(params)
    for action in history:
        yield engine, action, engine.narrate(action)
        engine.apply(action)


def build_infoset(
    defn: GameDefinition,
    params: dict[str, Any],
    engine: Engine,
    seat: int,
    with_view: bool = True,
) -> dict[str, Any]:
    """Seat ``seat``'s information set of ``engine``, built by narrating its history."""
    events: list[dict[str, Any]] = []
    private: list[dict[str, Any]] = []
    for i, (_, _, story) in enumerate(narrated_steps(defn, params, engine.history)):
        events.append(story.public)
        hidden = story.private_for(seat)
        if hidden is not None:
            private.append({"at": i, **hidden})
    infoset: dict[str, Any] = {
        "game": defn.name,
        "version": defn.version,
        "params": dict(params),
        "seat": seat,
        "private": private,
        "events": events,
    }
    if with_view:
        infoset["view"] = build_view(defn, engine, seat)
    return infoset


def build_view(defn: GameDefinition, engine: Engine, seat: int) -> dict[str, Any]:
    """The derived picture for a client: the engine's observation plus turn and legal moves."""
    view = dict(engine.observation(seat))
    player = engine.current_player()
    view["terminal"] = engine.is_terminal()
    view["current_player"] = None if player < 0 else player
    if engine.is_terminal():
        view["returns"] = engine.returns()
    view["legal_actions"] = (
        [
            {
                "id": a,
                "struct": defn.action_to_struct(engine, seat, a),
                "string": defn.action_to_string(engine, seat, a),
            }
            for a in engine.legal_actions()
        ]
        if player == seat
        else []
    )
    return view


# --- validation ------------------------------------------------------------------------------
def check_envelope(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: Any,
    own_params: dict[str, Any] | None = None,
) -> tuple[int, list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """Checks the shape of an infoset; returns (seat, events, private entries by index).

    ``own_params``: the infoset's own ``params`` already validated by the caller (the service
    validates them first, to name the field), so that they are not validated twice.
    """
    if not isinstance(infoset, dict):
        raise InvalidInfoset(f"the information set must be a JSON object, got {type(infoset)}")
    for key in CANONICAL_KEYS:
        if key not in infoset:
            raise InvalidInfoset(f"missing field '{key}'")
    extra = sorted(set(infoset) - set(CANONICAL_KEYS) - {"view"})
    if extra:
        raise InvalidInfoset(f"unknown field '{extra[0]}'")
    if infoset["game"] != defn.name:
        raise InvalidInfoset(f"field 'game' is {infoset['game']!r}, expected {defn.name!r}")
    if infoset["version"] != defn.version:
        raise InvalidInfoset(
            f"field 'version' is {infoset['version']!r}; this server plays {defn.name} "
            f"version {defn.version}"
        )
    if not isinstance(infoset["params"], dict):
        raise InvalidInfoset("field 'params' must be an object")
    if own_params is not None:
        given = own_params
    else:
        try:
            given = defn.validate_params(infoset["params"])
        except InvalidParams as err:
            raise InvalidInfoset(f"field 'params': {err}") from None
    if given != params:
        diff = next(k for k in params if given.get(k) != params[k])
        raise InvalidInfoset(
            f"field 'params.{diff}' is {given.get(diff)!r} but the game was loaded with "
            f"{params[diff]!r}"
        )
    seat = infoset["seat"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < params["players"]:
        raise InvalidInfoset(
            f"field 'seat' must be a seat 0..{params['players'] - 1}, got {seat!r}"
        )
    events = infoset["events"]
    if not isinstance(events, list):
        raise InvalidInfoset("field 'events' must be a list")
    for i, ev in enumerate(events):
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise InvalidInfoset(f"events[{i}] must be an object with a string 'type'")
    private = infoset["private"]
    if not isinstance(private, list):
        raise InvalidInfoset("field 'private' must be a list")
    by_index: dict[int, dict[str, Any]] = {}
    last = -1
    for j, entry in enumerate(private):
        if not isinstance(entry, dict):
            raise InvalidInfoset(f"private[{j}] must be an object")
        at = entry.get("at")
        if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at < len(events):
            raise InvalidInfoset(
                f"private[{j}].at must be an event index 0..{len(events) - 1}, got {at!r}"
            )
        if at <= last:
            raise InvalidInfoset(f"private[{j}].at={at} is out of order or repeated")
        last = at
        by_index[at] = {k: v for k, v in entry.items() if k != "at"}
    check_names(defn.history_fields(defn.new_engine(params)), events, private)
    return seat, events, by_index


def check_names(
    fields: HistoryFields, events: list[dict[str, Any]], private: list[dict[str, Any]]
) -> None:
    """``InvalidInfoset`` naming the first name the game does not have (an event type, a card,
    a painter, an artist): "unknown card 'Picasso'" says more than the replay's "not possible
    here", which is for known names in the wrong place. The names are the game's declared
    history fields (``games.core.pieces``), the same list the information-state tensor uses."""
    for i, event in enumerate(events):
        if event["type"] not in fields.event_types:
            raise InvalidInfoset(
                f"events[{i}] field 'type': unknown event type {event['type']!r} "
                f"(known: {', '.join(fields.event_types)})"
            )
        problem = unknown_name(fields.public, event, f"events[{i}]")
        if problem:
            raise InvalidInfoset(problem)
    for j, entry in enumerate(private):
        problem = unknown_name(fields.private, entry, f"private[{j}]")
        if problem:
            raise InvalidInfoset(problem)


# Field names whose values a message calls by another word.
_NAME_WORDS = {"auction": "auction type", "partner": "auction type"}


def unknown_name(fields: Any, entry: dict[str, Any], where: str) -> str | None:
    """The first string of ``entry`` in a named field (``fields`` maps a flattened path to its
    names, ``None`` for a number) that is not one of its names, as a message; else ``None``.

    A name may also be a key, as in ``{"cards": {"Monet": 2}}`` (declared as ``cards.Monet``,
    ``cards.Vermeer``, ...): a key there that no declared sibling has is an unknown name. Fields
    the declaration does not know are left to the replay, which names them.
    """
    names = {name for vocab in fields.values() if vocab for name in vocab}
    for path, leaf in flatten(entry):
        vocab = fields.get(path)
        if vocab is not None:
            if isinstance(leaf, str) and leaf not in vocab:
                last = path.rpartition(".")[2]
                known = ", ".join(vocab)
                word = _NAME_WORDS.get(last, last)
                return f"{where} field '{path}': unknown {word} {leaf!r} (known: {known})"
            continue
        if path in fields:
            continue
        head, _, key = path.rpartition(".")
        siblings = [p.rpartition(".")[2] for p in fields if head and p.rpartition(".")[0] == head]
        if siblings and all(s in names for s in siblings) and key not in siblings:
            return f"{where} field '{head}': unknown name {key!r} (known: {', '.join(siblings)})"
    return None


def first_difference(path: str, want: Any, got: Any) -> str | None:
    """The first path where two JSON values differ, with both values, or ``None``."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got), key=str):
            if key not in got:
                return f"{path}.{key} is not possible here (the replay has no such field)"
            if key not in want:
                return f"{path}.{key} is missing (the replay gives {got[key]!r})"
            found = first_difference(f"{path}.{key}", want[key], got[key])
            if found:
                return found
        return None
    if isinstance(want, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(want, got, strict=False)):
            found = first_difference(f"{path}[{i}]", a, b)
            if found:
                return found
        if len(want) != len(got):
            return f"{path} has {len(want)} entries but the replay gives {len(got)}"
        return None
    if want != got or type(want) is not type(got):
        return f"{path} is {want!r} but the replay gives {got!r}"
    return None


# --- sampling -------------------------------------------------------------------------------
# What a game's sampler may raise on a field of the wrong type (a list where a card name
# belongs): the client's data is at fault, never the game.
READER_ERRORS = (TypeError, KeyError, AttributeError, IndexError, ValueError)


def locate_malformed(
    defn: GameDefinition, params: dict[str, Any], infoset: dict[str, Any], prior: Prior | None
) -> str:
    """Where a sampler's crash comes from: the first step whose events and private entries make
    it fail, found by bisection over prefixes of the history (only on this error path)."""
    events = infoset["events"]
    private = infoset["private"]

    def fails(k: int) -> bool:
        cut = {
            **infoset,
            "events": events[:k],
            "private": [p for p in private if isinstance(p, dict) and _before(p.get("at"), k)],
        }
        cut.pop("view", None)
        try:
            defn.sample_history(params, cut, random.Random(0), prior)
        except READER_ERRORS:
            return True
        except Exception:  # any other complaint is about the prefix, not this field
            return False
        return False

    lo, hi = 0, len(events)
    if not fails(hi):
        return "a field of 'events' or 'private' has the wrong type"
    while lo < hi:  # the smallest k with fails(k): step k - 1 holds the bad field
        mid = (lo + hi) // 2
        if fails(mid):
            hi = mid
        else:
            lo = mid + 1
    step = lo - 1
    if step < 0:
        return "a field of 'private' (before the first event) has the wrong type"
    return f"events[{step}] or the private entries at step {step} hold a field of the wrong type"


def _before(at: Any, k: int) -> bool:
    return isinstance(at, int) and not isinstance(at, bool) and at < k


def sample_engine(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: Any,
    rng: random.Random,
    prior: Prior | None = None,
    check_view: bool = True,
) -> Engine:
    """A full engine state consistent with ``infoset``, validated by replay (see module doc)."""
    check_envelope(defn, params, infoset)
    return sample_checked(defn, params, infoset, rng, prior, check_view)


def sample_checked(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    rng: random.Random,
    prior: Prior | None = None,
    check_view: bool = True,
) -> Engine:
    """``sample_engine`` for an infoset whose envelope the caller checked (``check_envelope``
    with these ``params``): the replay alone, which validates the content.

    The service checks the envelope in the web process and its worker replays with this, so a
    hint request is checked once (``server.tasks.CheckedHint``).
    """
    seat = infoset["seat"]
    try:
        history = defn.sample_history(params, infoset, rng, prior)
    except InvalidInfoset:
        raise
    except READER_ERRORS as err:
        # A field of the wrong type deep inside an event tripped the game's sampler: still
        # the client's mistake, so report it as such (and where) rather than crash.
        where = locate_malformed(defn, params, infoset, prior)
        raise InvalidInfoset(
            f"malformed information set: {where} ({type(err).__name__}: {err})"
        ) from err
    engine = replay(defn, params, history, _not_replayable)
    rebuilt = build_infoset(defn, params, engine, seat, with_view=check_view and "view" in infoset)
    for key in ("events", "private", "view"):
        if key in rebuilt:
            problem = first_difference(key, infoset[key], rebuilt[key])
            if problem:
                raise InvalidInfoset(problem)
    return engine


def _not_replayable(step: int, _action: int) -> InvalidInfoset:
    return InvalidInfoset(f"events[{step}] cannot be replayed: the step is not legal there")
