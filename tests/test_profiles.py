"""Opponent profiles (issue 45, target 1): tendencies change play as named, fitting recovers
them, and the search's opponent model takes them (``bots.profiles``)."""

from __future__ import annotations

import gc
import json
import random
import weakref

import pytest

import games
from bots import Budget, InvalidBotSpec, make_bot
from bots.beliefs import HeuristicModel
from bots.heuristics import knowledge_for
from bots.profiles.fit import MIN_DECISIONS, TooFewDecisions, decisions_of, fit_profile
from bots.profiles.model import NOT_LOCKED, ProfiledModel
from bots.profiles.policy import ProfiledPolicy
from bots.profiles.tendencies import (
    BIASED,
    TENDENCIES,
    InvalidProfile,
    check_profile,
    check_seat_profiles,
)
from games.core.engine import CHANCE
from games.core.infoset import build_infoset
from games.core.seeds import derive_seed


def positions(game: str, players: int, wanted, count: int, seed: int = 0, policy=None):
    """Up to ``count`` decision states where ``wanted(engine)``, from games of the heuristic
    (or ``policy``: a fresh one per call, as its cache holds within one game setting), as
    ``(defn, params, engine)``."""
    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    knowledge = knowledge_for(game)
    choose = policy.choose if policy is not None else knowledge.choose
    rng = random.Random(seed)
    out = []
    for _ in range(40):
        engine = defn.new_engine(params)
        while not engine.is_terminal() and len(out) < count:
            if engine.current_player() == CHANCE:
                engine.apply(engine.sample_chance(rng))
                continue
            if wanted(engine) and len(engine.legal_actions()) > 1:
                out.append((defn, params, engine.copy()))
            engine.apply(choose(engine, rng))
        if len(out) >= count:
            break
    return out


def dist(game: str, engine, profile) -> dict[int, float]:
    policy = ProfiledPolicy(knowledge_for(game), profile)
    return dict(policy.distribution(engine, engine.current_player()))


def mean_amount(game: str, engine, profile, amount) -> float:
    return sum(p * amount(a) for a, p in dist(game, engine, profile).items())


# --- tendencies change play as named ------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3])
def test_finger_auction_over_bidder_bids_more_and_under_bidder_less(players):
    from games.finger_auction import actions as codec
    from games.finger_auction.engine import BID

    # Varied auctions (a careless player moves): heuristic-only games often bid the top already.
    careless = ProfiledPolicy(knowledge_for("finger_auction"), {"noise": 0.7})
    found = positions("finger_auction", players, lambda e: e.phase == BID, 40, policy=careless)
    assert len(found) == 40
    higher = lower = 0
    for _, _, engine in found:
        m, two = engine.max_bid, len(engine.active) == 2

        def amount(a, m=m, two=two):
            return codec.take_block_of(a, m)[0] if two else codec.bid_of(a)

        plain = mean_amount("finger_auction", engine, {}, amount)
        over = mean_amount("finger_auction", engine, {"bid_scale": 1.5}, amount)
        under = mean_amount("finger_auction", engine, {"bid_scale": 0.6}, amount)
        assert under <= plain <= over
        higher += over > plain
        lower += under < plain
    assert higher >= 8 and lower >= 8


def test_modern_art_over_bidder_bids_more_in_sealed_auctions():
    from games.modern_art import actions as codec
    from games.modern_art.engine import SEALED_BIDS

    found = positions("modern_art", 3, lambda e: e.phase == SEALED_BIDS, 12)
    assert found
    higher = lower = 0
    for _, _, engine in found:

        def amount(a):
            return codec.amount_of(a)

        plain = mean_amount("modern_art", engine, {}, amount)
        over = mean_amount("modern_art", engine, {"bid_scale": 1.3}, amount)
        under = mean_amount("modern_art", engine, {"bid_scale": 0.7}, amount)
        assert under <= plain <= over
        higher += over > plain
        lower += under < plain
    assert higher and lower


