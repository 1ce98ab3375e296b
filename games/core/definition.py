"""``GameDefinition``: everything the generic layers need to know about one game.

A game package provides an engine (the rules) and one ``GameDefinition`` subclass (names,
parameters, action encoding and how to fill the hidden part of an information set). From
those, ``games.core.spiel`` builds the OpenSpiel game and ``games.core.infoset`` the
information-set JSON and the sampler, the same way for every game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from games.core.engine import CHANCE, Engine
from games.core.params import ParamSpec, validate_params
from games.core.pieces import HistoryFields, Piece

# The most steps the information-state tensor encodes, for games whose bound on the game's
# length is far above any real game (Modern Art's open auctions allow one raise per coin).
MAX_RECALL_STEPS = 1024


class InvalidInfoset(ValueError):
    """An information set that is malformed or cannot arise in play; the message names where."""


class InvalidAction(ValueError):
    """An action (id, struct or string) that is not legal in the state it was given for."""


class Prior(Protocol):
    """Weights for a hidden commit: called with the engine before the step and the candidates.

    Returns one non-negative weight per candidate action; the default is uniform. A bot with an
    opponent model passes one to ``sample_state`` to bias the worlds it samples.
    """

    def __call__(self, engine: Engine, candidates: list[int]) -> list[float]: ...


@dataclass(frozen=True)
class GameNumbers:
    """The sizes OpenSpiel's ``GameInfo`` needs, for one parameter setting."""

    num_distinct_actions: int
    max_chance_outcomes: int
    num_players: int
    min_utility: float
    max_utility: float
    utility_sum: float | None
    max_game_length: int


