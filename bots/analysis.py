"""One analysis of a position: per candidate move, a value with an interval, from the search.

The hint, the review (``bots.review``), the analysis endpoint and ``atelier analyse`` read this
one answer (issue 38; the contract is ``Analysis`` below). It is the bot's own ISMCTS search,
then an analysis mode of the same search that compares the candidate moves on common random
numbers:

1. **The search** (phase 1): exactly the search the ``ismcts`` hint runs for this information
   set, budget and seed (the same worlds, the same generator; so its most visited move is the
   hint's move), with the bot's resolved ``SearchConfig``: beliefs-weighted world pool, its
   rollout policy and cut-off, its prior. Bots without a search of their own (heuristic,
   random, levels, CFR/OOS) are analysed by the default ``ismcts`` search with the same budget,
   and ``Analysis.bot`` says ``ismcts``: the values are the search's, not that bot's.
2. **Candidates**: every move the search's root considered when there are at most ``top``,
   else its ``top`` most visited, plus every move in ``include`` (the move played) and the
   search's own move. The search's move and the ``include``\\ d ones are *kept*: sampled in every
   round, so each has the full number of paired samples and an interval.
3. **Paired rounds with sequential halving** (Karnin, Koren and Somekh, "Almost Optimal
   Exploration in Multi-Armed Bandits", ICML 2013; the root of Gumbel MuZero, Danihelka et al.
   2022): each round draws one world of the search's pool (by belief weight; with the other
   seats' unseen moves before our turn played by the search's own nodes for them) and one
   seed, and runs one simulation below each live candidate from that world with a generator
   seeded alike: apply the candidate, descend the search's tree (its subtrees grow as in
   ISMCTS), roll out, back up. After each of the ``ceil(log2 k)`` stages the other candidates
   are halved on their means. The rounds roll out in the search's analysis mode
   (``SearchConfig.for_analysis``): a cut-off whose evaluation leaves every seat level does not
   end the rollout, and in Detective Eye the rated heuristic plays every seat for 20 decisions
   (its safe playout ignores the draft, so every draft decision had the same value).
4. **Values**: a move's ``value`` is the mean first-place share of the seat over its rounds
   (1 for an outright win, 1/k in a k-way tie for the top return, else 0: a win probability
   in every game; a rollout cut off by an evaluation that states win chances scores that
   chance, ``WIN_CHANCE_EVALUATIONS``, as the search's means take it); ``points`` the mean
   return in the game's own units where they mean something (Modern Art's money or points;
   ``POINT_UNITS``). ``loss`` is the paired mean of ``best - move`` over the move's rounds
   (the best is sampled in every round), clipped at 0; ``loss_interval`` its 95% normal
   interval (not clipped); ``within_noise`` when that interval reaches 0.
5. **The suggested move** (``best``): the search's own move (the hint's), unless the kept or
   surviving candidate of highest mean beats it by more than ``OVERTURN_MARGIN`` (0.02) with
   a paired bound at a level corrected for the ``k`` rivals it was picked from (one-sided
   0.025 / k, ``overturn_z``), and again on fresh paired rounds once its subtree is as
   searched as the search's move's (``_Rounds.confirm``: below a thin subtree the other seats
   still answer weakly, which flatters the rival). So the hint's move is the analysis's best
   unless the rounds find it materially worse, twice: they are more search, and where the
   search had not settled they overturn it (Detective Eye at 200 simulations: 3 of 200
   random positions; in 2 of them three 4,000-simulation searches leave the hint's move too,
   in the third they keep it, the analysis's move within 0.03 of it).

**The review's rounds** (``bots.review``: ``per_kept``, ``top=0``, ``rounds=ROLLOUT_ROUNDS``):
the search's move and the played one only, both in every round, ``per_kept`` rounds, each
rolled out right after the move by the search's rollout (its policy and analysis cut-off: the
search's own leaf evaluation, one step below the root) without descending or growing the tree.
A review asks one question, the played move's loss against the search's, and needs power for
it: through the tree with the search's three other top moves halved alongside, the played move
got 16 to 50 of its 100 rounds, each a third dearer, and below a thin subtree the rounds meet
the tree's first tries (a Gallery Rush "declare Mona Lisa" with none left: 0.02 behind the
search's move after 50 tree rounds, 0.29 after 500; 0.22 by heuristic rollouts to the end).
Bare rounds give it its 100 within the old evaluator's time (docs/evaluation.md, "Does the
review catch real mistakes?"). The price: the loss is against the search's move (only the
played move can overturn it), so a weak search (a few simulations) understates losses. And
bare rounds judge a move by the rollout policy's play right after it, which can rank two moves
the search finds level far apart, consistently (Finger Auction's bids: 0.03 to 0.37 over 2,000
rounds): so the review flags a decision only when ``paired_loss`` (a search of its own with
another seed, the two moves' paired rounds through its tree) puts the loss above 0 as well
(``bots.review.confirm_loss``).

Limits: the intervals are normal approximations over the rounds (at least ``MIN_ROUNDS``); the
rounds are paired on the world and the seed, but the subtrees below two moves draw from the
seed differently once they expand, so the pairing is strongest near the root; values are those
of the search's model of the other seats (its tree, its rollout policy) and of its beliefs,
not of perfect play.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any

from bots import search_clock
from bots.beliefs import HeuristicModel
from bots.heuristics import GameKnowledge, knowledge_for
from bots.ismcts import IsmctsBot, SearchConfig
from bots.ismcts.result import Z_95
from bots.ismcts.rollout import make_rollout
from bots.ismcts.search import Search
from bots.ismcts.tree import backup, first_place_share
from bots.protocol import Bot, Budget, Worlds
from games.core.definition import GameDefinition, InvalidInfoset
from games.core.engine import CHANCE, TERMINAL, Engine

# The game's own units, where a final score means something beyond who won.
POINT_UNITS = {"modern_art": "expected final money (points with a points table)"}
VALUE_UNITS = "first-place share (0-1; a k-way tie for the top return shares 1/k)"
# Games whose cut-off evaluation (``GameKnowledge.evaluate``) is ``race_returns``: the expected
# returns of a softmax win chance (the 28-card games' +1 / -1 share), so a cut rollout's
# first-place share is that win chance (``cut_share``), as the search's own means take it.
WIN_CHANCE_EVALUATIONS = frozenset({"detective_eye", "finger_auction", "gallery_rush"})
# How much more first-place share than the search's move a rival must be worth, beyond noise,
# to replace it: with the thousands of rounds of a 500 ms budget, differences of 0.005 pass
# the test, and a hint that is within 0.02 of the best is not a wrong hint.
OVERTURN_MARGIN = 0.02
MIN_ROUNDS = 16
# A review's rounds stop early (``_Rounds.settled``) once the played move's loss against the
# search's move is decided at this two-sided 99% normal quantile (looked at every
# ``SETTLE_EVERY`` rounds, so stricter than the reported 95%): above 0 (flagged whatever more
# rounds say: an overturn could only raise the loss), or below ``SETTLE_BAND``.
SETTLE_Z = 2.576
SETTLE_BAND = 0.05
SETTLE_EVERY = 8  # paired rounds always played by the kept moves: below, no usable interval
SETTLE_PRIOR_VAR = 0.25  # ``_settle_se``: a coin's variance, the spread no rounds have shown yet
# How a paired round values a candidate (``analyse``'s ``rounds``): ``TREE_ROUNDS`` apply it,
# descend the search's tree below it and roll out (the hint's analysis: its values are the
# search's); ``ROLLOUT_ROUNDS`` apply it and roll out at once by the search's rollout (its
# policy, its analysis cut-off), the search's own leaf evaluation one step below the root (the
# review: see the module doc, "The review's rounds").
TREE_ROUNDS = "tree"
ROLLOUT_ROUNDS = "rollout"
ROUND_KINDS = frozenset({TREE_ROUNDS, ROLLOUT_ROUNDS})
CONTINUATION = 6  # steps of the expected continuation reported per move
DEFAULT_TOP = 8


@dataclass(frozen=True)
class MoveValue:
    """One candidate move (module doc, step 4)."""

    action: int
    value: float
    stderr: float
    interval: tuple[float, float]
    points: float | None
    visits: int
    prior: float | None
    loss: float
    loss_interval: tuple[float, float]
    within_noise: bool
    continuation: tuple[int, ...]
    samples: int
    continuation_strings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Analysis:
    """The analysis of one position for the seat to move (module doc)."""

    seat: int
    best: int
    moves: tuple[MoveValue, ...]
    value: float
    interval: tuple[float, float]
    iterations: int
    elapsed_ms: float
    effective_worlds: float | None
    bot: str
    points_units: str | None = None
    search_move: int | None = field(default=None)  # the search's own move (the hint's)
    search_ms: float | None = None  # the search's part of ``elapsed_ms`` (the rest: the rounds)
    rollout: str = ""  # the rounds' rollout, readable

    def move(self, action: int) -> MoveValue | None:
        return next((m for m in self.moves if m.action == action), None)

    def to_json(self, defn: GameDefinition, engine: Engine) -> dict[str, Any]:
        """The JSON of docs/api.md (``engine``: a world of the seat's information set)."""

        def describe(action: int) -> dict[str, Any]:
            return {
                "id": action,
                "string": defn.action_to_string(engine, self.seat, action),
                "struct": defn.action_to_struct(engine, self.seat, action),
            }

        units: dict[str, str] = {"value": VALUE_UNITS}
        if self.points_units is not None:
            units["points"] = self.points_units
        return {
            "seat": self.seat,
            "bot": self.bot,
            "units": units,
            "best": describe(self.best),
            "value": self.value,
            "interval": list(self.interval),
            "iterations": self.iterations,
            "elapsed_ms": round(self.elapsed_ms, 3),
            "effective_worlds": self.effective_worlds,
            "moves": [
                {
                    **describe(m.action),
                    "value": m.value,
                    "stderr": m.stderr,
                    "interval": list(m.interval),
                    "points": m.points,
                    "visits": m.visits,
                    "prior": m.prior,
                    "loss": m.loss,
                    "loss_interval": list(m.loss_interval),
                    "within_noise": m.within_noise,
                    "continuation": list(m.continuation_strings),
                    "samples": m.samples,
                }
                for m in self.moves
            ],
        }


def searcher_for(bot: Bot) -> IsmctsBot:
    """The search that analyses for ``bot``: its own when it is an ISMCTS, else the default."""
    return bot if isinstance(bot, IsmctsBot) else IsmctsBot()


def analyse(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    bot: Bot,
    budget: Budget,
    seed: int,
    include: Sequence[int] = (),
    top: int = DEFAULT_TOP,
    simulations: int | None = None,
    per_kept: int | None = None,
    rounds: str = TREE_ROUNDS,
) -> Analysis:
    """The analysis of ``infoset`` for its seat (module doc). ``budget`` is the search's
    (phase 1); the paired rounds play ``simulations`` more (default: as many as the search
    ran) and stop at the budget's milliseconds again, once the kept moves have
    ``MIN_ROUNDS``; with ``per_kept``, ``per_kept`` simulations for each kept move instead,
    stopped early once the included moves' losses are decided (``_Rounds.settled``).
    ``top`` other moves of the search join the kept ones (0: the kept ones only); ``rounds``
    is how a round values a move (``ROUND_KINDS``: the search's tree, or the review's bare
    rollouts). Raises ``InvalidInfoset`` when a move of ``include`` is not legal."""
    return analyse_with_world(
        defn, params, infoset, bot, budget, seed, include, top, simulations, per_kept, rounds
    )[0]


def analyse_with_world(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    bot: Bot,
    budget: Budget,
    seed: int,
    include: Sequence[int] = (),
    top: int = DEFAULT_TOP,
    simulations: int | None = None,
    per_kept: int | None = None,
    rounds: str = TREE_ROUNDS,
) -> tuple[Analysis, Engine]:
    """``analyse``, and the first world of the information set it drew (to name the moves:
    ``Analysis.to_json``), so that a caller need not replay the information set again."""
    started = search_clock.now()
    if top < 0:
        raise ValueError(f"top must be at least 0, got {top}")
    _check_rounds(rounds)
    s = _Searched.start(defn, params, infoset, bot, budget, seed, include)
    run, worlds = s.run, s.worlds
    searched = run.result()
    search_ms = (search_clock.now() - started) * 1000.0
    order = sorted(
        range(len(searched.actions)),
        key=lambda i: (-searched.counts[i], -searched.means[i], searched.actions[i]),
    )
    search_move = searched.actions[order[0]]
    kept = list(dict.fromkeys([search_move, *include]))
    others = [searched.actions[i] for i in order[:top] if searched.actions[i] not in kept]
    paired = s.rounds(rounds)
    if per_kept is not None:
        total = per_kept * len(kept)
    else:
        total = simulations if simulations is not None else max(searched.iterations, 1)
    deadline = (
        search_clock.now() + budget.milliseconds / 1000.0 if budget.milliseconds else math.inf
    )
    settled = (lambda: paired.settled(kept, search_move)) if per_kept is not None else None
    paired.halve(kept, others, total, deadline, settled)
    best = _suggested(paired, search_move, deadline)
    analysis = _assemble(
        defn, run, worlds, paired, search_move, best, s.searcher.name, started, searched.iterations
    )
    label = paired.label
    return replace(analysis, search_ms=round(search_ms, 3), rollout=label), worlds.first


def _check_rounds(rounds: str) -> None:
    if rounds not in ROUND_KINDS:
        raise ValueError(f"rounds must be one of {sorted(ROUND_KINDS)}, got {rounds!r}")


@dataclass
class _Searched:
    """The search of phase 1 and what it ran with, for the paired rounds that follow it."""

    searcher: IsmctsBot
    worlds: Worlds
    knowledge: GameKnowledge | None
    config: SearchConfig
    model: HeuristicModel | None
    run: Search

    @classmethod
    def start(
        cls,
        defn: GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        bot: Bot,
        budget: Budget,
        seed: int,
        include: Sequence[int] = (),
    ) -> _Searched:
        """The search the hint runs for ``infoset``, ``budget`` and ``seed`` (the same worlds,
        the same generator); raises ``InvalidInfoset`` when a move of ``include`` is not
        legal."""
        searcher = searcher_for(bot)
        rng = random.Random(seed)  # as ``Bot.hint``: the same worlds, then the same search
        worlds = Worlds.from_infoset(defn, params, infoset, rng, searcher.prior_for(defn.name))
        legal = worlds.first.legal_actions()
        for action in include:
            if action not in legal:
                raise InvalidInfoset(f"move {action!r} is not legal at this decision")
        knowledge = knowledge_for(defn.name)
        config = SearchConfig.resolve(searcher.config, defn.name, budget, knowledge)
        model = searcher.opponent_model(knowledge, worlds)  # as the hint: its profiles too
        run = Search(worlds, budget, rng, config, knowledge, model)
        run.iterate()
        return cls(searcher, worlds, knowledge, config, model, run)

    def rounds(self, kind: str) -> _Rounds:
        return _Rounds(
            self.run,
            self.worlds,
            self.config,
            self.searcher.config,
            self.knowledge,
            self.model,
            bare=kind == ROLLOUT_ROUNDS,
        )


@dataclass(frozen=True)
class PairedLoss:
    """``move``'s loss against ``best`` on paired rounds of a search of their own
    (``paired_loss``): each move's mean first-place share, the paired mean of ``best - move``
    clipped at 0, its 95% normal interval (not clipped) and the rounds behind it."""

    best_value: float
    value: float
    loss: float
    interval: tuple[float, float]
    samples: int
    rollout: str


def paired_loss(
    defn: GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    bot: Bot,
    budget: Budget,
    seed: int,
    best: int,
    move: int,
    per_kept: int,
    rounds: str = TREE_ROUNDS,
    deadline: float = math.inf,
) -> PairedLoss:
    """An estimate of ``move``'s loss against ``best`` of its own: a search of ``infoset`` with
    ``budget`` and ``seed`` (its own worlds, its own tree), then paired rounds (``rounds``) of
    the two moves only, ``per_kept`` at most, stopped once the loss is decided
    (``_Rounds.settled``) or, once ``MIN_ROUNDS`` are in, at ``deadline`` (``search_clock.now()``
    seconds). The review's confirmation (``bots.review``): with another seed than the review's
    analysis, nothing of that estimate is reused, so a loss it overstated by chance (and was
    flagged for) is not overstated again."""
    _check_rounds(rounds)
    searched = _Searched.start(defn, params, infoset, bot, budget, seed, (best, move))
    paired = searched.rounds(rounds)
    kept = list(dict.fromkeys([best, move]))
    paired.halve(kept, [], per_kept * len(kept), deadline, lambda: paired.settled(kept, best))
    top, arm = paired.arms[best], paired.arms[move]
    diff, se, n = _paired(top, arm)
    return PairedLoss(
        best_value=round(top.mean(), 6),
        value=round(arm.mean(), 6),
        loss=round(max(0.0, diff), 6),
        interval=(round(diff - Z_95 * se, 6), round(diff + Z_95 * se, 6)),
        samples=n,
        rollout=paired.label,
    )


class _Arm:
    """One candidate's samples, by round: first-place share and the seat's return."""

    __slots__ = ("action", "points", "shares")

    def __init__(self, action: int) -> None:
        self.action = action
        self.shares: dict[int, float] = {}
        self.points: dict[int, float] = {}

    def mean(self) -> float:
        return sum(self.shares.values()) / len(self.shares) if self.shares else 0.0


class _Rounds:
    """The paired rounds of the analysis mode, on the search's tree and pool."""

    def __init__(
        self,
        run: Search,
        worlds: Worlds,
        config: SearchConfig,
        options: dict[str, Any],
        knowledge: GameKnowledge | None,
        model: HeuristicModel | None,
        bare: bool = False,
    ) -> None:
        self.run = run
        self.bare = bare  # ``ROLLOUT_ROUNDS``: no descent, nothing backed up
        self.seat = worlds.seat
        self.arms: dict[int, _Arm] = {}
        self.count = 0  # recorded rounds (``extra``: those of ``confirm``, kept apart)
        self.extra = 0
        # The fresh rounds of ``confirm`` (the search's move and a rival): where they keep the
        # search's move, the rival's row reports them, not the rounds that flattered it.
        self.fresh: dict[int, _Arm] = {}
        self.simulations = 0
        candidates = run.candidates
        analysis_config = config.for_analysis(
            worlds.game, options, getattr(worlds.first, "phase", None)
        )
        policy = "rated heuristic" if analysis_config.rated_rollout else analysis_config.rollout
        depth = analysis_config.rollout_depth
        label = policy if depth < 0 else f"{policy}, cut after {depth} decisions (decisive)"
        self.label = f"{label}; {'bare rollouts from each move' if bare else 'below the tree'}"
        self.rollout = make_rollout(
            analysis_config,
            type(worlds.first),
            self.seat,
            knowledge,
            candidates,
            model,
        )
        self.descend = run.tree.walker()
        self.root_key = worlds.first.info_key(self.seat)
        self.soft_cut = worlds.game in WIN_CHANCE_EVALUATIONS

    def share(self, engine: Engine, returns: list[float]) -> float:
        """The seat's first-place share of one rollout that stopped at ``engine``: exact at the
        end of the game; at a cut-off, the win chance the evaluation states where it states
        one (``WIN_CHANCE_EVALUATIONS``; the arg-max of a softmax would count a 35% chance
        that leads as a sure win, unlike the search, which backs up the expected return)."""
        if self.soft_cut and engine.current_player() != TERMINAL:
            return cut_share(returns, self.seat)
        return first_place_share(returns, self.seat)

    def arm(self, action: int) -> _Arm:
        arm = self.arms.get(action)
        if arm is None:
            arm = self.arms[action] = _Arm(action)
        return arm

    def halve(
        self,
        kept: list[int],
        others: list[int],
        total: int,
        deadline: float,
        settled: Callable[[], bool] | None = None,
    ) -> None:
        """Sequential halving of ``others`` over ``total`` simulations, ``kept`` sampled in
        every round; at least ``MIN_ROUNDS`` rounds, and no round started past ``deadline``
        after those, nor once ``settled()`` says so (asked every ``SETTLE_EVERY`` rounds)."""
        stages = max(1, math.ceil(math.log2(len(others)))) if len(others) > 1 else 1
        alive = list(others)
        for stage in range(stages):
            live = kept + alive
            rounds = max(math.ceil(MIN_ROUNDS / stages), (total // stages) // len(live))
            for _ in range(rounds):
                if self.count >= MIN_ROUNDS and (
                    search_clock.now() >= deadline
                    or (settled is not None and self.count % SETTLE_EVERY == 0 and settled())
                ):
                    return
                self.play(live)
            if stage < stages - 1:
                alive.sort(key=lambda a: (-self.arm(a).mean(), a))
                alive = alive[: max(1, math.ceil(len(alive) / 2))]

    def settled(self, kept: list[int], search_move: int) -> bool:
        """Whether every kept move but the search's has its loss against the search's move
        decided (``SETTLE_Z``): flagged, or below ``SETTLE_BAND`` (a review: the played move).
        Where the played move is the search's own, its loss is 0 from the start: the rounds
        stop at ``MIN_ROUNDS`` (they only estimate its value)."""
        best = self.arms[search_move]
        played = [a for a in kept if a != search_move]
        for action in played:
            d, se, n = _paired(best, self.arms[action])
            se = _settle_se(se, n)
            if not n or not (d - SETTLE_Z * se > 0.0 or d + SETTLE_Z * se < SETTLE_BAND):
                return False
        return True

    def play(self, live: list[int], arms: dict[int, _Arm] | None = None) -> None:
        """One round: one world and one seed, one simulation below each of ``live``, recorded
        in ``arms`` (default: the rounds' own; ``confirm`` keeps its fresh ones apart). A bare
        round (``ROLLOUT_ROUNDS``) rolls out right after the move: the tree is not read or
        grown, so both moves of a pair meet the same rollout policy from the same seed."""
        run, seat = self.run, self.seat
        rng = run.rng
        world = run.pool.world(run.iteration, rng)
        run.iteration += 1
        at_root = self.to_root(world, rng) if run.tail else world
        seed = rng.getrandbits(64)
        root = run.tree.root
        index = {a: i for i, a in enumerate(root.actions)} if root is not None else {}
        scale = run.tree.scale
        n = self.count if arms is None else self.extra
        for action in live:
            engine = at_root.copy()
            r = random.Random(seed)
            engine.apply(action)
            if self.bare:
                returns = self.rollout(engine, r)
            else:
                path = self.descend(engine, r, False)
                returns = self.rollout(engine, r)
                i = index.get(action)
                if i is not None:
                    path.insert(0, (root, i, seat))
                backup(path, returns)
                scale.see(returns)
            arm = self.arm(action) if arms is None else arms.setdefault(action, _Arm(action))
            arm.shares[n] = self.share(engine, returns)
            arm.points[n] = returns[seat]
            self.simulations += 1
        if arms is None:
            self.count = n + 1
        else:
            self.extra = n + 1

    def confirm(self, search_move: int, leader: int, deadline: float) -> bool:
        """Whether ``leader``, which beat the search's move on the rounds, beats it again on
        fresh paired rounds once its subtree is as searched as the search's move's.

        The search's move has the most visited subtree, so in it the other seats' nodes have
        learnt to answer it, while below a rarely visited rival they still play their first
        tries: on the same rounds the rival meets weaker replies and leads by more than it
        is worth (Detective Eye, 200 simulations: the rounds put a rival 0.27 ahead where
        2,000 rounds and 4,000-simulation searches put the two within 0.03). So the rival's
        subtree first gets unrecorded simulations up to the search's move's visits, then as
        many paired rounds as decided the lead are played afresh and tested once (one-sided
        0.025: the leader was chosen on other rounds, so no correction for the choice)."""
        root = self.run.tree.root
        if root is None:
            return True
        index = {a: i for i, a in enumerate(root.actions)}
        i, j = index.get(search_move), index.get(leader)
        if i is not None and j is not None and not self.bare:  # bare rounds grow no subtree
            while root.counts[j] < root.counts[i] and search_clock.now() < deadline:
                self.play([leader], {})
        fresh: dict[int, _Arm] = {}
        self.fresh = fresh
        planned = max(MIN_ROUNDS, self.count)
        for k in range(planned):
            if len(fresh) and search_clock.now() >= deadline:
                break
            if k == planned // 2 and k >= MIN_ROUNDS:
                lead, _, _ = _paired(fresh[leader], fresh[search_move])
                if lead <= 0.0:  # futile: not even ahead halfway (half the cost in a review)
                    return False
            self.play([search_move, leader], fresh)
        if search_move not in fresh or leader not in fresh:
            return False
        diff, se, _ = _paired(fresh[leader], fresh[search_move])
        return diff - overturn_z(1) * se > OVERTURN_MARGIN

    def to_root(self, engine: Engine, rng: random.Random) -> Engine:
        """A world rewound before the other seats' unseen moves (``bots.ismcts.unseen``)
        brought to our turn: each of those moves drawn from the search's visits at that
        seat's node (uniform where the search has none), chance drawn."""
        seat, table, key = self.seat, self.run.tree.table, self.root_key
        while not (engine.current_player() == seat and engine.info_key(seat) == key):
            player = engine.current_player()
            if player == CHANCE:
                engine.apply(engine.sample_chance(rng))
                continue
            if player < 0:
                raise RuntimeError("a world ended before the analysed turn")
            node = table.get(engine.info_key(player))
            legal = engine.legal_actions()
            if node is not None and node.visits:
                pick = rng.random() * node.visits
                for a, c in zip(node.actions, node.counts, strict=True):
                    pick -= c
                    if pick < 0 and a in legal:
                        engine.apply(a)
                        break
                else:
                    engine.apply(legal[int(rng.random() * len(legal))])
            else:
                engine.apply(legal[int(rng.random() * len(legal))])
        return engine


def cut_share(returns: list[float], seat: int) -> float:
    """``seat``'s win chance behind ``race_returns``' expected returns (``bots.heuristics.base``):
    that function maps a win chance p to ``p (1 - lose) + lose`` with ``lose = -1 / (n - 1)``."""
    lose = -1.0 / (len(returns) - 1)
    return min(1.0, max(0.0, (returns[seat] - lose) / (1.0 - lose)))


def overturn_z(rivals: int) -> float:
    """The one-sided normal quantile another candidate's paired lead over the search's move
    must pass to replace it: 0.025 split over the ``rivals`` it was picked from (Bonferroni),
    since the leader is the best of them on the same rounds and a maximum of noisy means
    passes a single 95% test far more often than 2.5% of the time."""
    return NormalDist().inv_cdf(1.0 - 0.025 / max(1, rivals))


def _suggested(rounds: _Rounds, search_move: int, deadline: float) -> int:
    """The suggested move (module doc, step 5): the search's, unless the candidate of highest
    mean on the rounds beats it beyond the corrected test and again on ``_Rounds.confirm``."""
    arms = rounds.arms
    full = [arms[a] for a in arms if len(arms[a].shares) == rounds.count]
    leader = max(full, key=lambda a: (a.mean(), a.action == search_move, -a.action))
    if leader.action == search_move:
        return search_move
    diff, se, _ = _paired(leader, arms[search_move])
    if diff - overturn_z(len(arms) - 1) * se > OVERTURN_MARGIN and rounds.confirm(
        search_move, leader.action, deadline
    ):
        return leader.action
    return search_move


def _paired(best: _Arm, arm: _Arm) -> tuple[float, float, int]:
    """Mean and standard error of ``best - arm`` over ``arm``'s rounds (``best`` has them all)."""
    diffs = [best.shares[k] - v for k, v in arm.shares.items() if k in best.shares]
    n = len(diffs)
    if not n:
        return 0.0, 0.5, 0
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 1.0
    return mean, math.sqrt(var / n), n


def _settle_se(se: float, n: int) -> float:
    """The standard error the early stop tests: the paired differences' variance with one
    more pseudo-observation of ``SETTLE_PRIOR_VAR``. Sixteen rounds in which both moves
    scored alike (every difference 0: a Modern Art seat that never comes first either way)
    have a sample variance of 0 and "decide" a loss of 0, where 100 rounds find 0.28 (a
    blunder of the set); with the pseudo-observation such rounds stop at 32 at the soonest."""
    if n < 2:
        return se
    variance = (se * se * n * (n - 1) + SETTLE_PRIOR_VAR) / n
    return math.sqrt(variance / n)


def _mean_se(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.25
    return mean, math.sqrt(var / n)


def _assemble(
    defn: GameDefinition,
    run: Search,
    worlds: Worlds,
    rounds: _Rounds,
    search_move: int,
    best_move: int,
    bot: str,
    started: float,
    searched: int,
) -> Analysis:
    arms = rounds.arms
    best = arms[best_move]
    root = run.tree.root
    index = {a: i for i, a in enumerate(root.actions)} if root is not None else {}
    points_units = POINT_UNITS.get(defn.name)
    moves = []
    fresh = rounds.fresh
    for arm in arms.values():
        pair = best
        refuted = arm.action != search_move == best.action and arm.action in fresh
        if refuted and search_move in fresh:  # its value and loss from the fresh rounds
            arm, pair = fresh[arm.action], fresh[search_move]
        value, se = _mean_se(list(arm.shares.values()))
        if arm is best:
            loss, loss_iv, n = 0.0, (0.0, 0.0), len(arm.shares)
        else:
            d, dse, n = _paired(pair, arm)
            loss, loss_iv = max(0.0, d), (d - Z_95 * dse, d + Z_95 * dse)
        i = index.get(arm.action)
        line, strings = _continuation(defn, run, worlds.first, arm.action)
        moves.append(
            MoveValue(
                action=arm.action,
                value=round(value, 6),
                stderr=round(se, 6),
                interval=(
                    round(max(0.0, value - Z_95 * se), 6),
                    round(min(1.0, value + Z_95 * se), 6),
                ),
                points=round(sum(arm.points.values()) / len(arm.points), 6)
                if points_units is not None
                else None,
                visits=root.counts[i] if i is not None and root is not None else len(arm.shares),
                prior=(root.bias[i] if i is not None and root is not None and root.bias else None),
                loss=round(loss, 6),
                loss_interval=(round(loss_iv[0], 6), round(loss_iv[1], 6)),
                within_noise=arm is best or loss_iv[0] <= 0.0,
                continuation=line,
                samples=n,
                continuation_strings=strings,
            )
        )
    moves.sort(key=lambda m: (m.action != best.action, -m.value, m.action))
    head = moves[0]
    return Analysis(
        seat=worlds.seat,
        best=best.action,
        moves=tuple(moves),
        value=head.value,
        interval=head.interval,
        iterations=searched + rounds.simulations,
        elapsed_ms=round((search_clock.now() - started) * 1000.0, 3),
        effective_worlds=run.pool.effective,
        bot=bot,
        points_units=points_units,
        search_move=search_move,
    )


def _continuation(
    defn: GameDefinition, run: Search, first: Engine, action: int
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The most visited line after ``action`` in the search's tree, walked on the first world
    (the other seats' moves are the search's expectation there); a chance step ends it as
    ``chance`` (id -1): what it deals is not the seat's to know."""
    engine = first.copy()
    engine.apply(action)
    table = run.tree.table
    line: list[int] = []
    strings: list[str] = []
    for _ in range(CONTINUATION):
        player = engine.current_player()
        if player == CHANCE:
            line.append(-1)
            strings.append("chance")
            break
        if player < 0:
            break
        node = table.get(engine.info_key(player))
        if node is None or not node.visits:
            break
        i = max(range(len(node.counts)), key=lambda j: (node.counts[j], -j))
        move = node.actions[i]
        line.append(move)
        strings.append(defn.action_to_string(engine, player, move))
        engine.apply(move)
    return tuple(line), tuple(strings)
