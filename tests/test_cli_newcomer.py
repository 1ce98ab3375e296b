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
