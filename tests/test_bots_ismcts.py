"""ISMCTS: legal moves, determinism, budgets, information sets only, and OpenSpiel's poker games.

Kuhn and Leduc poker run through OpenSpiel's own ``resample_from_infostate`` (the same search
code on ``SpielEngine``), as a sanity check against games whose right answers are known.
"""

from __future__ import annotations

import gc
import random
import time

import pyspiel
import pytest

import games
from bots import Budget, make_bot, search_clock
from bots.heuristics import knowledge_for
from bots.ismcts import FINAL_POLICIES, SearchResult, final_weights, hint_from_result
from evaluation.baselines import ISMCTS_LEGACY
from games.core.infoset import build_infoset
from tests.support import GAMES, decision_states, heuristic_position

KUHN_PASS, KUHN_BET = 0, 1
JACK, KING = 0, 2


@pytest.mark.parametrize("name", GAMES)
def test_moves_are_legal_and_the_policy_comes_from_visits(name):
    defn, params, states = decision_states(name, seed=11, count=6)
    bot = make_bot({"name": "ismcts", "options": {"final_policy": "visits"}})
    knowledge = knowledge_for(name)
    for i, engine in enumerate(states):
        seat = engine.current_player()
        infoset = build_infoset(defn, params, engine, seat)
        hint = bot.hint(defn, params, infoset, Budget(simulations=40), seed=i)
        legal = engine.legal_actions()
        assert hint.action in legal
        considered = knowledge.candidates(engine, legal)
        assert {s.action for s in hint.policy} <= set(considered)
        if hint.stopped_by == "single_action":
            continue
        assert hint.iterations == 40 and hint.stopped_by == "simulations"
        visits = {s.action: s.visits for s in hint.policy}
        assert sum(visits.values()) == 40
        assert visits[hint.action] == max(visits.values())
        for s in hint.policy:
            assert s.probability == pytest.approx(s.visits / 40)


@pytest.mark.parametrize("name", GAMES)
def test_the_reported_policy_never_changes_the_move(name):
    """Every ``final_policy`` reports on the same search: the same move, visits and values for
    the same seed; the policy is a distribution over the considered moves, with positive
    weight on the move played and none on a move the search never tried."""
    defn, params, states = decision_states(name, seed=21, count=4)
    rules = {
        r: make_bot({"name": "ismcts", "options": {"final_policy": r}}) for r in FINAL_POLICIES
    }
    for i, engine in enumerate(states):
        infoset = build_infoset(defn, params, engine, engine.current_player())
        hints = {
            r: bot.hint(defn, params, infoset, Budget(simulations=60), seed=i)
            for r, bot in rules.items()
        }
        played = hints["visits"]
        for rule, hint in hints.items():
            assert hint.action == played.action, rule
            seen = [(s.action, s.visits, s.value) for s in hint.policy]
            assert seen == [(s.action, s.visits, s.value) for s in played.policy], rule
            probs = [s.probability for s in hint.policy]
            assert {s.action for s in hint.policy} <= set(engine.legal_actions())
            assert min(probs) >= 0.0 and sum(probs) == pytest.approx(1.0)
            assert sum(s.probability for s in hint.policy if s.action == hint.action) > 0.0
            assert all(s.probability == 0.0 for s in hint.policy if s.visits == 0), rule


def _root(counts, means, greedy=None, low=-1.0, high=1.0) -> SearchResult:
    return SearchResult(
        actions=[10 + i for i in range(len(counts))],
        counts=counts,
        means=means,
        iterations=sum(counts),
        elapsed_ms=1.0,
        stopped_by="simulations",
        worlds=1,
        nodes=1,
        low=low,
        high=high,
        greedy=greedy,
    )


