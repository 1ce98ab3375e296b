"""The OpenSpiel face: one thin ``pyspiel.Game``/``pyspiel.State`` pair for every game.

The state holds a single attribute, the engine: ``clone()`` deep-copies every attribute of a
Python state, so keeping anything else there (the game in particular) costs time on every
clone. Everything game-specific is delegated to the game's ``GameDefinition``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pyspiel

from games.core.definition import GameDefinition, InvalidAction, Prior, replay
from games.core.engine import CHANCE, TERMINAL, Engine
from games.core.infoset import build_infoset, sample_engine
from games.core.observation import AtelierObserver
from games.core.params import InvalidParams

# The engine's ids are OpenSpiel's own, so states can hand them over unchanged.
assert int(pyspiel.PlayerId.CHANCE) == CHANCE and int(pyspiel.PlayerId.TERMINAL) == TERMINAL


class AtelierGame(pyspiel.Game):
    """A ``pyspiel.Game`` backed by a ``GameDefinition``: one class for every game.

    ``register`` hands pyspiel a factory bound to the definition, so there is no per-game class
    to look up by name and ``pickle`` (multiprocessing, Dask, OpenSpiel's ``games_sim_test``)
    stores a game as its name and parameters (``__reduce__``).
    """

    def __init__(self, definition: GameDefinition, params: dict[str, Any] | None = None) -> None:
        self.definition = defn = definition
        self.params = defn.validate_params(params or {})
        nums = defn.numbers(self.params)
        self.numbers = nums
        game_type = make_game_type(defn)
        info = pyspiel.GameInfo(
            num_distinct_actions=nums.num_distinct_actions,
            max_chance_outcomes=nums.max_chance_outcomes,
            num_players=nums.num_players,
            min_utility=nums.min_utility,
            max_utility=nums.max_utility,
            utility_sum=nums.utility_sum,
            max_game_length=nums.max_game_length,
        )
        super().__init__(game_type, info, self.params)

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, Any]]]:
        return load_game, (self.definition.name, dict(self.params))

    def new_initial_state(self, struct: Any = None) -> AtelierState:
        """A fresh state, or the state a ``to_struct()`` dict (or StateStruct) describes."""
        if struct is None:
            return AtelierState(self, self.definition.new_engine(self.params))
        if isinstance(struct, pyspiel.StateStruct):
            struct = struct.to_dict()
        return self.state_from_engine(engine_from_struct(self.definition, self.params, struct))

    def state_from_engine(self, engine: Engine) -> AtelierState:
        """A state over a copy of ``engine``, with OpenSpiel's own history filled in."""
        state = AtelierState(self, self.definition.new_engine(self.params))
        for action in engine.history:
            state.apply_action(action)
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> AtelierObserver:
        """An observer giving exactly what ``iig_obs_type`` names (``games.core.observation``)."""
        if params:
            raise ValueError(f"observer parameters are not supported, got {params}")
        return AtelierObserver(self.definition, self.params, iig_obs_type)


def make_game_type(defn: GameDefinition) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=defn.name,
        long_name=defn.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM
            if defn.zero_sum
            else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=defn.max_players,
        min_num_players=defn.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={s.name: s.default for s in defn.param_specs},
    )


def engine_from_struct(defn: GameDefinition, params: dict[str, Any], struct: Any) -> Engine:
    """Rebuilds an engine from ``to_struct()`` output by replaying its history."""
    if not isinstance(struct, dict):
        raise ValueError(f"a state struct must be an object, got {type(struct).__name__}")
    if struct.get("game", defn.name) != defn.name:
        raise ValueError(f"state struct is for game {struct.get('game')!r}, not {defn.name!r}")
    if "params" in struct:
        try:
            given = defn.validate_params(struct["params"])
        except InvalidParams as err:
            raise ValueError(f"state struct field 'params': {err}") from None
        if given != params:
            raise ValueError("state struct field 'params' differs from the game's parameters")
    history = struct.get("history")
    if not isinstance(history, list):
        raise ValueError("state struct needs 'history', the list of action ids")
    for i, action in enumerate(history):
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"state struct history[{i}] must be an action id, got {action!r}")
    engine = replay(defn, params, history, _illegal_in_struct)
    if "state" in struct and struct["state"] != engine.describe():
        raise ValueError("state struct field 'state' does not match the replayed history")
    return engine


def _illegal_in_struct(step: int, action: int) -> ValueError:
    return ValueError(f"state struct history[{step}] = {action} is not legal there")


