"""The one rollout to the end (or to a cut-off) that every search and evaluator plays.

ISMCTS, online CFR (``oos``) and the Bayesian best responder all finish a simulation the same
way: chance by ``engine.sample_chance``, player decisions by a policy, and optionally a
cut-off after ``cutoff`` player decisions where the game's heuristic evaluation estimates the
returns (an evaluation that answers ``None`` lets the rollout continue, and it is asked again
at the next decision). Without a policy a decision is uniform over the considered actions:
the game's candidates (``GameKnowledge.candidates``) when it abstracts large bid ranges, else
every legal action, drawn as ``actions[int(rng.random() * len(actions))]``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from games.core.engine import CHANCE, TERMINAL, Engine

Policy = Callable[[Engine, random.Random], int]
Candidates = Callable[[Engine, list[int] | None], list[int]]
Evaluate = Callable[[Engine], list[float] | None]


def play_out(
    engine: Engine,
    rng: random.Random,
    policy: Policy | None = None,
    candidates: Candidates | None = None,
    evaluate: Evaluate | None = None,
    cutoff: int = -1,
) -> list[float]:
    """Plays ``engine`` on (in place) and returns every seat's returns.

    ``policy(engine, rng)`` picks the move of whoever is to move (uniform over the considered
    actions when ``None``). With ``evaluate`` and ``cutoff >= 0`` the rollout stops after
    ``cutoff`` player decisions and returns ``evaluate(engine)`` unless that is ``None``.
    """
    random_ = rng.random
    cut = evaluate is not None and cutoff >= 0
    moves = 0
    while True:
        player = engine.current_player()
        if player == TERMINAL:
            return engine.returns()
        if player == CHANCE:
            engine.apply(engine.sample_chance(rng))
            continue
        if cut and moves >= cutoff:
            values = evaluate(engine)  # type: ignore[misc]
            if values is not None:
                return values
        moves += 1
        if policy is not None:
            engine.apply(policy(engine, rng))
            continue
        acts = engine.player_actions()
        if candidates is not None:
            acts = candidates(engine, acts)
        engine.apply(acts[int(random_() * len(acts))])
