"""The API's messages a newcomer reads (issue 43, API items 3 and 8).

Each test names the finding it pins; each failed on the code before its fix.
"""

from __future__ import annotations

import json

import pytest

import games
from bots.cfr import store
from bots.cfr.bots import CFRBot
from server.errors import Unprocessable
from server.schemas import REQUEST_MODELS, BudgetIn, parse
from tests.server_support import infoset_at
from tests.support import GAMES


def solutions() -> list[dict]:
    return [
        {"game": a["game"], "version": a["version"], "params": a["params"]}
        for a in store.available()
    ]


def assert_readable_cfr_reason(reason: str) -> None:
    """One sentence: the solved variants and the command; no repr of data (it was 575-790
    characters of Python dicts)."""
    assert len(reason) < 250, reason
    assert "{" not in reason and "[" not in reason and "'players'" not in reason, reason
    assert "oos" in reason and store.REGENERATE in reason, reason
    for solved in solutions():
        assert solved["game"] in reason, reason


# --- item 3: why a bot cannot play -------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_cfr_reason_is_one_sentence_with_the_solutions_as_data(client, game):
    r = client.get(f"/v1/games/{game}/bots")
    assert r.status_code == 200, r.json
    cfr = next(b for b in r.json["bots"] if b["name"] == "cfr")
    assert cfr["available"] is False
    assert_readable_cfr_reason(cfr["reason"])
    assert cfr["detail"] == {"solutions": solutions()}
    defn = games.definition(game)
    assert cfr["reason"] == CFRBot.unavailable_reason(defn, defn.validate_params({}))
    ismcts = next(b for b in r.json["bots"] if b["name"] == "ismcts")
    assert ismcts["reason"] is None and ismcts["detail"] is None


def test_bots_listing_gives_the_same_sentence_and_the_data_apart(client):
    cfr = next(b for b in client.get("/v1/bots").json["bots"] if b["name"] == "cfr")
    assert sorted(cfr["unavailable"]) == GAMES
    for game, reason in cfr["unavailable"].items():
        assert_readable_cfr_reason(reason)
        assert cfr["unavailable_detail"][game] == {"solutions": solutions()}
    ismcts = next(b for b in client.get("/v1/bots").json["bots"] if b["name"] == "ismcts")
    assert ismcts["unavailable"] == {} and ismcts["unavailable_detail"] == {}


@pytest.mark.parametrize("game", GAMES)
def test_a_cfr_seat_is_refused_with_the_sentence_and_the_solutions_in_detail(client, game):
    players = games.definition(game).validate_params({})["players"]
    seats = ["human", "cfr"] + ["random"] * (players - 2)
    r = client.post("/v1/matches", json={"game": game, "seats": seats})
    assert r.status_code == 422 and r.json["code"] == "bot_unavailable", r.json
    assert r.json["detail"] == {"field": "seats[1]", "solutions": solutions()}
    reason = r.json["message"].split("with these parameters: ", 1)[1]
    assert_readable_cfr_reason(reason)


def test_a_cfr_hint_is_refused_with_the_solutions_in_detail(client):
    _, infoset = infoset_at("gallery_rush", 0, 4)
    r = client.post("/v1/games/gallery_rush/hint", json={"infoset": infoset, "bot": "cfr"})
    assert r.status_code == 422 and r.json["code"] == "bot_unavailable", r.json
    assert r.json["detail"] == {"field": "bot", "solutions": solutions()}
    assert_readable_cfr_reason(r.json["message"].split("with these parameters: ", 1)[1])


# --- item 8: pydantic's wording never reaches a client -----------------------------------------
WRONG_VALUES = (200, 1.5, "x", True, None, [], [1], {}, {"zz": 1})


def model_names() -> set[str]:
    """Every pydantic model class of the service's schemas: none may appear in a message."""
    from pydantic import BaseModel

    from server import schemas

    return {
        name
        for name, value in vars(schemas).items()
        if isinstance(value, type) and issubclass(value, BaseModel)
    }


def leaks(message: str) -> list[str]:
    names = model_names()
    found = [n for n in names if n in message]
    found += [w for w in ("instance of", "Value error", "dictionary", "function-") if w in message]
    return found


@pytest.mark.parametrize("game", GAMES)
def test_a_number_as_budget_says_what_a_budget_looks_like(client, game):
    _, infoset = infoset_at(game, 0, 4)
    shape = '{"milliseconds": N} or {"simulations": N}'
    players = infoset["params"]["players"]
    for path, body in (
        (f"/v1/games/{game}/hint", {"infoset": infoset, "budget": 200}),
        ("/v1/matches", {"game": game, "seats": ["human"] * players, "budget": 200}),
        (f"/v1/games/{game}/review", {"infoset": infoset, "budget": 200}),
    ):
        r = client.post(path, json=body)
        assert r.status_code == 422 and r.json["code"] == "invalid_request", (path, r.json)
        assert r.json["detail"]["field"] == "budget", r.json
        assert shape in r.json["message"] and "got 200" in r.json["message"], r.json
        assert not leaks(r.json["message"]), r.json


