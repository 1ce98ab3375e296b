"""Load runs against a real ``atelier serve`` on 127.0.0.1 (slow: not in the default run).

The full figures come from ``atelier bench service --json`` (see docs/api.md); these are short
versions that check the machinery and the zero-error target.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evaluation.bench import service as bench

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent


def test_bench_service_short_run_has_no_errors():
    report = bench.run(
        seconds=3,
        soak_seconds=10,
        uncached_seconds=3,
        soak_clients=8,
        slow_connections=64,
        memory_requests=20,
    )
    assert report["soak"]["errors"] == 0, report["soak"]
    assert report["soak"]["requests"] > 0
    assert report["trivial"]["errors"] == 0 and report["cached_hint"]["errors"] == 0
    assert report["uncached_hint"]["errors"] == 0 and report["uncached_hint"]["requests"] > 0
    # A cache hit must cost about as little as the trivial endpoint: its target is half of
    # /ping's throughput, both measured in this run (a ratio, so a loaded machine slows both).
    assert report["cached_hint"]["ratio_to_trivial"] >= 0.5, report["cached_hint"]
    assert report["targets"]["cached_throughput_at_least_half_trivial"]
    assert report["server_after"]["pool"]["deaths"] == 0
    slow = report["slow_connections"]
    assert slow["probe_failures"] == {} and slow["met"], slow
    memory = report["memory"]
    assert memory["statuses"] == {"200": 20} and memory["growth_mib"] is not None, memory
    assert set(report["targets"]) >= {
        "slow_connections_probes_within_1s",
        "memory_growth_within_200MiB",
    }


@pytest.mark.skipif(shutil.which("locust") is None, reason="locust is not installed")
def test_locust_scenario_runs_bounded_without_failures(tmp_path):
    port = bench.free_port()
    server = bench.start_server(port, str(tmp_path / "m.sqlite3"))
    try:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "locust",
                "-f",
                str(ROOT / "evaluation" / "bench" / "locustfile.py"),
                "--headless",
                "-u",
                "8",
                "-r",
                "8",
                "-t",
                "10s",
                "--host",
                f"http://127.0.0.1:{port}",
                "--only-summary",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )
    finally:
        bench.stop_server(server)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    output = result.stdout + result.stderr
    totals = [line for line in output.splitlines() if line.strip().startswith("Aggregated")]
    assert totals and " 0(0.00%)" in totals[0], output[-3000:]
