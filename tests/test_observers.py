"""Issue 19's contracts on every game: pickling, observation types, information-state tensors,
``resample_from_infostate`` and OpenSpiel's ``ISMCTSBot`` with no resampler.

Settings: every game's conformance parameter sets (every player count) and its small variant.
"""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.observation import make_observation

import games
from games.core.infoset import build_infoset, canonical_json
from games.core.observation import AtelierObserver
from games.core.pieces import PRIVATE, PUBLIC, encode_event, encode_private

PrivateInfo = pyspiel.PrivateInfoType


def settings() -> list[tuple[str, dict]]:
    out = []
    for name, defn in games.DEFINITIONS.items():
        for params in defn.conformance_params:
            out.append((name, dict(params)))
        if defn.small_variant is not None and defn.small_variant not in defn.conformance_params:
            out.append((name, dict(defn.small_variant)))
    return out


SETTINGS = settings()
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(SETTINGS)]
# The full games (default parameters) at every player count.
FULL = [
    (name, {"players": n})
    for name, defn in games.DEFINITIONS.items()
    for n in range(defn.min_players, defn.max_players + 1)
]


def obs_type(public: bool, private, recall: bool) -> pyspiel.IIGObservationType:
    return pyspiel.IIGObservationType(
        public_info=public, perfect_recall=recall, private_info=private
    )


def random_states(game, count: int, seed: int) -> list:
    """States along random games: every step of the first games until ``count`` are taken."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            out.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return out


def worlds(game, state, seat: int, k: int = 3) -> list:
    """``k`` states drawn from ``seat``'s information set at ``state`` (the state included)."""
    defn = game.definition
    infoset = build_infoset(defn, game.params, state.engine, seat, with_view=False)
    return [state] + [games.sample_state(game, infoset, seed) for seed in range(k)]


# --- pickling --------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "params"), SETTINGS, ids=IDS)
def test_games_and_states_pickle(name, params):
    game = pyspiel.load_game(name, params)
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.params == game.params
    state = random_states(game, 12, seed=1)[-1]
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history() and str(copy) == str(state)


# --- observation types -----------------------------------------------------------------------
@pytest.mark.parametrize(("name", "params"), SETTINGS, ids=IDS)
def test_every_observation_type_gives_what_it_names(name, params):
    game = pyspiel.load_game(name, params)
    n = game.num_players()
    types = {
        (public, private, recall): make_observation(game, obs_type(public, private, recall))
        for public in (True, False)
        for private in (PrivateInfo.NONE, PrivateInfo.SINGLE_PLAYER, PrivateInfo.ALL_PLAYERS)
        for recall in (True, False)
    }
    pieces = {
        p.name: p.visibility
        for p in game.definition.observation_pieces(game.new_initial_state().engine)
    }
    # The layouts hold exactly the allowed pieces.
    for (public, private, recall), obs in types.items():
        if recall:
            continue
        for key in obs.dict:
            visibility = pieces[key.rsplit("_", 1)[0] if key not in pieces else key]
            if visibility == PUBLIC:
                assert public, key
            elif visibility == PRIVATE:
                assert private != PrivateInfo.NONE, key
            else:
                assert private == PrivateInfo.SINGLE_PLAYER, key
    states = random_states(game, 40, seed=3)[::4]
    for state in states:
        for seat in range(n):
            same_infoset = worlds(game, state, seat)

            def view(key, s, who):
                obs = types[key]
                obs.set_from(s, who)
                return obs.tensor.copy(), obs.string_from(s, who)

            for key in types:
                public, private, recall = key
                first_t, first_s = view(key, state, seat)
                for other in same_infoset[1:]:
                    t, s = view(key, other, seat)
                    if private == PrivateInfo.ALL_PLAYERS:
                        continue  # other seats' private parts may differ: see below
                    # What the seat knows fixes every type without others' private parts.
                    assert np.array_equal(t, first_t) and s == first_s, (key, seat)
                if private == PrivateInfo.NONE and public:
                    # Public only: the same for every seat.
                    for who in range(n):
                        t, s = view(key, state, who)
                        assert np.array_equal(t, first_t) and s == first_s, (key, who)
            # Perfect recall strings hold exactly the parts named.
            infoset = build_infoset(game.definition, game.params, state.engine, seat, False)
            assert state.information_state_string(seat) == canonical_json(infoset)
            pub = json.loads(types[(True, PrivateInfo.NONE, True)].string_from(state, seat))
            assert pub["events"] == infoset["events"] and "private" not in pub
            mine = json.loads(
                types[(False, PrivateInfo.SINGLE_PLAYER, True)].string_from(state, seat)
            )
            assert mine["private"] == infoset["private"] and "events" not in mine
            every = json.loads(
                types[(True, PrivateInfo.ALL_PLAYERS, True)].string_from(state, seat)
            )
            assert every["private_by_seat"] == [
                build_infoset(game.definition, game.params, state.engine, s, False)["private"]
                for s in range(n)
            ]
            none = types[(False, PrivateInfo.NONE, False)]
            assert none.tensor.size == 0 and none.string_from(state, seat) == ""


