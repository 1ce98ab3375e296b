"""Tournament throughput: games per second on 1 and 2 local workers and a 2-worker Dask cluster.

The three executors play the same games in interleaved rounds, each round in a different
order, so load from other processes on a shared machine hits them alike. Each is started and
warmed up just before its turn (worker start-up is not what is being measured) and shut down
right after it, so no idle executor takes CPU from the one being measured. The report gives
the ratios the targets are stated in (2 workers at least 1.8x one; Dask within 10% of the
local pool), the load average before and after (a loaded machine cannot show the 2x), and
whether every executor produced the same records.
"""

from __future__ import annotations

import os
import time
from typing import Any

from bots import Budget
from evaluation.tournament.executors import ExecutorHandle, open_executor
from evaluation.tournament.runner import auto_batch_size, play_slots
from evaluation.tournament.spec import TournamentSpec
from evaluation.tournament.store import deterministic_part

CONTENDERS = (
    ("local_1", {"workers": 1}),
    ("local_2", {"workers": 2}),
    ("dask_local_2", {"dask_local": 2}),
)
# What tournaments are run for: a search bot rated against a baseline, at a small budget so
# that a game still takes only a fraction of a second. `--bot heuristic --bot heuristic`
# (games of milliseconds) is the stress case where the runner's own overhead weighs the most.
DEFAULT_BOTS = [("ismcts", "ismcts"), ("heuristic", "heuristic")]
TARGET_TWO_WORKERS = 1.8
TARGET_DASK = 0.9


def _play(spec: TournamentSpec, slots, handle: ExecutorHandle) -> tuple[float, list[dict]]:
    records: list[dict[str, Any]] = []
    start = time.perf_counter()
    play_slots(spec, slots, handle, records.append)
    return time.perf_counter() - start, records


def run(
    game: str,
    params: dict[str, Any],
    n_games: int = 60,
    rounds: int = 2,
    seed: int = 0,
    progress=None,
    bots: list[tuple[str, Any]] | None = None,
    budget: Budget | None = None,
) -> dict[str, Any]:
    """Measures the three contenders on the first ``n_games`` games of a two-bot tournament.

    ``bots`` are (label, spec) pairs as ``TournamentSpec.build`` takes them; the default is
    ISMCTS at ``budget`` (100 simulations by default) against heuristic.
    """
    say = progress or (lambda text: None)
    lineup = bots or DEFAULT_BOTS
    budget = budget or Budget(simulations=100)
    probe = TournamentSpec.build(game, params, lineup, seed=seed, budget=budget)
    deals = -(-n_games // probe.games_per_deal)
    spec = TournamentSpec.build(game, params, lineup, deals=deals, seed=seed, budget=budget)
    slots = spec.schedule()[:n_games]
    load_before = os.getloadavg()
    seconds = {name: 0.0 for name, _ in CONTENDERS}
    cpu = {name: 0.0 for name, _ in CONTENDERS}
    busy = {name: 0.0 for name, _ in CONTENDERS}
    workers = {name: kw.get("workers") or kw.get("dask_local") for name, kw in CONTENDERS}
    results: dict[str, list[dict[str, Any]]] = {}
    for r in range(rounds):
        order = CONTENDERS[r % len(CONTENDERS) :] + CONTENDERS[: r % len(CONTENDERS)]
        for name, kwargs in order:
            # Only the contender being measured is alive: an idle Dask cluster's scheduler,
            # nannies and heartbeats would otherwise take CPU from whichever pool is playing.
            say(f"round {r + 1}/{rounds}: starting {name} ...")
            with open_executor(**kwargs) as handle:
                # Warm-up: every worker imports the games and bots and plays a few games.
                play_slots(spec, slots[: 4 * handle.parallelism], handle, lambda r: None)
                say(f"round {r + 1}/{rounds}: {name} playing {len(slots)} games ...")
                elapsed, records = _play(spec, slots, handle)
            seconds[name] += elapsed
            cpu[name] += sum(x["time"]["cpu_ms"] for x in records) / 1000.0
            busy[name] += sum(x["time"]["wall_ms"] for x in records) / 1000.0
            results.setdefault(name, records)
    load_after = os.getloadavg()
    total = len(slots) * rounds
    rate = {name: total / seconds[name] for name, _ in CONTENDERS}
    canon = {
        name: sorted((deterministic_part(x) for x in recs), key=lambda x: x["index"])
        for name, recs in results.items()
    }
    two = rate["local_2"] / rate["local_1"]
    dask = rate["dask_local_2"] / rate["local_2"]
    return {
        "game": game,
        "params": spec.params,
        "bots": " vs ".join(e.label for e in spec.entrants),
        "budget": spec.budget.to_json(),
        "games_per_round": len(slots),
        "rounds": rounds,
        "batch_size_2_workers": auto_batch_size(len(slots), 2),
        "cpu_count": os.cpu_count(),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
        "contenders": {
            name: {
                "games": total,
                "seconds": round(seconds[name], 3),
                "games_per_s": round(rate[name], 2),
                "worker_cpu_seconds": round(cpu[name], 3),
                # Share of its workers' cores the contender actually got: well below 1 means
                # other processes took the CPU, and no executor can then show its scaling.
                "cpu_share": round(cpu[name] / (seconds[name] * workers[name]), 3),
                # Share of wall time x workers spent inside games: how well the runner keeps
                # its workers fed, whatever the machine's load.
                "occupancy": round(busy[name] / (seconds[name] * workers[name]), 3),
            }
            for name, _ in CONTENDERS
        },
        "ratios": {
            "local_2_vs_local_1": round(two, 3),
            "dask_local_2_vs_local_2": round(dask, 3),
        },
        "targets": {
            "local_2_vs_local_1": f">= {TARGET_TWO_WORKERS}",
            "dask_local_2_vs_local_2": f">= {TARGET_DASK}",
        },
        "meets_targets": {
            "local_2_vs_local_1": two >= TARGET_TWO_WORKERS,
            "dask_local_2_vs_local_2": dask >= TARGET_DASK,
        },
        "identical_results": all(c == canon["local_1"] for c in canon.values()),
    }


def format_table(report: dict[str, Any]) -> str:
    lines = [
        f"{report['game']} {report['params']}, {report['bots']}, "
        f"{report['games_per_round']} games x {report['rounds']} rounds; "
        f"load average before {report['loadavg_before'][0]}, after {report['loadavg_after'][0]} "
        f"on {report['cpu_count']} cores",
        f"{'executor':<16}{'games/s':>10}{'seconds':>10}{'cpu share':>11}{'occupancy':>11}",
    ]
    for name, row in report["contenders"].items():
        lines.append(
            f"{name:<16}{row['games_per_s']:>10.2f}{row['seconds']:>10.2f}{row['cpu_share']:>11.2f}"
            f"{row['occupancy']:>11.2f}"
        )
    for key, value in report["ratios"].items():
        ok = "ok" if report["meets_targets"][key] else "MISSED"
        lines.append(f"{key:<28}{value:>7.3f}  target {report['targets'][key]}  {ok}")
    lines.append(f"identical results on every executor: {report['identical_results']}")
    return "\n".join(lines)
