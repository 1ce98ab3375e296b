"""The rollout of an iteration: from the tree's leaf to the end of the game (or to a cut-off
scored by the game's evaluation), by the policy the configuration names."""

from __future__ import annotations

import random
from collections.abc import Callable

from bots.beliefs import HeuristicModel, has_rating
from bots.heuristics import GameKnowledge
from bots.ismcts.config import SearchConfig
from bots.rollout import play_out
from games.core.engine import Engine

Rollout = Callable[[Engine, random.Random], list[float]]
Candidates = Callable[[Engine, list[int] | None], list[int]]


class ModelledOpponents:
    """A rollout policy: the other seats' first ``left`` decisions by the heuristic bot's move
    (``GameKnowledge.choose``, the opponent model), everything else by the rollout policy."""

    __slots__ = ("candidates", "choose", "left", "rest", "seat")

    def __init__(
        self,
        seat: int,
        choose: Callable[[Engine, random.Random], int],
        rest: Callable[[Engine, random.Random], int] | None,
        candidates: Candidates | None,
    ) -> None:
        self.seat = seat
        self.choose = choose
        self.rest = rest
        self.candidates = candidates
        self.left = 0

    def __call__(self, engine: Engine, rng: random.Random) -> int:
        if self.left > 0 and engine.current_player() != self.seat:
            self.left -= 1
            return self.choose(engine, rng)
        if self.rest is not None:
            return self.rest(engine, rng)
        acts = engine.player_actions()
        if self.candidates is not None:
            acts = self.candidates(engine, acts)
        return acts[int(rng.random() * len(acts))]


def decisive(
    evaluate: Callable[[Engine], list[float] | None],
) -> Callable[[Engine], list[float] | None]:
    """``evaluate`` where it tells the seats apart, else ``None`` (``play_out`` then plays on
    and asks again at the next decision): the analysis mode's cut-off (``decisive_cut``)."""

    def told_apart(engine: Engine) -> list[float] | None:
        values = evaluate(engine)
        if values is None or max(values) - min(values) <= 1e-9:
            return None
        return values

    return told_apart


def make_rollout(
    config: SearchConfig,
    engine_type: type[Engine],
    seat: int,
    knowledge: GameKnowledge | None,
    candidates: Candidates | None,
    model: HeuristicModel | None,
) -> Rollout:
    """The rollout of a search: its returns for every seat from a leaf.

    Uniform random rollouts to the end are the engine's own loop when it has one
    (``random_playout``: the same draws and actions as ``play_out``, without a list of legal
    actions and an ``apply`` call per step). With ``rollout_opponents`` the other seats' first
    decisions are the model's (``model``, or the heuristic's rated move). A profiled model
    (``ProfiledModel.rollout_policy``) plays its seats' moves at the profile's trust in every
    rollout, and is the model of ``rollout_opponents``.
    """
    depth = config.rollout_depth
    heuristic = knowledge.playout if config.rollout == "heuristic" else None  # type: ignore[union-attr]
    if config.rated_rollout and has_rating(knowledge):
        heuristic = knowledge.choose  # type: ignore[union-attr]
    evaluate = knowledge.evaluate if depth >= 0 else None  # type: ignore[union-attr]
    if evaluate is not None and config.decisive_cut:
        evaluate = decisive(evaluate)
    # A profiled model (``bots.profiles.model``) plays its seats in rollouts as in the tree.
    profiled = getattr(model, "rollout_policy", None)
    if profiled is not None:
        heuristic = profiled(heuristic, candidates)
    model_move = (
        model.choose  # type: ignore[union-attr]
        if model is not None and (config.model_opponents or profiled is not None)
        else None
    )
    if config.rollout_opponents > 0 and (model_move is not None or has_rating(knowledge)):
        modelled = ModelledOpponents(seat, model_move or knowledge.choose, heuristic, candidates)  # type: ignore[union-attr]
        left = config.rollout_opponents

        def opening_by_model(engine: Engine, rng: random.Random) -> list[float]:
            modelled.left = left
            return play_out(engine, rng, modelled, candidates, evaluate, depth)

        return opening_by_model
    playout = getattr(engine_type, "random_playout", None)
    if heuristic is None and candidates is None and depth < 0 and playout is not None:
        return playout  # type: ignore[no-any-return]

    def by_policy(engine: Engine, rng: random.Random) -> list[float]:
        return play_out(engine, rng, heuristic, candidates, evaluate, depth)

    return by_policy
