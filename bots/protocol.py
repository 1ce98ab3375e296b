"""The one interface every bot implements, and the ``Hint`` it answers with.

A bot is asked about an *information set* (the JSON of ``games.core.infoset``), never about a
true state: ``hint_for_state`` first reduces a state to the acting seat's information set, so
no bot can read hidden cards even by accident. Every random choice comes from the ``seed``
argument; nothing touches a global RNG.

Internally a bot decides from ``Worlds``: the acting seat's information set seen as a source
of full engine states consistent with it (``games.sample_engine`` for Atelier games,
OpenSpiel's ``resample_from_infostate`` for OpenSpiel's own games such as Kuhn poker). A bot
reads the public parts and the seat's own parts of a sampled world; search bots play whole
determinized worlds, never the true one.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pyspiel

from bots import search_clock
from games.core.definition import GameDefinition, InvalidInfoset, Prior
from games.core.engine import Engine
from games.core.infoset import build_infoset, sample_engine
from games.core.params import InvalidParams, ParamSpec, validate_params


class InvalidBotSpec(ValueError):
    """A bot spec names an unknown bot or gives a bad option; the message says which."""


class InvalidBudget(ValueError):
    """A budget with neither limit, or a non-positive one."""


class NotYourTurn(ValueError):
    """The information set's seat is not the one to move, so there is no move to suggest."""


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
    """Tracks a budget during a search: call ``tick()`` once per simulation.

    Its milliseconds count ``bots.search_clock``'s clock, taken when the clock is built (wall
    time unless a benchmark measures searches in CPU time).
    """

    __slots__ = ("deadline", "iterations", "max_iterations", "now", "started")

    def __init__(self, budget: Budget, started: float | None = None) -> None:
        self.now = search_clock.current()
        self.started = self.now() if started is None else started
        self.deadline = (
            self.started + budget.milliseconds / 1000.0 if budget.milliseconds else float("inf")
        )
        self.max_iterations = budget.simulations or 1 << 62
        self.iterations = 0

    def running(self) -> bool:
        return self.iterations < self.max_iterations and self.now() < self.deadline

    def tick(self) -> None:
        self.iterations += 1

    def stopped_by(self) -> str:
        return "simulations" if self.iterations >= self.max_iterations else "time"

    def elapsed_ms(self) -> float:
        return (self.now() - self.started) * 1000.0


class FloatSpec(ParamSpec):
    """A real-valued bot option (game parameters are whole numbers, strings or booleans)."""

    def check(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidParams(f"parameter '{self.name}' must be a number, got {value!r}")
        value = float(value)
        if self.min is not None and value < self.min:
            raise InvalidParams(f"parameter '{self.name}' must be >= {self.min}, got {value}")
        if self.max is not None and value > self.max:
            raise InvalidParams(f"parameter '{self.name}' must be <= {self.max}, got {value}")
        return value

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "type": "number",
            "default": self.default,
            "doc": self.doc,
        }
        if self.min is not None:
            out["minimum"] = self.min
        if self.max is not None:
            out["maximum"] = self.max
        return out


@dataclass
class ActionStat:
    """One action the bot considered: its share of the policy and what the search saw."""

    action: int
    probability: float
    visits: int | None = None
    value: float | None = None


# Moves in the hint answer's compact ``analysis`` table: the hint's move, then the most visited.
HINT_TABLE_TOP = 8


@dataclass(frozen=True)
class MoveStat:
    """One root move of a search as the hint's table reports it (``bots.ismcts.result``).

    ``value``: the mean first-place share of the mover over the iterations through the move
    (0 to 1; ties share 1/k); ``stderr`` its standard error from the root's per-move sums of
    squares and ``interval`` the 95% normal interval, clipped to [0, 1]. ``within_noise``:
    the gap to the hint's move is within 1.96 standard errors of the difference (unpaired: the
    search's iterations differ per move; ``bots.analysis`` gives paired ones). ``points``: the
    mean return in the game's own units.
    """

    action: int
    value: float
    stderr: float
    interval: tuple[float, float]
    visits: int
    within_noise: bool
    points: float | None = None


