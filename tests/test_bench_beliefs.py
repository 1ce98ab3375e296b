"""``atelier bench beliefs``: the belief weights against uniform worlds, scored by the truth."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import games
from evaluation.bench import beliefs, strength
from evaluation.cli import main


@pytest.fixture(scope="module")
def heuristic_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One 4-player Detective Eye deal: ismcts (10 simulations) in each seat, heuristics around."""
    path = tmp_path_factory.mktemp("beliefs") / "de4.jsonl"
    strength.run(
        ["detective_eye"],
        games_per_pairing=4,
        pairings=("ismcts-vs-heuristic",),
        players=[4],
        simulations=10,
        ismcts_options={"beliefs": "uniform"},  # a cheap A: only the file's moves matter here
        seed=5,
        games_file=path,
    )
    return path


def test_weights_find_more_of_heuristic_opponents_cards_than_uniform_worlds(heuristic_games):
    # What the beliefs are for: a heuristic's declarations are backed by its cards, so
    # weighting worlds by the heuristic's likelihood of them points toward the cards it holds.
    report = beliefs.run([heuristic_games], "detective_eye", every=2, worlds=24)
    (row,) = report["rows"]
    assert (row["players"], row["opponents"]) == (4, "heuristic")
    assert row["positions"] >= 20
    mean, low, _ = row["tempered_gain"]
    assert low > 0, row
    assert row["tempered"] == pytest.approx(row["uniform"] + mean)
    assert row["bayes_gain"][0] >= mean  # untempered weights keep all the evidence
    assert 0.25 * 24 - 1e-6 <= row["effective"] <= 24


def test_the_true_state_scores_one_and_a_sampled_world_less(heuristic_games):
    holdings = beliefs.HIDDEN_HOLDINGS["detective_eye"]
    position = next(
        p
        for p in beliefs.positions(heuristic_games, "detective_eye", [4], every=5)
        if beliefs.share_right(p.truth, p.truth, p.seat, holdings) is not None
    )
    truth, seat = position.truth, position.seat
    assert beliefs.share_right(truth, truth, seat, holdings) == 1.0
    defn = games.definition("detective_eye")
    scores = []
    for seed in range(20):
        world = defn.sample_world(
            position.params,
            games.core.infoset.build_infoset(defn, position.params, truth, seat),
            random.Random(seed),
        )
        scores.append(beliefs.share_right(world, truth, seat, holdings))
    assert all(0.0 <= s <= 1.0 for s in scores) and min(scores) < 1.0


def test_the_positions_are_the_searching_bots_own_decisions(heuristic_games, tmp_path):
    # Bot A sits in one seat and the heuristic in the others: only at A's decisions are all
    # the other seats the opponents the row names.
    for line in heuristic_games.read_text().splitlines():
        a_seat = json.loads(json.loads(line)["key"])[4]
        one = tmp_path / f"seat{a_seat}.jsonl"
        one.write_text(line + "\n")
        found = list(beliefs.positions(one, "detective_eye", [4], every=1))
        assert found and {p.seat for p in found} == {a_seat}
        assert all(len(p.truth.legal_actions()) > 1 for p in found)


def test_one_position_has_no_interval_and_the_json_stays_valid(heuristic_games):
    assert beliefs.mean_interval([0.25]) == (0.25, None, None)
    report = beliefs.run([heuristic_games], "detective_eye", every=2, worlds=8)
    (row,) = report["rows"]
    row["tempered_gain"] = beliefs.mean_interval([0.25])  # as a one-position row has it
    json.dumps(report, allow_nan=False)  # strict JSON: an infinity would raise
    assert "+0.2500 (one position)" in beliefs.format_table(report)


def test_bad_input_is_named(tmp_path, heuristic_games):
    runner = CliRunner()
    args = ["bench", "beliefs", "--games-file", str(heuristic_games)]
    result = runner.invoke(main, [*args, "--game", "gallery_rush"])
    assert result.exit_code == 1
    assert "game 'gallery_rush' has no hidden holdings" in result.output
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"key": 3}\n')
    result = runner.invoke(main, ["bench", "beliefs", "--games-file", str(junk)])
    assert result.exit_code == 1 and "junk.jsonl:1: not a game stored by bench strength" in (
        result.output
    )
    result = runner.invoke(main, [*args, "--epsilon", "2"])
    assert result.exit_code == 2 and "--epsilon" in result.output
    missing = runner.invoke(main, ["bench", "beliefs", "--games-file", str(tmp_path / "no")])
    assert missing.exit_code == 2
    result = runner.invoke(main, [*args, "--max-positions", "0"])
    assert result.exit_code == 2 and "--max-positions" in result.output
    other = runner.invoke(main, [*args, "--game", "modern_art"])  # no Modern Art game stored
    assert other.exit_code == 0 and "(no decision of the searching bot" in other.output


def test_the_command_prints_a_row_per_player_count_and_opponents(heuristic_games):
    result = CliRunner().invoke(
        main,
        [
            "bench",
            "beliefs",
            "--games-file",
            str(heuristic_games),
            "--game",
            "detective_eye",
            "--every",
            "4",
            "--worlds",
            "16",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "| de4.jsonl | 4 | heuristic |" in result.output
