"""`atelier bench ismcts` measures an older revision's search alongside today's."""

from __future__ import annotations

import pytest

from evaluation.bench import ismcts as bench


def test_the_baseline_runs_its_own_code_at_the_same_position():
    report = bench.run(["modern_art"], seconds=0.6, rounds=2, baseline=bench.BASELINE_REV)
    row = report["games"]["modern_art"]
    assert report["baseline"] == bench.BASELINE_REV
    assert row["baseline"]["simulations"] > 0
    assert row["vs_baseline"] == pytest.approx(
        row["ours"]["per_s"] / row["baseline"]["per_s"], rel=0.01
    )
    assert "vs_baseline_target_met" in row  # Modern Art carries issue 15's 2x target
    assert "a322b0d" in bench.format_table(report)


def test_an_unknown_revision_is_named_in_the_error():
    with pytest.raises(bench.BaselineError, match="no-such-rev"):
        bench.run(["gallery_rush"], seconds=0.1, rounds=1, baseline="no-such-rev")
