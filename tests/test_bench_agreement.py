"""``atelier bench agreement``: how often two bots pick the same move, against one's own noise."""

from __future__ import annotations

import json

import pyspiel
import pytest
from click.testing import CliRunner

from evaluation.bench import agreement
from evaluation.cli import main

SEARCH = {"name": "ismcts", "options": {"rollout": "random"}}


def test_a_bot_agrees_with_itself_at_the_same_seed_and_not_always_at_another():
    # The same bot with the same seed must pick the same move everywhere (the determinism the
    # comparison rests on); the reference, the same bot with another seed, sees its noise.
    report = agreement.run("detective_eye", [2], SEARCH, SEARCH, {"simulations": 30}, 12, 3)
    (row,) = report["rows"]
    assert row["positions"] == 12
    assert row["a_agrees_with_b"] == 1.0
    assert row["b_agrees_with_itself"] < 1.0
    assert row["difference"] > 0


def test_random_play_agrees_with_the_heuristic_less_than_the_heuristic_with_itself():
    report = agreement.run("detective_eye", [3], "random", "heuristic", {"simulations": 1}, 30, 2)
    (row,) = report["rows"]
    assert row["b_agrees_with_itself"] > row["a_agrees_with_b"]
    assert row["difference_ci"][1] < 0  # significantly: random is not the heuristic


def test_positions_are_choices_of_real_games_and_the_same_for_the_same_seed():
    game = pyspiel.load_game("finger_auction", {"players": 3})
    first = [p.state.history() for p in agreement.positions(game, 8, 2, seed=4)]
    again = [p.state.history() for p in agreement.positions(game, 8, 2, seed=4)]
    other = [p.state.history() for p in agreement.positions(game, 8, 2, seed=5)]
    assert first == again and first != other
    for position in agreement.positions(game, 8, 2, seed=4):
        assert not position.state.is_terminal() and not position.state.is_chance_node()
        assert len(position.state.legal_actions()) > 1


def test_the_judge_answers_exactly_the_positions_where_the_bots_differ():
    report = agreement.run(
        "detective_eye",
        [2],
        "random",
        "heuristic",
        {"simulations": 1},
        10,
        2,
        judge="heuristic",
        judge_budget={"simulations": 1},
    )
    (row,) = report["rows"]
    differing = round(row["positions"] * (1 - row["a_agrees_with_b"]))
    assert sum(row["judged"].values()) == differing
    # The judge is B itself with B's seed: it always picks B's move.
    assert row["judged"]["a"] == 0 and row["judged"]["b"] == differing
    assert row["judge_prefers_a"] == 0.0


def test_command_prints_a_row_per_player_count_as_json():
    result = CliRunner().invoke(
        main,
        [
            "bench",
            "agreement",
            "--game",
            "finger_auction",
            "--players",
            "2",
            "--players",
            "3",
            "--bot",
            "heuristic",
            "--budget",
            "1",
            "--positions",
            "4",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [r["players"] for r in report["rows"]] == [2, 3]
    assert report["b"] == "ismcts-legacy"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--budget", "fast"], "--budget"),
        (["--judge-budget", "0ms"], "--judge-budget"),
        (["--bot", "{not json"], "--bot"),
        (["--against", "no_such_bot"], "--against"),
        (["--players", "7"], "--players"),
        (["--positions", "0"], "--positions"),
        (["--every", "0"], "--every"),
    ],
)
def test_bad_input_is_refused_with_the_option_named(args, named):
    result = CliRunner().invoke(main, ["bench", "agreement", "--game", "detective_eye", *args])
    assert result.exit_code == 2
    assert named in result.output
    assert "Traceback" not in result.output