def test_detective_eye_bluffer_declares_beyond_its_own_cards():
    from games.detective_eye.actions import BID as BID_KIND
    from games.detective_eye.engine import TURN

    found = positions("detective_eye", 3, lambda e: e.phase == TURN, 20)
    assert found
    for _, _, engine in found:
        seat = engine.player
        mask = engine.flipped[seat]
        own = [0] * engine.painters
        for pos, card in enumerate(engine.rows[seat]):
            if not mask >> pos & 1:
                own[card] += 1

        def bluff_mass(d, engine=engine, own=own):
            ids = engine.ids
            return sum(
                p
                for a, p in d.items()
                if ids.kind(a) == BID_KIND and ids.bid_of(a)[1] > own[ids.bid_of(a)[0]]
            )

        plain = bluff_mass(dist("detective_eye", engine, {}))
        bluffer = bluff_mass(dist("detective_eye", engine, {"bluff_rate": 0.4}))
        assert bluffer >= plain + 0.4 * (1 - plain) - 1e-9


def test_gallery_rush_reckless_explorer_continues_and_cautious_confirms():
    from games.gallery_rush.engine import CHOOSE, CONFIRM, CONTINUE

    found = positions(
        "gallery_rush", 2, lambda e: e.phase == CHOOSE and CONTINUE in e.legal_actions(), 20
    )
    assert found
    for _, _, engine in found:
        assert dist("gallery_rush", engine, {"explore_until": 3}) == {CONTINUE: 1.0}
        assert dist("gallery_rush", engine, {"stop_at": 1}) == {CONFIRM: 1.0}


@pytest.mark.parametrize("game", sorted(TENDENCIES))
def test_the_neutral_profile_is_the_heuristic(game):
    players = 3
    knowledge = knowledge_for(game)
    for _, _, engine in positions(game, players, lambda e: True, 25, seed=3):
        best = knowledge.best_rated(engine)
        assert dist(game, engine, {}) == {a: 1.0 / len(best) for a in best}


def test_careless_noise_spreads_over_every_move():
    _, _, engine = positions("detective_eye", 2, lambda e: True, 5)[-1]
    d = dist("detective_eye", engine, {"noise": 0.3})
    assert set(d) == set(engine.legal_actions())
    assert abs(sum(d.values()) - 1.0) < 1e-9


def test_every_biased_opponent_is_a_valid_profile_that_moves_legally():
    for game, opponents in BIASED.items():
        for name, profile in opponents.items():
            assert check_profile(game, profile) == {k: float(v) for k, v in profile.items()}, name
    bot = make_bot({"name": "profiled", "options": {"tendencies": {"bluff_rate": 0.4}}})
    for defn, params, engine in positions("detective_eye", 2, lambda e: True, 10):
        seat = engine.current_player()
        hint = bot.hint(defn, params, build_infoset(defn, params, engine, seat), Budget(1), 1)
        assert hint.action in engine.legal_actions()


@pytest.mark.parametrize(
    ("game", "raw", "words"),
    [
        ("finger_auction", {"bluff_rate": 0.3}, ["unknown tendency 'bluff_rate'", "bid_scale"]),
        ("finger_auction", {"bid_scale": 9}, ["'bid_scale'", "[0.25, 4.0]", "9"]),
        ("gallery_rush", {"explore_until": 1.5}, ["'explore_until'", "whole number"]),
        ("detective_eye", {"noise": "lots"}, ["'noise'", "number"]),
        ("detective_eye", [1], ["object"]),
    ],
)
def test_bad_profiles_are_refused_naming_what_is_wrong(game, raw, words):
    with pytest.raises(InvalidProfile) as err:
        check_profile(game, raw)
    for w in words:
        assert w in str(err.value)


def test_bad_seats_are_refused():
    with pytest.raises(InvalidProfile, match="seat 3 does not exist in a 3-player game"):
        check_seat_profiles("finger_auction", {"3": {}}, 3)
    with pytest.raises(InvalidProfile, match="seat 'x' must be a whole number"):
        check_seat_profiles("finger_auction", {"x": {}}, 3)


