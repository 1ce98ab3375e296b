"""The CFR bots: ``cfr`` plays a stored offline solution, ``oos`` re-solves online.

``cfr`` looks the information set up in the average policy that ``python -m bots.cfr.solve``
stored for the game's reduced variant (``bots.cfr.store``) and plays it: on that variant it is
an approximate Nash equilibrium (NashConv <= 1e-3 of the payoff range).

``oos`` is online Monte Carlo CFR from the current information set, after Online Outcome
Sampling (Lisy, Lanctot and Bowling 2015, "Online Monte Carlo Counterfactual Regret
Minimization for Search in Imperfect Information Games"). It draws a pool of worlds
consistent with the information set (``games.sample_engine``, as ISMCTS does). When all of
them share their history up to a recent step, the search starts there and OOS's
information-set targeting keeps most samples consistent with what the seat saw, so the belief
over the hidden steps is weighted by the opponents' strategies being learned; otherwise it
starts from the sampled worlds (the sampler's belief, as ISMCTS). Each iteration runs one
outcome-sampling MCCFR trajectory (Lanctot, Waugh, Zinkevich and Bowling 2009) for one seat
(seats alternate): the traversing seat samples with ``exploration``-uniform mixing, the others
on-policy, chance by its probabilities. Every seat's information sets are keyed by ``(seat,
engine.info_key(seat))``, so an opponent's strategy depends on what that opponent holds. Past
``depth`` decisions the trajectory continues with the rollout policy (a fixed strategy, so no
update and its probabilities cancel in the weights): that is the leaf value.

Two refinements make it useful at the small budgets of a move hint: value estimates with
VR-MCCFR baselines (Schmid et al. 2019, ``_update_regrets``), which cut the variance of
outcome sampling, and regret matching+ with linear averaging (Tammelin 2014), which that lower
variance makes usable with sampling. The answer is the average strategy at the searched
information set, accumulated on every iteration that reaches it with its exact own reach (the
stochastically weighted averages of the other information sets are never read, so not kept).
"""

from __future__ import annotations

import random
from typing import Any

from bots import search_clock
from bots.cfr import store
from bots.pool import WorldPool, capacity
from bots.protocol import ActionStat, Bot, Budget, Clock, FloatSpec, Hint, InvalidBotSpec, Worlds
from bots.rollout import play_out
from games.core.definition import replay
from games.core.engine import CHANCE, TERMINAL, weighted_pick
from games.core.params import ParamSpec


class CFRBot(Bot):
    name = "cfr"
    description = (
        "Plays the stored CFR solution (discounted CFR, NashConv <= 1e-3 of the payoff range) "
        "of a game's reduced variant; other settings have no solution (use 'oos')."
    )

    @classmethod
    def unavailable_reason(cls, defn, params) -> str | None:
        try:
            store.find(defn.name, defn.version, params)
        except LookupError as err:
            return str(err)
        return None

    @classmethod
    def unavailable_detail(cls, defn, params) -> dict[str, Any] | None:
        if cls.unavailable_reason(defn, params) is None:
            return None
        return store.solutions_detail()

    def hint(self, defn, params, infoset, budget, seed, *, replayed=None) -> Hint:
        # Find the solution before sampling a world: an unsolved setting fails at once.
        self._stored = store.find(defn.name, defn.version, defn.validate_params(params))
        self._infoset = infoset
        try:
            return super().hint(defn, params, infoset, budget, seed, replayed=replayed)
        finally:
            self._infoset = None

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        stored = getattr(self, "_stored", None)
        infoset = getattr(self, "_infoset", None)
        if stored is None or infoset is None or stored.game != worlds.game:
            raise LookupError(f"no stored CFR solution for {worlds.game}")
        # The sampled world is only read for the legal actions (the same in every world).
        legal = list(worlds.first.legal_actions())
        try:
            probs = stored.probabilities(infoset, len(legal))
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

    __slots__ = ("actions", "avg", "baselines", "regrets")

    def __init__(self, actions: list[int]) -> None:
        self.actions = actions
        self.regrets = [0.0] * len(actions)
        self.avg = [0.0] * len(actions)
        # Per traversing seat, a running estimate of each action's value (VR-MCCFR baseline).
        self.baselines: dict[int, list[float]] = {}

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


