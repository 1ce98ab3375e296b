"""``atelier bench blunders``: what the review flags, on scripted blunders and on good play.

Issue 38, target 1 (``evaluation.blunders`` holds the set and how it is built). Two rates per
game, at the review's default settings (``bots.review``'s default budget and samples, the
``ismcts`` bot that ``atelier review`` uses):

* **flag rate**: of the game's stored blunders, the share the review flags (its paired loss
  interval lies above 0), reviewing the blunder's decision on the seat's information set;
* **false-flag rate**: of the decisions of ``--records`` games in which the reviewed seat
  played ``ismcts``'s hint (the review's budget, a seed of its own per decision) against the
  heuristic, the share the review flags. The target: at least 80% and at most 5%.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import click

import games
from bots.heuristics import knowledge_for
from evaluation.blunders import DATA, GAMES, Blunder, BlunderError, load, replay_entry
from games.core.definition import GameDefinition
from games.core.engine import CHANCE, Engine
from games.core.infoset import build_infoset
from games.core.seeds import derive_seed


# --- the review's verdicts ----------------------------------------------------------------------
def review_defaults() -> tuple[Any, Any, int]:
    """The review's default bot, budget and samples (``atelier review``'s defaults)."""
    import bots
    from bots import review

    return bots.make_bot("ismcts"), review.DEFAULT_BUDGET, review.DEFAULT_SAMPLES


def flagged(decision: dict[str, Any]) -> bool:
    """The review flags a decision when its loss interval lies above 0 (issue 38)."""
    return decision["interval"][0] > 0.0


def review_blunder(
    blunder: Blunder, bot: Any, budget: Any, samples: int, seed: int = 0
) -> dict[str, Any]:
    """The review's verdict on the blunder: ``bots.review.review_decision``, the one decision
    of the review (what ``review_game`` and the service run per decision) on the seat's
    information set before it, so that a blunder deep in a game costs one decision's review."""
    from bots.review import review_decision

    return review_decision(
        blunder.defn,
        blunder.params,
        blunder.infoset(),
        blunder.action,
        bot,
        budget,
        derive_seed(seed, "blunder", len(blunder.entry["history"])),
        samples,
    )


def follower_record(
    defn: GameDefinition, params: dict[str, Any], seat: int, bot: Any, budget: Any, seed: int
) -> Engine:
    """A game where ``seat`` plays ``bot``'s hint at every decision (its own seed per decision,
    not the review's) and the other seats the heuristic, chance from ``seed``."""
    knowledge = knowledge_for(defn.name)
    rng = random.Random(derive_seed(seed, "play"))
    engine = defn.new_engine(params)
    while not engine.is_terminal():
        player = engine.current_player()
        if player == CHANCE:
            engine.apply(engine.sample_chance(rng))
        elif player == seat and len(engine.legal_actions()) > 1:
            infoset = build_infoset(defn, params, engine, seat, with_view=False)
            step = len(engine.history)
            engine.apply(
                bot.hint(defn, params, infoset, budget, derive_seed(seed, "hint", step)).action
            )
        else:
            engine.apply(knowledge.playout(engine, rng))
    return engine


def false_flags(
    game: str, records: int, bot: Any, budget: Any, samples: int, seed: int = 0
) -> dict[str, Any]:
    """Reviews of ``records`` games where the seat (seat ``i % players`` of game ``i``) followed
    ``bot``'s hints: decisions flagged out of decisions reviewed."""
    from bots.review import review_game

    defn = games.definition(game)
    params = defn.validate_params({})
    flagged_n = total = 0
    for i in range(records):
        seat = i % params["players"]
        record = follower_record(defn, params, seat, bot, budget, derive_seed(seed, "record", i))
        infoset = build_infoset(defn, params, record, seat, with_view=False)
        review = review_game(  # flags only: no luck split (seconds to a minute a record)
            defn, params, infoset, bot, budget, derive_seed(seed, "review", i), samples, luck=False
        )
        total += len(review["decisions"])
        flagged_n += sum(1 for d in review["decisions"] if flagged(d))
    return {
        "records": records,
        "decisions": total,
        "flagged": flagged_n,
        "rate": _rate(flagged_n, total),
    }


