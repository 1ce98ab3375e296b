"""Game reviews: ``POST /v1/games/{game}/review`` starts one, ``GET /v1/reviews/{id}`` polls
it, ``GET /v1/matches/{id}/review`` reviews a finished hosted match for the token's seat."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from server.api import json_body, seat_token
from server.routes import SEAT_TOKEN_PARAM, documented
from server.schemas import ReviewRequest, parse
from server.service import hints, matches, resources, reviews

bp = Blueprint("reviews", __name__)


def _client() -> str:
    client = resources().request_client()
    assert client is not None  # inside a request
    return client


@bp.post("/games/<game>/review")
@documented(
    summary="Start a review of one seat's decisions in a game record (a job to poll)",
    operation_id="createReview",
    tag="games",
    request="ReviewRequest",
    response="ReviewJobOut",
    status="202",
    description="the review job, queued; poll its url",
    errors=("409", "422", "503"),
)
def create_review(game: str) -> tuple[Response, int]:
    hints().definition(game)
    body = parse(ReviewRequest, json_body())
    out = reviews().request(game, body, _client())
    response = jsonify(out)
    response.headers["Location"] = out["url"]
    return response, 202


@bp.get("/reviews/<review_id>")
@documented(
    summary="A review job: its progress, and the review once done",
    operation_id="getReview",
    tag="games",
    response="ReviewJobOut",
    description="the job",
)
def get_review(review_id: str) -> Response:
    return Response(reviews().body(review_id), mimetype="application/json")


@bp.get("/matches/<match_id>/review")
@documented(
    summary="The review of the token's seat in a finished match (started on the first call)",
    operation_id="matchReview",
    tag="matches",
    response="ReviewJobOut",
    description="the review job (the same one on every call)",
    errors=("403", "409", "410", "503"),
    parameters=(SEAT_TOKEN_PARAM,),
)
def match_review(match_id: str) -> Response:
    return jsonify(reviews().for_match(matches(), match_id, seat_token(), _client()))
