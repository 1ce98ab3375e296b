"""Do two bots choose the same moves? Their agreement against one bot's own seed-to-seed noise.

``atelier bench agreement --game G --players N --bot A --against B --budget 600`` plays
games with the game's heuristic in every seat (chance and seeds from ``--seed``), as many as
it takes, and takes every ``every``-th decision with more than one legal action as a
position, up to ``positions`` per player count. At each position it asks for three hints at
the same budget: A's, B's, and B's again with another seed (the reference). It reports how
often A picks B's move next to how often B picks its own (the noise floor), and the paired
difference with a 95% interval.

Why: a strength row against a search this close to ours takes hours of games and still has
intervals of +-0.25 (a 500 ms Modern Art game is 3-7 minutes here). A move-level comparison
tells in minutes whether the two bots play differently at all. When A agrees with B as often
as B agrees with itself, A plays like B up to B's own noise at this budget, and games between
them measure mostly the deals and that noise; a difference shows up in games only when A
agrees with B less than B does with itself.

With ``--judge-budget`` a third search, the judge (``--judge``; default: ``ismcts`` with its
defaults) at a larger budget, answers each position where A and B differ, and the report gives
the share of those where the judge's move is A's among those where it is A's or B's: above 0.5
says A's moves are the better ones by the judge's lights (which, at a budget 10x A's, favours
neither bot by construction, though it shares both bots' rollouts).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyspiel

import games
from bots.protocol import Budget
from bots.registry import make_bot
from evaluation.bench.beliefs import mean_interval
from evaluation.bench.strength import budget_label, wilson
from evaluation.params import resolve_alias


class NoPositions(ValueError):
    """The heuristic's games of this setting offer no decision with a choice."""


SEED_STRIDE = 1_000_003  # the reference's seed: far from every seed A and B use


@dataclass(frozen=True)
class Position:
    """One decision of a heuristic-played game."""

    state: pyspiel.State
    seed: int  # the searches' seed here


def positions(game: pyspiel.Game, wanted: int, every: int, seed: int) -> Iterator[Position]:
    """``wanted`` positions: every ``every``-th decision with a choice of heuristic games.

    The heuristic plays every seat so that the positions are ones real games reach, and the same
    seed gives the same positions whatever the bots measured.
    """
    heuristic = make_bot("heuristic")
    rng = random.Random(seed)
    found = decisions = 0
    while found < wanted:
        state = game.new_initial_state()
        before = decisions
        while not state.is_terminal() and found < wanted:
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            if len(state.legal_actions()) > 1:
                if decisions % every == 0:
                    found += 1
                    yield Position(state.clone(), seed * SEED_STRIDE + found)
                decisions += 1
            move = heuristic.hint_for_state(state, Budget(simulations=1), seed=rng.randrange(2**31))
            state.apply_action(move.action)
        if decisions == before:  # a game without a single choice: more deals would not help
            return


def _label(spec: Any) -> str:
    return spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True)