def test_significant_drops_only_the_moves_the_statistics_rule_out():
    # 50 visits at -0.5 against 400 at 0.5 (returns in [-1, 1]): 7.7 standard errors below
    # the played move; 100 at 0.45 is 0.5 standard errors below, kept.
    root = _root([400, 100, 50], [0.5, 0.45, -0.5])
    assert final_weights(root, 0, "significant") == [400.0, 100.0, 0.0]
    hint = hint_from_result(root, "significant")
    assert hint.action == 10
    assert [s.probability for s in hint.policy] == pytest.approx([0.8, 0.2, 0.0])
    assert [s.visits for s in hint.policy] == [400, 100, 50]  # still reported
    # The p-value weights: 0.5 standard errors below keeps most of its visits, 7.7 none.
    weighted = final_weights(root, 0, "p_value")
    assert weighted[0] == 400.0 and 50.0 < weighted[1] < 70.0 and weighted[2] < 1e-9
    # Returns that never spread carry no evidence: the visits.
    flat = _root([400, 100, 50], [0.0, 0.0, 0.0], low=0.0, high=0.0)
    assert final_weights(flat, 0, "significant") == [400.0, 100.0, 50.0]
    assert final_weights(root, 0, "visits") == [400.0, 100.0, 50.0]


def test_greedy_counts_the_exploitation_samples_and_falls_back_to_visits():
    root = _root([400, 100, 50], [0.5, 0.45, -0.5], greedy=[300, 40, 0])
    assert final_weights(root, 0, "greedy") == [300.0, 40.0, 0.0]
    never = _root([400, 100, 50], [0.5, 0.45, -0.5], greedy=[0, 40, 0])
    assert final_weights(never, 0, "greedy") == [400.0, 100.0, 50.0]


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_hint_and_nothing_hidden_is_read(name):
    """Two different worlds with the same information set get the same hint for one seed."""
    defn, params, states = decision_states(name, seed=12, count=8)
    game = pyspiel.load_game(name, params)
    bot = make_bot({"name": "ismcts", "options": {"worlds": 4}})
    for i, engine in enumerate(states[-3:]):
        seat = engine.current_player()
        infoset = build_infoset(defn, params, engine, seat)
        a, b = (games.sample_state(game, infoset, seed) for seed in (1, 2))
        first = bot.hint_for_state(a, Budget(simulations=30), seed=i)
        second = bot.hint_for_state(b, Budget(simulations=30), seed=i)
        again = bot.hint(defn, params, infoset, Budget(simulations=30), seed=i)
        for other in (second, again):
            assert other.action == first.action
            assert other.policy == first.policy
            assert other.value == first.value


def test_a_search_leaves_nothing_frozen_from_the_garbage_collector():
    """The search loop freezes the objects alive before it (its full collections skip them)
    and must hand them back to the collector afterwards."""
    defn, params, states = decision_states("gallery_rush", seed=3, count=2, params={"players": 3})
    engine = states[-1]
    infoset = build_infoset(defn, params, engine, engine.current_player())
    make_bot({"name": "ismcts"}).hint(defn, params, infoset, Budget(simulations=50), seed=0)
    assert gc.get_freeze_count() == 0


def test_a_time_budget_is_respected(monkeypatch):
    from bots.protocol import Clock

    defn, params, states = decision_states("finger_auction", seed=13, count=5)
    engine = next(e for e in states if len(e.legal_actions()) > 1)
    infoset = build_infoset(defn, params, engine, engine.current_player())
    bot = make_bot("ismcts")
    # On a clock that moves 1 ms per simulation (``Clock.tick``) and not otherwise, a 60 ms
    # budget is 60 simulations on any machine: the search stops at the deadline, not one
    # simulation later, and reports the time it took.
    with monkeypatch.context() as patched:
        ticks = [0]
        # Every search deadline reads ``bots.search_clock``'s clock in force.
        patched.setattr(search_clock, "_now", lambda: ticks[0] / 1000.0)
        tick = Clock.tick

        def ticking(self) -> None:
            tick(self)
            ticks[0] += 1

        patched.setattr(Clock, "tick", ticking)
        timed = bot.hint(defn, params, infoset, Budget(milliseconds=60), seed=0)
    assert timed.stopped_by == "time" and timed.iterations == 60
    assert timed.elapsed_ms == pytest.approx(60.0)
    # On the real clock, the search takes its time and stops by it; the bound on the wall
    # time is only a guard against a search that ignores the deadline (it would not stop).
    started = time.perf_counter()
    hint = bot.hint(defn, params, infoset, Budget(milliseconds=60), seed=0)
    wall = (time.perf_counter() - started) * 1000
    assert hint.stopped_by == "time" and hint.elapsed_ms >= 60 - 1e-6 and wall < 60 + 10_000
    both = bot.hint(defn, params, infoset, Budget(simulations=5, milliseconds=10_000), seed=0)
    assert both.iterations == 5 and both.stopped_by == "simulations"


