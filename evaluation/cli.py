"""The ``atelier`` command line: play, bench (and, as they land, serve and tournament)."""

from __future__ import annotations

import json
import sys

import click

import games
from evaluation.params import parse_params


@click.group()
def main() -> None:
    """Atelier: AI opponents for imperfect-information card games."""


@main.command()
@click.argument("game", type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--param", "-p", "param", multiple=True, help="NAME=VALUE or a JSON object.")
@click.option("--seed", default=0, show_default=True, help="Seed for the deal and the bots.")
def play(game: str, param: tuple[str, ...], seed: int) -> None:
    """Play one full GAME between bots and print it step by step."""
    from evaluation.play import play_game

    try:
        play_game(game, parse_params(param), seed)
    except games.InvalidParams as err:
        raise click.BadParameter(str(err), param_hint="--param") from None


@main.group()
def bench() -> None:
    """Benchmarks; each prints ratios against a reference measured in the same run."""


@bench.command("engine")
@click.option("--game", "names", multiple=True, type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--seconds", default=3.0, show_default=True, help="Wall time per contender.")
@click.option("--seed", default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_engine(names: tuple[str, ...], seconds: float, seed: int, as_json: bool) -> None:
    """Random playouts per second: raw engines, OpenSpiel faces, C++ liars_dice reference."""
    from evaluation.bench import engine as bench_mod

    if seconds <= 0:
        raise click.BadParameter("must be positive", param_hint="--seconds")
    report = bench_mod.run(
        list(names) or None,
        seconds,
        seed,
        progress=lambda name: click.echo(f"measuring {name} ...", err=True),
    )
    if as_json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        click.echo(bench_mod.format_table(report))


# Tournaments (evaluation/tournament): `atelier tournament` and `atelier bench tournament`.
from evaluation.tournament.command import bench_tournament, tournament  # noqa: E402

main.add_command(tournament)
bench.add_command(bench_tournament)

# The hint service (server/): `atelier serve` and `atelier bench service`.
from server.commands import bench_service, serve  # noqa: E402

main.add_command(serve)
bench.add_command(bench_service)


# Exploitability and the CFR benchmark (bots/cfr/): `atelier exploitability`, `atelier bench cfr`.
from evaluation.exploitability_command import bench_cfr, exploitability  # noqa: E402

main.add_command(exploitability)
bench.add_command(bench_cfr)

if __name__ == "__main__":
    main()