def blunder_flags(
    game: str, entries: list[dict[str, Any]], bot: Any, budget: Any, samples: int, seed: int = 0
) -> dict[str, Any]:
    """The review's verdict on each of ``game``'s blunders: flagged out of reviewed."""
    results = []
    for entry in entries:
        decision = review_blunder(replay_entry(entry), bot, budget, samples, seed)
        results.append(
            {
                "rule": entry["rule"],
                "blunder": entry["blunder"]["string"],
                "confirmed_loss": entry["confirm"]["loss"],
                "value_lost": decision["value_lost"],
                "interval": decision["interval"],
                "flagged": flagged(decision),
                # the review's first estimate when it flagged, and whether the second agreed
                "screen_interval": (decision["screen"] or {}).get("interval"),
                "confirmed": decision["confirmed"],
            }
        )
    hits = sum(1 for r in results if r["flagged"])
    return {
        "blunders": len(results),
        "flagged": hits,
        "rate": _rate(hits, len(results)),
        "items": results,
    }


def _rate(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


def rates(
    names: list[str] | None = None,
    limit: int | None = None,
    records: int = 2,
    budget: Any = None,
    samples: int | None = None,
    seed: int = 0,
    path: Path = DATA,
) -> dict[str, Any]:
    """Both rates per game at the review's defaults (``budget``/``samples`` override them;
    ``limit`` takes the first blunders of each game only): the report of ``atelier bench
    blunders``."""
    bot, default_budget, default_samples = review_defaults()
    budget = budget or default_budget
    samples = samples or default_samples
    stored = load(path)
    report: dict[str, Any] = {
        "budget": budget.to_json(),
        "samples": samples,
        "records": records,
        "games": {},
    }
    for game in names or list(GAMES):
        if game not in stored:
            raise BlunderError(f"the blunder set has no {game!r}; it has {sorted(stored)}")
        entries = stored[game][:limit] if limit else stored[game]
        report["games"][game] = {
            "blunders": blunder_flags(game, entries, bot, budget, samples, seed),
            "followers": false_flags(game, records, bot, budget, samples, seed)
            if records
            else None,
        }
    return report


def format_table(report: dict[str, Any]) -> str:
    """One line per game: flag rate on the blunders, false-flag rate on the followers."""
    lines = [f"{'game':<16}{'blunders flagged':>20}{'follower decisions flagged':>30}"]
    for game, row in report["games"].items():
        b = row["blunders"]
        f = row["followers"]
        right = f"{f['flagged']}/{f['decisions']} ({_pct(f['rate'])})" if f else "-"
        left = f"{b['flagged']}/{b['blunders']} ({_pct(b['rate'])})"
        lines.append(f"{game:<16}{left:>20}{right:>30}")
    return "\n".join(lines)


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.0f}%"


@click.command("blunders")
@click.argument("names", nargs=-1, type=click.Choice(GAMES))
@click.option("--limit", type=int, default=None, help="The first N blunders of each game only.")
@click.option(
    "--records", default=2, show_default=True, help="Games per game where the seat follows hints."
)
@click.option("--simulations", type=int, default=None, help="Per decision (default: the review's).")
@click.option("--samples", type=int, default=None, help="Paired rollouts (default: the review's).")
@click.option("--seed", default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_blunders(
    names: tuple[str, ...],
    limit: int | None,
    records: int,
    simulations: int | None,
    samples: int | None,
    seed: int,
    as_json: bool,
) -> None:
    """The review's flag rate on the scripted blunders and its false-flag rate on records
    where the seat played the bot's hints, per game (issue 38, target 1)."""
    from bots import Budget
    from evaluation.params import echo_report

    budget = None
    if simulations is not None:
        from bots.review import DEFAULT_BUDGET

        budget = Budget(simulations, DEFAULT_BUDGET.milliseconds)
    try:
        report = rates(list(names) or None, limit, records, budget, samples, seed)
    except BlunderError as err:
        raise click.ClickException(str(err)) from None
    echo_report(report, as_json, format_table)
