"""The analysis of a position (``bots.analysis``): units and intervals, the played move
included, determinism, Detective Eye's draft told apart, the hint's move agreeing with it."""

from __future__ import annotations

import random

import pytest

import bots
import games
from bots.analysis import (
    MIN_ROUNDS,
    VALUE_UNITS,
    WIN_CHANCE_EVALUATIONS,
    analyse,
    cut_share,
)
from bots.heuristics import knowledge_for
from games.core.definition import InvalidInfoset
from games.core.infoset import build_infoset
from games.detective_eye.engine import DRAFT
from tests.support import GAMES, decision_states, heuristic_position

BUDGET = bots.Budget(simulations=100)


def positions(name: str, count: int, seed: int = 3):
    defn, params, states = decision_states(name, seed, count, {})
    return [(defn, params, build_infoset(defn, params, e, e.current_player())) for e in states]


@pytest.mark.parametrize("name", GAMES)
def test_units_intervals_and_the_played_move(name):
    defn, params, infoset = positions(name, 2)[1]
    world = games.sample_engine(defn, params, infoset, random.Random(0))
    legal = world.legal_actions()
    played = legal[-1]
    a = analyse(defn, params, infoset, bots.make_bot("ismcts"), BUDGET, seed=1, include=[played])
    assert a.move(played) is not None, "the move named in include is analysed"
    assert a.moves[0].action == a.best and a.value == a.moves[0].value
    for m in a.moves:
        assert 0.0 <= m.interval[0] <= m.value <= m.interval[1] <= 1.0
        assert m.loss >= 0.0 and m.loss_interval[0] <= m.loss_interval[1]
        assert m.within_noise == (m.loss_interval[0] <= 0.0)
        assert m.action in legal
    kept = [m for m in a.moves if m.action in (a.best, played)]
    assert all(m.samples >= MIN_ROUNDS for m in kept)
    best = a.move(a.best)
    assert best.loss == 0.0 and best.loss_interval == (0.0, 0.0) and best.within_noise
    out = a.to_json(defn, world)
    assert out["units"]["value"] == VALUE_UNITS
    assert ("points" in out["units"]) == (name == "modern_art")
    assert out["best"]["id"] == a.best and len(out["moves"]) == len(a.moves)
    assert all(isinstance(s, str) for m in out["moves"] for s in m["continuation"])


def test_same_seed_same_analysis():
    defn, params, infoset = positions("gallery_rush", 2)[1]
    bot = bots.make_bot("ismcts")
    first = analyse(defn, params, infoset, bot, BUDGET, seed=5)
    again = analyse(defn, params, infoset, bot, BUDGET, seed=5)
    assert first.moves == again.moves and first.best == again.best


def test_an_illegal_included_move_is_refused_by_name():
    defn, params, infoset = positions("finger_auction", 1)[0]
    with pytest.raises(InvalidInfoset, match="not legal"):
        analyse(defn, params, infoset, bots.make_bot("ismcts"), BUDGET, seed=0, include=[10**6])


def test_bots_without_a_search_are_analysed_by_the_default_search():
    defn, params, infoset = positions("gallery_rush", 1)[0]
    a = analyse(defn, params, infoset, bots.make_bot("heuristic"), BUDGET, seed=0)
    assert a.bot == "ismcts"


def draft_position(players: int, seed: int):
    defn = games.definition("detective_eye")
    params = defn.validate_params({"players": players})
    knowledge = knowledge_for("detective_eye")
    rng = random.Random(seed)
    engine = defn.new_engine(params)
    while not (engine.current_player() >= 0 and engine.phase == DRAFT):
        player = engine.current_player()
        engine.apply(engine.sample_chance(rng) if player < 0 else knowledge.choose(engine, rng))
    return defn, params, engine


@pytest.mark.parametrize(("players", "seed"), [(3, 0), (4, 1)])
def test_detective_eye_draft_decisions_are_told_apart(players, seed):
    # Before the analysis mode, every draft pass scored the same (0.5 in the review: the
    # rollouts' cut-off evaluation saw no difference in the draft).
    defn, params, engine = draft_position(players, seed)
    infoset = build_infoset(defn, params, engine, engine.current_player())
    everything = engine.legal_actions()
    a = analyse(
        defn,
        params,
        infoset,
        bots.make_bot("ismcts"),
        bots.Budget(simulations=200),
        seed=2,
        include=everything,
    )
    values = {m.action: m.value for m in a.moves}
    assert len(set(values.values())) > 1, values


@pytest.mark.parametrize("name", GAMES)
def test_the_hints_move_is_the_best_or_within_noise(name):
    # Target 3 of issue 38 on a few positions (the 200-position run is marked slow below).
    bot = bots.make_bot("ismcts")
    for i, (defn, params, infoset) in enumerate(positions(name, 4, seed=11)):
        hint = bot.hint(defn, params, infoset, BUDGET, seed=i)
        a = analyse(defn, params, infoset, bot, BUDGET, seed=i)
        assert a.search_move == hint.action
        mine = a.move(hint.action)
        assert mine is not None and (a.best == hint.action or mine.within_noise), (i, a)