@pytest.mark.parametrize("name", ["detective_eye", "finger_auction", "modern_art"])
def test_all_players_private_info_tells_worlds_apart(name):
    """Worlds of one seat's information set differ in another seat's private part: the
    all-players type sees the difference, the single-player type does not."""
    defn = games.definition(name)
    game = pyspiel.load_game(name, defn.conformance_params[0])
    every = make_observation(game, obs_type(True, PrivateInfo.ALL_PLAYERS, False))
    single = make_observation(game, obs_type(True, PrivateInfo.SINGLE_PLAYER, False))
    told_apart = 0
    for state in random_states(game, 90, seed=5)[::3]:
        seat = state.current_player()
        if seat < 0:
            continue
        tensors = set()
        for world in worlds(game, state, seat, k=6):
            every.set_from(world, seat)
            tensors.add(every.tensor.tobytes())
            single.set_from(world, seat)
            assert single.string_from(world, seat) == single.string_from(state, seat)
        told_apart += len(tensors) > 1
    assert told_apart > 0


# --- the information-state tensor identifies the information set ------------------------------
def all_infosets(defn, params):
    """(seat, string key, tensor key) for every seat at every state of the whole tree.

    Built incrementally along a depth-first walk with the same encoders the observer uses
    (``test_observer_rows_are_the_incremental_ones`` ties the two together).
    """
    fresh = defn.new_engine(params)
    spec = defn.history_fields(fresh)
    n = params["players"]
    stack = [(fresh, (), tuple(() for _ in range(n)), tuple(() for _ in range(n)))]
    while stack:
        engine, events, strings, tensors = stack.pop()
        for seat in range(n):
            yield seat, engine.current_player(), (events, strings[seat]), tensors[seat]
        if engine.is_terminal():
            continue
        for action in engine.legal_actions():
            story = engine.narrate(action)
            public = json.dumps(story.public, sort_keys=True)
            row = encode_event(spec, story.public)
            new_strings, new_tensors = [], []
            for seat in range(n):
                hidden = story.private_for(seat)
                new_strings.append((*strings[seat], json.dumps(hidden, sort_keys=True)))
                new_tensors.append((*tensors[seat], tuple(row + encode_private(spec, hidden))))
            child = engine.copy()
            child.apply(action)
            stack.append((child, (*events, public), tuple(new_strings), tuple(new_tensors)))