def test_no_request_model_leaks_a_class_name_for_any_wrong_value(client):
    """Every field of every request model, sent every wrong JSON type, top level and nested."""
    checked = 0
    for model in (*REQUEST_MODELS, BudgetIn):
        for field in model.model_fields:
            for value in WRONG_VALUES:
                try:
                    parse(model, {field: value})
                except Unprocessable as err:
                    messages = [err.message] + [e["message"] for e in err.detail["errors"]]
                    for message in messages:
                        assert not leaks(message), (model.__name__, field, value, message)
                    checked += 1
    assert checked > 100
    # And over HTTP, the endpoints that parse a body (hint, validate, match, move, review).
    for path in ("/v1/games/gallery_rush/hint", "/v1/games/gallery_rush/validate"):
        for value in WRONG_VALUES:
            r = client.post(path, json={"infoset": value, "params": value, "budget": value})
            assert r.status_code == 422 and not leaks(json.dumps(r.json)), r.json


# --- item 8: an unknown name is called unknown -------------------------------------------------
# A field of each game's events that holds a name, and the word the message uses for it.
NAMED_FIELDS = {
    "detective_eye": [("card", "card"), ("painter", "painter")],
    "finger_auction": [("card", "card")],
    "gallery_rush": [("card", "card"), ("call", "call")],
    "modern_art": [("artist", "artist"), ("auction", "auction type")],
}


def infoset_with(game: str, key: str) -> tuple[dict, int]:
    """An information set of a seeded game with an event holding ``key``, and its index."""
    for steps in (10, 20, 40, 60):
        _, infoset = infoset_at(game, 0, steps)
        for i, event in enumerate(infoset["events"]):
            if isinstance(event.get(key), str):
                return infoset, i
    raise AssertionError(f"no {key} in a {game} game")


@pytest.mark.parametrize(
    "game,key,word", [(g, k, w) for g, fields in NAMED_FIELDS.items() for k, w in fields]
)
def test_an_unknown_name_in_an_event_is_called_unknown(client, game, key, word):
    infoset, i = infoset_with(game, key)
    infoset["events"][i][key] = "Picasso"
    for path in (f"/v1/games/{game}/validate", f"/v1/games/{game}/hint"):
        r = client.post(path, json={"infoset": infoset})
        assert r.status_code == 422 and r.json["code"] == "invalid_infoset", r.json
        message = r.json["message"]
        assert f"events[{i}] field '{key}': unknown {word} 'Picasso' (known: " in message, message
        assert "not possible here" not in message


@pytest.mark.parametrize("game", GAMES)
def test_a_known_name_is_never_called_unknown(client, game):
    """Every name of the game in a named field: valid, or refused by the replay, never
    "unknown" (a chance reveal may take any card; a declared painter may not be possible)."""
    defn = games.definition(game)
    for key, _ in NAMED_FIELDS[game]:
        infoset, i = infoset_with(game, key)
        vocab = defn.history_fields(defn.new_engine(defn.validate_params(infoset["params"])))
        for name in vocab.public[key]:
            infoset["events"][i][key] = name
            r = client.post(f"/v1/games/{game}/validate", json={"infoset": infoset})
            assert r.status_code in (200, 422), r.json
            assert r.status_code == 200 or "unknown" not in r.json["message"], r.json


def test_an_unknown_name_in_a_private_entry_is_called_unknown(client):
    _, infoset = infoset_at("detective_eye", 0, 10)
    j = next(j for j, e in enumerate(infoset["private"]) if isinstance(e.get("cards"), dict))
    infoset["private"][j]["cards"]["Picasso"] = 1
    r = client.post("/v1/games/detective_eye/validate", json={"infoset": infoset})
    assert r.status_code == 422, r.json
    assert f"private[{j}] field 'cards': unknown name 'Picasso'" in r.json["message"], r.json
    _, infoset = infoset_at("modern_art", 0, 10)
    j = next(j for j, e in enumerate(infoset["private"]) if "artist" in e)
    infoset["private"][j]["artist"] = "Picasso"
    r = client.post("/v1/games/modern_art/validate", json={"infoset": infoset})
    assert r.status_code == 422, r.json
    assert f"private[{j}] field 'artist': unknown artist 'Picasso'" in r.json["message"], r.json


