"""``atelier tournament`` and ``atelier bench tournament``: the command-line faces.

Every failure a user can cause (unknown game, bot, parameter or option; an output file of
another tournament; an unreachable cluster) ends as one readable message, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

import games
from bots import search_clock
from evaluation.params import echo_report, parse_params


def output_paths(out: Path, summary: Path | None) -> tuple[Path, Path, Path]:
    """``results.jsonl`` -> ``results.summary.json``, ``results.ratings.png``,
    ``results.pairwise.png`` (next to the games file unless ``--summary`` says otherwise)."""
    base = out.with_suffix("") if out.suffix in (".jsonl", ".json", ".ndjson") else out
    summary = summary or base.with_name(base.name + ".summary.json")
    sbase = summary.with_name(summary.name.removesuffix(".json").removesuffix(".summary"))
    return (
        summary,
        sbase.with_name(sbase.name + ".ratings.png"),
        sbase.with_name(sbase.name + ".pairwise.png"),
    )


@click.command("tournament")
@click.argument("game", type=click.Choice(sorted(games.DEFINITIONS)))
@click.option(
    "--bot",
    "bots",
    multiple=True,
    required=True,
    metavar="[LABEL=]SPEC",
    help='A bot: a name ("random") or a JSON spec ({"name": ..., "options": {...}}), '
    "optionally labelled LABEL=SPEC. Give at least two.",
)
@click.option("--param", "-p", "param", multiple=True, help="Game parameter NAME=VALUE or JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["round-robin", "gauntlet"]),
    default="round-robin",
    show_default=True,
    help="round-robin: every lineup of distinct bots; gauntlet: the first bot against each "
    "other bot.",
)
@click.option(
    "--deals",
    type=int,
    default=None,
    help="Deals; each is played by every lineup in every seat rotation. With --sprt, the "
    "most deals to play.  [default: 10; 500 with --sprt]",
)
@click.option("--seed", default=0, show_default=True, help="Master seed of every deal and move.")
@click.option(
    "--simulations",
    type=int,
    default=None,
    help="Budget per move (default 1000 when neither budget is given).",
)
@click.option(
    "--milliseconds",
    type=float,
    default=None,
    help="Time budget per move (makes results depend on machine speed).",
)
@click.option(
    "--clock",
    type=click.Choice(sorted(search_clock.CLOCKS)),
    default="wall",
    show_default=True,
    help="What --milliseconds count: wall time (as the service), or the searching thread's "
    "CPU time (cpu: the search a quiet core gives, for strength measured on a busy machine).",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    default=Path("tournament.jsonl"),
    show_default=True,
    help="Games file (JSON lines); rerun to resume it.",
)
@click.option(
    "--summary",
    type=click.Path(path_type=Path),
    default=None,
    help="Summary JSON [default: OUT with .summary.json].",
)
@click.option(
    "--plots/--no-plots",
    default=True,
    show_default=True,
    help="Write the ratings and pairwise PNGs next to the summary.",
)
@click.option(
    "--workers",
    type=int,
    default=None,
    help="Local worker processes [default: one per core]; 0 plays in this process.",
)
@click.option(
    "--dask",
    "dask_address",
    default=None,
    metavar="SCHEDULER_ADDRESS",
    help="Run on the Dask cluster at this scheduler (tcp://host:8786).",
)
@click.option(
    "--dask-local",
    type=int,
    default=None,
    metavar="N",
    help="Start a local Dask cluster of N workers on 127.0.0.1 for this run.",
)
@click.option(
    "--batch",
    type=int,
    default=None,
    help="Games per task [default: about eight tasks per worker, at most 32 games].",
)
@click.option(
    "--bootstrap",
    default=1000,
    show_default=True,
    help="Bootstrap resamples for Elo intervals (2-player games).",
)
@click.option(
    "--luck-corrected",
    is_flag=True,
    help="Record AIVAT luck-corrected returns per game and report means, intervals and "
    "ratings from them next to the raw ones (see docs/evaluation.md).",
)
@click.option(
    "--luck-value",
    default=None,
    metavar="JSON",
    help='The value estimate of --luck-corrected, e.g. \'{"value": "rollout", "rollouts": 16, '
    '"policy": "heuristic"}\' or \'{"value": "heuristic"}\'.  [default: per game]',
)
@click.option(
    "--sprt",
    "sprt_text",
    default=None,
    metavar="ELO0,ELO1",
    help="Two bots only: a sequential probability ratio test of 'the first bot is ELO1 Elo "
    "stronger' against 'ELO0'; deals are played until it decides or --deals run out.",
)
@click.option("--alpha", default=0.05, show_default=True, help="SPRT: false H1 rate.")
@click.option("--beta", default=0.05, show_default=True, help="SPRT: false H0 rate.")
@click.option("--restart", is_flag=True, help="Discard the games already in OUT and start over.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary JSON instead of tables.")
def tournament(
    game: str,
    bots: tuple[str, ...],
    param: tuple[str, ...],
    fmt: str,
    deals: int,
    seed: int,
    simulations: int | None,
    milliseconds: float | None,
    clock: str,
    out: Path,
    summary: Path | None,
    plots: bool,
    workers: int | None,
    dask_address: str | None,
    dask_local: int | None,
    batch: int | None,
    bootstrap: int,
    luck_corrected: bool,
    luck_value: str | None,
    sprt_text: str | None,
    alpha: float,
    beta: float,
    restart: bool,
    as_json: bool,
) -> None:
    """Play a seeded, resumable tournament of bots at GAME and rate them.

    Every lineup plays the same DEALS in every seat rotation; each game's seeds derive from
    --seed and the game's index only. One JSON line per game goes to --out as games finish;
    rerunning the same command resumes. The summary, plots and a table follow at the end.
    """
    from bots import Budget, InvalidBotSpec, InvalidBudget
    from evaluation.tournament import (
        TournamentError,
        TournamentSpec,
        open_executor,
        parse_bot_arg,
        run_tournament,
    )
    from evaluation.tournament.report import format_table, plot
    from evaluation.tournament.runner import write_json

    if dask_address is not None and dask_local is not None:
        raise click.UsageError("give either --dask or --dask-local, not both")
    if workers is not None and (dask_address is not None or dask_local is not None):
        raise click.UsageError("--workers is for the local pool; a Dask run uses its workers")
    if workers is not None and workers < 0:
        raise click.BadParameter("must be >= 0", param_hint="--workers")
    if batch is not None and batch < 1:
        raise click.BadParameter("must be >= 1", param_hint="--batch")
    if bootstrap < 0:
        raise click.BadParameter("must be >= 0", param_hint="--bootstrap")
    try:
        budget = Budget(
            simulations if simulations is not None or milliseconds is not None else 1000,
            milliseconds,
        )
    except InvalidBudget as err:
        raise click.BadParameter(str(err), param_hint="--simulations/--milliseconds") from None
    try:
        parsed = [parse_bot_arg(b) for b in bots]
    except InvalidBotSpec as err:
        raise click.BadParameter(str(err), param_hint="--bot") from None
    from evaluation.tournament.sprt import Sprt

    test = None
    if sprt_text is not None:
        try:
            test = Sprt.parse(sprt_text, alpha, beta)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--sprt") from None
        if len(bots) != 2:
            raise click.BadParameter(
                f"--sprt tests one bot against another: give exactly two, got {len(bots)}",
                param_hint="--bot",
            )
    if deals is None:
        deals = 500 if test is not None else 10
    luck: dict | bool | None = None
    if luck_value is not None:
        if not luck_corrected:
            raise click.BadParameter("only with --luck-corrected", param_hint="--luck-value")
        try:
            luck = json.loads(luck_value)
        except json.JSONDecodeError as err:
            raise click.BadParameter(f"not valid JSON: {err}", param_hint="--luck-value") from None
    elif luck_corrected:
        luck = True
    try:
        spec = TournamentSpec.build(
            game, parse_params(param), parsed, fmt, deals, seed, budget, luck=luck, clock=clock
        )
    except games.InvalidParams as err:
        raise click.BadParameter(str(err), param_hint="--param") from None
    except TournamentError as err:
        raise click.ClickException(str(err)) from None
    check_entrants(spec.game, spec.params, [(e.label, e.spec) for e in spec.entrants])

    summary_path, ratings_png, pairwise_png = output_paths(out, summary)
    bar = None

    def on_start(done: int, total: int, where: str) -> None:
        nonlocal bar
        from evaluation.progress import Progress

        click.echo(
            f"tournament {spec.fingerprint}: {total} games ({done} already in {out}), "
            + (
                f"up to {total - done} to play (until the SPRT decides)"
                if test is not None
                else f"{total - done} to play"
            )
            + f" on {where}",
            err=True,
        )
        bar = Progress("", "game", total, initial=done, at_most=test is not None)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.update(1)

    try:
        outcome = run_tournament(
            spec,
            out,
            lambda: open_executor(workers, dask_address, dask_local),
            restart=restart,
            batch_size=batch,
            bootstrap=bootstrap,
            progress=progress,
            on_start=on_start,
            sprt=test,
        )
    except TournamentError as err:
        raise click.ClickException(str(err)) from None
    except KeyboardInterrupt:
        click.echo(
            f"\ninterrupted: the finished games are saved in {out}; run the same command "
            "again to resume",
            err=True,
        )
        sys.exit(130)
    finally:
        if bar is not None:
            bar.close()

    try:
        write_json(summary_path, outcome.summary)
    except OSError as err:
        raise click.ClickException(f"cannot write {summary_path}: {err.strerror}") from None
    written = [str(out), str(summary_path)]
    if plots:
        try:
            plot(outcome.summary, ratings_png, pairwise_png)
            written += [str(ratings_png), str(pairwise_png)]
        except Exception as err:  # plots are a convenience: never lose the run over them
            click.echo(f"warning: plots not written: {type(err).__name__}: {err}", err=True)
    echo_report(outcome.summary, as_json, format_table)
    click.echo(games_line(outcome, out) + "; wrote " + ", ".join(written), err=True)


def check_entrants(game: str, params: dict[str, Any], entrants: list[tuple[str, Any]]) -> None:
    """A usage error naming the first bot that cannot play ``game`` with ``params``.

    Asked before the header is printed or a game is played: such a bot (``cfr`` outside its
    stored solutions) used to fail at game 0 after the header and the progress line. The rule
    is the bot's own, through ``check_bots_can_play`` as in ``atelier play`` and ``review``.
    """
    from bots import InvalidBotSpec, make_bot
    from evaluation.params import resolve_alias
    from evaluation.play import BotUnavailable, check_bots_can_play

    defn = games.definition(game)
    for label, spec in entrants:
        try:
            bot = make_bot(resolve_alias(spec))
        except InvalidBotSpec as err:
            raise click.BadParameter(f"bot {label!r}: {err}", param_hint="--bot") from None
        try:
            check_bots_can_play(defn, params, [bot])
        except BotUnavailable as err:
            named = f" (labelled {label!r})" if label != bot.name else ""
            raise click.BadParameter(f"{err}{named}", param_hint="--bot") from None


def games_line(outcome: Any, out: Path) -> str:
    """Games played and resumed, and, when the SPRT decided before the last games came back,
    how many of them the summary uses: otherwise "24 games played now" would stand beside a
    table of 18 games with nothing to say why."""
    text = f"{outcome.played} games played now, {outcome.resumed} resumed"
    used = outcome.summary["games"]["played"]
    extra = len(outcome.records) - used
    if "sprt" in outcome.summary and extra > 0:
        text += (
            f"; the summary and the SPRT use the {used} games up to its decision, the other "
            f"{extra} (finished after it) stay in {out} but are left out"
        )
    return text


@click.command("tournament")
@click.option(
    "--game",
    default="gallery_rush",
    show_default=True,
    type=click.Choice(sorted(games.DEFINITIONS)),
)
@click.option("--param", "-p", "param", multiple=True, help="Game parameter NAME=VALUE or JSON.")
@click.option(
    "--games", "n_games", default=60, show_default=True, help="Games per contender per round."
)
@click.option(
    "--rounds",
    default=2,
    show_default=True,
    help="Interleaved rounds (each contender plays once per round).",
)
@click.option(
    "--bot",
    "bots",
    multiple=True,
    metavar="[LABEL=]SPEC",
    help="The bots playing (as in `atelier tournament`; give two). Default: ismcts against "
    "heuristic; two heuristic bots (games of milliseconds) stress the runner's overhead.",
)
@click.option(
    "--simulations",
    default=100,
    show_default=True,
    help="Simulations per move for search bots.",
)
@click.option("--seed", default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_tournament(
    game: str,
    param: tuple[str, ...],
    n_games: int,
    rounds: int,
    bots: tuple[str, ...],
    simulations: int,
    seed: int,
    as_json: bool,
) -> None:
    """Games per second: 1 and 2 local workers and a 2-worker Dask local cluster, as ratios."""
    from bots import Budget, InvalidBotSpec, InvalidBudget
    from evaluation.bench import tournament as bench_mod
    from evaluation.tournament import TournamentError, parse_bot_arg

    if n_games < 1 or rounds < 1:
        raise click.BadParameter("--games and --rounds must be >= 1")
    if bots and len(bots) != 2:
        raise click.BadParameter(f"give two bots, got {len(bots)}", param_hint="--bot")
    try:
        parsed = [parse_bot_arg(b) for b in bots] if bots else None
        budget = Budget(simulations=simulations)
    except InvalidBotSpec as err:
        raise click.BadParameter(str(err), param_hint="--bot") from None
    except InvalidBudget as err:
        raise click.BadParameter(str(err), param_hint="--simulations") from None
    if parsed:
        from evaluation.tournament.spec import default_label

        try:
            full = games.definition(game).validate_params(parse_params(param))
        except games.InvalidParams as err:
            raise click.BadParameter(str(err), param_hint="--param") from None
        check_entrants(game, full, [(label or default_label(raw), raw) for label, raw in parsed])
    try:
        report = bench_mod.run(
            game,
            parse_params(param),
            n_games,
            rounds,
            seed,
            progress=lambda text: click.echo(text, err=True),
            bots=parsed,
            budget=budget,
        )
    except games.InvalidParams as err:
        raise click.BadParameter(str(err), param_hint="--param") from None
    except TournamentError as err:
        raise click.ClickException(str(err)) from None
    echo_report(report, as_json, bench_mod.format_table)
