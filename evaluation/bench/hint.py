"""The bot as served: simulations, latency and time split of the service's default hint.

``atelier bench ismcts`` measures a search nobody is served (uniform rollouts, no beliefs, no
prior). This bench measures what a client gets (issue 40): the service's default bot
(``ServiceConfig.default_bots``' first, built afresh per hint as its workers do) asked for a
hint at the service's default budget (``ServiceConfig.default_budget_ms``) on the information
set JSON of seeded random positions, at every game and player count it supports. Per setting:

* simulations per hint (median and quartiles), as the wall-clock budget gave them here;
* the same per 500 ms of **CPU** time (a hint's simulations scaled by the budget over the CPU
  time it took): on a shared machine a hint's wall time includes waiting for a core, its CPU
  time does not, so this is the figure a quiet machine gives and the one ratios are taken on;
* latency (wall) of the hint, p50 and max per setting, p50 and p99 over every hint of the run
  (target: ``LATENCY_TARGET`` times the budget at p99, on a quiet machine): the time a worker
  spends in ``bot.hint``, the infoset's replay included, the HTTP round trip and the hint's
  explanation not (``atelier bench service`` measures the service end to end);
* the time split of ``profiled`` more hints per setting: their call stacks sampled every
  millisecond from a second thread (``_hint_shared.StackSampler``), each sample weighted by the
  hint thread's CPU time since the last, sorted into the groups of ``_hint_shared.GROUPS``
  (belief pool, prior, selection, world copies, rollouts' heuristic ratings and engine steps,
  backpropagation); the profiled hints are extra, so the sampler's cost (reported, a few per
  cent) touches no other figure. The split is **measured on the pure-Python path**: the served
  engines, heuristics and search are compiled (Cython, ``games/core/compiled.py``), and compiled
  functions have no Python frames, so a sampler would charge nearly all their time to the
  Python function that called them. The profiled hints run in a worker process on this
  checkout with ``ATELIER_PURE_PYTHON=1`` (``_hint_baseline_worker.py --pure``, which checks
  that no compiled module of the tree was loaded), each next to an unprofiled pure-Python hint
  of the same position: the sampler's cost, and how much faster the compiled path is than the
  one the split describes, are both in the report. Simulations and latency stay the compiled
  path's, as served.

``baseline=REV`` runs the same hints (same information-set JSON, budget and seed) on an older
revision's code in a worker process (``_hint_baseline_worker.py`` on
``export_revision(REV)``: its export with its own compiled extensions), interleaved position
by position (ABBA), and gives per setting the ratio of simulations per CPU second, the
geometric mean of the paired per-position ratios with its 95% t-interval. The issue's
starting revision is ``5caa0cd``. Its split likewise comes from a second, pure-Python worker
on its tree (5caa0cd compiles only Modern Art's uniform ``_playout``, which its served bot,
on heuristic rollouts, never calls: measured, no call in nine Modern Art hints).
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

import games
from evaluation.bench import _hint_shared as shared
from evaluation.bench.baseline import REPO_ROOT, BaselineError, BaselineProcess
from evaluation.bench.strength import player_counts
from evaluation.tournament.stats import mean_ci
from games.core.episode import random_position
from games.core.infoset import build_infoset
from server.config import ServiceConfig

# The served hint: the service's default bot at its default budget (one place: server/config).
BOT = ServiceConfig.default_bots[0]
BUDGET_MS = ServiceConfig.default_budget_ms
# Issue 40, target 4: a 500 ms hint answers within 550 ms at p99 (on a quiet machine).
LATENCY_TARGET = 1.10
# At each decision with a choice, the position generator stops with this chance: positions
# spread over the game (about 20 decisions in on average, early ones more often).
STOP_CHANCE = 0.05
MAX_TRIES = 50
# A short hint per game setting before measuring, on both sides (the service warms each new
# worker with a small search per game): imports, caches and first-call costs are not timed.
WARM_UP_MS = 100.0


GROUPS: dict[str, str] = shared.GROUPS
# A code's answer to one job: ``(kind, job) -> result``, kind ``hint`` or ``profile``.
Measure = Callable[[str, dict[str, Any]], dict[str, Any]]
# What the time split is measured on, said in the text, JSON and markdown reports.
SPLIT_PATH = (
    "measured on the pure-Python path (ATELIER_PURE_PYTHON=1, in a worker process): compiled "
    "code has no Python frames for the sampler to see; simulations and latency are the "
    "compiled path's, as served"
)
THIS_CHECKOUT = "this checkout"


class Baseline(BaselineProcess):
    """The served hints of a tree, one per job, in a worker process: an older revision's
    export, or this checkout (``root``); ``pure``: on its pure-Python path (the profiled
    hints), with every answer checked to have loaded none of the tree's compiled modules."""

    def __init__(self, rev: str, root: Path | None = None, pure: bool = False) -> None:
        super().__init__(rev, "_hint_baseline_worker.py", root, ("--pure",) if pure else ())
        self.pure = pure

    def hint(self, kind: str, job: dict[str, Any]) -> dict[str, Any]:
        answer = self.ask({"kind": kind, **job})
        if "error" in answer:
            raise BaselineError(
                f"the code of {self.rev} could not answer a {job['game']} hint "
                f"({job['params']}): {answer['error']}"
            )
        result: dict[str, Any] = answer["result"]
        if self.pure and result.get("compiled"):
            raise BaselineError(
                f"the pure-Python worker on {self.rev} loaded compiled modules "
                f"{result['compiled']}: its time split would not see into them"
            )
        return result