def measure_row(
    game: pyspiel.Game,
    bot_a: Any,
    bot_b: Any,
    budget: Budget,
    wanted: int,
    every: int,
    seed: int,
    judge: Any = "ismcts",
    judge_budget: Budget | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """One player count's row (see the module docstring)."""
    from tqdm import tqdm

    a, b = make_bot(resolve_alias(bot_a)), make_bot(resolve_alias(bot_b))
    referee = make_bot(resolve_alias(judge)) if judge_budget else None
    same_ab: list[int] = []
    same_bb: list[int] = []
    judged = {"a": 0, "b": 0, "neither": 0}
    players = game.num_players()
    with tqdm(total=wanted, desc=f"{players} players", disable=not progress, leave=False) as bar:
        for position in positions(game, wanted, every, seed):
            move_a = a.hint_for_state(position.state, budget, seed=position.seed).action
            move_b = b.hint_for_state(position.state, budget, seed=position.seed).action
            again = b.hint_for_state(position.state, budget, seed=position.seed + SEED_STRIDE)
            same_ab.append(int(move_a == move_b))
            same_bb.append(int(again.action == move_b))
            if referee is not None and judge_budget is not None and move_a != move_b:
                verdict = referee.hint_for_state(position.state, judge_budget, seed=position.seed)
                side = {move_a: "a", move_b: "b"}.get(verdict.action, "neither")
                judged[side] += 1
            bar.update()
    n = len(same_ab)
    if n == 0:
        raise NoPositions(
            f"no position found: the heuristic's games have no decision with a choice "
            f"every {every} decisions"
        )
    agree_ab, agree_bb = sum(same_ab) / n, sum(same_bb) / n
    diff, low, high = mean_interval([x - y for x, y in zip(same_ab, same_bb, strict=True)])
    row: dict[str, Any] = {
        "players": players,
        "positions": n,
        "a_agrees_with_b": agree_ab,
        "a_agrees_with_b_ci": list(wilson(agree_ab, n)),
        "b_agrees_with_itself": agree_bb,
        "b_agrees_with_itself_ci": list(wilson(agree_bb, n)),
        "difference": diff,
        "difference_ci": [low, high],
    }
    if judge_budget is not None:
        decided = judged["a"] + judged["b"]
        share = judged["a"] / decided if decided else float("nan")
        row["judged"] = dict(judged)
        row["judge_prefers_a"] = share
        row["judge_prefers_a_ci"] = list(wilson(share, decided)) if decided else None
    return row


def run(
    name: str,
    players: list[int],
    bot_a: Any,
    bot_b: Any,
    budget: dict[str, float | int],
    wanted: int = 50,
    every: int = 9,
    seed: int = 0,
    judge: Any = "ismcts",
    judge_budget: dict[str, float | int] | None = None,
    params: dict[str, Any] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """The report: one row per player count."""
    defn = games.definition(name)
    rows = []
    for count in players:
        game_params = defn.validate_params({**(params or {}), "players": count})
        game = pyspiel.load_game(name, game_params)
        rows.append(
            measure_row(
                game,
                bot_a,
                bot_b,
                Budget(**budget),
                wanted,
                every,
                seed,
                judge,
                Budget(**judge_budget) if judge_budget else None,
                progress,
            )
        )
    return {
        "game": name,
        "a": _label(bot_a),
        "b": _label(bot_b),
        "budget": budget_label(budget),
        "judge": _label(judge) if judge_budget else None,
        "judge_budget": budget_label(judge_budget) if judge_budget else None,
        "seed": seed,
        "rows": rows,
    }


def _interval(low: float, high: float) -> str:
    return f"[{low:.2f}, {high:.2f}]"


def _difference(row: dict[str, Any]) -> str:
    low, high = row["difference_ci"]
    if low is None:  # one position: no interval
        return f"{row['difference']:+.3f}"
    return f"{row['difference']:+.3f} [{low:+.2f}, {high:+.2f}]"


def format_table(report: dict[str, Any]) -> str:
    """A markdown table: A against B, B against itself, the difference, the judge's verdict."""
    judged = report.get("judge_budget") is not None
    head = f"{report['game']} at {report['budget']}: A = {report['a']}; B = {report['b']}"
    lines = [head]
    if judged:
        lines.append(f"judge: {report['judge']} at {report['judge_budget']}")
    cols = ["players", "positions", "A = B", "B = B (another seed)", "difference"]
    if judged:
        cols += ["A != B: judge picks A / B / neither", "judge prefers A"]
    lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in report["rows"]:
        cells = [
            str(row["players"]),
            str(row["positions"]),
            f"{row['a_agrees_with_b']:.3f} {_interval(*row['a_agrees_with_b_ci'])}",
            f"{row['b_agrees_with_itself']:.3f} {_interval(*row['b_agrees_with_itself_ci'])}",
            _difference(row),
        ]
        if judged:
            j = row["judged"]
            cells.append(f"{j['a']} / {j['b']} / {j['neither']}")
            ci = row["judge_prefers_a_ci"]
            share = row["judge_prefers_a"]
            cells.append(f"{share:.3f} {_interval(*ci)}" if ci else "no position")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