def _update_regrets(
    path: list[tuple[_Table | None, int, int, list[float]]],
    path_q: list[float],
    q: float,
    utility: float,
    traverser: int,
    decay: float,
    plus: bool,
) -> None:
    """The traverser's regret updates from one sampled trajectory, with VR-MCCFR baselines.

    Outcome sampling (Lanctot et al. 2009) with the baseline-corrected value estimates of
    Schmid et al. 2019 ("Variance Reduction in Monte Carlo Counterfactual Regret Minimization
    (VR-MCCFR) for Extensive Form Games using Baselines"). Walking back from the leaf, every
    action of a decision gets a value estimate: the sampled one
    ``b(I, a) + (u(ha) - b(I, a)) / xi(a)``, every other one its baseline ``b(I, a)``, where
    ``xi(a) = q(ha) / q(h)`` is the probability of having sampled ``a`` at ``h`` (which holds for
    OOS's mixture of targeted and untargeted sampling too). The history's estimate is their
    ``sigma``-weighted sum, and is what its parent sees, so actions off the trajectory count at
    their baseline instead of 0: the estimates stay unbiased and their variance falls as the
    baselines learn. A baseline is the exponentially decaying average (newest sample weighted
    ``decay``) of the values its action was sampled with, one per traversing seat; with
    ``decay`` 0 the baselines stay 0 and this is plain outcome sampling. The traverser's
    regrets get ``pi_{-i}(h) / q(h) (u(ha) - u(h))``; with ``plus`` they are floored at 0 after
    each update (regret matching+, Tammelin 2014), which the lower variance makes usable with
    sampling (Schmid et al. 2019).
    """
    value = utility
    q_next = q
    terms: dict[int, tuple[list[float], float]] = {}  # traverser steps: estimates, value
    for k in range(len(path) - 1, -1, -1):
        table, player, i, sigma = path[k]
        q_here = path_q[k]
        xi = q_next / q_here
        q_next = q_here
        if table is None:  # chance before the information set: no baseline
            value = sigma[i] * value / xi
            continue
        base = table.baselines.get(traverser)
        if base is None:
            base = table.baselines[traverser] = [0.0] * len(sigma)
        estimates = list(base)
        estimates[i] = base[i] + (value - base[i]) / xi
        base[i] += decay * (value - base[i])
        value = sum(s * e for s, e in zip(sigma, estimates, strict=True))
        if player == traverser:
            terms[k] = (estimates, value)
    before_others = 1.0  # pi_{-i}(h): chance's and the other seats' reach before h
    for k, (table, player, i, sigma) in enumerate(path):
        if player != traverser:
            before_others *= sigma[i]
            continue
        estimates, value = terms[k]
        w = before_others / path_q[k]
        regrets = table.regrets
        for b in range(len(regrets)):
            r = regrets[b] + w * (estimates[b] - value)
            regrets[b] = 0.0 if plus and r < 0.0 else r


def _common_prefix(histories: list[list[int]]) -> int:
    """Length of the longest common prefix of the worlds' histories."""
    first = histories[0]
    n = min(len(h) for h in histories)
    for k in range(n):
        a = first[k]
        if any(h[k] != a for h in histories):
            return k
    return n