def test_bot_options_refuse_unknown_tendencies_at_once_and_wrong_games_when_moving():
    with pytest.raises(InvalidBotSpec, match="unknown tendency 'bid_scal'"):
        make_bot({"name": "ismcts", "options": {"opponents": {"1": {"bid_scal": 1.3}}}})
    with pytest.raises(InvalidBotSpec, match="profile_trust"):
        make_bot({"name": "ismcts", "options": {"profile_trust": 1.5}})
    bot = make_bot({"name": "ismcts", "options": {"opponents": {"1": {"bluff_rate": 0.3}}}})
    defn, params, engine = positions("finger_auction", 2, lambda e: True, 3)[-1]
    infoset = build_infoset(defn, params, engine, engine.current_player())
    with pytest.raises(InvalidBotSpec, match="unknown tendency 'bluff_rate' for finger_auction"):
        bot.hint(defn, params, infoset, Budget(simulations=5), 1)


# --- fitting -----------------------------------------------------------------------------------
def simulated_records(game: str, players: int, profile: dict, count: int, seed: int = 0):
    """``count`` games of the profiled heuristic at seat 0 against the heuristic, as records."""
    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    knowledge = knowledge_for(game)
    policy = ProfiledPolicy(knowledge, profile)
    records = []
    for g in range(count):
        rng = random.Random(derive_seed(seed, "fit", g))
        engine = defn.new_engine(params)
        while not engine.is_terminal():
            player = engine.current_player()
            if player == CHANCE:
                engine.apply(engine.sample_chance(rng))
            elif player == 0:
                engine.apply(policy.choose(engine, rng))
            else:
                engine.apply(knowledge.choose(engine, rng))
        records.append([decisions_of(defn.new_engine(params), engine.history, 0)])
    return records


@pytest.mark.parametrize(
    ("game", "players", "truth", "games_played"),
    [
        ("finger_auction", 2, {"bid_scale": 1.5}, 12),
        ("detective_eye", 2, {"bluff_rate": 0.4}, 10),
        ("gallery_rush", 2, {"explore_until": 3}, 25),
    ],
)
def test_fitting_recovers_a_known_tendency_within_its_interval(game, players, truth, games_played):
    records = simulated_records(game, players, truth, games_played)
    fit = fit_profile(knowledge_for(game), records, 0)
    ((name, value),) = truth.items()
    tendency = next(t for t in TENDENCIES[game] if t.name == name)
    low, high = fit.intervals[name]
    assert low <= value <= high
    assert not low <= tendency.neutral <= high  # the data tell it from the plain heuristic
    assert fit.log_likelihood > fit.neutral_log_likelihood


def test_fitting_the_plain_heuristic_keeps_it_neutral():
    records = simulated_records("detective_eye", 2, {}, 8)
    fit = fit_profile(knowledge_for("detective_eye"), records, 0)
    for t in TENDENCIES["detective_eye"]:
        low, high = fit.intervals[t.name]
        assert low <= t.neutral <= high


def test_fitting_too_few_decisions_says_so():
    records = simulated_records("gallery_rush", 2, {}, 1)
    records = [[world[: MIN_DECISIONS - 1]] for [world] in records]
    with pytest.raises(TooFewDecisions, match=f"a fit needs at least {MIN_DECISIONS}"):
        fit_profile(knowledge_for("gallery_rush"), records, 0)


# --- the search's opponent model ---------------------------------------------------------------
def ismcts_hint(options, defn, params, engine, simulations=120, seed=7):
    bot = make_bot({"name": "ismcts", "options": options})
    infoset = build_infoset(defn, params, engine, engine.current_player())
    return bot.hint(defn, params, infoset, Budget(simulations=simulations), seed)


def stats(hint):
    return [(s.action, s.visits, s.value) for s in hint.policy]


