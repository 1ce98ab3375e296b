"""The ``level`` bot: every level plays every game, deterministically, within the budget.

Strength (each level beating the one below) is measured by tournaments (docs/bots.md,
"Levels"); the one strength check here is a gap wide enough that it cannot flake: over fixed
seeds it is a pure function of the code.
"""

from __future__ import annotations

import random

import pytest

import games
from bots import BOTS, Budget, InvalidBotSpec, make_bot
from bots.levels import LEVELS, LevelBot, Preset, presets_for
from evaluation.tournament import TournamentSpec
from evaluation.tournament.play import play_batch
from games.core.infoset import build_infoset
from tests.server_support import shared_app
from tests.support import GAMES

# Modern Art's levels are calibrated (and most often played) at three players.
PARAMS = {"modern_art": {"players": 3}}


def decision_infosets(game: str, seed: int, count: int) -> list[tuple[dict, object]]:
    """``count`` (information set, engine) pairs at decisions of random games of ``game``."""
    defn = games.definition(game)
    params = defn.validate_params(PARAMS.get(game, {}))
    rng = random.Random(seed)
    out: list[tuple[dict, object]] = []
    while len(out) < count:
        engine = defn.new_engine(params)
        while not engine.is_terminal() and len(out) < count:
            if engine.is_chance():
                engine.apply(engine.sample_chance(rng))
                continue
            if rng.random() < 0.2 and len(engine.legal_actions()) > 1:
                seat = engine.current_player()
                out.append((build_infoset(defn, params, engine, seat), engine.copy()))
            engine.apply(rng.choice(engine.legal_actions()))
    return out


def level(n: int) -> LevelBot:
    bot = make_bot({"name": "level", "options": {"level": n}})
    assert isinstance(bot, LevelBot)
    return bot


def test_level_is_registered_with_its_range():
    assert BOTS["level"] is LevelBot
    assert make_bot("level").spec() == {"name": "level", "options": {"level": 4}}
    (option,) = LevelBot.options
    assert option.to_json()["minimum"] == 1 and option.to_json()["maximum"] == 8


@pytest.mark.parametrize("bad", [0, 9, -1, 2.5, "3", True, None])
def test_invalid_levels_name_the_allowed_range(bad):
    with pytest.raises(InvalidBotSpec, match="from 1 to 8"):
        make_bot({"name": "level", "options": {"level": bad}})


def test_unknown_level_option_is_refused():
    with pytest.raises(InvalidBotSpec, match="unknown option 'depth'"):
        make_bot({"name": "level", "options": {"depth": 3}})


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_eight_presets(game):
    presets = presets_for(game)
    assert len(presets) == len(LEVELS)
    assert all(isinstance(p, Preset) for p in presets)
    # Every ladder passes through uniform random play and ends at its strongest bot.
    assert any(p.bot == "random" for p in presets)
    assert presets[-1].bot in ("heuristic", "ismcts") and presets[-1].random_share == 0


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("n", list(LEVELS))
def test_each_level_plays_a_legal_move_and_reports_its_preset(game, n):
    defn = games.definition(game)
    params = defn.validate_params(PARAMS.get(game, {}))
    bot = level(n)
    for infoset, engine in decision_infosets(game, seed=n, count=2):
        hint = bot.hint(defn, params, infoset, Budget(simulations=20), seed=n)
        assert hint.action in engine.legal_actions()
        report = hint.extra["level"]
        assert report["level"] == n
        assert report["preset"] == presets_for(game)[n - 1].to_json()
        assert report["move"]
        assert sum(s.probability for s in hint.policy) == pytest.approx(1.0)
        assert hint.action in {s.action for s in hint.policy if s.probability > 0}


@pytest.mark.parametrize("game", GAMES)
def test_levels_are_deterministic_for_a_seed(game):
    defn = games.definition(game)
    params = defn.validate_params(PARAMS.get(game, {}))
    (infoset, _), *_ = decision_infosets(game, seed=7, count=1)
    for n in LEVELS:
        budget = Budget(simulations=25)
        a = level(n).hint(defn, params, infoset, budget, seed=123)
        b = level(n).hint(defn, params, infoset, budget, seed=123)
        assert (a.action, a.policy, a.extra["level"]) == (b.action, b.policy, b.extra["level"])


def test_seeds_vary_the_weakened_levels():
    """Random mixing and temperature draw from the seed: different seeds, different moves."""
    game = "finger_auction"
    defn = games.definition(game)
    params = defn.validate_params({})
    infosets = [i for i, _ in decision_infosets(game, seed=3, count=6)]
    moves = {
        level(1).hint(defn, params, infoset, Budget(simulations=1), seed=s).action
        for infoset in infosets
        for s in range(8)
    }
    assert len(moves) > 1


