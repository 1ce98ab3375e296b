"""The Gallery Rush ceiling experiment (``evaluation.bench.gallery_rush_ceiling``) is sound:
its best responder plays legal, reproducible moves, and its report adds up."""

from __future__ import annotations

import random

import pytest

import games
from evaluation.bench import gallery_rush_ceiling as ceiling
from games.core.engine import CHANCE


def test_rollout_improver_plays_legal_reproducible_moves():
    improver = ceiling.RolloutImprover(ceiling._uniform, rollouts=6)
    defn = games.definition("gallery_rush")
    engine = defn.new_engine(defn.validate_params({"players": 2}))
    rng = random.Random(3)
    decisions = 0
    while not engine.is_terminal() and decisions < 40:
        if engine.current_player() == CHANCE:
            engine.apply(engine.sample_chance(rng))
            continue
        action = improver.choose(engine, decisions)
        assert action in engine.legal_actions()
        assert improver.choose(engine.copy(), decisions) == action
        engine.apply(action)
        decisions += 1
    assert decisions >= 10


def test_measure_reports_scores_and_mona_lisa_losses_consistently():
    heuristic = ceiling._bot_chooser("heuristic")
    rand = ceiling._bot_chooser("random")
    row = ceiling.measure("heuristic vs random", heuristic, rand, deals=3)
    assert row["games"] == 6
    assert row["ci95"][0] <= row["score"] <= row["ci95"][1]
    assert 0.0 <= row["lost_to_mona_lisa"] <= 1.0 - row["score"] + 1e-9
    assert ceiling.measure("heuristic vs random", heuristic, rand, deals=3)["score"] == row["score"]


def test_command_line_refuses_bad_sizes(capsys):
    with pytest.raises(SystemExit):
        ceiling.main(["--deals", "0"])
    assert "--deals must be >= 1" in capsys.readouterr().err
