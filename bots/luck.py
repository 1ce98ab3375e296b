"""Luck-corrected scores of a game record: AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling,
"AIVAT: A New Variance Reduction Technique for Agent Evaluation in Imperfect Information
Games", AAAI 2018).

A game's return is skill plus luck. AIVAT removes the luck it can see: at every step whose
distribution is known, it subtracts how much the step moved a value estimate ``V`` beyond what
was expected there,

    corrected(s) = return(s) - sum over corrected steps t of [V_s(h_t a_t) - E_{a~p_t} V_s(h_t a)]

where ``p_t`` is the chance distribution at a chance step, and at a decision the policy the
bot drew its action from. Each bracket has expectation 0 given the history (``a_t`` is drawn
from ``p_t``), so the corrected score is unbiased for the expected return *whatever* ``V``
is, as long as ``V`` is fixed in advance and does not peek at ``a_t``; a ``V`` close to the
true value removes most of the variance. ``V`` may read the whole state (hidden cards
included): the evaluator sees everything after the game, no player does.

Which decisions count as "policy known". A bot whose hint says ``stopped_by == "policy"``
answered straight from the policy it reports (``random`` draws uniformly from it; the
``heuristic`` reports a point mass on its move, so its correction is exactly 0). A search bot
(``ismcts``) reports visit shares but plays the most visited move, which is not a draw from
them, so its decisions are never corrected: that is the skill being measured. A decision is
also left alone when the action taken has probability 0 in the reported policy.

Value estimates (``VALUES``; the tournament's ``luck`` setting names one, and its default per
game is in ``DEFAULT_VALUE``):

* ``rollout``: the mean return of ``rollouts`` playouts to the end by the game's heuristic
  playout policy (``GameKnowledge.playout``; uniform where a game has none), chance drawn by
  the engine. Common random numbers: every alternative of one step is rolled out with the
  same streams ``derive_seed(seed, step, j)``, so the bracket compares the outcomes, not the
  luck of their rollouts. The streams never depend on the outcome taken, which keeps the
  estimator unbiased.
* ``heuristic``: the game's heuristic evaluation (``GameKnowledge.evaluate``), no search:
  cheap, for games whose rollouts are slow (Modern Art).

Terminal states are valued by their returns in both. On the *first-place share* scale
(``scale="share"``, what ``atelier bench strength`` reports) a rollout is scored by each seat's
share of first place instead of its return, so the corrected score is an unbiased estimate of
the expected share; only rollout estimates have that scale.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import games
from bots.heuristics import GameKnowledge, knowledge_for
from games.core.engine import CHANCE, Engine
from games.core.episode import Step, play_episode, sampled_chance
from games.core.seeds import derive_seed

VALUES = ("rollout", "heuristic")
DEFAULT_VALUE: dict[str, dict[str, Any]] = {
    "gallery_rush": {"value": "rollout", "rollouts": 128, "policy": "random"},
    "detective_eye": {"value": "rollout", "rollouts": 16, "policy": "heuristic"},
    "finger_auction": {"value": "rollout", "rollouts": 16, "policy": "heuristic"},
    "modern_art": {"value": "heuristic"},
}
POLICIES = ("heuristic", "random")
SCALES = ("return", "share")


def win_shares(returns: Sequence[float]) -> list[float]:
    """One win per game split among the seats with the top return (a full draw: 1/n each)."""
    top = max(returns)
    winners = [s for s, r in enumerate(returns) if r == top]
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(len(returns))]


class InvalidLuckConfig(ValueError):
    """A value-estimate setting that names an unknown estimate or gives a bad size."""


def luck_config(game: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The full value-estimate setting for ``game``: the default, or ``config`` checked."""
    if config is None:
        config = DEFAULT_VALUE.get(game, {"value": "rollout", "rollouts": 8, "policy": "random"})
    if not isinstance(config, dict):
        raise InvalidLuckConfig("the luck setting must be an object like {'value': 'rollout'}")
    value = config.get("value")
    if value not in VALUES:
        raise InvalidLuckConfig(f"unknown value estimate {value!r}; known: {list(VALUES)}")
    if value == "heuristic":
        extra = sorted(set(config) - {"value"})
        if extra:
            raise InvalidLuckConfig(f"the heuristic value estimate takes no {extra[0]!r}")
        knowledge = knowledge_for(game)
        if knowledge is None or type(knowledge).evaluate is GameKnowledge.evaluate:
            raise InvalidLuckConfig(f"{game} has no heuristic evaluation; use 'rollout'")
        return {"value": "heuristic"}
    extra = sorted(set(config) - {"value", "rollouts", "policy"})
    if extra:
        raise InvalidLuckConfig(f"unknown field {extra[0]!r} of the rollout value estimate")
    rollouts = config.get("rollouts", 8)
    if isinstance(rollouts, bool) or not isinstance(rollouts, int) or not 1 <= rollouts <= 1000:
        raise InvalidLuckConfig(f"'rollouts' must be a whole number 1..1000, got {rollouts!r}")
    policy = config.get("policy", "heuristic" if knowledge_for(game) else "random")
    if policy not in POLICIES:
        raise InvalidLuckConfig(f"unknown rollout policy {policy!r}; known: {list(POLICIES)}")
    if policy == "heuristic" and knowledge_for(game) is None:
        raise InvalidLuckConfig(f"{game} has no heuristic playout; use policy 'random'")
    return {"value": "rollout", "rollouts": rollouts, "policy": policy}