class AtelierState(pyspiel.State):
    """A ``pyspiel.State`` whose only attribute is the engine."""

    def __init__(self, game: AtelierGame, engine: Engine) -> None:
        super().__init__(game)
        self.engine = engine

    @property
    def definition(self) -> GameDefinition:
        return self.get_game().definition

    # --- the game loop -----------------------------------------------------------------------
    def current_player(self) -> int:
        # The engine's CHANCE and TERMINAL are OpenSpiel's own ids (-1, -4); OpenSpiel calls
        # this several times per action, so it stays a bare delegation.
        return self.engine.current_player()

    def is_terminal(self) -> bool:
        return self.engine.is_terminal()

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.player_actions()

    # Python-side fast paths. OpenSpiel's C++ ``LegalActions(player)`` makes four calls back
    # into Python (terminal? chance? current player? legal actions), about 2 us each; these
    # shadows answer Python callers in one step with exactly the C++ semantics. C++ callers
    # still go through the trampolines above.
    def legal_actions(self, player: int | None = None) -> list[int]:
        engine = self.engine
        to_move = engine.current_player()
        if to_move == TERMINAL:
            return []
        if to_move == CHANCE:  # C++ answers chance outcomes whoever asks
            return engine.legal_actions()
        if player is None or player == to_move:
            return engine.player_actions()
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def is_chance_node(self) -> bool:
        return self.engine.current_player() == CHANCE

    def is_player_node(self) -> bool:
        return self.engine.current_player() >= 0

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.engine.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.engine.apply(action)

    def returns(self) -> list[float]:
        return self.engine.returns()

    def _action_to_string(self, player: int, action: int) -> str:
        return self.definition.action_to_string(self.engine, player, action)

    def __str__(self) -> str:
        return json.dumps(self.engine.describe(), sort_keys=True)

    # --- structs -----------------------------------------------------------------------------
    def _to_struct(self) -> dict[str, Any]:
        defn = self.definition
        return {
            "game": defn.name,
            "version": defn.version,
            "params": dict(self.get_game().params),
            "history": list(self.engine.history),
            "state": self.engine.describe(),
        }

    def _to_observation_struct(self, player: int) -> dict[str, Any]:
        game = self.get_game()
        return build_infoset(game.definition, game.params, self.engine, player)

    def _action_to_struct(self, player: int, action: int) -> dict[str, Any]:
        return self.definition.action_to_struct(self.engine, player, action)

    def _struct_to_actions(self, action_dict: dict[str, Any]) -> list[int]:
        return [self.definition.struct_to_action(self.engine, action_dict)]

    # --- resampling ----------------------------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> AtelierState:
        """A state drawn from ``player_id``'s information set here (OpenSpiel's contract).

        Goes through ``games.sample_state`` with every random number taken from
        ``probability_sampler`` (``pyspiel.UniformProbabilitySampler`` in OpenSpiel's
        ``ISMCTSBot``), so OpenSpiel's searches run on every game with no resampler passed.
        """
        game = self.get_game()
        infoset = build_infoset(game.definition, game.params, self.engine, player_id, False)
        return sample_state(game, infoset, SamplerRandom(probability_sampler))

    def action_from_struct(self, action_dict: dict[str, Any]) -> int:
        """The legal action id of a JSON action dict; ``InvalidAction`` if there is none."""
        return self.definition.struct_to_action(self.engine, action_dict)

    def action_from_string(self, text: str) -> int:
        return self.definition.string_to_action(self.engine, text)


def register(defn: GameDefinition) -> None:
    """Registers ``defn`` with pyspiel: ``pyspiel.load_game(defn.name, params)`` works after it."""
    pyspiel.register_game(make_game_type(defn), GameFactory(defn))


class GameFactory:
    """What pyspiel's registry calls with the parameters: ``AtelierGame(definition, params)``.

    The registry is C++ and outlives the interpreter; when it drops its reference at exit, that
    must not be the last one (freeing a Python object without the GIL aborts the process), so
    the factory holds itself, as a class object does through its ``__mro__``.
    """

    def __init__(self, definition: GameDefinition) -> None:
        self.definition = definition
        self._self = self

    def __call__(self, params: dict[str, Any] | None = None) -> AtelierGame:
        return AtelierGame(self.definition, params)


def load_game(name: str, params: dict[str, Any]) -> AtelierGame:
    """``pyspiel.load_game`` for a registered Atelier game (what an unpickled game calls)."""
    game = pyspiel.load_game(name, params)
    if not isinstance(game, AtelierGame):
        raise TypeError(f"{name!r} is not an Atelier game")
    return game


def sample_state(
    game: pyspiel.Game, infoset: Any, seed: int | random.Random, prior: Prior | None = None
) -> pyspiel.State:
    """A full ``pyspiel.State`` consistent with ``infoset``; ``InvalidInfoset`` if none is.

    ``seed`` drives every random choice; the same seed gives the same state. A
    ``random.Random`` is used as it is (``resample_from_infostate`` passes one that reads
    OpenSpiel's ``probability_sampler``).
    """
    if not isinstance(game, AtelierGame):
        raise TypeError(f"sample_state needs an Atelier game, got {game}")
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    engine = sample_engine(game.definition, game.params, infoset, rng, prior)
    return game.state_from_engine(engine)


class SamplerRandom(random.Random):
    """A ``random.Random`` whose every draw comes from OpenSpiel's ``probability_sampler``.

    Overriding ``random()`` alone makes ``randrange``, ``choice``, ``choices`` and ``shuffle``
    use it too (CPython then draws integers from ``random()`` instead of ``getrandbits``).
    ``getrandbits`` itself stays the Mersenne Twister's, seeded from one sampler draw, so it is
    a function of the sampler as well.
    """

    def __init__(self, probability_sampler: Any) -> None:
        self._sampler = probability_sampler
        super().__init__(int(probability_sampler() * 2**53))

    def random(self) -> float:
        u = float(self._sampler())
        return u if 0.0 <= u < 1.0 else 0.0


__all__ = [
    "AtelierGame",
    "AtelierObserver",
    "AtelierState",
    "InvalidAction",
    "load_game",
    "register",
    "sample_state",
]
