"""`atelier bench engine --baseline REV` measures an older revision's engines alongside today's."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from evaluation.bench import engine as bench
from evaluation.cli import main


def test_the_baseline_plays_the_same_games_on_its_own_code():
    report = bench.run(["gallery_rush"], seconds=0.4, rounds=2, baseline="a322b0d")
    row = report["games"]["gallery_rush"]
    assert report["baseline"] == "a322b0d"
    assert row["same_games"] is True  # the engines were pinned through the refactor
    assert row["baseline"]["engine"]["playouts"] > 0 and row["baseline"]["spiel"]["playouts"] > 0
    assert row["engine_vs_baseline"] == pytest.approx(
        row["engine"]["actions_per_cpu_s"] / row["baseline"]["engine"]["actions_per_cpu_s"],
        rel=0.01,
    )
    assert "engine vs a322b0d" in bench.format_table(report)


def test_an_unknown_revision_is_a_clear_command_error():
    result = CliRunner().invoke(
        main,
        ["bench", "engine", "--game", "gallery_rush", "--seconds", "0.1", "--baseline", "nope"],
    )
    assert result.exit_code == 1
    assert "baseline revision 'nope' is not a commit" in result.output
