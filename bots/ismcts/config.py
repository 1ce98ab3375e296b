"""The search's configuration: the bot's options, resolved once per search against the game and
the budget into a frozen ``SearchConfig`` that the search reads and never re-interprets.

Three options have values that stand for "the measured choice" (the JSON contract keeps them):
``rollout_depth`` ``DEPTH_SEARCH`` (-2: the search's cut-off per game, ``GAME_DEFAULTS``) and
``DEPTH_GAME`` (-1: the game heuristic's own), and a negative ``prior_weight`` (``PRIOR_BY_GAME``,
-1: the search's weight per game). ``beliefs``, ``rollout`` and ``opponent_moves`` take
``auto`` alike. Only
``SearchConfig.resolve`` reads them; after it, a depth below 0 means "to the end" and every
other field is a plain value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bots.beliefs import has_rating
from bots.heuristics import GameKnowledge
from bots.protocol import Budget, InvalidBotSpec
from games.detective_eye.engine import DRAFT as DE_DRAFT

# ``rollout_depth`` values that name a choice rather than a number of decisions.
DEPTH_SEARCH = -2  # the search's measured cut-off per game (``GameDefaults.cutoff``), else as -1
DEPTH_GAME = -1  # the game heuristic's own cut-off (``GameKnowledge.default_rollout_depth``)
# ``prior_weight``'s default and least value: any negative weight is the search's measured
# weight per game (``GameDefaults.prior``, ``timed_prior``).
PRIOR_BY_GAME = -1.0

ROLLOUT_POLICIES = ("auto", "random", "heuristic")
# The hint's mixed-policy rules (``result.final_weights``).
FINAL_POLICIES = ("significant", "visits", "p_value", "greedy", "average", "welch")
SELECTIONS = ("uct", "smooth", "regret")  # the tree policy (``bots.ismcts.tree``)
# How the other seats decide in the tree (``opponent_moves``; ``resolve_opponent_moves``).
OPPONENT_MOVES = ("auto", "search", "heuristic", "restricted")


@dataclass(frozen=True)
class GameDefaults:
    """The search's measured choices for one game, where they differ from the plain search
    (docs/bots.md gives the measurements; the notes at ``GAME_DEFAULTS`` summarise them).

    ``cutoff``: the rollout cut-off of ``rollout_depth: -2`` (``None``: as -1).
    ``prior``: the progressive-bias weight of a negative ``prior_weight``; ``timed_prior``
    replaces it under a time budget when set. ``timed_beliefs``: the weighting of ``beliefs:
    auto`` under a time budget when it is not ``heuristic``. ``opponent_moves``: the value of
    ``opponent_moves: auto`` when it is not ``search``.
    """

    cutoff: int | None = None
    prior: float = 0.0
    timed_prior: float | None = None
    timed_beliefs: str | None = None
    opponent_moves: str | None = None
    # The analysis mode's rollout (``bots.analysis``) in the phases where the search's cannot
    # tell the candidate moves apart (``analysis_phases``: values of the engine's ``phase``):
    # the rated heuristic's move for every seat, cut after ``analysis_cutoff`` decisions (by a
    # decisive evaluation). Elsewhere the analysis rolls out as the search does, so that the
    # hint's move and the analysis's values come from one evaluator (issue 38, target 3).
    analysis_cutoff: int | None = None
    analysis_phases: frozenset[int] = frozenset()


# Detective Eye: its rollout policy (a safe player that declares only what its own face-down
# cards back) makes whole games a fixed rotation, so every rollout from many positions ends the
# same way and the root's values carry no signal. Cut off after about one round (10 decisions),
# the game's evaluation scores what the round did: against the heuristic in 4-player games
# 0.600 over 40 games at 300 simulations (to the end: 0.283), 0.700 [0.57, 0.80] over 60 at
# 1,000 (to the end: 0.167). The prior 0.5 makes a new opponent node play like the heuristic
# until its own statistics take over (without it, 2-player games against the heuristic fell
# from 0.717 at 1,000 simulations to 0.483 at 500 ms).
# Finger Auction: the prior 0.5 exploits the heuristic's habits without making the hint easier
# to exploit: 0.642 over 120 games against 0.542 without at 1,000 simulations; exact NashConv
# of Finger Auction small 0.414, 0.245, 0.129, 0.092 at 100 to 3,000 simulations.
# Gallery Rush: the prior 0.5 is a small gain at 2 and 3 players (AIVAT-corrected +0.023 and
# +0.037 against the heuristic at 1,000 simulations) and level at 4.
# Modern Art: under a time budget, uniform worlds (weighing the pool costs a quarter to a third
# of the simulations at 500 ms and places only 1-2 points more of the hidden cards right) and
# the prior 0.5 (a node visited a few times tries the heuristic's bid first: against the
# ISMCTS of a322b0d at 100 ms, 0.556 [0.40, 0.70] over 36 games at 3 players against 0.236
# without). Modern Art keeps its heuristic's own rollout cut-off (40 decisions).
# Detective Eye: the other seats as a restricted response to the heuristic (``opponent_moves:
# restricted``, locked to its move in the tree at ``restricted_trust``): searched freely, they
# grow toward a best response to the search itself, and more search then scored less against
# fixed opponents (``honest`` 0.833 at 1,000 simulations, 0.562 at 500 ms of CPU). docs/bots.md,
# "The other seats as a restricted response", has the measurements.
GAME_DEFAULTS: dict[str, GameDefaults] = {
    "detective_eye": GameDefaults(
        cutoff=10,
        prior=0.5,
        opponent_moves="restricted",
        analysis_cutoff=20,
        analysis_phases=frozenset({DE_DRAFT}),
    ),
    "finger_auction": GameDefaults(prior=0.5),
    "gallery_rush": GameDefaults(prior=0.5),
    "modern_art": GameDefaults(timed_prior=0.5, timed_beliefs="uniform"),
}
NO_DEFAULTS = GameDefaults()

# The same tables by option, as the option descriptions and docs/bots.md name them.
SEARCH_CUTOFFS: dict[str, int] = {
    g: d.cutoff for g, d in GAME_DEFAULTS.items() if d.cutoff is not None
}
SEARCH_PRIORS: dict[str, float] = {g: d.prior for g, d in GAME_DEFAULTS.items() if d.prior}
TIMED_PRIORS: dict[str, float] = {
    g: d.timed_prior for g, d in GAME_DEFAULTS.items() if d.timed_prior is not None
}
TIMED_BELIEFS: dict[str, str] = {
    g: d.timed_beliefs for g, d in GAME_DEFAULTS.items() if d.timed_beliefs is not None
}


def timed(budget: Budget | None) -> bool:
    """Whether a search runs against the clock (``None``: no budget, as in a review)."""
    return budget is not None and budget.milliseconds is not None


def resolve_beliefs(beliefs: str, game: str, budget: Budget | None) -> str:
    """The weighting a search uses: the spec's, or (``auto``) ``heuristic`` except where
    ``GAME_DEFAULTS`` names another under a time budget."""
    if beliefs != "auto":
        return beliefs
    defaults = GAME_DEFAULTS.get(game, NO_DEFAULTS)
    return (defaults.timed_beliefs if timed(budget) else None) or "heuristic"


def resolve_prior(weight: float, game: str, budget: Budget | None = None) -> float:
    """The progressive-bias weight a search uses: the spec's, or (negative: ``PRIOR_BY_GAME``)
    the game's timed weight under a time budget where it has one, else its weight."""
    if weight >= 0:
        return weight
    defaults = GAME_DEFAULTS.get(game, NO_DEFAULTS)
    if timed(budget) and defaults.timed_prior is not None:
        return defaults.timed_prior
    return defaults.prior


