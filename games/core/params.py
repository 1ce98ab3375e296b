"""Game parameters: declared once per game, validated with errors that name the parameter.

The same specs feed ``pyspiel``'s parameter specification, the service's ``GET /v1/games``
listing and the docs, so a parameter is described in exactly one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class InvalidParams(ValueError):
    """A game parameter is unknown, of the wrong type or out of range."""


@dataclass(frozen=True)
class ParamSpec:
    """One game parameter: its type, default, allowed range or choices, and what it means."""

    name: str
    default: Any
    doc: str
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = field(default_factory=tuple)

    @property
    def kind(self) -> type:
        return type(self.default)

    def check(self, value: Any) -> Any:
        kind = self.kind
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                else:
                    raise InvalidParams(
                        f"parameter '{self.name}' must be a whole number, got {value!r}"
                    )
            if self.min is not None and value < self.min:
                raise InvalidParams(f"parameter '{self.name}' must be >= {self.min}, got {value}")
            if self.max is not None and value > self.max:
                raise InvalidParams(f"parameter '{self.name}' must be <= {self.max}, got {value}")
            return value
        if kind is str:
            if not isinstance(value, str):
                raise InvalidParams(f"parameter '{self.name}' must be a string, got {value!r}")
            if self.choices and value not in self.choices:
                raise InvalidParams(
                    f"parameter '{self.name}' must be one of {list(self.choices)}, got {value!r}"
                )
            return value
        if kind is bool:
            if not isinstance(value, bool):
                raise InvalidParams(f"parameter '{self.name}' must be true or false, got {value!r}")
            return value
        raise TypeError(f"unsupported parameter type for {self.name}: {kind}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "type": {int: "integer", str: "string", bool: "boolean"}[self.kind],
            "default": self.default,
            "doc": self.doc,
        }
        if self.min is not None:
            out["minimum"] = self.min
        if self.max is not None:
            out["maximum"] = self.max
        if self.choices:
            out["enum"] = list(self.choices)
        return out


def validate_params(specs: tuple[ParamSpec, ...], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Returns every parameter with defaults filled in; raises ``InvalidParams`` on bad input."""
    raw = dict(raw or {})
    if not isinstance(raw, dict):
        raise InvalidParams("parameters must be an object")
    known = {s.name: s for s in specs}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise InvalidParams(f"unknown parameter '{unknown[0]}'; known: {sorted(known)}")
    return {s.name: s.check(raw[s.name]) if s.name in raw else s.default for s in specs}