def test_a_profile_changes_the_search_opponent_model():
    from games.finger_auction.engine import BID

    defn, params, engine = positions("finger_auction", 3, lambda e: e.phase == BID, 6)[-1]
    seat = engine.current_player()
    others = {str(s): {"bid_scale": 2.0} for s in range(3) if s != seat}
    full = {"opponents": others, "profile_trust": 1.0, "profile_evidence": "none"}
    bot = make_bot({"name": "ismcts", "options": full})
    knowledge = knowledge_for("finger_auction")
    model = bot.opponent_model(knowledge, _worlds(defn, params, engine))
    assert isinstance(model, ProfiledModel)
    base = HeuristicModel(knowledge)
    # At an opponent's bid, the profiled model puts its mass on larger bids than the heuristic.
    careless = ProfiledPolicy(knowledge, {"noise": 0.7})

    def theirs(e):
        return e.phase == BID and e.current_player() != seat

    found = positions("finger_auction", 3, theirs, 20, policy=careless)
    differs = 0
    for _, _, other in found:
        player = other.current_player()
        legal = other.legal_actions()
        a = [model.probability(other, player, x) for x in legal]
        b = [base.probability(other, player, x) for x in legal]
        assert abs(sum(a) - 1.0) < 1e-9
        differs += a != b
        assert model.locked_move(other, random.Random(1)) in legal  # trust 1: always locked
    assert differs
    # And the search's answer changes with it.
    plain = ismcts_hint({}, defn, params, engine)
    profiled = ismcts_hint(full, defn, params, engine)
    assert stats(plain) != stats(profiled)


def _worlds(defn, params, engine):
    from bots.protocol import Worlds

    seat = engine.current_player()
    infoset = build_infoset(defn, params, engine, seat)
    return Worlds.from_infoset(defn, params, infoset, random.Random(0), None)


def test_the_profiled_policies_are_kept_with_the_heuristic_model_they_read():
    """Detective Eye names its setting, so the bot keeps its model between searches, and
    with it one profiled policy per distinct profile (``KeptModel``), reading the model's
    cache; seats with the same profile share one, and the evidence's default hypothesis
    (the heuristic with the profile's noise) is one more of them."""
    defn, params, engine = positions("detective_eye", 4, lambda e: True, 8)[-1]
    seat = engine.current_player()
    others = [s for s in range(4) if s != seat]
    options = {str(others[0]): {"noise": 0.5}, str(others[1]): {"noise": 0.5}}
    options[str(others[2])] = {"bluff_rate": 0.3}
    bot = make_bot({"name": "ismcts", "options": {"opponents": options, "profile_trust": 0.5}})
    knowledge = knowledge_for("detective_eye")
    first = bot.opponent_model(knowledge, _worlds(defn, params, engine))
    again = bot.opponent_model(knowledge, _worlds(defn, params, engine))
    assert isinstance(first, ProfiledModel) and again.base is first.base
    assert again.policies == first.policies  # the same objects, by identity
    assert first.policies[others[0]] is first.policies[others[1]]
    (kept,) = bot._models.values()
    assert kept.model is first.base and len(kept.policies) == 3
    assert set(kept.policies) == {(("noise", 0.5),), (("bluff_rate", 0.3),), (("noise", 0.0),)}
    assert all(p.base is first.base for p in kept.policies.values())


@pytest.mark.parametrize("game, players", [("modern_art", 4), ("detective_eye", 3)])
def test_a_dropped_profiled_bot_frees_its_caches_without_the_cycle_collector(game, players):
    """A profiled search's model caches hundreds of megabytes in a long Modern Art game; a
    benchmark makes a bot per game, so a dropped bot must free them at once. With a reference
    cycle between the model and its profiled policies they waited for the cycle collector,
    and a 40-pair profile bench grew until the out-of-memory killer ended it at 17 GB."""
    defn, params, engine = positions(game, players, lambda e: True, 12)[-1]
    seat = engine.current_player()
    opponents = {str(s): {"noise": 0.3} for s in range(players) if s != seat}
    bot = make_bot({"name": "ismcts", "options": {"opponents": opponents}})
    infoset = build_infoset(defn, params, engine, seat)
    collecting = gc.isenabled()
    gc.disable()
    try:
        bot.hint(defn, params, infoset, Budget(simulations=30), seed=1)
        (kept,) = bot._models.values()
        assert kept.policies  # the profiled search built its policies on the kept model
        model = weakref.ref(kept.model)
        del bot, kept
        assert model() is None
    finally:
        if collecting:
            gc.enable()


