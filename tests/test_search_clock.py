"""Search budgets in CPU time (``bots.search_clock``): what strength benchmarks on a shared
machine count, so that a 500 ms row is the search a quiet core gives, whatever the load."""

from __future__ import annotations

import time

import pyspiel
import pytest

from bots import Budget, search_clock
from bots.protocol import Clock
from evaluation.bench import strength
from evaluation.tournament import TournamentError, TournamentSpec
from evaluation.tournament import play as tournament_play

GAME = "gallery_rush"
BOTS = [("a", "random"), ("b", "random")]


def test_a_cpu_budget_does_not_run_out_while_the_thread_waits():
    """Sleeping uses no CPU: the wall clock's 30 ms are gone, the CPU clock's are not."""
    with search_clock.measured_by("cpu"):
        cpu = Clock(Budget(milliseconds=30))
    wall = Clock(Budget(milliseconds=30))
    time.sleep(0.06)
    assert not wall.running()
    assert cpu.running()
    assert cpu.elapsed_ms() < 30


def test_the_clock_is_wall_time_outside_the_block_even_after_an_error():
    assert search_clock.current() is time.perf_counter
    with pytest.raises(RuntimeError), search_clock.measured_by("cpu"):
        assert search_clock.current() is time.thread_time
        raise RuntimeError("a bot failed")
    assert search_clock.current() is time.perf_counter


def test_an_unknown_clock_is_named():
    with pytest.raises(ValueError, match="unknown clock 'gpu'; known: \\['cpu', 'wall'\\]"):
        search_clock.measured_by("gpu").__enter__()


def test_a_tournament_counts_cpu_milliseconds_only_when_asked_and_only_with_a_time_budget():
    wall = TournamentSpec.build(GAME, {}, BOTS, budget=Budget(milliseconds=50))
    cpu = TournamentSpec.build(GAME, {}, BOTS, budget=Budget(milliseconds=50), clock="cpu")
    assert "clock" not in wall.to_json()  # tournaments stored before the option keep theirs
    assert cpu.to_json()["clock"] == "cpu"
    assert cpu.fingerprint != wall.fingerprint
    with pytest.raises(TournamentError, match="--clock cpu counts a time budget"):
        TournamentSpec.build(GAME, {}, BOTS, budget=Budget(simulations=5), clock="cpu")
    with pytest.raises(TournamentError, match="unknown clock 'sun'"):
        TournamentSpec.build(GAME, {}, BOTS, budget=Budget(milliseconds=5), clock="sun")


@pytest.mark.parametrize("clock,expected", [("wall", time.perf_counter), ("cpu", time.thread_time)])
def test_a_tournament_batch_plays_its_games_on_its_clock(monkeypatch, clock, expected):
    spec = TournamentSpec.build(GAME, {}, BOTS, deals=1, budget=Budget(milliseconds=5), clock=clock)
    seen = []

    def fake_game(defn, params, budget, task):
        seen.append(search_clock.current())
        return {"index": task["index"]}

    monkeypatch.setattr(tournament_play, "play_game", fake_game)
    tournament_play.play_batch(spec.batch(spec.schedule()[:2]))
    assert seen == [expected, expected]
    assert search_clock.current() is time.perf_counter


def test_bench_strength_reads_cpu_budgets_and_keeps_stored_wall_games_keys():
    assert strength.parse_budget("500ms-cpu") == {"milliseconds": 500.0, "clock": "cpu"}
    assert strength.budget_label({"milliseconds": 500.0, "clock": "cpu"}) == "500 ms of CPU"
    with pytest.raises(ValueError, match="'500ms-cpu'"):
        strength.parse_budget("-1ms-cpu")
    a, b = strength.seats_for("ismcts-vs-heuristic", {"milliseconds": 500.0}, 200.0)
    assert "clock" not in a.key()  # the key every stored game was filed under
    cpu, _ = strength.seats_for(
        "ismcts-vs-heuristic", {"milliseconds": 500.0, "clock": "cpu"}, 200.0
    )
    assert cpu.clock == "cpu" and cpu.key()["clock"] == "cpu"
    job = ("finger_auction", {}, a, b, 0, 1)
    assert strength.GamesFile.key(job) != strength.GamesFile.key(
        ("finger_auction", {}, cpu, b, 0, 1)
    )


def test_bench_strength_searches_on_the_seats_clock(monkeypatch):
    seen = []

    class Fake:
        def hint(self, defn, params, infoset, budget, seed):
            seen.append(search_clock.current())
            return type("H", (), {"action": 0, "iterations": 1})()

    monkeypatch.setattr(strength, "make_bot", lambda spec: Fake())
    game = pyspiel.load_game("finger_auction", {"players": 2})
    seat, _ = strength.seats_for("ismcts-vs-heuristic", strength.parse_budget("50ms-cpu"), 200.0)
    strength._chooser(seat, game)(game.definition.new_engine(game.params), 1)
    assert seen == [time.thread_time]
