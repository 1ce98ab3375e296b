"""OpenSpiel observers for every game, built from the game's declared pieces and history fields.

An ``IIGObservationType`` names three things; the observer gives exactly those and nothing
else (OpenSpiel's ``observation.py`` defines the type; ``KuhnPokerObserver`` is the model):

* ``public_info``: the public pieces (current picture) or the public events (history);
* ``private_info``: ``NONE``, the observing seat's own (``SINGLE_PLAYER``, with the seat's
  identity, the ``player`` piece) or every seat's private part, seat by seat
  (``ALL_PLAYERS``);
* ``perfect_recall``: the whole history of events, step by step, instead of the picture now.

Tensors:

* **Not perfect recall** (the observation tensor): the allowed pieces in declared order. With
  the default type that is every piece, the compact current picture.
* **Perfect recall** (the information-state tensor): ``player`` (one-hot seat, when the seat's
  private part is asked for), then ``history``, a ``recall_steps x width`` block with one row
  per step of the game so far (zeros after the last step). A row is the public event (type
  one-hot and declared fields, when ``public_info``) followed by the private entry of the seat
  or of every seat (presence flag and declared fields). Every field is written exactly (see
  ``games.core.pieces``), so the tensor identifies the information set: equal tensors mean
  equal information-state strings, and the reverse. A history longer than ``recall_steps``
  raises rather than being cut (``GameDefinition.recall_steps`` documents the bound).

Strings: with perfect recall, the canonical JSON of exactly the allowed parts of the
information set (with the default information-state type, the canonical infoset JSON of
``games.core.infoset``); without, the allowed pieces as ``name: values`` lines.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel
from cachetools import LRUCache

from games.core.definition import GameDefinition
from games.core.engine import Engine
from games.core.infoset import narrated_steps
from games.core.pieces import PLAYER, PRIVATE, PUBLIC, Piece, encode_event, encode_private

PrivateInfoType = pyspiel.PrivateInfoType
DEFAULT_OBSERVATION = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=PrivateInfoType.SINGLE_PLAYER
)


# Bytes of perfect-recall strings and tensors an observer keeps, by history (see
# ``AtelierObserver._recalled``).
RECALL_CACHE_BYTES = 64 << 20


def _nbytes(value: str | np.ndarray) -> int:
    return value.nbytes if isinstance(value, np.ndarray) else len(value)


def _fmt(values: Sequence[float]) -> str:
    return " ".join(f"{v:g}" for v in values)


class AtelierObserver:
    """OpenSpiel's PyObserver interface (``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(
        self,
        definition: GameDefinition,
        params: dict[str, Any],
        iig_obs_type: pyspiel.IIGObservationType | None = None,
    ) -> None:
        obs_type = DEFAULT_OBSERVATION if iig_obs_type is None else iig_obs_type
        self.definition = definition
        self.params = params
        self.num_players = params["players"]
        self.public = bool(obs_type.public_info)
        self.private = obs_type.private_info
        self.perfect_recall = bool(obs_type.perfect_recall)
        fresh = definition.new_engine(params)
        if self.perfect_recall:
            self._init_recall(fresh)
        else:
            self._init_pieces(fresh)

    # --- layouts -----------------------------------------------------------------------------
    def _allowed(self, piece: Piece) -> bool:
        if piece.visibility == PUBLIC:
            return self.public
        if piece.visibility == PLAYER:
            return self.private == PrivateInfoType.SINGLE_PLAYER
        return self.private != PrivateInfoType.NONE

    def _init_pieces(self, fresh: Engine) -> None:
        # (name, piece, seat whose private part it is, or None for "the observing seat")
        self.layout: list[tuple[str, Piece, int | None]] = []
        for piece in self.definition.observation_pieces(fresh):
            if not self._allowed(piece):
                continue
            if piece.visibility == PRIVATE and self.private == PrivateInfoType.ALL_PLAYERS:
                for seat in range(self.num_players):
                    self.layout.append((f"{piece.name}_{seat}", piece, seat))
            else:
                self.layout.append((piece.name, piece, None))
        size = sum(piece.size for _, piece, _ in self.layout)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, piece, _ in self.layout:
            self.dict[name] = self.tensor[at : at + piece.size]
            at += piece.size

    def _init_recall(self, fresh: Engine) -> None:
        spec = self.definition.history_fields(fresh)
        self.spec = spec
        self.steps = self.definition.recall_steps(self.params)
        self.private_seats = {
            PrivateInfoType.NONE: 0,
            PrivateInfoType.SINGLE_PLAYER: 1,
            PrivateInfoType.ALL_PLAYERS: self.num_players,
        }[self.private]
        self.width = (spec.public_width if self.public else 0) + (
            self.private_seats * spec.private_width
        )
        self.player_size = self.num_players if self.private == PrivateInfoType.SINGLE_PLAYER else 0
        self.tensor = np.zeros(self.player_size + self.steps * self.width, np.float32)
        self.dict = {}
        if self.player_size:
            self.dict["player"] = self.tensor[: self.player_size]
        self.dict["history"] = self.tensor[self.player_size :].reshape(self.steps, self.width)
        self._recall: LRUCache = LRUCache(RECALL_CACHE_BYTES, getsizeof=_nbytes)
        self._recall_lock = threading.Lock()

    def _recalled(self, kind: str, engine: Engine, player: int, make: Callable[[], Any]) -> Any:
        """``make()``, remembered by ``(kind, player, history)``.

        A perfect-recall string or tensor narrates the whole history, so it costs time in
        proportion to the game so far, and callers ask again for the same states: OpenSpiel's
        perfect-recall check asks each node for the strings and tensors of all its ancestors
        (quadratic in the depth without this), and tabular solvers ask each state every
        iteration. The history fixes the state (chance outcomes are steps), and the observer
        fixes the game, parameters and type, so the key is exact; a byte-bounded LRU keeps
        the ancestors of a depth-first walk (used at every descendant) and bounds memory.
        """
        key = (kind, player, tuple(engine.history))
        with self._recall_lock:
            value = self._recall.get(key)
        if value is None:
            value = make()
            with self._recall_lock:
                self._recall[key] = value
        return value

    # --- the PyObserver interface ------------------------------------------------------------
    def set_from(self, state: Any, player: int) -> None:
        engine = state.engine
        if not self.perfect_recall:
            self.tensor[:] = self.features(engine, player)
            return
        self.tensor[:] = self._recalled(
            "tensor", engine, player, lambda: self._recall_tensor(engine, player)
        )

    def _recall_tensor(self, engine: Engine, player: int) -> np.ndarray:
        tensor = np.zeros_like(self.tensor)
        if self.player_size:
            tensor[player] = 1.0
        history = tensor[self.player_size :].reshape(self.steps, self.width)
        for i, row in enumerate(self.rows(engine, player)):
            history[i] = row
        return tensor

    def features(self, engine: Engine, player: int) -> list[float]:
        """The observation tensor's values for ``player`` (not perfect recall)."""
        out: list[float] = []
        for _, piece, seat in self.layout:
            values = piece.values(engine, player if seat is None else seat)
            if len(values) != piece.size:
                raise ValueError(
                    f"piece {piece.name!r} gave {len(values)} values, not {piece.size}"
                )
            out.extend(values)
        return out

    def _seats(self, player: int) -> range:
        if self.private == PrivateInfoType.ALL_PLAYERS:
            return range(self.num_players)
        if self.private == PrivateInfoType.SINGLE_PLAYER:
            return range(player, player + 1)
        return range(0)

    def rows(self, engine: Engine, player: int) -> list[list[float]]:
        """One row per step of ``engine``'s history (perfect recall), as ``set_from`` writes."""
        if len(engine.history) > self.steps:
            raise ValueError(
                f"{self.definition.name}: the history has {len(engine.history)} steps, more "
                f"than the information-state tensor's {self.steps} (recall_steps)"
            )
        seats = self._seats(player)
        out = []
        for _, _, story in narrated_steps(self.definition, self.params, engine.history):
            row = encode_event(self.spec, story.public) if self.public else []
            for seat in seats:
                row.extend(encode_private(self.spec, story.private_for(seat)))
            out.append(row)
        return out

    def string_from(self, state: Any, player: int) -> str:
        engine = state.engine
        if not self.perfect_recall:
            return "\n".join(
                f"{name}: {_fmt(piece.values(engine, player if seat is None else seat))}"
                for name, piece, seat in self.layout
            )
        return self._recalled(
            "string", engine, player, lambda: canonical_string(self, engine, player)
        )


