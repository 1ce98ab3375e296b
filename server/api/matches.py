"""``/v1/matches``: hosted matches, each human seat behind its own secret token."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from server.api import json_body, query_number, seat_token
from server.errors import ApiError
from server.limits import API_KEY_HEADER
from server.routes import SEAT_TOKEN_PARAM, documented
from server.schemas import MAX_SEED, BudgetIn, MatchAction, MatchCreate, parse
from server.service import matches, resources

bp = Blueprint("matches", __name__)


@bp.post("")
@documented(
    summary='Host a match: a bot spec or "human" per seat',
    operation_id="createMatch",
    tag="matches",
    request="MatchCreate",
    response="MatchCreatedOut",
    status="201",
    description="the match, with one secret token per human seat",
    errors=("404", "409", "422", "503"),
)
def create_match() -> tuple[Response, int]:
    body = parse(MatchCreate, json_body())
    client = resources().access.client_id(request.headers.get(API_KEY_HEADER), request.remote_addr)
    out = matches().create(body, client)
    response = jsonify(out)
    response.headers["Location"] = f"/v1/matches/{out['match_id']}"
    return response, 201


@bp.get("/<match_id>")
@documented(
    summary="A match: the token's seat view, or the public view without a token",
    operation_id="getMatch",
    tag="matches",
    response="MatchOut",
    description="the match",
    errors=("403", "410"),
    parameters=(SEAT_TOKEN_PARAM,),
)
def get_match(match_id: str) -> Response:
    return jsonify(matches().view(match_id, seat_token()))


@bp.post("/<match_id>/actions")
@documented(
    summary="Play the token's seat's move; the bots then play until a human must",
    operation_id="playAction",
    tag="matches",
    request="MatchAction",
    response="MatchOut",
    description="the move was played",
    errors=("403", "409", "410", "422", "503"),
    parameters=(SEAT_TOKEN_PARAM,),
)
def post_action(match_id: str) -> Response:
    raw = json_body()
    if isinstance(raw, dict) and "token" in raw:
        raise ApiError(
            "send the seat token in the X-Seat-Token header, not in the body",
            code="token_in_body",
            detail={"field": "token"},
        )
    body = parse(MatchAction, raw)
    return jsonify(matches().act(match_id, seat_token(), body.action, body.step))


@bp.get("/<match_id>/hint")
@documented(
    summary="A hint for the token's seat",
    operation_id="matchHint",
    tag="matches",
    response="HintOut",
    description="the hint",
    errors=("403", "409", "410", "422", "503"),
    parameters=(
        SEAT_TOKEN_PARAM,
        {"name": "bot", "in": "query", "schema": {"type": "string"}},
        {
            "name": "milliseconds",
            "in": "query",
            "schema": {"type": "number", "exclusiveMinimum": 0},
        },
        {"name": "simulations", "in": "query", "schema": {"type": "integer", "minimum": 1}},
        {
            "name": "seed",
            "in": "query",
            "schema": {"type": "integer", "minimum": 0, "maximum": MAX_SEED},
        },
    ),
)
def match_hint(match_id: str) -> Response:
    ms = query_number("milliseconds", float, 0, exclusive_min=True)
    sims = query_number("simulations", int, 1)
    seed = query_number("seed", int, 0, MAX_SEED)
    budget = None
    if ms is not None or sims is not None:
        budget = BudgetIn(**{k: v for k, v in (("milliseconds", ms), ("simulations", sims)) if v})
    bot = request.args.get("bot") or None
    return jsonify(matches().hint(match_id, seat_token(), bot, budget, seed))


@bp.delete("/<match_id>")
@documented(
    summary="Delete a match (any of its seat tokens may)",
    operation_id="deleteMatch",
    tag="matches",
    response={"type": "null"},
    status="204",
    description="the match is gone",
    errors=("403",),
    parameters=(SEAT_TOKEN_PARAM,),
)
def delete_match(match_id: str) -> tuple[str, int]:
    matches().delete(match_id, seat_token())
    return "", 204
