"""Every ``atelier`` command answers bad input with one clear line and a non-zero exit."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from evaluation.cli import main
from games.core.definition import replay

BAD = [
    (["play", "gallery_rush", "-p", "player=3"], "Unknown parameter 'player'|unknown parameter"),
    (["play", "gallery_rush", "--bot", "cfr"], "bot 'cfr' cannot play gallery_rush"),
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
    (["review", "missing.json"], "cannot read missing.json"),
    (["review", "missing.json", "--samples", "5"], "must be 32..2000"),
    (["review", "missing.json", "--bot", "nobody"], "unknown bot 'nobody'"),
    (["review", "missing.json", "--simulations", "0"], "'simulations' must be"),
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


def test_review_reads_a_games_file_an_infoset_or_a_state_and_draws_the_plot(tmp_path):
    import json

    import games
    from games.core.infoset import build_infoset

    runner = CliRunner()
    games_file = tmp_path / "t.jsonl"
    played = runner.invoke(
        main,
        [
            "tournament",
            "gallery_rush",
            "--bot",
            "random",
            "--bot",
            "heuristic",
            "--deals",
            "1",
            "--simulations",
            "5",
            "--workers",
            "0",
            "--no-plots",
            "-o",
            str(games_file),
        ],
    )
    assert played.exit_code == 0, played.output
    fast = ["--bot", "heuristic", "--simulations", "5", "--samples", "32"]
    png = tmp_path / "review.png"
    result = runner.invoke(
        main, ["review", str(games_file), "--index", "1", "--seat", "0", *fast, "--plot", str(png)]
    )
    assert result.exit_code == 0, result.output
    assert "accuracy" in result.output and "biggest mistakes" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The summary's luck split: its sentence with its standard errors.
    luck = next(line for line in result.output.splitlines() if line.startswith("luck: "))
    assert " of a win " in luck and "decisions (standard errors " in luck, luck
    # Two games in the file: which one?
    ambiguous = runner.invoke(main, ["review", str(games_file), "--seat", "0", *fast])
    assert ambiguous.exit_code != 0 and "--index" in ambiguous.output
    # The same game as the seat's information set, and as a whole state, review alike.
    record = next(
        json.loads(line)
        for line in games_file.read_text().splitlines()
        if json.loads(line)["index"] == 1
    )
    defn = games.definition("gallery_rush")
    params = defn.validate_params(record["params"])
    engine = replay(defn, params, record["history"])
    infoset_file = tmp_path / "infoset.json"
    infoset_file.write_text(json.dumps(build_infoset(defn, params, engine, 0)))
    state_file = tmp_path / "state.json"
    state_file.write_text(
        json.dumps({"game": "gallery_rush", "params": params, "history": record["history"]})
    )
    tables = []
    for args in ([str(infoset_file)], [str(state_file), "--seat", "0"]):
        out = runner.invoke(main, ["review", *args, *fast])
        assert out.exit_code == 0, out.output
        tables.append(out.stdout)
    assert tables[0] == tables[1] == result.stdout.replace(f"plot written to {png}\n", "")
    skipped = runner.invoke(main, ["review", str(infoset_file), *fast, "--no-luck"])
    assert skipped.exit_code == 0 and "luck: not split (not asked for)" in skipped.output
    no_seat = runner.invoke(main, ["review", str(state_file), *fast])
    assert no_seat.exit_code != 0 and "--seat is required" in no_seat.output


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "gallery_rush", "--bot", "cfr", "--bot", "random", "--workers", "0"],
        ["tournament", "gallery_rush", "--bot", "random", "--bot", "mine=cfr", "--workers", "0"],
        ["bench", "tournament", "--bot", "cfr", "--bot", "random"],
    ],
    ids=["tournament", "tournament-labelled", "bench-tournament"],
)
def test_tournament_checks_its_bots_before_printing_anything(args, tmp_path, monkeypatch):
    """Issue 43.2: a bot that cannot play the setting is a usage error naming it, before the
    header ("tournament ...: N games") or a game; it used to fail at game 0."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output  # click's usage error
    assert "Invalid value for --bot: bot 'cfr' cannot play gallery_rush" in result.output
    assert "games (0 already in" not in result.output  # no header, no progress
    assert "game 0" not in result.output
    assert not (tmp_path / "tournament.jsonl").exists()
    if "mine=cfr" in args:
        assert "(labelled 'mine')" in result.output
