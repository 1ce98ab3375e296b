"""The ``ismcts`` bot: its options (the JSON contract, docs/bots.md's table) and its move, a
search configured once from them (``SearchConfig.resolve``)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from bots.beliefs import HeuristicModel, has_rating
from bots.heuristics import GameKnowledge, knowledge_for
from bots.ismcts.config import (
    DEPTH_SEARCH,
    FINAL_POLICIES,
    OPPONENT_MOVES,
    PRIOR_BY_GAME,
    ROLLOUT_POLICIES,
    SELECTIONS,
    SearchConfig,
    resolve_opponent_moves,
)
from bots.ismcts.result import hint_from_result
from bots.ismcts.search import search
from bots.profiles.evidence import SETTINGS as PROFILE_EVIDENCE
from bots.profiles.evidence import default_profile, evidenced_trusts
from bots.profiles.model import ProfiledModel
from bots.profiles.policy import ProfiledPolicy
from bots.profiles.spec import SeatProfilesSpec, game_seat_profiles
from bots.protocol import ActionStat, Bot, Budget, FloatSpec, Hint, Worlds
from games.core.definition import Prior
from games.core.params import ParamSpec

# Opponent models (with their caches) an ``IsmctsBot`` keeps, one per game setting.
MAX_KEPT_MODELS = 4

ProfileKey = tuple[tuple[str, float], ...]


@dataclass
class KeptModel:
    """A heuristic model and the profiled policies built on it (each reads the model's cache),
    kept together by the bot for one game setting.

    The policies point at the model and the model not at them: a reference cycle between the
    two (the policies once lived on the model) left every dropped bot's caches to the cycle
    collector, which ran too rarely to keep up, and a long benchmark of profiled Modern Art
    searches (one bot per game) grew by about 300 MB a pair of games until the out-of-memory killer
    ended it at 17 GB (``tests/test_profiles.py``).
    """

    model: HeuristicModel
    # One per distinct profile of the bot's ``opponents`` option and one per distinct default
    # hypothesis of the evidence (``bots.profiles.evidence``): at most two per other seat,
    # which the options fix and a request cannot grow.
    policies: dict[ProfileKey, ProfiledPolicy] = field(default_factory=dict)

    def policy(self, profile: dict[str, float]) -> ProfiledPolicy:
        """The profiled policy of ``profile`` on this model (made at its first use)."""
        key = tuple(sorted(profile.items()))
        got = self.policies.get(key)
        if got is None:
            got = self.policies[key] = ProfiledPolicy(self.model.knowledge, profile, self.model)
        return got


class IsmctsBot(Bot):
    name = "ismcts"
    description = (
        "ISMCTS (Cowling, Powley & Whitehouse 2012) on the engines: information-set nodes, "
        "worlds weighted by the heuristic's likelihood of the opponents' moves, unseen moves "
        "searched in the tree, UCT or Smooth UCT, random or heuristic rollouts."
    )
    # ``heuristic_model``'s opponent models, one per game setting (at most ``MAX_KEPT_MODELS``),
    # kept across the bot's hints because each is exact there; made at the first one (the bot
    # keeps the base ``__init__``, so a spec is normalised without building it).
    _models: dict[tuple[str, Any], KeptModel] | None = None
    options = (
        FloatSpec(
            "exploration",
            0.7,
            "UCB1 exploration constant for returns scaled to [0, 1]",
            min=0,
            max=100,
        ),
        ParamSpec(
            "rollout",
            "auto",
            "rollout policy: 'random' (uniform over the considered actions), 'heuristic' (the "
            "game's rollout heuristic) or 'auto' (the game's measured choice)",
            choices=ROLLOUT_POLICIES,
        ),
        ParamSpec(
            "rollout_depth",
            DEPTH_SEARCH,
            "player decisions per rollout before the game's heuristic evaluation cuts it off; "
            "-2: the search's measured choice per game (SEARCH_CUTOFFS: 10 in Detective Eye, "
            "else as -1); -1: the game heuristic's own (to the end unless the game sets a "
            "cut-off, as Modern Art does)",
            min=DEPTH_SEARCH,
            max=1_000_000,
        ),
        ParamSpec(
            "opponent_model",
            "heuristic",
            "how sampled worlds fill other seats' hidden commits (sealed and finger bids): "
            "'heuristic' (weighted by how likely the game's heuristic makes each) or 'uniform'",
            choices=("heuristic", "uniform"),
        ),
        ParamSpec(
            "worlds",
            32,
            "size of the pool of sampled worlds (drawn once per search, copied per iteration) "
            "when beliefs are 'uniform'",
            min=1,
            max=100_000,
        ),
        ParamSpec(
            "beliefs",
            "auto",
            "how worlds are weighted: 'heuristic' (a pool of belief_worlds uniform worlds "
            "weighted by the likelihood of the other seats' actions under the game's heuristic "
            "with a trembling floor, drawn by weight), 'uniform' (every sampled world alike) or "
            "'auto' (the search's measured choice: 'heuristic', but 'uniform' under a time "
            "budget in Modern Art, TIMED_BELIEFS)",
            choices=("auto", "heuristic", "uniform"),
        ),
        ParamSpec(
            "belief_worlds",
            64,
            "size of the weighted pool when beliefs are 'heuristic'",
            min=1,
            max=100_000,
        ),
        FloatSpec(
            "epsilon",
            0.2,
            "trembling floor of the opponent model: likelihood (1 - eps) * pi + eps / |legal|",
            min=0,
            max=1,
        ),
        FloatSpec(
            "belief_effective",
            0.25,
            "least effective share of the weighted pool: the likelihood is tempered "
            "(raised to the largest power <= 1) until the weights keep this share of worlds",
            min=0,
            max=1,
        ),
        ParamSpec(
            "selection",
            "uct",
            "tree policy: 'uct' (UCB1), 'smooth' (Smooth UCT: mixes in each node's average "
            "strategy, so the visit distribution tends toward an equilibrium) or 'regret' "
            "(regret matching with 10% uniform exploration at every node; report its average "
            "strategy with final_policy 'average')",
            choices=SELECTIONS,
        ),
        ParamSpec(
            "hidden_moves",
            "tree",
            "other seats' moves we did not see just before our turn (sealed and finger bids, "
            "face-down placements): 'tree' (searched from before them, each mover choosing in "
            "its own node) or 'sample' (drawn with the world, by opponent_model)",
            choices=("tree", "sample"),
        ),
        ParamSpec(
            "opponent_moves",
            "auto",
            "how the other seats' decisions are played in the tree: 'search' (each seat a "
            "bandit in its own information-set nodes, maximising its own return), "
            "'heuristic' (the game's heuristic model, its best-rated move: a best response to "
            "that model; rollout_opponents then use the same cached model), 'restricted' (a "
            "restricted Nash response to the heuristic: a seat without a profile in "
            "opponents is modelled as the heuristic itself, its move in the tree locked to "
            "the heuristic's at restricted_trust and searched otherwise) or 'auto' (the "
            "search's measured choice per game, GAME_DEFAULTS: 'restricted' in Detective Eye, "
            "'search' in the other games)",
            choices=OPPONENT_MOVES,
        ),
        ParamSpec(
            "rollout_opponents",
            0,
            "other seats' decisions per rollout played by the game's heuristic bot (its rated "
            "move, the opponent model) before the rollout policy takes over; 0: none",
            min=0,
            max=1_000_000,
        ),
        ParamSpec(
            "final_policy",
            "welch",
            "the mixed policy the hint reports (the move played is the most visited under "
            "every rule): 'welch' (the visits of the actions whose mean is not significantly "
            "below the played one's, by the sample standard errors), 'significant' (the same "
            "test with each variance bounded from the range of returns, the default before "
            "issue 45), 'visits' (the root's visit distribution, as before), 'p_value' (visits "
            "weighted by the p-value of the bounded test), 'greedy' "
            "(only the root's UCB1 selections that were also its greedy choice) or 'average' "
            "(the root's average regret-matching strategy under selection 'regret', else the "
            "visits)",
            choices=FINAL_POLICIES,
        ),
        FloatSpec(
            "prior_weight",
            PRIOR_BY_GAME,
            "progressive bias toward the game's heuristic move, in units of the return range "
            "(weight / (visits + 1)); 0: none; negative: the search's measured choice per game "
            "(SEARCH_PRIORS: 0.5 in Detective Eye, Finger Auction and Gallery Rush; TIMED_PRIORS: "
            "0.5 in Modern Art under a time budget; else 0)",
            min=PRIOR_BY_GAME,
            max=100,
        ),
        ParamSpec(
            "prior_seats",
            "all",
            "whose nodes get the progressive bias: 'all' (every seat's: the other seats are "
            "searched as if they leaned toward the heuristic's move) or 'self' (only the "
            "searching seat's; the other seats' nodes are plain UCB1)",
            choices=("all", "self"),
        ),
        SeatProfilesSpec(
            "opponents",
            {},
            'opponent profiles by seat ({"1": {"bid_scale": 1.3}}: the tendencies of '
            "'atelier profile', docs/bots.md): a profiled seat's moves are modelled by the "
            "heuristic with those tendencies in the beliefs, the tree and the rollouts, as far "
            "as profile_trust says; {}: none",
        ),
        FloatSpec(
            "restricted_trust",
            0.25,
            "with opponent_moves 'restricted': the chance an unprofiled seat's decision in the "
            "tree is the heuristic's move rather than searched (0: the plain "
            "search)",
            min=0,
            max=1,
        ),
        FloatSpec(
            "profile_trust",
            0.5,
            "the safety setting of opponents (a restricted Nash response): the weight of a "
            "seat's profiled model against the heuristic one in the beliefs and rollouts, and "
            "the chance its decision in the tree is the profile's move rather than searched; "
            "0: profiles ignored, 1: trusted fully",
            min=0,
            max=1,
        ),
        ParamSpec(
            "profile_evidence",
            "game",
            "how a profiled seat's trust follows its own moves: 'game' (profile_trust times "
            "the posterior, from the seat's decisions so far in this game, that it plays its "
            "profile rather than the heuristic: half the trust before a telling move, nearly "
            "all after a few that bear it out, the profile dropped once they contradict it a "
            "hundred to one; a profile of noise alone keeps its trust), 'telling' (the same, "
            "but no trust before the seat's first telling move) or 'none' (profile_trust "
            "throughout)",
            choices=PROFILE_EVIDENCE,
        ),
    )

    def prior_for(self, game: str) -> Prior | None:
        knowledge = knowledge_for(game)
        if knowledge is None or self.config["opponent_model"] == "uniform":
            return None
        if type(knowledge).commit_prior is GameKnowledge.commit_prior:
            return None  # the game has no model of hidden commits
        return knowledge.commit_prior

    def search_config(self, game: str, budget: Budget | None) -> SearchConfig:
        """This bot's options resolved for ``game`` under ``budget`` (``None``: no budget)."""
        return SearchConfig.resolve(self.config, game, budget, knowledge_for(game))

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        knowledge = knowledge_for(worlds.game)
        config = SearchConfig.resolve(self.config, worlds.game, budget, knowledge)
        legal = worlds.first.legal_actions()
        if knowledge is not None and knowledge.abstracts:
            legal = knowledge.candidates(worlds.first, legal)
        if len(legal) == 1:
            return Hint(legal[0], [ActionStat(legal[0], 1.0)], stopped_by="single_action")
        model = self.opponent_model(knowledge, worlds)
        result = search(worlds, budget, rng, config, knowledge, model)
        return hint_from_result(result, config.final_policy)

    def heuristic_model(
        self, knowledge: GameKnowledge | None, worlds: Worlds | None = None
    ) -> HeuristicModel | None:
        """The model whose likelihoods weight the worlds and, with ``opponent_moves:
        heuristic``, plays the other seats (``None``: the game has no rated heuristic)."""
        kept = self._kept_model(knowledge, worlds)
        return None if kept is None else kept.model

    def _kept_model(
        self, knowledge: GameKnowledge | None, worlds: Worlds | None = None
    ) -> KeptModel | None:
        """``heuristic_model``'s model with its profiled policies.

        Its cache (the heuristic's best moves by ``(player, info_key)``) is exact within one
        game setting, and the worlds of the next searches of a game replay the same steps
        with many of the same opponents' holdings, so the model is kept on the bot per game
        setting when the engine names its setting (a ``cfg`` object: Detective Eye and Modern
        Art, whose rated heuristics are the expensive ones): 1.6x faster moves over a 4-player
        Detective Eye game at 1,000 simulations, same hints (docs/bots.md). Otherwise, one
        model per search.
        """
        if not has_rating(knowledge):
            return None
        setting = getattr(worlds.first, "cfg", None) if worlds is not None else None
        if setting is None:
            return KeptModel(HeuristicModel(knowledge))  # type: ignore[arg-type]
        models = self._models
        if models is None:
            models = self._models = {}
        key = (knowledge.game, setting)  # type: ignore[union-attr]
        kept = models.get(key)
        if kept is None:
            if len(models) >= MAX_KEPT_MODELS:
                models.clear()
            kept = models[key] = KeptModel(HeuristicModel(knowledge))  # type: ignore[arg-type]
        return kept

    def opponent_model(
        self, knowledge: GameKnowledge | None, worlds: Worlds
    ) -> HeuristicModel | ProfiledModel | None:
        """The search's opponent model: ``heuristic_model``, with the ``opponents`` profiles
        mixed in by ``profile_trust`` (``bots.profiles.model``), each scaled by the evidence
        of the seat's moves in this game unless ``profile_evidence`` is ``none``
        (``bots.profiles.evidence``). With no profiles, a trust of 0 or every profile
        contradicted by its seat's moves it is ``heuristic_model`` itself, so the search is
        exactly the unprofiled one."""
        kept = self._kept_model(knowledge, worlds)
        if kept is None:
            return None
        base = kept.model
        players = worlds.first.num_players
        trust = float(self.config["profile_trust"])
        seats = game_seat_profiles(self.name, worlds.game, self.config["opponents"], players)
        trusts = dict.fromkeys(seats, trust)
        policies = {
            seat: kept.policy(profile)
            for seat, profile in seats.items()
            if seat != worlds.seat and trusts[seat] > 0.0
        }
        evidence = self.config["profile_evidence"]
        if policies and evidence != "none":
            trusts = evidenced_trusts(
                worlds,
                policies,
                trusts,
                lambda policy: kept.policy(default_profile(policy)),
                float(self.config["epsilon"]),
                from_telling=evidence == "telling",
            )
            # A profile its seat's moves contradict is dropped: the seat is unprofiled.
            policies = {seat: p for seat, p in policies.items() if trusts[seat] > 0.0}
        locks: dict[int, float] = {}
        if resolve_opponent_moves(str(self.config["opponent_moves"]), worlds.game) == "restricted":
            # Every seat without a (standing) profile is the heuristic itself, locked in the tree.
            restricted = float(self.config["restricted_trust"])
            locks = {seat: restricted for seat in range(players) if seat not in policies}
        model = ProfiledModel(base, policies, trust, worlds.seat, trusts, locks)
        if not model.policies and not model.heuristic_locks:
            return base
        return model
