"""``atelier profile``: fit a seat's opponent profile from game records (``bots.profiles.fit``).

RECORDS are files of any of these shapes (several files add up; every record must be of one
game and one player count):

* a tournament's games file (JSON lines with ``history``): the seat is ``--seat``, or the seat
  where ``--label`` sat in each game (seats rotate over a tournament's games);
* a whole state (``state.to_struct()``: ``game``, ``params``, ``history``);
* a match as ``GET /v1/matches/{id}`` returns it with a seat's token (its ``infoset``): the
  other seats' cards are hidden there, so each match counts as ``--worlds`` worlds sampled
  consistently with that information set, and its likelihood is their mean (for the fitted
  seat's own information set, as for the public games, every world gives the same answer).

The output is the fit as JSON: ``profile`` is the object the APIs take (the ``ismcts`` option
``opponents``, the hint request's ``profiles``: ``{"<seat>": profile}``), with its 95%
``intervals``, the log-likelihoods of the fit and of the plain heuristic, and the evidence.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import click

import games

WORLDS_DEFAULT = 16


@click.command("profile")
@click.argument("records", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--seat", type=int, default=None, help="The seat to fit (every record).")
@click.option(
    "--label",
    default=None,
    help="Tournament games files: fit the seat where the bot with this label sat.",
)
@click.option(
    "--tendency",
    "only",
    multiple=True,
    help="Fit only these tendencies (repeat; the others stay neutral). Default: all.",
)
@click.option(
    "--epsilon",
    type=click.FloatRange(0.001, 0.999),
    default=0.05,
    show_default=True,
    help="Trembling floor: each move's likelihood is (1 - eps) * pi + eps / |legal|.",
)
@click.option(
    "--worlds",
    type=click.IntRange(1, 1000),
    default=WORLDS_DEFAULT,
    show_default=True,
    help="Worlds sampled per match record with hidden cards.",
)
@click.option("--seed", default=0, show_default=True, help="Seed of the sampled worlds.")
def profile(
    records: tuple[str, ...],
    seat: int | None,
    label: str | None,
    only: tuple[str, ...],
    epsilon: float,
    worlds: int,
    seed: int,
) -> None:
    """Fit a seat's opponent profile (tendencies) from game RECORDS by maximum likelihood."""
    from bots.heuristics import knowledge_for
    from bots.profiles.fit import TooFewDecisions, fit_profile
    from bots.profiles.tendencies import InvalidProfile, tendencies_of

    if (seat is None) == (label is None):
        raise click.UsageError("give the seat to fit: --seat N or --label LABEL (one of them)")
    loaded: list[tuple[str, dict[str, Any], list[Any]]] = []
    rng = random.Random(seed)
    for path in records:
        loaded.extend(read_records(Path(path), seat, label, worlds, rng))
    names = {(g, json.dumps(p, sort_keys=True)) for g, p, _ in loaded}
    if len(names) > 1:
        raise click.ClickException(
            "the records are of more than one game or setting: "
            + "; ".join(sorted(f"{g} {p}" for g, p in names))
        )
    game = loaded[0][0]
    try:
        known = [t.name for t in tendencies_of(game)]
    except InvalidProfile as err:
        raise click.ClickException(str(err)) from None
    wrong = [t for t in only if t not in known]
    if wrong:
        raise click.BadParameter(f"{wrong[0]!r} is no tendency of {game}; known: {known}")
    fitted_seats = {s for _, _, recs in loaded for s, _ in recs}
    try:
        fit = fit_profile(
            knowledge_for(game),  # type: ignore[arg-type]
            [worlds_of for _, _, recs in loaded for _, worlds_of in recs],
            next(iter(fitted_seats)) if len(fitted_seats) == 1 else -1,
            epsilon,
            only or None,
        )
    except TooFewDecisions as err:
        raise click.ClickException(str(err)) from None
    out = fit.to_json()
    if len(fitted_seats) > 1:
        out["seat"] = sorted(fitted_seats)
    click.echo(json.dumps(out, indent=2))


