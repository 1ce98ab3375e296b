"""The ``level`` bot: difficulty levels 1-8, each a preset of the existing bots.

A client (or the play page) picks ``{"name": "level", "options": {"level": N}}`` instead of a
raw spec. Every level is a ``Preset`` built from the ``random``, ``heuristic`` and ``ismcts``
bots, weakened or strengthened by three knobs:

* **effort**: the ISMCTS simulations a move may use. A level fixes its own effort, but never
  more than the request allows: the search gets ``min(level's simulations, request's
  simulations)`` and the request's time limit, so the service's deadline always holds.
* **temperature** ``T``: instead of the base bot's move, sample from its policy at
  temperature ``T``. For ISMCTS the policy is the root's visit distribution, sharpened or
  flattened as ``p(a) ~ visits(a) ** (1 / T)`` (the temperature move selection of AlphaZero:
  D. Silver et al., "A general reinforcement learning algorithm that masters chess, shogi and
  Go through self-play", Science 362, 2018). The heuristic has ratings, not a policy, so its
  policy at temperature ``T`` is a softmax of the ratings with temperature ``T`` times their
  spread in the position (``exp((r - max) / (T * (max - min)))``), which keeps ``T``
  meaningful whatever unit a game's ratings are in (money, expected turns, points) — the same
  scale-free softmax the Finger Auction heuristic uses to model its opponent.
* **mixing**: with probability ``random_share`` play a uniformly random move instead (among
  the game's candidate moves: all legal moves, except Modern Art's money amounts, which are
  the heuristic's abstraction — a uniform draw over every amount up to a player's money is
  not a move anyone would make), and with probability ``blunder_share`` the heuristic's
  lowest-rated move. Blunders exist for Gallery Rush, where uniform play is already within
  about 230 Elo of the best bot (the game is mostly luck), so levels below it are needed to
  spread a ladder at all; Modern Art's level 1 uses them too.

Presets are per game (``PRESETS``), because the same knob weakens games by different amounts:
Gallery Rush is mostly luck, Finger Auction is not. They were tuned from measured tournaments
(docs/bots.md, "Levels") so that each level beats the one below.

Every random choice comes from the hint's seed: the mixing draw first, then the base bot's
own draws, then the temperature draw, so the same (information set, budget, seed) gives the
same move. The hint's ``extra["level"]`` says which preset played and how the move was chosen
(``move``: ``random``, ``blunder`` or the base bot); its policy is the distribution that move
was drawn from. The presets are part of the code, not of the spec: a tournament's games file
names ``{"level": N}``, so rerun calibrations after changing a preset (``--restart``).
"""

from __future__ import annotations

import functools
import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.heuristic_bot import HeuristicBot
from bots.heuristics import knowledge_for
from bots.heuristics.base import pick_best
from bots.ismcts import IsmctsBot
from bots.protocol import ActionStat, Bot, Budget, Hint, InvalidBotSpec, Worlds
from bots.random_bot import RandomBot
from games.core.definition import GameDefinition, Prior
from games.core.engine import weighted_pick
from games.core.params import InvalidParams, ParamSpec

LEVELS = range(1, 9)
DEFAULT_LEVEL = 4