def online_outcome_sampling(
    worlds: Worlds,
    budget: Budget,
    rng: random.Random,
    *,
    exploration: float = 0.6,
    depth: int = 24,
    pool_size: int = 32,
    candidates=None,
    rebuild=None,
    targeting: float = 0.9,
    target_steps: int = 12,
    playout=None,
    evaluate=None,
    rollout_depth: int = 0,
    baseline: float = 0.2,
    plus: bool = True,
) -> tuple[_Table, dict[str, Any]]:
    """Runs online outcome-sampling MCCFR for ``worlds``' information set (module doc).

    ``rebuild(history)`` (the state after ``history`` on a fresh engine of the game) enables
    information-set targeting: when the
    sampled worlds share their history up to a step at most ``target_steps`` before now, the
    search starts there and a share ``targeting`` of the iterations is restricted to actions
    consistent with the seat's information set (OOS). Otherwise the iterations start at the
    sampled worlds themselves. Past ``depth`` decisions ``playout(engine, rng)`` (or uniform
    random play) continues, cut off after ``rollout_depth`` moves by ``evaluate(engine)`` when
    that is given. ``baseline`` is the VR-MCCFR baselines' learning rate (0: plain outcome
    sampling) and ``plus`` chooses regret matching+ with a linearly weighted answer
    (``_update_regrets``).
    """
    clock = Clock(budget, worlds.started)
    seat = worlds.seat
    first = worlds.first
    drawn = WorldPool(first, worlds.sample, capacity(worlds, pool_size, budget))
    pool = drawn.worlds
    # Worlds drawn before the search (they locate the targeting root): the whole pool for a
    # simulation budget; with a time limit at most a quarter of it, and the rest of the pool
    # is drawn during the search, as ISMCTS does (sampling is slow: it replays and checks).
    sampling_deadline = (
        clock.started + budget.milliseconds / 4000.0 if budget.milliseconds else float("inf")
    )
    drawn.fill(
        rng,
        lambda: (clock.running() and search_clock.now() < sampling_deadline) or len(pool) < 2,
    )
    random_ = rng.random
    tables: dict[Any, _Table] = {}
    num_players = len(first.returns())
    root_key = (seat, first.info_key(seat))
    now = len(first.history)

    # Targeting: start at the last step every sampled world agrees on.
    root_len = _common_prefix([list(w.history) for w in pool]) if len(pool) > 1 else now
    delta = 0.0
    roots = pool
    targets: list[tuple[Any, Any]] = []
    if rebuild is not None and candidates is None and 0 < now - root_len <= target_steps:
        start = rebuild(first.history[:root_len])
        walk = start.copy()
        for action in first.history[root_len:]:
            story = walk.narrate(action)
            targets.append((story.public, story.private_for(seat)))
            walk.apply(action)
        roots = [start]
        delta = targeting
    consistent_cache: dict[tuple[int, ...], set[int]] = {}

    def consistent(engine, step: int) -> set[int]:
        key = tuple(engine.history)
        got = consistent_cache.get(key)
        if got is None:
            public, private = targets[step - root_len]
            got = {
                a
                for a in engine.legal_actions()
                if (story := engine.narrate(a)).public == public
                and story.private_for(seat) == private
            }
            consistent_cache[key] = got
        return got

    def rollout(engine) -> list[float]:
        """Plays on with the rollout policy; the evaluation cuts it off when one is given."""
        return play_out(engine, rng, playout, candidates, evaluate, rollout_depth)

    total_return = 0.0
    iteration = wasted = 0
    while not iteration or clock.running():
        if roots is pool and len(pool) <= iteration < drawn.size:
            drawn.draw(rng)
        engine = roots[iteration % len(roots)].copy()
        traverser = (seat + iteration) % num_players
        iteration += 1
        targeted = delta > 0.0 and random_() < delta
        # Forward: every tracked step as (table or None for chance, player, index sampled,
        # probabilities), and in path_q the probability q(h) of having sampled up to it.
        path: list[tuple[_Table | None, int, int, list[float]]] = []
        path_q: list[float] = []  # q(h) of each step: probability of sampling up to it
        own = [1.0] * num_players
        s_all = 1.0  # probability of the trajectory under untargeted sampling
        s_tgt = 1.0 if delta > 0.0 else 0.0  # ... under targeted sampling
        on_target = True
        decisions = 0
        step = len(engine.history)
        dead = False
        leaf = None
        root_reach = -1.0  # own reach of the searched information set, once reached
        root_sigma: list[float] = []
        while True:
            player = engine.current_player()
            if player == TERMINAL:
                break
            table = None
            if player == CHANCE:
                outcomes = engine.chance_outcomes()
                acts = [a for a, _ in outcomes]
                policy = [p for _, p in outcomes]
                sample = policy
            elif step >= now and decisions >= depth:
                # Past the CFR horizon a fixed rollout policy plays: its probabilities are
                # the same in pi and q, so they cancel and are not tracked.
                leaf = rollout(engine)
                break
            else:
                if step >= now:
                    decisions += 1
                key = (player, engine.info_key(player))
                table = tables.get(key)
                if table is None:
                    legal = engine.player_actions()
                    if candidates is not None:
                        legal = candidates(engine, legal)
                    table = tables[key] = _Table(list(legal))
                acts = table.actions
                policy = table.strategy()
                if player == traverser:
                    n = len(policy)
                    sample = [exploration / n + (1.0 - exploration) * x for x in policy]
                else:
                    sample = policy
            restricted = None
            if delta > 0.0 and on_target and step < now:
                allowed = consistent(engine, step)
                restricted = [x if a in allowed else 0.0 for a, x in zip(acts, sample, strict=True)]
                mass = sum(restricted)
                if mass <= 0.0:
                    if targeted:
                        dead = True
                        break
                    restricted = None
                    on_target = False
                    s_tgt = 0.0
                else:
                    restricted = [x / mass for x in restricted]
            weights = restricted if targeted and restricted is not None else sample
            i = weighted_pick(list(enumerate(weights)), random_())
            if table is None and step >= now:
                # Chance and rollout steps after the information set are sampled by their
                # own probabilities in every scheme: they cancel between pi and q, and
                # leaving them out keeps long games from underflowing.
                engine.apply(acts[i])
                step += 1
                continue
            q_here = delta * s_tgt + (1.0 - delta) * s_all
            if table is not None and step == now and key == root_key:
                # The searched information set: its own reach is known exactly on every
                # iteration that gets here (whoever traverses), so its average strategy
                # takes sigma weighted by that reach, without the 1/q(h) of stochastically
                # weighted averaging, whose variance dominates at small budgets.
                root_reach = own[player]
                root_sigma = policy
            if table is not None:
                own[player] *= policy[i]
            path.append((table, player if table is not None else -1, i, policy))
            path_q.append(q_here)
            s_all *= sample[i]
            if restricted is not None:
                s_tgt *= restricted[i]
                if restricted[i] == 0.0:
                    on_target = False
            elif s_tgt:
                s_tgt *= sample[i]
            engine.apply(acts[i])
            step += 1
        q = delta * s_tgt + (1.0 - delta) * s_all
        if dead or q <= 0.0:
            wasted += 1
            clock.tick()
            continue
        returns = leaf if leaf is not None else engine.returns()
        total_return += returns[seat]
        _update_regrets(path, path_q, q, returns[traverser], traverser, baseline, plus)
        if root_reach > 0.0:
            # The answer's average strategy; linear averaging (weight t) with regret
            # matching+, as in CFR+.
            weight = root_reach * (iteration if plus else 1)
            avg = tables[root_key].avg
            for b in range(len(avg)):
                avg[b] += weight * root_sigma[b]
        clock.tick()
    root = tables.get(root_key)
    if root is None:  # every iteration died before reaching the information set
        legal = first.player_actions()
        if candidates is not None:
            legal = candidates(first, legal)
        root = _Table(list(legal))
    stats = {
        "iterations": clock.iterations,
        "elapsed_ms": clock.elapsed_ms(),
        "stopped_by": clock.stopped_by(),
        "worlds": len(pool),
        "infosets": len(tables),
        "targeted_from": root_len if delta > 0.0 else None,
        "wasted": wasted,
        # Mean return of the sampled trajectories (exploration included): a rough estimate.
        "value": total_return / max(1, iteration - wasted),
    }
    return root, stats