def canonical_string(observer: AtelierObserver, engine: Engine, player: int) -> str:
    """The canonical JSON of the parts of ``player``'s information set the type allows."""
    defn = observer.definition
    events: list[dict[str, Any]] = []
    seats = observer._seats(player)
    private: dict[int, list[dict[str, Any]]] = {seat: [] for seat in seats}
    for i, (_, _, story) in enumerate(narrated_steps(defn, observer.params, engine.history)):
        events.append(story.public)
        for seat in seats:
            hidden = story.private_for(seat)
            if hidden is not None:
                private[seat].append({"at": i, **hidden})
    out: dict[str, Any] = {"game": defn.name, "version": defn.version, "params": observer.params}
    if observer.public:
        out["events"] = events
    if observer.private == PrivateInfoType.SINGLE_PLAYER:
        out["seat"] = player
        out["private"] = private[player]
    elif observer.private == PrivateInfoType.ALL_PLAYERS:
        out["private_by_seat"] = [private[seat] for seat in seats]
    return json.dumps(out, sort_keys=True, separators=(",", ":"))


def tensor_sizes_table(definitions: Mapping[str, GameDefinition]) -> str:
    """The markdown table of tensor sizes docs/architecture.md shows (a test keeps it true).

    One row per game and setting: the defaults at every player count, and the small variant.
    """
    info_type = pyspiel.IIGObservationType(
        public_info=True, perfect_recall=True, private_info=PrivateInfoType.SINGLE_PLAYER
    )
    lines = [
        "| game | parameters | observation tensor | information-state tensor |",
        "|---|---|---|---|",
    ]
    for name, defn in definitions.items():
        settings = [{"players": n} for n in range(defn.min_players, defn.max_players + 1)]
        if defn.small_variant is not None:
            settings.append(dict(defn.small_variant))
        for raw in settings:
            params = defn.validate_params(raw)
            obs = AtelierObserver(defn, params)
            info = AtelierObserver(defn, params, info_type)
            label = "small variant" if raw == defn.small_variant else f"players={raw['players']}"
            lines.append(
                f"| {name} | {label} | {obs.tensor.size} | {info.tensor.size} = "
                f"{info.player_size} + {info.steps} steps x {info.width} |"
            )
    return "\n".join(lines)


__all__ = ["DEFAULT_OBSERVATION", "AtelierObserver", "canonical_string", "tensor_sizes_table"]
