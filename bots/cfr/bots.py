"""The CFR bots: ``cfr`` plays a stored offline solution, ``oos`` re-solves online.

``cfr`` looks the information set up in the average policy that ``python -m bots.cfr.solve``
stored for the game's reduced variant (``bots.cfr.store``) and plays it: on that variant it is
an approximate Nash equilibrium (NashConv <= 1e-3 of the payoff range).

``oos`` is online Monte Carlo CFR from the current information set, after Online Outcome
Sampling (Lisy, Lanctot and Bowling 2015, "Online Monte Carlo Counterfactual Regret
Minimization for Search in Imperfect Information Games"). Each iteration draws a world
consistent with the information set (a pool sampled with ``games.sample_engine``, as ISMCTS
does), then runs one outcome-sampling MCCFR iteration (Lanctot, Waugh, Zinkevich and Bowling
2009) from it for one seat (seats alternate): the traversing seat samples with
``exploration``-uniform mixing, the others on-policy, chance by its probabilities; regrets
get the importance-weighted sampled regrets, average strategies stochastically-weighted
increments. Every seat's information sets below the root are keyed by ``(seat,
engine.info_key(seat))``, so an opponent's strategy depends on what that opponent holds.
Past ``depth`` decisions from the root the trajectory continues with uniform random play
(a fixed strategy, so no update and its probabilities cancel in the weights): that is the
rollout leaf value. The answer is the root's average strategy.

Difference from OOS proper: OOS keeps one tree from the start of the game and *targets* its
samples at the current information set, so the root's belief over worlds is the Bayesian one
under the strategies being learned. Here the worlds come from the information-set sampler
(uniform over the hidden parts, like ISMCTS): re-solving the subgame under that belief. For
games where every decision is public (Finger Auction) the two agree.
"""

from __future__ import annotations

import random
from typing import Any

from bots.cfr import store
from bots.protocol import ActionStat, Bot, Budget, Clock, FloatSpec, Hint, Worlds
from games.core.engine import CHANCE, TERMINAL
from games.core.params import ParamSpec


class CFRBot(Bot):
    name = "cfr"
    description = (
        "Plays the stored CFR solution (discounted CFR, NashConv <= 1e-3 of the payoff range) "
        "of a game's reduced variant; other settings have no solution (use 'oos')."
    )

    def hint(self, defn, params, infoset, budget, seed) -> Hint:
        # Find the solution before sampling a world: an unsolved setting fails at once.
        self._stored = store.find(defn.name, defn.version, defn.validate_params(params))
        return super().hint(defn, params, infoset, budget, seed)

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        stored = getattr(self, "_stored", None)
        if stored is None or stored.game != worlds.game:
            raise LookupError(f"no stored CFR solution for {worlds.game}")
        engine = worlds.first
        legal = list(engine.legal_actions())
        try:
            probs = stored.probabilities(worlds.seat, engine.info_key(worlds.seat), len(legal))
        except KeyError as err:
            raise LookupError(
                f"information set not in the stored {worlds.game} solution ({err}); regenerate "
                f"it with `{store.REGENERATE}`"
            ) from None
        action = rng.choices(legal, weights=probs)[0]
        return Hint(
            action=action,
            policy=[ActionStat(a, p) for a, p in zip(legal, probs, strict=True)],
            stopped_by="policy",
            extra={"solution": stored.path.name, "solution_nash_conv": stored.meta["nash_conv"]},
        )


class _Table:
    """Regrets and average-strategy sums of one information set."""

    __slots__ = ("actions", "avg", "regrets")

    def __init__(self, actions: list[int]) -> None:
        self.actions = actions
        self.regrets = [0.0] * len(actions)
        self.avg = [0.0] * len(actions)

    def strategy(self) -> list[float]:
        pos = [r if r > 0.0 else 0.0 for r in self.regrets]
        total = sum(pos)
        if total <= 0.0:
            return [1.0 / len(pos)] * len(pos)
        return [r / total for r in pos]

    def average(self) -> list[float]:
        total = sum(self.avg)
        if total <= 0.0:
            return self.strategy()
        return [a / total for a in self.avg]


def _pick(weights: list[float], u: float) -> int:
    for i, w in enumerate(weights):
        u -= w
        if u < 0.0:
            return i
    return len(weights) - 1


