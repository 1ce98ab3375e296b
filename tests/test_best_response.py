"""The Bayesian best responder (``evaluation.best_response``) and its use in the lower bound."""

from __future__ import annotations

import importlib
import json
import random

import pyspiel
import pytest
from click.testing import CliRunner

import games
from bots import Budget, make_bot
from bots.cfr.tree import build_engine_tree
from bots.protocol import ActionStat, Bot, Hint, Worlds
from evaluation.best_response import (
    BestResponder,
    GameContext,
    PolicyModel,
    bayes_beliefs,
    make_responder,
    paired_better,
    student_t,
)
from evaluation.cli import main
from evaluation.exploitability import bot_exploitability, lower_bound
from games.core.engine import CHANCE
from games.core.infoset import build_infoset

FA = "finger_auction"
KING, QUEEN, JACK = 2, 1, 0
PASS, BET = 0, 1


def small(name: str) -> dict:
    return dict(importlib.import_module(f"games.{name}").SMALL_VARIANT)


class BetWithKing(Bot):
    """Kuhn poker: bets exactly when holding the King, whatever happened before."""

    name = "bet_with_king"

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        card = worlds.first.history[worlds.seat]  # Kuhn's history starts with the two cards
        action = BET if card == KING else PASS
        return Hint(
            action, [ActionStat(PASS, float(action == PASS)), ActionStat(BET, float(action))]
        )


class FirstAction(Bot):
    """Always the lowest legal action: deliberately exploitable."""

    name = "first_action"

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        legal = worlds.first.legal_actions()
        return Hint(legal[0], [ActionStat(a, float(i == 0)) for i, a in enumerate(legal)])


def kuhn_pool(first_action: int, size: int = 24) -> tuple[pyspiel.State, list]:
    """Seat 1 holds the Jack and has seen seat 0 play ``first_action``; worlds of seat 1."""
    state = pyspiel.load_game("kuhn_poker").new_initial_state()
    for action in (QUEEN, JACK, first_action):  # the true card of seat 0 is irrelevant
        state.apply_action(action)
    worlds = Worlds.from_spiel_state(state, random.Random(0))
    pool = [worlds.first] + [worlds.sample(random.Random(i)) for i in range(size - 1)]
    assert {w.history[0] for w in pool} == {QUEEN, KING}  # both hypotheses are in the pool
    return state, pool


@pytest.mark.parametrize("observed", [BET, PASS])
@pytest.mark.parametrize("epsilon", [0.0, 0.1])
def test_bayes_weights_by_hand_on_kuhn(observed, epsilon):
    """P(seat 0 holds c | its action) under the known policy, with the trembling floor."""
    _, pool = kuhn_pool(observed)
    model = PolicyModel(BetWithKing(), Budget(simulations=1))
    beliefs = bayes_beliefs(GameContext(None, None), pool, 1, model, epsilon)
    # The bot bets with the King only; with a floor its action has probability
    # (1 - eps) * pi + eps / 2 (two legal actions).
    consistent = KING if observed == BET else QUEEN
    factor = {consistent: 1 - epsilon + epsilon / 2, KING + QUEEN - consistent: epsilon / 2}
    raw = [factor[w.history[0]] for w in pool]
    assert beliefs.weights == pytest.approx([r / sum(raw) for r in raw], abs=1e-12)
    mass = sum(
        w for w, world in zip(beliefs.weights, pool, strict=True) if world.history[0] == KING
    )
    k = sum(world.history[0] == KING for world in pool)
    q = len(pool) - k
    want = k * factor[KING] / (k * factor[KING] + q * factor[QUEEN])
    assert mass == pytest.approx(want, abs=1e-12)
    if epsilon == 0.0:
        assert mass == (1.0 if observed == BET else 0.0)
    assert model.queries == 2  # one information set of seat 0 per card, cached


def test_a_known_bluff_free_bot_is_called_only_when_it_checks():
    """Holding the Jack against a bot that bets only with the King: fold to its bet."""
    state, _ = kuhn_pool(BET)
    responder = BestResponder(BetWithKing(), worlds=16, epsilon=0.01)
    hint = responder.hint_for_state(state, Budget(simulations=40), seed=3)
    assert hint.action == PASS  # folding loses 1, calling loses 2 against the King
    values = {s.action: s.value for s in hint.policy}
    assert values[PASS] == pytest.approx(-1.0) and values[BET] < -1.5