class GameDefinition:
    """Per-game knowledge used by the OpenSpiel face, the infoset layer, bots and the service."""

    name: str = ""
    long_name: str = ""
    version: int = 1
    zero_sum: bool = True
    param_specs: tuple[ParamSpec, ...] = ()
    rules_doc: str = ""
    # Parameter settings the shared conformance suite (tests/test_conformance.py) runs.
    conformance_params: tuple[dict[str, Any], ...] = ()
    # The ``type`` of every public event and of every action struct (chance outcomes included);
    # the service's JSON Schemas enumerate them, the conformance suite checks them. Empty means
    # "not declared" (the schemas then accept any string).
    event_types: tuple[str, ...] = ()
    action_types: tuple[str, ...] = ()
    # A reduced 2-player variant small enough for exact solving (tabular CFR, full-tree
    # checks), or ``None`` when the game has none.
    small_variant: dict[str, Any] | None = None
    # Facts about the game's information structure, which searches use to draw fewer worlds.
    # True when every step is public (only the future is hidden): an information set then
    # determines the whole history, and a single sampled world stands for all of them.
    public_history: bool = False
    # True when every hidden step is another seat's unseen move just before the acting seat's
    # turn (Finger Auction: the bids of the auction in progress). A search that rewinds those
    # moves and searches them in the tree (``hidden_moves: tree``) then has one world.
    hidden_in_tail: bool = False

    # --- parameters --------------------------------------------------------------------------
    def validate_params(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        params = validate_params(self.param_specs, raw)
        self.check_params(params)
        return params

    def check_params(self, params: dict[str, Any]) -> None:
        """Cross-parameter checks; raise ``InvalidParams`` naming the parameter."""

    @property
    def min_players(self) -> int:
        return self._players_spec().min or 2

    @property
    def max_players(self) -> int:
        return self._players_spec().max or 2

    def _players_spec(self) -> ParamSpec:
        return next(s for s in self.param_specs if s.name == "players")

    # --- sizes and engines -------------------------------------------------------------------
    def numbers(self, params: dict[str, Any]) -> GameNumbers:
        raise NotImplementedError

    def new_engine(self, params: dict[str, Any]) -> Engine:
        raise NotImplementedError

    # --- observations (declared in games/<game>/observation.py) ------------------------------
    def observation_pieces(self, engine: Engine) -> tuple[Piece, ...]:
        """The named pieces of the current picture (``games.core.pieces``)."""
        raise NotImplementedError

    def history_fields(self, engine: Engine) -> HistoryFields:
        """The fields of the events and private entries, for the information-state tensor."""
        raise NotImplementedError

    def recall_steps(self, params: dict[str, Any]) -> int:
        """Rows of the information-state tensor: the longest history it encodes.

        The game's ``max_game_length``, capped at ``MAX_RECALL_STEPS`` (random games of every
        game end well within it; a longer history raises instead of being cut).
        """
        return min(self.numbers(params).max_game_length, MAX_RECALL_STEPS)

    # --- actions -----------------------------------------------------------------------------
    def action_to_struct(self, engine: Engine, player: int, action: int) -> dict[str, Any]:
        """The action as readable JSON (chance outcomes included)."""
        raise NotImplementedError

    def action_to_string(self, engine: Engine, player: int, action: int) -> str:
        raise NotImplementedError

    def struct_to_action(self, engine: Engine, struct: Mapping[str, Any]) -> int:
        """The legal action id whose struct equals ``struct``; ``InvalidAction`` otherwise."""
        if not isinstance(struct, Mapping):
            raise InvalidAction(f"an action must be a JSON object, got {type(struct).__name__}")
        player = engine.current_player()
        want = dict(struct)
        for action in engine.legal_actions():
            if self.action_to_struct(engine, player, action) == want:
                return action
        raise InvalidAction(f"action {want} is not legal here; {self._legal_summary(engine)}")

    def string_to_action(self, engine: Engine, text: str) -> int:
        """The legal action whose readable string (``action_to_string``, the ``string`` of
        every listed action) is ``text``; letter case and runs of spaces are forgiven when that
        still leaves one action. ``InvalidAction`` says whether ``text`` is ambiguous (it
        begins several legal strings, as ``"declare"`` does) or unknown, with legal strings."""
        if not isinstance(text, str):
            raise InvalidAction(f"an action string must be a string, got {text!r}")
        if engine.is_terminal():
            raise InvalidAction("the game is over")
        player = engine.current_player()
        strings = {a: self.action_to_string(engine, player, a) for a in engine.legal_actions()}
        want = _folded(text)
        for match in (
            [a for a, s in strings.items() if s == text],
            [a for a, s in strings.items() if _folded(s) == want],
        ):
            if len(match) == 1:
                return match[0]
            if match:
                break
        else:
            match = [a for a, s in strings.items() if want and _folded(s).startswith(want)]
        if len(match) > 1:
            shown = [strings[a] for a in match[:6]] + (["..."] if len(match) > 6 else [])
            raise InvalidAction(
                f"action {text!r} is ambiguous: it matches {len(match)} legal actions "
                f"({', '.join(shown)}); send one of them in full"
            )
        raise InvalidAction(f"action {text!r} is not legal here; {self._legal_summary(engine)}")

    def decode_action(self, engine: Engine, action: Any) -> int:
        """A move as a client sends it, as a legal action id: its struct (as listed in
        ``legal_actions[*].struct``), its id, or its readable string; ``InvalidAction``."""
        if isinstance(action, bool):
            raise InvalidAction(f"an action must be a struct, an id or a string, got {action!r}")
        if isinstance(action, int):
            if action not in engine.legal_actions():
                raise InvalidAction(
                    f"action id {action} is not legal here; {self._legal_summary(engine)}"
                )
            return action
        if isinstance(action, str):
            return self.string_to_action(engine, action)
        return self.struct_to_action(engine, action)

    def _legal_summary(self, engine: Engine) -> str:
        if engine.is_terminal():
            return "the game is over"
        player = engine.current_player()
        names = [self.action_to_string(engine, player, a) for a in engine.legal_actions()[:12]]
        more = "" if len(engine.legal_actions()) <= 12 else ", ..."
        who = "chance" if player == CHANCE else f"seat {player}"
        return f"{who} to move, legal: {', '.join(names)}{more}"

    # --- information sets --------------------------------------------------------------------
    def sample_history(
        self,
        params: dict[str, Any],
        infoset: dict[str, Any],
        rng: random.Random,
        prior: Prior | None = None,
    ) -> list[int]:
        """A full action history consistent with ``infoset`` (validated later by replay):
        the history of ``sample_world``'s state, the same draws from ``rng``."""
        return list(self.sample_world(params, infoset, rng, prior).history)

    def sample_world(
        self,
        params: dict[str, Any],
        infoset: dict[str, Any],
        rng: random.Random,
        prior: Prior | None = None,
        memo: dict[str, Any] | None = None,
    ) -> Engine:
        """A full state consistent with ``infoset``, built step by step with every step
        checked legal, so that a search drawing many worlds need not replay each one.

        ``memo``, when given, is the caller's dict for the draws of this one information set:
        a sampler may keep there what is the same in every draw (Modern Art: the action ids
        decoded from the public events), so that later draws skip that work.

        The default walks the events in order and, at each step, picks among the legal actions
        whose narration reproduces that step's public event and the seat's private entry
        (chance outcomes weighted by probability, hidden commits uniformly). That is exact for
        games whose hidden steps never constrain later ones; games where they do (cards dealt
        face down and played later, commits revealed later) override it, or override
        ``sample_history`` and replay it here with ``replayed``.
        """
        return sequential_fill(self, params, infoset, rng, prior)


def _folded(text: str) -> str:
    """An action string as matched leniently: letter case and runs of spaces ignored."""
    return " ".join(text.split()).casefold()


def sequential_fill(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    rng: random.Random,
    prior: Prior | None = None,
) -> Engine:
    """Generic world filler: step by step, keep the actions that reproduce each event."""
    seat = infoset["seat"]
    private = {e["at"]: {k: v for k, v in e.items() if k != "at"} for e in infoset["private"]}
    engine = defn.new_engine(params)
    for i, event in enumerate(infoset["events"]):
        if engine.is_terminal():
            raise InvalidInfoset(f"events[{i}] comes after the end of the game")
        mine = private.get(i)
        weights: list[float] = []
        candidates: list[int] = []
        chance = dict(engine.chance_outcomes()) if engine.is_chance() else None
        for action in engine.legal_actions():
            story = engine.narrate(action)
            if story.public != event:
                continue
            if story.private_for(seat) != mine:
                continue
            candidates.append(action)
            weights.append(chance[action] if chance is not None else 1.0)
        if not candidates:
            who = (
                "chance" if engine.current_player() == CHANCE else f"seat {engine.current_player()}"
            )
            raise InvalidInfoset(
                f"events[{i}] {event} is not possible here ({who} to move"
                + (", with private entry " + str(mine) if mine is not None else "")
                + ")"
            )
        if prior is not None and chance is None and len(candidates) > 1:
            weights = list(prior(engine, candidates))
        action = (
            rng.choices(candidates, weights=weights)[0] if len(candidates) > 1 else candidates[0]
        )
        engine.apply(action)
    return engine


def replay(
    defn: GameDefinition,
    params: dict[str, Any],
    history: Sequence[int],
    illegal: Callable[[int, int], Exception] | None = None,
) -> Engine:
    """The state after ``history`` on a fresh engine: the one way a state is rebuilt.

    A history the caller made itself (a stored match, a tree's own path, a recorded game) is
    applied as it is. One that comes from outside or from a sampler is passed with
    ``illegal``: each step is then checked legal first, and ``illegal(i, action)`` is raised
    for the first step ``i`` that is not (the caller knows whom to blame and how to say it).
    """
    engine = defn.new_engine(params)
    if illegal is None:
        for action in history:
            engine.apply(action)
        return engine
    for i, action in enumerate(history):
        if engine.is_terminal() or not engine.is_legal(action):
            raise illegal(i, action)
        engine.apply(action)
    return engine


def replayed(defn: GameDefinition, params: dict[str, Any], history: list[int]) -> Engine:
    """The state after ``history``, each step checked legal first: the world of a sampler
    that plans a history without building the state (a wrong plan is a sampler bug)."""
    return replay(defn, params, history, _sampler_bug)


def _sampler_bug(_step: int, _action: int) -> InvalidInfoset:
    return InvalidInfoset("a sampled history is not legal: the sampler is wrong")