@dataclass
class Side:
    """One code measured: ``served`` answers the timed hints as served (compiled where the
    code compiles), ``pure`` the profiled hints and their unprofiled twins (``None``: no
    split)."""

    served: Measure
    pure: Measure | None = None


def settings(names: list[str] | None, players: list[int] | None) -> list[tuple[str, int]]:
    """``(game, players)`` to measure: every count each game supports, or those of ``players``
    it supports; ``ValueError`` naming a count that no chosen game supports, or a game that
    supports none of them."""
    names = names or sorted(games.DEFINITIONS)
    unknown = [n for n in names if n not in games.DEFINITIONS]
    if unknown:
        raise ValueError(f"unknown game(s) {unknown}; known: {sorted(games.DEFINITIONS)}")
    supported = {name: player_counts(name) for name in names}
    if not players:
        return [(name, n) for name in names for n in supported[name]]
    orphans = [n for n in players if not any(n in counts for counts in supported.values())]
    if orphans:
        spans = ", ".join(f"{name} {c[0]}-{c[-1]}" for name, c in supported.items())
        raise ValueError(f"no chosen game is played by {orphans} players ({spans})")
    out = [(name, n) for name in names for n in sorted(set(players)) if n in supported[name]]
    missing = [name for name in names if not any(g == name for g, _ in out)]
    if missing:
        raise ValueError(
            f"{missing[0]} is played by {supported[missing[0]][0]}-{supported[missing[0]][-1]} "
            f"players, none of {sorted(set(players))}"
        )
    return out