@dataclass(frozen=True)
class Preset:
    """One level in one game: the base bot and how it is weakened."""

    bot: str  # "random", "heuristic" or "ismcts"
    simulations: int | None = None  # ISMCTS effort per move (capped by the request's budget)
    temperature: float = 0.0  # 0: the base bot's own move; > 0: sample its policy at T
    random_share: float = 0.0  # probability of a uniformly random (candidate) move instead
    blunder_share: float = 0.0  # probability of the heuristic's lowest-rated move instead
    options: dict[str, Any] = field(default_factory=dict)  # further ISMCTS options

    def __post_init__(self) -> None:
        if self.bot not in ("random", "heuristic", "ismcts"):
            raise ValueError(f"unknown preset base bot {self.bot!r}")
        if (self.bot == "ismcts") != (self.simulations is not None):
            raise ValueError("an ismcts preset needs simulations, other presets none")
        if (
            min(self.random_share, self.blunder_share) < 0
            or self.random_share + self.blunder_share > 1
            or self.temperature < 0
        ):
            raise ValueError("random and blunder shares must be in [0, 1], temperature >= 0")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bot": self.bot}
        if self.simulations is not None:
            out["simulations"] = self.simulations
        if self.temperature:
            out["temperature"] = self.temperature
        if self.random_share:
            out["random_share"] = self.random_share
        if self.blunder_share:
            out["blunder_share"] = self.blunder_share
        if self.options:
            out["options"] = dict(self.options)
        return out

    def plays(self) -> str:
        """How the preset plays, in a sentence a player reads (the play page's level picker)."""
        if self.bot == "random":
            return "plays a uniformly random move"
        r, b = self.random_share, self.blunder_share
        if r + b >= 1:
            return (
                f"plays the heuristic's worst-rated move {b:.0%} of the time and a uniformly "
                "random move otherwise"
            )
        if self.bot == "ismcts":
            base = (
                f"searches with ISMCTS, {self.simulations:,} simulations a move (fewer when the "
                "move's time runs out first)"
            )
        else:
            base = "plays the game's heuristic (its best-rated move)"
        if self.temperature:
            base += f", sampled from its policy at temperature {self.temperature:g}"
        mistakes = [f"a uniformly random move {r:.0%} of the time"] if r else []
        if b:
            mistakes.append(f"its worst-rated move {b:.0%} of the time")
        return base + (", but " + " and ".join(mistakes) if mistakes else "")

    def describe(self) -> str:
        """The preset in a few words, for the docs' table."""
        if self.bot == "random":
            return "random"
        base = f"ISMCTS {self.simulations} sims" if self.bot == "ismcts" else "heuristic"
        parts = [base] if self.random_share + self.blunder_share < 1 else []
        if self.temperature:
            parts.append(f"temperature {self.temperature:g}")
        if self.random_share:
            parts.append(f"{self.random_share:.0%} random moves")
        if self.blunder_share:
            parts.append(f"{self.blunder_share:.0%} worst-rated moves")
        return ", ".join(parts)


def _ladder(*presets: Preset) -> tuple[Preset, ...]:
    assert len(presets) == len(LEVELS)
    return presets


H = "heuristic"


def mix(random_share: float = 0.0, blunder_share: float = 0.0) -> Preset:
    """The heuristic with a share of random moves and a share of its worst-rated ones."""
    return Preset(H, random_share=random_share, blunder_share=blunder_share)


TOP = Preset("ismcts", simulations=1000)

# Tuned from pilot tournaments (docs/bots.md, "Levels"): in the three 28-card games at two
# players, in Modern Art at three. A random move costs a lot in Finger Auction (one bid in
# twenty costs about 160 Elo), little at the top of Detective Eye, and Gallery Rush's whole
# range from uniform play to the best bot is about 230 Elo, so its lowest levels play the
# heuristic's worst-rated move part of the time; its top level is the heuristic, since no
# search of ours beats it measurably (docs/bots.md, "Strength"). Modern Art's search is far too
# slow for a level (minutes a move at 1,000 simulations), so its top level is the heuristic.
# Gallery Rush and Modern Art were then re-spaced along their measured strength curves (Elo
# against the share of heuristic, random and worst-rated moves, interpolated between the
# presets of the first ladder) so that adjacent levels are about 70 Elo or more apart: with only
# about 240 Elo from uniform play to the heuristic in Gallery Rush, uniform play is its level
# 5, leaving three steps above it. Finger Auction's level 7 plays 2% random moves, since its
# ISMCTS (level 8) was not measurably above the plain heuristic, and the levels below moved
# down to keep their steps.
PRESETS: dict[str, tuple[Preset, ...]] = {
    "finger_auction": _ladder(
        Preset("random"), mix(0.7), mix(0.45), mix(0.27), mix(0.15), mix(0.06), mix(0.02), TOP
    ),
    "detective_eye": _ladder(
        Preset("random"), mix(0.8), mix(0.65), mix(0.45), mix(0.3), mix(0.15), Preset(H), TOP
    ),
    "gallery_rush": _ladder(
        mix(0.2, 0.8),
        mix(0.35, 0.65),
        mix(0.5, 0.5),
        mix(0.7, 0.3),
        Preset("random"),
        mix(0.75),
        mix(0.35),
        Preset(H),
    ),
    "modern_art": _ladder(
        mix(0.6, 0.4),
        Preset("random"),
        mix(0.82),
        mix(0.66),
        mix(0.45),
        mix(0.3),
        mix(0.15),
        Preset(H),
    ),
}
# Games without a ladder of their own (none today) take Finger Auction's shape.
DEFAULT_PRESETS = PRESETS["finger_auction"]