def resolve_opponent_moves(choice: str, game: str) -> str:
    """How the other seats decide in the tree: the spec's ``opponent_moves``, or (``auto``)
    the game's measured choice (``GameDefaults.opponent_moves``), else ``search``."""
    if choice != "auto":
        return choice
    return GAME_DEFAULTS.get(game, NO_DEFAULTS).opponent_moves or "search"


def resolve_rollout(rollout: str, depth: int, knowledge: GameKnowledge | None) -> tuple[str, int]:
    """The rollout policy and cut-off a search uses: the spec's, or the game's defaults
    (``DEPTH_SEARCH``: ``GAME_DEFAULTS``' cut-off, then as ``DEPTH_GAME``; ``DEPTH_GAME``: the
    game heuristic's own cut-off). A depth below 0 in the answer means to the end."""
    if depth == DEPTH_SEARCH:
        cutoff = GAME_DEFAULTS.get(knowledge.game, NO_DEFAULTS).cutoff if knowledge else None
        depth = DEPTH_GAME if cutoff is None else cutoff
    if rollout == "auto":
        rollout = knowledge.default_rollout if knowledge is not None else "random"
    if depth < 0 and knowledge is not None and knowledge.default_rollout_depth is not None:
        depth = knowledge.default_rollout_depth
    return rollout, depth


