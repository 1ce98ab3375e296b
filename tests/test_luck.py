"""Luck-corrected (AIVAT) scores: the corrections have mean zero, are recorded next to the raw
returns, change no existing tournament, and the summary reports them side by side."""

from __future__ import annotations

import random
from contextlib import contextmanager

import pytest

import games
from bots import ActionStat, Budget, Hint
from evaluation.luck import InvalidLuckConfig, LuckRecorder, known_policy, luck_config
from evaluation.tournament import (
    ExecutorHandle,
    SerialExecutor,
    TournamentError,
    TournamentSpec,
    deterministic_part,
    run_tournament,
)
from evaluation.tournament.stats import mean_ci
from games.core.engine import CHANCE
from games.core.episode import Step, play_episode, stream_chance

GAME = "gallery_rush"


@contextmanager
def serial():
    yield ExecutorHandle(SerialExecutor(), 1, "serial")


def _chance_state(game: str, params: dict, seed: int, skip: int):
    """A state at a chance node with several outcomes, ``skip`` such nodes into a random game."""
    defn = games.definition(game)
    params = defn.validate_params(params)
    engine = defn.new_engine(params)
    rng = random.Random(seed)
    seen = 0
    while True:
        if engine.current_player() == CHANCE:
            if len(engine.chance_outcomes()) > 2:
                if seen == skip:
                    return defn, params, engine
                seen += 1
            engine.apply(engine.sample_chance(rng))
        else:
            engine.apply(rng.choice(engine.legal_actions()))


@pytest.mark.parametrize(
    "game,params,config",
    [
        (GAME, {"players": 2}, {"value": "rollout", "rollouts": 3, "policy": "random"}),
        (GAME, {"players": 3}, {"value": "heuristic"}),
        ("detective_eye", {"players": 2}, {"value": "rollout", "rollouts": 2}),
        ("modern_art", {"players": 3}, {"value": "heuristic"}),
    ],
)
def test_a_chance_correction_averages_to_zero_over_the_outcomes(game, params, config):
    """The estimator is unbiased because each correction has mean 0 over the distribution
    its step was drawn from, whatever the value estimate: checked outcome by outcome."""
    defn, params, engine = _chance_state(game, params, seed=4, skip=1)
    dist = engine.chance_outcomes()
    total = [0.0] * engine.num_players
    spread = 0.0
    for action, prob in dist:
        recorder = LuckRecorder(defn, params, luck_config(game, config), seed=11)
        recorder.on_step(engine, Step(5, CHANCE, action))
        spread = max(spread, max(abs(c) for c in recorder.chance))
        for s, c in enumerate(recorder.chance):
            total[s] += prob * c
        assert recorder.chance_steps == 1
    assert all(abs(t) < 1e-9 for t in total), total
    assert spread > 0.0  # the outcomes do matter to the estimate: the test is not vacuous


def test_decisions_are_corrected_only_when_the_action_was_drawn_from_the_stated_policy():
    uniform = Hint(3, [ActionStat(3, 0.5), ActionStat(4, 0.5)], stopped_by="policy")
    assert known_policy(uniform) == [(3, 0.5), (4, 0.5)]
    searched = Hint(3, [ActionStat(3, 0.7), ActionStat(4, 0.3)], stopped_by="simulations")
    assert known_policy(searched) is None  # a search plays its best move, not a draw
    elsewhere = Hint(5, [ActionStat(3, 0.5), ActionStat(4, 0.5)], stopped_by="policy")
    assert known_policy(elsewhere) is None
    assert known_policy(7) is None and known_policy(None) is None


@pytest.mark.parametrize(
    "config,message",
    [
        ({"value": "oracle"}, "unknown value estimate"),
        ({"value": "rollout", "rollouts": 0}, "'rollouts' must be"),
        ({"value": "rollout", "policy": "ismcts"}, "unknown rollout policy"),
        ({"value": "heuristic", "rollouts": 3}, "takes no 'rollouts'"),
        ({"value": "rollout", "depth": 3}, "unknown field 'depth'"),
    ],
)
def test_bad_value_settings_are_named(config, message):
    with pytest.raises(InvalidLuckConfig, match=message):
        luck_config(GAME, config)
    with pytest.raises(TournamentError, match=message):
        TournamentSpec.build(GAME, {}, [(None, "random"), (None, "heuristic")], luck=config)


