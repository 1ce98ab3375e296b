"""Tournaments without worker processes: schedule, seeds, the games file, resume, statistics.

Everything here runs in this process (``SerialExecutor``) and takes a few seconds; the
executor, Dask and kill tests are in ``test_tournament_run.py``.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from contextlib import contextmanager
from typing import Any

import pytest

import games
from bots import ActionStat, Bot, Budget, Hint
from evaluation.tournament import (
    ExecutorHandle,
    GamesFile,
    SerialExecutor,
    TournamentError,
    TournamentSpec,
    derive_seed,
    deterministic_part,
    parse_bot_arg,
    run_tournament,
    summary_for,
)
from evaluation.tournament.play import GameFailed, inverse_cdf, play_batch, play_game
from evaluation.tournament.stats import (
    bot_table,
    elo_ratings,
    elo_row,
    mean_ci,
    openskill_ratings,
    pair_games,
    pair_scores,
    pairwise,
    t_quantile,
    win_shares,
)
from games.core.engine import CHANCE

GAME = "gallery_rush"


def spec2(deals: int = 3, seed: int = 7, bots=("a", "b", "c")) -> TournamentSpec:
    return TournamentSpec.build(
        GAME, {"players": 2}, [(b, "random") for b in bots], deals=deals, seed=seed
    )


@contextmanager
def serial():
    yield ExecutorHandle(SerialExecutor(), 1, "serial")


def strip(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "timing"}


# --- seeds and schedule ----------------------------------------------------------------------
def test_derive_seed_is_pinned_and_63_bit():
    # Pinned: changing the derivation would silently change every published tournament.
    assert derive_seed(1, 2) != derive_seed(12) and derive_seed(1, 2) != derive_seed(2, 1)
    values = {derive_seed("x", i) for i in range(1000)}
    assert len(values) == 1000 and all(0 <= v < 2**63 for v in values)
    assert derive_seed("atelier", 1) == 6111936192852337356


def test_round_robin_two_players_every_bot_every_seat_same_deals():
    spec = spec2(deals=4)
    slots = spec.schedule()
    assert spec.games_per_deal == 6  # 3 pairs x 2 rotations
    assert [s.index for s in slots] == list(range(24))
    assert [s.deal for s in slots] == [i // 6 for i in range(24)]
    seat_counts = Counter((spec.labels[b], seat) for s in slots for seat, b in enumerate(s.seats))
    assert set(seat_counts.values()) == {8}  # every bot, every seat, equally often
    # Every lineup plays every deal in both rotations.
    per_deal = Counter((s.deal, s.lineup) for s in slots)
    assert set(per_deal.values()) == {2}


def test_gauntlet_and_short_fields_and_periodic_rotations():
    bots = [(b, "random") for b in ("hero", "x", "y")]
    g = TournamentSpec.build(GAME, {"players": 3}, bots, format="gauntlet", deals=1)
    assert g.lineups() == [(0, 1, 1), (0, 2, 2)]
    assert [s.seats for s in g.schedule()] == [
        (0, 1, 1),
        (1, 1, 0),
        (1, 0, 1),
        (0, 2, 2),
        (2, 2, 0),
        (2, 0, 2),
    ]
    two = TournamentSpec.build(GAME, {"players": 4}, bots[:2], deals=1)
    assert two.lineups() == [(0, 0, 0, 1), (0, 0, 1, 1), (0, 1, 1, 1)]
    assert TournamentSpec.rotations((0, 1, 0, 1)) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    rr = TournamentSpec.build(GAME, {"players": 3}, [(b, "random") for b in "abcd"], deals=1)
    assert len(rr.lineups()) == 4 and rr.total_games == 12


def test_seeds_depend_on_index_and_deal_only():
    spec = spec2(deals=2)
    slots = spec.schedule()
    tasks = [spec.task(s) for s in slots]
    assert len({t["seed"] for t in tasks}) == len(tasks)
    assert len({t["deal_seed"] for t in tasks}) == 2
    assert all(t["deal_seed"] == tasks[0]["deal_seed"] for t in tasks[:6])
    # A bigger tournament with the same seed keeps the first deals' seeds and games.
    bigger = spec2(deals=5)
    assert [bigger.task(s) for s in bigger.schedule()[:12]] == tasks
    assert spec2(seed=8).task(slots[0])["seed"] != tasks[0]["seed"]


def test_fingerprint_normalises_specs_and_tracks_every_setting():
    a = TournamentSpec.build(GAME, {}, [("a", "random"), ("b", {"name": "random"})])
    b = TournamentSpec.build(
        GAME, {"players": 2}, [("a", {"name": "random", "options": {}}), ("b", "random")]
    )
    assert a.fingerprint == b.fingerprint
    others = [
        TournamentSpec.build(GAME, {}, [("a", "random"), ("b", "random")], seed=1),
        TournamentSpec.build(GAME, {}, [("a", "random"), ("b", "random")], deals=11),
        TournamentSpec.build(GAME, {}, [("a", "random"), ("c", "random")]),
        TournamentSpec.build(
            GAME, {}, [("a", "random"), ("b", "random")], budget=Budget(simulations=5)
        ),
        TournamentSpec.build(GAME, {"max_turns": 100}, [("a", "random"), ("b", "random")]),
    ]
    assert len({a.fingerprint, *(o.fingerprint for o in others)}) == 6


@pytest.mark.parametrize(
    "game,params,bots,kw,message",
    [
        ("nope", {}, [("a", "random"), ("b", "random")], {}, "unknown game"),
        (GAME, {}, [("a", "random")], {}, "at least two bots"),
        (GAME, {}, [("a", "random"), ("a", "random")], {}, "labelled 'a'"),
        (GAME, {}, [("a", "random"), ("b", "alphago")], {}, "unknown bot 'alphago'"),
        (GAME, {}, [("a b", "random"), ("b", "random")], {}, "label"),
        (GAME, {}, [("a", "random"), ("b", "random")], {"deals": 0}, "deals must be >= 1"),
        (GAME, {}, [("a", "random"), ("b", "random")], {"format": "swiss"}, "unknown format"),
    ],
)
def test_spec_errors_are_readable(game, params, bots, kw, message):
    with pytest.raises(TournamentError, match=message):
        TournamentSpec.build(game, params, bots, **kw)


def test_bad_game_parameter_names_the_parameter():
    with pytest.raises(games.InvalidParams, match="players"):
        TournamentSpec.build(GAME, {"players": 9}, [("a", "random"), ("b", "random")])


def test_parse_bot_arg():
    assert parse_bot_arg("random") == (None, "random")
    assert parse_bot_arg("r1=random") == ("r1", "random")
    assert parse_bot_arg('x={"name": "random"}') == ("x", {"name": "random"})
    assert parse_bot_arg('{"name": "random", "options": {}}') == (
        None,
        {"name": "random", "options": {}},
    )


def test_the_old_search_is_a_bot_by_its_alias_in_every_command():
    from evaluation.baselines import ISMCTS_LEGACY
    from evaluation.params import parse_bot_spec

    assert parse_bot_spec("ismcts-legacy") == ISMCTS_LEGACY.spec()
    assert parse_bot_spec("ismcts") == "ismcts"  # a registered name is not an alias
    spec = TournamentSpec.build(GAME, None, [parse_bot_arg("ismcts-legacy"), (None, "random")])
    old = spec.entrants[0]
    assert old.label == "ismcts-legacy"
    assert old.spec["options"] == {**old.spec["options"], **ISMCTS_LEGACY.spec()["options"]}


# --- playing games ---------------------------------------------------------------------------
def test_inverse_cdf():
    outcomes = [(3, 0.25), (5, 0.5), (9, 0.25)]
    assert [inverse_cdf(outcomes, u) for u in (0.0, 0.24, 0.25, 0.74, 0.75, 0.999)] == [
        3,
        3,
        5,
        5,
        9,
        9,
    ]


def _opening(spec: TournamentSpec, index: int) -> list[int]:
    """The chance steps before the first player move of game ``index``, replayed."""
    defn = games.definition(spec.game)
    task = spec.task(spec.schedule()[index])
    rec = play_game(defn, spec.params, spec.budget, task)
    assert rec["index"] == index
    engine = defn.new_engine(spec.params)
    rng = random.Random(task["deal_seed"])
    opening = []
    while engine.current_player() == CHANCE:
        action = inverse_cdf(engine.chance_outcomes(), rng.random())
        opening.append(action)
        engine.apply(action)
    return opening


def test_games_of_one_deal_share_the_opening_and_records_are_reproducible():
    spec = spec2(deals=2)
    defn = games.definition(GAME)
    # Rotations and lineups of deal 0 share the chance stream; deal 1 has its own.
    assert _opening(spec, 0) == _opening(spec, 1) == _opening(spec, 5)
    tasks = [spec.task(s) for s in spec.schedule()]
    records = [play_game(defn, spec.params, spec.budget, t) for t in tasks[:3]]
    again = [play_game(defn, spec.params, spec.budget, t) for t in tasks[:3]]
    assert [deterministic_part(r) for r in records] == [deterministic_part(r) for r in again]
    for r in records:
        assert sum(r["moves"]) <= r["length"] and len(r["returns"]) == 2
        assert r["time"]["wall_ms"] > 0 and len(r["time"]["ms_per_move"]) == 2


class CrashBot(Bot):
    name = "crash_test"
    description = "Raises on its third move (tests only)."

    def hint(self, defn, params, infoset, budget, seed, *, replayed=None) -> Hint:
        mine = sum(1 for e in infoset["events"] if e.get("seat") == infoset["seat"])
        if mine >= 2:
            raise RuntimeError("boom")
        legal = infoset["view"]["legal_actions"]
        return Hint(legal[0]["id"], [ActionStat(legal[0]["id"], 1.0)])


class CheatBot(Bot):
    name = "cheat_test"
    description = "Answers with an illegal action (tests only)."

    def hint(self, defn, params, infoset, budget, seed, *, replayed=None) -> Hint:
        return Hint(10**6, [ActionStat(10**6, 1.0)])


@pytest.mark.parametrize(
    "cls,message", [(CrashBot, "RuntimeError: boom"), (CheatBot, "illegal action 1000000")]
)
def test_a_failing_bot_is_reported_by_game_seat_and_label(monkeypatch, tmp_path, cls, message):
    import bots.registry

    monkeypatch.setitem(bots.registry.BOTS, cls.name, cls)
    spec = TournamentSpec.build(GAME, {}, [("good", "random"), ("bad", cls.name)], deals=1)
    out = play_batch(spec.batch(spec.schedule()))
    assert "error" in out[-1] and "bot 'bad' at seat" in out[-1]["error"]
    assert message in out[-1]["error"]
    with pytest.raises(TournamentError, match="bot 'bad'"):
        run_tournament(spec, tmp_path / "g.jsonl", serial)
    with pytest.raises(GameFailed):
        play_game(games.definition(GAME), spec.params, spec.budget, spec.task(spec.schedule()[0]))


# --- the games file and resume ---------------------------------------------------------------
def test_run_writes_one_line_per_game_and_reruns_are_idempotent(tmp_path):
    spec = spec2(deals=2)
    out = tmp_path / "games.jsonl"
    first = run_tournament(spec, out, serial, bootstrap=50)
    lines = out.read_text().splitlines()
    assert len(lines) == spec.total_games == first.played
    assert sorted(json.loads(x)["index"] for x in lines) == list(range(spec.total_games))
    assert json.loads(lines[0])["tournament"] == spec.fingerprint

    def boom():
        raise AssertionError("a finished tournament must not start an executor")

    again = run_tournament(spec, out, boom, bootstrap=50)
    assert again.played == 0 and again.resumed == spec.total_games
    assert strip(again.summary) == strip(first.summary)
    assert out.read_text().splitlines() == lines


class Stop(Exception):
    pass


def test_resume_after_interruptions_at_random_points_matches_an_uninterrupted_run(tmp_path):
    spec = spec2(deals=3)
    reference = run_tournament(spec, tmp_path / "ref.jsonl", serial, bootstrap=100)
    ref_records = [deterministic_part(r) for r in reference.records]
    rng = random.Random(2024)
    out = tmp_path / "games.jsonl"
    interruptions = 0
    while True:
        stop_at = rng.randint(1, 6)
        seen = 0

        def maybe_stop(record, stop_at=stop_at):
            nonlocal seen
            seen += 1
            if seen == stop_at:
                raise Stop

        try:
            outcome = run_tournament(spec, out, serial, bootstrap=100, on_record=maybe_stop)
            break
        except Stop:
            interruptions += 1
            # A kill can also cut the last line short: simulate it half the time.
            if rng.random() < 0.5:
                with open(out, "a") as fh:
                    fh.write('{"tournament": "' + spec.fingerprint + '", "index": 1')
    assert interruptions >= 2
    assert [deterministic_part(r) for r in outcome.records] == ref_records
    assert strip(outcome.summary) == strip(reference.summary)
    lines = out.read_text().splitlines()
    assert len(lines) == spec.total_games  # nothing lost, nothing duplicated


def load(path, spec):
    with GamesFile(path, spec) as store:
        return store.load()


def test_games_file_refuses_other_tournaments_and_corruption(tmp_path):
    spec = spec2(deals=1)
    out = tmp_path / "g.jsonl"
    run_tournament(spec, out, serial, bootstrap=0)
    other = spec2(deals=1, seed=99)
    with pytest.raises(TournamentError, match=r"different tournament.*--restart"):
        run_tournament(other, out, serial, bootstrap=0)
    restarted = run_tournament(other, out, serial, restart=True, bootstrap=0)
    assert restarted.resumed == 0 and restarted.played == other.total_games

    lines = out.read_text().splitlines()
    out.write_text("\n".join([lines[0], lines[0], *lines[1:]]) + "\n")  # identical duplicate
    assert len(load(out, other)) == other.total_games

    bad = json.loads(lines[0])
    bad["returns"] = [5.0, -5.0]
    out.write_text("\n".join([json.dumps(bad), *lines]) + "\n")
    with pytest.raises(TournamentError, match="appears twice with different results"):
        load(out, other)
    out.write_text("not json\n" + "\n".join(lines) + "\n")
    with pytest.raises(TournamentError, match="line 1 is not valid JSON"):
        load(out, other)
    bad = json.loads(lines[0])
    bad["index"] = 99
    out.write_text(json.dumps(bad) + "\n")
    with pytest.raises(TournamentError, match="index 99"):
        load(out, other)
    with pytest.raises(TournamentError, match="is a directory"):
        load(tmp_path, other)


def test_two_runs_cannot_append_to_one_file(tmp_path):
    spec = spec2(deals=1)
    with GamesFile(tmp_path / "g.jsonl", spec) as first:
        first.load()
        with pytest.raises(TournamentError, match="another tournament run"):
            GamesFile(tmp_path / "g.jsonl", spec).load()


# --- statistics on hand-made data ------------------------------------------------------------
def test_t_quantiles_match_tables():
    table = {1: 12.7062, 2: 4.3027, 3: 3.1824, 5: 2.5706, 10: 2.2281, 30: 2.0423, 120: 1.9799}
    for df, value in table.items():
        assert t_quantile(df) == pytest.approx(value, abs=1e-4)
    assert t_quantile(10**6) == pytest.approx(1.95996, abs=1e-5)


def test_mean_ci_and_win_shares():
    mean, ci = mean_ci([1.0, 2.0, 3.0, 4.0])
    half = 3.182446305 * math.sqrt(5 / 3) / 2
    assert mean == 2.5 and ci == pytest.approx([2.5 - half, 2.5 + half])
    assert mean_ci([3.0]) == (3.0, None)
    assert win_shares([1.0, 1.0, -2.0]) == [0.5, 0.5, 0.0]
    assert win_shares([0.0, 0.0, 0.0]) == pytest.approx([1 / 3] * 3)
    assert win_shares([-1.0, 1.0]) == [0.0, 1.0]


def rec(index, deal, seats, returns, moves=None):
    return {
        "index": index,
        "deal": deal,
        "seats": seats,
        "returns": returns,
        "moves": moves or [1] * len(seats),
    }


def test_bot_table_averages_per_deal_then_over_deals():
    records = [
        rec(0, 0, ["a", "b"], [1.0, -1.0]),
        rec(1, 0, ["b", "a"], [1.0, -1.0]),
        rec(2, 1, ["a", "b"], [1.0, -1.0]),
        rec(3, 1, ["b", "a"], [-1.0, 1.0]),
        rec(4, 2, ["a", "b"], [0.0, 0.0]),
        rec(5, 2, ["b", "a"], [0.0, 0.0]),
    ]
    a, b = bot_table(["a", "b"], records)
    # a's per-deal means: 0, 1, 0 -> mean 1/3, sd 0.57735, t(2) = 4.302653
    half = 4.302652730 * (1 / math.sqrt(3)) / math.sqrt(3)
    assert a["mean_return"] == pytest.approx(1 / 3)
    assert a["mean_return_ci95"] == pytest.approx([1 / 3 - half, 1 / 3 + half])
    assert b["mean_return"] == pytest.approx(-1 / 3)
    # Win shares per deal: a 0.5, 1, 0.5 (the draws split the win).
    assert a["win_share"] == pytest.approx(2 / 3) and b["win_share"] == pytest.approx(1 / 3)
    assert a["games"] == 6 and a["deals"] == 3
    assert a["mean_return_by_seat"] == pytest.approx([2 / 3, 0.0])
    assert b["mean_return_by_seat"] == pytest.approx([0.0, -2 / 3])


def test_pairwise_counts_each_game_once_per_pair_with_ties_half():
    records = [
        rec(0, 0, ["h", "x", "x"], [1.0, 0.0, -1.0]),  # h above both x: 1 ; x-x not compared
        rec(1, 0, ["x", "h", "x"], [0.5, 0.5, -1.0]),  # h ties one x, beats the other: 0.75
        rec(2, 0, ["y", "x", "h"], [2.0, -1.0, -1.0]),  # h ties x: 0.5; h below y: 0
    ]
    pw = pairwise(["h", "x", "y"], records)
    assert pw["score"][0][1] == pytest.approx((1 + 0.75 + 0.5) / 3)
    assert pw["score"][1][0] == pytest.approx(1 - (1 + 0.75 + 0.5) / 3)
    assert pw["games"][0][1] == 3 and pw["games"][0][2] == 1 and pw["score"][0][2] == 0.0
    assert pw["score"][0][0] is None and pw["games"][1][1] == 0
    assert pw["return_diff"][0][1] == pytest.approx((1.5 + 0.75 + 0.0) / 3)


def test_elo_from_hand_made_results():
    # a beats b 3 times out of 4 on each of 4 deals: Bradley-Terry gives 400 log10(3) = 190.8
    # (OpenSpiel's 0.01 smoothing pulls it in by about one point).
    records = []
    for d in range(4):
        for k, ret in enumerate([1.0, 1.0, 1.0, -1.0]):
            seats = ["a", "b"] if k % 2 == 0 else ["b", "a"]
            returns = [ret, -ret] if seats[0] == "a" else [-ret, ret]
            records.append(rec(len(records), d, seats, returns))
    elo = elo_ratings(["a", "b"], records, bootstrap=200, seed=1)
    assert elo["bots"]["a"]["rating"] == 0.0 and elo["anchor"] == "a"
    assert elo["bots"]["b"]["rating"] == pytest.approx(-400 * math.log10(3), abs=2.0)
    # Every deal has the same results, so every resample does too: a zero-width interval.
    assert elo["bots"]["b"]["ci95"] == pytest.approx([elo["bots"]["b"]["rating"]] * 2)
    # Deals that disagree widen the interval, and the interval is reproducible.
    records.append(rec(16, 4, ["a", "b"], [-1.0, 1.0]))
    records.append(rec(17, 4, ["b", "a"], [1.0, -1.0]))
    wide = elo_ratings(["a", "b"], records, bootstrap=200, seed=1)
    lo, hi = wide["bots"]["b"]["ci95"]
    assert lo < wide["bots"]["b"]["rating"] < hi
    assert wide == elo_ratings(["a", "b"], records, bootstrap=200, seed=1)
    draws = elo_ratings(["a", "b"], [rec(0, 0, ["a", "b"], [0.0, 0.0])], bootstrap=0)
    assert draws["bots"]["b"]["rating"] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize(
    "results",
    [
        [1.0] * 8,  # a perfect record: once 1600 from a clip, against the table's 1282
        [1.0, 1.0, 1.0, -1.0] * 3,
        [1.0, 0.0, -1.0, 1.0, 0.0, 1.0],  # draws count half on both sides
        [-1.0, -1.0, 0.0, -1.0],
    ],
)
def test_pairwise_elo_is_the_tables_bradley_terry_point_for_two_bots(results):
    """The luck section and the SPRT print the pairwise Elo of the mean expected score; with
    two bots and win/draw/loss returns it must be the table's rating, to the digit, including
    for an unbeaten bot (both use OpenSpiel's 0.01 smoothing)."""
    records = []
    for k, ret in enumerate(results):
        seats = ["a", "b"] if k % 2 == 0 else ["b", "a"]
        returns = [ret, -ret] if seats[0] == "a" else [-ret, ret]
        records.append(rec(k, k // 2, seats, returns))
    table = elo_ratings(["a", "b"], records, bootstrap=0)["bots"]["b"]["rating"]
    scores = pair_scores(records, "a", "b", 2.0, False)
    row = elo_row(scores, pair_games(records, "a", "b"))
    assert row["elo"] == pytest.approx(-table, abs=1e-6)
    # The interval is over the score's range [0, 1] and so within the perfect records' Elo.
    perfect = elo_row([1.0, 1.0], len(results))["elo"]
    assert 0.0 <= row["score_ci95"][0] <= row["score"] <= row["score_ci95"][1] <= 1.0
    assert -perfect <= row["elo_ci95"][0] <= row["elo"] <= row["elo_ci95"][1] <= perfect


def test_openskill_follows_the_model_and_averages_copies():
    from openskill.models import PlackettLuce

    records = [
        rec(0, 0, ["a", "b", "c"], [3.0, 2.0, 1.0]),
        rec(1, 0, ["b", "c", "a"], [1.0, 1.0, 0.0]),
    ]
    got = openskill_ratings(["a", "b", "c"], records)
    model = PlackettLuce()
    r = {b: model.rating() for b in "abc"}
    for x in records:
        teams = [[r[b]] for b in x["seats"]]
        new = model.rate(teams, scores=x["returns"])
        for b, team in zip(x["seats"], new, strict=True):
            r[b] = team[0]
    for b in "abc":
        assert got["bots"][b]["mu"] == pytest.approx(r[b].mu)
        assert got["bots"][b]["sigma"] == pytest.approx(r[b].sigma)
    assert got["bots"]["a"]["mu"] < got["bots"]["b"]["mu"]
    # Copies of one bot in a game: its update is the mean of its copies' updates.
    dup = openskill_ratings(["h", "x"], [rec(0, 0, ["h", "x", "x"], [1.0, 0.0, -1.0])])
    m = PlackettLuce()
    new = m.rate([[m.rating()], [m.rating()], [m.rating()]], scores=[1.0, 0.0, -1.0])
    assert dup["bots"]["x"]["mu"] == pytest.approx((new[1][0].mu + new[2][0].mu) / 2)
    assert dup["bots"]["h"]["mu"] == pytest.approx(new[0][0].mu)


def test_summary_shape_for_a_three_player_game(tmp_path):
    spec = TournamentSpec.build(
        GAME, {"players": 3}, [(b, "random") for b in "abc"], format="gauntlet", deals=2
    )
    outcome = run_tournament(spec, tmp_path / "g.jsonl", serial)
    s = outcome.summary
    assert s["games"] == {"planned": 12, "played": 12, "complete": True, "deals_played": 2}
    assert s["ratings"]["method"] == "openskill"
    assert [b["label"] for b in s["bots"]] == ["a", "b", "c"]
    shares = {b["label"]: b["win_share"] * b["appearances"] for b in s["bots"]}
    assert sum(shares.values()) == pytest.approx(12)  # one win per game, split on ties
    assert s["tournament"]["fingerprint"] == spec.fingerprint
    assert summary_for(spec, list(reversed(outcome.records)), 1000) == s
