"""``atelier bench strength``: budgets, player counts, the legacy pairing and the docs table.

The games themselves are played by the slow strength tests; these run a few tiny games.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

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
