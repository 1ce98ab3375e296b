"""What a newcomer tripped on (issue 43): a busy port, a bot that cannot play, the API's review
body, review progress in a log, and a slow ``--help``."""

from __future__ import annotations

import socket

from click.testing import CliRunner

from evaluation.cli import main


def _one_error(output: str) -> str:
    errors = [line for line in output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, output
    return errors[0]


def test_serve_on_a_busy_port_says_so_before_any_banner_and_names_the_option():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--port", str(port)])
    assert result.exit_code == 1, result.output
    error = _one_error(result.output)
    assert f"port {port} on 127.0.0.1 is already in use" in error and "--port" in error
    assert "atelier serve: http" not in result.output  # no banner for a service that never runs


def test_play_refuses_a_bot_that_cannot_play_before_printing_anything():
    # cfr has stored solutions of two reduced variants only; Modern Art used to print 36
    # chance steps, Gallery Rush its header and a step, before the first cfr move failed.
    for args in (
        ["play", "modern_art", "--bot", "cfr"],
        ["play", "gallery_rush", "--bot", "cfr"],
        ["play", "gallery_rush", "--bot", "random", "--bot", "cfr"],  # seat 1 only
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output  # a usage error
        error = _one_error(result.output)
        assert f"bot 'cfr' cannot play {args[1]}" in error and "--bot" in error
        assert "seats:" not in result.output and "chance" not in result.output


def test_play_still_plays_a_bot_where_it_can():
    import json

    from bots.cfr import store

    solved = next(s for s in store.available() if s["game"] == "finger_auction")
    args = ["play", "finger_auction", "--bot", "cfr", "-p", json.dumps(solved["params"])]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "seats: 0=cfr, 1=cfr" in result.output and "returns:" in result.output
