"""The conformance suite every game must pass, written once and run for each game's settings.

A game joins by listing parameter settings in its definition's ``conformance_params``; nothing
here names a game.
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pyspiel
import pytest

import games
from games.core.infoset import build_infoset
from tests.support import case_id, conformance_cases, play_states, random_engines, step

CASES = conformance_cases()
INFOSET_STATES = 400  # states per case for the information-set round trip, every seat each


@pytest.fixture(params=CASES, ids=[case_id(c) for c in CASES])
def game(request) -> pyspiel.Game:
    name, params = request.param
    return pyspiel.load_game(name, params)


def test_every_game_has_conformance_settings():
    for name, defn in games.DEFINITIONS.items():
        assert defn.conformance_params, f"{name} declares no conformance_params"
        assert name in pyspiel.registered_names()


def test_random_sim_with_serialization(game):
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_legal_actions_and_returns(game):
    numbers = game.definition.numbers(game.params)
    for seed in range(20):
        length = 0
        for state in play_states(game, seed):
            if state.is_terminal():
                returns = state.returns()
                assert all(numbers.min_utility <= r <= numbers.max_utility for r in returns)
                if game.definition.zero_sum:
                    assert sum(returns) == pytest.approx(0.0, abs=1e-9)
                assert state.legal_actions() == []
            else:
                legal = state.legal_actions()
                assert legal, f"no legal action at {state}"
                assert legal == sorted(set(legal))
                assert all(0 <= a < game.num_distinct_actions() for a in legal) or (
                    state.is_chance_node()
                    and all(0 <= a < game.max_chance_outcomes() for a in legal)
                )
                assert state.returns() == [0.0] * game.num_players()
                if state.is_chance_node():
                    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
            length += 1
        assert length - 1 <= game.max_game_length()


def test_clone_is_independent(game):
    rng = random.Random(7)
    state = game.new_initial_state()
    for _ in range(15):
        if state.is_terminal():
            break
        before = state.to_struct().to_json()
        clone = state.clone()
        assert clone.to_struct().to_json() == before
        engine = clone.engine
        step(engine, rng)  # moves the clone only
        assert state.to_struct().to_json() == before
        assert clone.history() == state.history()  # pyspiel's own history was copied
        outcomes = state.legal_actions()
        state.apply_action(rng.choice(outcomes))


def test_same_seed_same_playthrough(game):
    def histories(seed: int) -> list[list[int]]:
        return [list(e.history) for e in random_engines(game, seed, count=60, keep_every=3)]

    assert histories(3) == histories(3)
    assert histories(3) != histories(4)


def test_struct_round_trip(game):
    for engine in random_engines(game, seed=11, count=150, keep_every=3):
        state = game.state_from_engine(engine)
        struct = state.to_struct().to_dict()
        json.dumps(struct)  # plain JSON
        rebuilt = game.new_initial_state(struct)
        assert rebuilt.to_struct().to_dict() == struct
        assert rebuilt.history() == state.history()
        assert str(rebuilt) == str(state)
        also = game.new_initial_state(state.to_struct())  # a StateStruct works too
        assert str(also) == str(state)


def test_action_struct_and_string_round_trip(game):
    for engine in random_engines(game, seed=12, count=150, keep_every=2):
        state = game.state_from_engine(engine)
        if state.is_terminal():
            continue
        player = state.current_player()
        strings = set()
        for action in state.legal_actions():
            struct = state.action_to_struct(player, action)
            as_dict = struct.to_dict()
            json.dumps(as_dict)
            assert state.struct_to_actions(struct) == [action]
            # A client sends plain JSON: it maps back to the same id.
            assert state.action_from_struct(json.loads(json.dumps(as_dict))) == action
            text = state.action_to_string(player, action)
            assert text and text not in strings, f"duplicate action string {text!r}"
            strings.add(text)
            assert state.action_from_string(text) == action
            if not state.is_chance_node():
                assert state.string_to_action(text) == action


def test_illegal_action_struct_is_refused(game):
    for engine in random_engines(game, seed=13, count=40, keep_every=3):
        state = game.state_from_engine(engine)
        if state.is_terminal():
            continue
        with pytest.raises(games.InvalidAction):
            state.action_from_struct({"type": "no-such-action"})
        with pytest.raises(games.InvalidAction):
            state.action_from_struct("explore")  # not an object


def test_infoset_round_trip(game):
    """sample_state gives back the identical JSON and information-state string, every seat."""
    n = game.num_players()
    checked = 0
    for k, engine in enumerate(random_engines(game, seed=21, count=INFOSET_STATES, keep_every=2)):
        state = game.state_from_engine(engine)
        for seat in range(n):
            infoset = state.to_observation_struct(seat).to_dict()
            json.dumps(infoset)
            sampled = games.sample_state(game, infoset, seed=k)
            assert sampled.to_observation_struct(seat).to_dict() == infoset
            assert sampled.information_state_string(seat) == state.information_state_string(seat)
            assert sampled.current_player() == state.current_player()
            assert (
                sampled.legal_actions() == state.legal_actions() or state.current_player() != seat
            )
            checked += 1
    assert checked == INFOSET_STATES * n


def test_sampling_reads_only_the_json_and_varies(game):
    """States with hidden steps sample differently across seeds; fully visible ones cannot."""
    n = game.num_players()
    varied = hidden_states = 0
    defn = game.definition
    for engine in random_engines(game, seed=31, count=120, keep_every=4):
        for seat in range(n):
            infoset = build_infoset(defn, game.params, engine, seat)
            hidden = infoset_hides_something(defn, game.params, engine.history, seat)
            histories = {
                tuple(games.sample_engine(defn, game.params, infoset, random.Random(s)).history)
                for s in range(6)
            }
            if hidden:
                # A hidden step may have been made public since (sealed bids revealed
                # together), so count only states shown to admit another world.
                if another_world_exists(defn, game.params, engine.history, seat):
                    hidden_states += 1
                    varied += len(histories) > 1
            else:
                assert histories == {tuple(engine.history)}
    if hidden_states:
        # Most states that admit more than one world sample more than one.
        assert varied >= hidden_states // 3, (varied, hidden_states)


def test_a_searchs_repeated_draws_are_the_validated_worlds(game):
    """``sample_world`` with a memo shared by the draws (what ``bots.protocol.Worlds`` does)
    gives the world the validating sampler gives for the same seed, in the same state as a
    replay of its history: skipping the replay and reusing decoded steps changes nothing."""
    defn = game.definition
    n = game.num_players()
    for engine in random_engines(game, seed=37, count=40, keep_every=5):
        for seat in range(n):
            infoset = build_infoset(defn, game.params, engine, seat)
            memo: dict = {}
            for s in range(4):
                world = defn.sample_world(game.params, infoset, random.Random(s), None, memo)
                checked = games.sample_engine(defn, game.params, infoset, random.Random(s))
                assert world.history == checked.history
                assert world.describe() == checked.describe()
                assert [world.info_key(q) for q in range(n)] == [
                    checked.info_key(q) for q in range(n)
                ]


def infoset_hides_something(defn, params, history, seat) -> bool:
    from games.core.infoset import narrated_steps

    return any(hides_from(story, seat) for _, _, story in narrated_steps(defn, params, history))


def same_telling(a, b, seat: int) -> bool:
    """Whether two narrations look the same to ``seat``."""
    return a.public == b.public and a.private_for(seat) == b.private_for(seat)


def hides_from(story, seat: int) -> bool:
    """Whether one step has a hidden part that ``seat`` does not see."""
    return (story.hidden is not None and seat not in story.seen_by) or any(
        other != seat for other in story.hidden_for or ()
    )


def another_world_exists(defn, params, history, seat) -> bool:
    """Whether changing one step hidden from ``seat`` leaves its information set unchanged.

    The witness: another legal action at a hidden step, told the same way, after which the
    rest of the history replays with the same public events and the same private entries.
    """
    engine = defn.new_engine(params)
    before: list[tuple[int, object]] = []
    stories = []
    for i, action in enumerate(history):
        story = engine.narrate(action)
        stories.append(story)
        if hides_from(story, seat):
            before.append((i, engine.copy()))
        engine.apply(action)
    for i, start in reversed(before):
        for other in start.legal_actions():
            if other == history[i]:
                continue
            alt = start.narrate(other)
            if not same_telling(alt, stories[i], seat):
                continue
            world = start.copy()
            world.apply(other)
            for j in range(i + 1, len(history)):
                if world.is_terminal() or history[j] not in world.legal_actions():
                    break
                told = world.narrate(history[j])
                if not same_telling(told, stories[j], seat):
                    break
                world.apply(history[j])
            else:
                return True
    return False


def test_info_key_agrees_with_json(game):
    n = game.num_players()
    key_of: dict[str, object] = {}
    json_of: dict[object, str] = {}
    for engine in random_engines(game, seed=41, count=300, keep_every=2):
        for seat in range(n):
            text = games.canonical_json(build_infoset(game.definition, game.params, engine, seat))
            key = engine.info_key(seat)
            hash(key)
            assert key_of.setdefault(text, key) == key
            assert json_of.setdefault(key, text) == text


def test_tensors_have_declared_shape_and_follow_strings(game):
    info_shape = game.information_state_tensor_shape()
    obs_shape = game.observation_tensor_shape()
    seen_info: dict[str, np.ndarray] = {}
    seen_obs: dict[str, np.ndarray] = {}
    for engine in random_engines(game, seed=51, count=200, keep_every=2):
        state = game.state_from_engine(engine)
        for seat in range(game.num_players()):
            info = np.array(state.information_state_tensor(seat))
            obs = np.array(state.observation_tensor(seat))
            assert list(info.shape) == [int(np.prod(info_shape))]
            assert list(obs.shape) == [int(np.prod(obs_shape))]
            assert np.isfinite(info).all() and np.isfinite(obs).all()
            prev = seen_info.setdefault(state.information_state_string(seat), info)
            assert np.array_equal(prev, info)
            prev = seen_obs.setdefault(state.observation_string(seat), obs)
            assert np.array_equal(prev, obs)


def test_event_and_action_types_are_declared(game):
    """Every event and action struct ``type`` met in play is one the definition declares."""
    defn = game.definition
    assert defn.event_types and defn.action_types
    for engine in random_engines(game, seed=53, count=150, keep_every=1):
        if engine.is_terminal():
            continue
        player = engine.current_player()
        for action in engine.legal_actions()[:20]:
            assert engine.narrate(action).public["type"] in defn.event_types
            assert defn.action_to_struct(engine, player, action)["type"] in defn.action_types


# --- bad input -------------------------------------------------------------------------------
def _an_infoset(game):
    engine = next(random_engines(game, seed=61, count=1))
    for e in random_engines(game, seed=61, count=40):
        engine = e
    return build_infoset(game.definition, game.params, engine, 0)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda i: i.pop("events"), "events"),
        (lambda i: i.update(game="chess"), "game"),
        (lambda i: i.update(version=-1), "version"),
        (lambda i: i.update(seat=99), "seat"),
        (lambda i: i.update(seat="0"), "seat"),
        (lambda i: i.update(surprise=1), "surprise"),
        (lambda i: i["params"].update(players=-5), "params"),
        (lambda i: i["events"].append({"type": "nonsense"}), "events["),
        (lambda i: i["events"].insert(0, {"type": "nonsense"}), "events[0]"),
        (lambda i: i["events"].__setitem__(0, "x"), "events[0]"),
        (lambda i: i["private"].append({"at": 10**6}), "private["),
        (lambda i: i["view"].update(terminal="maybe"), "view"),
    ],
)
def test_bad_infosets_are_rejected_with_a_named_field(game, mutate, message):
    infoset = copy.deepcopy(_an_infoset(game))
    mutate(infoset)
    with pytest.raises(games.InvalidInfoset) as err:
        games.sample_state(game, infoset, seed=1)
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)


def test_reordered_events_are_rejected(game):
    infoset = copy.deepcopy(_an_infoset(game))
    events = infoset["events"]
    for i in range(1, len(events)):
        if events[i] != events[i - 1]:
            events[i], events[i - 1] = events[i - 1], events[i]
            break
    infoset.pop("view")
    with pytest.raises(games.InvalidInfoset, match=r"events\[|private\["):
        games.sample_state(game, infoset, seed=1)


def test_bad_parameters_name_the_parameter(game):
    name = game.get_type().short_name
    with pytest.raises(Exception, match="no_such_param"):
        pyspiel.load_game(name, {"no_such_param": 1})
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game(name, {"players": 99})


def test_python_fast_paths_answer_like_openspiels_cpp(game):
    """The Python shadows of legal_actions / is_chance_node agree with pyspiel's C++ methods."""
    for seed in range(3):
        for state in play_states(game, seed):
            for player in (None, 0, game.num_players() - 1):
                cpp = (
                    pyspiel.State.legal_actions(state)
                    if player is None
                    else pyspiel.State.legal_actions(state, player)
                )
                ours = state.legal_actions() if player is None else state.legal_actions(player)
                assert ours == cpp
            assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
            assert state.is_player_node() == pyspiel.State.is_player_node(state)


