"""How much skill Gallery Rush rewards: the evidence behind its missed strength targets.

ISMCTS at 1000 simulations scores about 0.73 against random and is level with the heuristic
(``atelier bench strength``; targets 0.9 and a significant win). This measures two things that
bound what *any* player can do, on seeded deals with seats rotated:

1. **Where random's wins come from** when the heuristic plays it: a successful "Mona Lisa"
   declaration ends the game at once, and random declares it on one turn in six, so a share
   of games is lost to that alone whatever the opponent does.
2. **A best response by rollouts.** One step of rollout policy improvement (G. Tesauro and
   G. R. Galperin, "On-line Policy Improvement using Monte-Carlo Search", NIPS 1996) over the
   heuristic: at each decision, every legal action is followed by ``rollouts`` playouts in which
   the *opponent plays the policy it really plays* (uniform random, or the heuristic's choice,
   up to tie-breaks) and our later moves follow the heuristic's playout; the action replaces the
   heuristic's choice only when its mean gain over it exceeds two standard errors. The playouts
   of different actions share their random numbers (common random numbers), so the comparison
   sees the effect of the action and not the luck of the draw. Gallery Rush has no hidden
   information but the deck order (every flip is public), so this searches the true state with
   the true opponent model: it is as close to a best response as sampling gets, and what it
   scores against random is a practical ceiling for any bot.

``python -m evaluation.bench.gallery_rush_ceiling --deals 100 --rollouts 100``
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import pyspiel

import games
from bots import Budget, make_bot
from bots.heuristics import knowledge_for
from evaluation.bench.strength import wilson
from games.core.episode import play_episode, sampled_chance
from games.core.infoset import build_infoset
from games.core.seeds import derive_seed

GAME = "gallery_rush"
Policy = Callable[[Any, random.Random], int]


def _uniform(engine: Any, rng: random.Random) -> int:
    legal = engine.player_actions()
    return legal[int(rng.random() * len(legal))]


class RolloutImprover:
    """One-step rollout policy improvement over the heuristic, with common random numbers."""

    def __init__(self, opponent: Policy, rollouts: int, z: float = 2.0) -> None:
        self.knowledge = knowledge_for(GAME)
        self.opponent = opponent
        self.rollouts = rollouts
        self.z = z

    def _playout(self, engine: Any, seat: int, rng: random.Random) -> float:
        mine, theirs = self.knowledge.playout, self.opponent

        def choose(engine: Any, player: int, step: int) -> int:
            return (mine if player == seat else theirs)(engine, rng)

        play_episode(engine, choose, sampled_chance(rng))
        return engine.returns()[seat]

    def choose(self, engine: Any, seed: int) -> int:
        legal = engine.player_actions()
        base = self.knowledge.choose(engine, random.Random(seed))
        if len(legal) == 1:
            return base
        seat = engine.current_player()
        gains: dict[int, list[float]] = {a: [] for a in legal if a != base}
        for k in range(self.rollouts):
            stream = derive_seed(seed, "rollout", k)  # the same draws after every action
            values = {}
            for action in legal:
                world = engine.copy()
                world.apply(action)
                values[action] = self._playout(world, seat, random.Random(stream))
            for action in gains:
                gains[action].append(values[action] - values[base])
        best, best_gain = base, 0.0
        for action, diffs in gains.items():
            n = len(diffs)
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
            if mean > best_gain and mean > self.z * math.sqrt(var / n):
                best, best_gain = action, mean
        return best


def _play(
    choosers: tuple[Callable[[Any, int], int], Callable[[Any, int], int]],
    hero_seat: int,
    deal: int,
) -> dict[str, Any]:
    """One 2-player game, the hero in ``hero_seat``; who won and how."""
    defn = games.definition(GAME)
    engine = defn.new_engine(defn.validate_params({"players": 2}))

    def choose(engine: Any, seat: int, step: int) -> int:
        chooser = choosers[0] if seat == hero_seat else choosers[1]
        return chooser(engine, derive_seed("gallery-rush-ceiling", deal, "move", step))

    play_episode(engine, choose, sampled_chance(random.Random(deal)))
    returns = engine.returns()
    best = max(returns)
    winners = [s for s in range(2) if returns[s] == best]
    return {
        "score": 1.0 / len(winners) if hero_seat in winners else 0.0,
        "mona_lisa": engine.mona_lisa_winner >= 0,
    }


def _bot_chooser(name: str) -> Callable[[Any, int], int]:
    game = pyspiel.load_game(GAME, {"players": 2})
    defn, params = game.definition, game.params
    bot = make_bot(name)
    budget = Budget(simulations=1)

    def choose(engine: Any, seed: int) -> int:
        infoset = build_infoset(defn, params, engine, engine.current_player())
        return bot.hint(defn, params, infoset, budget, seed).action

    return choose


def measure(label: str, hero, villain, deals: int, progress=None) -> dict[str, Any]:
    """The hero's score over ``deals`` deals, each played with the hero in both seats."""
    started = time.perf_counter()
    scores: list[float] = []
    villain_mona_lisa = 0
    for deal in range(deals):
        for seat in (0, 1):
            got = _play((hero, villain), seat, deal)
            scores.append(got["score"])
            villain_mona_lisa += got["mona_lisa"] and got["score"] == 0.0
        if progress and ((deal + 1) % 10 == 0 or deal + 1 == deals):
            progress(f"{label}: {deal + 1}/{deals} deals, score {sum(scores) / len(scores):.3f}")
    n = len(scores)
    mean = sum(scores) / n
    lo, hi = wilson(mean, n)
    return {
        "pairing": label,
        "games": n,
        "score": round(mean, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "lost_to_mona_lisa": round(villain_mona_lisa / n, 4),
        "seconds": round(time.perf_counter() - started, 1),
    }


def run(deals: int = 100, rollouts: int = 100, progress=None) -> dict[str, Any]:
    heuristic = _bot_chooser("heuristic")
    rand = _bot_chooser("random")
    vs_random = RolloutImprover(_uniform, rollouts)
    vs_heuristic = RolloutImprover(knowledge_for(GAME).choose, rollouts)
    rows = [
        measure("heuristic vs random", heuristic, rand, deals, progress),
        measure("rollout best response vs random", vs_random.choose, rand, deals, progress),
        measure(
            "rollout best response vs heuristic", vs_heuristic.choose, heuristic, deals, progress
        ),
    ]
    return {"game": GAME, "players": 2, "deals": deals, "rollouts": rollouts, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=100, help="deals (each played twice)")
    parser.add_argument("--rollouts", type=int, default=100, help="playouts per action")
    parser.add_argument("--json", action="store_true", help="print the JSON report only")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.rollouts < 2:
        parser.error("--deals must be >= 1 and --rollouts >= 2")
    report = run(args.deals, args.rollouts, lambda text: print(text, file=sys.stderr))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for row in report["rows"]:
            print(
                f"{row['pairing']:<36} {row['games']:>5} games  score {row['score']:.3f} "
                f"[{row['ci95'][0]:.3f}, {row['ci95'][1]:.3f}]  lost to a Mona Lisa "
                f"{row['lost_to_mona_lisa']:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
