"""``/v1/matches``: hosted matches, each human seat behind its own secret token."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from server.api import json_body, query_number, seat_token
from server.schemas import MAX_SEED, BudgetIn, MatchAction, MatchCreate, parse
from server.service import runtime

bp = Blueprint("matches", __name__)


@bp.post("")
def create_match() -> tuple[Response, int]:
    body = parse(MatchCreate, json_body())
    out = runtime().matches.create(body)
    response = jsonify(out)
    response.headers["Location"] = f"/v1/matches/{out['match_id']}"
    return response, 201


@bp.get("/<match_id>")
def get_match(match_id: str) -> Response:
    return jsonify(runtime().matches.view(match_id, seat_token()))


@bp.post("/<match_id>/actions")
def post_action(match_id: str) -> Response:
    raw = json_body()
    body = parse(MatchAction, raw)
    token = seat_token(raw if isinstance(raw, dict) else None)
    return jsonify(runtime().matches.act(match_id, token, body.action))


@bp.get("/<match_id>/hint")
def match_hint(match_id: str) -> Response:
    ms = query_number("milliseconds", float, 0, exclusive_min=True)
    sims = query_number("simulations", int, 1)
    seed = query_number("seed", int, 0, MAX_SEED)
    budget = None
    if ms is not None or sims is not None:
        budget = BudgetIn(milliseconds=ms, simulations=sims)
    bot = request.args.get("bot") or None
    return jsonify(runtime().matches.hint(match_id, seat_token(), bot, budget, seed))