@dataclass
class Hint:
    """A bot's answer: the move, the policy it came from, a value estimate and statistics.

    ``moves``: the search's per-move table (``MoveStat``), for bots that search; the answer's
    ``analysis`` entry is made of it.
    """

    action: int
    policy: list[ActionStat]
    value: float | None = None
    iterations: int = 0
    elapsed_ms: float = 0.0
    stopped_by: str = "policy"  # "simulations", "time", "policy" (no search), "single_action"
    extra: dict[str, Any] = field(default_factory=dict)
    moves: list[MoveStat] | None = None

    def analysis_json(self, describe: Callable[[int], dict[str, Any]]) -> dict[str, Any] | None:
        """The compact table (docs/api.md): the hint's move's value and interval, and up to
        ``HINT_TABLE_TOP`` moves, the hint's first, then by visits."""
        if not self.moves:
            return None
        mine = next((m for m in self.moves if m.action == self.action), None)
        if mine is None:
            return None
        rest = sorted(
            (m for m in self.moves if m.action != self.action and m.visits),
            key=lambda m: (-m.visits, -m.value, m.action),
        )
        return {
            "value": mine.value,
            "interval": list(mine.interval),
            "moves": [
                {
                    **describe(m.action),
                    "value": m.value,
                    "interval": list(m.interval),
                    "visits": m.visits,
                    "within_noise": m.within_noise,
                }
                for m in [mine, *rest][:HINT_TABLE_TOP]
            ],
        }

    def to_json(self, defn: GameDefinition, engine: Engine) -> dict[str, Any]:
        """The hint with every action as id, struct and readable string."""
        player = engine.current_player()

        def describe(action: int) -> dict[str, Any]:
            return {
                "id": action,
                "struct": defn.action_to_struct(engine, player, action),
                "string": defn.action_to_string(engine, player, action),
            }

        table = self.analysis_json(describe)
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
            **({"analysis": table} if table is not None else {}),
        }


class Worlds:
    """One seat's information set as a source of consistent full states ("worlds").

    ``first`` is a consistent world sampled up front: its legal actions and public parts are
    the seat's, so bots that need no search read them there (only the public parts and the
    seat's own observation; the rest of it is a guess). ``sample(rng)`` draws another world;
    samplers are comparatively slow (they replay and validate), so search bots draw a bounded
    pool and copy from it. ``public_history`` says every world has the same history (nothing
    hidden but the future), so one world is the whole pool; ``hidden_in_tail`` that every
    world is the same once the other seats' unseen moves just before this turn are taken back
    (``GameDefinition.hidden_in_tail``). ``fresh(world)``, when known, is the initial state of
    the game (to replay a world's history, as beliefs do).
    """

    __slots__ = (
        "first",
        "fresh",
        "game",
        "hidden_in_tail",
        "max_utility",
        "min_utility",
        "public_history",
        "sample",
        "seat",
        "started",
    )

    def __init__(
        self,
        game: str,
        seat: int,
        first: Engine,
        sample: Callable[[random.Random], Engine],
        min_utility: float,
        max_utility: float,
        public_history: bool = False,
        started: float | None = None,
        fresh: Callable[[Engine], Engine] | None = None,
        hidden_in_tail: bool = False,
    ) -> None:
        self.fresh = fresh
        self.hidden_in_tail = hidden_in_tail
        self.game = game
        self.seat = seat
        self.first = first
        self.sample = sample
        self.min_utility = min_utility
        self.max_utility = max_utility
        self.public_history = public_history
        self.started = search_clock.now() if started is None else started
        if first.current_player() != seat:
            raise NotYourTurn(f"it is not seat {seat}'s turn")

    @classmethod
    def from_infoset(
        cls,
        defn: GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        rng: random.Random,
        prior: Prior | None = None,
    ) -> Worlds:
        """Worlds of an Atelier information set (validated, view included, by the first draw).

        ``prior`` weighs the hidden commits of other seats (``games.sample_state``'s hook); by
        default they are uniform.
        """
        started = search_clock.now()
        first = sample_engine(defn, params, infoset, rng, prior)
        return cls.from_first(defn, params, infoset, first, prior, started)

    @classmethod
    def from_first(
        cls,
        defn: GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        first: Engine,
        prior: Prior | None = None,
        started: float | None = None,
    ) -> Worlds:
        """Worlds around ``first``, a world already drawn by ``sample_engine`` (which validated
        the information set), so that a caller who replayed it need not replay it again."""
        seat = infoset["seat"]
        key = first.info_key(seat)

        memo: dict[str, Any] = {}  # the sampler's work common to every draw of this infoset

        def sample(r: random.Random) -> Engine:
            # The first draw validated the JSON (and the client's ``view``) in full. Later draws
            # take the state the sampler built with legality checks (``sample_world``) and are
            # compared by ``info_key``, which the engine contract makes equal exactly when the
            # information sets are: the same validation, without rebuilding the JSON or
            # replaying the history a second time.
            engine = defn.sample_world(params, infoset, r, prior, memo)
            if engine.info_key(seat) != key:
                raise InvalidInfoset("a sampled world left the information set: sampler error")
            return engine

        numbers = defn.numbers(params)
        return cls(
            defn.name,
            seat,
            first,
            sample,
            numbers.min_utility,
            numbers.max_utility,
            public_history=defn.public_history,
            started=started,
            fresh=lambda _world: defn.new_engine(params),
            hidden_in_tail=defn.hidden_in_tail,
        )

    @classmethod
    def from_spiel_state(cls, state: pyspiel.State, rng: random.Random) -> Worlds:
        """Worlds of one of OpenSpiel's own games, through its ``resample_from_infostate``."""
        from bots.spiel_engine import SpielEngine

        started = search_clock.now()
        seat = state.current_player()
        game = state.get_game()

        def sample(r: random.Random) -> Engine:
            sampler = pyspiel.UniformProbabilitySampler(r.getrandbits(31), 0.0, 1.0)
            return SpielEngine(state.resample_from_infostate(seat, sampler))

        return cls(
            game.get_type().short_name,
            seat,
            sample(rng),
            sample,
            game.min_utility(),
            game.max_utility(),
            started=started,
            fresh=lambda _world: SpielEngine(game.new_initial_state()),
        )


