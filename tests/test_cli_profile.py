"""``atelier profile``: a fit from game records, and clear errors for bad records, seats and too
few decisions."""

from __future__ import annotations

import json
import random

from click.testing import CliRunner

import games
from bots.heuristics import knowledge_for
from bots.profiles.policy import ProfiledPolicy
from evaluation.cli import main
from games.core.engine import CHANCE
from games.core.infoset import build_infoset


def played(game: str, players: int, profiled_seat: int, profile: dict, seed: int):
    """A game with the profiled heuristic at ``profiled_seat``: (params, engine)."""
    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    knowledge = knowledge_for(game)
    policy = ProfiledPolicy(knowledge, profile)
    rng = random.Random(seed)
    engine = defn.new_engine(params)
    while not engine.is_terminal():
        player = engine.current_player()
        if player == CHANCE:
            engine.apply(engine.sample_chance(rng))
        elif player == profiled_seat:
            engine.apply(policy.choose(engine, rng))
        else:
            engine.apply(knowledge.choose(engine, rng))
    return params, engine


def games_file(tmp_path, count=20):
    """A tournament-style games file: the reckless explorer rotates over the seats."""
    path = tmp_path / "games.jsonl"
    lines = []
    for i in range(count):
        seat = i % 2
        params, engine = played("gallery_rush", 2, seat, {"explore_until": 3}, i)
        labels = ["heuristic", "heuristic"]
        labels[seat] = "reckless"
        lines.append(
            json.dumps(
                {
                    "index": i,
                    "game": "gallery_rush",
                    "params": params,
                    "seats": labels,
                    "history": list(engine.history),
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def run(*args):
    return CliRunner().invoke(main, ["profile", *map(str, args)])


def test_profile_fits_the_labelled_seat_of_a_games_file(tmp_path):
    result = run(games_file(tmp_path), "--label", "reckless")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["profile"]["explore_until"] == 3
    low, high = out["intervals"]["explore_until"]
    assert low <= 3 <= high and low > 0
    assert out["log_likelihood"] > out["neutral_log_likelihood"]
    assert out["seat"] == [0, 1]


def test_profile_reads_a_match_view_with_a_seat_infoset(tmp_path):
    # A finished match seen by seat 1 (its infoset): seat 0's moves are fitted.
    paths = []
    for i in range(6):
        params, engine = played("gallery_rush", 2, 0, {"stop_at": 1}, 100 + i)
        defn = games.definition("gallery_rush")
        view = {
            "match_id": f"m{i}",
            "game": "gallery_rush",
            "params": params,
            "events": [],
            "infoset": build_infoset(defn, params, engine, 1, with_view=False),
        }
        path = tmp_path / f"match{i}.json"
        path.write_text(json.dumps(view))
        paths.append(path)
    result = run(*paths, "--seat", 0, "--worlds", 2, "--tendency", "stop_at")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["profile"] == {"stop_at": 1}


def test_profile_errors_name_the_problem(tmp_path):
    good = games_file(tmp_path, count=2)
    cases = [
        ((tmp_path / "missing.jsonl", "--seat", 0), "cannot read"),
        ((good, "--seat", 2), "seat 2 does not exist in a 2-player game"),
        ((good, "--label", "nobody"), "no seat labelled 'nobody'"),
        ((good,), "--seat N or --label LABEL"),
        ((good, "--seat", 0, "--tendency", "bid_scale"), "'bid_scale' is no tendency"),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": "gallery_rush", "history": [0]}\nnot json\n')
    cases.append(((bad, "--seat", 0), "line 2 is not JSON"))
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps({"game": "gallery_rush", "history": [99, 99]}))
    cases.append(((illegal, "--seat", 0), "not a playable history"))
    public = tmp_path / "public.json"
    public.write_text(json.dumps({"match_id": "x", "game": "gallery_rush", "events": []}))
    cases.append(((public, "--seat", 0), "only the public events"))
    short = tmp_path / "short.jsonl"
    _, engine = played("gallery_rush", 2, 0, {}, 1)
    short.write_text(json.dumps({"game": "gallery_rush", "history": engine.history[:12]}))
    cases.append(((short, "--seat", 0), "a fit needs at least"))
    for args, words in cases:
        result = run(*args)
        assert result.exit_code != 0, (args, result.output)
        assert words in result.output, (args, result.output)