def test_the_model_leaves_unprofiled_seats_and_the_searching_seat_alone():
    _, _, engine = positions("detective_eye", 3, lambda e: True, 8)[-1]
    seat = engine.current_player()
    knowledge = knowledge_for("detective_eye")
    base = HeuristicModel(knowledge)
    policy = ProfiledPolicy(knowledge, {"noise": 1.0}, base)
    model = ProfiledModel(base, {seat: policy}, 1.0, seat)
    legal = engine.legal_actions()
    assert [model.probability(engine, seat, a) for a in legal] == [
        base.probability(engine, seat, a) for a in legal
    ]
    assert model.locked_move(engine, random.Random(0)) == NOT_LOCKED


@pytest.mark.parametrize(
    ("game", "players"), [("finger_auction", 3), ("detective_eye", 3), ("gallery_rush", 2)]
)
def test_profile_trust_zero_is_the_search_without_profiles(game, players):
    """Trust 0 ignores the profiles: the search is the one without them, move for move
    (in Detective Eye the restricted response to the heuristic, its default, whose locks
    then hold for the profiled seats too)."""
    profile = next(iter(BIASED[game].values()))
    for defn, params, engine in positions(game, players, lambda e: True, 12, seed=5)[::4]:
        others = {str(s): profile for s in range(players)}
        plain = ismcts_hint({}, defn, params, engine, simulations=60)
        zero = ismcts_hint(
            {"opponents": others, "profile_trust": 0.0}, defn, params, engine, simulations=60
        )
        assert stats(plain) == stats(zero)
        assert plain.action == zero.action


def _choose_decisions(engine, start: int):
    """``(player, keep size, action)`` of each Gallery Rush CHOOSE decision in ``engine``'s
    history after its first ``start`` actions, replayed from a fresh engine."""
    from games.gallery_rush.engine import CHOOSE

    defn = games.definition("gallery_rush")
    replay = defn.new_engine(defn.validate_params({"players": engine.num_players}))
    out = []
    for i, action in enumerate(engine.history):
        if i >= start and replay.phase == CHOOSE:
            out.append((replay.current_player(), sum(1 for k in replay.keep if k), action))
        replay.apply(action)
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_profiled_seats_play_their_profile_in_rollouts(players):
    """The rollouts model a profiled seat as the tree does (issue 45: with the profile in the
    tree only, 4-player Gallery Rush scored less with a right profile than without). A
    cautious profile (``stop_at`` 1) at trust 1: every choice of a profiled seat in a rollout
    confirms a Keep of one card, while the searching seat plays on as the rollout does."""
    from bots.ismcts.rollout import make_rollout
    from games.gallery_rush.engine import CONFIRM, TURN

    knowledge = knowledge_for("gallery_rush")
    _, _, engine = positions("gallery_rush", players, lambda e: e.phase == TURN, 1)[0]
    seat = engine.current_player()
    base = HeuristicModel(knowledge)
    policies = {
        s: ProfiledPolicy(knowledge, {"stop_at": 1}, base) for s in range(players) if s != seat
    }
    model = ProfiledModel(base, policies, 1.0, seat)
    config = make_bot({"name": "ismcts"}).search_config("gallery_rush", Budget(simulations=1))
    rollout = make_rollout(config, type(engine), seat, knowledge, None, model)
    theirs, mine = [], []
    for i in range(30):
        world = engine.copy()
        rollout(world, random.Random(i))
        for player, kept, action in _choose_decisions(world, len(engine.history)):
            (mine if player == seat else theirs).append((kept, action))
    assert theirs and all(kept == 1 and action == CONFIRM for kept, action in theirs)
    assert any(action != CONFIRM for _, action in mine)  # the searching seat is not profiled


