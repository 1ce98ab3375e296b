"""Scripted blunders (``evaluation.blunders``) and the review's rates on them
(``evaluation.bench.review_flags``, ``atelier bench blunders``): issue 38, target 1."""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

import bots
from evaluation import blunders
from evaluation.bench import review_flags
from evaluation.cli import main

SET = blunders.load()
ENTRIES = [pytest.param(e, id=f"{g}-{i}") for g, es in SET.items() for i, e in enumerate(es)]
SMALL = bots.Budget(simulations=32)


def test_every_game_has_enough_confirmed_blunders():
    assert sorted(SET) == sorted(blunders.GAMES)
    for game, entries in SET.items():
        assert len(entries) >= blunders.MIN_PER_GAME, game
        for entry in entries:
            check = entry["confirm"]
            assert check["samples"] >= 400, entry["rule"]
            assert check["interval"][0] >= blunders.THRESHOLD, (game, check)


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_blunder_is_legal_and_is_what_its_rule_names_there(entry):
    """The position replays legally with the seat to move, the blunder is legal there, its
    stored string is the game's name for it, and the rule re-derives it from the position and
    the heuristic's move (the set is what the builder's rules say, not hand-picked)."""
    b = blunders.replay_entry(entry)
    assert b.defn.action_to_string(b.position, b.seat, b.action) == entry["blunder"]["string"]
    rule = dict(blunders.RULES[entry["game"]])[entry["rule"]]
    legal = b.position.legal_actions()
    assert rule(b.defn, b.position, b.seat, legal, entry["reference"]["id"]) == b.action


def test_the_positions_are_the_seeded_heuristic_games():
    """Each stored history is a decision of its game seed's heuristic game, with the stored
    reference as the heuristic's move there: a rebuild finds the same positions."""
    for game, entries in SET.items():
        entry = entries[0]
        b = blunders.replay_entry(entry)
        found = [
            (h, r)
            for h, seat, _legal, r, _e in blunders.positions(b.defn, b.params, entry["game_seed"])
            if h == entry["history"]
        ]
        assert found == [(entry["history"], entry["reference"]["id"])], game


def test_a_stored_confirmation_is_recomputed_exactly():
    """The confirmation is deterministic: the stored figures come back (one cheap entry)."""
    entry = SET["detective_eye"][0]
    b = blunders.replay_entry(entry)
    stored = entry["confirm"]
    check = blunders.confirm(
        b.defn,
        b.params,
        entry["history"],
        b.seat,
        b.action,
        entry["reference"]["id"],
        stored["samples"],
        stored["seed"],
    )
    assert check == stored


def test_each_confirmation_is_independent_of_the_screen_that_picked_it():
    """The stored confirmation's samples are not the ones that selected the blunder (one
    estimate that both picks and reports is biased upward: the winner's curse); both the
    screen and the confirmation clear the threshold."""
    for game, entries in SET.items():
        for entry in entries:
            screen, check = entry["screen"], entry["confirm"]
            assert check["seed"] == blunders.confirm_seed(screen["seed"]) != screen["seed"]
            assert min(screen["interval"][0], check["interval"][0]) >= blunders.THRESHOLD, game


def test_a_broken_entry_is_named():
    entry = copy.deepcopy(SET["gallery_rush"][0])
    entry["blunder"]["id"] = 99
    with pytest.raises(blunders.BlunderError, match="the blunder is not legal"):
        blunders.replay_entry(entry)
    entry = copy.deepcopy(SET["gallery_rush"][0])
    entry["history"][3] = 99
    with pytest.raises(blunders.BlunderError, match=r"step 3 \(99\) is not legal"):
        blunders.replay_entry(entry)


def test_an_unreadable_set_is_named(tmp_path):
    path = tmp_path / "b.json"
    path.write_text("{")
    with pytest.raises(blunders.BlunderError, match="cannot read the blunder set"):
        blunders.load(path)
    path.write_text(json.dumps({"games": {}}))
    with pytest.raises(blunders.BlunderError, match="has no 'gallery_rush'"):
        review_flags.rates(["gallery_rush"], records=0, path=path)


def test_the_review_flags_most_blunders_at_a_small_budget():
    """Two blunders per game, 32 simulations and 64 pairs: most are flagged (the full rates at
    the review's defaults are the slow test below and ``atelier bench blunders``)."""
    bot = bots.make_bot("ismcts")
    hits = total = 0
    for game in blunders.GAMES:
        row = review_flags.blunder_flags(game, SET[game][:2], bot, SMALL, 64)
        hits += row["flagged"]
        total += row["blunders"]
        assert all(set(i) >= {"value_lost", "interval", "flagged"} for i in row["items"])
        for item in row["items"]:  # a flag stands only where the screen's and the second agree
            assert not item["flagged"] or item["confirmed"] is True, item
            assert (item["confirmed"] is None) == (item["screen_interval"] is None), item
    assert hits >= 0.75 * total, (hits, total)


def test_a_follower_record_is_reviewed_decision_by_decision():
    """The false-flag rate counts flagged decisions out of every decision of the seat that
    followed the bot's hints (one small game)."""
    bot = bots.make_bot("ismcts")
    row = review_flags.false_flags("detective_eye", 1, bot, bots.Budget(simulations=8), 32)
    assert row["records"] == 1 and row["decisions"] > 0
    assert 0 <= row["flagged"] <= row["decisions"]
    assert row["rate"] == round(row["flagged"] / row["decisions"], 4)


def test_atelier_bench_blunders_prints_both_rates():
    args = ["bench", "blunders", "detective_eye", "--limit", "1", "--records", "0"]
    result = CliRunner().invoke(main, [*args, "--simulations", "8", "--samples", "32"])
    assert result.exit_code == 0, result.output
    assert "blunders flagged" in result.output and "detective_eye" in result.output
    assert "1/1 (100%)" in result.output


@pytest.mark.slow
def test_the_review_meets_target_1_at_its_defaults():
    """Issue 38, target 1: at least 80% of every game's blunders flagged, at most 5% of the
    follower decisions (what docs/evaluation.md reports, before and after the new review)."""
    report = review_flags.rates(records=2)
    for game, row in report["games"].items():
        assert row["blunders"]["rate"] >= 0.8, (game, row["blunders"])
        assert row["followers"]["rate"] <= 0.05, (game, row["followers"])


@pytest.mark.slow
def test_finger_auctions_follower_flags_over_twelve_records():
    """Issue 38, target 1, where the screen alone missed it: over 12 Finger Auction records
    with seed 1 (a budget of simulations only, so the same on every run) the screen flagged
    11 of 119 decisions; each flag is now confirmed by a second estimate, which keeps 2."""
    bot = bots.make_bot("ismcts")
    row = review_flags.false_flags("finger_auction", 12, bot, bots.Budget(simulations=200), 100, 1)
    assert row["decisions"] == 119 and row["rate"] <= 0.05, row