def fa_position() -> tuple[games.GameDefinition, dict, dict, dict]:
    """Reduced Finger Auction: seat 1 to bid after seat 0's hidden bid by the heuristic."""
    defn = games.definition(FA)
    params = defn.validate_params(small(FA))
    engine = defn.new_engine(params)
    rng = random.Random(4)
    while engine.current_player() == CHANCE:
        engine.apply(engine.sample_chance(rng))
    opponent = build_infoset(defn, params, engine, 0)
    engine.apply(make_bot("heuristic").hint(defn, params, opponent, Budget(1), 0).action)
    return defn, params, build_infoset(defn, params, engine, 1), opponent


def test_bayes_weights_of_a_hidden_bid_follow_the_bots_policy():
    defn, params, infoset, opponent_infoset = fa_position()
    worlds = Worlds.from_infoset(defn, params, infoset, random.Random(1))
    pool = [worlds.first] + [worlds.sample(random.Random(i)) for i in range(15)]
    model = PolicyModel(make_bot("heuristic"), Budget(simulations=1))
    eps = 0.2
    beliefs = bayes_beliefs(GameContext(defn, params), pool, 1, model, eps)
    step = len(infoset["events"]) - 1  # seat 0's bid: the last step
    bids = [w.history[step] for w in pool]
    assert len(set(bids)) > 1  # the sampler proposes several hidden bids
    # The heuristic is deterministic: its bid gets (1 - eps) + eps / |A|, every other eps / |A|.
    legal = len(opponent_infoset["view"]["legal_actions"])
    hint = make_bot("heuristic").hint(defn, params, opponent_infoset, Budget(1), 0)
    raw = [(1 - eps) * (b == hint.action) + eps / legal for b in bids]
    assert beliefs.weights == pytest.approx([r / sum(raw) for r in raw], abs=1e-12)
    assert beliefs.steps_weighed == 1  # the chance deal is not a decision; nothing else hidden


def test_the_hint_is_a_pure_function_of_the_seed_and_the_cache_changes_nothing():
    defn = games.definition("detective_eye")
    params = defn.validate_params({})
    engine = defn.new_engine(params)
    rng = random.Random(2)
    heuristic = make_bot("heuristic")
    decisions = 0
    while True:  # a position a few decisions in, with a choice for seat 0
        player = engine.current_player()
        if player == CHANCE:
            engine.apply(engine.sample_chance(rng))
            continue
        infoset = build_infoset(defn, params, engine, player)
        if player == 0 and len(engine.legal_actions()) > 1 and decisions >= 6:
            break
        engine.apply(heuristic.hint(defn, params, infoset, Budget(1), decisions).action)
        decisions += 1
    options = {"worlds": 6, "model_depth": 1}
    budget = Budget(simulations=24)

    def answer(responder: BestResponder, seed: int) -> tuple:
        hint = responder.hint(defn, params, infoset, budget, seed)
        stats = {k: v for k, v in hint.extra.items() if not k.endswith("queries")}
        return hint.action, [(s.action, s.value, s.visits) for s in hint.policy], stats

    warm = BestResponder("heuristic", **options)
    a = answer(warm, 7)
    assert a == answer(BestResponder("heuristic", **options), 7)
    assert a == answer(warm, 7)  # cached model answers: the same hint
    assert warm.model.queries > 0
    assert a[0] in engine.legal_actions()
    assert a[2]["worlds"] == 6 and 1.0 <= a[2]["effective_worlds"] <= 6.0


def test_time_budget_stops_the_rollouts():
    defn, params, infoset, _ = fa_position()
    hint = BestResponder("heuristic", worlds=4).hint(
        defn, params, infoset, Budget(milliseconds=30), 1
    )
    assert hint.stopped_by == "time"
    assert hint.iterations >= len(hint.policy)  # at least one rollout per action


def test_paired_switch_rule():
    assert not paired_better([1.0, 1.0], [1.0, 1.0], 0.0)  # a tie keeps the anchor
    assert paired_better([1.0, 0.0], [0.0, 0.0], 0.0)
    assert not paired_better([1.0, -1.0] * 4, [0.0] * 8, 1.0)
    assert paired_better([2.0, 2.0, 2.0, 0.0] * 3, [0.0] * 12, 2.0)
    assert not paired_better([2.0, 2.0, 2.0, 0.0], [0.0] * 4, 2.0)  # t with 3 df: not enough
    assert paired_better([2.0, 2.0, 2.0], [0.0] * 3, 2.0)  # no variance: any gain counts
    assert not paired_better([2.0, 2.0], [0.0] * 2, 2.0)  # too few pairs to overrule
    assert student_t(1.959964, 3) == pytest.approx(3.182446, rel=0.01)
    assert student_t(1.959964, 30) == pytest.approx(2.042272, rel=0.001)