def search_levels(game: str) -> list[int]:
    return [n for n in LEVELS if presets_for(game)[n - 1].bot == "ismcts"]


@pytest.mark.parametrize("game", ["finger_auction", "detective_eye"])
def test_level_budget_never_exceeds_the_request(game):
    defn = games.definition(game)
    params = defn.validate_params({})
    searching = search_levels(game)
    assert searching, "the top levels of this game search"
    infosets = [i for i, _ in decision_infosets(game, seed=5, count=3)]
    for n in searching:
        own = presets_for(game)[n - 1].simulations
        for infoset in infosets:
            # A request below the level's own effort caps it ...
            hint = level(n).hint(defn, params, infoset, Budget(simulations=7), seed=1)
            if hint.stopped_by != "single_action" and hint.extra["level"]["move"] != "random":
                assert 1 <= hint.iterations <= 7
            # ... a larger one does not raise it.
            hint = level(n).hint(defn, params, infoset, Budget(simulations=10**6), seed=1)
            assert hint.iterations <= own


def test_effort_is_the_smaller_budget_and_keeps_the_deadline():
    preset = Preset("ismcts", simulations=300)
    assert LevelBot.effort(preset, Budget(simulations=50)) == Budget(simulations=50)
    assert LevelBot.effort(preset, Budget(simulations=5000, milliseconds=80)) == Budget(
        simulations=300, milliseconds=80
    )
    # A time-only request: the level's simulations and the request's deadline, both.
    assert LevelBot.effort(preset, Budget(milliseconds=40)) == Budget(
        simulations=300, milliseconds=40
    )
    heuristic = Preset("heuristic", random_share=0.2)
    assert LevelBot.effort(heuristic, Budget(milliseconds=40)) == Budget(milliseconds=40)


def test_level_wraps_no_game_without_a_heuristic():
    defn = games.definition("finger_auction")
    assert LevelBot.unavailable_reason(defn, defn.validate_params({})) is None


def test_levels_play_a_tournament_and_level_4_beats_level_1():
    """A cheap monotonicity check that cannot flake: fixed seeds, a gap of hundreds of Elo
    (level 1 is uniform random; level 4 is the Finger Auction heuristic with noise)."""
    spec = TournamentSpec.build(
        "finger_auction",
        {},
        [("L1", {"name": "level", "options": {"level": 1}}), ("L4", "level")],
        deals=16,
        seed=3,
        budget=Budget(simulations=50),
    )
    records = play_batch(spec.batch(spec.schedule()))
    assert all("error" not in r for r in records)
    wins = sum(
        1
        for r in records
        if r["returns"][r["seats"].index("L4")] > r["returns"][r["seats"].index("L1")]
    )
    # Measured: level 4 is about 400 Elo above level 1 (a 0.9 score); 29 of 32 here.
    assert wins >= 24, f"level 4 won {wins} of {len(records)} games against level 1"


def test_levels_are_listed_per_game(tmp_path):
    client = shared_app(tmp_path).test_client()
    for game in GAMES:
        r = client.get(f"/v1/games/{game}/bots")
        assert r.status_code == 200
        (entry,) = [b for b in r.json["bots"] if b["name"] == "level"]
        assert entry["available"] is True and entry["reason"] is None
    listed = client.get("/v1/bots").json["bots"]
    (entry,) = [b for b in listed if b["name"] == "level"]
    assert entry["options"][0]["name"] == "level"


def test_level_hint_through_the_service(tmp_path):
    client = shared_app(tmp_path).test_client()
    (infoset, engine), *_ = decision_infosets("detective_eye", seed=2, count=1)
    body = {
        "infoset": infoset,
        "bot": {"name": "level", "options": {"level": 8}},
        "budget": {"simulations": 15, "milliseconds": 2000},
    }
    r = client.post("/v1/games/detective_eye/hint", json=body)
    assert r.status_code == 200, r.json
    assert r.json["action"]["id"] in engine.legal_actions()
    assert r.json["stats"]["level"]["level"] == 8
    assert r.json["stats"]["iterations"] <= 15
    bad = client.post(
        "/v1/games/detective_eye/hint",
        json={**body, "bot": {"name": "level", "options": {"level": 12}}},
    )
    assert bad.status_code == 422 and "from 1 to 8" in bad.json["message"]


