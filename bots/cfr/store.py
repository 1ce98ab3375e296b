"""Solved average policies as small JSON files inside the package (``bots/cfr/data``).

A file holds one game setting: the game, its version and full parameters, how it was solved
(method, iterations, NashConv reached, the command that regenerates it) and the policy: for
every information set, keyed by ``infoset_digest(infoset)`` (a digest of the canonical
information-set JSON, the public contract of ``games.core.infoset``, so engine internals such
as ``info_key`` can change without invalidating a file), the probabilities of its legal
actions in increasing action-id order. Keys are digests so the file stays small.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bots.cfr.tree import GameTree
from games.core.definition import replay
from games.core.infoset import build_infoset, canonical_json

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

    def probabilities(self, infoset: dict[str, Any], num_actions: int) -> list[float]:
        """The stored probabilities at this information set; ``KeyError`` if it is unknown."""
        probs = self.policy[infoset_digest(infoset)]
        if len(probs) != num_actions:
            raise KeyError(f"stored policy has {len(probs)} actions here, the game {num_actions}")
        total = sum(probs)
        return [p / total for p in probs] if total > 0 else [1.0 / num_actions] * num_actions


def infoset_digest(infoset: dict[str, Any]) -> str:
    """A short stable name of an information set: its canonical JSON, hashed."""
    return hashlib.sha1(canonical_json(infoset).encode()).hexdigest()[:16]


def tree_digests(defn: Any, params: dict[str, Any], tree: GameTree) -> list[list[str]]:
    """``infoset_digest`` of every information set of ``tree``, per player, by index."""
    out: list[list[str]] = []
    for p, pt in enumerate(tree.players):
        names = []
        for history in pt.histories:
            engine = replay(defn, params, history)
            names.append(infoset_digest(build_infoset(defn, params, engine, p, with_view=False)))
        out.append(names)
    return out


def policy_to_json(
    tree: GameTree, sigmas: list[np.ndarray], digests: list[list[str]], digits: int = 6
) -> dict[str, Any]:
    """The ``policy`` part of a data file, from per-player slot arrays."""
    out: dict[str, list[float]] = {}
    for pt, sigma, names in zip(tree.players, sigmas, digests, strict=True):
        for i in range(pt.num_infosets):
            lo = int(pt.slot_start[i])
            probs = sigma[lo : lo + int(pt.num_actions[i])]
            out[names[i]] = [round(float(x), digits) for x in probs]
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
                    f"version {version}; regenerate it with `{REGENERATE} --game {game}`"
                )
            return stored
    raise LookupError(missing_reason())


def missing_reason() -> str:
    """Why ``cfr`` cannot play a setting that has no stored solution: one sentence a player
    reads (on the play page, in the bots listings, in a 422), naming the games whose reduced
    variant is solved and how to add one. The exact parameters of those variants are data
    (``solutions_detail``), never printed into the sentence."""
    games = sorted({a["game"] for a in available()})
    solved = " and ".join(games) if games else "none"
    return (
        f"there is no stored CFR solution for this setting: cfr plays only the reduced 2-player "
        f"variants of {solved}; use 'oos' here, or solve a game's SMALL_VARIANT with "
        f"`{REGENERATE} --game <game>`"
    )


def solutions_detail() -> dict[str, Any]:
    """The settings ``cfr`` can play, as structured data next to ``missing_reason``:
    ``{"solutions": [{"game", "version", "params"}, ...]}``."""
    return {
        "solutions": [
            {"game": a["game"], "version": a["version"], "params": a["params"]} for a in available()
        ]
    }


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
