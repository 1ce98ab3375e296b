"""Beliefs over sampled worlds (``bots.beliefs``) and the search pieces built on them.

The Bayes weights of ISMCTS (one replay per world) and of the best responder (informative steps
only) are one formula; tempering keeps the pool from collapsing onto one world; unseen moves
just before our turn are found and searched as the movers' own decisions.
"""

from __future__ import annotations

import importlib
import json
import random

import pytest

import games
from bots import Budget, make_bot
from bots.beliefs import (
    HeuristicModel,
    bayes_beliefs,
    effective_size,
    log_likelihood,
    normalise,
    tempered,
)
from bots.heuristics import knowledge_for
from bots.ismcts import unseen_tail
from bots.protocol import Worlds
from evaluation.baselines import ISMCTS_LEGACY
from games.core.definition import replay
from games.core.engine import CHANCE
from games.core.infoset import build_infoset
from tests.support import decision_states, heuristic_position


def pool_of(defn, params, engine, size: int) -> Worlds:
    infoset = build_infoset(defn, params, engine, engine.current_player())
    return Worlds.from_infoset(defn, params, infoset, random.Random(0))


def test_one_pass_weights_equal_the_informative_step_weights():
    """Skipping the factors shared by every world changes nothing after normalisation."""
    defn, params, engine = heuristic_position("detective_eye", 3, 25)
    worlds = pool_of(defn, params, engine, 12)
    pool = [worlds.first] + [worlds.sample(random.Random(i)) for i in range(11)]
    model = HeuristicModel(knowledge_for("detective_eye"))
    seat = worlds.seat
    skipping = bayes_beliefs(worlds.fresh, pool, seat, model.probability, 0.3)
    one_pass = normalise(
        [log_likelihood(worlds.fresh, w, seat, model.probability, 0.3) for w in pool]
    )
    assert skipping.steps_weighed > 0
    assert one_pass == pytest.approx(skipping.weights, rel=1e-9, abs=1e-12)
    # The evidence matters: the worlds are not all equally likely.
    assert max(one_pass) > 2 * min(one_pass)


def test_tempering_keeps_the_asked_share_of_worlds_and_leaves_flat_weights_alone():
    logs = [0.0, -40.0, -80.0, -3.0, -1.0, -60.0, -7.0, -20.0]
    weights, beta = tempered(logs, 4.0)
    assert effective_size(weights) >= 4.0 - 1e-6
    assert 0.0 < beta < 1.0
    assert weights.index(max(weights)) == 0  # tempering keeps the order of the likelihoods
    flat, beta = tempered([-1.0, -1.1, -0.9], 2.0)
    assert beta == 1.0 and flat == pytest.approx(normalise([-1.0, -1.1, -0.9]))


def test_the_search_reports_a_tempered_pool():
    defn, params, engine = heuristic_position("detective_eye", 4, 50)
    infoset = build_infoset(defn, params, engine, engine.current_player())
    options = {"beliefs": "heuristic", "belief_worlds": 24, "belief_effective": 0.25}
    hint = make_bot({"name": "ismcts", "options": options}).hint(
        defn, params, infoset, Budget(simulations=60), seed=1
    )
    assert hint.extra["worlds"] == 24
    assert 6.0 - 1e-6 <= hint.extra["effective_worlds"] <= 24.0
    assert hint.iterations == 60


def test_modern_art_weighs_its_worlds_under_simulations_and_not_under_a_time_budget():
    # A time budget that the 30 simulations end long before: the Modern Art pool would be
    # weighed in it, so only the default's rule (TIMED_BELIEFS) leaves it unweighted.
    timed, counted = Budget(simulations=30, milliseconds=5000.0), Budget(simulations=30)
    bot = make_bot({"name": "ismcts", "options": {"belief_worlds": 12}})
    for name, players, steps, weighed_in_time in (
        ("modern_art", 4, 60, False),
        ("detective_eye", 4, 50, True),
    ):
        defn, params, engine = heuristic_position(name, players, steps)
        infoset = build_infoset(defn, params, engine, engine.current_player())
        assert bot.hint(defn, params, infoset, counted, seed=1).extra.get("effective_worlds")
        in_time = bot.hint(defn, params, infoset, timed, seed=1).extra.get("effective_worlds")
        assert (in_time is not None) == weighed_in_time, name
    asked = make_bot({"name": "ismcts", "options": {"belief_worlds": 12, "beliefs": "heuristic"}})
    defn, params, engine = heuristic_position("modern_art", 4, 60)
    infoset = build_infoset(defn, params, engine, engine.current_player())
    assert asked.hint(defn, params, infoset, timed, seed=1).extra.get("effective_worlds")


def small_finger_auction():
    defn = games.definition("finger_auction")
    params = defn.validate_params(
        dict(importlib.import_module("games.finger_auction").SMALL_VARIANT)
    )
    engine = defn.new_engine(params)
    rng = random.Random(4)
    while engine.current_player() == CHANCE:
        engine.apply(engine.sample_chance(rng))
    return defn, params, engine


def test_a_finger_bid_we_did_not_see_is_an_unseen_move_and_ours_is_not():
    defn, params, engine = small_finger_auction()
    first = pool_of(defn, params, engine, 1)
    assert unseen_tail(first.first, first.seat, first.fresh) == 0
    engine.apply(engine.legal_actions()[0])  # seat 0's hidden finger bid
    second = pool_of(defn, params, engine, 1)
    assert second.seat == 1
    assert unseen_tail(second.first, 1, second.fresh) == 1