def _uniform(engine: Engine, rng: random.Random) -> int:
    legal = engine.legal_actions()
    return legal[int(rng.random() * len(legal))]


class ValueEstimate:
    """``V(engine)``: every seat's estimated return, fixed before any game is looked at."""

    def __init__(self, game: str, config: dict[str, Any], seed: int, scale: str = "return") -> None:
        if scale not in SCALES:
            raise InvalidLuckConfig(f"unknown scale {scale!r}; known: {list(SCALES)}")
        if scale == "share" and config["value"] != "rollout":
            raise InvalidLuckConfig(
                f"the first-place share scale needs a rollout value estimate; {game}'s is "
                f"{config['value']!r}"
            )
        self.config = config
        self.seed = seed
        self.score = win_shares if scale == "share" else list
        knowledge = knowledge_for(game)
        self.evaluate = knowledge.evaluate if knowledge is not None else None
        if config["value"] == "rollout":
            self.rollouts = config["rollouts"]
            self.policy = knowledge.playout if config["policy"] == "heuristic" else _uniform

    def __call__(self, engine: Engine, step: int) -> list[float]:
        """The value of ``engine``, a child of step ``step`` (whose rollout streams it uses)."""
        if engine.is_terminal():
            return [float(r) for r in self.score(engine.returns())]
        if self.config["value"] == "heuristic":
            return [float(v) for v in self.evaluate(engine)]
        total = [0.0] * engine.num_players
        policy = self.policy
        for j in range(self.rollouts):
            world = engine.copy()
            rng = random.Random(derive_seed(self.seed, step, j))
            play_episode(world, lambda e, seat, k, r=rng: policy(e, r), sampled_chance(rng))
            for s, r in enumerate(self.score(world.returns())):
                total[s] += r
        return [t / self.rollouts for t in total]

    def streams(self, engine: Engine, step: int, seat: int) -> list[float]:
        """``seat``'s score in each of the ``rollouts`` rollouts, one per stream
        ``derive_seed(self.seed, step, j)`` (a terminal state: its score every time)."""
        if engine.is_terminal():
            return [float(self.score(engine.returns())[seat])] * self.rollouts
        policy = self.policy
        out = []
        for j in range(self.rollouts):
            world = engine.copy()
            rng = random.Random(derive_seed(self.seed, step, j))
            play_episode(world, lambda e, s, k, r=rng: policy(e, r), sampled_chance(rng))
            out.append(float(self.score(world.returns())[seat]))
        return out