def test_tournaments_without_luck_keep_their_definition_and_records():
    plain = TournamentSpec.build(GAME, {}, [(None, "random"), (None, "heuristic")], seed=3)
    lucky = TournamentSpec.build(
        GAME, {}, [(None, "random"), (None, "heuristic")], seed=3, luck=True
    )
    assert "luck" not in plain.to_json() and "luck" not in plain.task(plain.schedule()[0])
    assert lucky.to_json()["luck"] == luck_config(GAME)
    assert lucky.fingerprint != plain.fingerprint
    # Same seeds, so the same games: only the added field differs.
    assert lucky.task(lucky.schedule()[1])["seed"] == plain.task(plain.schedule()[1])["seed"]


def test_luck_corrected_tournament_is_unbiased_reproducible_and_reported(tmp_path):
    """Heuristic against random, 30 deals: corrected and raw means agree within their
    intervals (the truth is unknown here), records carry the corrections, a rerun and a
    resume give the same records, and the summary has the side-by-side block."""
    spec = TournamentSpec.build(
        GAME,
        {},
        [(None, "heuristic"), (None, "random")],
        deals=30,
        seed=5,
        budget=Budget(simulations=1),
        luck={"value": "heuristic"},
    )
    out = run_tournament(spec, tmp_path / "g.jsonl", serial, bootstrap=0)
    rec = out.records[0]
    assert set(rec["luck"]) == {"corrected", "chance", "decisions", "steps", "value"}
    for r in out.records:
        want = [
            x - c - d
            for x, c, d in zip(
                r["returns"], r["luck"]["chance"], r["luck"]["decisions"], strict=True
            )
        ]
        assert r["luck"]["corrected"] == pytest.approx(want)
    assert sum(r["luck"]["steps"]["decisions"] for r in out.records) > 0  # random's moves
    luck = out.summary["luck"]
    for row in luck["bots"]:
        lo, hi = row["mean_return_ci95"]
        clo, chi = row["corrected_mean_return_ci95"]
        assert clo <= row["mean_return"] <= chi or lo <= row["corrected_mean_return"] <= hi
        assert row["games_ratio"] == pytest.approx(row["se_ratio"] ** 2)
    assert luck["elo"]["anchor"] == "heuristic"
    again = run_tournament(spec, tmp_path / "h.jsonl", serial, bootstrap=0)
    assert [deterministic_part(r) for r in again.records] == [
        deterministic_part(r) for r in out.records
    ]


def test_a_bot_against_itself_scores_zero_corrected():
    """The truth is known when a bot meets itself: corrected means within their intervals of
    0, for random (every decision corrected) and heuristic (only chance)."""
    for bot in ("random", "heuristic"):
        spec = TournamentSpec.build(
            GAME,
            {},
            [("a", bot), ("b", bot)],
            deals=40,
            seed=9,
            budget=Budget(simulations=1),
            luck={"value": "heuristic"},
        )
        records = [r for r in run_tournament(spec, _tmp(), serial, bootstrap=0).records]
        diffs = {}
        for r in records:
            a = r["seats"].index("a")
            diffs.setdefault(r["deal"], []).append(r["luck"]["corrected"][a])
        mean, ci = mean_ci([sum(v) / len(v) for v in diffs.values()])
        assert ci[0] <= 0.0 <= ci[1], (bot, mean, ci)


def _tmp():
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp()) / "g.jsonl"