@pytest.mark.parametrize("name", ["finger_auction", "detective_eye"])
def test_information_state_tensor_is_injective_on_every_infoset_of_the_small_variant(name):
    defn = games.definition(name)
    params = defn.validate_params(defn.small_variant)
    by_string: dict = {}
    by_tensor: dict = {}
    to_move = set()
    for seat, player, string, tensor in all_infosets(defn, params):
        key = (seat, string)
        assert by_string.setdefault(key, tensor) == tensor  # a function of the infoset
        assert by_tensor.setdefault((seat, tensor), key) == key  # and it tells them apart
        if player == seat:
            to_move.add(key)
    assert len(by_string) == len(by_tensor)
    # The counts issue 19 quotes for the player to move (456 and 14,466 information sets).
    assert len(to_move) == {"finger_auction": 456, "detective_eye": 14_466}[name]


@pytest.mark.parametrize(
    ("name", "params"),
    SETTINGS + FULL,
    ids=IDS + [f"{name}-full-{p['players']}p" for name, p in FULL],
)
def test_information_state_tensor_is_injective_on_random_states(name, params):
    game = pyspiel.load_game(name, params)
    by_string: dict = {}
    by_tensor: dict = {}
    shape = game.information_state_tensor_shape()
    for state in random_states(game, 150, seed=11):
        for seat in range(game.num_players()):
            string = state.information_state_string(seat)
            tensor = np.asarray(state.information_state_tensor(seat), np.float32)
            assert list(tensor.shape) == [int(np.prod(shape))]
            key = tensor.tobytes()
            assert by_string.setdefault(string, key) == key
            assert by_tensor.setdefault(key, string) == string
    assert len(by_string) == len(by_tensor) > 10


@pytest.mark.parametrize(("name", "params"), SETTINGS, ids=IDS)
def test_information_state_tensor_layout(name, params):
    """The seat's one-hot, then one row per step so far, zeros after the last one."""
    game = pyspiel.load_game(name, params)
    defn = game.definition
    observer = AtelierObserver(defn, game.params, obs_type(True, PrivateInfo.SINGLE_PLAYER, True))
    n = game.num_players()
    assert observer.steps == defn.recall_steps(game.params)
    for state in random_states(game, 30, seed=2)[::6]:
        for seat in range(game.num_players()):
            observer.set_from(state, seat)
            history = observer.dict["history"]
            steps = len(state.history())
            assert list(observer.dict["player"]) == [float(s == seat) for s in range(n)]
            assert history[:steps].any(axis=1).all() and not history[steps:].any()
            assert np.array_equal(observer.tensor, state.information_state_tensor(seat))


def test_tensor_sizes_are_documented():
    """docs/architecture.md's table lists every setting's tensor sizes as the code has them."""
    from games.core.observation import tensor_sizes_table

    doc = (Path(__file__).resolve().parent.parent / "docs" / "architecture.md").read_text()
    assert tensor_sizes_table(games.DEFINITIONS) in doc


# --- resampling and OpenSpiel's ISMCTS ---------------------------------------------------------
@pytest.mark.parametrize(("name", "params"), SETTINGS, ids=IDS)
def test_resample_from_infostate_stays_in_the_infoset_and_follows_the_sampler(name, params):
    game = pyspiel.load_game(name, params)
    for state in random_states(game, 30, seed=4)[5::8]:
        if state.is_chance_node():
            continue
        seat = state.current_player()
        want = state.information_state_string(seat)
        draws = []
        for seed in (1, 1, 2):
            sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
            world = state.resample_from_infostate(seat, sampler)
            assert world.information_state_string(seat) == want
            draws.append(world.history())
        assert draws[0] == draws[1]  # same sampler seed, same world


@pytest.mark.parametrize(("name", "params"), SETTINGS, ids=IDS)
def test_openspiel_ismcts_plays_with_no_resampler(name, params):
    game = pyspiel.load_game(name, params)
    bot = ismcts.ISMCTSBot(
        game=game,
        evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        uct_c=2.0,
        max_simulations=8,
        random_state=np.random.RandomState(1),
    )
    rng = random.Random(0)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 6:
        if state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves > 0
