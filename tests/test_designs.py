"""The published-design opponents (``bots.designs``): every player count played to the end
legally and deterministically through the hint path, and each design's defining behaviour."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import games
from bots.designs.detective_eye import support
from bots.designs.finger_auction import proportional_bid, table_value
from bots.designs.modern_art import (
    FractionValueBot,
    current_values,
    expected_plays,
    richest_other,
)
from bots.protocol import Budget, InvalidBotSpec
from bots.registry import BOTS, make_bot
from evaluation.designs_table import main, rows
from games.core.episode import ask_bots, play_episode, sampled_chance
from games.core.infoset import build_infoset
from games.core.seeds import derive_seed
from games.detective_eye.engine import BID as DE_BID
from games.detective_eye.engine import TURN as DE_TURN
from games.finger_auction import actions as fa_codec
from games.finger_auction.engine import BID as FA_BID
from games.gallery_rush.actions import CONFIRM, CONTINUE, is_declare
from games.gallery_rush.engine import CHOOSE
from games.modern_art import actions as ma_codec
from games.modern_art.engine import ONCE_BIDS, OPEN_BIDS, SEALED_BIDS
from tests.server_support import infoset_at

LINEUPS = {
    "modern_art": (["half-value", "fraction-value", "predictive"], (3, 4, 5)),
    "gallery_rush": (["stop-at-k"], (2, 3, 4)),
    "finger_auction": (["proportional"], (2, 3, 4)),
    "detective_eye": (["honest"], (2, 3, 4)),
}
CASES = [(game, n) for game, (_, counts) in LINEUPS.items() for n in counts]
BUDGET = Budget(simulations=1)


def play(
    game: str,
    players: int,
    seed: int,
    specs: list[Any] | None = None,
    watch=None,
    via_hint: bool = False,
):
    """A whole game of design bots, every move checked legal; returns the final engine and
    the history. ``via_hint``: each move through ``Bot.hint`` (the seat's information set, a
    sampled world), and checked equal to the design's choice on the true state, so a design
    reads only what its seat knows; otherwise the design chooses on the true state (fast)."""
    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    names = specs or LINEUPS[game][0]
    bots = [make_bot(names[s % len(names)]) for s in range(players)]
    engine = defn.new_engine(params)
    rng = random.Random(seed)
    hinted = ask_bots(defn, params, bots, [BUDGET] * players, lambda k: derive_seed(seed, k))

    def choose(state, seat: int, step: int) -> int:
        action = bots[seat].choose(state, seat, random.Random(step))
        if via_hint:
            assert hinted(state, seat, step).action == action
        return action

    def on_step(state, step) -> None:
        if step.player >= 0:
            assert step.action in state.legal_actions()
            if watch is not None:
                watch(state, step.player, step.action, bots[step.player])

    play_episode(engine, choose, sampled_chance(rng), on_step)
    assert engine.is_terminal()
    return engine, list(engine.history)


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_every_player_count_plays_to_the_end(game: str, players: int) -> None:
    first = players == LINEUPS[game][1][0]  # through the hint path once per game (time)
    engine, history = play(game, players, seed=3, via_hint=first)
    assert len(engine.returns()) == players
    assert play(game, players, seed=3)[1] == history  # deterministic given the seed


def test_registered_and_refuse_other_games() -> None:
    for game, (names, _) in LINEUPS.items():
        for name in names:
            cls = BOTS[name]
            assert cls.unavailable_reason(games.definition(game), {}) is None
            for other in LINEUPS:
                if other != game:
                    reason = cls.unavailable_reason(games.definition(other), {})
                    assert reason is not None and game in reason


def test_a_design_asked_about_another_game_says_so() -> None:
    defn = games.definition("gallery_rush")
    params = defn.validate_params({"players": 2})
    engine = defn.new_engine(params)
    while engine.current_player() < 0:
        engine.apply(engine.legal_actions()[0])
    infoset = build_infoset(defn, params, engine, engine.current_player())
    with pytest.raises(InvalidBotSpec, match="plays only detective_eye"):
        make_bot("honest").hint(defn, params, infoset, BUDGET, 1)


# --- Modern Art ----------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 5])
def test_half_value_never_bids_above_half_its_estimate(players: int) -> None:
    seen = []

    def watch(engine, seat, action, bot) -> None:
        if bot.name != "half-value" or engine.phase not in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS):
            return
        if ma_codec.is_amount(action):
            value = current_values(engine)[engine.artist] * engine.ncards
            assert ma_codec.amount_of(action) <= 0.5 * value + 1e-9
            seen.append(action)

    play("modern_art", players, 5, ["half-value"], watch)
    assert seen, "the half-value bidder made no bid to check"


def test_fraction_value_pays_the_richest_other_seat_only_half() -> None:
    shares = set()

    def watch(engine, seat, action, bot) -> None:
        if bot.name != "fraction-value" or engine.phase not in (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS):
            return
        share = bot.share(engine, seat)
        n = engine.num_players
        if engine.auctioneer != seat and engine.auctioneer == richest_other(engine, seat):
            assert share == 0.5
        else:
            assert share == (n - 1) / n
        shares.add(share)
        cap = share * current_values(engine)[engine.artist] * engine.ncards
        if engine.phase == SEALED_BIDS:  # a sealed bid is the cap itself
            assert ma_codec.amount_of(action) == min(engine.money[seat], int(cap + 1e-9))

    play("modern_art", 4, 2, ["fraction-value"], watch)
    assert shares == {0.5, 0.75}, "both sides of the rule should occur in a 4-player game"
    assert issubclass(FractionValueBot, BOTS["fraction-value"])


def test_predictive_expects_a_seat_to_play_what_it_bought() -> None:
    defn = games.definition("modern_art")
    params = defn.validate_params({"players": 3})
    engine = defn.new_engine(params)
    rng = random.Random(4)
    while engine.current_player() < 0:
        engine.apply(engine.sample_chance(rng))
    seat = engine.current_player()
    before = expected_plays(engine, seat)
    other = (seat + 1) % 3
    engine.bought[other][2] += 3
    after = expected_plays(engine, seat)
    assert after[2] > before[2]
    assert sum(after) == pytest.approx(sum(before), abs=0.01)  # the same cards, re-weighted


# --- the small games -----------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 3])
def test_stop_at_k_stops_at_k_and_never_declares(k: int) -> None:
    spec = {"name": "stop-at-k", "options": {"k": k}}
    confirms = []

    def watch(engine, seat, action, bot) -> None:
        assert not is_declare(action)
        if engine.phase == CHOOSE:
            kept = sum(engine.keep)
            if action == CONTINUE:
                assert kept < k
            elif action == CONFIRM and CONTINUE in engine.legal_actions():
                assert kept == k
                confirms.append(kept)

    play("gallery_rush", 3, 6, [spec], watch)
    assert confirms


def test_proportional_bids_rise_with_the_value_of_the_table() -> None:
    checked = 0

    def watch(engine, seat, action, bot) -> None:
        nonlocal checked
        if engine.phase != FA_BID or len(engine.active) == 2:
            return
        cap = min(engine.max_bid, engine.table_size)
        values = {s: table_value(engine, s, cap) for s in engine.active}
        bids = {s: proportional_bid(engine, s) for s in engine.active}
        assert fa_codec.bid_of(action) == bids[seat]
        for a in engine.active:
            for b in engine.active:
                if values[a] > values[b]:
                    assert bids[a] >= bids[b]
        if max(values.values()) > 0:
            assert bids[max(engine.active, key=values.__getitem__)] == cap
        checked += 1

    play("finger_auction", 4, 8, None, watch)
    assert checked


@pytest.mark.parametrize("players", [2, 3, 4])
def test_honest_declares_only_what_its_cards_support_and_never_misses(players: int) -> None:
    bids = 0

    def watch(engine, seat, action, bot) -> None:
        nonlocal bids
        if engine.phase in (DE_TURN, DE_BID) and engine.ids.is_bid(action):
            painter, quantity = engine.ids.bid_of(action)
            assert quantity <= support(engine, seat)[painter]
            bids += 1

    engine, _ = play("detective_eye", players, 9, None, watch)
    assert bids
    assert engine.misses == [0] * players and engine.held == [0] * players


def test_designs_table_counts_first_places_per_design(tmp_path) -> None:
    def game(seats, returns):
        time = {"ms_per_move": [10.0] * len(seats), "cpu_ms": 50.0, "wall_ms": 100.0}
        return {"game": "detective_eye", "seats": seats, "returns": returns, "time": time}

    lines = [
        game(["ismcts", "honest", "honest"], [1.0, -0.5, -0.5]),
        game(["honest", "ismcts", "honest"], [0.5, 0.5, -1.0]),  # a shared first place
        game(["honest", "honest", "ismcts"], [1.0, -0.5, -0.5]),
    ]
    path = tmp_path / "de3.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in lines))
    more = tmp_path / "de3+s2.jsonl"  # more deals of the same cell
    more.write_text(json.dumps(lines[0]) + "\n")
    (row,) = rows([path])
    assert (row["design"], row["games"], row["players"]) == ("honest", 3, 3)
    assert row["share"] == pytest.approx(0.5)
    (both,) = rows([path, more])
    assert (both["file"], both["games"], both["share"]) == ("de3", 4, pytest.approx(0.625))
    assert row["met"] is False and row["cpu_share"] == pytest.approx(0.5)
    assert main([str(tmp_path / "missing.jsonl")]) == 2


# --- through the service ---------------------------------------------------------------------
def test_the_service_offers_each_design_for_its_game_only(client) -> None:
    listed = {b["name"]: b for b in client.get("/v1/games/detective_eye/bots").json["bots"]}
    assert listed["honest"]["available"] is True
    assert listed["half-value"]["available"] is False
    assert "plays only modern_art" in listed["half-value"]["reason"]
    r = client.post("/v1/matches", json={"game": "gallery_rush", "seats": ["human", "honest"]})
    assert r.status_code == 422 and r.json["code"] == "bot_unavailable", r.json
    assert "plays only detective_eye" in r.json["message"]


def test_the_service_hints_with_a_design(client) -> None:
    _, infoset = infoset_at("gallery_rush", 0, 4)
    body = {"infoset": infoset, "bot": {"name": "stop-at-k", "options": {"k": 1}}}
    r = client.post("/v1/games/gallery_rush/hint", json=body)
    assert r.status_code == 200, r.json
    assert r.json["stats"]["stopped_by"] == "policy"
    body["bot"] = "predictive"
    r = client.post("/v1/games/gallery_rush/hint", json=body)
    assert r.status_code == 422 and "plays only modern_art" in r.json["message"], r.json