# --- the ladder report (evaluation.levels) -------------------------------------------------
def synthetic(winner_by_deal: list[list[int]]) -> list[dict]:
    """3-seat games: per deal, a finishing order of levels (first listed wins)."""
    out = []
    for deal, order in enumerate(winner_by_deal):
        seats = sorted(order)
        returns = [float(len(order) - order.index(lv)) for lv in seats]
        out.append(
            {
                "deal": deal,
                "deal_key": (0, deal),
                "bots": [{"name": "level", "options": {"level": lv}} for lv in seats],
                "returns": returns,
            }
        )
    return out


def test_ladder_rates_pairwise_finishes_and_flags_monotonicity():
    from evaluation.levels import ladder, markdown

    # Level 3 above 2 above 1 in most deals: a monotone ladder with positive gaps.
    records = synthetic([[3, 2, 1]] * 8 + [[2, 3, 1], [3, 1, 2]])
    result = ladder(records, bootstrap=200)
    rows = {r["level"]: r for r in result["levels"]}
    assert rows[1]["elo"] == 0.0
    assert 0 < rows[2]["elo"] < rows[3]["elo"]
    assert result["monotone"]
    assert rows[2]["head_to_head"] == 10 and rows[2]["head_to_head_score"] == pytest.approx(0.9)
    assert "| 3 |" in markdown(result)
    # Reversed: level 2 loses to level 1, so the ladder is not monotone.
    flipped = ladder(synthetic([[3, 1, 2]] * 6 + [[1, 3, 2]] * 2), bootstrap=50)
    assert not flipped["monotone"]


def test_ladder_command_reads_games_files_and_refuses_failed_games(tmp_path, capsys):
    import json

    from evaluation.levels import main

    path = tmp_path / "games.jsonl"
    rows = synthetic([[2, 1, 3], [2, 3, 1], [3, 2, 1]])
    path.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "deal_key"}) + "\n" for r in rows)
    )
    assert main([str(path), "--bootstrap", "20"]) == 0
    assert "monotone" in capsys.readouterr().out
    path.write_text(json.dumps({"index": 0, "error": "game 0 failed"}) + "\n")
    assert main([str(path)]) == 1
    assert "a failed game" in capsys.readouterr().err


# --- the knobs, on presets patched in ------------------------------------------------------
def with_preset(monkeypatch, game: str, preset: Preset) -> LevelBot:
    import bots.levels as levels

    monkeypatch.setitem(levels.PRESETS, game, (preset,) * len(LEVELS))
    return level(1)


def test_temperature_samples_the_heuristic_ratings(monkeypatch):
    game = "finger_auction"
    defn = games.definition(game)
    params = defn.validate_params({})
    infosets = [i for i, _ in decision_infosets(game, seed=9, count=8)]
    best = level_bot_moves(with_preset(monkeypatch, game, Preset("heuristic")), infosets)
    cold = with_preset(monkeypatch, game, Preset("heuristic", temperature=1e-6))
    for s, infoset in enumerate(infosets):
        # A temperature near 0 plays a best-rated move (ties drawn by the seed).
        hint = cold.hint(defn, params, infoset, Budget(simulations=1), seed=s)
        scores = hint.extra["scores"]
        assert scores[str(hint.action)] == max(scores.values())
    hot = level_bot_moves(
        with_preset(monkeypatch, game, Preset("heuristic", temperature=100.0)), infosets
    )
    assert hot != best  # a high one spreads over the other moves
    hint = with_preset(monkeypatch, game, Preset("heuristic", temperature=0.5)).hint(
        defn, params, infosets[0], Budget(simulations=1), seed=4
    )
    assert hint.extra["level"]["move"] == "heuristic at temperature 0.5"
    assert sum(s.probability for s in hint.policy) == pytest.approx(1.0)
    assert sum(1 for s in hint.policy if s.probability > 0) > 1


def test_temperature_samples_the_search_visits(monkeypatch):
    game = "detective_eye"
    defn = games.definition(game)
    params = defn.validate_params({})
    (infoset, engine), *_ = decision_infosets(game, seed=4, count=1)
    bot = with_preset(monkeypatch, game, Preset("ismcts", simulations=40, temperature=1.0))
    hint = bot.hint(defn, params, infoset, Budget(simulations=1000), seed=2)
    assert hint.iterations == 40 and hint.action in engine.legal_actions()
    visits = {s.action: s.visits for s in hint.policy}
    total = sum(visits.values())
    # At temperature 1 the policy is the visit distribution itself.
    assert {s.action: s.probability for s in hint.policy} == pytest.approx(
        {a: v / total for a, v in visits.items()}
    )


