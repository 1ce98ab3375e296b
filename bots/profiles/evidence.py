"""What this game's moves say about a profile: the evidence that scales a seat's trust.

A profile is a claim about a seat ("bids 1.3 times what the heuristic bids"). ``profile_trust``
alone trusts it as much whether the seat's moves so far bear it out or flatly contradict it, so
a wrong profile costs the same in the last auction as in the first: in 4-player Modern Art a
wrong over-bidder profile at trust 0.5 cost 0.26 of first-place share against the unbiased
heuristic (docs/bots.md), far above issue 45's bound of 0.03. Every seat's moves are public
history by the time we search, and they are evidence between two hypotheses about the seat:

* **P**, the profile: the heuristic with the profile's tendencies (``ProfiledPolicy``);
* **H**, the default model: the heuristic with only the profile's ``noise``.

``H`` shares the profile's noise because in a sampled world the seat's hidden cards are our
guess, and a move that depended on its true cards looks like a careless one under either
hypothesis; with the noise on one side only, every such move would count for a careless
profile. A profile of noise alone is then ``H`` itself, and its evidence stays even.

The likelihood of the seat's decisions under a hypothesis is the product, over its decisions
with a choice, of ``(1 - epsilon) * pi(a | I) + epsilon / |A(I)|`` (the trembling floor of
``bots.beliefs``), marginalised over a few sampled worlds (the mean of the products: the seat's
information sets are only as good as our guess of its cards). With even prior odds the
posterior of the profile is ``1 / (1 + exp(-(log L_P - log L_H)))``, and the search trusts the
seat's profile at ``profile_trust`` times it: half the trust before the seat has made a telling
move (a decision its two hypotheses give different odds; setting ``game``) or none (setting
``telling``: a profile acts only once the seat's own moves have spoken for it), nearly all of it
once its moves bear the profile out. Once they contradict it a hundred
to one (posterior below ``CONTRADICTED``) the seat is modelled as if it had no profile, and with
every profile so contradicted the search is exactly the one without profiles, move for move: the
evidence's worlds are drawn from a generator of their own (seeded by the first world's
history), not the search's, so weighing it leaves the search's random stream as it was.

This is Bayesian opponent modelling over a set of two models (F. Southey et al., "Bayes' Bluff:
Opponent Modelling in Poker", UAI 2005) feeding the restricted Nash response's ``p`` (M.
Johanson, M. Zinkevich and M. Bowling, "Computing Robust Counter-Strategies", NIPS 2007), in
the spirit of data-biased responses, whose trust in a model grows with the data behind it (M.
Johanson and M. Bowling, "Data Biased Robust Counter Strategies", AISTATS 2009).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence

from bots.beliefs import log_factor
from bots.profiles.policy import ProfiledPolicy
from bots.profiles.tendencies import neutral_profile
from bots.protocol import Worlds
from games.core.engine import Engine
from games.core.seeds import derive_seed

# ``profile_evidence``'s settings: the trust scaled by this evidence (from the first move, or
# from the seat's first telling move on), or not.
SETTINGS = ("game", "telling", "none")
# Worlds the evidence is marginalised over when the history hides something (the first world
# and this many more draws); one when it hides nothing.
EVIDENCE_WORLDS = 4
# Below this posterior the profile counts as contradicted: the seat's trust becomes 0.
CONTRADICTED = 0.01


def evidenced_trusts(
    worlds: Worlds,
    policies: Mapping[int, ProfiledPolicy],
    trusts: Mapping[int, float],
    default_of: Callable[[ProfiledPolicy], ProfiledPolicy],
    epsilon: float,
    from_telling: bool = False,
) -> dict[int, float]:
    """Each profiled seat's trust times the posterior of its profile, 0 below
    ``CONTRADICTED`` (module docstring), and 0 before the seat's first telling move if
    ``from_telling``; every seat of ``policies`` has one in ``trusts``.

    ``default_of(policy)`` is the seat's default hypothesis ``H`` (the heuristic with the
    profile's noise). A seat whose profile changes nothing but noise keeps its trust: its two
    hypotheses are one. So does every seat when the history cannot be replayed (``fresh``
    unknown). The worlds are ``worlds.first`` and ``EVIDENCE_WORLDS - 1`` more, drawn with a
    generator seeded by the first world's history, or the first alone when the history hides
    nothing.
    """
    weighed = {s: p for s, p in policies.items() if tells(p)}
    fresh = worlds.fresh
    if not weighed or fresh is None:
        return dict(trusts)
    sample = [worlds.first]
    if not worlds.public_history:
        rng = random.Random(derive_seed("profile evidence", worlds.seat, worlds.first.history))
        sample += [worlds.sample(rng) for _ in range(EVIDENCE_WORLDS - 1)]
    defaults = {s: default_of(p) for s, p in weighed.items()}
    evidence = log_likelihood_ratios(fresh, sample, worlds.seat, weighed, defaults, epsilon)
    out = dict(trusts)
    for s, (ratio, told) in evidence.items():
        belief = posterior(ratio)
        shown = told or not from_telling
        out[s] = trusts[s] * belief if belief >= CONTRADICTED and shown else 0.0
    return out


def tells(policy: ProfiledPolicy) -> bool:
    """Whether the profile differs from the heuristic in more than noise (so the seat's moves
    can tell the two hypotheses apart)."""
    neutral = neutral_profile(policy.knowledge.game)
    return any(v != neutral[k] for k, v in policy.profile.items() if k != "noise")


def default_profile(policy: ProfiledPolicy) -> dict[str, float]:
    """The profile of the seat's default hypothesis ``H``: the profile's noise alone."""
    return {"noise": policy.profile["noise"]}


def log_likelihood_ratios(
    fresh: Callable[[Engine], Engine],
    worlds: Sequence[Engine],
    seat: int,
    profiles: Mapping[int, ProfiledPolicy],
    defaults: Mapping[int, ProfiledPolicy],
    epsilon: float,
) -> dict[int, tuple[float, bool]]:
    """``log L_P - log L_H`` of each profiled seat's decisions in the history (module
    docstring), each likelihood the mean over ``worlds`` of the product over the seat's
    decisions with a choice, and whether the seat has made a telling move (one its two
    hypotheses give different odds in some world). ``seat`` (the searching one) is never
    scored."""
    per_world = [_world_logs(fresh, world, seat, profiles, defaults, epsilon) for world in worlds]
    return {
        player: (
            _log_mean_exp([logs[player][0] for logs in per_world])
            - _log_mean_exp([logs[player][1] for logs in per_world]),
            any(logs[player][2] for logs in per_world),
        )
        for player in profiles
        if player != seat
    }


def posterior(log_ratio: float) -> float:
    """The profile's posterior probability at even prior odds."""
    if log_ratio >= 0.0:
        return 1.0 / (1.0 + math.exp(-log_ratio))
    odds = math.exp(log_ratio)
    return odds / (1.0 + odds)


def _world_logs(
    fresh: Callable[[Engine], Engine],
    world: Engine,
    seat: int,
    profiles: Mapping[int, ProfiledPolicy],
    defaults: Mapping[int, ProfiledPolicy],
    epsilon: float,
) -> dict[int, list[float]]:
    """``[log L_P, log L_H, telling moves]`` of each profiled seat's decisions in one world's
    history."""
    logs = {player: [0.0, 0.0, 0.0] for player in profiles}
    engine = fresh(world)
    for action in list(world.history):
        player = engine.current_player()
        pair = logs.get(player) if player != seat else None
        if pair is not None:
            legal = len(engine.player_actions())
            if legal > 1:
                p_profile = profiles[player].probability(engine, player, action)
                p_default = defaults[player].probability(engine, player, action)
                by_profile = log_factor(p_profile, epsilon, legal)
                by_default = log_factor(p_default, epsilon, legal)
                pair[0] += by_profile
                pair[1] += by_default
                pair[2] += by_profile != by_default
        engine.apply(action)
    return logs


def _log_mean_exp(values: list[float]) -> float:
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(v - top) for v in values) / len(values))
