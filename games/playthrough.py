"""Golden playthroughs: one seeded random game per game and setting, as readable text.

Like OpenSpiel's ``playthroughs/*.txt``: the game's sizes, then every step of one seeded random
game with what each seat sees (the step's public event and private entry, the observation
string and tensor, the information-state tensor's new row), the legal actions and the action
taken, then the returns. The information-state tensor is the seat's one-hot plus one row per
step, so the rows printed step by step are the whole tensor.

Files: ``tests/playthroughs/<game>-<setting>.txt`` (``<setting>`` is ``<n>p`` for a
conformance setting with ``n`` players, ``small`` for the small variant). Each file records the
game's ``version``; ``tests/test_playthroughs.py`` fails when the text a game gives differs
from its file. A deliberate change bumps the game's ``version`` and regenerates:

    python -m games.playthrough --regenerate

which rewrites every file, but refuses (exit status 1, naming them) files whose text changed
while the version stayed the same, unless ``--force`` says the change is deliberate anyway.
``python -m games.playthrough --check`` only reports the differences (exit status 1 if any).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import games
from games.core.definition import GameDefinition
from games.core.engine import CHANCE

DIRECTORY = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"
SEED = 20
INFO_TYPE = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)


def settings() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(file stem, game name, parameters) of every playthrough."""
    for name, defn in games.DEFINITIONS.items():
        for params in defn.conformance_params:
            label = "small" if params == defn.small_variant else f"{params['players']}p"
            yield f"{name}-{label}", name, dict(params)
        if defn.small_variant is not None and defn.small_variant not in defn.conformance_params:
            yield f"{name}-small", name, dict(defn.small_variant)


def _sparse(values: Any) -> str:
    """Nonzero entries as ``index:value`` (tensors are mostly zeros)."""
    array = np.asarray(values, np.float32).ravel()
    return " ".join(f"{i}:{array[i]:g}" for i in np.flatnonzero(array)) or "(all zero)"


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def playthrough(name: str, params: dict[str, Any], seed: int = SEED) -> str:
    """The playthrough text of one seeded random game of ``name`` with ``params``."""
    game = pyspiel.load_game(name, params)
    defn: GameDefinition = game.definition
    n = game.num_players()
    rng = random.Random(seed)
    lines = [
        f"game: {game}",
        f"version: {defn.version}",
        f"seed: {seed}",
        f"num_players: {n}",
        f"num_distinct_actions: {game.num_distinct_actions()}",
        f"max_chance_outcomes: {game.max_chance_outcomes()}",
        f"utility: {game.min_utility():g} .. {game.max_utility():g}",
        f"max_game_length: {game.max_game_length()}",
        f"observation_tensor_shape: {game.observation_tensor_shape()}",
        f"information_state_tensor_shape: {game.information_state_tensor_shape()}",
        f"recall_steps: {defn.recall_steps(game.params)}",
        "",
    ]
    observer = game.make_py_observer(None)
    info = game.make_py_observer(INFO_TYPE)
    state = game.new_initial_state()
    step = 0
    while True:
        engine = state.engine
        player = engine.current_player()
        who = (
            "terminal"
            if state.is_terminal()
            else "chance"
            if player == CHANCE
            else f"seat {player}"
        )
        lines.append(f"# step {step}: {who}")
        for seat in range(n):
            observer.set_from(state, seat)
            text = observer.string_from(state, seat).replace("\n", "; ")
            lines.append(f"  obs[{seat}]: {text}")
            lines.append(f"  obs_tensor[{seat}]: {_sparse(observer.tensor)}")
        if state.is_terminal():
            lines.append(f"returns: {[round(r, 6) for r in state.returns()]}")
            break
        legal = state.legal_actions()
        if player == CHANCE:
            odds = dict(state.chance_outcomes())
            shown = ", ".join(
                f"{a} {state.action_to_string(player, a)!r} p={odds[a]:.4g}" for a in legal[:8]
            )
            action = engine.sample_chance(rng)
        else:
            shown = ", ".join(f"{a} {state.action_to_string(player, a)!r}" for a in legal[:8])
            action = legal[int(rng.random() * len(legal))]
        more = f" (+{len(legal) - 8} more)" if len(legal) > 8 else ""
        lines.append(f"  legal ({len(legal)}): {shown}{more}")
        story = engine.narrate(action)
        lines.append(f"  apply {action} {state.action_to_string(player, action)!r}")
        lines.append(f"  event: {_compact(story.public)}")
        state.apply_action(action)
        for seat in range(n):
            hidden = story.private_for(seat)
            if hidden is not None:
                lines.append(f"  private[{seat}]: {_compact(hidden)}")
            row = info.rows(state.engine, seat)[step]
            lines.append(f"  info_row[{seat}]: {_sparse(row)}")
        step += 1
    return "\n".join(lines) + "\n"


def recorded_version(text: str) -> int | None:
    """The ``version:`` line of a playthrough file."""
    for line in text.splitlines()[:3]:
        if line.startswith("version: "):
            return int(line.split()[1])
    return None


def compare() -> list[tuple[str, str, str | None, str]]:
    """(stem, game, recorded text or None, current text) for every playthrough."""
    out = []
    for stem, name, params in settings():
        path = DIRECTORY / f"{stem}.txt"
        old = path.read_text() if path.exists() else None
        out.append((stem, name, old, playthrough(name, params)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--regenerate", action="store_true", help="rewrite the playthrough files")
    mode.add_argument("--check", action="store_true", help="only report the differences")
    parser.add_argument(
        "--force", action="store_true", help="also rewrite files changed without a version bump"
    )
    args = parser.parse_args(argv)
    refused = []
    differ = 0
    for stem, name, old, new in compare():
        if old == new:
            continue
        differ += 1
        version = games.definition(name).version
        unbumped = old is not None and recorded_version(old) == version
        status = "changed without a version bump" if unbumped else "new or version bumped"
        print(f"{stem}: {status}", file=sys.stderr)
        if args.check:
            continue
        if unbumped and not args.force:
            refused.append(stem)
            continue
        DIRECTORY.mkdir(parents=True, exist_ok=True)
        (DIRECTORY / f"{stem}.txt").write_text(new)
    if refused:
        print(
            f"refused {len(refused)} file(s): bump the game's version (or pass --force): "
            + ", ".join(refused),
            file=sys.stderr,
        )
        return 1
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
