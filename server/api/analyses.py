"""Analyses: ``POST /v1/games/{game}/analysis`` starts one (one position, or every decision of
a record), ``GET /v1/analyses/{id}`` polls it (the positions finished so far), ``DELETE``
cancels. The same jobs as reviews (``server.reviews``: queue, store, limits, privacy): a job
answers only the credential that created it."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from server.api import json_body
from server.routes import documented
from server.schemas import AnalysisRequest, parse
from server.service import hints, resources, reviews

bp = Blueprint("analyses", __name__)


def _client() -> str:
    client = resources().request_client()
    assert client is not None  # inside a request
    return client


@bp.post("/games/<game>/analysis")
@documented(
    summary="Start an analysis of one position or of every decision of a record (a job)",
    operation_id="createAnalysis",
    tag="games",
    request="AnalysisRequest",
    response="AnalysisJobOut",
    status="202",
    description="the analysis job, queued; poll its url",
    errors=("409", "422", "503"),
)
def create_analysis(game: str) -> tuple[Response, int]:
    hints().definition(game)
    body = parse(AnalysisRequest, json_body())
    out = reviews().request_analysis(game, body, _client())
    response = jsonify(out)
    response.headers["Location"] = out["url"]
    return response, 202


@bp.get("/analyses/<analysis_id>")
@documented(
    summary="An analysis job: the positions analysed so far (its creator only)",
    operation_id="getAnalysis",
    tag="games",
    response="AnalysisJobOut",
    description="the job",
    errors=("404",),
)
def get_analysis(analysis_id: str) -> Response:
    body = reviews().body(analysis_id, _client(), kind="analysis")
    return Response(body, mimetype="application/json")


@bp.delete("/analyses/<analysis_id>")
@documented(
    summary="Cancel an analysis job: it stops before its next position (its creator only)",
    operation_id="cancelAnalysis",
    tag="games",
    response="AnalysisJobOut",
    description="the job, cancelled (a finished one as it is)",
    errors=("404",),
)
def cancel_analysis(analysis_id: str) -> Response:
    return jsonify(reviews().cancel(analysis_id, _client(), kind="analysis"))