@pytest.fixture(scope="module")
def fa_tree():
    return build_engine_tree(games.definition(FA), small(FA))


@pytest.mark.parametrize("evaluated", ["first_action", "heuristic"])
def test_lower_bound_is_positive_and_below_the_exact_gain(evaluated, fa_tree):
    """Reduced Finger Auction, where the exact per-seat gains are known: the Bayesian
    responder's lower bound is clearly positive against exploitable bots, and does not exceed
    the exact best-response gain of any seat beyond its confidence interval."""
    bot = FirstAction() if evaluated == "first_action" else make_bot("heuristic")
    exact = bot_exploitability(FA, small(FA), bot, Budget(1), tree=fa_tree)
    responder = BestResponder(bot, worlds=8, model_depth=-1)
    report = lower_bound(FA, small(FA), bot, Budget(1), responder, Budget(48), 24, seed=5)
    assert report["responder"]["name"] == "best_response"
    assert "Bayesian best response" in report["responder_label"]
    assert report["ci95"][0] > 0.2  # clearly positive
    assert report["ci95"][0] <= exact["nash_conv"] + 1e-9
    for seat, gain in enumerate(report["gains"]):
        assert gain["ci95"][0] <= exact["gains"][seat] + 1e-9, (seat, gain, exact["gains"])


def test_make_responder_refuses_bad_options():
    with pytest.raises(ValueError, match="option 'worlds' must be >= 1"):
        make_responder("heuristic", {"worlds": 0})
    with pytest.raises(ValueError, match="'bot'"):
        make_responder("heuristic", {"bot": "random"})
    with pytest.raises(ValueError, match="unknown bot"):
        make_responder("nobody")


def run_cli(*args: str):
    return CliRunner().invoke(main, ["exploitability", "--game", FA, "--reduced", *args])


def test_cli_lower_bound_with_the_best_response_responder():
    result = run_cli(
        "--bot",
        "heuristic",
        "--lower-bound",
        "--responder",
        "best-response",
        "--model-simulations",
        "3",
        "--responder-simulations",
        "12",
        "--deals",
        "2",
        "--json",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["kind"] == "lower_bound"
    assert report["responder"]["name"] == "best_response"
    assert report["responder"]["options"]["model_simulations"] == 3
    assert report["responder"]["options"]["bot"]["name"] == "heuristic"
    assert "best_response" in report["label"]
    text = run_cli(
        "--bot", "random", "--lower-bound", "--responder", "best-response", "--deals", "1"
    )
    assert text.exit_code == 0, text.output
    assert "responder: Bayesian best response" in text.output and "LOWER BOUND" in text.output


def test_cli_other_responders_are_labelled_as_not_modelling_the_bot():
    result = run_cli(
        "--bot", "random", "--lower-bound", "--responder", "heuristic", "--deals", "1", "--json"
    )
    assert result.exit_code == 0, result.output
    assert "without a model" in json.loads(result.output)["responder_label"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lower-bound", "--responder", "oos", "--model-simulations", "5"], "best-response"),
        (["--model-simulations", "5"], "only with --lower-bound"),
        (["--lower-bound", "--responder", "best-response", "--model-simulations", "0"], ">= 1"),
        (
            [
                "--lower-bound",
                "--responder",
                '{"name": "best_response", "options": {"epsilon": 2}}',
            ],
            "option 'epsilon' must be <= 1",
        ),
        (
            [
                "--lower-bound",
                "--responder",
                '{"name": "best_response", "options": {"model_simulations": 4}}',
                "--model-simulations",
                "5",
            ],
            "given twice",
        ),
        (["--lower-bound", "--responder", "nobody"], "unknown bot"),
    ],
)
def test_cli_names_bad_responder_options(args, message):
    result = run_cli("--bot", "heuristic", *args)
    assert result.exit_code != 0
    assert message in result.output, result.output


def test_an_ismcts_anchor_is_played_unless_the_rollouts_beat_it():
    defn, params, infoset, _ = fa_position()
    responder = BestResponder(
        "heuristic", worlds=4, anchor="ismcts", anchor_simulations=40, switch_z=100
    )
    hint = responder.hint(defn, params, infoset, Budget(simulations=16), 2)
    assert hint.extra["anchor"] == hint.action
    assert hint.extra["switched_from_anchor"] in (False, None)
    assert "ismcts at 40 simulations" in responder.label()
