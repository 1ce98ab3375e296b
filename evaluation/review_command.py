"""``atelier review``: one seat's decisions in a played game, scored by a bot (``bots.review``).

The record is a tournament's games file (JSON lines; ``--index`` picks the game), a saved
information set (the seat's: ``state.to_observation_struct(seat)`` or an ``infoset`` from the
service), a whole state (``state.to_struct()``) or the API's request body for
``POST /v1/games/{game}/review`` (``{"infoset": ...}`` or ``{"state": ..., "seat": N}``, with
the review's settings). Whatever the file holds, the review reads only the reviewed seat's
information set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

import games

# What a RECORD file may hold, named whole in the error for a file that is none of them.
RECORD_SHAPES = (
    "an information set (with 'events'), a whole state (state.to_struct(), with 'history'), "
    'a review request body ({"infoset": ...} or {"state": ..., "seat": N}) or a tournament\'s '
    "games file"
)

# The API's review request body (POST /v1/games/{game}/review, docs/api.md "Game review"): the
# record it names, and the review's settings, which stand in for options not given.
REQUEST_RECORD = ("infoset", "state", "seat", "params")
REQUEST_SETTINGS = ("bot", "budget", "samples", "seed")


def load_record(
    path: Path, index: int | None, seat: int | None, game: str | None, params: dict[str, Any]
) -> tuple[games.GameDefinition, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``(definition, parameters, the seat's information set, settings)`` from a record file;
    ``settings`` are a request body's review settings (empty for any other record)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise click.ClickException(f"cannot read {path}: {err}") from None
    data = _parse(path, text, index)
    settings: dict[str, Any] = {}
    if is_request(data):
        data, seat, params, settings = unwrap_request(path, data, seat, params)
    return (*_seat_infoset(path, data, seat, game, params), settings)


def is_request(data: dict[str, Any]) -> bool:
    """An API request body, not a record: it wraps its record in ``infoset`` or ``state`` (a
    whole state, ``state.to_struct()``, has a ``state`` too, next to its ``history``)."""
    return ("infoset" in data or "state" in data) and "history" not in data and "events" not in data


def unwrap_request(
    path: Path, body: dict[str, Any], seat: int | None, params: dict[str, Any]
) -> tuple[dict[str, Any], int | None, dict[str, Any], dict[str, Any]]:
    """``(record, seat, parameters, settings)`` of a review request body, as the API reads it:
    the record is its ``infoset`` or its ``state`` with its ``seat``; its ``params`` count as
    given (``-p`` overrides them), and must agree with an information set's own."""
    shape = (
        'a review request body is {"infoset": {...}} or {"state": {...}, "seat": N} '
        f"(optional: {', '.join(REQUEST_SETTINGS)}, params)"
    )
    unknown = sorted(set(body) - set(REQUEST_RECORD) - set(REQUEST_SETTINGS))
    if unknown:
        raise click.ClickException(f"{path}: unknown field {unknown[0]!r}; {shape}")
    if "infoset" in body and "state" in body:
        raise click.ClickException(f"{path}: both 'infoset' and 'state'; {shape}")
    key = "infoset" if "infoset" in body else "state"
    record, given_params = body[key], body.get("params") or {}
    if not isinstance(record, dict) or not isinstance(given_params, dict):
        raise click.ClickException(f"{path}: '{key}' and 'params' must be JSON objects; {shape}")
    body_seat = body.get("seat")
    if seat is not None and body_seat is not None and seat != body_seat:
        raise click.ClickException(f"{path} reviews seat {body_seat}; leave out --seat {seat}")
    if key == "infoset" and body_seat is not None and body_seat != record.get("seat"):
        raise click.ClickException(
            f"{path}: field 'seat' is {body_seat} but the information set is seat "
            f"{record.get('seat')}'s (leave 'seat' out with an infoset)"
        )
    if key == "infoset":  # its seat is the reviewed seat; --seat is checked against it
        body_seat = None
    settings = {k: body[k] for k in REQUEST_SETTINGS if body.get(k) is not None}
    return record, seat if seat is not None else body_seat, {**given_params, **params}, settings


def _seat_infoset(
    path: Path, data: dict[str, Any], seat: int | None, game: str | None, params: dict[str, Any]
) -> tuple[games.GameDefinition, dict[str, Any], dict[str, Any]]:
    """``(definition, parameters, the seat's information set)`` of an information set or a
    whole-state record."""
    from bots.review import InvalidRecord, seat_infoset_of_state
    from games.core.infoset import check_envelope

    if "events" not in data and "history" not in data:
        raise click.ClickException(
            f"{path} is not a game record; give {RECORD_SHAPES}"
            + (f" (its fields: {', '.join(sorted(data)[:6])})" if data else "")
        )
    name = data.get("game") or game
    if name not in games.DEFINITIONS:
        raise click.ClickException(
            f"{path}: unknown game {name!r} (give --game); known: {sorted(games.DEFINITIONS)}"
        )
    defn = games.definition(name)
    raw = {**(data.get("params") or {}), **params}
    full = defn.validate_params(raw)
    if "events" in data:  # an information set: its seat is the reviewed seat
        if seat is not None and seat != data.get("seat"):
            raise click.ClickException(
                f"{path} is seat {data.get('seat')}'s information set; leave out --seat {seat}"
            )
        infoset = {k: v for k, v in data.items() if k != "view"}
        try:
            check_envelope(defn, full, infoset)
        except games.InvalidInfoset as err:
            raise click.ClickException(f"{path}: not a valid information set: {err}") from None
        return defn, full, infoset
    if seat is None:
        raise click.UsageError("--seat is required for a whole game record (which seat?)")
    struct = {k: v for k, v in data.items() if k in ("game", "params", "history", "state")}
    struct["params"] = full
    try:
        return defn, full, seat_infoset_of_state(defn, full, struct, seat)
    except InvalidRecord as err:
        raise click.ClickException(f"{path}: {err}") from None