def presets_for(game: str) -> tuple[Preset, ...]:
    """The eight presets of ``game``, level 1 first."""
    return PRESETS.get(game, DEFAULT_PRESETS)


# The measured ladder of each game (docs/bots.md, "The measured ladder"): the presets it was
# measured with, the commands, and ``evaluation.levels.ladder``'s result (Elo against level 1,
# with 95% intervals). The docs' tables are rendered from it (tests/test_bots_levels.py checks
# they are) and GET /v1/games/{game}/levels serves it; ``python -m evaluation.levels --record
# GAME`` writes a new calibration into it.
MEASURED_PATH = Path(__file__).with_name("levels_measured.json")


@functools.cache
def measured_ladders() -> dict[str, Any]:
    """Every game's measured ladder, as stored in ``MEASURED_PATH``."""
    with open(MEASURED_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def measured_ladder(game: str) -> dict[str, Any] | None:
    """``game``'s measured ladder if it was measured with today's presets, else ``None`` (a
    rating measured with other presets says nothing about these)."""
    data = measured_ladders().get(game)
    if data is None or data["presets"] != [p.to_json() for p in presets_for(game)]:
        return None
    return data


def level_descriptions(game: str) -> dict[str, Any]:
    """Each level of ``game``: how it plays and its measured rating, in figures and in words.

    ``worse_than_random`` compares a level's measured Elo with the level that plays uniformly
    random moves (Gallery Rush's levels 1-4 and Modern Art's level 1 are below it by design:
    docs/bots.md); ``None`` where the game has no measured ladder or no random level.
    """
    presets = presets_for(game)
    data = measured_ladder(game)
    rows = {r["level"]: r for r in data["ladder"]["levels"]} if data else {}
    random_level = next((n for n in LEVELS if presets[n - 1].bot == "random"), None)
    floor = rows[random_level]["elo"] if random_level in rows else None
    players = data["players"] if data else None
    out = []
    for n in LEVELS:
        preset, row = presets[n - 1], rows.get(n)
        rating = None
        worse = None
        if row is not None:
            rating = {"elo": row["elo"], "elo_ci95": row["elo_ci95"], "games": row["games"]}
            if floor is not None:
                rating["above_random"] = row["elo"] - floor
                worse = preset.bot != "random" and row["elo"] < floor
        out.append(
            {
                "level": n,
                "preset": preset.to_json(),
                "plays": preset.plays(),
                "random_play": preset.bot == "random",
                "worse_than_random": worse,
                "rating": rating,
                "text": level_text(n, preset, rating, worse, players, random_level),
            }
        )
    return {
        "game": game,
        "levels": out,
        "default": DEFAULT_LEVEL,
        "random_level": random_level,
        "measured": None
        if data is None
        else {
            "players": players,
            "method": data["ladder"]["method"],
            "games": data["ladder"]["games"],
            "deals": data["ladder"]["deals"],
            "relative_to": f"level {LEVELS[0]} (Elo 0)",
            "source": "docs/bots.md, 'The measured ladder'",
        },
    }


def level_text(
    n: int,
    preset: Preset,
    rating: dict[str, Any] | None,
    worse: bool | None,
    players: int | None,
    random_level: int | None,
) -> str:
    """The level in two or three sentences: how it plays, whether that is worse than random
    play, and its measured rating."""
    plays = preset.plays()
    text = f"Level {n} {plays}."
    if worse:
        text += (
            f" Worse than random play, by design: random play is already level {random_level} here."
        )
    if rating is None:
        return text + " Not measured with this preset."
    if n == LEVELS[0]:
        text += f" Measured at {players} players: the ladder's zero (Elo 0)"
    else:
        lo, hi = rating["elo_ci95"]
        text += (
            f" Measured at {players} players: {rating['elo']:+d} Elo against level "
            f"{LEVELS[0]} (95% interval {lo:+d} to {hi:+d})"
        )
    if "above_random" in rating and random_level not in (n, LEVELS[0]):
        gap = rating["above_random"]
        text += f", {abs(gap)} Elo {'above' if gap > 0 else 'below'} random play"
    return text + "."


class LevelSpec(ParamSpec):
    """The ``level`` option: a whole number in ``LEVELS``, with an error naming the range."""

    def check(self, value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value not in LEVELS:
            raise InvalidParams(
                f"parameter '{self.name}' must be a whole number from {LEVELS[0]} to "
                f"{LEVELS[-1]}, got {value!r}"
            )
        return value


class LevelBot(Bot):
    name = "level"
    description = (
        f"Difficulty levels {LEVELS[0]}-{LEVELS[-1]}: presets of the random, heuristic and "
        "ISMCTS bots (random and worst-rated moves mixed in, search effort), calibrated per "
        "game so that each level beats the one below (docs/bots.md, 'Levels')."
    )
    options = (
        LevelSpec(
            "level",
            DEFAULT_LEVEL,
            f"difficulty, {LEVELS[0]} (weakest) to {LEVELS[-1]} (strongest); the preset per "
            "game is in docs/bots.md",
            min=LEVELS[0],
            max=LEVELS[-1],
        ),
    )

    def __init__(self, /, **options: Any) -> None:
        super().__init__(**options)
        self._bases: dict[str, Bot] = {}

    @classmethod
    def unavailable_reason(cls, defn: GameDefinition, params: dict[str, Any]) -> str | None:
        if knowledge_for(defn.name) is None:
            return f"levels are built on a game heuristic, and {defn.name} has none"
        return None

    def preset(self, game: str) -> Preset:
        return presets_for(game)[self.config["level"] - 1]

    def base(self, game: str) -> Bot:
        """The preset's base bot for ``game`` (built once per game)."""
        bot = self._bases.get(game)
        if bot is None:
            preset = self.preset(game)
            if preset.bot == "ismcts":
                bot = IsmctsBot(**preset.options)
            elif preset.bot == "heuristic":
                bot = HeuristicBot()
            else:
                bot = RandomBot()
            self._bases[game] = bot
        return bot

    def prior_for(self, game: str) -> Prior | None:
        # Worlds are sampled the way the base bot would sample them (ISMCTS's commit prior).
        return self.base(game).prior_for(game)

    def decide(self, worlds: Worlds, budget: Budget, rng: random.Random) -> Hint:
        game = worlds.game
        knowledge = knowledge_for(game)
        if knowledge is None:
            raise InvalidBotSpec(
                f"bot 'level' has no presets for game {game!r}: levels are built on a game "
                "heuristic"
            )
        preset = self.preset(game)
        level = self.config["level"]
        report: dict[str, Any] = {"level": level, "preset": preset.to_json()}
        legal = worlds.first.legal_actions()
        moves = knowledge.candidates(worlds.first, legal) if knowledge.abstracts else legal
        share = 1.0 if preset.bot == "random" else preset.random_share
        # One mixing draw, always first, so the rest of the stream does not depend on whether
        # a preset mixes. The hint's policy is the distribution its move was drawn from.
        u = rng.random()
        if u < share or len(moves) == 1:
            action = moves[int(rng.random() * len(moves))]
            p = 1.0 / len(moves)
            report["move"] = "random" if len(moves) > 1 else "single_action"
            return Hint(
                action=action,
                policy=[ActionStat(a, p) for a in moves],
                stopped_by="policy" if len(moves) > 1 else "single_action",
                extra={"level": report},
            )
        if u < share + preset.blunder_share:
            rated = knowledge.rate(worlds.first)
            action = pick_best([(a, -score) for a, score in rated], rng)
            report["move"] = "blunder"
            return Hint(
                action=action,
                policy=[ActionStat(a, 1.0 if a == action else 0.0) for a, _ in rated],
                stopped_by="policy",
                extra={"level": report, "scores": {str(a): round(r, 6) for a, r in rated}},
            )
        hint = self.base(game).decide(worlds, self.effort(preset, budget), rng)
        report["move"] = preset.bot
        if preset.temperature:
            hint = tempered(hint, preset, rng)
            report["move"] = f"{preset.bot} at temperature {preset.temperature:g}"
        hint.extra = {**hint.extra, "level": report}
        return hint

    @staticmethod
    def effort(preset: Preset, budget: Budget) -> Budget:
        """The preset's simulations, within the request's budget (its time limit kept)."""
        if preset.simulations is None:
            return budget
        sims = preset.simulations
        if budget.simulations is not None:
            sims = min(sims, budget.simulations)
        return Budget(simulations=sims, milliseconds=budget.milliseconds)


def tempered(hint: Hint, preset: Preset, rng: random.Random) -> Hint:
    """``hint`` with its move drawn from its policy at the preset's temperature.

    ISMCTS: visit shares to the power ``1 / T``. Heuristic (a one-hot policy): a softmax of
    the ratings (``hint.extra["scores"]``) at ``T`` times their spread.
    """
    t = preset.temperature
    actions = [s.action for s in hint.policy]
    if preset.bot == "heuristic":
        scores = hint.extra["scores"]
        rated = [scores[str(a)] for a in actions]
        top, spread = max(rated), max(rated) - min(rated)
        weights = (
            [math.exp((r - top) / (t * spread)) for r in rated]
            if spread > 0
            else [1.0] * len(rated)
        )
    else:
        # ISMCTS: its visit shares (whatever mixed policy its ``final_policy`` reports), so the
        # draw is the one documented above; bots without visits: their reported policy.
        visits = [s.visits for s in hint.policy]
        if all(v is not None for v in visits) and sum(visits):
            shares = [v / sum(visits) for v in visits]
        else:
            shares = [s.probability for s in hint.policy]
        weights = [p ** (1.0 / t) if p > 0 else 0.0 for p in shares]
    total = math.fsum(weights)
    probs = [w / total for w in weights]
    action = weighted_pick(list(zip(actions, probs, strict=True)), rng.random())
    policy = [
        ActionStat(s.action, p, visits=s.visits, value=s.value)
        for s, p in zip(hint.policy, probs, strict=True)
    ]
    return Hint(
        action=action,
        policy=policy,
        value=hint.value,
        iterations=hint.iterations,
        elapsed_ms=hint.elapsed_ms,
        stopped_by=hint.stopped_by,
        extra=hint.extra,
    )


def presets_table() -> str:
    """Every game's presets as a Markdown table (docs/bots.md shows it, checked)."""
    names = sorted(PRESETS)
    lines = ["| level | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for n in LEVELS:
        cells = [presets_for(g)[n - 1].describe() for g in names]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