@pytest.mark.parametrize(
    ("game", "params"),
    [
        ("modern_art", {"players": 3}),
        ("detective_eye", {"players": 4}),
        ("finger_auction", {"players": 3}),
    ],
)
def test_every_game_of_a_deal_gets_the_same_chance_outcomes_whatever_is_played(game, params):
    """Why luck correction cannot reduce variance in these games (docs/evaluation.md): the
    deal's stream of uniforms resolves every chance step the same way in every game of a deal,
    however differently the players play, so duplicate deals already cancel all chance luck.
    (Gallery Rush fails this: its draws depend on the play.)"""
    defn = games.definition(game)
    full = defn.validate_params(params)
    outcomes = []
    for play_seed in range(3):
        engine = defn.new_engine(full)
        seen: list[int] = []
        play = random.Random(play_seed)

        def on_step(_engine, step: Step, seen=seen) -> None:
            if step.player == CHANCE:
                seen.append(step.action)

        play_episode(
            engine,
            lambda e, _seat, _k, play=play: play.choice(e.legal_actions()),
            stream_chance(random.Random(7)),
            on_step,
        )
        outcomes.append(seen)
    assert outcomes[0], "the game had no chance steps"
    assert outcomes[1] == outcomes[0] and outcomes[2] == outcomes[0]


def test_corrected_first_place_shares_still_share_one_first_place():
    """On the share scale every value sums to one over the seats, so the corrections cancel:
    the corrected shares of a game still sum to one, and a replay gives the same figures."""
    from evaluation.luck import corrected_shares, luck_config

    defn = games.definition("gallery_rush")
    params = defn.validate_params({"players": 3})
    engine = defn.new_engine(params)
    history: list[int] = []
    rng = random.Random(4)
    while not engine.is_terminal():
        if engine.current_player() == CHANCE:
            action = engine.sample_chance(rng)
        else:
            legal = engine.legal_actions()
            action = legal[rng.randrange(len(legal))]
        history.append(action)
        engine.apply(action)
    config = {**luck_config("gallery_rush"), "rollouts": 8}
    out = corrected_shares(defn, params, history, config, seed=3)
    assert out["steps"]["chance"] > 0
    assert sum(out["corrected"]) == pytest.approx(1.0)
    assert out == corrected_shares(defn, params, history, config, seed=3)
    with pytest.raises(ValueError, match="does not reach the end"):
        corrected_shares(defn, params, history[:-1], config, seed=3)


# --- the review's split (bots.luck.luck_split) --------------------------------------------------
FEW = {"value": "rollout", "rollouts": 8, "policy": "heuristic"}
SPLIT_CASES = [
    ("gallery_rush", {"players": 2}, FEW),
    ("finger_auction", {"players": 2}, FEW),
    ("detective_eye", {"players": 2}, None),  # the game's own setting (bots.luck.SPLIT_VALUE)
    ("modern_art", {"players": 3}, {**FEW, "rollouts": 3}),
]


def _mixed_game(game: str, params: dict, seed: int, seat: int):
    """A finished game where ``seat`` plays uniformly at random and the others the heuristic:
    the seat's decisions then cost something, which the split must show."""
    from bots.heuristics import knowledge_for

    defn = games.definition(game)
    full = defn.validate_params(params)
    knowledge = knowledge_for(game)
    rng = random.Random(seed)
    engine = defn.new_engine(full)
    while not engine.is_terminal():
        player = engine.current_player()
        if player == CHANCE:
            engine.apply(engine.sample_chance(rng))
        elif player == seat:
            engine.apply(rng.choice(engine.legal_actions()))
        else:
            engine.apply(knowledge.playout(engine, rng))
    return defn, full, list(engine.history)


@pytest.mark.parametrize(("game", "params", "config"), SPLIT_CASES)
def test_the_luck_split_adds_up_and_is_deterministic(game, params, config):
    """result = baseline + chance + decisions + opponents + residual exactly, the residual (the
    estimate's disagreement with itself) within noise of 0, and a rerun gives the same split."""
    from bots.luck import luck_split

    defn, full, history = _mixed_game(game, params, seed=2, seat=0)
    split = luck_split(defn, full, history, 0, config, seed=5)
    parts = ("baseline", "chance", "decisions", "opponents", "residual")
    assert split["result"] == pytest.approx(sum(split[p] for p in parts))
    assert abs(split["residual"]) <= 4 * split["stderr"]["residual"] + 1e-9, split
    assert split["steps"]["chance"] > 0 and split["steps"]["decisions"] > 0
    assert luck_split(defn, full, history, 0, config, seed=5) == split