def test_rollout_options_need_a_heuristic_only_where_there_is_none():
    game = pyspiel.load_game("kuhn_poker")
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(ValueError, match="has no heuristic"):
        make_bot({"name": "ismcts", "options": {"rollout": "heuristic"}}).hint_for_state(
            state, Budget(simulations=5), seed=0
        )
    defn, params, states = decision_states("modern_art", seed=14, count=3)
    engine = states[-1]
    infoset = build_infoset(defn, params, engine, engine.current_player())
    for options in ({"rollout": "random", "rollout_depth": 5}, {"rollout": "heuristic"}):
        hint = make_bot({"name": "ismcts", "options": options}).hint(
            defn, params, infoset, Budget(simulations=10), seed=1
        )
        assert hint.action in engine.legal_actions()


def _kuhn_after(cards: tuple[int, int], actions: tuple[int, ...]) -> pyspiel.State:
    state = pyspiel.load_game("kuhn_poker").new_initial_state()
    for a in (*cards, *actions):
        state.apply_action(a)
    return state


def test_kuhn_second_player_calls_with_the_king_and_folds_the_jack():
    bot = make_bot("ismcts")
    budget = Budget(simulations=400)
    king = bot.hint_for_state(_kuhn_after((JACK, KING), (KUHN_BET,)), budget, seed=1)
    jack = bot.hint_for_state(_kuhn_after((KING, JACK), (KUHN_BET,)), budget, seed=1)
    assert king.action == KUHN_BET and king.value > 0.5
    assert jack.action == KUHN_PASS and jack.value == pytest.approx(-1.0)
    # The hidden card is resampled: the Jack's view must not depend on the bettor's real card.
    other = bot.hint_for_state(_kuhn_after((1, JACK), (KUHN_BET,)), budget, seed=1)
    assert other.policy == jack.policy


@pytest.mark.parametrize(
    ("name", "games_played", "floor"), [("kuhn_poker", 60, 0.2), ("leduc_poker", 16, 0.5)]
)
def test_ismcts_beats_random_at_openspiel_poker(name, games_played, floor):
    game = pyspiel.load_game(name)
    ours = make_bot("ismcts")
    total = 0.0
    rng = random.Random(5)
    for g in range(games_played):
        seat = g % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            elif state.current_player() == seat:
                hint = ours.hint_for_state(state, Budget(simulations=150), seed=g)
                state.apply_action(hint.action)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        total += state.returns()[seat]
    assert total / games_played > floor


def test_games_declared_public_history_have_one_world_per_information_set():
    for name in GAMES:
        knowledge = knowledge_for(name)
        if not games.definition(name).public_history:
            continue
        defn, params, states = decision_states(name, seed=15, count=5)
        for engine in states:
            infoset = build_infoset(defn, params, engine, engine.current_player())
            worlds = {
                tuple(games.sample_engine(defn, params, infoset, random.Random(s)).history)
                for s in range(4)
            }
            assert worlds == {tuple(engine.history)}
        # The search itself keeps a pool of one world (the last state with a real choice).
        chosen = [e for e in states if len(knowledge.candidates(e, e.legal_actions())) > 1]
        assert chosen, f"{name}: no decision state with a choice to search"
        engine = chosen[-1]
        infoset = build_infoset(defn, params, engine, engine.current_player())
        hint = make_bot("ismcts").hint(defn, params, infoset, Budget(simulations=20), seed=0)
        assert hint.stopped_by == "simulations"
        assert hint.extra["worlds"] == 1


def test_the_default_cut_off_is_per_game_and_legacy_plays_to_the_end():
    from bots.ismcts import SEARCH_CUTOFFS, resolve_rollout

    de, ma = knowledge_for("detective_eye"), knowledge_for("modern_art")
    default = make_bot("ismcts").config["rollout_depth"]
    assert resolve_rollout("auto", default, de) == ("heuristic", SEARCH_CUTOFFS["detective_eye"])
    assert resolve_rollout("auto", default, ma) == ("heuristic", 40)  # the game's own cut-off
    # The ISMCTS of a322b0d played Detective Eye rollouts to the end.
    assert resolve_rollout("auto", ISMCTS_LEGACY.options["rollout_depth"], de) == ("heuristic", -1)
    assert resolve_rollout("auto", default, None) == ("random", -1)


