"""Game reviews: ``POST /v1/games/{game}/review`` starts one, ``GET /v1/reviews/{id}`` polls
it, ``GET /v1/reviews/{id}/decisions/{n}`` gives one decision with the seat's information set,
``DELETE`` cancels; ``GET /v1/matches/{id}/review`` reviews a finished hosted match for the
token's seat. A job answers only the credential that created it (``server.reviews``)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from server.api import json_body, seat_token
from server.routes import SEAT_TOKEN_PARAM, documented
from server.schemas import ReviewRequest, parse
from server.service import hints, matches, resources, reviews

bp = Blueprint("reviews", __name__)

DECISION_OUT = {
    "type": "object",
    "description": "one decision: its step, the move played, the seat's information set "
    "before it and, once reviewed, its figures (docs/api.md, Game review)",
    "required": ["index", "step", "played", "reviewed", "infoset"],
    "properties": {
        "index": {"type": "integer"},
        "step": {"type": "integer"},
        "played": {"type": "object"},
        "reviewed": {"type": "boolean"},
        "infoset": {"type": "object"},
    },
}


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
    summary="A review job: its progress, and the review once done (its creator only)",
    operation_id="getReview",
    tag="games",
    response="ReviewJobOut",
    description="the job",
    errors=("404",),
    parameters=(SEAT_TOKEN_PARAM,),
)
def get_review(review_id: str) -> Response:
    body = reviews().body(review_id, _client(), seat_token())
    return Response(body, mimetype="application/json")


@bp.delete("/reviews/<review_id>")
@documented(
    summary="Cancel a review job: it stops before its next decision (its creator only)",
    operation_id="cancelReview",
    tag="games",
    response="ReviewJobOut",
    description="the job, cancelled (a finished one as it is)",
    errors=("404",),
    parameters=(SEAT_TOKEN_PARAM,),
)
def cancel_review(review_id: str) -> Response:
    return jsonify(reviews().cancel(review_id, _client(), seat_token()))


@bp.get("/reviews/<review_id>/decisions/<int:index>")
@documented(
    summary="One decision of a review with the seat's information set before it",
    operation_id="getReviewDecision",
    tag="games",
    response=DECISION_OUT,
    description="the decision",
    errors=("404",),
    parameters=(SEAT_TOKEN_PARAM,),
)
def review_decision(review_id: str, index: int) -> Response:
    return jsonify(reviews().decision(review_id, index, _client(), seat_token()))


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


@bp.delete("/matches/<match_id>/review")
@documented(
    summary="Cancel the review of the token's seat in a match",
    operation_id="cancelMatchReview",
    tag="matches",
    response="ReviewJobOut",
    description="the review job, cancelled (a finished one as it is)",
    errors=("403", "404", "410"),
    parameters=(SEAT_TOKEN_PARAM,),
)
def cancel_match_review(match_id: str) -> Response:
    return jsonify(reviews().cancel_match(matches(), match_id, seat_token(), _client()))
