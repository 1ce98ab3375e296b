"""What a game declares so that every observation type can be built from one list.

Two declarations per game (in ``games/<game>/observation.py``, returned by the definition's
``observation_pieces`` and ``history_fields``):

* **Pieces** of the current picture, as OpenSpiel's ``KuhnPokerObserver`` declares them: a
  name, a size, who may see it (``PLAYER``: the observing seat itself; ``PUBLIC``: the whole
  table; ``PRIVATE``: only the seat it is about) and the function that writes its values. The
  observation tensor is the concatenation of the pieces the observation type allows, so its
  size and its content come from the same list and cannot disagree.
* **History fields**: the fields of the public events and private entries of the
  information-set JSON (``games.core.infoset``), each with its vocabulary. The
  information-state tensor encodes every step of the history with them (``encode_step``), so
  two different information sets cannot share a tensor: each step's event and private entry
  are written field by field, exactly (integers as ``value + 1``, names as ``index + 1``, 0 for
  an absent field). A field the declaration does not know raises, rather than being dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.core.engine import Engine

PLAYER, PUBLIC, PRIVATE = "player", "public", "private"


@dataclass(frozen=True)
class Piece:
    """One named block of the current-picture features.

    ``values(engine, seat)`` returns ``size`` floats: what ``seat`` sees of this piece now. For
    a ``PRIVATE`` piece, ``seat`` is the seat the private information belongs to (the observer
    of an all-players observation type asks it for every seat).
    """

    name: str
    size: int
    visibility: str
    values: Callable[[Engine, int], Sequence[float]]

    def __post_init__(self) -> None:
        if self.visibility not in (PLAYER, PUBLIC, PRIVATE):
            raise ValueError(f"piece {self.name!r}: unknown visibility {self.visibility!r}")


def one_hot(size: int, index: int) -> list[float]:
    """``size`` zeros with a 1 at ``index`` (none when ``index`` is negative)."""
    out = [0.0] * size
    if index >= 0:
        out[index] = 1.0
    return out


@dataclass(frozen=True)
class HistoryFields:
    """The fields a game's events and private entries may hold, in tensor order.

    ``public``/``private`` map a flattened field path (``"card"``, ``"cards.Monet"``,
    ``"revealed.1.take"``: dict keys and list indices joined by dots) to its vocabulary: a tuple
    of names for a string field, ``None`` for a whole number >= 0. ``derived`` lists the path
    prefixes left out because they follow from the steps before (a sale's payments, a round's
    scoring): a field is either encoded or declared derived, never silently dropped.
    """

    event_types: tuple[str, ...]
    public: Mapping[str, tuple[str, ...] | None]
    private: Mapping[str, tuple[str, ...] | None]
    derived: tuple[str, ...] = field(default_factory=tuple)

    @property
    def public_width(self) -> int:
        """Floats per step for the public event: its type one-hot, then one per field."""
        return len(self.event_types) + len(self.public)

    @property
    def private_width(self) -> int:
        """Floats per step for one seat's private entry: a presence flag, then one per field."""
        return 1 + len(self.private)


def flatten(value: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    """``(path, leaf)`` pairs of a JSON value; dict keys and list indices join with dots."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from flatten(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from flatten(item, f"{prefix}.{i}" if prefix else str(i))
    else:
        yield prefix, value


def _write(
    out: list[float], at: int, fields: Mapping[str, Any], entry: Mapping[str, Any], derived, where
) -> None:
    slots = {path: i for i, path in enumerate(fields)}
    for path, leaf in flatten(entry):
        if path == "type" and where == "event":
            continue
        slot = slots.get(path)
        if slot is None:
            if any(path == d or path.startswith(d + ".") for d in derived):
                continue
            raise ValueError(f"{where} field {path!r} is not declared in the game's history fields")
        vocab = fields[path]
        if vocab is None:
            if isinstance(leaf, bool):
                leaf = int(leaf)
            if not isinstance(leaf, int) or leaf < 0:
                raise ValueError(
                    f"{where} field {path!r} must be a whole number >= 0, got {leaf!r}"
                )
            out[at + slot] = float(leaf + 1)
        else:
            if leaf not in vocab:
                raise ValueError(f"{where} field {path!r} has {leaf!r}, not one of {list(vocab)}")
            out[at + slot] = float(vocab.index(leaf) + 1)


def encode_event(spec: HistoryFields, event: Mapping[str, Any]) -> list[float]:
    """One step's public event: the type one-hot, then every declared field."""
    out = [0.0] * spec.public_width
    kind = event.get("type")
    if kind not in spec.event_types:
        raise ValueError(f"event type {kind!r} is not one of {list(spec.event_types)}")
    out[spec.event_types.index(kind)] = 1.0
    _write(out, len(spec.event_types), spec.public, event, spec.derived, "event")
    return out


def encode_private(spec: HistoryFields, entry: Mapping[str, Any] | None) -> list[float]:
    """One step's private entry of one seat: presence, then every declared field (or zeros)."""
    out = [0.0] * spec.private_width
    if entry is not None:
        out[0] = 1.0
        _write(out, 1, spec.private, entry, spec.derived, "private")
    return out