def _parse(path: Path, text: str, index: int | None) -> dict[str, Any]:
    """The record: the whole file as one JSON object, or line ``index`` of a games file."""
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        if index is not None:
            raise click.UsageError("--index picks a game of a tournament's games file only")
        return whole
    records = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise click.ClickException(f"{path} line {lineno} is not JSON: {err}") from None
    if not records:
        raise click.ClickException(f"{path} holds no game record")
    if index is None:
        if len(records) > 1:
            raise click.UsageError(f"{path} holds {len(records)} games: pick one with --index")
        chosen = records[0]
    else:
        chosen = next((r for r in records if isinstance(r, dict) and r.get("index") == index), None)
        if chosen is None:
            indices = sorted(r.get("index") for r in records if isinstance(r, dict))
            raise click.ClickException(
                f"{path} has no game with index {index} (indices {indices[0]}..{indices[-1]})"
            )
    if not isinstance(chosen, dict) or "history" not in chosen:
        raise click.ClickException(
            f"{path}: the game record has no 'history' (games files written before the review "
            "existed do not keep it; rerun the tournament)"
        )
    return chosen


def format_table(review: dict[str, Any]) -> str:
    """The decisions and the summary as text."""
    mistakes = set(review["summary"]["biggest_mistakes"])
    rows = [
        f"{'#':>3} {'step':>5}  {'played':<28} {'bot':<28} {'v(played)':>9} {'v(bot)':>7} "
        f"{'lost':>7} {'95% interval':>17}"
    ]
    for d in review["decisions"]:
        lo, hi = d["interval"]
        mark = " <-" if d["index"] in mistakes else ""
        rows.append(
            f"{d['index']:>3} {d['step']:>5}  {d['played']['string'][:28]:<28} "
            f"{d['best']['string'][:28]:<28} {d['value_played']:>9.3f} {d['value_best']:>7.3f} "
            f"{d['value_lost']:>7.3f} [{lo:>6.3f}, {hi:>6.3f}]{mark}"
        )
    s = review["summary"]
    rows.append("")
    rows.append(f"value: {review['value']['measures']}; scale {review['value']['scale']}")
    if s["decisions"]:
        rows.append(
            f"{s['decisions']} decisions ({s['forced']} forced moves left out), "
            f"{s['best_played']} as the bot would; total lost {s['total_lost']:.3f}, "
            f"mean {s['mean_lost']:.3f}; accuracy {s['accuracy']:.1f}%"
        )
        rows.append(
            "biggest mistakes: "
            + (", ".join(f"#{i}" for i in s["biggest_mistakes"]) or "none (no value lost)")
        )
    else:
        rows.append("the seat made no decision in this record")
    rows.append(luck_line(s))
    return "\n".join(rows)


def luck_line(summary: dict[str, Any]) -> str:
    """The summary's luck split as one line: its sentence with the standard errors of its two
    terms (noisy: 0.1-0.3 of a win, about 1 in Modern Art), or why there is none."""
    luck = summary.get("luck")
    if luck is None:
        return f"luck: not split ({summary.get('luck_skipped', 'not computed')})"
    se = luck["stderr"]
    return (
        f"luck: {luck['sentence']} (standard errors {se['chance']:.2f} and "
        f"{se['decisions']:.2f}; result {luck['result']:.2f} of a win, "
        f"{luck['baseline']:.2f} expected at the start)"
    )


