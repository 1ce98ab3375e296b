"""``atelier bench strength``: budgets, player counts, the legacy pairing and the docs table.

The games themselves are played by the slow strength tests; these run a few tiny games.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from evaluation import luck
from evaluation.baselines import ISMCTS_LEGACY
from evaluation.bench import strength
from evaluation.cli import main


def test_budgets_parse_as_simulations_or_milliseconds_and_bad_ones_are_named():
    assert strength.parse_budget("1000") == {"simulations": 1000}
    assert strength.parse_budget("500ms") == {"milliseconds": 500.0}
    for bad in ("0", "fast", "-5ms", ""):
        with pytest.raises(ValueError, match="a budget is"):
            strength.parse_budget(bad)


def test_every_supported_player_count_is_listed():
    assert strength.player_counts("detective_eye") == [2, 3, 4]
    assert strength.player_counts("modern_art") == [3, 4, 5]


def test_rows_per_player_count_and_budget_on_the_same_deals():
    report = strength.run(
        ["finger_auction"],
        games_per_pairing=2,
        pairings=("ismcts-vs-legacy",),
        players=[2, 3, 5],  # 5 players is not a Finger Auction setting: skipped
        budgets=[{"simulations": 5}, {"milliseconds": 5.0}],
        seed=3,
    )
    rows = report["rows"]
    assert [(r["players"], r["budget"]) for r in rows] == [
        (2, {"simulations": 5}),
        (2, {"milliseconds": 5.0}),
        (3, {"simulations": 5}),
        (3, {"milliseconds": 5.0}),
    ]
    for r in rows:
        assert r["games"] == r["players"] * max(1, -(-2 // r["players"]))  # seats rotated
        assert r["b"] == "ismcts (a322b0d)"
        assert r["ci95"][0] <= r["score"] <= r["ci95"][1]
        assert r["simulations_per_move_a"] >= 1
    # A fixed number of simulations is what every move took; a time budget's table says
    # how many simulations the machine gave it.
    assert rows[0]["simulations_per_move_a"] == 5.0
    table = strength.markdown(report, "cmd")
    assert "| 5 ms (" in table and " sims a move) |" in table
    assert "| 5 sims |" in table


def test_the_old_search_can_get_its_own_budget_to_measure_what_time_is_worth():
    report = strength.run(
        ["finger_auction"],
        games_per_pairing=2,
        pairings=("ismcts-vs-legacy",),
        players=[2],
        budgets=[{"simulations": 20}],
        ismcts_options=ISMCTS_LEGACY.spec()["options"],
        legacy_budget={"simulations": 5},
    )
    (row,) = report["rows"]
    assert (row["a"], row["b"]) == ("ismcts (a322b0d)", "ismcts (a322b0d)")
    assert row["budget"] == {"simulations": 20} and row["budget_b"] == {"simulations": 5}
    assert report["legacy_budget"] == {"simulations": 5}
    assert "| 20 sims vs 5 sims | ismcts (a322b0d) vs ismcts (a322b0d) |" in strength.markdown(
        report, "cmd"
    )
    assert "B at 5 sims" in strength.format_table(report)
    # Without it, both play the row's budget and the row says nothing more.
    same = strength.run(["finger_auction"], 2, ("ismcts-vs-legacy",), players=[2], simulations=5)
    assert "budget_b" not in same["rows"][0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pairing", "ismcts-vs-legacy", "--legacy-budget", "soon"], "a budget is"),
        (["--pairing", "ismcts-vs-heuristic", "--legacy-budget", "600"], "only the ismcts-vs"),
    ],
)
def test_a_bad_legacy_budget_is_named(args, message):
    result = CliRunner().invoke(main, ["bench", "strength", "--game", "finger_auction", *args])
    assert result.exit_code != 0
    assert "--legacy-budget" in result.output and message in result.output


def test_the_docs_section_is_replaced_and_others_are_kept(tmp_path):
    doc = tmp_path / "bots.md"
    doc.write_text(f"# Bots\n\n{strength.SECTIONS_ANCHOR}\n\n## Commands\n")
    strength.write_docs(doc, "a", "first table")
    strength.write_docs(doc, "b", "other table")
    strength.write_docs(doc, "a", "new table")
    text = doc.read_text()
    assert "first table" not in text
    assert text.index("new table") < text.index("other table") < text.index("## Commands")
    assert text.count("<!-- bench-strength a -->") == 1


def test_the_command_writes_its_table_and_command_into_the_docs(tmp_path):
    doc = tmp_path / "bots.md"
    doc.write_text("# Bots\n")
    args = [
        "bench", "strength", "--game", "finger_auction", "--players", "2",
        "--pairing", "ismcts-vs-random", "--games", "2", "--budget", "5",
        "--docs", str(doc), "--docs-section", "t",
    ]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    text = doc.read_text()
    assert "| Finger Auction | 2 | 5 sims | ismcts vs random | 2 |" in text
    assert "--docs-section t" in text.split("<!-- bench-strength t -->")[1]
    bad = CliRunner().invoke(main, ["bench", "strength", "--budget", "soon"])
    assert bad.exit_code != 0 and "a budget is" in bad.output


def test_a_stopped_run_resumes_from_its_games_file_without_replaying(tmp_path, monkeypatch):
    kwargs = dict(
        games_per_pairing=4,
        pairings=("ismcts-vs-heuristic",),
        players=[2],
        budgets=[{"simulations": 4}],
        seed=5,
    )
    first_half = strength.run(
        ["gallery_rush"], **{**kwargs, "games_per_pairing": 2}, games_file=tmp_path / "g.jsonl"
    )
    assert len((tmp_path / "g.jsonl").read_text().splitlines()) == 2
    full = strength.run(["gallery_rush"], **kwargs, games_file=tmp_path / "g.jsonl")
    fresh = strength.run(["gallery_rush"], **kwargs)
    for key in ("games", "score", "ci95", "wins"):
        assert full["rows"][0][key] == fresh["rows"][0][key]
    assert first_half["rows"][0]["games"] == 2

    def no_play(*args, **kw):
        raise AssertionError("a stored game was played again")

    monkeypatch.setattr(strength, "play_one", no_play)
    again = strength.run(["gallery_rush"], **kwargs, games_file=tmp_path / "g.jsonl")
    assert again["rows"][0]["score"] == full["rows"][0]["score"]


def test_luck_corrected_rows_keep_the_raw_score_and_add_the_corrected_one(tmp_path, monkeypatch):
    # Gallery Rush's default estimate takes 128 rollouts per chance outcome; 8 run the same
    # code in a sixteenth of the time.
    few = {"value": "rollout", "rollouts": 8, "policy": "random"}
    monkeypatch.setitem(luck.DEFAULT_VALUE, "gallery_rush", few)
    kwargs = {
        "games_per_pairing": 6,
        "pairings": ("ismcts-vs-random",),
        "players": [2, 3],
        "budgets": [{"simulations": 2}],
        "seed": 2,
        "luck_corrected": True,
        "games_file": tmp_path / "g.jsonl",
    }
    report = strength.run(["gallery_rush"], **kwargs)
    rows = report["rows"]
    for r in rows:
        low, high = r["corrected_ci95"]
        assert low <= r["corrected_score"] <= high
        assert r["se_ratio"] is None or r["se_ratio"] >= 0  # None: raw deal means all equal
        assert r["luck_value"] == few  # the game's default estimate, as the row says
    assert any(r["se_ratio"] is not None for r in rows)
    # Stored games get their correction once: a rerun reads it back unchanged.
    again = strength.run(["gallery_rush"], **kwargs)
    assert [r["corrected_score"] for r in again["rows"]] == [r["corrected_score"] for r in rows]
    table = strength.markdown(report, "cmd").splitlines()
    assert "luck-corrected" in table[2]
    assert all(line.count("|") == table[2].count("|") for line in table[2:])
    # Modern Art's value estimate is its heuristic evaluation: its rows stay raw.
    ma = strength.run(
        ["modern_art"], **{**kwargs, "pairings": ("heuristic-vs-random",), "players": [3],
                           "games_per_pairing": 3, "budgets": [{"simulations": 1}]}
    )  # fmt: skip
    assert "corrected_score" not in ma["rows"][0]


def test_luck_corrected_needs_a_game_with_a_rollout_estimate():
    result = CliRunner().invoke(
        main, ["bench", "strength", "--game", "modern_art", "--luck-corrected", "--games", "1"]
    )
    assert result.exit_code != 0 and "no luck-corrected share for modern_art" in result.output