def test_the_default_prior_is_per_game_and_an_explicit_weight_wins():
    from bots.ismcts import SEARCH_PRIORS

    defn, params, infoset = _first_placement_of_four_player_detective_eye()
    budget = Budget(simulations=60)
    default = make_bot("ismcts").hint(defn, params, infoset, budget, seed=3)
    weight = SEARCH_PRIORS["detective_eye"]
    explicit = make_bot({"name": "ismcts", "options": {"prior_weight": weight}})
    same = explicit.hint(defn, params, infoset, budget, seed=3)
    assert [(s.action, s.visits) for s in default.policy] == [
        (s.action, s.visits) for s in same.policy
    ]
    # Per game and kind of budget, where measured; elsewhere the search has no prior.
    from bots.ismcts import TIMED_PRIORS, resolve_prior

    timed, counted = Budget(simulations=30, milliseconds=500.0), Budget(simulations=30)
    # a322b0d had no prior, not even where the default has one.
    assert resolve_prior(ISMCTS_LEGACY.options["prior_weight"], "finger_auction", timed) == 0.0
    assert resolve_prior(-1, "finger_auction") == SEARCH_PRIORS["finger_auction"] > 0
    assert resolve_prior(-1, "finger_auction", timed) == SEARCH_PRIORS["finger_auction"]
    assert resolve_prior(-1, "modern_art", timed) == TIMED_PRIORS["modern_art"] > 0
    assert resolve_prior(-1, "modern_art", counted) == 0.0  # not measured at a number
    assert resolve_prior(-1, "modern_art") == 0.0  # no budget: a review
    assert resolve_prior(-1, "kuhn_poker", timed) == 0.0
    assert resolve_prior(0.25, "modern_art", counted) == 0.25


@pytest.mark.parametrize("players", [3, 4, 5])
def test_modern_art_searches_the_heuristics_move_first_under_a_time_budget(players):
    # With tens of simulations a move (100 ms), what a node tries first is most of what the
    # search knows: by default that is the heuristic's bid or offer, not a random candidate.
    # A time limit that the one simulation ends long before: only the default's rule for
    # time budgets (TIMED_PRIORS) brings the prior in.
    knowledge = knowledge_for("modern_art")
    one = Budget(simulations=1, milliseconds=5000.0)
    default, unbiased = (
        make_bot("ismcts"),
        make_bot({"name": "ismcts", "options": {"prior_weight": 0}}),
    )
    random_first = 0
    for steps in (20, 45, 70, 95, 120):
        defn, params, engine = heuristic_position("modern_art", players, steps)
        infoset = build_infoset(defn, params, engine, engine.current_player())
        best = knowledge.best_rated(engine)
        assert default.hint(defn, params, infoset, one, seed=steps).action in best, steps
        random_first += unbiased.hint(defn, params, infoset, one, seed=steps).action not in best
        # At a number of simulations (not measured with the prior) the default has none.
        counted = [
            bot.hint(defn, params, infoset, Budget(simulations=1), seed=steps).action
            for bot in (default, unbiased)
        ]
        assert counted[0] == counted[1], steps
    assert random_first  # without the prior the first try is one candidate of several


def test_default_beliefs_weigh_worlds_except_modern_art_under_a_time_budget():
    from bots.ismcts import resolve_beliefs

    timed, counted = Budget(simulations=30, milliseconds=500.0), Budget(simulations=30)
    assert resolve_beliefs("auto", "modern_art", timed) == "uniform"
    for game in GAMES:  # the other games weigh their worlds whatever the budget
        if game != "modern_art":
            assert resolve_beliefs("auto", game, timed) == "heuristic", game
    assert resolve_beliefs("auto", "modern_art", counted) == "heuristic"
    assert resolve_beliefs("auto", "modern_art", None) == "heuristic"  # no budget: a review
    assert resolve_beliefs("auto", "detective_eye", timed) == "heuristic"
    assert resolve_beliefs("heuristic", "modern_art", timed) == "heuristic"  # asked for: kept
    # a322b0d drew its worlds uniformly, also where the default weighs them.
    assert resolve_beliefs(ISMCTS_LEGACY.options["beliefs"], "detective_eye", counted) == "uniform"


