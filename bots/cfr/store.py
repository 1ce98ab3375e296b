"""Solved average policies as small JSON files inside the package (``bots/cfr/data``).

A file holds one game setting: the game, its version and full parameters, how it was solved
(method, iterations, NashConv reached, the command that regenerates it) and the policy: for
every information set, keyed by ``key_digest((seat, engine.info_key(seat)))``, the
probabilities of its legal actions in increasing action-id order. Keys are digests so the file
stays small; a lookup recomputes the key from a world sampled from the information-set JSON
(every consistent world gives the same ``info_key``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bots.cfr.tree import GameTree, key_digest

DATA_DIR = Path(__file__).with_name("data")
REGENERATE = "python -m bots.cfr.solve"


@dataclass
class StoredPolicy:
    """One solved setting, loaded from a data file."""

    game: str
    version: int
    params: dict[str, Any]
    meta: dict[str, Any]
    policy: dict[str, list[float]]
    path: Path

    def probabilities(self, seat: int, info_key: Any, num_actions: int) -> list[float]:
        """The stored probabilities at this information set; ``KeyError`` if it is unknown."""
        probs = self.policy[key_digest((seat, info_key))]
        if len(probs) != num_actions:
            raise KeyError(f"stored policy has {len(probs)} actions here, the game {num_actions}")
        total = sum(probs)
        return [p / total for p in probs] if total > 0 else [1.0 / num_actions] * num_actions


def policy_to_json(tree: GameTree, sigmas: list[np.ndarray], digits: int = 6) -> dict[str, Any]:
    """The ``policy`` part of a data file, from per-player slot arrays."""
    out: dict[str, list[float]] = {}
    for p, (pt, sigma) in enumerate(zip(tree.players, sigmas, strict=True)):
        for i, key in enumerate(pt.keys):
            lo = int(pt.slot_start[i])
            probs = sigma[lo : lo + int(pt.num_actions[i])]
            out[key_digest((p, key))] = [round(float(x), digits) for x in probs]
    return out


def save(
    path: Path,
    game: str,
    version: int,
    params: dict[str, Any],
    meta: dict[str, Any],
    policy: dict[str, list[float]],
) -> None:
    data = {"game": game, "version": version, "params": params, **meta, "policy": policy}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")


def load(path: Path) -> StoredPolicy:
    data = json.loads(Path(path).read_text())
    policy = data.pop("policy")
    return StoredPolicy(
        game=data.pop("game"),
        version=data.pop("version"),
        params=data.pop("params"),
        meta=data,
        policy=policy,
        path=Path(path),
    )


_CACHE: dict[Path, StoredPolicy] = {}


def find(game: str, version: int, params: dict[str, Any]) -> StoredPolicy:
    """The stored solution of exactly this game, version and parameters; ``LookupError``.

    Every data file is read once per process and kept (they are small).
    """
    for path in sorted(DATA_DIR.glob("*.json")):
        if path not in _CACHE:
            _CACHE[path] = load(path)
        stored = _CACHE[path]
        if stored.game == game and stored.params == params:
            if stored.version != version:
                raise LookupError(
                    f"the stored {game} solution is for version {stored.version}, the game is "
                    f"version {version}; regenerate it with `{REGENERATE}`"
                )
            return stored
    known = [(a["game"], a["params"]) for a in available()]
    raise LookupError(
        f"no stored CFR solution for {game} {params}; stored: {known} (a reduced variant whose "
        f"rules or parameters changed needs `{REGENERATE}`)"
    )


def available() -> list[dict[str, Any]]:
    """Game, version, parameters and NashConv of every stored solution."""
    out = []
    for path in sorted(DATA_DIR.glob("*.json")):
        if path not in _CACHE:
            _CACHE[path] = load(path)
        stored = _CACHE[path]
        out.append(
            {
                "file": path.name,
                "game": stored.game,
                "version": stored.version,
                "params": stored.params,
                "nash_conv": stored.meta.get("nash_conv"),
            }
        )
    return out
