"""The sequential test: its error rates on synthetic matches of known Elo, its vectorised and
plain forms agree, and a tournament under it stops, resumes and decides deterministically."""

from __future__ import annotations

import json
from contextlib import contextmanager

import numpy as np
import pytest
from click.testing import CliRunner

from bots import Budget
from evaluation.cli import main
from evaluation.tournament import ExecutorHandle, SerialExecutor, TournamentSpec, run_tournament
from evaluation.tournament.sprt import MIN_DEALS, Sprt, error_rates, fixed_deals, run_many

GAME = "gallery_rush"


@contextmanager
def serial():
    yield ExecutorHandle(SerialExecutor(), 1, "serial")


@pytest.mark.parametrize("elo1", [20, 50, 100])
def test_error_rates_are_the_requested_ones(elo1):
    """Type I and II within 0.01 of alpha = beta = 0.05 over 4,000 simulated tests each, and
    fewer deals on average than the fixed-size test at the same rates."""
    test = Sprt(0, elo1)
    got = error_rates(test, tests=4000, seed=elo1)
    assert abs(got["type_1"] - 0.05) <= 0.01, got
    assert abs(got["type_2"] - 0.05) <= 0.01, got
    assert got["undecided_at_elo0"] == got["undecided_at_elo1"] == 0
    assert got["mean_deals_at_elo0"] < got["fixed_deals"]
    assert got["mean_deals_at_elo1"] < got["fixed_deals"]


def test_other_rates_are_met_too():
    got = error_rates(Sprt(-10, 40, alpha=0.1, beta=0.02), tests=4000, seed=3)
    assert abs(got["type_1"] - 0.1) <= 0.01 and abs(got["type_2"] - 0.02) <= 0.01, got


def test_vectorised_runs_decide_as_the_plain_test():
    test = Sprt(0, 60)
    rng = np.random.default_rng(1)
    scores = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], p=[0.1, 0.2, 0.3, 0.25, 0.15], size=(50, 400))

    def draw(k, alive):
        return scores[alive, k - 1]

    many = run_many(test, draw, 50, 400)
    for i in range(50):
        one = test.run(list(scores[i]))
        want = {"H1": 1, "H0": 0, None: -1}[one["decision"]]
        assert many["decision"][i] == want and many["deals"][i] == one["deals"]


def test_bad_hypotheses_are_refused():
    with pytest.raises(ValueError, match="ELO0 < ELO1"):
        Sprt(10, 0)
    with pytest.raises(ValueError, match="two numbers"):
        Sprt.parse("10")
    with pytest.raises(ValueError, match="alpha"):
        Sprt(0, 10, alpha=0.7)
    assert fixed_deals(Sprt(0, 50), 0.3) > fixed_deals(Sprt(0, 100), 0.3)


def _spec(deals=60, luck=None):
    return TournamentSpec.build(
        GAME,
        {},
        [(None, "heuristic"), (None, "random")],
        deals=deals,
        seed=2,
        budget=Budget(simulations=1),
        luck=luck,
    )


def test_a_tournament_stops_when_the_test_decides_and_resumes_to_the_same_answer(tmp_path):
    test = Sprt(0, 150)
    out = run_tournament(_spec(), tmp_path / "a.jsonl", serial, sprt=test, bootstrap=0)
    report = out.summary["sprt"]
    assert report["decision"] == "H1"  # the heuristic beats random by far more than 150 Elo
    assert report["deals"] < 60 and len(report["llr_trace"]) == report["deals"]
    assert report["llr"] >= report["bounds"][1]
    assert out.summary["games"]["played"] == report["games"] == 2 * report["deals"]
    assert report["elo_ci95"][0] <= report["elo"] <= report["elo_ci95"][1]
    assert report["los"] > 0.99
    # Other batch sizes and a rerun on the same file: the same decision on the same deals.
    other = run_tournament(
        _spec(), tmp_path / "b.jsonl", serial, sprt=test, bootstrap=0, batch_size=5
    )
    rerun = run_tournament(_spec(), tmp_path / "a.jsonl", serial, sprt=test, bootstrap=0)
    assert rerun.played == 0
    for again in (other, rerun):
        assert again.summary["sprt"] == report
        assert again.summary["bots"] == out.summary["bots"]


def test_a_game_limit_ends_the_test_undecided(tmp_path):
    """Fewer deals than the test's minimum: it can only end at the limit, undecided."""
    out = run_tournament(
        _spec(deals=MIN_DEALS - 1), tmp_path / "g.jsonl", serial, sprt=Sprt(0, 150), bootstrap=0
    )
    report = out.summary["sprt"]
    assert report["decision"] is None and report["deals"] == MIN_DEALS - 1
    assert "limit" in report["meaning"]
    assert out.summary["games"]["played"] == 2 * (MIN_DEALS - 1)