def known_policy(answer: Any) -> list[tuple[int, float]] | None:
    """The distribution a decision's action was drawn from, when the bot's hint states it.

    ``None`` for a search bot's answer, a bare action id, or a policy the action is not in.
    """
    if answer is None or isinstance(answer, int) or getattr(answer, "stopped_by", "") != "policy":
        return None
    stats = [(s.action, float(s.probability)) for s in answer.policy if s.probability > 0.0]
    total = sum(p for _, p in stats)
    if total <= 0.0 or answer.action not in {a for a, _ in stats}:
        return None
    return [(a, p / total) for a, p in stats]


class LuckRecorder:
    """Accumulates a game's AIVAT corrections; ``on_step`` goes to ``play_episode``."""

    def __init__(
        self,
        defn: games.GameDefinition,
        params: dict[str, Any],
        config: dict,
        seed: int,
        scale: str = "return",
    ) -> None:
        self.config = config
        self.value = ValueEstimate(defn.name, config, seed, scale)
        n = int(params["players"])
        self.chance = [0.0] * n
        self.decisions = [0.0] * n
        self.chance_steps = 0
        self.decision_steps = 0

    def on_step(self, engine: Engine, step: Step) -> None:
        if step.player == CHANCE:
            dist = engine.chance_outcomes()
            into = self.chance
        else:
            dist = known_policy(step.answer)
            into = self.decisions
        if dist is None or len(dist) < 2:
            return  # nothing to correct: no known distribution, or no alternative
        expected = [0.0] * len(into)
        taken: list[float] | None = None
        for action, prob in dist:
            child = engine.copy()
            child.apply(action)
            v = self.value(child, step.index)
            for s, x in enumerate(v):
                expected[s] += prob * x
            if action == step.action:
                taken = v
        assert taken is not None, "the action taken is not in its distribution"
        for s in range(len(into)):
            into[s] += taken[s] - expected[s]
        if step.player == CHANCE:
            self.chance_steps += 1
        else:
            self.decision_steps += 1

    def result(self, returns: list[float]) -> dict[str, Any]:
        """The record's ``luck`` field: corrected returns and what was subtracted."""
        return {
            "corrected": [
                r - c - d for r, c, d in zip(returns, self.chance, self.decisions, strict=True)
            ],
            "chance": list(self.chance),
            "decisions": list(self.decisions),
            "steps": {"chance": self.chance_steps, "decisions": self.decision_steps},
            "value": dict(self.config),
        }


def corrected_shares(
    defn: games.GameDefinition,
    params: dict[str, Any],
    history: list[int],
    config: dict[str, Any],
    seed: int,
) -> dict[str, Any]:
    """AIVAT on the first-place share scale for a finished game, replayed from its actions.

    Only chance steps are corrected (the decisions carry no reported policy here): that is
    every correction the strength benchmark's pairings allow, since ISMCTS's moves are the
    skill measured and the heuristic's reported policy is a point mass (correction 0). The
    result is ``LuckRecorder.result`` over the seats' first-place shares.
    """
    recorder = LuckRecorder(defn, params, config, seed, scale="share")
    engine = defn.new_engine(params)
    for index, action in enumerate(history):
        if engine.current_player() == CHANCE:
            recorder.on_step(engine, Step(index, CHANCE, action))
        engine.apply(action)
    if not engine.is_terminal():
        raise ValueError("the history does not reach the end of the game")
    return recorder.result(win_shares(engine.returns()))


# --- the review's split: what chance dealt the seat, what its decisions cost ------------------
# The value estimate of ``luck_split`` per game: the first-place share scale needs rollouts
# (Modern Art's too, whose tournament default is the heuristic evaluation), played by the
# game's heuristic playout so that ``V`` is close to how a decent player goes on.
SPLIT_VALUE: dict[str, dict[str, Any]] = {
    "gallery_rush": {"value": "rollout", "rollouts": 64, "policy": "heuristic"},
    "detective_eye": {"value": "rollout", "rollouts": 64, "policy": "heuristic"},
    "finger_auction": {"value": "rollout", "rollouts": 32, "policy": "heuristic"},
    "modern_art": {"value": "rollout", "rollouts": 8, "policy": "heuristic"},
}