def read_records(
    path: Path, seat: int | None, label: str | None, worlds: int, rng: random.Random
) -> list[tuple[str, dict[str, Any], list[tuple[int, list[Any]]]]]:
    """``(game, params, [(seat, worlds' decisions)])`` of every record in one file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise click.ClickException(f"cannot read {path}: {err}") from None
    try:
        whole = json.loads(text)
        items = [(None, whole)]
    except json.JSONDecodeError:
        items = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                items.append((lineno, json.loads(line)))
            except json.JSONDecodeError as err:
                raise click.ClickException(f"{path} line {lineno} is not JSON: {err}") from None
    if not items:
        raise click.ClickException(f"{path} holds no game record")
    out = []
    for lineno, data in items:
        where = f"{path}" + (f" line {lineno}" if lineno is not None else "")
        game, params, fitted, decisions = _one_record(where, data, seat, label, worlds, rng)
        out.append((game, params, [(fitted, decisions)]))
    return out


def _one_record(
    where: str,
    data: Any,
    seat: int | None,
    label: str | None,
    worlds: int,
    rng: random.Random,
) -> tuple[str, dict[str, Any], int, list[Any]]:
    """One record's game, parameters, fitted seat and its decisions in each world."""
    from bots.profiles.fit import decisions_of
    from games.core.infoset import sample_engine
    from games.core.spiel import engine_from_struct

    shape = (
        "a record is a tournament games-file line or a whole state (with 'history'), or a "
        "match as GET /v1/matches/{id} returns it with a seat's token (with 'infoset')"
    )
    if not isinstance(data, dict) or ("history" not in data and "infoset" not in data):
        if isinstance(data, dict) and "events" in data and "match_id" in data:
            raise click.ClickException(
                f"{where}: this match view has only the public events; fetch it with a seat's "
                "X-Seat-Token so that it carries that seat's 'infoset'"
            )
        raise click.ClickException(f"{where} is not a game record; {shape}")
    name = data.get("game")
    if name not in games.DEFINITIONS:
        raise click.ClickException(
            f"{where}: unknown game {name!r}; known: {sorted(games.DEFINITIONS)}"
        )
    defn = games.definition(name)
    try:
        params = defn.validate_params(data.get("params") or {})
    except games.InvalidParams as err:
        raise click.ClickException(f"{where}: {err}") from None
    fitted = _fitted_seat(where, data, seat, label, params["players"])
    if "history" in data:
        struct = {"game": name, "params": params, "history": data["history"]}
        try:
            engine_from_struct(defn, params, struct)  # checks every action of the history
        except (ValueError, TypeError) as err:
            raise click.ClickException(f"{where}: not a playable history: {err}") from None
        history = [int(a) for a in data["history"]]
        return name, params, fitted, [decisions_of(defn.new_engine(params), history, fitted)]
    infoset = data["infoset"]
    try:
        sampled = [sample_engine(defn, params, infoset, rng) for _ in range(worlds)]
    except (games.InvalidInfoset, ValueError) as err:
        raise click.ClickException(f"{where}: not a valid information set: {err}") from None
    return (
        name,
        params,
        fitted,
        [decisions_of(defn.new_engine(params), list(w.history), fitted) for w in sampled],
    )


def _fitted_seat(
    where: str, data: dict[str, Any], seat: int | None, label: str | None, players: int
) -> int:
    if label is not None:
        labels = data.get("seats")
        if not isinstance(labels, list) or label not in labels:
            raise click.ClickException(
                f"{where}: no seat labelled {label!r}"
                + (f" (seats: {labels})" if isinstance(labels, list) else " (not a games file)")
            )
        return labels.index(label)
    assert seat is not None
    if not 0 <= seat < players:
        raise click.ClickException(
            f"{where}: seat {seat} does not exist in a {players}-player game (0..{players - 1})"
        )
    return seat