def online_outcome_sampling(
    worlds: Worlds,
    budget: Budget,
    rng: random.Random,
    *,
    exploration: float = 0.6,
    depth: int = 24,
    pool_size: int = 32,
    candidates=None,
) -> tuple[_Table, dict[str, Any]]:
    """Runs outcome-sampling MCCFR from ``worlds``' information set; returns the root table."""
    clock = Clock(budget, worlds.started)
    seat = worlds.seat
    first = worlds.first
    if budget.simulations is not None:
        pool_size = min(pool_size, budget.simulations)
    if worlds.public_history:
        pool_size = 1
    pool = [first]
    random_ = rng.random
    tables: dict[Any, _Table] = {}
    num_players = len(first.returns())
    root_key = (seat, first.info_key(seat))
    total_return = 0.0
    iteration = 0
    while not iteration or clock.running():
        if iteration < pool_size:
            if iteration:
                pool.append(worlds.sample(random.Random(rng.getrandbits(64))))
            engine = pool[iteration].copy()
        else:
            engine = pool[int(random_() * pool_size)].copy()
        traverser = (seat + iteration) % num_players
        iteration += 1
        # Forward: sample a trajectory, remembering every updated decision.
        path: list[tuple[_Table, int, int, list[float], float]] = []
        own = [1.0] * num_players  # each seat's own reach (policy probabilities)
        q = 1.0  # probability of sampling the trajectory (chance cancels and is left out)
        decisions = 0
        while True:
            player = engine.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                engine.apply(engine.sample_chance(rng))
                continue
            if decisions >= depth:
                legal = engine.player_actions()
                if candidates is not None:
                    legal = candidates(engine, legal)
                engine.apply(legal[int(random_() * len(legal))])
                continue
            decisions += 1
            key = (player, engine.info_key(player))
            table = tables.get(key)
            if table is None:
                legal = engine.player_actions()
                if candidates is not None:
                    legal = candidates(engine, legal)
                table = tables[key] = _Table(list(legal))
            sigma = table.strategy()
            n = len(sigma)
            if player == traverser:
                sample = [exploration / n + (1.0 - exploration) * s for s in sigma]
            else:
                sample = sigma
            i = _pick(sample, random_())
            path.append((table, player, i, sigma, own[player] / q))
            q *= sample[i]
            own[player] *= sigma[i]
            engine.apply(table.actions[i])
        returns = engine.returns()
        total_return += returns[seat]
        # Backward products: suffix[k] = pi(h_k -> z), the profile's probability of the rest
        # of the trajectory from the k-th recorded decision (rollout and chance cancel).
        utility = returns[traverser]
        suffix = [1.0] * (len(path) + 1)
        for k in range(len(path) - 1, -1, -1):
            suffix[k] = suffix[k + 1] * path[k][3][path[k][2]]
        before_others = 1.0  # pi_{-i}(h): the other seats' reach before the decision
        for k, (table, player, i, sigma, avg_weight) in enumerate(path):
            if player == traverser:
                # Sampled regret: W (pi(ha -> z) [b = a] - pi(h -> z)), W = u pi_{-i}(h) / q(z).
                w = utility * before_others / q
                after = suffix[k + 1]
                here = after * sigma[i]
                regrets = table.regrets
                for b in range(len(regrets)):
                    regrets[b] += w * ((after if b == i else 0.0) - here)
            else:
                before_others *= sigma[i]
                # Stochastically weighted averaging (Lanctot et al. 2009): own reach / q(h).
                avg = table.avg
                for b in range(len(avg)):
                    avg[b] += avg_weight * sigma[b]
        clock.tick()
    root = tables[root_key]
    stats = {
        "iterations": clock.iterations,
        "elapsed_ms": clock.elapsed_ms(),
        "stopped_by": clock.stopped_by(),
        "worlds": len(pool),
        "infosets": len(tables),
        # Mean return of the sampled trajectories (exploration included): a rough estimate.
        "value": total_return / iteration,
    }
    return root, stats


class OOSBot(Bot):
    name = "oos"
    description = (
        "Online CFR: outcome-sampling MCCFR re-solved from the current information set over "
        "sampled worlds (after Lisy, Lanctot & Bowling 2015), random rollouts past a depth."
    )
    options = (
        FloatSpec(
            "exploration", 0.6, "share of uniform exploration of the traversing seat", min=0, max=1
        ),
        ParamSpec(
            "depth",
            24,
            "decisions from the root that CFR updates; later decisions play uniformly at random "
            "(a rollout)",
            min=1,
            max=100_000,
        ),
        ParamSpec(
            "worlds",
            32,
            "size of the pool of sampled worlds (drawn once per search, copied per iteration)",
            min=1,
            max=100_000,
        ),
    )

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        from bots.heuristics import knowledge_for

        knowledge = knowledge_for(worlds.game)
        candidates = knowledge.candidates if knowledge is not None and knowledge.abstracts else None
        legal = worlds.first.legal_actions()
        if candidates is not None:
            legal = candidates(worlds.first, legal)
        if len(legal) == 1:
            return Hint(legal[0], [ActionStat(legal[0], 1.0)], stopped_by="single_action")
        cfg = self.config
        root, stats = online_outcome_sampling(
            worlds,
            budget,
            rng,
            exploration=cfg["exploration"],
            depth=cfg["depth"],
            pool_size=cfg["worlds"],
            candidates=candidates,
        )
        probs = root.average()
        order = sorted(range(len(root.actions)), key=lambda i: root.actions[i])
        action = root.actions[_pick(probs, rng.random())]
        return Hint(
            action=action,
            policy=[ActionStat(root.actions[i], probs[i]) for i in order],
            value=stats["value"],
            iterations=stats["iterations"],
            elapsed_ms=stats["elapsed_ms"],
            stopped_by=stats["stopped_by"],
            extra={"worlds": stats["worlds"], "infosets": stats["infosets"]},
        )