@dataclass(frozen=True)
class SearchConfig:
    """Everything one search does, every choice made (``resolve``); the defaults are the plain
    ISMCTS of the paper (uniform worlds, UCB1, random rollouts to the end).

    ``rollout_depth`` < 0: rollouts to the end. ``weigh_worlds``: Bayes weights on a pool of
    ``belief_worlds`` (needs a rated heuristic model). ``model_opponents``: the other seats'
    tree decisions by that model (``opponent_moves: heuristic``). ``prior_opponents``: the
    progressive bias at every seat's nodes, not only the searching seat's. ``hidden_moves``:
    the unseen moves before our turn searched in the tree, not sampled with the world.
    """

    exploration: float = 0.7
    rollout: str = "random"
    rollout_depth: int = DEPTH_GAME
    pool_size: int = 32
    weigh_worlds: bool = False
    belief_worlds: int = 64
    epsilon: float = 0.2
    belief_effective: float = 0.25
    smooth: bool = False
    regret: bool = False
    prior_weight: float = 0.0
    prior_opponents: bool = True
    hidden_moves: bool = False
    rollout_opponents: int = 0
    model_opponents: bool = False
    final_policy: str = "visits"
    # The analysis mode (``bots.analysis``): a cut-off evaluation that leaves every seat level
    # tells nothing (Detective Eye's draft), so the rollout plays on until one does not.
    decisive_cut: bool = False
    # Rollouts by the rated heuristic's move (``GameKnowledge.choose``) for every seat.
    rated_rollout: bool = False

    def for_analysis(self, game: str, options: dict[str, object], phase: object) -> SearchConfig:
        """The analysis mode's configuration (``bots.analysis``) at a position in ``phase`` (the
        engine's ``phase``, ``None`` where it has none): a decisive cut-off, and, in the game's
        ``analysis_phases``, its analysis rollout (``GameDefaults.analysis_cutoff``) when the
        bot's rollout is the measured default (``rollout: auto``, ``rollout_depth: -2``).

        Detective Eye's safe playout ignores the draft, so every draft decision got the same
        value: on a 3-player draft position, 60 rollouts per pass gave 0.283 for all four
        passes; by the rated heuristic cut after 20 decisions 0.442, 0.308, 0.292, 0.233 for
        the passes the heuristic rates best to worst (to the end: 0.233 to 0.017). In its play
        phases the analysis rolls out as the search does (one evaluator for the hint and the
        analysis): over 200 random positions at 200 simulations the hint's move was beaten
        beyond noise about as often either way (19 of 173 by the rated heuristic, 26 of 200 by
        the search's rollout), and the search's rollout makes the rounds 10x cheaper."""
        out = replace(self, decisive_cut=True)
        defaults = GAME_DEFAULTS.get(game, NO_DEFAULTS)
        if (
            defaults.analysis_cutoff is not None
            and phase in defaults.analysis_phases
            and options.get("rollout") == "auto"
            and options.get("rollout_depth") == DEPTH_SEARCH
        ):
            out = replace(out, rated_rollout=True, rollout_depth=defaults.analysis_cutoff)
        return out

    @classmethod
    def resolve(
        cls,
        options: dict[str, object],
        game: str,
        budget: Budget | None,
        knowledge: GameKnowledge | None,
    ) -> SearchConfig:
        """The configuration of the ``ismcts`` bot's validated ``options`` for ``game`` under
        ``budget`` (``None``: no budget, as in a review). Raises ``InvalidBotSpec`` when the
        options need a heuristic the game does not have."""
        o = options
        if knowledge is None and (o["rollout"] == "heuristic" or int(o["rollout_depth"]) >= 0):  # type: ignore[call-overload]
            raise InvalidBotSpec(
                f"bot 'ismcts': game {game!r} has no heuristic, so options "
                "rollout='heuristic' and rollout_depth >= 0 are not available for it"
            )
        rollout, depth = resolve_rollout(str(o["rollout"]), int(o["rollout_depth"]), knowledge)  # type: ignore[call-overload]
        rated = has_rating(knowledge)
        return cls(
            exploration=float(o["exploration"]),  # type: ignore[arg-type]
            rollout=rollout,
            rollout_depth=depth,
            pool_size=int(o["worlds"]),  # type: ignore[call-overload]
            weigh_worlds=rated and resolve_beliefs(str(o["beliefs"]), game, budget) == "heuristic",
            belief_worlds=int(o["belief_worlds"]),  # type: ignore[call-overload]
            epsilon=float(o["epsilon"]),  # type: ignore[arg-type]
            belief_effective=float(o["belief_effective"]),  # type: ignore[arg-type]
            smooth=o["selection"] == "smooth",
            regret=o["selection"] == "regret",
            prior_weight=resolve_prior(float(o["prior_weight"]), game, budget),  # type: ignore[arg-type]
            prior_opponents=o["prior_seats"] == "all",
            hidden_moves=o["hidden_moves"] == "tree",
            rollout_opponents=int(o["rollout_opponents"]),  # type: ignore[call-overload]
            model_opponents=rated
            and resolve_opponent_moves(str(o["opponent_moves"]), game) == "heuristic",
            final_policy=str(o["final_policy"]),
        )