def test_a_profiled_seat_is_its_profile_for_a_whole_iteration_or_not_at_all():
    """The restricted Nash response's opponent is the model for the whole game with
    probability ``trust`` (Johanson, Zinkevich and Bowling 2007), so a seat's lock is drawn
    once an iteration, in the tree and the rollout alike. Drawn per decision, a Modern Art
    seat that raises again and again in an open auction over-bid somewhere in nearly every
    auction even at trust 0.25, and a wrong over-bidder profile cost as much there as at 0.5."""
    knowledge = knowledge_for("modern_art")
    _, _, engine = positions("modern_art", 4, lambda e: True, 6)[-1]
    mover = engine.current_player()
    base = HeuristicModel(knowledge)
    policy = ProfiledPolicy(knowledge, {"bid_scale": 1.3}, base)
    model = ProfiledModel(base, {mover: policy}, 0.5, (mover + 1) % 4)
    rest_move = -7
    rollout = model.rollout_policy(lambda e, r: rest_move, None)
    rng = random.Random(3)
    locked = []
    for _ in range(200):
        world = engine.copy()  # an iteration's own world, as the pool gives it
        in_tree = {model.locked_move(world, rng) != NOT_LOCKED for _ in range(4)}
        in_rollout = {rollout(world, rng) != rest_move for _ in range(4)}
        assert len(in_tree) == 1 and in_tree == in_rollout
        locked.append(in_tree.pop())
    assert 0.4 < sum(locked) / len(locked) < 0.6  # locked at the seat's trust


# --- the target-1 bench ------------------------------------------------------------------------
def test_bench_profiles_pairs_by_deal_and_resumes(tmp_path, capsys):
    from evaluation.bench import profiles as bench

    rows = [
        {"kind": "pair", "deal": 0, "seat": 0, "with": 1.0, "without": 0.0},
        {"kind": "pair", "deal": 0, "seat": 1, "with": 0.0, "without": 0.0},
        {"kind": "pair", "deal": 1, "seat": 0, "with": 0.0, "without": 0.0},
        {"kind": "pair", "deal": 1, "seat": 1, "with": 0.0, "without": 1.0},
    ]
    out = bench.summary("gallery_rush", 2, "cautious", 5, rows)
    assert out["deals"] == 2 and out["pairs"] == 4
    assert out["difference"] == 0.0 and out["with"] == 0.25
    low, high = out["difference_ci"]
    assert low < 0 < high and abs(low + high) < 1e-12  # per-deal means +0.5 and -0.5
    path = tmp_path / "cell.jsonl"
    first = bench.run_cell("gallery_rush", 2, "cautious", 1, 5, path, echo=lambda _: None)
    assert first["pairs"] == 2 and first["fit"]["stop_at"] == 1  # the fit found the tendency
    progress = capsys.readouterr().err  # a long cell says where it is, on stderr
    assert "fitting: 50/50 games" in progress and "pairs: 2/2 pairs" in progress
    path.write_text(path.read_text() + '{"kind": "pair", "de')  # a run stopped mid-write
    again = bench.run_cell("gallery_rush", 2, "cautious", 1, 5, path, echo=lambda _: None)
    assert again["pairs"] == 2  # resumed: nothing played twice, the cut line dropped