def test_blunders_play_the_worst_rated_move(monkeypatch):
    game = "gallery_rush"
    defn = games.definition(game)
    params = defn.validate_params({})
    bot = with_preset(monkeypatch, game, Preset("heuristic", blunder_share=1.0))
    for infoset, engine in decision_infosets(game, seed=6, count=4):
        hint = bot.hint(defn, params, infoset, Budget(simulations=1), seed=3)
        scores = hint.extra["scores"]
        assert hint.extra["level"]["move"] == "blunder"
        assert scores[str(hint.action)] == min(scores.values())
        assert hint.action in engine.legal_actions()


def level_bot_moves(bot: LevelBot, infosets: list[dict]) -> list[int]:
    defn = games.definition("finger_auction")
    params = defn.validate_params({})
    return [
        bot.hint(defn, params, infoset, Budget(simulations=1), seed=s).action
        for s, infoset in enumerate(infosets)
    ]


def test_bad_presets_are_refused():
    with pytest.raises(ValueError, match="simulations"):
        Preset("ismcts")
    with pytest.raises(ValueError, match="shares"):
        Preset("heuristic", random_share=0.7, blunder_share=0.5)
    with pytest.raises(ValueError, match="unknown preset"):
        Preset("cfr")


def test_a_match_seats_a_level_and_plays_it(tmp_path):
    client = shared_app(tmp_path).test_client()
    seats = ["human", {"name": "level", "options": {"level": 5}}]
    r = client.post("/v1/matches", json={"game": "finger_auction", "seats": seats, "seed": 3})
    assert r.status_code in (200, 201), r.json
    match = r.json
    token = match["tokens"][0]["token"]
    view = client.get(f"/v1/matches/{match['match_id']}", headers={"X-Seat-Token": token}).json
    assert view["status"] in ("waiting", "finished")
    hint = client.get(
        f"/v1/matches/{match['match_id']}/hint",
        query_string={"bot": "level", "simulations": 5},  # a name only: the default level
        headers={"X-Seat-Token": token},
    )
    assert hint.status_code == 200, hint.json
    assert hint.json["stats"]["level"]["level"] == 4
    bad = client.post(
        "/v1/matches",
        json={
            "game": "finger_auction",
            "seats": ["human", {"name": "level", "options": {"level": 0}}],
        },
    )
    assert bad.status_code == 422 and "from 1 to 8" in bad.json["message"]


# --- describing the levels (issue 43.6): the measured ladder as data, served and documented ---
LONG_NAMES = {g: games.definition(g).long_name for g in GAMES}


def docs_ladder_tables() -> dict[str, tuple[int, str]]:
    """docs/bots.md's measured tables: game -> (players in the heading, the table and the line
    under it)."""
    import re
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs/bots.md").read_text(encoding="utf-8")
    section = text[text.index("### The measured ladder") : text.index("\n## Commands")]
    out = {}
    for game, name in LONG_NAMES.items():
        m = re.search(
            rf"#### {re.escape(name)} \((\d) players\)\n.*?\n(\| level \| Elo .*?deals; .*?\.)\n",
            section,
            re.S,
        )
        assert m, f"docs/bots.md has no measured table for {name}"
        out[game] = (int(m.group(1)), m.group(2))
    return out


def test_the_docs_ladder_tables_are_the_stored_data():
    """One source: bots/levels_measured.json is what GET /v1/games/{game}/levels serves, and
    docs/bots.md's tables are rendered from it (python -m evaluation.levels --stored GAME)."""
    from bots.levels import measured_ladders
    from evaluation.levels import markdown

    stored = measured_ladders()
    assert sorted(stored) == GAMES
    for game, (players, table) in docs_ladder_tables().items():
        assert stored[game]["players"] == players, game
        assert markdown(stored[game]["ladder"]) == table, game


@pytest.mark.parametrize("game", GAMES)
def test_the_stored_ladder_was_measured_with_todays_presets(game):
    """A changed preset makes its game's ratings stale: recalibrate and --record."""
    from bots.levels import measured_ladder, measured_ladders

    assert measured_ladders()[game]["presets"] == [p.to_json() for p in presets_for(game)]
    assert measured_ladder(game) is not None


