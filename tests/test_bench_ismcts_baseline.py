"""`atelier bench ismcts`: CPU-timed interleaved slices, paired ratios with an interval, every
player count, and an older revision's search measured alongside today's."""

from __future__ import annotations

import math
import time

import pytest
from click.testing import CliRunner

from evaluation.bench import ismcts as bench
from evaluation.cli import main


def test_the_baseline_runs_its_own_code_at_the_same_position():
    report = bench.run(
        ["modern_art"], seconds=0.6, rounds=2, baseline=bench.BASELINE_REV, players=[3]
    )
    [row] = report["rows"]
    assert report["baseline"] == bench.BASELINE_REV
    assert (row["game"], row["players"]) == ("modern_art", 3)
    assert row["baseline"]["simulations"] > 0 and row["baseline"]["cpu_seconds"] > 0
    assert row["vs_baseline"]["pairs"] == 2 and row["vs_baseline"]["low"] is not None
    assert "vs_baseline_target_met" in row  # Modern Art carries issue 15's 2x target
    assert "a322b0d" in bench.format_table(report)


def test_an_unknown_revision_is_named_in_the_error():
    with pytest.raises(bench.BaselineError, match="no-such-rev"):
        bench.run(["gallery_rush"], seconds=0.1, rounds=1, baseline="no-such-rev", players=[2])


def test_every_player_count_is_measured_by_default_and_on_the_cpu_clock():
    report = bench.run(["gallery_rush"], seconds=0.2, rounds=2)
    assert [(r["game"], r["players"]) for r in report["rows"]] == [
        ("gallery_rush", 2),
        ("gallery_rush", 3),
        ("gallery_rush", 4),
    ]
    for row in report["rows"]:
        assert row["params"]["players"] == row["players"]
        for side in ("ours", "openspiel"):
            figures = row[side]
            # (cpu_seconds is rounded to the millisecond: a loaded machine gives short slices)
            assert figures["per_cpu_s"] == pytest.approx(
                figures["simulations"] / figures["cpu_seconds"], rel=0.05
            )
            assert figures["per_cpu_s"] >= 0.99 * figures["per_wall_s"]  # CPU <= wall time
        assert row["ratio"]["pairs"] == 2
    assert len(report["load_before"]) == 3 and len(report["load_after"]) == 3
    assert "CPU second of the measuring thread" in report["clock"]


def test_a_slice_is_timed_by_cpu_not_by_the_wall_clock():
    def waits(_):
        time.sleep(0.2)  # a slice that waited for a core: wall time without CPU time
        return 10, 0.2

    timed = bench.timed_slice(waits, None)
    assert timed["simulations"] == 10 and timed["wall"] >= 0.2
    assert timed["cpu"] < 0.1


def test_the_ratio_is_the_geometric_mean_of_the_paired_rounds_with_its_interval():
    ours = [{"simulations": s, "cpu": 1.0, "wall": 1.0} for s in (200, 330, 240)]
    theirs = [
        {"simulations": s, "cpu": c, "wall": 9.0} for s, c in ((10, 1.0), (20, 1.0), (6, 0.5))
    ]
    ratio = bench.paired(ours, theirs)
    logs = [math.log(20.0), math.log(16.5), math.log(20.0)]
    mean = sum(logs) / 3
    assert ratio["value"] == pytest.approx(math.exp(mean), abs=0.01)
    assert ratio["low"] < ratio["value"] < ratio["high"] and ratio["pairs"] == 3
    one = bench.paired(ours[:1], theirs[:1])
    assert one["value"] == 20.0 and one["low"] is None
    assert bench.paired([{"simulations": 0, "cpu": 1.0}], [{"simulations": 5, "cpu": 1.0}]) == {
        "value": None,
        "low": None,
        "high": None,
        "pairs": 0,
    }


def _report(low: float, value: float) -> dict:
    row = {
        "game": "finger_auction",
        "players": 3,
        "ours": {"per_cpu_s": 3000.0, "per_wall_s": 2900.0},
        "openspiel": {"per_cpu_s": 150.0, "per_wall_s": 150.0},
        "ratio": {"value": value, "low": low, "high": value + 1.0, "pairs": 8},
    }
    return {
        "rollouts": "uniform over legal actions",
        "worlds": 32,
        "rounds": 8,
        "baseline": None,
        "rows": [row],
        "min_ratio": row["ratio"],
        "target_met": value >= bench.TARGET_RATIO,
        "target_met_at_low_end": low >= bench.TARGET_RATIO,
        "load_before": [0.5, 0.4, 0.3],
        "load_after": [1.5, 0.6, 0.4],
    }


def test_the_verdict_says_whether_the_lower_ends_clear_the_target_too():
    text = bench.format_table(_report(14.2, 15.3))
    assert "lowest ratio 15.3 [14.2, 16.3] (target >= 15: met; some lower end below)" in text
    assert "Load average [0.5, 0.4, 0.3] before, [1.5, 0.6, 0.4] after" in text
    table = bench.markdown(_report(15.1, 16.0))
    assert "| Finger Auction | 3 | 3,000 | 150 | 16.0 [15.1, 17.0] |" in table
    assert "met; every lower end above it" in table


def test_a_player_count_no_game_has_is_a_usage_error():
    result = CliRunner().invoke(
        main, ["bench", "ismcts", "--game", "detective_eye", "--players", "5", "--no-baseline"]
    )
    assert result.exit_code == 2, result.output
    assert "[5] players (detective_eye 2-4)" in result.output
    assert "Traceback" not in result.output
