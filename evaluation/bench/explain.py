"""``atelier bench explain``: what an explained hint costs next to the hint's own search.

For every game and player count, a few decisions of heuristic self-play games (in the phases
the explanations have most to say about); at each, an ``ismcts`` hint with a time budget (the
reference, 500 ms by default) and ``bots.explain.explain_hint`` on the same information set.
The ratio of the two, measured in the same run, is the figure to read (machines are shared).
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

import bots
import games
from bots.explain import explain_hint
from bots.explain.example import PHASES, heuristic_decision
from games.core.infoset import build_infoset, sample_engine


def measure(game: str, players: int, states: int, budget_ms: float, seed: int) -> dict[str, Any]:
    hint_ms, explain_ms = [], []
    bot = bots.make_bot("ismcts")
    for i in range(states):
        defn, params, engine = heuristic_decision(game, seed + i, players)
        seat = engine.current_player()
        infoset = build_infoset(defn, params, engine, seat, with_view=False)
        started = time.perf_counter()
        hint = bot.hint(defn, params, infoset, bots.Budget(milliseconds=budget_ms), seed)
        hint_ms.append((time.perf_counter() - started) * 1000.0)
        world = sample_engine(defn, params, infoset, random.Random(seed))
        answer = hint.to_json(defn, world)
        started = time.perf_counter()
        explain_hint(
            defn,
            world,
            seat,
            answer,
            params=params,
            infoset=infoset,
            bot=bot.spec(),
            seed=seed,
            budget={"milliseconds": budget_ms},
        )
        explain_ms.append((time.perf_counter() - started) * 1000.0)
    ratios = [e / h for e, h in zip(explain_ms, hint_ms, strict=True)]
    return {
        "game": game,
        "players": players,
        "states": states,
        "hint_ms_median": round(statistics.median(hint_ms), 1),
        "explain_ms_median": round(statistics.median(explain_ms), 1),
        "explain_ms_max": round(max(explain_ms), 1),
        "ratio_median": round(statistics.median(ratios), 3),
        "ratio_max": round(max(ratios), 3),
    }


def run(
    names: tuple[str, ...], states: int, budget_ms: float, seed: int, all_players: bool
) -> list[dict[str, Any]]:
    rows = []
    for game in names or tuple(PHASES):
        defn = games.definition(game)
        counts = (
            range(defn.min_players, defn.max_players + 1) if all_players else (defn.min_players,)
        )
        rows.extend(measure(game, n, states, budget_ms, seed) for n in counts)
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'game':<16}{'players':>8}{'states':>8}{'hint ms':>10}{'explain ms':>12}"
        f"{'max ms':>9}{'ratio':>8}{'max':>8}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['game']:<16}{r['players']:>8}{r['states']:>8}{r['hint_ms_median']:>10}"
            f"{r['explain_ms_median']:>12}{r['explain_ms_max']:>9}{r['ratio_median']:>8}"
            f"{r['ratio_max']:>8}"
        )
    return "\n".join(lines)