# Every check above that takes only a game, by name. ``test_the_game_checks_are_the_named_list``
# fails when a check is added, renamed or removed without this list (and its count) following,
# so a suite run by name (the full Modern Art game under ``-m slow``) cannot skip one silently.
GAME_CHECKS = (
    "test_random_sim_with_serialization",
    "test_legal_actions_and_returns",
    "test_clone_is_independent",
    "test_same_seed_same_playthrough",
    "test_struct_round_trip",
    "test_action_struct_and_string_round_trip",
    "test_illegal_action_struct_is_refused",
    "test_infoset_round_trip",
    "test_sampling_reads_only_the_json_and_varies",
    "test_a_searchs_repeated_draws_are_the_validated_worlds",
    "test_info_key_agrees_with_json",
    "test_tensors_have_declared_shape_and_follow_strings",
    "test_event_and_action_types_are_declared",
    "test_reordered_events_are_rejected",
    "test_bad_parameters_name_the_parameter",
    "test_python_fast_paths_answer_like_openspiels_cpp",
)
GAME_CHECK_COUNT = 16


def run_game_checks(game: pyspiel.Game) -> list[str]:
    """Runs every check of ``GAME_CHECKS`` on ``game``; returns the names run, in order."""
    ran = []
    for name in GAME_CHECKS:
        globals()[name](game)
        ran.append(name)
    return ran


def test_the_game_checks_are_the_named_list():
    takes_a_game = sorted(
        name
        for name, value in globals().items()
        if name.startswith("test_")
        and callable(value)
        and value.__code__.co_varnames[: value.__code__.co_argcount] == ("game",)
    )
    assert sorted(GAME_CHECKS) == takes_a_game
    assert len(GAME_CHECKS) == len(set(GAME_CHECKS)) == GAME_CHECK_COUNT