def position_infosets(game: str, players: int, seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` information sets of seeded random positions (uniform moves, the engine's
    chance) where the seat to move has a choice, as the acting seat's JSON (with its view, as
    ``Bot.hint_for_state`` builds it)."""
    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    out = []
    for i in range(count):
        rng = random.Random(f"bench-hint/{game}/{players}/{seed}/{i}")

        def stop(engine: Any, rng: random.Random = rng) -> bool:
            return len(engine.legal_actions()) > 1 and rng.random() < STOP_CHANCE

        for _ in range(MAX_TRIES):
            engine = random_position(defn, params, rng, stop)
            if engine is not None:
                break
        else:  # pragma: no cover - every game offers choices long before it ends
            raise RuntimeError(f"{game}: no decision with a choice in {MAX_TRIES} games")
        out.append(build_infoset(defn, params, engine, engine.current_player()))
    return out


def _ours(kind: str, job: dict[str, Any]) -> dict[str, Any]:
    """Today's served hint for ``job`` in this process, compiled as served (``kind``: only
    ``hint``; today's profiled hints run in the pure-Python worker)."""
    import bots

    if kind != "hint":
        raise ValueError(f"today's in-process side answers timed hints only, not {kind!r}")
    defn = games.definition(job["game"])
    return shared.timed_hint(  # type: ignore[no-any-return]
        lambda: bots.make_bot(job["bot"]),
        bots.Budget.from_json(job["budget"]),
        defn,
        defn.validate_params(job["params"]),
        job["infoset"],
        job["seed"],
    )


def run(
    names: list[str] | None = None,
    players: list[int] | None = None,
    positions: int = 6,
    profiled: int = 2,
    milliseconds: float = BUDGET_MS,
    seed: int = 0,
    baseline: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Measures every setting; returns the JSON report (``progress(done, total)`` after each
    hint, baseline's included)."""
    chosen = settings(names, players)
    with contextlib.ExitStack() as stack:
        sides = {"new": Side(_ours, _opened(stack, THIS_CHECKOUT, REPO_ROOT) if profiled else None)}
        if baseline:
            sides["baseline"] = Side(
                _opened(stack, baseline, None, pure=False),
                _opened(stack, baseline, None) if profiled else None,
            )
        return _run(chosen, positions, profiled, milliseconds, seed, sides, baseline, progress)


def _opened(stack: contextlib.ExitStack, rev: str, root: Path | None, pure: bool = True) -> Measure:
    """A worker's ``hint`` (closed with ``stack``)."""
    worker = Baseline(rev, root, pure)
    stack.callback(worker.close)
    return worker.hint


def _run(
    chosen: list[tuple[str, int]],
    positions: int,
    profiled: int,
    milliseconds: float,
    seed: int,
    sides: dict[str, Side],
    baseline: str | None,
    progress: Callable[[int, int], None] | None,
) -> dict[str, Any]:
    """The report of ``chosen`` measured on ``sides`` (``new``, and ``baseline`` if any)."""
    total = len(chosen) * (positions + 2 * profiled) * len(sides)
    done = [0]

    def tick() -> None:
        done[0] += 1
        if progress:
            progress(done[0], total)

    load_before = _load()
    rows = []
    for game, n in chosen:
        jobs = _jobs(game, n, seed, positions, milliseconds)
        timed, pure, profiles = _measure(sides, jobs, profiled, milliseconds, tick)
        row: dict[str, Any] = {"game": game, "players": n}
        for side in sides:
            row[side] = summarise(timed[side], profiles[side], milliseconds, pure[side])
        if baseline is not None:
            row["ratio"] = paired_ratio(timed["new"], timed["baseline"])
        rows.append(row)
    latencies = [h["wall_ms"] for row in rows for h in row["new"]["hints"]]
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    return {
        "bot": BOT,
        "budget_ms": milliseconds,
        "positions": positions,
        "profiled": profiled,
        "split_path": SPLIT_PATH if profiled else None,
        "seed": seed,
        "baseline": baseline,
        "load": {"before": load_before, "after": _load(), "cpus": os.cpu_count()},
        "latency": {
            "hints": len(latencies),
            "p50_ms": round(p50, 1),
            "p99_ms": round(p99, 1),
            "target_ms": round(LATENCY_TARGET * milliseconds, 1),
            "target_met": p99 <= LATENCY_TARGET * milliseconds,
        },
        "rows": rows,
    }


def _jobs(game: str, players: int, seed: int, count: int, ms: float) -> list[dict[str, Any]]:
    """The hint requests of one setting, as both sides receive them (JSON)."""
    return [
        {
            "game": game,
            "params": {"players": players},
            "infoset": infoset,
            "budget": {"milliseconds": ms},
            "seed": seed + i,
            "bot": BOT,
        }
        for i, infoset in enumerate(position_infosets(game, players, seed, count))
    ]


Hints = dict[str, list[dict[str, Any]]]


def _measure(
    sides: dict[str, Side],
    jobs: list[dict[str, Any]],
    profiled: int,
    milliseconds: float,
    tick: Callable[[], None],
) -> tuple[Hints, Hints, Hints]:
    """Every side's hints on ``jobs`` as served, interleaved position by position (ABBA, so
    drift in the machine's load falls on both alike); then, on the first ``profiled``
    positions, each side's pure-Python hint unprofiled and profiled (the twin gives the
    sampler's cost and the compiled path's speed-up over the profiled one). A short hint per
    process first warms it up (not counted). Returns the timed, the pure and the profiled
    hints per side."""
    warm = {**jobs[0], "budget": {"milliseconds": min(WARM_UP_MS, milliseconds)}}
    for side in sides.values():
        side.served("hint", warm)
        if side.pure is not None and profiled:
            side.pure("hint", warm)
    timed: Hints = {side: [] for side in sides}
    for i, job in enumerate(jobs):
        for name in list(sides) if i % 2 == 0 else list(reversed(sides)):
            timed[name].append(sides[name].served("hint", job))
            tick()
    pure: Hints = {side: [] for side in sides}
    profiles: Hints = {side: [] for side in sides}
    for i in range(profiled):
        for name, side in sides.items():
            if side.pure is None:
                raise ValueError(f"side {name!r} has no pure-Python worker to profile on")
            job = jobs[i % len(jobs)]
            pure[name].append(side.pure("hint", job))
            tick()
            profiles[name].append(side.pure("profile", job))
            tick()
    return timed, pure, profiles


def _load() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (``None`` where the system has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - every Unix has them
        return None


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (linear between order statistics; one value is every one)."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    k = (len(ordered) - 1) * q / 100.0
    lo = math.floor(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _quartiles(values: list[float]) -> dict[str, float]:
    return {
        "median": round(percentile(values, 50), 1),
        "q1": round(percentile(values, 25), 1),
        "q3": round(percentile(values, 75), 1),
    }


def _rounded(hint: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in hint.items()}


def per_cpu_budget(hint: dict[str, Any], milliseconds: float) -> float:
    """A hint's simulations per ``milliseconds`` of CPU time (its simulations scaled by the
    budget over the CPU time it took)."""
    return hint["simulations"] * milliseconds / max(hint["cpu_ms"], 1e-6)


def _mean_rate(hints: list[dict[str, Any]]) -> float:
    return statistics.fmean(per_cpu_budget(h, 1.0) for h in hints)


def summarise(
    timed: list[dict[str, Any]],
    profiles: list[dict[str, Any]],
    milliseconds: float,
    pure: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One side of one setting: its hints, their figures and the profiled split (``pure``:
    the unprofiled pure-Python hints of the profiled positions, one each)."""
    out: dict[str, Any] = {
        "simulations": _quartiles([h["simulations"] for h in timed]),
        "per_cpu_budget": _quartiles([per_cpu_budget(h, milliseconds) for h in timed]),
        "cpu_ms": round(statistics.median(h["cpu_ms"] for h in timed), 1),
        "latency_ms": {
            "p50": round(percentile([h["wall_ms"] for h in timed], 50), 1),
            "max": round(max(h["wall_ms"] for h in timed), 1),
        },
        "hints": [_rounded(h) for h in timed],
    }
    if profiles:
        pure = pure or []
        if len(pure) != len(profiles):
            raise ValueError(f"{len(profiles)} profiled hints but {len(pure)} unprofiled twins")
        split = {g: sum(p["split_ms"][g] for p in profiles) / len(profiles) for g in GROUPS}
        sampled = sum(split.values())
        served = [timed[i % len(timed)] for i in range(len(profiles))]
        out["split"] = {
            "path": "pure Python",
            "hints": len(profiles),
            "clock": profiles[0]["split_clock"],
            "samples": sum(p["samples"] for p in profiles),
            "cpu_ms": round(statistics.fmean(p["sampled_ms"] for p in profiles), 1),
            "sampled_ms": round(sampled, 1),
            "ms": {g: round(v, 1) for g, v in split.items()},
            "share": {g: round(v / sampled, 4) if sampled else 0.0 for g, v in split.items()},
            # Simulations per CPU second under the sampler over those of the same positions
            # unprofiled, both pure Python: the sampler's cost.
            "profiler_speed": round(_mean_rate(profiles) / max(_mean_rate(pure), 1e-9), 3),
            # The served (compiled) path's simulations per CPU second over the pure path's on
            # the same positions: how much faster the code served is than the one split here.
            "compiled_speed": round(_mean_rate(served) / max(_mean_rate(pure), 1e-9), 3),
        }
    return out


def paired_ratio(new: list[dict[str, Any]], old: list[dict[str, Any]]) -> dict[str, Any]:
    """Today's simulations per CPU second over the baseline's, position by position: the
    geometric mean of the paired ratios and its 95% t-interval (``None`` with one position,
    or where a side ran no simulation)."""
    logs = []
    for a, b in zip(new, old, strict=True):
        if a["simulations"] <= 0 or b["simulations"] <= 0:
            continue
        logs.append(math.log(per_cpu_budget(a, 1.0) / per_cpu_budget(b, 1.0)))
    if not logs:
        return {"value": None, "low": None, "high": None, "pairs": 0}
    mean, ci = mean_ci(logs)
    return {
        "value": round(math.exp(mean), 3),
        "low": round(math.exp(ci[0]), 3) if ci else None,
        "high": round(math.exp(ci[1]), 3) if ci else None,
        "pairs": len(logs),
    }


def format_table(report: dict[str, Any]) -> str:
    """The report as text: the figures table, the time split table and the latency line."""
    base = report["baseline"]
    budget = report["budget_ms"]
    lines = [
        f"Served hint: bot {report['bot']!r} at {budget:g} ms, {report['positions']} seeded "
        f"positions per setting; simulations per {budget:g} ms of CPU time (the hint's "
        "simulations scaled by the budget over its CPU time: what a quiet machine gives)",
        f"load average before/after {report['load']['before']} / {report['load']['after']} "
        f"on {report['load']['cpus']} CPUs",
    ]
    head = (
        f"{'game':<16}{'pl':>3}{'sims/hint [q1, q3]':>24}{'per CPU budget':>16}"
        f"{'cpu ms':>8}{'p50 ms':>8}{'max ms':>8}"
    )
    if base:
        head += f"{base + ' per CPU':>16}{'ratio [95%]':>22}"
    lines.append(head)
    for row in report["rows"]:
        new = row["new"]
        sims = new["simulations"]
        line = (
            f"{row['game']:<16}{row['players']:>3}"
            f"{_spread(sims):>24}"
            f"{new['per_cpu_budget']['median']:>16,.0f}{new['cpu_ms']:>8.0f}"
            f"{new['latency_ms']['p50']:>8.0f}{new['latency_ms']['max']:>8.0f}"
        )
        if base:
            r = row["ratio"]
            ratio = "-" if r["value"] is None else f"{r['value']:.2f}"
            if r.get("low") is not None:
                ratio += f" [{r['low']:.2f}, {r['high']:.2f}]"
            line += f"{row['baseline']['per_cpu_budget']['median']:>16,.0f}{ratio:>22}"
        lines.append(line)
    lat = report["latency"]
    mark = "met" if lat["target_met"] else "MISSED"
    lines.append(
        f"latency (wall) over {lat['hints']} hints: p50 {lat['p50_ms']:.0f} ms, p99 "
        f"{lat['p99_ms']:.0f} ms (target <= {lat['target_ms']:.0f} ms on a quiet machine: {mark})"
    )
    if report["profiled"]:
        lines.extend(format_split(report))
    return "\n".join(lines)


def _spread(q: dict[str, float]) -> str:
    return f"{q['median']:,.0f} [{q['q1']:,.0f}, {q['q3']:,.0f}]"


SHORT = {
    "beliefs": "beliefs",
    "prior": "prior",
    "selection": "select",
    "copies": "copies",
    "rollout_heuristic": "ro:heur",
    "rollout_engine": "ro:eng",
    "rollout_loop": "ro:loop",
    "backprop": "backup",
    "loop": "loop",
    "other": "other",
}


def format_split(report: dict[str, Any]) -> list[str]:
    """The time split table: each group's share of the profiled hints' sampled time."""
    lines = [
        "",
        f"Time split of {report['profiled']} profiled hint(s) per setting, {SPLIT_PATH}: % of "
        "the hint's CPU time (stacks sampled every 1 ms, weighted by CPU time; 'speed': "
        "simulations per CPU second while sampled over without, the sampler's cost; "
        "'compiled': the served path's simulations per CPU second over the pure path's, same "
        "positions):",
        "  " + "; ".join(f"{SHORT[g]} = {text}" for g, text in GROUPS.items()),
    ]
    sides = ["new"] + (["baseline"] if report["baseline"] else [])
    head = f"{'game':<16}{'pl':>3}{'side':>10}" + "".join(f"{SHORT[g]:>9}" for g in GROUPS)
    lines.append(head + f"{'speed':>7}{'compiled':>10}")
    for row in report["rows"]:
        for side in sides:
            split = row[side]["split"]
            label = "new" if side == "new" else report["baseline"]
            lines.append(
                f"{row['game']:<16}{row['players']:>3}{label:>10}"
                + "".join(f"{100 * split['share'][g]:>8.1f}%" for g in GROUPS)
                + f"{split['profiler_speed']:>7.2f}"
                + f"{split['compiled_speed']:>9.2f}x"
            )
    return lines


NAMES = {
    "detective_eye": "Detective Eye",
    "finger_auction": "Finger Auction",
    "gallery_rush": "Gallery Rush",
    "modern_art": "Modern Art",
}


def markdown(report: dict[str, Any]) -> str:
    """The report as docs/bots.md's tables (``--markdown``): figures, then the time split."""
    base, budget = report["baseline"], report["budget_ms"]
    head = [
        "game",
        "players",
        "simulations a hint (median [quartiles])",
        f"per {budget:g} ms of CPU",
        "latency p50 / max (ms)",
    ]
    if base:
        head += [f"{base} per {budget:g} ms of CPU", f"vs {base} [95%]"]
    lines = [_md_row(head), _md_row(["---"] * len(head))]
    for row in report["rows"]:
        new = row["new"]
        cells = [
            NAMES.get(row["game"], row["game"]),
            str(row["players"]),
            _spread(new["simulations"]),
            f"{new['per_cpu_budget']['median']:,.0f}",
            f"{new['latency_ms']['p50']:.0f} / {new['latency_ms']['max']:.0f}",
        ]
        if base:
            r = row["ratio"]
            ratio = "-" if r["value"] is None else f"{r['value']:.2f}"
            if r.get("low") is not None:
                ratio += f" [{r['low']:.2f}, {r['high']:.2f}]"
            cells += [f"{row['baseline']['per_cpu_budget']['median']:,.0f}", ratio]
        lines.append(_md_row(cells))
    lat = report["latency"]
    lines += [
        "",
        f"Latency over the {lat['hints']} hints: p50 {lat['p50_ms']:.0f} ms, p99 "
        f"{lat['p99_ms']:.0f} ms (target <= {lat['target_ms']:.0f} ms on a quiet machine). "
        f"Load average {report['load']['before']} before, {report['load']['after']} after, "
        f"on {report['load']['cpus']} CPUs.",
    ]
    if report["profiled"]:
        sides = ["new"] + ([base] if base else [])
        head = [
            "game",
            "players",
            "code",
            *(SHORT[g] for g in GROUPS),
            "sampler speed",
            "compiled / pure",
        ]
        lines += [
            "",
            f"Time split {SPLIT_PATH} (last column: the served path's simulations per CPU "
            "second over the pure path's, same positions).",
            "",
            _md_row(head),
            _md_row(["---"] * len(head)),
        ]
        for row in report["rows"]:
            for side, label in zip(["new", "baseline"], sides, strict=False):
                split = row[side]["split"]
                lines.append(
                    _md_row(
                        [
                            NAMES.get(row["game"], row["game"]),
                            str(row["players"]),
                            label,
                            *(f"{100 * split['share'][g]:.0f}%" for g in GROUPS),
                            f"{split['profiler_speed']:.2f}",
                            f"{split['compiled_speed']:.2f}x",
                        ]
                    )
                )
    return "\n".join(lines)


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


@click.command("hint")
@click.option("--game", "names", multiple=True, help="A game (repeatable; default: every game).")
@click.option(
    "--players",
    "players",
    multiple=True,
    type=int,
    help="A player count (repeatable; default: every count each game supports).",
)
@click.option("--positions", default=6, show_default=True, help="Seeded positions per setting.")
@click.option(
    "--profiled",
    default=2,
    show_default=True,
    help="Extra profiled hints per setting for the time split (0: no split).",
)
@click.option(
    "--milliseconds",
    default=BUDGET_MS,
    show_default=True,
    help="The hint's budget (default: the service's, server.config.ServiceConfig).",
)
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--baseline",
    default=None,
    help="Git revision whose served bot answers the same hints, interleaved (e.g. 5caa0cd, "
    "issue 40's start); its own compiled extensions are built once per revision.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
@click.option(
    "--markdown", "as_markdown", is_flag=True, help="Print docs/bots.md's tables instead of text."
)
def bench_hint(
    names: tuple[str, ...],
    players: tuple[int, ...],
    positions: int,
    profiled: int,
    milliseconds: float,
    seed: int,
    baseline: str | None,
    as_json: bool,
    as_markdown: bool,
) -> None:
    """The bot as served: simulations, latency and time split of the default hint."""
    from evaluation.params import echo_report
    from evaluation.progress import Progress

    if positions < 1:
        raise click.BadParameter("must be at least 1", param_hint="--positions")
    if profiled < 0:
        raise click.BadParameter("must be 0 or more", param_hint="--profiled")
    if not milliseconds > 0:
        raise click.BadParameter("must be above 0", param_hint="--milliseconds")
    try:
        settings(list(names) or None, list(players) or None)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--game/--players") from None
    with Progress("bench hint", "hint") as bar:
        try:
            report = run(
                list(names) or None,
                list(players) or None,
                positions,
                profiled,
                milliseconds,
                seed,
                baseline,
                progress=bar.set,
            )
        except BaselineError as err:
            raise click.ClickException(str(err)) from None
    echo_report(report, as_json, markdown if as_markdown else format_table)


if __name__ == "__main__":
    bench_hint(prog_name="python -m evaluation.bench.hint")