MAX_OUTCOMES = 8  # chance outcomes valued per step; more are sampled (``_chance_terms``)


def luck_split(
    defn: games.GameDefinition,
    params: dict[str, Any],
    record_history: Sequence[int],
    seat: int,
    config: dict[str, Any] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """``seat``'s first-place share of a finished game, split by AIVAT's control variates.

    ``V`` is a rollout estimate of every seat's first-place share (``SPLIT_VALUE``, or
    ``config``), fixed before the record is read; it sees the whole state (the review runs after
    the game). The result telescopes from ``baseline = V(start)`` along the record:

    * ``chance``: the sum over chance steps of ``V(h a_t) - sum_a p(a) V(h a)``: how much the
      card (or seat) chance actually dealt moved the seat's prospects beyond what was expected
      there. Each term has mean 0 whatever ``V`` is (Burch et al. 2018): it is pure luck.
    * ``decisions``: the sum over the seat's decisions of ``V(h a_t) - V(h r_t)``, with ``r_t``
      the move ``V``'s own policy (the game's heuristic playout) draws there from a fixed
      stream: what the seat's choices gained (positive) or cost (negative) against playing on
      as that policy would. ``V(h r_t)`` is an unbiased draw of ``V(h)``.
    * ``opponents``: the same sum over the other seats' decisions.
    * ``residual``: ``result - baseline - chance - decisions - opponents``: the estimate's own
      disagreement with itself from step to step, mean 0 (an exact ``V`` would make it 0).

    Every term is computed per rollout stream ``j`` (each estimate's ``j``-th rollout uses the
    streams ``derive_seed(seed, step, j)``, common to every alternative of a step): the split
    is the mean over the ``rollouts`` replicates and ``stderr`` (per term) their standard
    deviation over ``sqrt(rollouts)``, which counts the common streams' correlation rightly.

    Raises ``ValueError`` for a history with an illegal step or one that does not end the game,
    and a seat the game does not have.
    """
    players = int(params["players"])
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"seat must be 0..{players - 1}, got {seat!r}")
    config = luck_config(defn.name, config if config is not None else SPLIT_VALUE.get(defn.name))
    if config["value"] != "rollout":
        raise InvalidLuckConfig("the luck split needs a rollout value estimate")
    value = ValueEstimate(defn.name, config, seed, scale="share")
    k = config["rollouts"]
    engine = defn.new_engine(params)
    reps = {name: [0.0] * k for name in ("baseline", "chance", "decisions", "opponents")}
    reps["baseline"] = value.streams(engine, -1, seat)
    counted = {"chance": 0, "decisions": 0, "opponents": 0}
    for index, action in enumerate(record_history):
        player = engine.current_player()
        if engine.is_terminal():
            raise ValueError(f"the history goes on after the end of the game (step {index})")
        key, terms = _step_terms(engine, player, action, value, seed, index, seat)
        if key is not None:
            counted[key] += 1
            reps[key] = [a + b for a, b in zip(reps[key], terms, strict=True)]
        engine.apply(action)
    if not engine.is_terminal():
        raise ValueError("the history does not reach the end of the game")
    result = win_shares(engine.returns())[seat]
    reps["residual"] = [
        result - sum(reps[name][j] for name in ("baseline", "chance", "decisions", "opponents"))
        for j in range(k)
    ]
    means = {name: sum(v) / k for name, v in reps.items()}
    return {
        "seat": seat,
        "result": result,
        **means,
        "stderr": {name: _stderr(v) for name, v in reps.items()},
        "steps": counted,
        "value": dict(config),
    }


