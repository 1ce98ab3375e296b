"""``atelier bench review`` (``evaluation.bench.review``): review time per decision, each side
in a fresh process, by the wall or the CPU clock, repeats interleaved with a 95% interval."""

from __future__ import annotations

import pytest

from evaluation.bench import review as bench


def test_each_side_is_timed_in_a_fresh_process_by_the_chosen_clock():
    report = bench.run(
        ["gallery_rush"], decisions=1, budget={"simulations": 8}, samples=16, repeats=2, clock="cpu"
    )
    assert report["clock"] == "cpu" and report["repeats"] == 2
    (row,) = report["rows"]
    assert row["new"]["decisions"] == 1 and row["new"]["ms_per_decision"] > 0
    assert "ratio" not in row  # no baseline asked for
    assert "cpu clock, 2 interleaved repeat(s)" in bench.format_table(report)


def test_a_bad_clock_or_repeat_count_is_named():
    with pytest.raises(ValueError, match="clock"):
        bench.run(["gallery_rush"], decisions=1, clock="sundial")
    with pytest.raises(ValueError, match="repeats"):
        bench.run(["gallery_rush"], decisions=1, repeats=0)


def test_the_ratio_interval_is_a_t_interval_over_the_repeats():
    assert bench._t_interval([0.9]) is None
    low, high = bench._t_interval([0.8, 1.0, 1.2])
    # mean 1.0, sd 0.2, t(2) = 4.303: half-width 4.303 * 0.2 / sqrt(3) = 0.497
    assert low == pytest.approx(0.503, abs=1e-3) and high == pytest.approx(1.497, abs=1e-3)
