"""One function (``evaluation.bench.baseline.tree_env``) builds the environment of every
subprocess that runs one tree's code: the baseline's extension build, ``BaselineProcess``'s
workers and the review bench's fresh processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaluation.bench import baseline
from evaluation.bench import review as review_bench


class Launched(Exception):
    """Raised by the fake launcher: the environment it was given, and nothing run."""


@pytest.fixture
def marked(monkeypatch):
    """``tree_env`` returning a marked environment, and every launch recording its env."""
    seen: list[dict[str, str]] = []
    monkeypatch.setattr(baseline, "tree_env", lambda: {"ATELIER_TREE_ENV_MARK": "1"})

    def run(cmd, **kw):
        seen.append(kw["env"])
        return subprocess.CompletedProcess(cmd, 0, json.dumps({"decisions": 1}) + "\n", "")

    def popen(cmd, **kw):
        seen.append(kw["env"])
        raise Launched

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(subprocess, "Popen", popen)
    return seen


def test_the_tree_env_is_this_process_environment_without_pythonpath(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    monkeypatch.setenv("ATELIER_SOME_SETTING", "kept")
    env = baseline.tree_env()
    assert "PYTHONPATH" not in env
    assert env["ATELIER_SOME_SETTING"] == "kept"


def test_the_review_bench_launches_its_sides_with_the_tree_env(marked):
    out = review_bench._timed_in(review_bench.HERE, ["gallery_rush", 0, 1, {}, 1, "cpu"], None)
    assert out == {"decisions": 1}
    assert marked == [{"ATELIER_TREE_ENV_MARK": "1"}]


def test_the_baseline_worker_and_build_get_the_tree_env(marked, tmp_path: Path):
    with pytest.raises(Launched):
        baseline.BaselineProcess("HEAD", "_engine_baseline_worker.py", root=tmp_path)
    (tmp_path / "setup.py").write_text("")
    baseline.build_extensions(tmp_path)
    assert marked == [{"ATELIER_TREE_ENV_MARK": "1"}] * 2


def test_the_review_worker_imports_nothing_of_ours_before_its_tree_is_first():
    """The review bench's worker is its module run as a script with a tree's path: whatever it
    imports before putting that tree first on ``sys.path`` comes from wherever the package is
    installed (another checkout), not from the tree it measures."""
    script = (
        "import runpy, sys; runpy.run_path(sys.argv[1], run_name='not_main'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('evaluation', 'bots', 'games', 'server')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, review_bench.__file__],
        capture_output=True,
        text=True,
        env=baseline.tree_env(),
        check=True,
    )
    assert done.stdout.strip() == "[]"
