"""``atelier analyse``: one position or every decision of a record, as a table."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evaluation.cli import main
from games.core.infoset import build_infoset
from tests.support import heuristic_game


def records(tmp_path):
    defn, params, engine = heuristic_game("gallery_rush", seed=2)
    infoset = build_infoset(defn, params, engine, 0, with_view=False)
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"game": "gallery_rush", "history": list(engine.history)}))
    whole = tmp_path / "infoset.json"
    whole.write_text(json.dumps(infoset))
    return engine, infoset, state, whole


def test_every_decision_of_a_whole_state_record_with_the_moves_played(tmp_path):
    engine, _, state, _ = records(tmp_path)
    out_json = tmp_path / "out.json"
    args = ["analyse", str(state), "--seat", "1", "--simulations", "10", "--top", "2"]
    r = CliRunner().invoke(main, [*args, "--json", str(out_json)])
    assert r.exit_code == 0, r.output
    done = json.loads(out_json.read_text())
    assert len(done) > 1
    for p in done:
        assert p["played"]["id"] == engine.history[p["step"]]
        moves = p["analysis"]["moves"]
        assert p["played"]["id"] in [m["id"] for m in moves]
        assert moves[0]["id"] == p["analysis"]["best"]["id"]
        # The table lists each position, its best move marked and the move played.
        assert f"step {p['step']}: value" in r.output
    assert r.output.count("<- played") == len(done)


def test_one_position_names_extra_moves_and_refuses_a_position_not_to_move(tmp_path):
    import games
    from bots.review import infoset_before, plan_review

    _, infoset, _, whole = records(tmp_path)
    r = CliRunner().invoke(main, ["analyse", str(whole)])
    assert r.exit_code != 0 and "--every-decision" in r.output, r.output
    defn = games.definition("gallery_rush")
    params = defn.validate_params({})
    step = plan_review(defn, params, infoset, 0)["decisions"][0]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(infoset_before(infoset, step["step"])))
    played = step["played"]["string"]
    args = ["analyse", str(cut), "--simulations", "10", "--top", "1", "--move", played]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert played in r.output and r.output.count("\n  ") <= 3
    r = CliRunner().invoke(main, [*args[:-1], "no such move"])
    assert r.exit_code == 2 and "--move" in r.output, r.output
