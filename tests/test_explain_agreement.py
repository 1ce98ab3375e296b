"""Explanations agree with the hint (issue 38): an explanation whose figures name a best move
either names the hint's move, or says why the search prefers another; and Detective Eye counts
the cards in hand during the draft."""

from __future__ import annotations

import random

import pytest

import games
from games.core.episode import random_position, stream_chance
from games.core.infoset import build_infoset
from tests.support import GAMES

POSITIONS = 16
BUDGET = {"simulations": 40}


def decisions(game: str, count: int, seed: int = 0):
    """(engine, infoset of the seat to move) at varied decisions of random games."""
    defn = games.definition(game)
    params = defn.validate_params({})
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        steps = rng.randrange(0, 60)
        far = lambda e, steps=steps: len(e.history) >= steps  # noqa: E731
        engine = random_position(defn, params, rng, far, chance=stream_chance(rng))
        if engine is None or len(engine.legal_actions()) < 2:
            continue
        seat = engine.current_player()
        out.append((engine, build_infoset(defn, params, engine, seat, with_view=False)))
    return out


def hint(client, game, infoset, seed):
    body = {"infoset": infoset, "bot": "ismcts", "budget": BUDGET, "seed": seed}
    r = client.post(f"/v1/games/{game}/hint", json=body)
    assert r.status_code == 200, r.json
    return r.json


@pytest.mark.parametrize("game", GAMES)
def test_an_explanation_naming_a_best_move_agrees_with_the_hint_or_says_why(client, game):
    named = 0
    for k, (_, infoset) in enumerate(decisions(game, POSITIONS, seed=7)):
        out = hint(client, game, infoset, seed=k)
        explain, move = out["explain"], out["action"]["string"]
        rec = explain.get("recommends")
        if rec is None:
            continue
        named += 1
        if rec["agrees"]:
            assert move in rec["moves"], (move, rec)
        else:
            assert move not in rec["moves"]
            assert rec["why"] in explain["text"] and move in rec["why"], explain["text"]
    if game in ("finger_auction", "gallery_rush"):  # their figures rank takes, picks, calls
        assert named, "no explanation named a best move"


def test_a_finger_auction_pick_names_the_hints_card_or_says_why(client):
    """Independent of ``recommends``: the pick figure's best cards against the hint's card."""
    seen = 0
    for k, (_, infoset) in enumerate(decisions("finger_auction", 60, seed=3)):
        out = hint(client, "finger_auction", infoset, seed=k)
        picks = out["explain"]["figures"].get("picks")
        if picks is None or out["action"]["struct"]["type"] != "pick":
            continue
        seen += 1
        card = out["action"]["struct"]["card"]
        if card not in picks["value"]["best_rest"]:
            text = " ".join(out["explain"]["text"])
            assert f"The search suggests {out['action']['string']}" in text, text
    assert seen, "no pick decision among the positions"


def test_detective_eye_counts_the_hand_during_the_draft(client):
    from games.detective_eye.engine import DRAFT

    drafts = [(e, i) for e, i in decisions("detective_eye", 200, seed=1) if e.phase == DRAFT][:4]
    assert drafts
    for engine, infoset in drafts:
        out = hint(client, "detective_eye", infoset, seed=0)
        held = sum(engine.hands[infoset["seat"]])
        assert held > 0
        assert out["explain"]["figures"]["stakes"]["value"]["cards_held"] == held
        assert out["explain"]["text"][0].startswith(f"You hold {held} cards"), out["explain"]