def test_random_decisions_cost_and_the_chance_terms_average_out():
    """Over Gallery Rush games where seat 0 plays at random against the heuristic, the seat's
    decisions term is negative on average (random play costs first-place share) while the
    chance term averages to 0 within its interval (each term has mean 0) and the residual too."""
    from bots.luck import luck_split

    config = {"value": "rollout", "rollouts": 16, "policy": "heuristic"}
    splits = [
        luck_split(*_mixed_game("gallery_rush", {"players": 2}, seed=s, seat=0), 0, config, seed=s)
        for s in range(12)
    ]
    decisions, ci = mean_ci([s["decisions"] for s in splits])
    assert ci[1] < 0.0, (decisions, ci)
    for part in ("chance", "residual"):
        mean, ci = mean_ci([s[part] for s in splits])
        assert ci[0] <= 0.0 <= ci[1], (part, mean, ci)


def test_the_luck_split_names_bad_input():
    from bots.luck import luck_split

    defn, full, history = _mixed_game("gallery_rush", {"players": 2}, seed=1, seat=0)
    with pytest.raises(ValueError, match=r"seat must be 0\.\.1"):
        luck_split(defn, full, history, 2)
    with pytest.raises(ValueError, match="does not reach the end"):
        luck_split(defn, full, history[:-1], 0)
    with pytest.raises(ValueError, match="goes on after the end"):
        luck_split(defn, full, [*history, 0], 0)
    with pytest.raises(ValueError, match="step 3: 99 is not"):
        luck_split(defn, full, [*history[:3], 99, *history[4:]], 0)
    with pytest.raises(InvalidLuckConfig, match="needs a rollout value estimate"):
        luck_split(defn, full, history, 0, {"value": "heuristic"})


def test_the_luck_sentence_reads_losses_and_gains():
    from bots.luck import luck_sentence

    assert luck_sentence({"chance": -0.314, "decisions": -0.08}) == (
        "0.31 of a win lost to the cards, 0.08 to decisions"
    )
    assert luck_sentence({"chance": 0.2, "decisions": 0.05}) == (
        "0.20 of a win won from the cards, 0.05 gained by decisions"
    )


def test_evaluation_luck_is_the_bots_implementation():
    """One rule in one place: the tournament's names are the review's objects."""
    import bots.luck
    import evaluation.luck

    for name in evaluation.luck.__all__:
        assert getattr(evaluation.luck, name) is getattr(bots.luck, name)


@pytest.mark.parametrize("game", ["gallery_rush", "detective_eye", "finger_auction"])
def test_the_review_luck_reads_the_seat_information_set_only(game):
    """``review_luck`` splits a finished record from the seat's information set: the same
    split for a record with other hidden cards the seat never saw, and ``None`` for a record
    that has not ended."""
    from bots.luck import review_luck
    from games.core.definition import replay
    from games.core.infoset import build_infoset
    from tests.support import another_world

    defn, full, history = _mixed_game(game, {"players": 2}, seed=3, seat=0)
    record = replay(defn, full, history)
    infoset = build_infoset(defn, full, record, 0, with_view=False)
    split = review_luck(defn, full, infoset, seed=1, config=FEW)
    assert split["sentence"] and split["seat"] == 0
    assert split["result"] == pytest.approx(
        sum(split[p] for p in ("baseline", "chance", "decisions", "opponents", "residual"))
    )
    partial = build_infoset(defn, full, replay(defn, full, history[:-3]), 0, with_view=False)
    assert review_luck(defn, full, partial, seed=1, config=FEW) is None
    if game == "detective_eye":  # the others hide nothing once the game is over
        seat, cut, other = another_world(defn, full, record)
        assert cut.is_terminal() and other.is_terminal()  # the whole record, other cards
        a = build_infoset(defn, full, cut, seat, with_view=False)
        b = build_infoset(defn, full, other, seat, with_view=False)
        assert review_luck(defn, full, a, 1, FEW) == review_luck(defn, full, b, 1, FEW)
