"""A/B record of search hints: the same positions and seeds before and after a refactor.

``python -m tests.ab_hints record OUT.json`` writes, for random decision positions of every
game at every player count, the ``ismcts`` hint (action, policy, value) under several option
sets (the defaults, the ``ismcts-legacy`` baseline, and options exercising each search piece),
with a simulation budget so the answer depends only on the seed. ``compare OLD.json NEW.json``
names every hint that differs; ``record-others`` records ``oos`` and the best responder, which
share the search's pool of worlds. Used to check that restructuring the search (issue 44) keeps
the same hints for the same seeds; not a unit test (it takes minutes).
"""

from __future__ import annotations

import json
import sys

import games
from bots import Budget, make_bot
from games.core.infoset import build_infoset
from tests.support import decision_states

# Option sets: the defaults, a322b0d's baseline, and one per search piece.
LEGACY = {
    "exploration": 0.7,
    "rollout": "auto",
    "rollout_depth": -1,
    "opponent_model": "heuristic",
    "worlds": 32,
    "beliefs": "uniform",
    "hidden_moves": "sample",
    "selection": "uct",
    "prior_weight": 0.0,
    "rollout_opponents": 0,
    "opponent_moves": "search",
    "final_policy": "visits",
}
OPTION_SETS: dict[str, dict[str, object]] = {
    "defaults": {},
    "legacy": LEGACY,
    "smooth_self": {"selection": "smooth", "prior_seats": "self", "prior_weight": 0.3},
    "modelled": {"opponent_moves": "heuristic", "rollout_opponents": 3, "final_policy": "p_value"},
    "random_cut": {"rollout": "random", "rollout_depth": 4, "final_policy": "greedy"},
    "uniform": {"beliefs": "uniform", "opponent_model": "uniform", "worlds": 8},
}


def record(positions: int = 6, simulations: int = 120) -> dict[str, object]:
    """Every hint, keyed by game, players, position, option set."""
    out: dict[str, object] = {}
    bots = {k: make_bot({"name": "ismcts", "options": v}) for k, v in OPTION_SETS.items()}
    for name, defn in sorted(games.DEFINITIONS.items()):
        spec = next(p for p in defn.param_specs if p.name == "players")
        for players in range(spec.min, spec.max + 1):
            _, params, states = decision_states(name, 7 + players, positions, {"players": players})
            for i, engine in enumerate(states):
                infoset = build_infoset(defn, params, engine, engine.current_player())
                for label, bot in bots.items():
                    hint = bot.hint(defn, params, infoset, Budget(simulations=simulations), seed=i)
                    key = f"{name}/{players}/{i}/{label}"
                    out[key] = {
                        "action": hint.action,
                        "value": hint.value,
                        "policy": [
                            [s.action, s.probability, s.visits, s.value] for s in hint.policy
                        ],
                    }
                    print(key, hint.action, file=sys.stderr)
    return out


def record_others(positions: int = 3, simulations: int = 60) -> dict[str, object]:
    """The same for the other searches that draw a pool of worlds: ``oos`` and the best
    responder to the heuristic (``evaluation.best_response``)."""
    from evaluation.best_response import BestResponder

    out: dict[str, object] = {}
    bots = {
        "oos": make_bot("oos"),
        "best_response": BestResponder("heuristic", worlds=8, model_simulations=1),
    }
    for name, defn in sorted(games.DEFINITIONS.items()):
        spec = next(p for p in defn.param_specs if p.name == "players")
        for players in (spec.min, spec.max):
            _, params, states = decision_states(name, 5 + players, positions, {"players": players})
            for i, engine in enumerate(states):
                infoset = build_infoset(defn, params, engine, engine.current_player())
                for label, bot in bots.items():
                    hint = bot.hint(defn, params, infoset, Budget(simulations=simulations), seed=i)
                    key = f"{name}/{players}/{i}/{label}"
                    out[key] = {
                        "action": hint.action,
                        "value": hint.value,
                        "policy": [[s.action, s.probability] for s in hint.policy],
                    }
                    print(key, hint.action, file=sys.stderr)
    return out


def compare(old: dict[str, object], new: dict[str, object]) -> list[str]:
    """The keys whose hints differ (or are missing on one side)."""
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


if __name__ == "__main__":
    if sys.argv[1] in ("record", "record-others"):
        with open(sys.argv[2], "w") as f:
            hints = record() if sys.argv[1] == "record" else record_others()
            json.dump(hints, f, indent=0, sort_keys=True)
    else:
        with open(sys.argv[2]) as a, open(sys.argv[3]) as b:
            diff = compare(json.load(a), json.load(b))
        print(f"{len(diff)} differing hints", *diff[:40], sep="\n")
        sys.exit(1 if diff else 0)
