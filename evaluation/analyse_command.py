"""``atelier analyse``: the analysis of one position, or of every decision of a record
(``bots.analysis``): each candidate move's value (first-place share), its 95% interval, its
loss against the best and the search's visits.

RECORD takes the file shapes ``atelier review`` reads (``evaluation.review_command``): a saved
information set, a whole state with ``--seat``, a review request body, a tournament's games
file with ``--index``. An information set is analysed where it stands (its seat must be to
move) unless ``--every-decision``; a record given with ``--seat`` or ``--index`` (a whole
state, a games file) at every decision of the seat,
each with the move played among the candidates.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import click

import games


def positions(
    defn: games.GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    seed: int,
    every_decision: bool,
) -> list[dict[str, Any]]:
    """The steps to analyse: every decision of the seat (with the move played), or the
    information set's own position, where the seat must be to move."""
    from bots.review import plan_review
    from games.core.infoset import sample_engine

    if every_decision:
        return plan_review(defn, params, infoset, seed)["decisions"]
    world = sample_engine(defn, params, infoset, random.Random(seed))
    if world.is_terminal() or world.current_player() != infoset["seat"]:
        raise click.ClickException(
            f"seat {infoset['seat']} is not to move at the end of this record; analyse every "
            "decision of it with --every-decision"
        )
    return [{"step": len(infoset["events"])}]


def analyse_positions(
    defn: games.GameDefinition,
    params: dict[str, Any],
    infoset: dict[str, Any],
    planned: list[dict[str, Any]],
    bot: Any,
    budget: Any,
    seed: int,
    top: int,
    moves: tuple[str, ...],
    progress: Any,
) -> list[dict[str, Any]]:
    """Each planned position analysed, as the API's ``positions`` (docs/api.md, "Analysis")."""
    from bots.analysis import analyse
    from bots.review import decision_seed, infoset_before
    from games.core.infoset import sample_engine

    out = []
    for index, item in enumerate(planned):
        cut = infoset_before(infoset, item["step"])
        step_seed = decision_seed(seed, item["step"])
        world = sample_engine(defn, params, cut, random.Random(step_seed))
        include = [item["played"]["id"]] if "played" in item else []
        try:
            include += [defn.decode_action(world, m) for m in moves]
        except games.InvalidAction as err:
            raise click.BadParameter(str(err), param_hint="--move") from None
        found = analyse(defn, params, cut, bot, budget, step_seed, include=include, top=top)
        entry = {"index": index, "step": item["step"]}
        if "played" in item:
            entry["played"] = item["played"]
        out.append({**entry, "analysis": found.to_json(defn, world)})
        progress.set(index + 1, len(planned))
    return out


def format_table(done: list[dict[str, Any]]) -> str:
    """Per position: its moves, best first, with value, interval, loss and visits; the
    suggested move marked ``*``, the move played ``<- played``."""
    rows: list[str] = []
    for p in done:
        a = p["analysis"]
        played = p.get("played")
        lo, hi = a["interval"]
        head = f"step {p['step']}: value {a['value']:.3f} [{lo:.3f}, {hi:.3f}]"
        head += f", {a['iterations']} iterations"
        if played is not None:
            head += f"; played {played['string']}"
        rows += [
            head,
            f"    {'move':<30} {'value':>6} {'95% interval':>16} {'loss':>6} {'visits':>7}",
        ]
        for m in a["moves"]:
            lo, hi = m["interval"]
            mark = "*" if m["id"] == a["best"]["id"] else " "
            tail = "  <- played" if played is not None and m["id"] == played["id"] else ""
            noise = " ~" if m["within_noise"] and mark == " " else "  "
            rows.append(
                f"  {mark} {m['string'][:30]:<30} {m['value']:>6.3f} [{lo:>6.3f}, {hi:>6.3f}] "
                f"{m['loss']:>6.3f}{noise}{m['visits']:>6}{tail}"
            )
        rows.append("")
    rows.append(
        "value: first-place share of the seat (0-1); loss: the best move's value minus the "
        "move's (0 for the best); * the suggested move; ~ within noise of it"
    )
    return "\n".join(rows)


@click.command("analyse")
@click.argument("record", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--every-decision",
    is_flag=True,
    help="Every decision of the seat in the record (default for a whole-state record).",
)
@click.option("--index", type=int, default=None, help="The game's index in a games file.")
@click.option("--seat", type=int, default=None, help="The seat (not for an information set).")
@click.option("--game", default=None, help="The game, when the record does not name it.")
@click.option("--param", "-p", "param", multiple=True, help="Game parameter NAME=VALUE or JSON.")
@click.option("--bot", "bot_spec", default="ismcts", show_default=True, help="Name or JSON spec.")
@click.option("--simulations", type=int, default=200, show_default=True, help="Per position.")
@click.option("--milliseconds", type=float, default=None, help="Per position.")
@click.option("--top", type=click.IntRange(1, 32), default=8, show_default=True)
@click.option("--move", "moves", multiple=True, help="A move to analyse too (its string).")
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--json",
    "json_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the positions (as the API answers them) to this file.",
)
def analyse_command(
    record: Path,
    every_decision: bool,
    index: int | None,
    seat: int | None,
    game: str | None,
    param: tuple[str, ...],
    bot_spec: str,
    simulations: int,
    milliseconds: float | None,
    top: int,
    moves: tuple[str, ...],
    seed: int,
    json_path: Path | None,
) -> None:
    """Analyse a position of RECORD, or every decision of its seat: each candidate move's
    value with its interval, loss and visits."""
    from bots import Budget, make_bot
    from evaluation.params import parse_bot_spec, parse_params
    from evaluation.play import BotUnavailable, check_bots_can_play
    from evaluation.progress import Progress
    from evaluation.review_command import load_record

    bot = make_bot(parse_bot_spec(bot_spec))
    budget = Budget(simulations, milliseconds)
    defn, params, infoset, _ = load_record(record, index, seat, game, parse_params(param))
    whole_state = seat is not None or index is not None
    try:
        check_bots_can_play(defn, params, [bot])
    except BotUnavailable as err:
        raise click.ClickException(str(err)) from None
    if moves and (every_decision or whole_state):
        raise click.UsageError("--move names moves of one position, not of every decision")
    try:
        planned = positions(defn, params, infoset, seed, every_decision or whole_state)
        bar = Progress(f"analysing seat {infoset['seat']}", "position", total=len(planned))
        try:
            done = analyse_positions(
                defn, params, infoset, planned, bot, budget, seed, top, moves, bar
            )
        finally:
            bar.close()
    except games.InvalidInfoset as err:
        raise click.ClickException(f"{record}: {err}") from None
    click.echo(format_table(done) if done else "the seat made no decision in this record")
    if json_path is not None:
        json_path.write_text(json.dumps(done, indent=1) + "\n", encoding="utf-8")
        click.echo(f"analysis written to {json_path}")