def test_a_profiled_hints_analysis_runs_the_hints_own_search():
    # A hint with opponent profiles (issue 45) searches against the profiled model; its
    # analysis must run that search, not the unprofiled one, or the two contradict each other.
    spec = {"name": "ismcts", "options": {"opponents": {"1": {"bid_scale": 1.6}}}}
    bot = bots.make_bot(spec)
    plain = bots.make_bot("ismcts")
    differs = 0
    for i, (defn, params, infoset) in enumerate(positions("finger_auction", 6, seed=5)):
        hint = bot.hint(defn, params, infoset, BUDGET, seed=i)
        a = analyse(defn, params, infoset, bot, BUDGET, seed=i)
        assert a.search_move == hint.action
        unprofiled = analyse(defn, params, infoset, plain, BUDGET, seed=i)
        differs += unprofiled.moves != a.moves
    assert differs, "the profile changed no analysis: the test would not see it ignored"


@pytest.mark.parametrize("name", sorted(WIN_CHANCE_EVALUATIONS))
def test_a_cut_rollout_scores_the_win_chance_its_evaluation_states(name):
    # The games named there evaluate by race_returns: the win chances it stands for are a
    # distribution over the seats, and the leader of a close race is not a sure winner.
    engine = heuristic_position(name, 3, 16)[2]
    values = knowledge_for(name).evaluate(engine)
    chances = [cut_share(values, s) for s in range(3)]
    assert sum(chances) == pytest.approx(1.0)
    assert max(chances) < 1.0 and all(c > 0.0 for c in chances)


def test_a_rival_below_a_thin_subtree_does_not_overturn_the_search():
    # Detective Eye, 200 simulations: the rounds put move 7 (47 visits) 0.27 [0.19, 0.36]
    # ahead of the search's move 0 (93 visits), where 2,000 rounds gave 0.03 and three
    # 4,000-simulation searches put 0 first twice and 7 never. The fresh rounds of
    # ``_Rounds.confirm``, after 7's subtree caught up, do not repeat the lead.
    # (The search this case was found with: the other seats searched freely, named so that the
    # case stays this search's; `opponent_moves: restricted` plays 7 here.)
    free = bots.make_bot({"name": "ismcts", "options": {"opponent_moves": "search"}})
    defn, params, infoset = positions("detective_eye", 16, seed=23)[15]
    a = analyse(defn, params, infoset, free, bots.Budget(simulations=200), 15)
    assert a.search_move == 0 and a.best == 0
    # The refuted rival's row reports the fresh rounds (before: -0.36 to -0.19, wholly below 0).
    assert a.move(7).loss_interval[0] <= 0.0 <= a.move(7).loss_interval[1]


# Target 3 of issue 38 on 200 random positions per game, at 200 simulations and at the
# service's default budget (500 ms, ``server.config``): the hint's move is the analysis's best
# or within its interval (the analysis names the hint's move, as a review names the played
# one). The rule: an overturn must pass a Bonferroni-corrected paired test and then a fresh
# one-sided 2.5% test (``_Rounds.confirm``), so by chance well under 2.5% of positions
# disagree; the rest are positions where the search had not settled at its budget (more
# search moves off its move too). Measured figures: docs/evaluation.md, "Analysis and review".
AGREEMENT = 0.95
SERVED = bots.Budget(milliseconds=500.0)


def agreement_rate(name: str, count: int, budget: bots.Budget) -> float:
    bot = bots.make_bot("ismcts")
    agree = 0
    cases = positions(name, count, seed=23)
    for i, (defn, params, infoset) in enumerate(cases):
        hint = bot.hint(defn, params, infoset, budget, seed=i)
        a = analyse(defn, params, infoset, bot, budget, seed=i, include=[hint.action])
        mine = a.move(hint.action)
        agree += mine is not None and (a.best == hint.action or mine.within_noise)
    return agree / len(cases)


@pytest.mark.slow
@pytest.mark.parametrize("budget", [bots.Budget(simulations=200), SERVED], ids=["200", "500ms"])
@pytest.mark.parametrize("name", GAMES)
def test_hint_agreement_over_200_positions(name, budget):
    assert agreement_rate(name, 200, budget) >= AGREEMENT


def test_the_hint_carries_the_searchs_per_move_table():
    defn, params, infoset = positions("finger_auction", 2)[1]
    hint = bots.make_bot("ismcts").hint(defn, params, infoset, BUDGET, seed=0)
    assert hint.moves is not None
    mine = next(m for m in hint.moves if m.action == hint.action)
    assert mine.within_noise and mine.visits == max(m.visits for m in hint.moves)
    for m in hint.moves:
        assert 0.0 <= m.interval[0] <= m.value <= m.interval[1] <= 1.0
        assert m.stderr >= 0.0
    world = games.sample_engine(defn, params, infoset, random.Random(0))
    table = hint.to_json(defn, world)["analysis"]
    assert table["moves"][0]["id"] == hint.action
    assert table["value"] == mine.value and table["interval"] == list(mine.interval)
    assert {"id", "string", "value", "interval", "visits", "within_noise"} <= set(table["moves"][0])