def test_cli_sprt_with_luck_corrected_scores(tmp_path):
    out = tmp_path / "s.jsonl"
    args = [
        "tournament",
        GAME,
        "--bot",
        "heuristic",
        "--bot",
        "random",
        "--sprt",
        "0,150",
        "--luck-corrected",
        "--luck-value",
        '{"value": "heuristic"}',
        "--seed",
        "2",
        "--workers",
        "0",
        "--no-plots",
        "-o",
        str(out),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "SPRT heuristic vs random" in result.output and "decision: H1" in result.output
    assert "luck-corrected (AIVAT)" in result.output
    summary = json.loads((tmp_path / "s.summary.json").read_text())
    assert summary["sprt"]["scores"] == "luck-corrected"


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--sprt", "0"], "ELO0,ELO1"),
        (["--sprt", "0,10", "--bot", "ismcts"], "exactly two"),
        (["--sprt", "20,10"], "ELO0 < ELO1"),
        (["--luck-value", '{"value": "heuristic"}'], "only with --luck-corrected"),
        (["--luck-corrected", "--luck-value", "{"], "not valid JSON"),
        (["--luck-corrected", "--luck-value", '{"value": "x"}'], "unknown value estimate"),
    ],
)
def test_cli_refuses_bad_test_and_luck_settings(tmp_path, extra, message):
    args = ["tournament", GAME, "--bot", "heuristic", "--bot", "random", "--workers", "0"]
    result = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "x.jsonl"), *extra])
    assert result.exit_code != 0 and message in result.output, result.output
    assert "Traceback" not in result.output


# --- every figure the CLI prints agrees with the others or says what it is -----------------
NUM = r"([+-]\d+)"
INTERVAL = rf"{NUM} \[{NUM}, {NUM}\]"


def _elo_figures(output: str) -> dict[str, tuple[int, int, int]]:
    """The Elo figures of B against A the table, the luck section and the SPRT line print,
    as (point, low, high) from B's side (the SPRT line's "A over B" negated)."""
    import re

    figures = {}
    table = re.search(rf"^B\s+\d+ .*\]\s+{INTERVAL}\s+[\d.]+$", output, re.M)
    figures["table"] = tuple(int(x) for x in table.groups())
    luck = re.search(rf"^\s+B\s+raw\s+{INTERVAL}\s+corrected\s+{INTERVAL}", output, re.M)
    if luck:
        figures["luck raw"] = tuple(int(x) for x in luck.groups()[:3])
        figures["luck corrected"] = tuple(int(x) for x in luck.groups()[3:])
    sprt = re.search(
        rf"^A over B on the test's .* pairwise Elo {INTERVAL} \(t interval\)", output, re.M
    )
    if sprt:
        point, lo, hi = (int(x) for x in sprt.groups())
        figures["sprt"] = (-point, -hi, -lo)
    return figures


def _cli(tmp_path, *extra):
    out = tmp_path / "agree.jsonl"
    args = ["tournament", GAME, "--bot", "A=heuristic", "--bot", "B=random"]
    args += ["--workers", "0", "--no-plots", "--bootstrap", "200", "-o", str(out), *extra]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result, json.loads((tmp_path / "agree.summary.json").read_text())


def test_cli_sprt_line_agrees_with_the_table(tmp_path):
    """Seed 5: the heuristic wins 17.5 of the 18 games the test uses. The SPRT line used to
    say +618 [+398, +1600] beside the table's -614 [-1302, -416] (another estimator with an
    arbitrary clip), and "24 games played now" beside "18/120 games"."""
    result, summary = _cli(tmp_path, "--seed", "5", "--sprt", "0,100", "--batch", "6")
    figures = _elo_figures(result.stdout)
    assert figures["sprt"][0] == figures["table"][0] == -614
    b = next(row for row in summary["bots"] if row["label"] == "B")
    assert summary["sprt"]["elo"] == pytest.approx(-b["rating"], abs=1e-9)
    # The SPRT's interval is the score's t interval, the table's a bootstrap; each says so,
    # and neither goes past the figure of a perfect record (the table's smoothing).
    assert "(t interval)" in result.stdout and "bootstrap over deals" in result.stdout
    assert min(figures["sprt"][1], figures["table"][1]) >= -1302
    assert "(anchor A = 0)" in result.stdout
    # 24 games were played (the batch in flight when the test decided), 18 are summarised.
    used = summary["games"]["played"]
    assert (used, summary["sprt"]["games"]) == (18, 18)
    assert "24 games played now" in result.stderr
    assert f"use the {used} games up to its decision, the other 6" in result.stderr


def test_cli_luck_and_sprt_figures_agree(tmp_path):
    """The luck section's raw Elo is the table's point (it was -338 beside -337), and the
    SPRT on corrected scores prints the luck section's corrected Elo and interval."""
    luck = ["--luck-corrected", "--luck-value", '{"value": "heuristic"}', "--deals", "12"]
    result, summary = _cli(tmp_path, "--seed", "1", "--sprt", "0,100", *luck)
    figures = _elo_figures(result.stdout)
    assert figures["luck raw"][0] == figures["table"][0]
    assert figures["sprt"] == figures["luck corrected"]
    assert "on the test's luck-corrected scores" in result.stdout
    # Same point, different interval methods: the luck section says which is which.
    assert figures["luck raw"][1:] != figures["table"][1:]
    assert "95% t interval over deals" in result.stdout
    assert "the table's elo is a Bradley-Terry fit with a bootstrap interval" in result.stdout
    assert summary["sprt"]["elo"] == pytest.approx(
        -summary["luck"]["elo"]["bots"]["B"]["corrected"]["elo"]
    )