@pytest.mark.parametrize("game", GAMES)
def test_an_unknown_event_type_is_called_unknown(client, game):
    _, infoset = infoset_at(game, 0, 4)
    infoset["events"][1]["type"] = "dance"
    r = client.post(f"/v1/games/{game}/validate", json={"infoset": infoset})
    assert r.status_code == 422, r.json
    assert "events[1] field 'type': unknown event type 'dance'" in r.json["message"], r.json


# --- item 8: a move by its readable string -----------------------------------------------------
def human_match(client, game: str) -> tuple[str, dict[int, str]]:
    """A reproducible match of humans only (every seat moves through the API): id, tokens."""
    players = games.definition(game).validate_params({})["players"]
    r = client.post(
        "/v1/matches",
        json={"game": game, "seats": ["human"] * players, "seed": 3, "reproducible": True},
    )
    assert r.status_code == 201, r.json
    return r.json["match_id"], {t["seat"]: t["token"] for t in r.json["tokens"]}


def to_move(client, mid: str, tokens: dict[int, str]) -> tuple[dict, str]:
    """The view of the seat to move (its legal actions listed) and its token."""
    public = client.get(f"/v1/matches/{mid}").json
    token = tokens[public["current_player"]]
    view = client.get(f"/v1/matches/{mid}", headers={"X-Seat-Token": token}).json
    return view, token


def move(client, mid, token, action, step=None):
    body = {"action": action} if step is None else {"action": action, "step": step}
    return client.post(f"/v1/matches/{mid}/actions", json=body, headers={"X-Seat-Token": token})


@pytest.mark.parametrize("game", GAMES)
def test_a_move_sent_as_its_string_is_played(client, game):
    mid, tokens = human_match(client, game)
    for k in range(8):
        view, token = to_move(client, mid, tokens)
        if view["terminal"]:
            break
        legal = view["infoset"]["view"]["legal_actions"]
        chosen = legal[k % len(legal)]
        # Every other move in another letter case with doubled spaces: still one action.
        text = chosen["string"]
        if k % 2:
            text = "  " + text.upper().replace(" ", "  ")
        r = move(client, mid, token, text, step=view["step"])
        assert r.status_code == 200, (text, r.json)
        assert r.json["moves"][0]["step"] == view["step"], r.json
        # A retry at that step is recognised only if the applied action is the chosen one.
        again = move(client, mid, token, chosen["string"], step=view["step"])
        assert again.status_code == 200 and again.json.get("retried") is True, again.json


def test_explore_is_accepted_as_a_gallery_rush_move(client):
    mid, tokens = human_match(client, "gallery_rush")
    for _ in range(40):
        view, token = to_move(client, mid, tokens)
        strings = [a["string"] for a in view["infoset"]["view"]["legal_actions"]]
        if "explore" in strings:
            r = move(client, mid, token, "explore")
            assert r.status_code == 200, r.json
            assert r.json["moves"][0]["event"]["type"] == "explore", r.json["moves"][0]
            return
        move(client, mid, token, strings[0])
    raise AssertionError("no turn with 'explore'")


@pytest.mark.parametrize("game", GAMES)
def test_an_ambiguous_or_unknown_move_string_says_so_with_legal_strings(client, game):
    mid, tokens = human_match(client, game)
    for _ in range(60):
        view, token = to_move(client, mid, tokens)
        strings = [a["string"] for a in view["infoset"]["view"]["legal_actions"]]
        heads = [s.split()[0] for s in strings]
        shared = next((h for h in heads if heads.count(h) > 1 and h not in strings), None)
        if shared is None:
            move(client, mid, token, strings[-1])
            continue
        r = move(client, mid, token, shared)
        assert r.status_code == 422 and r.json["code"] == "invalid_action", r.json
        assert r.json["detail"] == {"field": "action"}
        message = r.json["message"]
        assert f"action {shared!r} is ambiguous: it matches" in message, message
        assert next(s for s in strings if s.startswith(shared)) in message, message
        r = move(client, mid, token, "dance with the Mona Lisa")
        assert r.status_code == 422 and r.json["code"] == "invalid_action", r.json
        message = r.json["message"]
        assert "'dance with the Mona Lisa' is not legal here" in message, message
        assert strings[0] in message, message
        after = client.get(f"/v1/matches/{mid}", headers={"X-Seat-Token": token}).json
        assert after["step"] == view["step"]  # refused moves change nothing
        return
    raise AssertionError(f"no {game} decision with two legal strings sharing a first word")


def test_the_openapi_document_describes_the_string_form_of_a_move(client):
    doc = client.get("/openapi.json").json
    action = doc["components"]["schemas"]["MatchAction"]["properties"]["action"]
    forms = action["oneOf"]
    strings = [f for f in forms if f.get("type") == "string"]
    assert len(strings) == 1 and "legal_actions[*].string" in strings[0]["description"]
    assert {f.get("type") for f in forms} >= {"object", "string", "integer"}
