"""The ``atelier`` command line: play, bench, and (imported when used) serve, tournament,
exploitability and review."""

from __future__ import annotations

import json
from typing import Any

import click

import games
from evaluation.params import baseline_bench, echo_report, parse_params


def user_error(err: BaseException) -> str | None:
    """The one-line message for an error the user caused, or ``None`` for a bug.

    Bad game parameters, bot specs and budgets, a bot that cannot play the chosen game (a
    bare ``LookupError``: ``cfr`` without a stored solution) and OpenSpiel's refusals of a
    parameter are the user's; anything else is a bug and keeps its traceback.
    """
    import pyspiel

    from bots import InvalidBotSpec, InvalidBudget

    if isinstance(err, games.InvalidParams | InvalidBotSpec | InvalidBudget):
        return str(err)
    if type(err) is LookupError:
        return f"the bot cannot play this setting: {err}"
    if isinstance(err, pyspiel.SpielError):
        return str(err)
    return None


class AtelierGroup(click.Group):
    """Every command's bad input ends as one ``Error: ...`` line and exit status 1.

    Commands defined in other modules are named in ``lazy`` (name -> ``"module:attribute"``)
    and imported only when they run or are listed: ``atelier play`` then imports neither the
    tournament runner, the service nor CFR (issue 43: ``--help`` took 1.5 s, most of it in
    imports no command being run needed).
    """

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            import importlib

            module, attribute = self.lazy[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except Exception as err:
            message = user_error(err)
            if message is None:
                raise
            raise click.ClickException(" ".join(message.split())) from None


@click.group(
    cls=AtelierGroup,
    lazy={
        "tournament": "evaluation.tournament.command:tournament",  # evaluation/tournament
        "serve": "server.commands:serve",  # the hint service (server/)
        "exploitability": "evaluation.exploitability_command:exploitability",  # bots/cfr/
        "review": "evaluation.review_command:review",  # game review (bots/review.py)
        "analyse": "evaluation.analyse_command:analyse_command",  # bots/analysis.py
        "mcp": "evaluation.mcp_command:mcp",  # MCP tool server (clients/python's client)
        "profile": "evaluation.profile_command:profile",  # opponent profiles (bots/profiles)
    },
)
def main() -> None:
    """Atelier: AI opponents for imperfect-information card games."""


@main.command()
@click.argument("game", type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--param", "-p", "param", multiple=True, help="NAME=VALUE or a JSON object.")
@click.option("--seed", default=0, show_default=True, help="Seed for the deal and the bots.")
@click.option(
    "--bot",
    "bot_specs",
    multiple=True,
    help="A bot name or JSON spec; once for every seat or once per seat in order "
    '(e.g. --bot ismcts --bot \'{"name": "ismcts", "options": {"rollout": "random"}}\'). '
    "Default: the game's heuristic.",
)
@click.option("--simulations", type=int, default=1000, show_default=True, help="Per move.")
@click.option("--milliseconds", type=float, default=None, help="Per move (whichever ends first).")
def play(
    game: str,
    param: tuple[str, ...],
    seed: int,
    bot_specs: tuple[str, ...],
    simulations: int,
    milliseconds: float | None,
) -> None:
    """Play one full GAME between bots and print it step by step."""
    from bots import Budget, InvalidBotSpec, InvalidBudget
    from evaluation.params import parse_bot_spec
    from evaluation.play import play_game

    try:
        specs = [parse_bot_spec(text) for text in bot_specs]
    except InvalidBotSpec as err:
        raise click.BadParameter(str(err), param_hint="--bot") from None
    try:
        budget = Budget(simulations, milliseconds)
    except InvalidBudget as err:
        raise click.BadParameter(str(err), param_hint="--simulations") from None
    try:
        params = games.definition(game).validate_params(parse_params(param))
        play_game(game, params, seed, specs, budget, echo=click.echo)
    except games.InvalidParams as err:
        raise click.BadParameter(str(err), param_hint="--param") from None
    except (InvalidBotSpec, ValueError) as err:
        raise click.BadParameter(str(err), param_hint="--bot") from None


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
def info(as_json: bool) -> None:
    """The version and, per compiled module, whether its extension or its .py runs."""
    import importlib
    from importlib.metadata import PackageNotFoundError, version

    from games.core import compiled

    for module in compiled.COMPILED_MODULES:
        importlib.import_module(module)
    try:
        installed = version("atelier")
    except PackageNotFoundError:
        installed = "not installed (a source checkout on PYTHONPATH)"
    status = compiled.status()
    if as_json:
        click.echo(json.dumps({"version": installed, "compiled": status}, indent=1))
        return
    click.echo(f"atelier {installed}")
    click.echo(
        f"compiled modules ({compiled.PURE_ENV}=1 runs every .py; rebuild: {compiled.REBUILD}):"
    )
    for module, state in status.items():
        click.echo(f"  {module:32} {state}")


@main.group(
    cls=AtelierGroup,
    lazy={
        "tournament": "evaluation.tournament.command:bench_tournament",
        "service": "evaluation.bench.service_command:bench_service",
        "review": "evaluation.bench.review:bench_review",
        "cfr": "evaluation.exploitability_command:bench_cfr",
        "blunders": "evaluation.bench.review_flags:bench_blunders",  # issue 38, target 1
        "hint": "evaluation.bench.hint:bench_hint",  # issue 40: the bot as served
    },
)
def bench() -> None:
    """Benchmarks; each prints ratios against a reference measured in the same run."""


@bench.command("engine")
@click.option("--game", "names", multiple=True, type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--seconds", default=3.0, show_default=True, help="Wall time per contender.")
@click.option("--seed", default=0, show_default=True)
@click.option("--rounds", default=5, show_default=True, help="Interleaved slices.")
@click.option(
    "--baseline",
    default=None,
    help="Git revision whose engines are measured too (same slices and seeds), e.g. a322b0d.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_engine(
    names: tuple[str, ...],
    seconds: float,
    seed: int,
    rounds: int,
    baseline: str | None,
    as_json: bool,
) -> None:
    """Random playouts per second: raw engines, OpenSpiel faces, C++ liars_dice reference."""
    from evaluation.bench import engine as bench_mod

    if seconds <= 0 or rounds < 1:
        raise click.BadParameter("--seconds and --rounds must be positive")
    baseline_bench(
        bench_mod, as_json, list(names) or None, seconds, seed, rounds=rounds, baseline=baseline
    )


# Bots (bots/): `atelier bench ismcts` and `atelier bench strength` (`atelier bench hint`: the
# bot as served, evaluation/bench/hint.py).
@bench.command("ismcts")
@click.option("--game", "names", multiple=True, type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--players", multiple=True, type=int, help="Player counts (default: every one).")
@click.option("--seconds", default=4.0, show_default=True, help="Search time per contender.")
@click.option("--rounds", default=8, show_default=True, help="Interleaved slices (paired).")
@click.option("--worlds", default=32, show_default=True, help="World pool size of both bots.")
@click.option(
    "--abstraction",
    is_flag=True,
    help="Rollouts uniform over our candidate actions (Modern Art bids) instead of all legal.",
)
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--baseline",
    default="a322b0d",
    show_default=True,
    help="Git revision whose search is measured too (same slices, position and rollouts).",
)
@click.option("--no-baseline", is_flag=True, help="Measure without the baseline revision.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print docs/bots.md's table.")
def bench_ismcts(
    names: tuple[str, ...],
    players: tuple[int, ...],
    seconds: float,
    rounds: int,
    worlds: int,
    abstraction: bool,
    seed: int,
    baseline: str,
    no_baseline: bool,
    as_json: bool,
    as_markdown: bool,
) -> None:
    """ISMCTS simulations per CPU second on uniform rollouts, at every player count: ours
    against OpenSpiel's Python ISMCTSBot and an older revision, in interleaved paired slices
    (not the bot as served: `atelier bench hint` measures that)."""
    from evaluation.bench import hint as hint_mod
    from evaluation.bench import ismcts as bench_mod

    if seconds <= 0 or rounds < 1 or worlds < 1:
        raise click.BadParameter("--seconds, --rounds and --worlds must be positive")
    try:
        hint_mod.settings(list(names) or None, list(players) or None)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--players") from None
    baseline_bench(
        bench_mod,
        as_json,
        list(names) or None,
        seconds,
        seed,
        rounds=rounds,
        worlds=worlds,
        abstraction=abstraction,
        baseline=None if no_baseline else baseline,
        players=list(players) or None,
        table=bench_mod.markdown if as_markdown else None,
    )


@bench.command("strength")
@click.option("--game", "names", multiple=True, type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--param", "-p", "param", multiple=True, help="NAME=VALUE for every game.")
@click.option(
    "--players",
    "players",
    multiple=True,
    type=int,
    help="Player counts (repeatable). Default: every count each game supports, unless "
    "-p players=N is given.",
)
@click.option(
    "--pairing",
    "pairings",
    multiple=True,
    type=click.Choice(
        [
            "ismcts-vs-random",
            "ismcts-vs-heuristic",
            "ismcts-vs-openspiel",
            "heuristic-vs-random",
            "ismcts-vs-legacy",
        ]
    ),
    help="Default: the three ISMCTS pairings. ismcts-vs-legacy: against a322b0d's ISMCTS.",
)
@click.option("--games", "games_per_pairing", default=12, show_default=True, help="Per pairing.")
@click.option(
    "--min-games",
    "min_games",
    multiple=True,
    help="GAME=N: at least N games per row for that game (e.g. detective_eye=60).",
)
@click.option(
    "--budget",
    "budgets",
    multiple=True,
    help="Budget of our ISMCTS a move: simulations ('1000'), time ('500ms') or CPU time "
    "('500ms-cpu': the search a quiet core gives in 500 ms, on a busy machine); repeatable. "
    "Default: --simulations if given, else both 1000 and 500ms (the service's default).",
)
@click.option(
    "--legacy-budget",
    default=None,
    help="ismcts-vs-legacy: the old search's own budget a move ('600', '500ms'); default: "
    "the row's --budget. With --ismcts-options set to the old search's options, a row "
    "measures what more time alone is worth to it.",
)
@click.option("--simulations", default=None, type=int, help="ISMCTS budget per move.")
@click.option(
    "--milliseconds", default=200.0, show_default=True, help="Per move, ours vs OpenSpiel's."
)
@click.option("--workers", default=1, show_default=True, help="Processes playing games.")
@click.option("--ismcts-options", default="{}", help="JSON options of our ISMCTS bot.")
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--docs",
    "docs_path",
    type=click.Path(dir_okay=False),
    help="Also write the table, with this command, into this markdown file (docs/bots.md).",
)
@click.option(
    "--docs-section", default="main", show_default=True, help="Which generated section to replace."
)
@click.option(
    "--games-file",
    type=click.Path(dir_okay=False),
    help="Keep every finished game here (JSON lines) and reuse the games already in it: a "
    "stopped run resumes.",
)
@click.option(
    "--luck-corrected",
    is_flag=True,
    help="Also report AIVAT's luck-corrected first-place share and its standard-error ratio "
    "(games with a rollout value estimate: not Modern Art).",
)
@click.option(
    "--stored-only",
    is_flag=True,
    help="Play nothing: rebuild the table from --games-file alone (the file is not written); "
    "a row whose games are not all stored is an error naming how many are missing.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_strength(
    names: tuple[str, ...],
    param: tuple[str, ...],
    players: tuple[int, ...],
    pairings: tuple[str, ...],
    games_per_pairing: int,
    min_games: tuple[str, ...],
    budgets: tuple[str, ...],
    legacy_budget: str | None,
    simulations: int | None,
    milliseconds: float,
    workers: int,
    ismcts_options: str,
    seed: int,
    docs_path: str | None,
    docs_section: str,
    games_file: str | None,
    luck_corrected: bool,
    stored_only: bool,
    as_json: bool,
) -> None:
    """Win shares with 95% intervals: ISMCTS against random, heuristic and OpenSpiel's ISMCTS."""
    from pathlib import Path

    from bots import InvalidBotSpec, make_bot
    from evaluation.bench import strength as bench_mod

    if (
        games_per_pairing < 1
        or (simulations is not None and simulations < 1)
        or milliseconds <= 0
        or workers < 1
    ):
        raise click.BadParameter("--games, --simulations, --milliseconds, --workers: positive")
    if stored_only and not games_file:
        raise click.BadParameter(
            "rebuilds a table from its stored games: give --games-file", param_hint="--stored-only"
        )
    try:
        options = json.loads(ismcts_options)
        make_bot({"name": "ismcts", "options": options})
    except (ValueError, InvalidBotSpec) as err:
        raise click.BadParameter(str(err), param_hint="--ismcts-options") from None
    extra = parse_params(param)
    for name in names or sorted(games.DEFINITIONS):  # refuse a bad parameter before playing
        try:
            games.definition(name).validate_params(extra)
        except games.InvalidParams as err:
            raise click.BadParameter(f"{name}: {err}", param_hint="--param") from None
    try:
        parsed_budgets = [bench_mod.parse_budget(b) for b in budgets]
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--budget") from None
    try:
        old_budget = None if legacy_budget is None else bench_mod.parse_budget(legacy_budget)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--legacy-budget") from None
    if old_budget is not None and "ismcts-vs-legacy" not in pairings:
        raise click.BadParameter(
            "only the ismcts-vs-legacy pairing has an old search to give it to",
            param_hint="--legacy-budget",
        )
    if not parsed_budgets:
        parsed_budgets = (
            [{"simulations": simulations}]
            if simulations is not None
            else [{"simulations": 1000}, {"milliseconds": 500.0}]
        )
    least: dict[str, int] = {}
    for item in min_games:
        name, _, count = item.partition("=")
        if name not in games.DEFINITIONS or not count.isdigit():
            raise click.BadParameter(f"expected GAME=N, got {item!r}", param_hint="--min-games")
        least[name] = int(count)
    if luck_corrected:
        chosen = list(names) or sorted(games.DEFINITIONS)
        unsupported = [n for n in chosen if not bench_mod.luck_supported(n)]
        if len(unsupported) == len(chosen):
            raise click.BadParameter(
                f"no luck-corrected share for {', '.join(unsupported)} (its value estimate is "
                "not a rollout)",
                param_hint="--luck-corrected",
            )
        for name in unsupported:
            click.echo(f"note: {name} rows are not luck-corrected (no rollout estimate)", err=True)
    parsed = parse_params(param)
    counts = list(players) or (None if "players" in parsed else [2, 3, 4, 5])
    try:
        report = bench_mod.run(
            list(names) or None,
            games_per_pairing,
            pairings or bench_mod.PAIRINGS,
            simulations or 1000,
            milliseconds,
            seed,
            parsed,
            workers,
            progress=lambda text: click.echo(f"playing {text} ...", err=True),
            ismcts_options=options,
            players=counts,
            budgets=parsed_budgets,
            min_games=least,
            on_row=lambda so_far: _strength_row_done(so_far, docs_path, docs_section),
            games_file=Path(games_file) if games_file else None,
            luck_corrected=luck_corrected,
            legacy_budget=old_budget,
            stored_only=stored_only,
        )
    except games.InvalidParams as err:
        raise click.BadParameter(str(err), param_hint="--param") from None
    except bench_mod.MissingGames as err:
        raise click.ClickException(str(err)) from None
    if docs_path:
        command = _command_line(click.get_current_context())
        bench_mod.write_docs(Path(docs_path), docs_section, bench_mod.markdown(report, command))
    echo_report(report, as_json, bench_mod.format_table)


@bench.command("explain")
@click.option("--game", "names", multiple=True, type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--states", default=4, show_default=True, help="Decisions measured per game.")
@click.option("--budget-ms", default=500.0, show_default=True, help="The reference hint's budget.")
@click.option("--all-players", is_flag=True, help="Every player count (default: the fewest).")
@click.option("--seed", default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_explain(
    names: tuple[str, ...],
    states: int,
    budget_ms: float,
    all_players: bool,
    seed: int,
    as_json: bool,
) -> None:
    """An explained hint's cost next to an ismcts hint's search (bots/explain)."""
    from evaluation.bench import explain as bench_mod

    if states < 1:
        raise click.BadParameter("must be at least 1", param_hint="--states")
    if budget_ms <= 0:
        raise click.BadParameter("must be positive", param_hint="--budget-ms")
    rows = bench_mod.run(names, states, budget_ms, seed, all_players)
    echo_report(rows, as_json, bench_mod.format_table)


@bench.command("profiles")
@click.argument("game", type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--players", required=True, type=int, help="Player count of the cell.")
@click.option(
    "--opponent",
    required=True,
    help="A biased opponent of the game (bots/profiles BIASED: over_bidder, bluffer, ...) or "
    "'wrong' (the heuristic, with the profile fitted to the game's first biased opponent).",
)
@click.option("--deals", default=20, show_default=True, help="Deals, each in every seat.")
@click.option("--simulations", default=200, show_default=True, help="ismcts's budget per move.")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Pairs (resumes).")
@click.option(
    "--beliefs",
    type=click.Choice(["auto", "heuristic", "uniform"]),
    default="auto",
    show_default=True,
    help="Both searches' 'beliefs' option ('uniform': Modern Art's served hint, several times "
    "cheaper there); a cell keeps the one it started with.",
)
@click.option(
    "--trust",
    type=click.FloatRange(0, 1, min_open=True),
    default=None,
    help="The profiled search's profile_trust (default: the option's own, 0.5): the safety "
    "setting; a cell keeps the one it started with.",
)
@click.option(
    "--evidence",
    type=click.Choice(["game", "telling", "none"]),  # bots.profiles.evidence.SETTINGS (lazy)
    default="game",
    show_default=True,
    help="The profiled search's profile_evidence ('game': each seat's trust scaled by how far "
    "its moves so far bear its profile out; 'telling': the same, from the seat's first telling "
    "move on; 'none': the trust throughout); a cell keeps the one it started with.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON summary only.")
def bench_profiles(
    game: str,
    players: int,
    opponent: str,
    deals: int,
    simulations: int,
    out: str,
    beliefs: str,
    trust: float | None,
    evidence: str,
    as_json: bool,
) -> None:
    """ismcts with a fitted opponent profile against without it, paired (issue 45, target 1)."""
    from pathlib import Path

    from bots.profiles.tendencies import BIASED
    from evaluation.bench import profiles as bench_mod

    known = [*BIASED.get(game, {}), bench_mod.WRONG]
    if opponent not in known:
        raise click.BadParameter(
            f"{opponent!r}; known for {game}: {known}", param_hint="--opponent"
        )
    if deals < 1 or simulations < 1:
        raise click.BadParameter("--deals and --simulations must be at least 1")

    def stderr_echo(text: str) -> None:  # the fit's result; stdout is the report alone
        click.echo(text, err=True)

    try:
        report = bench_mod.run_cell(
            game,
            players,
            opponent,
            deals,
            simulations,
            Path(out),
            stderr_echo,
            beliefs,
            trust,
            evidence,
        )
    except ValueError as err:  # a cell resumed with another beliefs, trust or evidence setting
        raise click.BadParameter(str(err), param_hint="--beliefs/--trust/--evidence") from None
    click.echo(json.dumps(report, indent=None if as_json else 2))


@bench.command("beliefs")
@click.option(
    "--games-file",
    "files",
    multiple=True,
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Games stored by bench strength (repeat for several).",
)
@click.option("--game", default="modern_art", show_default=True, help="Game read from the files.")
@click.option("--players", multiple=True, type=int, help="Player counts (default: every one).")
@click.option("--every", default=12, show_default=True, help="Every Nth decision is a position.")
@click.option("--worlds", default=64, show_default=True, help="Worlds per pool (ismcts's default).")
@click.option("--epsilon", default=0.2, show_default=True, help="The model's trembling floor.")
@click.option(
    "--belief-effective", default=0.25, show_default=True, help="Share the tempering keeps."
)
@click.option("--max-positions", default=None, type=int, help="Per file (default: all).")
@click.option("--seed", default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_beliefs(
    files: tuple[str, ...],
    game: str,
    players: tuple[int, ...],
    every: int,
    worlds: int,
    epsilon: float,
    belief_effective: float,
    max_positions: int | None,
    seed: int,
    as_json: bool,
) -> None:
    """How much closer to the opponents' true cards the belief weights are than uniform worlds."""
    from pathlib import Path

    from evaluation.bench import beliefs as bench_mod

    if not 0.0 <= epsilon <= 1.0:
        raise click.BadParameter("must be between 0 and 1", param_hint="--epsilon")
    if not 0.0 <= belief_effective <= 1.0:
        raise click.BadParameter("must be between 0 and 1", param_hint="--belief-effective")
    if max_positions is not None and max_positions < 1:
        raise click.BadParameter("must be at least 1", param_hint="--max-positions")
    try:
        report = bench_mod.run(
            [Path(f) for f in files],
            game,
            players,
            every,
            worlds,
            epsilon,
            belief_effective,
            seed,
            max_positions,
            progress=not as_json,
        )
    except ValueError as err:
        raise click.ClickException(str(err)) from None
    echo_report(report, as_json, bench_mod.format_table)


@bench.command("agreement")
@click.option("--game", "name", required=True, type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--players", multiple=True, type=int, help="Player counts (default: every one).")
@click.option("--bot", "bot_a", default="ismcts", show_default=True, help="Bot A: name or JSON.")
@click.option(
    "--against",
    "bot_b",
    default="ismcts-legacy",
    show_default=True,
    help="Bot B, whose own seed-to-seed agreement is the reference (ismcts-legacy: a322b0d's).",
)
@click.option(
    "--budget",
    default="600",
    show_default=True,
    help="Per hint: simulations ('600') or time ('500ms', which follows the machine's load).",
)
@click.option("--positions", default=50, show_default=True, help="Positions per player count.")
@click.option("--every", default=9, show_default=True, help="Every Nth decision is a position.")
@click.option("--judge", default=None, help="The judge's bot (default: ismcts).")
@click.option(
    "--judge-budget", default=None, help="Judge the positions where A and B differ at this budget."
)
@click.option("--seed", default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_agreement(
    name: str,
    players: tuple[int, ...],
    bot_a: str,
    bot_b: str,
    budget: str,
    positions: int,
    every: int,
    judge: str | None,
    judge_budget: str | None,
    seed: int,
    as_json: bool,
) -> None:
    """How often bot A picks bot B's move, against how often B picks its own with another seed."""
    from bots import InvalidBotSpec
    from bots.registry import normalised_spec
    from evaluation.bench import agreement as bench_mod
    from evaluation.bench.strength import parse_budget, player_counts
    from evaluation.params import parse_bot_arg, resolve_alias

    if positions < 1:
        raise click.BadParameter("must be at least 1", param_hint="--positions")
    if every < 1:
        raise click.BadParameter("must be at least 1", param_hint="--every")
    budgets = {}
    for hint, text in (("--budget", budget), ("--judge-budget", judge_budget)):
        if text is not None:
            try:
                budgets[hint] = parse_budget(text)
            except ValueError as err:
                raise click.BadParameter(str(err), param_hint=hint) from None
            if "clock" in budgets[hint]:
                raise click.BadParameter(
                    "CPU-time budgets are for bench strength; this bench counts wall time",
                    param_hint=hint,
                )
    specs = {}
    for hint, text in (("--bot", bot_a), ("--against", bot_b), ("--judge", judge)):
        if text is not None:
            try:
                spec = parse_bot_arg(text, labelled=False)[1]
                normalised_spec(resolve_alias(spec))
            except InvalidBotSpec as err:
                raise click.BadParameter(str(err), param_hint=hint) from None
            specs[hint] = spec
    counts = list(players) or player_counts(name)
    supported = player_counts(name)
    wrong = [c for c in counts if c not in supported]
    if wrong:
        raise click.BadParameter(
            f"{name} is played by {supported[0]}-{supported[-1]} players, not {wrong[0]}",
            param_hint="--players",
        )
    try:
        report = bench_mod.run(
            name,
            counts,
            specs["--bot"],
            specs["--against"],
            budgets["--budget"],
            positions,
            every,
            seed,
            specs.get("--judge", "ismcts"),
            budgets.get("--judge-budget"),
            progress=not as_json,
        )
    except bench_mod.NoPositions as err:
        raise click.ClickException(str(err)) from None
    echo_report(report, as_json, bench_mod.format_table)


def _strength_row_done(report: dict, docs_path: str | None, section: str) -> None:
    """Prints a finished row and, with ``--docs``, writes the table so far (a long run that is
    stopped keeps what it measured)."""
    from pathlib import Path

    from evaluation.bench import strength as bench_mod

    row = bench_mod.format_table({"rows": report["rows"][-1:]}).splitlines()[1:]
    click.echo("\n".join(row), err=True)
    if docs_path:
        command = _command_line(click.get_current_context())
        bench_mod.write_docs(Path(docs_path), section, bench_mod.markdown(report, command))


# Options that say how a table is rebuilt, not what was measured: left out of the command a
# table records, so a table rebuilt with them names the command that played its games.
REBUILD_ONLY_OPTIONS = {"stored_only"}


def _command_line(ctx: click.Context) -> str:
    """The command as it was given (options that differ from their defaults), to be rerun."""
    import shlex

    words = ["atelier", *ctx.command_path.split()[1:]]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if not isinstance(param, click.Option) or value in (None, (), False, param.default):
            continue
        if param.name in REBUILD_ONLY_OPTIONS:
            continue
        flag = param.opts[-1] if param.opts[-1].startswith("--") else param.opts[0]
        if param.is_flag:
            words.append(flag)
        elif param.multiple:
            for item in value:
                words += [flag, str(item)]
        else:
            words += [flag, str(value)]
    return shlex.join(words)


if __name__ == "__main__":
    main()
