"""``atelier bench hint`` (issue 40): option errors, the JSON report, the sampled time split and
the ratios against a baseline measured in the same run. Tiny budgets: shapes and arithmetic,
never speed."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

import games
from evaluation.bench import _hint_shared as shared
from evaluation.bench import hint as bench
from evaluation.bench.baseline import REPO_ROOT, BaselineError
from evaluation.cli import main
from server.config import ServiceConfig

TINY_MS = 15.0


def _invoke(*args: str):
    return CliRunner().invoke(main, ["bench", "hint", *args])


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--positions", "0"], "--positions"),
        (["--profiled", "-1"], "--profiled"),
        (["--milliseconds", "0"], "--milliseconds"),
        (["--game", "chess"], "unknown game(s) ['chess']"),
        (["--players", "9"], "no chosen game is played by [9] players"),
        (["--game", "detective_eye", "--players", "5"], "[5] players (detective_eye 2-4)"),
        (
            ["--game", "detective_eye", "--game", "modern_art", "--players", "5"],
            "detective_eye is played by 2-4 players, none of [5]",
        ),
    ],
)
def test_bad_options_are_named(args: list[str], says: str) -> None:
    result = _invoke(*args)
    assert result.exit_code == 2, result.output
    assert says in result.output
    assert "Traceback" not in result.output


def test_an_unknown_baseline_revision_is_a_command_error() -> None:
    result = _invoke("--game", "finger_auction", "--players", "2", "--baseline", "no-such-rev")
    assert result.exit_code == 1, result.output
    assert "baseline revision 'no-such-rev' is not a commit" in result.output


def test_settings_cover_every_supported_player_count() -> None:
    chosen = bench.settings(None, None)
    assert ("modern_art", 5) in chosen and ("detective_eye", 2) in chosen
    assert ("modern_art", 2) not in chosen
    assert bench.settings(["finger_auction", "modern_art"], [4]) == [
        ("finger_auction", 4),
        ("modern_art", 4),
    ]


def test_the_served_budget_and_bot_are_the_services() -> None:
    assert ServiceConfig.default_budget_ms == bench.BUDGET_MS
    assert ServiceConfig.default_bots[0] == bench.BOT


def test_positions_are_seeded_decisions_with_a_choice() -> None:
    first = bench.position_infosets("gallery_rush", 3, 4, 3)
    assert first == bench.position_infosets("gallery_rush", 3, 4, 3)
    assert first != bench.position_infosets("gallery_rush", 3, 5, 3)
    defn = games.definition("gallery_rush")
    params = defn.validate_params({"players": 3})
    for infoset in first:
        engine = games.sample_engine(defn, params, infoset, random.Random(0))
        assert engine.current_player() == infoset["seat"]
        assert len(engine.legal_actions()) > 1


def test_json_report_shape() -> None:
    result = _invoke(
        "--game",
        "finger_auction",
        "--players",
        "2",
        "--positions",
        "2",
        "--profiled",
        "1",
        "--milliseconds",
        str(TINY_MS),
        "--json",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["budget_ms"] == TINY_MS and report["baseline"] is None
    assert set(report["latency"]) == {"hints", "p50_ms", "p99_ms", "target_ms", "target_met"}
    assert report["latency"]["hints"] == 2
    (row,) = report["rows"]
    assert (row["game"], row["players"]) == ("finger_auction", 2)
    new = row["new"]
    assert set(new["simulations"]) == {"median", "q1", "q3"}
    assert new["simulations"]["q1"] <= new["simulations"]["median"] <= new["simulations"]["q3"]
    assert len(new["hints"]) == 2 and all(h["simulations"] >= 1 for h in new["hints"])
    assert set(new["split"]["ms"]) == set(shared.GROUPS)
    assert sum(new["split"]["share"].values()) == pytest.approx(1.0, abs=1e-3)
    # The split says which path it was measured on, in every output.
    assert new["split"]["path"] == "pure Python" and new["split"]["compiled_speed"] > 0
    assert report["split_path"] == bench.SPLIT_PATH
    assert "ratio" not in row
    table = bench.markdown(report)
    assert table.startswith("| game | players | simulations a hint (median [quartiles]) |")
    assert "| Finger Auction | 2 |" in table and "| Finger Auction | 2 | new |" in table
    assert f"Time split {bench.SPLIT_PATH}" in table
    assert bench.SPLIT_PATH in bench.format_table(report)


def test_samples_are_weighted_by_the_threads_cpu_time_not_its_wall_time() -> None:
    """The sampler's total is the CPU time of the sampled thread between entering and leaving
    it: a sleep inside adds wall time, not samples' weight. Measured CPU against CPU, so a busy
    machine (fewer samples, a slower thread) changes neither side of the comparison."""
    before = time.thread_time()
    with shared.StackSampler() as sampler:
        spin = time.thread_time() + 0.02
        while time.thread_time() < spin:
            pass
        time.sleep(0.05)
    cpu_ms = (time.thread_time() - before) * 1000.0
    total_ms = sum(seconds for _, seconds in sampler.samples) * 1000.0
    assert sampler.cpu
    assert total_ms == pytest.approx(sampler.total * 1000.0, rel=1e-9)
    # At most the thread's CPU around the block, at least that less the sampler's own start
    # and stop (a thread started and joined: well under a millisecond of this thread's CPU).
    assert cpu_ms - 1.0 <= total_ms <= cpu_ms
    assert total_ms < 50.0  # the sleep is not in it


def _profile_job(game: str, players: int, ms: float) -> dict:
    (infoset,) = bench.position_infosets(game, players, 0, 1)
    return {
        "game": game,
        "params": {"players": players},
        "infoset": infoset,
        "budget": {"milliseconds": ms},
        "seed": 0,
        "bot": "ismcts",
    }


def test_the_split_sees_the_search_on_the_pure_python_path() -> None:
    """Regression: the engines, heuristics and search are compiled, and a sampler sees no frame
    of compiled code, so profiled in the served process a hint's time all fell to set-up
    (``searched == 0``). The bench profiles in a pure-Python worker on this checkout, which
    loads none of the compiled modules."""
    worker = bench.Baseline(bench.THIS_CHECKOUT, REPO_ROOT, pure=True)
    try:
        assert worker.ready["pure"] is True
        out = worker.hint("profile", _profile_job("modern_art", 3, 150.0))
    finally:
        worker.close()
    assert out["compiled"] == []
    assert out["split_clock"] == "thread CPU"
    total = sum(out["split_ms"].values())
    assert total == pytest.approx(out["sampled_ms"], rel=1e-6)
    assert total <= out["cpu_ms"] + 0.5  # CPU-weighted: within the hint's CPU time
    assert out["samples"] >= 2
    searched = total - out["split_ms"]["other"] - out["split_ms"]["beliefs"]
    assert searched > 0.5 * total  # a Modern Art hint is mostly search, rollouts above all
    assert out["split_ms"]["rollout_heuristic"] > 0


def test_a_pure_worker_that_loaded_compiled_code_is_an_error(monkeypatch) -> None:
    """A split that cannot see into compiled modules is refused, naming them, not printed."""
    worker = object.__new__(bench.Baseline)
    worker.rev, worker.pure = "x", True
    answer = {"result": {"simulations": 1, "compiled": ["games.modern_art.engine"]}}
    monkeypatch.setattr(worker, "ask", lambda job: answer, raising=False)
    with pytest.raises(BaselineError, match=r"loaded compiled modules \['games.modern_art"):
        worker.hint("profile", {"game": "modern_art", "params": {}})
    worker.pure = False  # the served side runs compiled, as served
    assert worker.hint("hint", {"game": "modern_art", "params": {}})["simulations"] == 1


def test_today_s_in_process_side_does_not_profile() -> None:
    with pytest.raises(ValueError, match="timed hints only"):
        bench._ours("profile", _profile_job("finger_auction", 2, TINY_MS))


NEW = "/repo/bots/ismcts/search.py"
OLD = "/repo/bots/ismcts.py"


@pytest.mark.parametrize(
    ("stack", "group"),
    [
        # today's layout
        (
            [("hint", "/repo/bots/protocol.py"), ("from_infoset", "/repo/bots/protocol.py")],
            "beliefs",
        ),
        (
            [
                ("iterate", NEW),
                ("world", "/repo/bots/pool.py"),
                ("draw", "/repo/bots/pool.py"),
                ("sample_world", "/repo/games/modern_art/sampler.py"),
            ],
            "beliefs",
        ),
        (
            [
                ("iterate", NEW),
                ("by_policy", "/repo/bots/ismcts/rollout.py"),
                ("play_out", "/repo/bots/rollout.py"),
                ("playout", "/repo/bots/heuristics/finger_auction.py"),
                ("apply", "/repo/games/finger_auction/engine.py"),
            ],
            "rollout_heuristic",
        ),
        (
            [
                ("iterate", NEW),
                ("by_policy", "/repo/bots/ismcts/rollout.py"),
                ("play_out", "/repo/bots/rollout.py"),
                ("apply", "/repo/games/finger_auction/engine.py"),
            ],
            "rollout_engine",
        ),
        (
            [("iterate", NEW), ("by_policy", "/repo/bots/ismcts/rollout.py")],
            "rollout_loop",
        ),
        (
            [
                ("iterate", NEW),
                ("descend", NEW),
                ("expand", NEW),
                ("best_rated", "/repo/bots/heuristics/base.py"),
            ],
            "prior",
        ),
        (
            [("iterate", NEW), ("descend", NEW), ("info_key", "/repo/games/x/engine.py")],
            "selection",
        ),
        ([("iterate", NEW), ("backup", "/repo/bots/ismcts/tree.py")], "backprop"),
        (
            [("iterate", NEW), ("world", "/repo/bots/pool.py"), ("copy", "/repo/games/x/e.py")],
            "copies",
        ),
        ([("iterate", NEW), ("min", "")], "loop"),
        ([("hint_from_result", "/repo/bots/ismcts/result.py")], "other"),
        # 5caa0cd's search, one function
        ([("search", OLD), ("apply", "/repo/games/x/engine.py")], "selection"),
        ([("search", OLD), ("copy", "/repo/games/x/engine.py")], "copies"),
        ([("search", OLD), ("_belief_pool", OLD)], "beliefs"),
        ([("search", OLD), ("best_rated", "/repo/bots/heuristics/base.py")], "prior"),
        ([("search", OLD)], "loop"),
    ],
)
def test_classify(stack: list[tuple[str, str]], group: str) -> None:
    assert shared.classify(stack) == group


class _FixedBaseline:
    """A stand-in worker: one simulation per CPU millisecond on every hint; it records the
    jobs it was given."""

    rev = "fixed"

    def __init__(self) -> None:
        self.jobs: list[tuple[str, dict]] = []

    def hint(self, kind: str, job: dict) -> dict:
        self.jobs.append((kind, job))
        out = {"simulations": 20, "cpu_ms": 20.0, "wall_ms": 20.0, "action": 0}
        if kind == "profile":
            split = dict.fromkeys(shared.GROUPS, 0.0)
            split["loop"] = 20.0
            out.update(split_ms=split, sampled_ms=20.0, samples=20, split_clock="thread CPU")
        return out


def test_ratios_are_against_the_baseline_of_the_same_run(monkeypatch) -> None:
    old, old_pure, new_pure = _FixedBaseline(), _FixedBaseline(), _FixedBaseline()
    seen: list[tuple[str, dict]] = []

    def ours(kind: str, job: dict) -> dict:
        seen.append((kind, job))
        return bench._ours(kind, job)

    sides = {
        "new": bench.Side(ours, new_pure.hint),
        "baseline": bench.Side(old.hint, old_pure.hint),
    }
    report = bench._run([("detective_eye", 2)], 3, 1, TINY_MS, 0, sides, "fixed", None)
    (row,) = report["rows"]
    # The baseline answered exactly today's jobs (same infoset, budget and seed), warm-up
    # first, all as served; the profiled hints went to the pure-Python workers only, each
    # after an unprofiled twin on the same position.
    assert old.jobs == seen
    assert [kind for kind, _ in seen] == ["hint", "hint", "hint", "hint"]
    assert len({json.dumps(job["infoset"]) for _, job in seen[1:4]}) == 3
    assert new_pure.jobs == old_pure.jobs
    assert [kind for kind, _ in new_pure.jobs] == ["hint", "hint", "profile"]
    assert new_pure.jobs[1][1] == new_pure.jobs[2][1] == seen[1][1]
    # Each of today's hints over the baseline's hint of the same position (1 simulation per
    # CPU millisecond): their geometric mean.
    logs = [math.log(h["simulations"] / h["cpu_ms"]) for h in row["new"]["hints"]]
    assert row["ratio"]["value"] == pytest.approx(math.exp(sum(logs) / 3), rel=2e-3)
    assert row["ratio"]["pairs"] == 3
    assert row["ratio"]["low"] <= row["ratio"]["value"] <= row["ratio"]["high"]
    assert row["baseline"]["per_cpu_budget"]["median"] == pytest.approx(TINY_MS)
    # The split's speeds are against the pure twin: the sampler's (1.0 here) and the served
    # path's (today's first hint's rate over 1 simulation per CPU millisecond).
    first = row["new"]["hints"][0]
    assert row["new"]["split"]["profiler_speed"] == 1.0
    assert row["new"]["split"]["compiled_speed"] == pytest.approx(
        first["simulations"] / first["cpu_ms"], rel=2e-3
    )
    assert report["baseline"] == "fixed"
    assert "fixed per CPU" in bench.format_table(report)


def test_paired_ratio_is_the_geometric_mean_with_an_interval() -> None:
    new = [{"simulations": s, "cpu_ms": 100.0} for s in (200, 400, 800)]
    old = [{"simulations": s, "cpu_ms": 100.0} for s in (100, 200, 400)]
    assert bench.paired_ratio(new, old) == {"value": 2.0, "low": 2.0, "high": 2.0, "pairs": 3}
    spread = bench.paired_ratio(
        [{"simulations": 300, "cpu_ms": 100.0}, {"simulations": 100, "cpu_ms": 50.0}],
        [{"simulations": 100, "cpu_ms": 100.0}, {"simulations": 100, "cpu_ms": 100.0}],
    )
    assert spread["value"] == pytest.approx((3.0 * 2.0) ** 0.5, abs=1e-3)
    assert spread["low"] < spread["value"] < spread["high"]


def test_the_baseline_worker_answers_hints_and_names_what_it_cannot_read() -> None:
    """The worker script on this checkout's tree (any revision runs it the same way)."""
    worker = REPO_ROOT / "evaluation" / "bench" / "_hint_baseline_worker.py"
    proc = subprocess.Popen(
        [sys.executable, str(worker), str(REPO_ROOT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert "ready" in json.loads(proc.stdout.readline())  # type: ignore[union-attr]
        (infoset,) = bench.position_infosets("finger_auction", 3, 0, 1)
        job = {
            "game": "finger_auction",
            "params": {"players": 3},
            "infoset": infoset,
            "budget": {"milliseconds": TINY_MS},
            "seed": 1,
            "bot": "ismcts",
        }
        answers = []
        for kind, payload in (("profile", job), ("hint", {**job, "infoset": {"game": "x"}})):
            proc.stdin.write(json.dumps({"kind": kind, **payload}) + "\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
            answers.append(json.loads(proc.stdout.readline()))  # type: ignore[union-attr]
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=30)
    profiled, bad = answers
    assert profiled["result"]["simulations"] >= 1
    assert isinstance(profiled["result"]["compiled"], list)  # served: compiled where built
    assert set(profiled["result"]["split_ms"]) == set(shared.GROUPS)
    assert "InvalidInfoset" in bad["error"]


def test_bench_ismcts_says_it_measures_uniform_rollouts_not_the_served_bot() -> None:
    from evaluation.bench import ismcts

    ratio = {"value": 20.0, "low": 18.0, "high": 22.0, "pairs": 8}
    row = {
        "game": "finger_auction",
        "players": 3,
        "ours": {"per_cpu_s": 3000.0, "per_wall_s": 3000.0},
        "openspiel": {"per_cpu_s": 150.0, "per_wall_s": 150.0},
        "ratio": ratio,
    }
    report = {
        "measures": ismcts.MEASURES,
        "rollouts": "uniform over legal actions",
        "worlds": 32,
        "rounds": 8,
        "baseline": None,
        "rows": [row],
        "min_ratio": ratio,
        "target_met": True,
        "target_met_at_low_end": True,
        "load_before": None,
        "load_after": None,
    }
    text = ismcts.format_table(report)
    assert "uniform random rollouts" in text
    assert "not the bot as served" in text and "atelier bench hint" in text
    table = ismcts.markdown(report)
    assert "| Finger Auction | 3 | 3,000 | 150 | 20.0 [18.0, 22.0] |" in table
    assert "not the bot as served" in table


def _scratch_repo(root, setup_py: str | None):
    """A one-commit git repository with a ``games`` package and ``setup_py`` (if any)."""
    (root / "games").mkdir(parents=True)
    (root / "games" / "__init__.py").write_text("")
    if setup_py is not None:
        (root / "setup.py").write_text(setup_py)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "scratch"], check=True)
    return root


def test_a_baseline_is_exported_and_built_once_and_a_failed_build_is_named(
    tmp_path, monkeypatch, capsys
) -> None:
    import tempfile

    from evaluation.bench.baseline import export_revision

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    plain = _scratch_repo(tmp_path / "plain", None)
    assert (export_revision("HEAD", plain) / "games").is_dir()  # nothing to build

    ok = _scratch_repo(tmp_path / "ok", "from setuptools import setup\nsetup(name='s')\n")
    built = export_revision("HEAD", ok)
    stamp = (built / "setup.py").stat().st_mtime_ns
    assert export_revision("HEAD", ok) == built  # exported and built once per revision
    assert (built / "setup.py").stat().st_mtime_ns == stamp
    assert "did not build" not in capsys.readouterr().err

    bad = _scratch_repo(tmp_path / "bad", "raise SystemExit('no compiler here')\n")
    assert (export_revision("HEAD", bad) / "games").is_dir()  # still runs, pure Python
    err = capsys.readouterr().err
    assert "did not build" in err and "no compiler here" in err