class OOSBot(Bot):
    name = "oos"
    description = (
        "Online CFR: outcome-sampling MCCFR re-solved from the current information set over "
        "sampled worlds (after Lisy, Lanctot & Bowling 2015) with VR-MCCFR baselines and "
        "regret matching+, rollouts past a depth."
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
        FloatSpec(
            "targeting",
            0.9,
            "share of iterations targeted at the information set when searching from the last "
            "step all sampled worlds share (0 searches from the sampled worlds only)",
            min=0,
            max=0.999,
        ),
        ParamSpec(
            "rollout",
            "auto",
            "policy past the CFR horizon: 'random', 'heuristic' (the game's playout "
            "heuristic) or 'auto' (the game's measured choice, as for ISMCTS)",
            choices=("auto", "random", "heuristic"),
        ),
        FloatSpec(
            "baseline",
            0.2,
            "VR-MCCFR baselines (Schmid et al. 2019): weight of the newest sample in each "
            "action's running value estimate; 0 is plain outcome sampling",
            min=0,
            max=1,
        ),
        ParamSpec(
            "regret_matching",
            "plus",
            "'plus': regrets floored at 0 and the answer averaged linearly (CFR+); 'plain': "
            "regret matching with a uniform average",
            choices=("plus", "plain"),
        ),
        ParamSpec(
            "target_steps",
            12,
            "longest hidden stretch of history (steps) searched with targeting; longer ones "
            "search from the sampled worlds",
            min=0,
            max=100_000,
        ),
    )

    def hint(self, defn, params, infoset, budget, seed, *, replayed=None) -> Hint:
        # Targeting replays from an earlier step, which needs a fresh engine of the game.
        self._rebuild = lambda history: replay(defn, params, history)
        try:
            return super().hint(defn, params, infoset, budget, seed, replayed=replayed)
        finally:
            self._rebuild = None

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
        rollout = cfg["rollout"]
        if rollout == "auto":
            rollout = knowledge.default_rollout if knowledge is not None else "random"
        if rollout == "heuristic" and knowledge is None:
            raise InvalidBotSpec(f"bot 'oos': game {worlds.game!r} has no heuristic rollout")
        cut = knowledge.default_rollout_depth if knowledge is not None else None
        root, stats = online_outcome_sampling(
            worlds,
            budget,
            rng,
            exploration=cfg["exploration"],
            depth=cfg["depth"],
            pool_size=cfg["worlds"],
            candidates=candidates,
            rebuild=getattr(self, "_rebuild", None),
            targeting=cfg["targeting"],
            target_steps=cfg["target_steps"],
            playout=knowledge.playout if rollout == "heuristic" else None,
            evaluate=knowledge.evaluate if cut is not None and rollout == "heuristic" else None,
            rollout_depth=cut or 0,
            baseline=cfg["baseline"],
            plus=cfg["regret_matching"] == "plus",
        )
        probs = root.average()
        order = sorted(range(len(root.actions)), key=lambda i: root.actions[i])
        action = root.actions[weighted_pick(list(enumerate(probs)), rng.random())]
        return Hint(
            action=action,
            policy=[ActionStat(root.actions[i], probs[i]) for i in order],
            value=stats["value"],
            iterations=stats["iterations"],
            elapsed_ms=stats["elapsed_ms"],
            stopped_by=stats["stopped_by"],
            extra={
                k: stats[k]
                for k in ("worlds", "infosets", "targeted_from", "wasted")
                if stats[k] is not None
            },
        )