def _step_terms(
    engine: Engine,
    player: int,
    action: int,
    value: ValueEstimate,
    seed: int,
    index: int,
    seat: int,
) -> tuple[str | None, list[float]]:
    """Which term step ``index`` adds to (``None``: none, a single outcome or move) and its
    value per rollout stream; an action that is not legal there is a ``ValueError``."""
    if player == CHANCE:
        dist = engine.chance_outcomes()
        if action not in {a for a, _ in dist}:
            raise ValueError(f"step {index}: {action} is not a chance outcome here")
        if len(dist) < 2:
            return None, []
        return "chance", _chance_terms(engine, dist, action, value, seed, index, seat)
    legal = engine.legal_actions()
    if action not in legal:
        raise ValueError(f"step {index}: {action} is not a legal move of seat {player}")
    if len(legal) < 2:
        return None, []
    key = "decisions" if player == seat else "opponents"
    reference = value.policy(engine.copy(), random.Random(derive_seed(seed, "reference", index)))
    if reference == action:
        return key, [0.0] * value.rollouts
    played, other = (engine.copy(), engine.copy())
    played.apply(action)
    other.apply(reference)
    a = value.streams(played, index, seat)
    b = value.streams(other, index, seat)
    return key, [x - y for x, y in zip(a, b, strict=True)]


def _chance_terms(
    engine: Engine,
    dist: list[tuple[int, float]],
    action: int,
    value: ValueEstimate,
    seed: int,
    index: int,
    seat: int,
) -> list[float]:
    """``V(h a_t) - E_a V(h a)`` per stream. With more than ``MAX_OUTCOMES`` outcomes (Modern
    Art's deals) the expectation is the mean over ``MAX_OUTCOMES`` outcomes drawn from ``p`` by
    a stream of their own: still unbiased, since those draws never depend on ``a_t``."""

    def values(outcome: int) -> list[float]:
        child = engine.copy()
        child.apply(outcome)
        return value.streams(child, index, seat)

    taken = values(action)
    expected = [0.0] * value.rollouts
    if len(dist) <= MAX_OUTCOMES:
        weighted = dist
    else:
        rng = random.Random(derive_seed(seed, "outcomes", index))
        outcomes, probs = zip(*dist, strict=True)
        drawn = rng.choices(outcomes, probs, k=MAX_OUTCOMES)
        weighted = [(o, 1.0 / MAX_OUTCOMES) for o in drawn]
    for outcome, prob in weighted:
        v = taken if outcome == action else values(outcome)
        expected = [e + prob * x for e, x in zip(expected, v, strict=True)]
    return [t - e for t, e in zip(taken, expected, strict=True)]


def _stderr(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def luck_sentence(split: dict[str, Any]) -> str:
    """The review summary's line: ``"0.31 of a win lost to the cards, 0.08 to decisions"``
    (gains read "won from the cards" / "gained by decisions")."""

    def part(amount: float, lost: str, won: str) -> str:
        return f"{abs(amount):.2f} {lost if amount < 0 else won}"

    cards = part(split["chance"], "of a win lost to the cards", "of a win won from the cards")
    moves = part(split["decisions"], "to decisions", "gained by decisions")
    return f"{cards}, {moves}"


def review_luck(
    defn: games.GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    seed: int = 0,
    config: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The review summary's luck: ``luck_split`` of the reviewed seat, with ``sentence``.

    The review reads only the seat's information set, so the split runs on one world of it
    (``sample_engine`` from ``derive_seed(seed, "luck")``): every step the seat saw is the
    record's, and cards it never saw are a draw consistent with what it did see. Two records
    that differ only in those cards therefore get the same split, as they get the same review.
    ``None`` when the record does not reach the end of the game (nothing to split yet).
    """
    from games.core.infoset import sample_engine

    world = sample_engine(defn, params, infoset, random.Random(derive_seed(seed, "luck")))
    if not world.is_terminal():
        return None
    split = luck_split(
        defn, params, list(world.history), infoset["seat"], config, derive_seed(seed, "luck")
    )
    return {**split, "sentence": luck_sentence(split)}
