"""The one interface every bot implements, and the ``Hint`` it answers with.

A bot is asked about an *information set* (the JSON of ``games.core.infoset``), never about a
true state: ``hint_for_state`` first reduces a state to the acting seat's information set, so
no bot can read hidden cards even by accident. Every random choice comes from the ``seed``
argument; nothing touches a global RNG.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pyspiel

import games
from games.core.definition import GameDefinition
from games.core.engine import Engine
from games.core.infoset import build_infoset
from games.core.params import InvalidParams, ParamSpec, validate_params


class InvalidBotSpec(ValueError):
    """A bot spec names an unknown bot or gives a bad option; the message says which."""


class InvalidBudget(ValueError):
    """A budget with neither limit, or a non-positive one."""


@dataclass(frozen=True)
class Budget:
    """How long a bot may think: simulations and/or milliseconds, whichever ends first."""

    simulations: int | None = None
    milliseconds: float | None = None

    def __post_init__(self) -> None:
        if self.simulations is None and self.milliseconds is None:
            raise InvalidBudget("a budget needs 'simulations' or 'milliseconds' (or both)")
        if self.simulations is not None and (
            isinstance(self.simulations, bool)
            or not isinstance(self.simulations, int)
            or self.simulations < 1
        ):
            raise InvalidBudget(
                f"'simulations' must be a whole number >= 1, got {self.simulations!r}"
            )
        if self.milliseconds is not None and (
            isinstance(self.milliseconds, bool)
            or not isinstance(self.milliseconds, int | float)
            or not self.milliseconds > 0
        ):
            raise InvalidBudget(f"'milliseconds' must be > 0, got {self.milliseconds!r}")

    @classmethod
    def from_json(cls, data: Any) -> Budget:
        if not isinstance(data, dict):
            raise InvalidBudget("a budget must be an object")
        extra = sorted(set(data) - {"simulations", "milliseconds"})
        if extra:
            raise InvalidBudget(f"unknown budget field '{extra[0]}'")
        return cls(data.get("simulations"), data.get("milliseconds"))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.simulations is not None:
            out["simulations"] = self.simulations
        if self.milliseconds is not None:
            out["milliseconds"] = self.milliseconds
        return out


class Clock:
    """Tracks a budget during a search: call ``tick()`` once per simulation."""

    __slots__ = ("deadline", "iterations", "max_iterations", "started")

    def __init__(self, budget: Budget) -> None:
        self.started = time.perf_counter()
        self.deadline = (
            self.started + budget.milliseconds / 1000.0 if budget.milliseconds else float("inf")
        )
        self.max_iterations = budget.simulations or 1 << 62
        self.iterations = 0

    def running(self) -> bool:
        return self.iterations < self.max_iterations and time.perf_counter() < self.deadline

    def tick(self) -> None:
        self.iterations += 1

    def stopped_by(self) -> str:
        return "simulations" if self.iterations >= self.max_iterations else "time"

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0


@dataclass
class ActionStat:
    """One action the bot considered: its share of the policy and what the search saw."""

    action: int
    probability: float
    visits: int | None = None
    value: float | None = None


@dataclass
class Hint:
    """A bot's answer: the move, the policy it came from, a value estimate and statistics."""

    action: int
    policy: list[ActionStat]
    value: float | None = None
    iterations: int = 0
    elapsed_ms: float = 0.0
    stopped_by: str = "policy"  # "simulations", "time", "policy" (no search), "single_action"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self, defn: GameDefinition, engine: Engine) -> dict[str, Any]:
        """The hint with every action as id, struct and readable string."""
        player = engine.current_player()

        def describe(action: int) -> dict[str, Any]:
            return {
                "id": action,
                "struct": defn.action_to_struct(engine, player, action),
                "string": defn.action_to_string(engine, player, action),
            }

        return {
            "action": describe(self.action),
            "policy": [
                {
                    **describe(s.action),
                    "probability": s.probability,
                    **({"visits": s.visits} if s.visits is not None else {}),
                    **({"value": s.value} if s.value is not None else {}),
                }
                for s in self.policy
            ],
            "value": self.value,
            "stats": {
                "iterations": self.iterations,
                "elapsed_ms": round(self.elapsed_ms, 3),
                "stopped_by": self.stopped_by,
                **self.extra,
            },
        }


class Bot:
    """Base class: subclasses set ``name``, ``options`` and implement ``hint``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    options: ClassVar[tuple[ParamSpec, ...]] = ()

    def __init__(self, **options: Any) -> None:
        try:
            self.config = validate_params(self.options, options)
        except InvalidParams as err:
            message = str(err).replace("parameter", "option")
            raise InvalidBotSpec(f"bot '{self.name}': {message}") from None

    def hint(
        self,
        defn: GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        budget: Budget,
        seed: int,
    ) -> Hint:
        """The move for the seat of ``infoset`` (it must be that seat's turn)."""
        raise NotImplementedError

    def hint_for_state(self, state: pyspiel.State, budget: Budget, seed: int) -> Hint:
        """Reduces ``state`` to the acting seat's information set, then asks ``hint``."""
        game = state.get_game()
        engine = state.engine
        infoset = build_infoset(game.definition, game.params, engine, engine.current_player())
        return self.hint(game.definition, game.params, infoset, budget, seed)

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "options": dict(self.config)}


def definition_of(game: pyspiel.Game) -> GameDefinition:
    return games.definition(game.get_type().short_name)