def test_bench_profiles_searches_with_the_beliefs_a_cell_started_with(tmp_path, monkeypatch):
    from evaluation.bench import profiles as bench

    played = []
    real = bench.play_one

    def recording(name, params, a, b, seat, deal):
        if a.spec["name"] == "ismcts":  # not the fit's games
            played.append(a.spec)
        return real(name, params, a, b, seat, deal)

    monkeypatch.setattr(bench, "play_one", recording)
    path = tmp_path / "gallery_rush-2-cautious.jsonl"
    out = bench.run_cell("gallery_rush", 2, "cautious", 1, 5, path, lambda _: None, "uniform")
    assert out["beliefs"] == "uniform" and out["pairs"] == 2
    assert played and all(spec["options"]["beliefs"] == "uniform" for spec in played)
    with pytest.raises(ValueError, match="beliefs 'uniform', not 'auto'"):
        bench.run_cell("gallery_rush", 2, "cautious", 2, 5, path, echo=lambda _: None)
    assert len(bench._load(path)) == 3  # the refused resume played nothing
    assert 'cautious {"stop_at": 1} (uniform beliefs)' in bench.table([path])


def test_bench_profiles_plays_the_profiled_search_at_the_trust_a_cell_started_with(
    tmp_path, monkeypatch
):
    """``--trust`` is the safety setting measured: the profiled search gets that
    ``profile_trust`` (the plain one none), the cell keeps it, and its table row says it."""
    from evaluation.bench import profiles as bench

    played = []
    real = bench.play_one

    def recording(name, params, a, b, seat, deal):
        if a.spec["name"] == "ismcts":
            played.append(a.spec["options"])
        return real(name, params, a, b, seat, deal)

    monkeypatch.setattr(bench, "play_one", recording)
    path = tmp_path / "gallery_rush-2-cautious.jsonl"
    out = bench.run_cell("gallery_rush", 2, "cautious", 1, 5, path, lambda _: None, trust=0.25)
    assert out["trust"] == 0.25 and out["pairs"] == 2
    profiled = [o for o in played if "opponents" in o]
    assert len(profiled) == 2 and all(o["profile_trust"] == 0.25 for o in profiled)
    assert all("profile_trust" not in o for o in played if "opponents" not in o)
    assert all(o["profile_evidence"] == "game" for o in profiled)  # ``--evidence``'s default
    with pytest.raises(ValueError, match=r"trust 0\.25, not None"):
        bench.run_cell("gallery_rush", 2, "cautious", 2, 5, path, echo=lambda _: None)
    with pytest.raises(ValueError, match=r"evidence 'game', not 'none'"):
        bench.run_cell("gallery_rush", 2, "cautious", 2, 5, path, trust=0.25, evidence="none")
    with pytest.raises(ValueError, match=r"must be in \(0, 1\]"):
        bench.run_cell("gallery_rush", 2, "cautious", 1, 5, tmp_path / "x.jsonl", trust=0.0)
    assert 'cautious {"stop_at": 1} (trust 0.25) (game evidence)' in bench.table([path])


