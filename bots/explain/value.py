"""What a hint's bare ``value`` measures, per game and bot, in words (docs/api.md).

A search bot's value is the seat's expected *return*, and returns differ by game: the 28-card
games pay a sole winner +1 and split -1 among the losers (``games.paintings.shared_returns``),
Modern Art pays the seed's points table by final money (or the final money itself, with
``payoff: "money"``). So "0.176" is an expected return in those units; this module says which
units, their scale and what this value means for the seat's chances.
"""

from __future__ import annotations

from typing import Any

from games.core.explain import percent

# What each bot's value is, when it reports one.
SEARCHED = {
    "ismcts": "the mean return of the search's simulated games through the suggested move",
    "oos": "the mean return of the sampled trajectories (exploration moves included: rough)",
}
NO_VALUE = {
    "heuristic": "the heuristic bot rates moves by its own rules (stats.scores) and estimates "
    "no value",
    "random": "the random bot picks uniformly and estimates no value",
    "cfr": "the cfr bot plays a stored equilibrium strategy and reports no value",
}


def value_meaning(
    game: str, params: dict[str, Any], bot: str, value: float | None, stopped_by: str
) -> dict[str, Any]:
    """``{"measures", "scale", "text"}`` for a hint's ``value``."""
    n = int(params.get("players", 2))
    units, scale, reading = _units(game, params, n)
    how = SEARCHED.get(bot, f"bot {bot!r}'s estimate of your expected return")
    if value is None:
        if stopped_by == "single_action":
            why = "there is only one legal move, so nothing was searched"
        else:
            why = NO_VALUE.get(bot, f"bot {bot!r} reports no value for this hint")
        return {"measures": None, "scale": scale, "text": f"No value: {why}."}
    return {"measures": f"{units}: {how}", "scale": scale, "text": reading(value)}


def _units(game: str, params: dict[str, Any], n: int):
    if game == "modern_art":
        if params.get("payoff", "points") == "money":
            start = params.get("money", 100)
            return (
                "expected final money",
                f"money, from 0 up; everyone starts with {start}",
                lambda v: f"{v:.1f}: the bot expects you to finish with about {v:.0f} money.",
            )
        table = {3: (3, 0), 4: (4, 0), 5: (5, 4)}.get(n, (n, 0))
        even = sum(table) / n
        first, second = table
        places = f"{first} for first" + (f", {second} for second" if second else "")
        scale = f"0 to {first} ({places}; ties share); {even:g} is an even share among {n}"

        def reading(v: float) -> str:
            side = "more" if v > even else "less" if v < even else "exactly"
            line = f"{v:.3g} expected points: {side} than an even share ({even:g})"
            if not second:
                line += f"; about a {percent(max(0.0, min(1.0, v / first)))} share of first place"
            return line + "."

        return "expected points of the seed's table", scale, reading
    lose = 1.0 / (n - 1)
    scale = (
        f"-1 to 1: +1 for a sole win (shared wins split it), -{lose:.3g} for a loss (the losers "
        f"share -1); 0 is an even share among {n}"
    )

    def reading(v: float) -> str:
        # With no shared wins, E = p - (1 - p) / (n - 1), so p = ((n - 1) E + 1) / n.
        p = max(0.0, min(1.0, ((n - 1) * v + 1.0) / n))
        return (
            f"{v:.3g}: about a {percent(p)} chance to win (counting shared wins as part wins); "
            f"an even share is {percent(1.0 / n)}."
        )

    return "expected return (win +1, the losers share -1)", scale, reading
