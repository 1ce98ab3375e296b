"""Parsing game parameters given on the command line (``--param players=3`` or JSON)."""

from __future__ import annotations

import json
from typing import Any

import click


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