def plot(review: dict[str, Any], path: Path) -> None:
    """Value lost per decision with its 95% interval; the biggest mistakes in red."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    decisions = review["decisions"]
    mistakes = set(review["summary"]["biggest_mistakes"])
    xs = [d["index"] for d in decisions]
    ys = [d["value_lost"] for d in decisions]
    # The bar is the loss clipped at 0; an interval wholly below 0 (the played move looked
    # better than the suggested one, not by enough to replace it) is drawn from its low end
    # up to the bar (error bars cannot point the wrong way).
    low = [max(0.0, d["value_lost"] - d["interval"][0]) for d in decisions]
    high = [max(0.0, d["interval"][1] - d["value_lost"]) for d in decisions]
    colors = ["#c0392b" if d["index"] in mistakes else "#2e86c1" for d in decisions]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.25 * len(xs) + 2), 3.5))
    ax.bar(xs, ys, color=colors, yerr=[low, high], capsize=2, ecolor="#555555")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"decision of seat {review['seat']}")
    ax.set_ylabel("value lost (share of first place)")
    s = review["summary"]
    accuracy = f", accuracy {s['accuracy']:.1f}%" if s["accuracy"] is not None else ""
    ax.set_title(
        f"{review['game']}: seat {review['seat']} reviewed by {review['bot']['name']}{accuracy}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _request_settings(
    path: Path, settings: dict[str, Any], bot: Any, budget: Any, samples: int, seed: int
) -> tuple[Any, Any, int, int]:
    """A request body's ``bot``, ``budget``, ``samples`` and ``seed``, each where its option
    was not given on the command line (the options win). Unlike the API, the seed of a body
    without one is ``--seed``'s (0), not derived from the request."""
    from bots import Budget, InvalidBotSpec, InvalidBudget, make_bot
    from bots.review import MAX_SAMPLES, MIN_SAMPLES
    from evaluation.params import resolve_alias

    ctx = click.get_current_context()

    def unset(*names: str) -> bool:
        return all(ctx.get_parameter_source(n) is ParameterSource.DEFAULT for n in names)

    try:
        if "bot" in settings and unset("bot_spec"):
            bot = make_bot(resolve_alias(settings["bot"]))
        if "budget" in settings and unset("simulations", "milliseconds"):
            budget = Budget.from_json(settings["budget"])
    except (InvalidBotSpec, InvalidBudget) as err:
        raise click.ClickException(f"{path}: {err}") from None
    if "samples" in settings and unset("samples"):
        samples = settings["samples"]
        if type(samples) is not int or not MIN_SAMPLES <= samples <= MAX_SAMPLES:
            raise click.ClickException(
                f"{path}: field 'samples' must be {MIN_SAMPLES}..{MAX_SAMPLES}, got {samples!r}"
            )
    if "seed" in settings and unset("seed"):
        seed = settings["seed"]
        if type(seed) is not int or seed < 0:
            raise click.ClickException(f"{path}: field 'seed' must be a whole number >= 0")
    return bot, budget, samples, seed


@click.command("review")
@click.argument("record", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--index", type=int, default=None, help="The game's index in a games file.")
@click.option(
    "--seat", type=int, default=None, help="The seat to review (not for an information set)."
)
@click.option("--game", default=None, help="The game, when the record does not name it.")
@click.option("--param", "-p", "param", multiple=True, help="Game parameter NAME=VALUE or JSON.")
@click.option(
    "--bot",
    "bot_spec",
    default="ismcts",
    show_default=True,
    help="The reviewing bot: a name or a JSON spec.",
)
@click.option("--simulations", type=int, default=200, show_default=True, help="Per decision.")
@click.option(
    "--milliseconds", type=float, default=None, help="Per decision (whichever ends first)."
)
@click.option(
    "--samples", type=int, default=100, show_default=True, help="Paired rollouts per decision."
)
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--no-luck",
    "no_luck",
    is_flag=True,
    help="Skip the luck split of the result (seconds; about 40 s in Modern Art).",
)
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also draw the value lost per decision into this PNG.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the whole review (as the API answers it) to this file.",
)
def review(
    record: Path,
    index: int | None,
    seat: int | None,
    game: str | None,
    param: tuple[str, ...],
    bot_spec: str,
    simulations: int,
    milliseconds: float | None,
    samples: int,
    seed: int,
    no_luck: bool,
    plot_path: Path | None,
    json_path: Path | None,
) -> None:
    """Review one seat's decisions in RECORD: the move played against the bot's, in value."""
    from bots import Budget, make_bot
    from bots.review import MAX_SAMPLES, MIN_SAMPLES, review_game
    from evaluation.params import parse_bot_spec, parse_params
    from evaluation.play import BotUnavailable, check_bots_can_play
    from evaluation.progress import Progress

    if not MIN_SAMPLES <= samples <= MAX_SAMPLES:
        raise click.BadParameter(
            f"must be {MIN_SAMPLES}..{MAX_SAMPLES}, got {samples}", param_hint="--samples"
        )
    bot = make_bot(parse_bot_spec(bot_spec))
    budget = Budget(simulations, milliseconds)
    defn, params, infoset, settings = load_record(record, index, seat, game, parse_params(param))
    if settings:
        bot, budget, samples, seed = _request_settings(record, settings, bot, budget, samples, seed)
    try:
        check_bots_can_play(defn, params, [bot])
    except BotUnavailable as err:
        raise click.ClickException(str(err)) from None
    bar = Progress(f"reviewing seat {infoset['seat']}", "decision")
    try:
        result = review_game(
            defn, params, infoset, bot, budget, seed, samples, bar.set, luck=not no_luck
        )
    except games.InvalidInfoset as err:
        raise click.ClickException(f"{record}: {err}") from None
    finally:
        bar.close()
    click.echo(format_table(result))
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        click.echo(f"review written to {json_path}")
    if plot_path is not None:
        plot(result, plot_path)
        click.echo(f"plot written to {plot_path}")