def test_bench_profiles_compares_two_settings_paired_over_the_deals_both_played(tmp_path):
    """``python -m evaluation.bench.profiles FOLDER OTHER``: the profiled search's shares in
    one setting's cells against the same cells in another's, over the deals both have; a cell
    whose games without the profile differ was not played on the same deals and is refused."""
    from evaluation.bench import profiles as bench

    def cell(folder: str, withs: list[float], withouts: list[float]) -> None:
        (tmp_path / folder).mkdir(exist_ok=True)
        path = tmp_path / folder / "finger_auction-2-wrong.jsonl"
        rows = [{"kind": "fit", "truth": {"bid_scale": 1.5}, "fit": {}}]
        for i, (w, wo) in enumerate(zip(withs, withouts, strict=True)):
            rows.append({"kind": "pair", "deal": i // 2, "seat": i % 2, "with": w, "without": wo})
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    cell("telling", [1.0, 1.0, 1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
    cell("game", [0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0])  # two deals only
    table = bench.comparison(tmp_path / "telling", tmp_path / "game")
    row = table.splitlines()[2]
    # Per deal: +0.5 and +0.5, over the two deals both played (the third is not compared).
    assert row.startswith("| finger_auction | 2 | wrong | 2 | 0.750 | 0.250 | +0.500")
    cell("game", [0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="deal 0 seat 0 differs without"):
        bench.comparison(tmp_path / "telling", tmp_path / "game")
    with pytest.raises(ValueError, match="gamee: not a folder of cells"):
        bench.comparison(tmp_path / "telling", tmp_path / "gamee")  # a typo is not an empty table


@pytest.mark.parametrize("players", [2, 3])
def test_the_restricted_response_locks_the_other_seats_to_the_heuristic_in_the_tree(players):
    """``opponent_moves: restricted`` models every other seat as the heuristic itself: fully
    trusted, each of their decisions in the tree is one of the heuristic's best moves (the
    seat's node never plays); the rollouts keep the game's own rollout policy (asking the
    heuristic's rating there halved the simulations); it is Detective Eye's default (the empty
    options) and not the freely searched one (``opponent_moves: search``)."""
    from bots.protocol import Worlds

    game = "detective_eye"
    knowledge = knowledge_for(game)
    full = {"opponent_moves": "restricted", "restricted_trust": 1.0}
    differs, locked = False, 0
    for defn, params, engine in positions(game, players, lambda e: True, 12, seed=5)[::4]:
        seat = engine.current_player()
        infoset = build_infoset(defn, params, engine, seat)
        worlds = Worlds.from_infoset(defn, params, infoset, random.Random(0))
        model = make_bot({"name": "ismcts", "options": full}).opponent_model(knowledge, worlds)
        assert model.policies == {}
        assert model.heuristic_locks == {s: 1.0 for s in range(players) if s != seat}
        rest = knowledge.playout
        assert model.rollout_policy(rest, None) is rest
        world, rng = worlds.first.copy(), random.Random(1)
        while not world.is_terminal():  # every later decision of another seat is locked
            if world.is_chance():
                world.apply(world.sample_chance(rng))
                continue
            mover = world.current_player()
            if mover == seat:
                assert model.locked_move(world, rng) == NOT_LOCKED
                world.apply(knowledge.choose(world, rng))
                continue
            move = model.locked_move(world, rng)
            assert move in model.base.best(world, mover)
            locked += 1
            world.apply(move)
        restricted = ismcts_hint({"opponent_moves": "restricted"}, defn, params, engine, 80)
        assert stats(restricted) == stats(ismcts_hint({}, defn, params, engine, 80))
        free = ismcts_hint({"opponent_moves": "search"}, defn, params, engine, 80)
        differs = differs or stats(free) != stats(restricted)
    assert differs and locked


def test_the_restricted_response_leaves_a_clients_profile_at_its_own_trust():
    from bots.protocol import Worlds

    defn, params, engine = positions("detective_eye", 3, lambda e: True, 6)[-1]
    seat = engine.current_player()
    infoset = build_infoset(defn, params, engine, seat)
    worlds = Worlds.from_infoset(defn, params, infoset, random.Random(0))
    other, rest = [s for s in range(3) if s != seat]
    knowledge = knowledge_for("detective_eye")
    profiled = {
        "opponents": {str(other): {"bluff_rate": 0.4}},
        "profile_trust": 0.6,
        "profile_evidence": "none",
        "opponent_moves": "search",
    }
    options = {**profiled, "opponent_moves": "restricted"}
    model = make_bot({"name": "ismcts", "options": options}).opponent_model(knowledge, worlds)
    assert model.trusts == {other: 0.6}
    assert model.heuristic_locks == {rest: 0.25}  # restricted_trust for the unprofiled
    model = make_bot({"name": "ismcts", "options": profiled}).opponent_model(knowledge, worlds)
    assert model.trusts == {other: 0.6} and model.heuristic_locks == {}
    off = {"opponent_moves": "restricted", "restricted_trust": 0.0}
    model = make_bot({"name": "ismcts", "options": off}).opponent_model(knowledge, worlds)
    assert not isinstance(model, ProfiledModel)  # the plain one
    # The default (``auto``) is the restricted response in Detective Eye.
    model = make_bot("ismcts").opponent_model(knowledge, worlds)
    assert model.heuristic_locks == {other: 0.25, rest: 0.25} and model.policies == {}
