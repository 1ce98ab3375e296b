"""Example explained hints, for docs/api.md and the tests: ``python -m bots.explain.example``.

``python -m bots.explain.example gallery_rush`` prints the ``explain`` of a heuristic hint at a
scripted position (Gallery Rush, Finger Auction: the positions of tests/test_explain.py) or at
a decision of a seeded heuristic self-play game (Detective Eye, Modern Art), so the examples
in docs/api.md are this code's output.
"""

from __future__ import annotations

import argparse
import json
import random
from typing import Any

import bots
import games
from bots.explain import explain_hint
from bots.heuristics import knowledge_for
from games.core.definition import replay
from games.core.engine import Engine
from games.core.episode import random_position
from games.core.infoset import build_infoset

# The phases (``describe()["phase"]``) where each game's explanation has its estimates.
PHASES = {
    "gallery_rush": ("turn", "choose"),
    "finger_auction": ("bid", "pick"),
    "detective_eye": ("turn", "bidding", "challenge"),
    "modern_art": ("offer", "open", "sealed", "fixed_price", "once_around"),
}


def heuristic_decision(
    game: str, seed: int, players: int, stop: float = 0.25
) -> tuple[games.GameDefinition, dict[str, Any], Engine]:
    """A decision in one of ``PHASES[game]`` of a seeded heuristic self-play game: each such
    decision is taken with probability ``stop``."""
    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    knowledge = knowledge_for(game)
    rng = random.Random(seed)

    def here(engine: Engine) -> bool:
        return engine.describe()["phase"] in PHASES[game] and rng.random() < stop

    def heuristic(engine: Engine, seat: int, step: int) -> int:
        return knowledge.choose(engine, rng)  # type: ignore[union-attr]

    while True:  # a game that ends before stopping: the next one, from the same generator
        engine = random_position(defn, params, rng, here, heuristic)
        if engine is not None:
            return defn, params, engine


def scripted(game: str, players: int) -> tuple[games.GameDefinition, dict[str, Any], Engine]:
    """The documented positions: Gallery Rush, seat 0 with Monet and van Gogh in the Keep;
    Finger Auction, seat 1 in a two-handed auction after seat 0 took the Mona Lisa."""
    from games.finger_auction.actions import bid, pick
    from games.gallery_rush.actions import CONTINUE, EXPLORE
    from games.paintings import FORGERY_VAN_GOGH, MONA_LISA, MONET, VAN_GOGH, VERMEER

    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    if game == "gallery_rush":
        steps = [0, EXPLORE, MONET, CONTINUE, VAN_GOGH]
    else:
        mx = defn.new_engine(params).max_bid  # type: ignore[attr-defined]
        table = [MONET, MONET, MONET, VERMEER, VERMEER, FORGERY_VAN_GOGH, MONA_LISA]
        steps = [*table, bid(1), bid(2), bid(2), pick(MONA_LISA, mx)]
    return defn, params, replay(defn, params, steps)


def example(game: str, seed: int = 0, players: int = 3) -> dict[str, Any]:
    """The ``explain`` of a heuristic hint at the game's documented position."""
    if game in ("gallery_rush", "finger_auction"):
        defn, params, engine = scripted(game, 2 if game == "gallery_rush" else 3)
    else:
        defn, params, engine = heuristic_decision(game, seed, players)
    seat = engine.current_player()
    infoset = build_infoset(defn, params, engine, seat, with_view=False)
    bot = bots.make_bot("ismcts")
    hint = bot.hint(defn, params, infoset, bots.Budget(simulations=200), seed)
    answer = hint.to_json(defn, engine)
    return {
        "action": answer["action"]["string"],
        "value": answer["value"],
        "explain": explain_hint(
            defn, engine, seat, answer, params=params, infoset=infoset, bot=bot.spec(), seed=seed
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(PHASES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    print(compact(example(args.game, args.seed, args.players)))


def compact(out: dict[str, Any]) -> str:
    """The example as JSON with one line per figure and per sentence (for the docs)."""

    def dump(x: Any) -> str:
        return json.dumps(x, ensure_ascii=False)

    explain = out["explain"]
    figures = ",\n".join(f"    {dump(k)}: {dump(v)}" for k, v in explain["figures"].items())
    text = ",\n".join(f"    {dump(line)}" for line in explain["text"])
    return (
        f'{{"action": {dump(out["action"])}, "value": {dump(out["value"])},\n'
        f' "explain": {{\n  "figures": {{\n{figures}\n  }},\n  "text": [\n{text}\n  ],\n'
        f'  "value": {dump(explain["value"])}}}}}'
    )


if __name__ == "__main__":
    main()
