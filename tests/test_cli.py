"""Every ``atelier`` command answers bad input with one clear line and a non-zero exit."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from evaluation.cli import main

BAD = [
    (["play", "gallery_rush", "-p", "player=3"], "Unknown parameter 'player'|unknown parameter"),
    (["play", "gallery_rush", "--bot", "cfr"], "cannot play this setting"),
    (["play", "gallery_rush", "--bot", "nobody"], "unknown bot 'nobody'"),
    (["play", "gallery_rush", "--bot", "{"], "not valid JSON"),
    (["play", "gallery_rush", "--bot", '{"name": "random", "x": 1}'], "unknown bot spec field 'x'"),
    (["play", "gallery_rush", "--simulations", "0"], "'simulations' must be"),
    (["play", "gallery_rush", "--frobnicate"], "No such option"),
    (["play", "chess"], "'chess' is not one of"),
    (["bench", "engine", "--seconds", "-1"], "must be positive"),
    (["bench", "strength", "--game", "gallery_rush", "-p", "player=3"], "unknown parameter"),
    (["bench", "cfr", "--game", "nope"], "unknown game 'nope'"),
    (["bench", "tournament", "--bot", "a", "--bot", "b"], "unknown bot 'a'"),
    (["exploitability", "--game", "gallery_rush", "--bot", "nobody"], "unknown bot"),
    (["exploitability", "--game", "gallery_rush", "--bot", "random", "-p", "x=1"], "unknown"),
    (["tournament", "gallery_rush", "--bot", "random"], "at least two bots"),
    (["tournament", "gallery_rush", "--bot", "random", "--bot", "x"], "unknown bot 'x'"),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_clear_line(args, message, tmp_path, monkeypatch):
    import re

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0
    assert re.search(message, result.output), result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, result.output


def test_exploitability_of_a_full_game_is_refused_at_once_with_the_estimate():
    started = time.perf_counter()
    result = CliRunner().invoke(
        main, ["exploitability", "--game", "gallery_rush", "--bot", "random"]
    )
    assert result.exit_code != 0 and "Knuth's estimate" in result.output, result.output
    assert "--lower-bound" in result.output
    assert time.perf_counter() - started < 20  # it used to walk for 81 s first


def test_exploitability_prints_a_budget_only_for_bots_that_use_one():
    args = ["exploitability", "--game", "finger_auction", "--reduced"]
    plain = CliRunner().invoke(main, [*args, "--bot", "random"])
    assert plain.exit_code == 0, plain.output
    assert "budget" not in plain.output and "NashConv" in plain.output
    assert "walking the game tree" in plain.output  # progress (stderr, mixed in here)
    searched = CliRunner().invoke(main, [*args, "--bot", "ismcts", "--simulations", "5"])
    assert searched.exit_code == 0 and 'budget {"simulations": 5}' in searched.output
