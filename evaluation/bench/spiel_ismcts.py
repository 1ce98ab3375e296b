"""OpenSpiel's Python ``ISMCTSBot`` on an Atelier game: the reference our ISMCTS is measured by.

``AtelierState`` has no ``resample_from_infostate``; OpenSpiel's bot accepts a resampler
callback instead (``set_resampler``), and ours is built on ``games.sample_state`` from the
acting seat's information-set JSON, exactly like our own bot's worlds. Both bots get the same
pool of at most ``max_world_samples`` worlds per search, the same UCT constant (in the game's
units) and the same rollout policy: uniform random over the legal actions (OpenSpiel's
``RandomRolloutEvaluator`` with one rollout), or, in games whose bid ranges our ISMCTS
abstracts (Modern Art), uniform random over the same candidate actions
(``CandidateRolloutEvaluator``, the same loop stepping the same ``pyspiel`` state).

OpenSpiel's bot stops after a number of simulations; to compare at equal wall time,
``TimedSpielIsmcts`` stops it at a deadline by ending the search between two simulations and
taking OpenSpiel's own final policy (most visits) from the tree built so far.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts as spiel_ismcts
from open_spiel.python.algorithms.mcts import RandomRolloutEvaluator

import games
from bots.heuristics import GameKnowledge
from games.core.infoset import build_infoset


class _TimeUp(Exception):
    """Raised between two simulations when the deadline has passed."""


class TimedSpielIsmcts(spiel_ismcts.ISMCTSBot):
    """OpenSpiel's ``ISMCTSBot`` with a wall-time limit and a simulation counter."""

    def __init__(self, *args: Any, milliseconds: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.milliseconds = milliseconds
        self.deadline = float("inf")
        self.simulations = 0

    def run_search(self, state: pyspiel.State):
        self.simulations = 0
        self.deadline = (
            time.perf_counter() + self.milliseconds / 1000.0
            if self.milliseconds is not None
            else float("inf")
        )
        try:
            return super().run_search(state)
        except _TimeUp:
            return self.get_final_policy(state, self._root_node)

    def sample_root_state(self, state: pyspiel.State) -> pyspiel.State:
        # OpenSpiel needs two simulations before its root has a visit (the first expands it).
        if self.simulations >= 2 and time.perf_counter() >= self.deadline:
            raise _TimeUp
        self.simulations += 1
        return super().sample_root_state(state)


class CandidateRolloutEvaluator(RandomRolloutEvaluator):
    """``RandomRolloutEvaluator`` whose rollouts pick among a game's candidate actions."""

    def __init__(self, knowledge: GameKnowledge, random_state: np.random.RandomState) -> None:
        super().__init__(1, random_state)
        self.knowledge = knowledge

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        working = state.clone()
        rng = self._random_state
        while not working.is_terminal():
            if working.is_chance_node():
                outcomes, probs = zip(*working.chance_outcomes(), strict=True)
                action = rng.choice(outcomes, p=probs)
            else:
                legal = self.knowledge.candidates(working.engine, None)
                action = legal[rng.randint(len(legal))]
            working.apply_action(action)
        return np.array(working.returns())


def make_spiel_ismcts(
    game: pyspiel.Game,
    seed: int,
    *,
    exploration: float = 0.7,
    simulations: int | None = None,
    milliseconds: float | None = None,
    worlds: int = 32,
    knowledge: GameKnowledge | None = None,
) -> TimedSpielIsmcts:
    """OpenSpiel's ISMCTS on ``game`` with a ``games.sample_state`` resampler, seeded.

    With ``knowledge`` that abstracts actions, rollouts use its candidates (see module doc).
    """
    defn = game.definition
    params = game.params
    sampler_rng = random.Random(seed)

    def resample(state: pyspiel.State, player: int) -> pyspiel.State:
        infoset = build_infoset(defn, params, state.engine, player, with_view=False)
        return games.sample_state(game, infoset, sampler_rng.getrandbits(62))

    numbers = defn.numbers(params)
    rollouts = np.random.RandomState(seed % 2**32)
    evaluator = (
        CandidateRolloutEvaluator(knowledge, rollouts)
        if knowledge is not None and knowledge.abstracts
        else RandomRolloutEvaluator(1, rollouts)
    )
    bot = TimedSpielIsmcts(
        game,
        evaluator,
        exploration * (numbers.max_utility - numbers.min_utility),
        simulations if simulations is not None else 1 << 40,
        max_world_samples=worlds,
        random_state=np.random.RandomState((seed + 1) % 2**32),
        final_policy_type=spiel_ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        milliseconds=milliseconds,
    )
    bot.set_resampler(resample)
    return bot
