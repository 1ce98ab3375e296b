"""Bot protocol, registry and baselines: legality, determinism, budgets, information sets only.

Every game in ``games.DEFINITIONS`` is covered without naming it; the heuristic of each game
gets a few scenario tests of its own in ``tests/test_bots_heuristics.py``.
"""

from __future__ import annotations

import random

import pyspiel
import pytest

from bots import BOTS, Budget, InvalidBotSpec, InvalidBudget, bot_catalog, make_bot
from bots.heuristics import KNOWLEDGE, knowledge_for
from bots.protocol import NotYourTurn
from bots.spiel_bot import SpielBot
from evaluation.baselines import ISMCTS_LEGACY
from games.core.infoset import build_infoset
from tests.support import GAMES, decision_states


# --- specs and budgets -------------------------------------------------------------------------
def test_every_game_has_a_heuristic():
    assert set(GAMES) <= set(KNOWLEDGE)


# The ismcts bot's options and defaults (docs/bots.md lists the same).
ISMCTS_DEFAULTS = {
    "exploration": 0.7,
    "rollout": "auto",
    "rollout_depth": -2,
    "opponent_model": "heuristic",
    "worlds": 32,
    "beliefs": "auto",
    "belief_worlds": 64,
    "epsilon": 0.2,
    "belief_effective": 0.25,
    "selection": "uct",
    "hidden_moves": "tree",
    "prior_weight": -1.0,
    "prior_seats": "all",
    "rollout_opponents": 0,
    "opponent_moves": "auto",
    "final_policy": "welch",
    "opponents": {},
    "restricted_trust": 0.25,
    "profile_trust": 0.5,
    "profile_evidence": "game",
}


def test_registry_builds_bots_from_plain_specs():
    assert {"random", "heuristic", "ismcts"} <= set(BOTS)
    bot = make_bot({"name": "ismcts", "options": {"exploration": 1, "worlds": 4}})
    assert bot.spec() == {
        "name": "ismcts",
        "options": {**ISMCTS_DEFAULTS, "exploration": 1.0, "worlds": 4},
    }
    assert make_bot("random").spec() == {"name": "random", "options": {}}
    names = {entry["name"] for entry in bot_catalog()}
    assert {"random", "heuristic", "ismcts"} <= names
    ismcts = next(e for e in bot_catalog() if e["name"] == "ismcts")
    assert {o["name"] for o in ismcts["options"]} == set(ISMCTS_DEFAULTS)
    # The documented option set of the ISMCTS of a322b0d names real options.
    assert set(ISMCTS_LEGACY.options) <= set(ISMCTS_DEFAULTS)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"name": "nope"}, "unknown bot 'nope'"),
        ({"name": "ismcts", "options": {"worlds": 0}}, "option 'worlds' must be >= 1"),
        ({"name": "ismcts", "options": {"exploration": "x"}}, "'exploration' must be a number"),
        ({"name": "ismcts", "options": {"rollout": "smart"}}, "'rollout' must be one of"),
        ({"name": "ismcts", "options": {"depth": 3}}, "unknown option 'depth'"),
        ({"name": "ismcts", "extra": 1}, "unknown bot spec field 'extra'"),
        (["ismcts"], "a bot spec must be an object"),
    ],
)
def test_bad_specs_are_refused_with_a_clear_message(spec, message):
    with pytest.raises(InvalidBotSpec, match=message):
        make_bot(spec)


def test_budgets_are_validated():
    with pytest.raises(InvalidBudget):
        Budget()
    with pytest.raises(InvalidBudget):
        Budget(simulations=0)
    with pytest.raises(InvalidBudget):
        Budget.from_json({"simulations": 10, "seconds": 1})
    assert Budget.from_json({"milliseconds": 5}).to_json() == {"milliseconds": 5}


# --- legality and determinism ------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_heuristic_and_candidates_are_legal_everywhere(name):
    defn, params, states = decision_states(name, seed=1, count=150)
    numbers = defn.numbers(params)
    knowledge = knowledge_for(name)
    rng = random.Random(0)
    for engine in states:
        legal = engine.legal_actions()
        cands = knowledge.candidates(engine, legal)
        assert cands and set(cands) <= set(legal)
        rated = knowledge.rate(engine)
        assert rated and {a for a, _ in rated} <= set(legal)
        assert knowledge.choose(engine, rng) in legal
        assert knowledge.playout(engine, rng) in legal
        evaluation = knowledge.evaluate(engine)  # every game supports cut-off rollouts
        assert len(evaluation) == engine.num_players
        assert all(
            numbers.min_utility - 1e-9 <= v <= numbers.max_utility + 1e-9 for v in evaluation
        )


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_baselines_answer_legal_moves_from_infosets(name, bot):
    defn, params, states = decision_states(name, seed=2, count=12)
    player = make_bot(bot)
    for i, engine in enumerate(states):
        seat = engine.current_player()
        infoset = build_infoset(defn, params, engine, seat)
        hint = player.hint(defn, params, infoset, Budget(simulations=1), seed=i)
        assert hint.action in engine.legal_actions()
        assert abs(sum(s.probability for s in hint.policy) - 1.0) < 1e-9
        assert hint.to_json(defn, engine)["action"]["id"] == hint.action


