"""Tournaments on real executors: process pools, a Dask local cluster, the CLI, kill + resume.

The Dask cluster binds 127.0.0.1 only, has no dashboard and is closed by the test; processes
started here are stopped by their own ids (process groups of children this test started).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaluation.cli import main
from evaluation.tournament import (
    ExecutorHandle,
    SerialExecutor,
    TournamentSpec,
    deterministic_part,
    open_executor,
    run_tournament,
)

GAME = "gallery_rush"
BOTS = [("a", "random"), ("b", "random"), ("c", "random")]
ROOT = Path(__file__).resolve().parents[1]


def strip(summary):
    return {k: v for k, v in summary.items() if k != "timing"}


def canon(records):
    return sorted((deterministic_part(r) for r in records), key=lambda r: r["index"])


@contextmanager
def serial():
    yield ExecutorHandle(SerialExecutor(), 1, "serial")


def test_identical_results_on_every_executor_and_worker_count(tmp_path):
    spec = TournamentSpec.build(GAME, {"players": 2}, BOTS, deals=2, seed=3)
    runs = {"serial": run_tournament(spec, tmp_path / "serial.jsonl", serial, bootstrap=200)}
    for name, kwargs, batch in [
        ("pool1", {"workers": 1}, None),
        ("pool2", {"workers": 2}, 1),
        ("dask2", {"dask_local": 2}, 2),
    ]:
        runs[name] = run_tournament(
            spec,
            tmp_path / f"{name}.jsonl",
            lambda kw=kwargs: open_executor(**kw),
            batch_size=batch,
            bootstrap=200,
        )
    reference = runs["serial"]
    assert reference.played == spec.total_games == 12
    for name, outcome in runs.items():
        assert canon(outcome.records) == canon(reference.records), name
        assert strip(outcome.summary) == strip(reference.summary), name
        lines = (tmp_path / f"{name}.jsonl").read_text().splitlines()
        assert len(lines) == spec.total_games, name


def test_local_dask_cluster_workers_run_without_the_profiler():
    # The 10 ms statistical profiler and 20 ms tick of a default Dask worker take CPU from the
    # games on the same core; the clusters we start turn them down (see executors.py).
    import dask

    from evaluation.tournament.executors import dask_client

    with dask_client(local_workers=1) as client:
        got = client.run(
            lambda: (
                dask.config.get("distributed.worker.profile.enabled"),
                dask.config.get("distributed.admin.tick.interval"),
            )
        )
    assert list(got.values()) == [(False, "500ms")]


def test_cli_errors_are_messages_not_tracebacks(tmp_path):
    runner = CliRunner()
    out = str(tmp_path / "g.jsonl")
    two = ["tournament", GAME, "--bot", "a=random", "--bot", "b=random", "-o", out]
    cases = [
        (["tournament", GAME, "--bot", "random"], "at least two bots"),
        (["tournament", GAME, "--bot", "random", "--bot", "nobot"], "unknown bot"),
        (["tournament", GAME, "--bot", "a=random", "--bot", "b={bad"], "not valid JSON"),
        ([*two, "-p", "players=7"], "players"),
        ([*two, "-p", "colour=red"], "unknown parameter 'colour'"),
        ([*two, "--dask", "x", "--dask-local", "2"], "either --dask or --dask-local"),
        ([*two, "--dask", "x"], "bad Dask scheduler address 'x'"),
        ([*two, "--dask", "tcp://127.0.0.1:1"], "cannot reach the Dask scheduler"),
        ([*two, "--simulations", "0"], "simulations"),
        ([*two, "-o", str(tmp_path / "missing" / "g.jsonl")], "does not exist"),
        (["tournament", "chess", "--bot", "random", "--bot", "random"], "chess"),
        (["bench", "tournament", "--bot", "random"], "give two bots, got 1"),
        (["bench", "tournament", "--bot", "random", "--bot", "nobot"], "unknown bot"),
        (["bench", "tournament", "--simulations", "0"], "simulations"),
    ]
    for args, message in cases:
        result = runner.invoke(main, args)
        assert result.exit_code != 0, args
        assert message in result.output, (args, result.output)
        assert "Traceback" not in result.output
    # A games file of another tournament is refused with a hint.
    ok = [*two, "--deals", "1", "--workers", "0", "--no-plots"]
    assert runner.invoke(main, ok).exit_code == 0
    result = runner.invoke(main, [*ok, "--seed", "5"])
    assert result.exit_code == 1 and "different tournament" in result.output


def test_cli_writes_games_summary_table_and_plots(tmp_path):
    out = tmp_path / "res.jsonl"
    result = CliRunner().invoke(
        main,
        [
            "tournament",
            GAME,
            "--bot",
            "a=random",
            "--bot",
            "b=random",
            "--deals",
            "2",
            "--workers",
            "0",
            "--seed",
            "4",
            "--bootstrap",
            "100",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "pairwise" in result.output and "elo" in result.output
    summary = json.loads((tmp_path / "res.summary.json").read_text())
    assert summary["games"]["complete"] and summary["games"]["played"] == 4
    for png in ("res.ratings.png", "res.pairwise.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_resume_after_a_kill_at_a_random_point(tmp_path):
    # The kill must land mid-run: it comes within the first quarter of 64 games, so at least
    # 48 games (over a second here) are still to play when the test sees its line, however
    # fast the machine or however late the test's poll (16 games, 0.3 s, were a narrow window).
    spec = TournamentSpec.build(GAME, {"players": 2}, BOTS[:2], deals=32, seed=11)
    reference = run_tournament(spec, tmp_path / "ref.jsonl", serial, bootstrap=200)
    out = tmp_path / "games.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "evaluation.cli",
        "tournament",
        GAME,
        "-p",
        "players=2",
        *[x for label, name in BOTS[:2] for x in ("--bot", f"{label}={name}")],
        "--deals",
        "32",
        "--seed",
        "11",
        "--workers",
        "2",
        "--batch",
        "1",
        "--bootstrap",
        "200",
        "--no-plots",
        "-o",
        str(out),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kill_after = random.Random(os.getpid()).randint(1, spec.total_games // 4)
    proc = subprocess.Popen(
        cmd,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while _lines(out) < kill_after and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert proc.poll() is None, proc.stderr.read().decode()
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its pool workers, mid-game
    finally:
        proc.wait(timeout=30)
    killed_at = _lines(out)
    assert kill_after <= killed_at < spec.total_games
    resumed = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert f"{killed_at} resumed" in resumed.stderr.decode()
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(records) == spec.total_games  # none lost, none duplicated
    assert canon(records) == canon(reference.records)
    summary = json.loads((tmp_path / "games.summary.json").read_text())
    assert strip(summary) == strip(json.loads(json.dumps(reference.summary)))


@pytest.mark.slow
def test_bench_tournament_reports_ratios():
    from evaluation.bench import tournament as bench

    report = bench.run(GAME, {}, n_games=16, rounds=1)
    assert set(report["ratios"]) == {"local_2_vs_local_1", "dask_local_2_vs_local_2"}
    assert report["identical_results"] is True


def test_cli_progress_off_a_terminal_is_plain_lines(tmp_path):
    """CliRunner's stderr is no terminal: tqdm used to stay silent there (and would write \\r
    redraws); now each progress line is a whole line. Six games: a line at each tenth, so
    one per game."""
    args = ["tournament", GAME, "--bot", "heuristic", "--bot", "random", "--deals", "3"]
    args += ["--workers", "0", "--no-plots", "--bootstrap", "0", "-o", str(tmp_path / "p.jsonl")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "\r" not in result.stderr
    lines = [x for x in result.stderr.splitlines() if " games, " in x]
    assert [x.split(" ")[0] for x in lines] == [f"{k}/6" for k in range(1, 7)]
    assert "left" in lines[0] and "left" not in lines[-1]


def test_tournament_progress_estimates_from_this_runs_games_and_says_at_most_for_a_test():
    """A resumed run's games cost no time: the estimate counts only the games played now; a
    sequential test may stop early, so its estimate is an upper bound."""
    import io

    from evaluation.progress import Progress, duration

    now = [0.0]
    out = io.StringIO()
    bar = Progress("", "game", 120, initial=10, file=out, clock=lambda: now[0])
    for _ in range(2):  # 20 s a game played now (the 10 resumed cost nothing), 109 to go
        now[0] += 20.0
        bar.update()
    bar.close()
    assert out.getvalue().splitlines() == ["11/120 games, 20 s, ~36 min left", "12/120 games, 40 s"]
    at_most = io.StringIO()
    Progress("", "game", 4, file=at_most, at_most=True, clock=lambda: 1.0).update()
    assert at_most.getvalue().endswith("left at most\n")
    assert [duration(s) for s in (40, 360, 9000)] == ["40 s", "6 min", "2.5 h"]
