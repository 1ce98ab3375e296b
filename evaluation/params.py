"""Parsing what the command line gives: game parameters (``--param players=3`` or JSON) and
bot specs (``--bot ismcts``, ``--bot '{"name": "ismcts", ...}'``, ``--bot LABEL=SPEC``, and
the aliases of ``bot_aliases``); and printing a command's report (``echo_report``, and
``baseline_bench`` for the benches measured against a baseline revision)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import click


def echo_report(report: Any, as_json: bool, table: Callable[[Any], str]) -> None:
    """A command's report: the JSON alone with ``--json`` (for scripts), else ``table(report)``."""
    if as_json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        click.echo(table(report))


def baseline_bench(
    bench_mod: Any,
    as_json: bool,
    *args: Any,
    table: Callable[[Any], str] | None = None,
    **kwargs: Any,
) -> None:
    """``bench_mod.run(*args, **kwargs)`` with progress on stderr, printed as JSON or a table
    (``table``, by default ``bench_mod.format_table``); a baseline revision that cannot be
    exported or run is a command error naming it."""
    from evaluation.bench.baseline import BaselineError

    try:
        report = bench_mod.run(
            *args, progress=lambda text: click.echo(f"measuring {text} ...", err=True), **kwargs
        )
    except BaselineError as err:
        raise click.ClickException(str(err)) from None
    echo_report(report, as_json, table or bench_mod.format_table)


def parse_params(items: tuple[str, ...]) -> dict[str, Any]:
    """``("players=3", "ruleset=classic")`` or one JSON object -> a parameter dict."""
    params: dict[str, Any] = {}
    for item in items:
        item = item.strip()
        if item.startswith("{"):
            try:
                loaded = json.loads(item)
            except json.JSONDecodeError as err:
                raise click.BadParameter(f"not valid JSON: {err}") from None
            if not isinstance(loaded, dict):
                raise click.BadParameter("JSON parameters must be an object")
            params.update(loaded)
            continue
        if "=" not in item:
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}")
        key, raw = item.split("=", 1)
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        params[key.strip()] = value
    return params


def parse_bot_arg(text: str, labelled: bool = True) -> tuple[str | None, Any]:
    """``[LABEL=]SPEC`` -> ``(label or None, spec)``: the one parser of every ``--bot`` option.

    SPEC is a bot name (returned as the string) or a JSON object ``{"name", "options"}``
    (returned as the dict); ``make_bot`` checks the rest. ``labelled=False`` (commands whose
    bots need no label) reads the whole text as the SPEC. Raises ``InvalidBotSpec``.
    """
    from bots import InvalidBotSpec

    text = text.strip()
    label: str | None = None
    if labelled and not text.startswith("{") and "=" in text:
        label, text = (part.strip() for part in text.split("=", 1))
    if not text.startswith("{"):
        return label, text
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidBotSpec(f"bot spec {text!r} is not valid JSON: {err}") from None
    if not isinstance(spec, dict):
        raise InvalidBotSpec('a bot spec must be a name or an object like {"name": "random"}')
    return label, spec


def bot_aliases() -> dict[str, Any]:
    """Names every command's ``--bot`` takes besides the registered bots, and the spec each
    stands for: the historical baselines of ``evaluation.baselines`` (``ismcts-legacy``: the
    ISMCTS of commit a322b0d, the reference of issue 15's comparisons). Aliases are for the
    command line and tournaments; the service's clients name bots by their specs."""
    from evaluation.baselines import BASELINES

    return {alias: baseline.spec() for alias, baseline in BASELINES.items()}


def resolve_alias(spec: Any) -> Any:
    """``spec`` with an alias name (``bot_aliases``) replaced by the spec it stands for."""
    return bot_aliases().get(spec, spec) if isinstance(spec, str) else spec


def parse_bot_spec(text: str) -> Any:
    """The spec of an unlabelled ``--bot`` option (``parse_bot_arg``), aliases resolved."""
    return resolve_alias(parse_bot_arg(text, labelled=False)[1])
