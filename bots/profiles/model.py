"""The search's opponent model with per-seat profiles, and the safety setting ``profile_trust``.

``ismcts`` models the other seats by the game's heuristic (``HeuristicModel``): its likelihood
weighs the sampled worlds, and with ``opponent_moves: heuristic`` / ``rollout_opponents`` it
plays them. With profiles, a profiled seat's model is the mixture

    pi_seat = trust * pi_profiled + (1 - trust) * pi_heuristic

and, in each iteration of the search, a profiled seat is *locked* with probability ``trust``
(its decisions then draws of its profiled policy) and otherwise left to the search (its own
information-set nodes, as without a profile). That is the restricted Nash response of Johanson,
Zinkevich and Bowling (2007, "Computing Robust Counter-Strategies"): the opponent is assumed to
follow the model with probability ``p`` and to best-respond otherwise, so the counter-strategy
exploits the model while ``1 - p`` bounds what it gives away if the model is wrong. The opponent
of that paper is the model *for the whole game* with probability ``p``, so the lock is drawn
once per seat and iteration (at the iteration's first profiled decision, ``_profiled_now``): in
that iteration the seat plays its profile at every decision, in the tree and in the rollout, or
at none. (Until issue 45's twenty-fifth session it was drawn per decision, which is not that
mixture where a seat decides many times: in a Modern Art open auction a seat raises or passes
again and again, and at trust 0.25 some raise of the over-bidder's came in nearly every auction,
so a wrong over-bidder profile cost as much at 0.25 as at 0.5.) ``trust`` 0 is exactly the
search without profiles (the bot then does not build this model at all); 1 trusts the profile
fully. A seat's ``trust`` here is the one the bot gives it: under ``profile_evidence: game``,
``profile_trust`` times the posterior of its profile from its moves so far in the game
(``bots.profiles.evidence``), so a profile its own play contradicts loses its weight.

The rollouts that follow the tree use the same model (``rollout_policy``): a profiled seat
locked in the iteration plays its profiled move there too, and otherwise the rollout's own
policy, as in the tree it is otherwise the search's. Before, the profile acted in the tree
only, so an iteration met a different opponent depending on whether it reached that seat's
turn inside the tree or in the rollout (in 4-player Gallery Rush, three profiled turns follow
ours, mostly in the rollout); issue 45's measurements are in docs/bots.md.

Seats without a profile keep the heuristic model; the searching seat's own profile, if a
client sends one, is ignored (the search plays its own seat).

``opponent_moves: restricted`` (``heuristic_locks``) models the seats without a profile as the
heuristic itself, locked in the tree only: there its move at the seat's trust takes the place
of the seat's node, as a profile's would. The rollouts already play every seat by the game's
rollout policy, a fixed cheap player drawn from the heuristic's reasoning (Detective Eye's safe
player), not a searched one; locking them to the heuristic's rated move as well asked for a
rating at most rollout decisions and halved the simulations (docs/bots.md, "The other seats as
a restricted response").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from bots.beliefs import HeuristicModel
from bots.profiles.policy import ProfiledPolicy
from games.core.engine import Engine

# ``locked_move``'s answer when the search plays the decision itself.
NOT_LOCKED = -1

Policy = Callable[[Engine, random.Random], int]
Candidates = Callable[[Engine, list[int] | None], list[int]]


class ProfiledModel:
    """``HeuristicModel``'s interface (``probability``, ``choose``) with profiled seats, plus
    ``locked_move`` for the tree and ``rollout_policy`` for the rollouts (module docstring)."""

    def __init__(
        self,
        base: HeuristicModel,
        policies: Mapping[int, ProfiledPolicy],
        trust: float,
        seat: int,
        trusts: Mapping[int, float] | None = None,
        heuristic_locks: Mapping[int, float] | None = None,
    ) -> None:
        self.base = base
        self.knowledge = base.knowledge
        self.policies = {s: p for s, p in policies.items() if s != seat}
        # Each profiled seat's trust: ``trust``, unless ``trusts`` names its own.
        self.trusts = {s: (trusts or {}).get(s, trust) for s in self.policies}
        # The seats modelled as the heuristic and locked to its move in the tree only, each
        # at its trust (``opponent_moves: restricted``; module docstring).
        self.heuristic_locks = {
            s: t
            for s, t in (heuristic_locks or {}).items()
            if s != seat and s not in self.policies and t > 0.0
        }
        # The iteration the profiled locks were drawn for, known by its engine (the world
        # pool gives every iteration a copy of its own, which the tree and the rollout both
        # play on), and the profiled seats locked in it.
        self._iteration: Engine | None = None
        self._locked: frozenset[int] = frozenset()

    def _profiled_now(self, engine: Engine, mover: int, rng: random.Random) -> bool:
        """Whether the profiled seat ``mover`` plays its profile in this iteration: each
        profiled seat is locked with probability its trust, drawn at the iteration's first
        profiled decision (module docstring)."""
        if engine is not self._iteration:
            self._iteration = engine
            self._locked = frozenset(s for s, t in self.trusts.items() if rng.random() < t)
        return mover in self._locked

    def best(self, engine: Engine, player: int) -> frozenset[int]:
        """The heuristic's best moves (the unprofiled part, for callers that ask for it)."""
        return self.base.best(engine, player)

    def probability(self, engine: Engine, player: int, action: int) -> float:
        default = self.base.probability(engine, player, action)
        policy = self.policies.get(player)
        if policy is None:
            return default
        trust = self.trusts[player]
        return trust * policy.probability(engine, player, action) + (1.0 - trust) * default

    def choose(self, engine: Engine, rng: random.Random) -> int:
        """A draw of the mover's mixture (the profiled policy with probability ``trust``)."""
        mover = engine.current_player()
        policy = self.policies.get(mover)
        if policy is not None and rng.random() < self.trusts[mover]:
            return policy.choose(engine, rng)
        return self.base.choose(engine, rng)

    def locked_move(self, engine: Engine, rng: random.Random) -> int:
        """The tree's move for another seat: its profiled move if the seat is locked in this
        iteration (the heuristic's, drawn per decision at the seat's trust, for a seat of
        ``heuristic_locks``), else ``NOT_LOCKED`` (the search plays it). Other seats are never
        locked."""
        mover = engine.current_player()
        policy = self.policies.get(mover)
        if policy is None:
            trust = self.heuristic_locks.get(mover)
            if trust is None or rng.random() >= trust:
                return NOT_LOCKED
            return self.base.choose(engine, rng)
        if not self._profiled_now(engine, mover, rng):
            return NOT_LOCKED
        return policy.choose(engine, rng)

    def rollout_policy(self, rest: Policy | None, candidates: Candidates | None) -> Policy | None:
        """The rollout's policy with the profiled seats locked as in the tree: a profiled
        seat locked in this iteration plays its profiled move; every other move (and an
        unlocked profiled seat's) is ``rest``'s, or uniform over the considered actions
        (``candidates``) when ``rest`` is ``None`` (a random rollout). Without profiled seats
        (only ``heuristic_locks``) it is ``rest`` itself."""
        policies, profiled_now = self.policies, self._profiled_now
        if not policies:
            return rest

        def locked_or_rest(engine: Engine, rng: random.Random) -> int:
            mover = engine.current_player()
            policy = policies.get(mover)
            if policy is not None and profiled_now(engine, mover, rng):
                return policy.choose(engine, rng)
            if rest is not None:
                return rest(engine, rng)
            acts = engine.player_actions()
            if candidates is not None:
                acts = candidates(engine, acts)
            return acts[int(rng.random() * len(acts))]

        return locked_or_rest
