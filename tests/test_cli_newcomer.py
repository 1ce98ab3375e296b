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


FAST = ["--bot", "heuristic", "--simulations", "5", "--samples", "32"]


def _played_gallery_rush(seed: int = 3) -> tuple[dict, list[int]]:
    """A short finished Gallery Rush game, random moves: its parameters and history."""
    import random

    import games

    defn = games.definition("gallery_rush")
    params = defn.validate_params({"max_turns": 12})
    engine, rng, history = defn.new_engine(params), random.Random(seed), []
    while not engine.is_terminal():
        action = (
            engine.sample_chance(rng) if engine.is_chance() else rng.choice(engine.legal_actions())
        )
        engine.apply(action)
        history.append(action)
    return params, history


def _review(tmp_path, name: str, body: dict, *args: str):
    import json

    path = tmp_path / name
    path.write_text(json.dumps(body))
    return CliRunner().invoke(main, ["review", str(path), *args])


def test_review_reads_the_api_request_body_as_docs_api_md_shows_it(tmp_path):
    import games
    from games.core.infoset import build_infoset

    params, history = _played_gallery_rush()
    defn = games.definition("gallery_rush")
    engine = defn.new_engine(params)
    for action in history:
        engine.apply(action)
    infoset = build_infoset(defn, params, engine, 1)
    state = {"game": "gallery_rush", "params": params, "history": history}
    plain = _review(tmp_path, "infoset.json", infoset, *FAST)
    assert plain.exit_code == 0, plain.output
    # The body of POST /v1/games/{game}/review: the game and the seat come from the infoset...
    body = _review(tmp_path, "body.json", {"infoset": infoset}, *FAST)
    assert body.exit_code == 0, body.output
    # ... or from the state and the body's seat; the body's settings stand in for the options.
    settings = {"bot": "heuristic", "budget": {"simulations": 5}, "samples": 32, "seed": 0}
    by_state = _review(tmp_path, "state.json", {"state": state, "seat": 1, **settings})
    assert by_state.exit_code == 0, by_state.output
    assert plain.stdout == body.stdout == by_state.stdout
    assert "accuracy" in plain.stdout or "made no decision" in plain.stdout
    # An option given on the command line wins over the body's setting.
    other = _review(tmp_path, "seeded.json", {"infoset": infoset, "seed": 5}, *FAST, "--seed", "0")
    assert other.stdout == plain.stdout


def test_review_names_what_is_wrong_with_a_request_body_or_a_record(tmp_path):
    params, history = _played_gallery_rush()
    state = {"game": "gallery_rush", "params": params, "history": history}
    cases = [
        ({"state": state}, [*FAST], "--seat is required"),
        ({"state": state, "seat": 0}, [*FAST, "--seat", "1"], "reviews seat 0; leave out --seat"),
        ({"state": state, "seat": 0, "budget": 200}, [], "budget must be an object"),
        ({"state": state, "seat": 0, "samples": 5}, [], "'samples' must be 32..2000"),
        ({"infoset": {}, "state": state}, [], "both 'infoset' and 'state'"),
        ({"infoset": {}, "extra": 1}, [], "unknown field 'extra'"),
        ({"infoset": "x"}, [], "must be JSON objects"),
        ({"game": "gallery_rush", "seat": 0}, [], "is not a game record; give an information set"),
    ]
    for body, args, message in cases:
        result = _review(tmp_path, "bad.json", body, *args)
        assert result.exit_code != 0, (body, result.output)
        assert message in _one_error(result.output), (body, result.output)


def test_review_progress_in_a_log_is_plain_lines_with_the_total(tmp_path):
    import games
    from games.core.infoset import build_infoset

    params, history = _played_gallery_rush()
    defn = games.definition("gallery_rush")
    engine = defn.new_engine(params)
    for action in history:
        engine.apply(action)
    result = _review(tmp_path, "i.json", build_infoset(defn, params, engine, 1), *FAST)
    assert result.exit_code == 0, result.output
    assert "\r" not in result.stderr  # CliRunner's stderr is no terminal, like a log file
    lines = result.stderr.splitlines()
    assert lines[0] == "reviewing seat 1: 0/9 decisions, 0 s", lines
    assert lines[-1].startswith("reviewing seat 1: 9/9 decisions"), lines


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_prints_a_line_every_tenth_or_every_few_seconds_when_not_a_terminal():
    import io

    from evaluation.progress import Progress

    out, clock = io.StringIO(), _Clock()
    bar = Progress("playing", "game", total=100, file=out, every_s=30.0, clock=clock)
    for done in range(1, 101):
        # Game 55 takes 35 s: a line 30 s after the last one, though not at a tenth.
        clock.now = done * 0.1 + (35.0 if done >= 55 else 0.0)
        bar.update()
    bar.close()
    lines = out.getvalue().splitlines()
    counts = [int(line.split(": ")[1].split("/")[0]) for line in lines]
    assert counts == [1, 11, 21, 31, 41, 51, 55, 65, 75, 85, 95, 100], lines
    assert lines[1] == "playing: 11/100 games, 1 s, ~9 s left"
    assert lines[-1] == "playing: 100/100 games, 45 s"


def test_progress_on_a_terminal_is_a_bar_that_knows_its_total_from_the_start():
    import io

    from evaluation.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    bar = Progress("reviewing seat 0", "decision", file=out)
    bar.set(0, 13)
    bar.set(4, 13)
    bar.close()
    text = out.getvalue()
    assert "0/13" in text and "4/13" in text and "\r" in text
    assert "seat 0: 0decision" not in text  # tqdm without a total drew a bare counter first


# Modules a command needs only for its own work: the service, the tournament runner, plots.
WATCHED = [
    "flask",
    "server.app",
    "sqlalchemy",
    "gunicorn",
    "gevent",
    "pydantic",
    "matplotlib",
    "evaluation.tournament",
]


def _imported_after(code: str) -> list[str]:
    """The ``WATCHED`` modules a fresh interpreter has imported after running ``code``."""
    import json
    import subprocess
    import sys

    script = (
        f"import sys\ntry:\n    {code}\nexcept SystemExit:\n    pass\n"
        f"print(__import__('json').dumps([m for m in {WATCHED!r} "
        "if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_the_command_line_imports_the_service_and_the_tournament_only_for_their_commands():
    # `atelier --help` took 1.5 s, 0.86 s of it importing Flask through server.app.
    assert _imported_after("import evaluation.cli") == []
    listed = _imported_after("from evaluation.cli import main; main(['--help'])")
    assert listed == ["evaluation.tournament"]  # its --help line; no service, no plots
    played = _imported_after(
        "from evaluation.cli import main; "
        "main(['play', 'finger_auction', '--bot', 'random', '-p', 'rounds=1'])"
    )
    assert played == []
