"""``atelier bench cfr``: time to reach the same NashConv, ours against OpenSpiel's CFR+.

Three implementations of the same algorithm (CFR+: regret matching+, alternating updates,
linear averaging; Tammelin 2014) on the same game:

* ours: ``bots.cfr`` (tree flattened once, iterations vectorised with numpy);
* OpenSpiel's C++ ``pyspiel.CFRPlusSolver`` on ``pyspiel.convert_to_cached_tree`` of the game
  (the C++ reference the design names; the solver's constructor walks the whole tree, which
  fills the cache, so the iterations after it are fast: on Detective Eye small, measured, the
  constructor takes seconds and the first iteration a fraction of one);
* OpenSpiel's Python ``open_spiel.python.algorithms.cfr.CFRPlusSolver``.

The three produce the same iterates (``tests/test_cfr.py`` checks it), so they reach a NashConv
target after the same number of iterations ``K``: ``K`` is found with ours (cheap to
evaluate), then each contender runs ``K`` iterations from scratch, timed without any NashConv
evaluation, and its NashConv at ``K`` is measured afterwards (reported, and checked against
the target). A contender that cannot finish within ``max_seconds`` is stopped; its time is then
a lower bound (``reached: false``) and so is the ratio. "setup" is ours building its tree and
OpenSpiel loading the game (for Python solvers, the constructor walks the tree once).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pyspiel

import games
from bots.cfr.solvers import Method, Solver
from bots.cfr.tree import build_engine_tree, build_spiel_tree


def targets() -> dict[str, tuple[str, dict[str, Any], float]]:
    """Every benchmarked game: (OpenSpiel name, parameters, NashConv target)."""
    from bots.cfr.solve import reduced_variants

    out: dict[str, tuple[str, dict[str, Any], float]] = {
        # Leduc's payoff range is 26 chips; 0.05 is reached by CFR+ in ~60 iterations.
        "leduc_poker": ("leduc_poker", {}, 0.05),
    }
    for name, params in reduced_variants().items():
        out[f"{name}_small"] = (name, params, 2e-3)  # 1e-3 of the payoff range [-1, 1]
    return out


def _ours(name: str, params: dict[str, Any], iterations: int) -> dict[str, Any]:
    started = time.perf_counter()
    if name in games.DEFINITIONS:
        tree = build_engine_tree(games.definition(name), params)
    else:
        tree = build_spiel_tree(pyspiel.load_game(name, params))
    setup = time.perf_counter() - started
    solver = Solver(tree, Method.CFR_PLUS)
    solver.run(iterations)
    nash_conv = solver.evaluate().nash_conv
    return {"setup_s": setup, "solve_s": solver.solve_seconds, "nash_conv": nash_conv}


def _iterations_to(name: str, params: dict[str, Any], target: float, limit: int) -> int:
    if name in games.DEFINITIONS:
        tree = build_engine_tree(games.definition(name), params)
    else:
        tree = build_spiel_tree(pyspiel.load_game(name, params))
    solver = Solver(tree, Method.CFR_PLUS)
    solver.solve(target, limit, check_every=1)
    return solver.iteration


def _cpp(name: str, params: dict[str, Any], iterations: int, max_seconds: float):
    started = time.perf_counter()
    game = pyspiel.load_game(name, params)
    cached = pyspiel.convert_to_cached_tree(game)
    solver = pyspiel.CFRPlusSolver(cached)
    setup = time.perf_counter() - started
    return _timed(
        lambda: solver.evaluate_and_update_policy(),
        iterations,
        max_seconds,
        setup,
        lambda: pyspiel.nash_conv(cached, solver.average_policy()),
    )


def _python(name: str, params: dict[str, Any], iterations: int, max_seconds: float):
    from open_spiel.python.algorithms import cfr, exploitability

    started = time.perf_counter()
    game = pyspiel.load_game(name, params)
    solver = cfr.CFRPlusSolver(game)
    setup = time.perf_counter() - started
    return _timed(
        solver.evaluate_and_update_policy,
        iterations,
        max_seconds,
        setup,
        lambda: exploitability.nash_conv(game, solver.average_policy()),
    )


def _timed(step, iterations: int, max_seconds: float, setup: float, nash_conv: Callable):
    started = time.perf_counter()
    done = 0
    while done < iterations and time.perf_counter() - started < max_seconds:
        step()
        done += 1
    solve = time.perf_counter() - started
    reached = done == iterations
    return {
        "setup_s": setup,
        "solve_s": solve,
        "iterations": done,
        "reached": reached,
        "nash_conv": nash_conv() if reached else None,
    }


def run(
    names: list[str] | None = None,
    max_seconds: float = 300.0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measures every game of ``targets()`` (or ``names``); returns the JSON report."""
    rows: dict[str, Any] = {}
    for label, (name, params, target) in targets().items():
        if names and label not in names:
            continue
        if progress:
            progress(f"{label}: finding the iteration count")
        k = _iterations_to(name, params, target, 100_000)
        row: dict[str, Any] = {"game": name, "params": params, "target": target, "iterations": k}
        if progress:
            progress(f"{label}: ours, {k} iterations")
        row["ours"] = _ours(name, params, k)
        if progress:
            progress(f"{label}: OpenSpiel C++ CFRPlusSolver on cached_tree")
        row["openspiel_cpp_cached_tree"] = _cpp(name, params, k, max_seconds)
        if progress:
            progress(f"{label}: OpenSpiel Python CFRPlusSolver")
        row["openspiel_python"] = _python(name, params, k, max_seconds)
        ours = row["ours"]
        for key in ("openspiel_cpp_cached_tree", "openspiel_python"):
            other = row[key]
            row[f"{key}_over_ours"] = {
                "solve": other["solve_s"] / ours["solve_s"],
                "total": (other["setup_s"] + other["solve_s"])
                / (ours["setup_s"] + ours["solve_s"]),
                "lower_bound": not other["reached"],
            }
        rows[label] = row
    return {"max_seconds": max_seconds, "games": rows}


def format_table(report: dict[str, Any]) -> str:
    head = (
        f"{'game':<22}{'K':>6}{'ours s':>9}{'C++ s':>9}{'Py s':>9}"
        f"{'C++/ours':>10}{'Py/ours':>10}   (solve only; with setup)"
    )
    lines = [head]
    for label, row in report["games"].items():
        o, c, p = row["ours"], row["openspiel_cpp_cached_tree"], row["openspiel_python"]
        rc, rp = row["openspiel_cpp_cached_tree_over_ours"], row["openspiel_python_over_ours"]
        ge = ">=" if rp["lower_bound"] else ""
        gc = ">=" if rc["lower_bound"] else ""
        lines.append(
            f"{label:<22}{row['iterations']:>6}{o['solve_s']:>9.3f}{c['solve_s']:>9.3f}"
            f"{p['solve_s']:>9.2f}{gc + format(rc['solve'], '.1f'):>10}"
            f"{ge + format(rp['solve'], '.1f'):>10}   "
            f"({gc}{rc['total']:.1f}, {ge}{rp['total']:.1f} with setup)"
        )
    return "\n".join(lines)
