"""Regenerates the stored CFR solutions: ``python -m bots.cfr.solve [--game NAME]``.

Each reduced 2-player variant is solved with discounted CFR (Brown and Sandholm 2019) on the
vectorised tree until NashConv is at most ``2.5e-4`` of the payoff range (a margin under the
``1e-3`` the project asks for, so rounding the stored probabilities cannot cross it); the
average policy is written to ``bots/cfr/data/<game>_small.json`` with the figures and this command.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import games
from bots.cfr import store
from bots.cfr.solvers import Method, Solver
from bots.cfr.tree import build_engine_tree


def reduced_variants() -> dict[str, dict[str, Any]]:
    """The reduced 2-player variant of every game that declares one (``small_variant``)."""
    return {
        name: dict(defn.small_variant)
        for name, defn in games.DEFINITIONS.items()
        if defn.small_variant is not None
    }


def solve_variant(
    name: str,
    params: dict[str, Any],
    relative_target: float = 2.5e-4,
    method: Method = Method.DCFR,
    max_iterations: int = 200_000,
    log=print,
) -> dict[str, Any]:
    """Solves one setting and writes its data file; returns the figures."""
    defn = games.definition(name)
    params = defn.validate_params(params)
    started = time.perf_counter()
    tree = build_engine_tree(defn, params)
    built = time.perf_counter() - started
    target = relative_target * tree.utility_range
    solver = Solver(tree, method)
    result = solver.solve(target, max_iterations, check_every=10)
    if result.nash_conv > target:
        raise RuntimeError(f"{name}: NashConv {result.nash_conv:.3g} > {target:.3g}")
    sigmas = solver.average_policy()
    digests = store.tree_digests(defn, params, tree)
    policy = store.policy_to_json(tree, sigmas, digests)
    # Rounding the stored probabilities must not undo the solve: measure what is stored.
    reloaded = _from_json(tree, policy, digests)
    from bots.cfr.solvers import exploitability

    stored = exploitability(tree, reloaded)
    meta = {
        "method": method.value,
        "iterations": solver.iteration,
        "nash_conv": stored.nash_conv,
        "utility_range": tree.utility_range,
        "values": stored.values,
        "sizes": tree.sizes(),
        "command": f"{store.REGENERATE} --game {name}",
    }
    path = store.DATA_DIR / f"{name}_small.json"
    store.save(path, name, defn.version, params, meta, policy)
    figures = {
        "game": name,
        "file": str(path),
        "build_seconds": round(built, 3),
        "solve_seconds": round(solver.solve_seconds, 3),
        **meta,
    }
    log(
        f"{name}: {tree.sizes()} built in {built:.2f}s; {method.value} {solver.iteration} "
        f"iterations in {solver.solve_seconds:.2f}s; stored NashConv {stored.nash_conv:.3g} "
        f"(target {target:.3g}) -> {path}"
    )
    return figures


def _from_json(tree, policy, digests):
    """Per-player slot arrays from a stored ``policy`` (``digests`` from ``tree_digests``)."""
    import numpy as np

    sigmas = []
    for pt, names in zip(tree.players, digests, strict=True):
        flat = np.concatenate([np.asarray(policy[name], dtype=float) for name in names])
        sigmas.append(pt.normalize(flat))
    return sigmas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="game name (default: every variant)")
    parser.add_argument("--target", type=float, default=2.5e-4, help="NashConv / payoff range")
    args = parser.parse_args(argv)
    variants = reduced_variants()
    names = args.game or sorted(variants)
    for name in names:
        if name not in variants:
            print(f"{name} has no reduced variant (SMALL_VARIANT)", file=sys.stderr)
            return 2
        solve_variant(name, variants[name], args.target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