def test_prior_seats_self_rates_only_the_searching_seats_nodes(monkeypatch):
    """With ``prior_seats: self`` the other seats' nodes are plain UCB1: the heuristic is never
    asked to rate a decision of theirs, while the default rates every seat's new nodes."""
    defn, params, infoset = _first_placement_of_four_player_detective_eye()
    knowledge = knowledge_for("detective_eye")
    rated = []
    original = type(knowledge).best_rated

    def spy(self, engine):
        rated.append(engine.current_player())
        return original(self, engine)

    monkeypatch.setattr(type(knowledge), "best_rated", spy)
    budget = Budget(simulations=200)
    # Only the prior rates moves (not a restricted response's locks).
    options = {"beliefs": "uniform", "hidden_moves": "sample", "opponent_moves": "search"}
    make_bot({"name": "ismcts", "options": options}).hint(defn, params, infoset, budget, seed=3)
    assert set(rated) - {infoset["seat"]}  # the default: other seats' nodes too
    rated.clear()
    own = {**options, "prior_seats": "self"}
    make_bot({"name": "ismcts", "options": own}).hint(defn, params, infoset, budget, seed=3)
    assert rated and set(rated) == {infoset["seat"]}


def _first_placement_of_four_player_detective_eye():
    defn = games.definition("detective_eye")
    params = defn.validate_params({"players": 4})
    engine = defn.new_engine(params)
    rng = random.Random(1000)
    heuristic = make_bot("heuristic")
    while engine.current_player() < 0 or engine.phase != 3:  # FIRST: the round's placements
        seat = engine.current_player()
        if seat < 0:
            engine.apply(engine.sample_chance(rng))
            continue
        infoset = build_infoset(defn, params, engine, seat)
        engine.apply(heuristic.hint(defn, params, infoset, Budget(simulations=1), seed=7).action)
    return defn, params, build_infoset(defn, params, engine, engine.current_player())


def test_detective_eye_search_values_its_first_placement():
    """Full rollouts by the safe playout are a fixed rotation there (every placement scored
    as a certain loss); cut off after a round, the evaluation tells the placements apart."""
    defn, params, infoset = _first_placement_of_four_player_detective_eye()
    hint = make_bot("ismcts").hint(defn, params, infoset, Budget(simulations=150), seed=7)
    values = {s.value for s in hint.policy}
    assert len(values) > 1, hint.policy


def test_a_bot_kept_over_a_game_answers_as_fresh_bots_do():
    """The opponent model's cache is kept on the bot per game setting (it is exact there), so
    a bot asked again and again over a game gives the hints a new bot would."""
    defn, params, states = decision_states("detective_eye", seed=5, count=6, params={"players": 4})
    kept = make_bot("ismcts")
    for engine in states:
        infoset = build_infoset(defn, params, engine, engine.current_player())
        got = kept.hint(defn, params, infoset, Budget(simulations=40), seed=2)
        want = make_bot("ismcts").hint(defn, params, infoset, Budget(simulations=40), seed=2)
        assert [(s.action, s.visits) for s in got.policy] == [
            (s.action, s.visits) for s in want.policy
        ]
    small = defn.validate_params({"players": 2})
    _, _, others = decision_states("detective_eye", seed=6, count=1, params=small)
    engine = others[0]
    kept.hint(
        defn,
        small,
        build_infoset(defn, small, engine, engine.current_player()),
        Budget(simulations=10),
        seed=1,
    )
    assert len(kept._models) == 2  # one model per game setting


# The search each game gets from the default options, per kind of budget (docs/bots.md,
# "Strength" and the option table): rollout policy and cut-off, Bayes-weighted worlds, prior.
# A review searches with no budget, as under a number of simulations.
DOCUMENTED_DEFAULTS = {
    # game: {budget kind: (rollout, rollout_depth, weigh_worlds, prior_weight)}
    "detective_eye": dict.fromkeys(("simulations", "time", "none"), ("heuristic", 10, True, 0.5)),
    "finger_auction": dict.fromkeys(("simulations", "time", "none"), ("heuristic", -1, True, 0.5)),
    "gallery_rush": dict.fromkeys(("simulations", "time", "none"), ("heuristic", -1, True, 0.5)),
    "modern_art": {
        "simulations": ("heuristic", 40, True, 0.0),
        "time": ("heuristic", 40, False, 0.5),
        "none": ("heuristic", 40, True, 0.0),
    },
    # OpenSpiel's own games have no heuristic: the paper's plain search.
    "kuhn_poker": dict.fromkeys(("simulations", "time", "none"), ("random", -1, False, 0.0)),
}
BUDGET_KINDS = {
    "simulations": Budget(simulations=100),
    "time": Budget(milliseconds=500.0),
    "none": None,
}