class _Stub:
    """Rounds whose confirmation always agrees: ``_suggested``'s own rule alone."""

    def __init__(self, shares: dict[int, list[float]]) -> None:
        from bots.analysis import _Arm

        self.arms = {}
        for action, values in shares.items():
            arm = self.arms[action] = _Arm(action)
            arm.shares = dict(enumerate(values))
        self.count = len(next(iter(shares.values())))

    def confirm(self, search_move, leader, deadline):
        return True


def test_a_small_sure_lead_does_not_overturn_but_a_material_one_does():
    # 4,000 rounds: a rival ahead by 0.01 on every 100th round passes the bare paired test
    # (the 500 ms budget's many rounds), but is within OVERTURN_MARGIN; ahead by 0.1, it wins.
    from bots.analysis import OVERTURN_MARGIN, _suggested

    n = 4000
    search = [0.5] * n
    slight = [0.5 + (1.0 if k % 100 == 0 else 0.0) for k in range(n)]
    assert 0 < sum(slight) / n - 0.5 < OVERTURN_MARGIN
    assert _suggested(_Stub({0: search, 1: slight}), 0, float("inf")) == 0
    material = [0.5 + (1.0 if k % 10 == 0 else 0.0) for k in range(n)]
    assert _suggested(_Stub({0: search, 1: material}), 0, float("inf")) == 1


def test_a_reviews_rounds_stop_once_the_played_moves_loss_is_decided_and_keep_the_flag():
    # Target 4 of issue 38: a review's rounds (``per_kept``) stop once the played move's loss is
    # decided (``SETTLE_Z``); the same rounds without the stop (``simulations``) play on. The
    # flag stays: a bad move's interval lies above 0 either way.
    defn, params, infoset = positions("detective_eye", 12, seed=3)[5]
    world = games.sample_engine(defn, params, infoset, random.Random(0))
    played = world.legal_actions()[-1]
    bot = bots.make_bot("ismcts")
    early = analyse(defn, params, infoset, bot, BUDGET, seed=1, include=[played], per_kept=100)
    full = analyse(defn, params, infoset, bot, BUDGET, seed=1, include=[played], simulations=200)
    assert early.search_move == full.search_move != played
    mine, theirs = early.move(played), full.move(played)
    assert MIN_ROUNDS <= mine.samples < theirs.samples
    assert mine.loss_interval[0] > 0.0 and theirs.loss_interval[0] > 0.0


def test_rounds_that_scored_alike_settle_no_loss_only_after_more_rounds():
    # Sixteen rounds in which both moves scored alike have a sample variance of 0; the early
    # stop once read that as a loss decided at 0 and stopped (Modern Art: a blunder of the set
    # whose 100 rounds find 0.28 was reported 0.000 [0.000, 0.000] after 16). The stop's
    # variance now carries a pseudo-observation (``SETTLE_PRIOR_VAR``).
    from bots.analysis import SETTLE_EVERY, _Rounds

    alike = _Stub({0: [0.0] * MIN_ROUNDS, 1: [0.0] * MIN_ROUNDS})
    assert not _Rounds.settled(alike, [0, 1], 0)
    longer = 5 * SETTLE_EVERY
    assert _Rounds.settled(_Stub({0: [0.0] * longer, 1: [0.0] * longer}), [0, 1], 0)
    # A loss that shows in every round is still decided at once.
    assert _Rounds.settled(_Stub({0: [1.0] * MIN_ROUNDS, 1: [0.0] * MIN_ROUNDS}), [0, 1], 0)


def test_rollout_rounds_value_the_kept_moves_without_growing_the_search_tree():
    # The review's rounds (``ROLLOUT_ROUNDS``): each kept move rolls out right after it is
    # applied, so the search's root keeps its visits; the tree rounds grow it.
    from bots.analysis import ROLLOUT_ROUNDS

    defn, params, infoset = positions("gallery_rush", 6, seed=2)[4]
    bot = bots.make_bot("ismcts")
    world = games.sample_engine(defn, params, infoset, random.Random(0))
    plain = analyse(defn, params, infoset, bot, BUDGET, seed=3, top=0)
    played = next(a for a in world.legal_actions() if a != plain.search_move)
    tree = analyse(defn, params, infoset, bot, BUDGET, seed=3, include=[played], top=0)
    bare = analyse(
        defn, params, infoset, bot, BUDGET, 3, include=[played], top=0, rounds=ROLLOUT_ROUNDS
    )
    assert {m.action for m in bare.moves} == {plain.search_move, played}
    visits = sum(m.visits for m in bare.moves)
    assert visits < sum(m.visits for m in tree.moves)
    assert bare.move(played).samples >= MIN_ROUNDS
    assert "bare rollouts" in bare.rollout and "below the tree" in tree.rollout
    with pytest.raises(ValueError, match="rounds"):
        analyse(defn, params, infoset, bot, BUDGET, 3, rounds="bogus")