def test_a_seat_not_to_move_gets_no_hint():
    defn, params, states = decision_states("gallery_rush", seed=3, count=1)
    engine = states[0]
    other = (engine.current_player() + 1) % engine.num_players
    infoset = build_infoset(defn, params, engine, other)
    with pytest.raises(NotYourTurn):
        make_bot("random").hint(defn, params, infoset, Budget(simulations=1), seed=0)


# --- the pyspiel.Bot adapter -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["kuhn_poker", "gallery_rush"])
def test_spiel_adapter_plays_whole_games_under_evaluate_bots(name):
    game = pyspiel.load_game(name)
    first = "random" if name == "kuhn_poker" else "heuristic"
    players = [SpielBot(first, Budget(simulations=1), seed=1), SpielBot("random", Budget(1), 2)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), players, 7)
    assert len(returns) == 2 and sum(returns) == 0


@pytest.mark.parametrize("name", GAMES)
def test_spiel_adapter_gives_a_policy(name):
    _, params, states = decision_states(name, seed=4, count=1)
    game = pyspiel.load_game(name, params)
    state = game.state_from_engine(states[0])
    bot = SpielBot("heuristic", Budget(simulations=1), seed=3)
    assert bot.provides_policy()
    policy, action = bot.step_with_policy(state)
    assert action in state.legal_actions()
    assert abs(sum(p for _, p in policy) - 1.0) < 1e-9
    assert bot.step(state) == action  # same state, same seed: same move


SPECS = [
    "random",
    "heuristic",
    {"name": "heuristic", "options": {"style": "simple"}},
    "ismcts",
    {"name": "ismcts", "options": {"exploration": 1, "worlds": 4}},
    "cfr",
    {"name": "oos", "options": {"worlds": 3}},
]


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_a_spec_is_normalised_without_building_the_bot(spec, monkeypatch):
    from bots import normalised_spec
    from bots.protocol import Bot

    expected = make_bot(spec).spec()
    built = []
    original = Bot.__init__

    def counting_init(self, /, **options):
        built.append(type(self).name)
        original(self, **options)

    monkeypatch.setattr(Bot, "__init__", counting_init)
    assert normalised_spec(spec) == expected
    assert built == []  # the web process checks specs; only the worker builds the bot


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"name": "nope"}, "unknown bot 'nope'"),
        ({"name": "ismcts", "options": {"worlds": 0}}, "option 'worlds' must be >= 1"),
        ({"name": "heuristic", "options": {"style": "fast"}}, "'style' must be one of"),
        (["ismcts"], "a bot spec must be an object"),
    ],
)
def test_normalising_refuses_what_building_refuses(spec, message):
    from bots import normalised_spec

    with pytest.raises(InvalidBotSpec, match=message):
        normalised_spec(spec)


@pytest.mark.parametrize("name", GAMES)
def test_a_replayed_hint_is_the_hint_and_replays_the_infoset_once(name, monkeypatch):
    import bots.protocol as protocol
    from games.core.infoset import sample_engine

    defn, params, states = decision_states(name, 5, 1)
    engine = states[0]
    seat = engine.current_player()
    infoset = build_infoset(defn, params, engine, seat)
    bot = make_bot({"name": "ismcts", "options": {"worlds": 4}})
    budget = Budget(simulations=40)
    plain = bot.hint(defn, params, infoset, budget, 11)
    rng = random.Random(11)
    first = sample_engine(defn, params, infoset, rng, bot.prior_for(name))
    replays = []
    monkeypatch.setattr(
        protocol, "sample_engine", lambda *a, **k: replays.append(1) or sample_engine(*a, **k)
    )
    replayed = bot.hint_replayed(defn, params, infoset, budget, 11, first, rng)
    assert replays == []  # the worlds start from the caller's replay
    assert replayed.action == plain.action
    assert [(s.action, s.visits) for s in replayed.policy] == [
        (s.action, s.visits) for s in plain.policy
    ]
    assert not hasattr(bot, "_replayed")  # handed over as an argument, not left on the bot


def test_every_bots_hint_takes_the_replayed_worlds():
    """``Bot.hint_replayed`` hands the worlds over as ``replayed``, with no fallback for an
    override without that argument: every registered bot's ``hint`` takes it."""
    import inspect

    for name, cls in BOTS.items():
        assert "replayed" in inspect.signature(cls.hint).parameters, name