@pytest.mark.parametrize("game", sorted(DOCUMENTED_DEFAULTS))
@pytest.mark.parametrize("kind", sorted(BUDGET_KINDS))
def test_the_resolved_search_of_the_default_options_is_the_documented_one(game, kind):
    from bots.ismcts import SearchConfig

    rollout, depth, weigh, prior = DOCUMENTED_DEFAULTS[game][kind]
    config = make_bot("ismcts").search_config(game, BUDGET_KINDS[kind])
    assert config == SearchConfig(
        exploration=0.7,
        rollout=rollout,
        rollout_depth=depth,
        pool_size=32,
        weigh_worlds=weigh,
        belief_worlds=64,
        epsilon=0.2,
        belief_effective=0.25,
        smooth=False,
        prior_weight=prior,
        prior_opponents=True,
        hidden_moves=True,
        rollout_opponents=0,
        model_opponents=False,
        final_policy="welch",
    )


@pytest.mark.parametrize("game", ["detective_eye", "modern_art", "finger_auction"])
def test_the_legacy_baseline_resolves_to_the_plain_search(game):
    """The a322b0d baseline turns every later piece off, under any budget."""
    from bots.ismcts import SearchConfig

    bot = make_bot(ISMCTS_LEGACY.spec())
    for budget in BUDGET_KINDS.values():
        config = bot.search_config(game, budget)
        depth = 40 if game == "modern_art" else -1  # the game heuristic's own cut-off
        assert config == SearchConfig(rollout="heuristic", rollout_depth=depth)


def test_a_resolved_search_configuration_cannot_change_and_refuses_what_the_game_lacks():
    import dataclasses

    from bots import InvalidBotSpec

    config = make_bot("ismcts").search_config("gallery_rush", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.prior_weight = 0.0  # type: ignore[misc]
    bot = make_bot({"name": "ismcts", "options": {"rollout": "heuristic"}})
    with pytest.raises(InvalidBotSpec, match=r"kuhn_poker.*no heuristic"):
        bot.search_config("kuhn_poker", None)


@pytest.mark.parametrize("name", GAMES)
def test_the_walk_from_the_root_skips_its_key_and_computes_the_same_search(name, monkeypatch):
    """``iterate`` takes the root node for a pool world's first step without building its
    information key (``_Tree.walker(from_root=True)``): the same search, bit for bit, as
    looking the key up every time (``from_root=False``, the analysis's walk), with one key
    fewer per iteration after the first (the one that expands the root)."""
    from bots.ismcts import DEPTH_GAME, SearchConfig
    from bots.ismcts.search import Search, _Tree
    from bots.protocol import Worlds

    defn, params, (engine,) = decision_states(name, 3, 1)
    infoset = build_infoset(defn, params, engine, engine.current_player())
    config = SearchConfig(rollout="random", rollout_depth=DEPTH_GAME, pool_size=8)
    engine_type = type(engine)
    info_key = engine_type.info_key
    walker = _Tree.walker

    def run(from_root: bool) -> tuple[list, int]:
        keys = [0]

        def counted(self, player):
            keys[0] += 1
            return info_key(self, player)

        monkeypatch.setattr(engine_type, "info_key", counted)
        monkeypatch.setattr(_Tree, "walker", lambda tree, **_: walker(tree, from_root))
        rng = random.Random(5)
        worlds = Worlds.from_infoset(defn, params, infoset, rng)
        search = Search(worlds, Budget(simulations=200), rng, config, None, None)
        search.iterate()
        monkeypatch.undo()
        r = search.result()
        return [r.actions, r.counts, [m.hex() for m in r.means], r.greedy, r.nodes], keys[0]

    (fast, fast_keys), (slow, slow_keys) = run(True), run(False)
    assert fast == slow
    assert slow_keys - fast_keys == 199