def test_levels_below_random_play_are_flagged_from_the_measured_ratings():
    from bots.levels import level_descriptions

    worse = {
        g: [lv["level"] for lv in level_descriptions(g)["levels"] if lv["worse_than_random"]]
        for g in GAMES
    }
    # Gallery Rush's levels 1-4 and Modern Art's level 1 play worst-rated moves (docs/bots.md).
    assert worse == {
        "detective_eye": [],
        "finger_auction": [],
        "gallery_rush": [1, 2, 3, 4],
        "modern_art": [1],
    }
    gr = level_descriptions("gallery_rush")
    assert gr["random_level"] == 5 and gr["measured"]["players"] == 2
    one = gr["levels"][0]
    assert one["rating"] == {"elo": 0, "elo_ci95": [0, 0], "games": 840, "above_random": -405}
    assert one["plays"] == (
        "plays the heuristic's worst-rated move 80% of the time and a uniformly random move "
        "otherwise"
    )
    assert "Worse than random play" in one["text"] and "405 Elo below random play" in one["text"]
    assert "Worse than random" not in gr["levels"][4]["text"]  # level 5 is random play itself
    top = level_descriptions("finger_auction")["levels"][-1]
    assert top["plays"].startswith("searches with ISMCTS, 1,000 simulations a move")
    assert "+717 Elo against level 1 (95% interval +615 to +837)" in top["text"]


def test_a_preset_without_a_measurement_has_no_rating(monkeypatch):
    import bots.levels as lv

    changed = {**lv.PRESETS, "gallery_rush": (Preset("random"),) * len(LEVELS)}
    monkeypatch.setattr(lv, "PRESETS", changed)
    out = lv.level_descriptions("gallery_rush")
    assert out["measured"] is None
    assert all(x["rating"] is None and x["worse_than_random"] is None for x in out["levels"])
    assert out["levels"][0]["text"].endswith("Not measured with this preset.")


def test_preset_sentences_cover_every_knob():
    assert Preset("heuristic", temperature=0.1, random_share=0.05, blunder_share=0.1).plays() == (
        "plays the game's heuristic (its best-rated move), sampled from its policy at "
        "temperature 0.1, but a uniformly random move 5% of the time and its worst-rated move "
        "10% of the time"
    )
    assert Preset("random").plays() == "plays a uniformly random move"


def test_levels_endpoint_serves_every_games_ladder(tmp_path):
    client = shared_app(tmp_path).test_client()
    for game in GAMES:
        summary = client.get(f"/v1/games/{game}").json
        r = client.get(summary["links"]["levels"])
        assert r.status_code == 200, r.json
        body = r.json
        assert body["game"] == game and [x["level"] for x in body["levels"]] == list(LEVELS)
        assert body["default"] == 4 and body["measured"]["players"] == (
            3 if game == "modern_art" else 2
        )
        assert all(x["text"].startswith(f"Level {x['level']} ") for x in body["levels"])
    missing = client.get("/v1/games/chess/levels")
    assert missing.status_code == 404 and missing.json["code"] == "unknown_game"


def test_ladder_command_records_and_prints_the_stored_ladder(tmp_path, monkeypatch, capsys):
    import json

    import bots.levels as lv
    from evaluation import levels as ev

    records = []
    for deal in range(4):
        for a, b in ((1, 2), (2, 1)):
            specs = [{"name": "level", "options": {"level": n}} for n in (a, b)]
            win = [1.0, -1.0] if a == 2 else [-1.0, 1.0]
            rec = {
                "deal": deal,
                "bots": specs,
                "returns": win if deal else win[::-1],
                "game": "finger_auction",
                "params": {"players": 2},
            }
            records.append(rec)
    games_file = tmp_path / "g.jsonl"
    games_file.write_text("".join(json.dumps(r) + "\n" for r in records))
    store = tmp_path / "measured.json"
    monkeypatch.setattr(lv, "MEASURED_PATH", store)
    lv.measured_ladders.cache_clear()
    try:
        assert ev.main([str(games_file), "--bootstrap", "20", "--record"]) == 0
        printed = capsys.readouterr().out
        data = json.loads(store.read_text())
        assert data["finger_auction"]["players"] == 2
        assert data["finger_auction"]["presets"] == [
            p.to_json() for p in presets_for("finger_auction")
        ]
        assert all(isinstance(r["elo"], int) for r in data["finger_auction"]["ladder"]["levels"])
        assert ev.main(["--stored", "finger_auction"]) == 0
        assert capsys.readouterr().out == printed
        mixed = tmp_path / "m.jsonl"
        mixed.write_text(
            json.dumps({**records[0], "params": {"players": 3}})
            + "\n"
            + json.dumps(records[1])
            + "\n"
        )
        assert ev.main([str(mixed), "--bootstrap", "5", "--record"]) == 1
        assert "one player count" in capsys.readouterr().err
    finally:
        lv.measured_ladders.cache_clear()