class Bot:
    """Base class: subclasses set ``name``, ``options`` and implement ``decide``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    options: ClassVar[tuple[ParamSpec, ...]] = ()

    def __init__(self, /, **options: Any) -> None:
        # ``self`` is positional-only, so an option named "self" is refused as unknown.
        self.config = self.validate_options(options)

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """The options with defaults filled, or ``InvalidBotSpec`` naming what is wrong."""
        try:
            return validate_params(cls.options, options)
        except InvalidParams as err:
            message = str(err).replace("parameter", "option")
            raise InvalidBotSpec(f"bot '{cls.name}': {message}") from None

    def hint(
        self,
        defn: GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        budget: Budget,
        seed: int,
        *,
        replayed: tuple[Worlds, random.Random] | None = None,
    ) -> Hint:
        """The move for the seat of ``infoset`` (it must be that seat's turn).

        ``replayed``: the worlds of this information set already drawn from ``seed`` and the
        generator that drew them (see ``hint_replayed``); by default they are drawn here.
        Subclasses that wrap ``hint`` (to load data first) pass it on. Raises
        ``games.InvalidInfoset`` for an impossible information set and ``NotYourTurn`` when the
        seat is not the one to move.
        """
        if replayed is not None:
            worlds, rng = replayed
        else:
            rng = random.Random(seed)
            worlds = Worlds.from_infoset(defn, params, infoset, rng, self.prior_for(defn.name))
        return self.decide(worlds, budget, rng)

    def hint_replayed(
        self,
        defn: GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        budget: Budget,
        seed: int,
        first: Engine,
        rng: random.Random,
        started: float | None = None,
    ) -> Hint:
        """``hint``, for a caller that already drew ``first`` with ``sample_engine(defn, params,
        infoset, rng, self.prior_for(defn.name))`` from ``rng = random.Random(seed)``.

        The answer is the one ``hint`` gives (the same world first, then the same ``rng``),
        without replaying the information set a second time: the worlds around ``first`` go to
        ``hint`` as its ``replayed`` argument, which every ``hint`` override takes (and passes
        on, or ignores when it needs no worlds).
        """
        worlds = Worlds.from_first(defn, params, infoset, first, self.prior_for(defn.name), started)
        return self.hint(defn, params, infoset, budget, seed, replayed=(worlds, rng))

    @classmethod
    def unavailable_reason(cls, defn: GameDefinition, params: dict[str, Any]) -> str | None:
        """Why this bot cannot play ``defn`` with ``params`` (validated), or ``None`` if it can.

        Bots that need data per game or setting (a stored solution) override it, so that
        clients are offered, and matches seated with, only bots that can move.
        """
        return None

    @classmethod
    def unavailable_detail(
        cls, defn: GameDefinition, params: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Structured data behind ``unavailable_reason`` (the ``cfr`` bot: the settings it can
        play), for clients that offer another setting; ``None`` when there is none.

        The reason stays one sentence a person reads; lists go here, not into the sentence.
        """
        return None

    def hint_for_state(self, state: pyspiel.State, budget: Budget, seed: int) -> Hint:
        """Reduces ``state`` to the acting seat's information set, then decides from that.

        Atelier states go through the information-set JSON (the same path as the service);
        OpenSpiel's own games through their ``resample_from_infostate``.
        """
        engine = getattr(state, "engine", None)
        if engine is None:
            rng = random.Random(seed)
            return self.decide(Worlds.from_spiel_state(state, rng), budget, rng)
        game = state.get_game()
        infoset = build_infoset(game.definition, game.params, engine, engine.current_player())
        return self.hint(game.definition, game.params, infoset, budget, seed)

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        """The move for ``worlds.seat``; every random choice from ``rng``."""
        raise NotImplementedError

    def prior_for(self, game: str) -> Prior | None:
        """How this bot weighs other seats' hidden commits when sampling worlds (uniform)."""
        return None

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "options": dict(self.config)}