@pytest.mark.parametrize(
    "name", sorted(d.name for d in games.DEFINITIONS.values() if d.hidden_in_tail) or ["none"]
)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_game_that_hides_only_the_unseen_moves_has_one_world_once_they_are_rewound(name, players):
    """``hidden_in_tail`` lets the search use one world for all: true to the sampler, since
    every world drawn, its unseen moves taken back, is the first one."""
    defn, params, states = decision_states(name, players, 150, {"players": players})
    rewound = varied = 0
    for engine in states:
        worlds = pool_of(defn, params, engine, 1)
        tail = unseen_tail(worlds.first, worlds.seat, worlds.fresh)
        draws = [worlds.sample(random.Random(s)) for s in range(4)]
        varied += len({tuple(w.history) for w in draws}) > 1
        if tail:
            rewound += 1
            cut = len(worlds.first.history) - tail
            assert {tuple(w.history[:cut]) for w in draws} == {tuple(worlds.first.history[:cut])}
        else:
            assert {tuple(w.history) for w in draws} == {tuple(worlds.first.history)}
    assert rewound > 10 and varied > 5  # the hidden moves were there, and drawn differently


def test_one_world_for_all_answers_what_the_weighed_pool_of_that_world_answers(monkeypatch):
    """The shortcut of ``hidden_in_tail`` (no second draw, no second weight) changes no
    answer: the same moves and visits as the pool of 64 draws it replaces."""
    bot = make_bot("ismcts")
    answers = {}
    for flag in (True, False):
        monkeypatch.setattr(type(games.definition("finger_auction")), "hidden_in_tail", flag)
        out = []
        for players in (2, 3):
            defn, params, states = decision_states(
                "finger_auction", 7, 12 * (players - 1), {"players": players}
            )
            for i, engine in enumerate(states):
                infoset = build_infoset(defn, params, engine, engine.current_player())
                hint = bot.hint(defn, params, infoset, Budget(simulations=150), seed=i)
                out.append((hint.action, hint.iterations, repr(hint.policy), hint.value))
        answers[flag] = out
    assert answers[True] == answers[False]


def test_unseen_moves_in_the_tree_keep_budgets_and_answer_per_information_set():
    defn, params, engine = small_finger_auction()
    engine.apply(engine.legal_actions()[-1])
    infoset = build_infoset(defn, params, engine, 1)
    bot = make_bot({"name": "ismcts", "options": {"hidden_moves": "tree"}})
    hint = bot.hint(defn, params, infoset, Budget(simulations=50), seed=3)
    assert hint.iterations == 50
    assert sum(s.visits for s in hint.policy) == 50  # every iteration reaches our decision
    other = replay(defn, params, engine.history[:-1])
    other.apply(other.legal_actions()[0])  # another hidden bid: the same information set
    assert other.history != engine.history
    same = build_infoset(defn, params, other, 1)
    assert json.dumps(same, sort_keys=True) == json.dumps(infoset, sort_keys=True)
    again = bot.hint(defn, params, same, Budget(simulations=50), seed=3)
    assert [(s.action, s.visits) for s in again.policy] == [
        (s.action, s.visits) for s in hint.policy
    ]


def test_searching_unseen_moves_makes_finger_auction_less_exploitable():
    """Exact NashConv on the reduced variant: a fixed model of the hidden bid is exploited."""
    from bots.cfr.tree import build_engine_tree
    from evaluation.exploitability import bot_exploitability

    defn, params, _ = small_finger_auction()
    tree = build_engine_tree(defn, params)
    conv = {}
    for label, hidden in (("sample", "sample"), ("tree", "tree")):
        bot = make_bot(
            {"name": "ismcts", "options": {**ISMCTS_LEGACY.options, "hidden_moves": hidden}}
        )
        report = bot_exploitability("finger_auction", params, bot, Budget(150), 0, tree=tree)
        conv[label] = report["nash_conv"]
    assert conv["tree"] < 0.8 * conv["sample"], conv


def _pool_inputs(seed: int = 1):
    from bots.pool import WorldPool  # the pool on its own, without a search around it

    defn, params, engine = heuristic_position("detective_eye", 4, 50)
    infoset = build_infoset(defn, params, engine, engine.current_player())
    rng = random.Random(seed)
    worlds = Worlds.from_infoset(defn, params, infoset, rng)
    model = HeuristicModel(knowledge_for("detective_eye"))

    def pool(budget: Budget, probability=model.probability):
        drawn = WorldPool(worlds.first, worlds.sample, 32)
        drawn.weigh(
            worlds.fresh, worlds.seat, worlds.started,
            budget, random.Random(seed), probability, 24, 0.2, 0.25,
        )  # fmt: skip
        return drawn.worlds, drawn.weighted, drawn.effective

    return pool, model


def test_a_belief_pool_that_cannot_be_weighed_in_time_keeps_its_worlds_unweighted():
    """When weighing even a few worlds would overrun a third of a time budget, the pool stops
    weighing at once and the worlds drawn are kept for the search, unweighted: the time is
    not spent on weights that are then thrown away."""
    import time

    pool, model = _pool_inputs()

    def slow(engine, player, action):
        time.sleep(0.002)
        return model.probability(engine, player, action)

    worlds, weighted, effective = pool(Budget(milliseconds=30.0), slow)
    assert weighted is None and effective is None
    assert 1 <= len(worlds) < 8
    # With no time limit the same pool is drawn and weighed world for world, however slow
    # the weighing: it draws nothing from the generator.
    full, weights, _ = pool(Budget(simulations=100))
    again, slow_weights, _ = pool(Budget(simulations=100), slow)
    assert len(full) == 24 and weights == slow_weights
    assert [w.history for w in full] == [w.history for w in again]
