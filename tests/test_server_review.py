"""Game review through the service: a job per review, polled to its end; errors up front."""

from __future__ import annotations

import json
import time

import pytest

from games.core.infoset import build_infoset
from tests.server_support import OPEN_DEAL
from tests.support import heuristic_game

TINY = {"simulations": 5}


def poll(client, url, timeout=120.0, headers=None):
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        r = client.get(url, headers=headers)
        assert r.status_code == 200, r.json
        if r.json["status"] in ("done", "failed"):
            return r.json
        time.sleep(0.1)
    raise AssertionError(f"review {url} did not finish: {r.json['progress']}")


def gallery_record(seed=2, seat=0):
    defn, params, engine = heuristic_game("gallery_rush", seed=seed)
    return engine, build_infoset(defn, params, engine, seat, with_view=False)


def test_a_review_is_a_job_polled_to_its_review(client):
    _, infoset = gallery_record()
    r = client.post(
        "/v1/games/gallery_rush/review",
        json={"infoset": infoset, "bot": "heuristic", "budget": TINY, "samples": 32, "seed": 4},
    )
    assert r.status_code == 202, r.json
    job = r.json
    assert job["status"] == "queued" and job["url"] == f"/v1/reviews/{job['id']}"
    assert job["progress"]["done"] == 0 and job["progress"]["total"] > 0
    assert r.headers["Location"] == job["url"]
    done = poll(client, job["url"])
    assert done["status"] == "done", done
    assert done["progress"] == {"done": job["progress"]["total"], "total": job["progress"]["total"]}
    review = done["review"]
    assert review["game"] == "gallery_rush" and review["seat"] == 0
    assert review["bot"]["name"] == "heuristic" and review["budget"]["simulations"] == 5
    assert review["value"]["scale"].startswith("0 to 1")
    assert len(review["decisions"]) == job["progress"]["total"]
    for k, d in enumerate(review["decisions"]):
        # A decision names its step; the seat's information set there is fetched on demand.
        assert d["index"] == k and "infoset" not in d
        one = client.get(f"{job['url']}/decisions/{k}").json
        assert one["reviewed"] and one["step"] == d["step"] and one["best"] == d["best"]
        assert one["infoset"]["events"] == infoset["events"][: d["step"]]
        assert one["infoset"]["seat"] == 0
        lo, hi = d["interval"]
        assert lo <= d["value_lost"] <= hi
        if d["played"]["id"] == d["best"]["id"]:
            assert d["value_lost"] == 0.0
        assert {"id", "string"} <= set(d["played"]) and {"id", "string"} <= set(d["best"])
    summary = review["summary"]
    assert summary["decisions"] == len(review["decisions"])
    assert len(summary["biggest_mistakes"]) <= 3 and 0 <= summary["accuracy"] <= 100
    # The luck split, one more task after the decisions: the rule ``atelier review`` runs.
    import games
    from bots.review import summary_luck

    defn = games.definition("gallery_rush")
    params = defn.validate_params({})
    assert "luck_skipped" not in summary, summary
    assert summary["luck"] == summary_luck(defn, params, infoset, 4)[0]
    assert "of a win" in summary["luck"]["sentence"] and summary["luck"]["stderr"]["chance"] > 0


def test_an_unfinished_records_review_has_no_luck_and_says_why(client):
    from bots.review import LUCK_UNFINISHED, infoset_before

    _, infoset = gallery_record()
    body = {"infoset": infoset_before(infoset, 12), "bot": "heuristic", "budget": TINY}
    job = client.post("/v1/games/gallery_rush/review", json={**body, "samples": 32}).json
    done = poll(client, job["url"])
    assert done["status"] == "done", done
    assert done["review"]["summary"]["luck"] is None
    assert done["review"]["summary"]["luck_skipped"] == LUCK_UNFINISHED


def test_a_luck_split_over_its_deadline_leaves_the_review_done_without_it(tmp_path):
    from server import close_app
    from tests.server_support import make_app

    # 1 ms: no split of a whole game finishes in it (Gallery Rush's takes seconds).
    app = make_app(tmp_path, search_workers=1, review_luck_ms=1)
    try:
        client = app.test_client()
        _, infoset = gallery_record()
        body = {"infoset": infoset, "bot": "heuristic", "budget": TINY, "samples": 32}
        job = client.post("/v1/games/gallery_rush/review", json=body).json
        done = poll(client, job["url"])
        assert done["status"] == "done" and "error" not in done, done
        summary = done["review"]["summary"]
        assert summary["luck"] is None and "partial" not in done["review"]
        assert summary["luck_skipped"] == "took longer than 1 ms (review_luck_ms)"
        assert summary["decisions"] == job["progress"]["total"]
        # The worker killed at the deadline was replaced: the service still answers.
        again = client.post("/v1/games/gallery_rush/review", json={**body, "seed": 5}).json
        assert poll(client, again["url"])["status"] == "done"
    finally:
        close_app(app)


def test_the_luck_task_is_skipped_with_a_reason_never_failing_the_review(monkeypatch):
    import bots
    from server.config import ServiceConfig
    from server.errors import ApiError
    from server.reviews import JOB_CLIENT, ReviewJob, ReviewService, job_client

    class FakeHints:
        def __init__(self, errors, answer=None):
            self.errors, self.answer, self.kinds = list(errors), answer, []

        def run(self, kind, payload, deadline):
            self.kinds.append((kind, deadline))
            assert job_client() is None  # not charged to the client (ReviewService._luck)
            if self.errors:
                code = self.errors.pop(0)
                raise ApiError(code, status=503, code=code, retry_after=0.0)
            return self.answer

    monkeypatch.setattr("server.reviews.time.sleep", lambda s: None)
    job = ReviewJob(
        "j", "c", "o", "gallery_rush", {}, {"seat": 0}, {"decisions": []}, {}, bots.Budget(1), 0, 32
    )
    split = {"sentence": "0.31 of a win lost to the cards, 0.08 to decisions"}
    busy = FakeHints(["busy", "busy"], {"luck": split, "skipped": None})
    config = ServiceConfig(review_luck_ms=5000)
    outside = JOB_CLIENT.set("c")
    assert ReviewService(busy, config)._luck(job) == (split, None)
    assert job_client() == "c"  # the decisions' client again after it
    JOB_CLIENT.reset(outside)
    assert busy.kinds == [("review_luck", 5.0)] * 3  # its own deadline, capacity waited out
    slow = FakeHints(["deadline_exceeded"])
    assert ReviewService(slow, config)._luck(job) == (
        None,
        "took longer than 5000 ms (review_luck_ms)",
    )
    assert len(slow.kinds) == 1  # never run again: it would overrun again
    broken = FakeHints(["internal"])
    luck, why = ReviewService(broken, config)._luck(job)
    assert luck is None and why.startswith("could not be computed (internal)")
    off = FakeHints([])
    assert ReviewService(off, ServiceConfig(review_luck_ms=0))._luck(job) == (
        None,
        "off on this service (review_luck_ms = 0)",
    )
    assert off.kinds == []


def test_a_whole_state_record_reviews_like_the_seats_information_set(client):
    engine, infoset = gallery_record(seed=3, seat=1)
    body = {"bot": "heuristic", "budget": TINY, "samples": 32, "seed": 9}
    a = client.post("/v1/games/gallery_rush/review", json={"infoset": infoset, **body})
    b = client.post(
        "/v1/games/gallery_rush/review",
        json={"state": {"history": list(engine.history)}, "seat": 1, **body},
    )
    assert a.status_code == b.status_code == 202, (a.json, b.json)
    ra, rb = poll(client, a.json["url"])["review"], poll(client, b.json["url"])["review"]
    for review in (ra, rb):
        for d in review["decisions"]:
            d.pop("elapsed_ms")
    assert ra == rb


BAD = [
    ({"infoset": {"game": "gallery_rush"}}, 422, "invalid_infoset"),
    ({}, 422, "invalid_request"),
    ({"state": {"history": []}}, 422, "invalid_request"),  # no seat
    ({"state": {"history": [], "game": "modern_art"}, "seat": 0}, 422, "invalid_record"),
    ({"state": {"history": ["x"]}, "seat": 0}, 422, "invalid_record"),
    ({"state": {"history": [999999]}, "seat": 0}, 422, "invalid_record"),  # not legal
    ({"state": {"history": []}, "seat": 7}, 422, "invalid_request"),
    ({"state": {"history": []}, "seat": 0, "bot": "nobody"}, 422, "invalid_bot"),
    ({"state": {"history": []}, "seat": 0, "budget": {"simulations": 0}}, 422, "invalid_request"),
    ({"state": {"history": []}, "seat": 0, "samples": 5}, 422, "invalid_request"),
    ({"state": {"history": []}, "seat": 0, "params": {"players": 9}}, 422, "invalid_params"),
]


@pytest.mark.parametrize("body,status,code", BAD, ids=[c for _, _, c in BAD])
def test_bad_review_requests_are_refused_up_front(client, body, status, code):
    r = client.post("/v1/games/gallery_rush/review", json=body)
    assert r.status_code == status and r.json["code"] == code, r.json
    assert r.json["message"]


def test_an_infoset_with_another_seat_and_an_unknown_review(client):
    _, infoset = gallery_record()
    r = client.post("/v1/games/gallery_rush/review", json={"infoset": infoset, "seat": 1})
    assert r.status_code == 422 and r.json["detail"]["field"] == "seat", r.json
    r = client.post("/v1/games/chess/review", json={"infoset": infoset})
    assert r.status_code == 404 and r.json["code"] == "unknown_game"
    r = client.get("/v1/reviews/0123")
    assert r.status_code == 404 and r.json["code"] == "unknown_review"


def test_a_match_review_waits_for_the_end_then_is_one_job(client):
    r = client.post(
        "/v1/matches",
        # A fixed deal: the review is asked for before the end (OPEN_DEAL).
        json={"game": "gallery_rush", "seats": ["human", "random"], "budget": TINY, **OPEN_DEAL},
    )
    assert r.status_code == 201, r.json
    match = r.json
    headers = {"X-Seat-Token": match["tokens"][0]["token"]}
    url = f"/v1/matches/{match['match_id']}"
    early = client.get(f"{url}/review", headers=headers)
    assert early.status_code == 409 and early.json["code"] == "match_not_over", early.json
    assert client.get(f"{url}/review").status_code == 401
    assert client.get(f"{url}/review", headers={"X-Seat-Token": "nope"}).status_code == 403
    view = client.get(url, headers=headers).json
    while not view["terminal"]:
        legal = view["infoset"]["view"]["legal_actions"]
        first = legal[0]["id"] if isinstance(legal[0], dict) else legal[0]
        view = client.post(f"{url}/actions", json={"action": first}, headers=headers).json
    first = client.get(f"{url}/review", headers=headers)
    assert first.status_code == 200, first.json
    again = client.get(f"{url}/review", headers=headers)
    assert again.json["id"] == first.json["id"] and again.json["match_id"] == match["match_id"]
    # Only the seat's token reads it (404 otherwise: the id is not confirmed to exist).
    assert client.get(first.json["url"]).status_code == 404
    done = poll(client, first.json["url"], timeout=300, headers=headers)
    assert done["status"] == "done", done
    assert done["review"]["seat"] == 0
    assert client.get(f"{url}/review", headers=headers).json["id"] == first.json["id"]
    # The review's seed is keyed by the server secret: not the unkeyed hash of the match's
    # seed (OPEN_DEAL's 1), which a brute force over 2^32 seeds would invert.
    from server.cache import digest

    assert done["seed"] != int(digest([1, "review", 0])[:8], 16)
    # Cancelling needs the token; a finished review is left as it is.
    assert client.delete(f"{url}/review").status_code == 401
    after = client.delete(f"{url}/review", headers=headers)
    assert after.status_code == 200 and after.json["status"] == "done", after.json


def test_a_reviews_searches_are_charged_to_its_client(tmp_path):
    from server import close_app
    from tests.server_support import make_app

    # One worker-microsecond a minute: the plan (in the request) spends it however fast the
    # machine (a millisecond was less than a quick plan could cost), and the review's
    # decisions must then wait for the client's bucket, like any search of that client.
    app = make_app(tmp_path, client_search_ms_per_minute=0.001, review_max_running_per_client=1)
    try:
        client = app.test_client()
        _, infoset = gallery_record()
        body = {"infoset": infoset, "bot": "heuristic", "budget": TINY, "samples": 32}
        r = client.post("/v1/games/gallery_rush/review", json=body)
        assert r.status_code == 202, r.json
        costs = app.extensions["atelier"].costs
        until = time.monotonic() + 60
        while costs.refused == 0 and time.monotonic() < until:
            time.sleep(0.05)
        assert costs.refused >= 1, "the review's first decision was never refused"
        job = client.get(r.json["url"]).json
        assert job["status"] == "running" and job["progress"]["done"] == 0, job
        # And one review at a time for this client.
        second = client.post("/v1/games/gallery_rush/review", json=body)
        assert second.status_code == 429 and second.json["code"] == "too_many_reviews"
        assert int(second.headers["Retry-After"]) >= 1
    finally:
        close_app(app)


GEVENT_SCRIPT = """
from gevent import monkey

monkey.patch_all()

import json, sys, tempfile, time

import gevent

from bots.review import infoset_before
from games.core.infoset import build_infoset
from server import close_app, create_app
from tests.support import heuristic_game

if __name__ == "__main__":
    app = create_app({"match_db": tempfile.mkdtemp() + "/m.sqlite3", "search_workers": 1})
    client = app.test_client()
    defn, params, engine = heuristic_game("gallery_rush", seed=2)
    # The first decisions, each a search of 1.5 s and as long a valuation.
    infoset = infoset_before(build_infoset(defn, params, engine, 0, with_view=False), 8)
    client.get("/healthz")
    app.extensions["atelier"].pool.start()
    gaps, running = [], [True]

    def ticker():
        last = time.perf_counter()
        while running[0]:
            gevent.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    tick = gevent.spawn(ticker)
    budget = {"simulations": 200000, "milliseconds": 1500}
    body = {"infoset": infoset, "bot": "ismcts", "budget": budget, "samples": 2000}
    job = client.post("/v1/games/gallery_rush/review", json=body).json
    while job["status"] in ("queued", "running"):
        gevent.sleep(0.05)
        job = client.get(job["url"]).json
    running[0] = False
    tick.join()
    close_app(app)
    print(json.dumps({"status": job["status"], "total": job["progress"]["total"],
                      "max_gap": max(gaps), "ticks": len(gaps)}))
"""


def test_under_gevent_a_running_review_leaves_the_hub_free(tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "gevent_review.py"
    script.write_text(GEVENT_SCRIPT)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["status"] == "done" and out["total"] >= 1, out
    # The review ran for seconds in the same process and the hub kept ticking: a runner
    # holding it would show a gap as long as a decision (at least 1.5 s of search).
    assert out["max_gap"] < 0.75, out


def test_a_wrong_view_is_refused_and_a_record_without_decisions_reviews_empty(client):
    defn, params, engine = heuristic_game("gallery_rush", seed=2)
    infoset = build_infoset(defn, params, engine, 0, with_view=True)
    infoset["view"]["current_player"] = 1
    r = client.post("/v1/games/gallery_rush/review", json={"infoset": infoset})
    assert r.status_code == 422 and r.json["code"] == "invalid_infoset", r.json
    r = client.post(
        "/v1/games/gallery_rush/review",
        json={"state": {"history": []}, "seat": 1, "bot": "random", "budget": TINY},
    )
    assert r.status_code == 202 and r.json["progress"] == {"done": 0, "total": 0}, r.json
    done = poll(client, r.json["url"])
    assert done["status"] == "done" and done["review"]["decisions"] == []
    assert done["review"]["summary"]["decisions"] == 0
    assert done["review"]["summary"]["accuracy"] is None


def test_the_runner_waits_out_capacity_errors_but_not_a_decision_that_keeps_failing(monkeypatch):
    import bots
    from server.config import ServiceConfig
    from server.errors import ApiError
    from server.reviews import ReviewJob, ReviewService

    class FakeHints:
        def __init__(self, errors):
            self.errors = list(errors)
            self.calls = 0

        def run(self, kind, payload, deadline):
            self.calls += 1
            if self.errors:
                code = self.errors.pop(0)
                raise ApiError(code, status=503, code=code, retry_after=0.0)
            return {"ok": kind}

    monkeypatch.setattr("server.reviews.time.sleep", lambda s: None)
    job = ReviewJob(
        "j", "c", "o", "gallery_rush", {}, {"seat": 0}, {"decisions": []}, {}, bots.Budget(1), 0, 32
    )
    item = {"step": 3, "played": {"id": 1}}
    busy = FakeHints(["busy", "search_time_exceeded", "busy"])
    assert ReviewService(busy, ServiceConfig())._decision(job, item) == {"ok": "review_decision"}
    assert busy.calls == 4
    dying = FakeHints(["deadline_exceeded"] * 5)
    with pytest.raises(ApiError) as failed:
        ReviewService(dying, ServiceConfig())._decision(job, item)
    assert failed.value.code == "deadline_exceeded" and dying.calls == 3
    refused = FakeHints(["invalid_infoset"])
    with pytest.raises(ApiError):
        ReviewService(refused, ServiceConfig())._decision(job, item)
    assert refused.calls == 1


OTHER_CLIENT = {"REMOTE_ADDR": "10.9.8.7"}


def test_a_review_answers_only_its_creator_and_its_id_stays_out_of_logs(client):
    from server.logs import redact

    _, infoset = gallery_record()
    body = {"infoset": infoset, "bot": "heuristic", "budget": TINY, "samples": 32}
    job = client.post("/v1/games/gallery_rush/review", json=body).json
    url = job["url"]
    assert job["id"].startswith("job_") and len(job["id"]) == 36, job["id"]
    for method, path in (("get", url), ("delete", url), ("get", f"{url}/decisions/0")):
        other = getattr(client, method)(path, environ_base=OTHER_CLIENT)
        assert other.status_code == 404 and other.json["code"] == "unknown_review", other.json
    assert client.get(url).status_code == 200
    line = f'127.0.0.1 - - "GET {url}/decisions/0 HTTP/1.1" 200 512'
    assert job["id"] not in redact(line) and "/v1/reviews/[redacted]" in redact(line)
    assert poll(client, url)["status"] == "done"
    assert client.get(f"{url}/decisions/99").json["code"] == "unknown_decision"


def test_the_keyed_seed_depends_on_the_server_secret():
    from server.cache import digest
    from server.config import ServiceConfig
    from server.reviews import ReviewService

    def seed(secret):
        return ReviewService(None, ServiceConfig(server_secret=secret)).keyed_seed(5, "review", 0)

    assert seed("one") == seed("one") != seed("two")
    assert seed("one") != int(digest([5, "review", 0])[:8], 16)
    assert "one" not in str(ServiceConfig(server_secret="one").to_json())


def wait_until(check, timeout=60.0):
    until = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < until, "timed out"
        time.sleep(0.05)


def test_a_cancelled_review_stops_between_decisions_and_frees_its_slot(tmp_path):
    from server import close_app
    from tests.server_support import make_app

    app = make_app(tmp_path, search_workers=1, review_max_running_per_client=1)
    service = app.extensions["atelier.reviews"]
    try:
        client = app.test_client()
        _, infoset = gallery_record()
        # Each decision a search of 300 ms and as long a valuation: seconds in all.
        budget = {"simulations": 200000, "milliseconds": 300}
        body = {"infoset": infoset, "bot": "ismcts", "budget": budget, "samples": 2000}
        job = client.post("/v1/games/gallery_rush/review", json=body).json
        wait_until(lambda: client.get(job["url"]).json["status"] == "running")
        r = client.delete(job["url"])
        assert r.status_code == 200 and r.json["status"] == "cancelled", r.json
        assert r.json["error"]["code"] == "cancelled"
        # Its slot is free at once: the client's one review may start.
        second = client.post("/v1/games/gallery_rush/review", json=body)
        assert second.status_code == 202, second.json
        assert client.delete(second.json["url"]).json["status"] == "cancelled"
        wait_until(lambda: not service.store.live())
        final = client.get(job["url"]).json
        assert (
            final["status"] == "cancelled" and final["progress"]["done"] < job["progress"]["total"]
        )
        # A decision that ended after the cancel is not recorded: what was done before is.
        if final["progress"]["done"]:
            assert final["review"]["partial"] is True
            assert len(final["review"]["decisions"]) == final["progress"]["done"]
        else:
            assert "review" not in final
    finally:
        close_app(app)


def test_reviews_are_bounded_in_decisions_and_in_bytes(tmp_path):
    from bots.review import infoset_before
    from server import close_app
    from tests.server_support import make_app

    app = make_app(tmp_path, search_workers=1, review_max_decisions=4, review_max_answer_bytes=1024)
    try:
        client = app.test_client()
        _, infoset = gallery_record()  # more than 4 decisions of seat 0
        body = {"bot": "heuristic", "budget": TINY, "samples": 32}
        r = client.post("/v1/games/gallery_rush/review", json={"infoset": infoset, **body})
        assert r.status_code == 422 and r.json["code"] == "review_too_long", r.json
        assert r.json["detail"]["max_decisions"] == 4 and r.json["detail"]["decisions"] > 4
        assert "review_max_decisions" in r.json["message"]
        short = infoset_before(infoset, 12)
        r = client.post("/v1/games/gallery_rush/review", json={"infoset": short, **body})
        assert r.status_code == 202 and 2 <= r.json["progress"]["total"] <= 4, r.json
        done = poll(client, r.json["url"])
        # A decision is a few hundred bytes: one of them passes 1024 and the job fails with
        # the cap named, keeping the decisions it had (within the cap).
        assert done["status"] == "failed" and done["error"]["code"] == "review_too_large", done
        assert "review_max_answer_bytes" in done["error"]["message"]
        kept = done["review"]["decisions"]
        assert 1 <= len(kept) == done["progress"]["done"] < done["progress"]["total"]
        assert len(json.dumps(kept, separators=(",", ":"))) <= 1024 + len(kept)
        assert done["review"]["partial"] is True
    finally:
        close_app(app)


def test_a_decisions_deadline_grows_with_the_replays_of_its_prefix():
    import bots
    from bots.review import MAX_POOL
    from server.config import ServiceConfig
    from server.reviews import ReviewJob, ReviewService

    seen = []

    class FakeHints:
        def run(self, kind, payload, deadline):
            seen.append(deadline)
            return {}

    # A 1000-step record whose one replay took 50 ms: a decision near its end replays nearly
    # all of it once per world of its pool.
    plan = {"decisions": [], "steps": 1000, "replay_ms": 50.0}
    job = ReviewJob(
        "j", "c", "o", "gallery_rush", {}, {"seat": 0}, plan, {}, bots.Budget(1, 100.0), 0, 32
    )
    service = ReviewService(FakeHints(), ServiceConfig())
    service._decision(job, {"step": 0, "played": {"id": 1}})
    service._decision(job, {"step": 999, "played": {"id": 1}})
    early, late = seen
    base = (2 * 100.0 + ServiceConfig().deadline_margin_ms) / 1000.0
    assert early < base + 0.5
    assert late >= base + MAX_POOL * 0.050


def test_job_tasks_never_take_the_last_free_worker():
    from server.pool import PoolBusy, SearchPool

    pool = SearchPool(2, start_method="fork", queue_timeout=0.3, job_kinds=frozenset({"ping"}))
    try:
        pool.start()
        assert pool.run("ping", {}, 5.0)["ok"]["pong"]  # both free: a job task may take one
        held = pool._acquire()  # an interactive request holds one worker
        with pytest.raises(PoolBusy):
            pool.run("ping", {}, 5.0)  # the other is the last free one: not for a job
        assert pool.run("validate_nothing", {}, 5.0)  # interactive work still gets it
        pool._idle.put(held)
        assert pool.run("ping", {}, 5.0)["ok"]["pong"]
        assert pool.info()["job_slots"] == 1 and pool.info()["jobs_running"] == 0
    finally:
        pool.close()


# --- the job store (server.jobs): in memory, and in Redis when ATELIER_TEST_REDIS_URL is set --
def _stores():
    import os

    from server.jobs import MemoryJobStore, RedisJobStore

    yield "memory", lambda keep, keep_bytes: MemoryJobStore(60.0, keep, keep_bytes)
    url = os.environ.get("ATELIER_TEST_REDIS_URL")
    if url:
        import uuid

        from server.redis_conn import SharedRedis

        def redis_store(keep, keep_bytes):
            shared = SharedRedis(url, f"jobstore{uuid.uuid4().hex[:8]}")
            return RedisJobStore(shared, 60.0, keep, keep_bytes)

        yield "redis", redis_store


STORES = dict(_stores())


@pytest.fixture(params=sorted(STORES))
def make_store(request):
    return STORES[request.param]


def test_a_dead_workers_job_is_queued_again_then_failed_with_a_reason(make_store):
    import server.jobs as jobs

    store = make_store(8, 1 << 20)
    store.create("j1", "c", {"id": "j1"})
    assert store.claim("j1", "w1") == "claimed" and store.status("j1") == "running"
    assert store.claim("j1", "w2") == "busy"  # a second delivery of its message: not run twice
    assert store.stale() == []
    store.add_decision("j1", {"index": 0}, 10)
    # Its worker dies: its heartbeat is gone (released here: an expiry, without the wait).
    store.release("j1", "w1")
    assert store.stale() == [("j1", "running")]
    assert store.retry_or_fail("j1") == "queued"
    assert store.retry_or_fail("j1") is None  # queued: nothing to do
    for death in range(jobs.MAX_WORKER_DEATHS):
        assert store.claim("j1", f"w{death + 3}") == "claimed"
        assert store.load("j1").decisions == [{"index": 0}]  # resumes after it
        store.release("j1", f"w{death + 3}")
        verdict = store.retry_or_fail("j1")
    assert verdict == "failed"
    failed = store.load("j1")
    assert failed.status == "failed" and failed.error["code"] == "worker_died"


def test_finished_jobs_are_kept_within_their_byte_bound(make_store):
    store = make_store(100, 3000)
    for i in range(5):
        store.create(f"j{i}", "c", {"id": f"j{i}"})
        store.transition(f"j{i}", "done", ("queued",))
        store.finish(f"j{i}", b"x" * 1000, 1000)
    kept = [i for i in range(5) if store.answer(f"j{i}") is not None]
    assert kept == [2, 3, 4], kept  # the oldest evicted first
    assert store.info()["finished_bytes"] == 3000 and store.info()["finished"] == 3
    assert store.load("j0") is None and store.live() == {}


def test_the_store_counts_running_and_waiting_jobs_and_ages_the_oldest_waiting(make_store):
    store = make_store(8, 1 << 20)
    assert store.info()["oldest_queued_s"] is None  # nothing waits
    for job_id in ("j1", "j2", "j3"):
        store.create(job_id, "c", {"id": job_id})
    assert store.claim("j1", "w1") == "claimed"
    info = store.info()
    assert (info["running"], info["queued"]) == (1, 2)
    assert 0.0 <= info["oldest_queued_s"] < 60.0
    for job_id in ("j1", "j2", "j3"):
        store.transition(job_id, "done", ("queued", "running"))
        store.finish(job_id, b"{}", 2)
    info = store.info()
    assert (info["running"], info["queued"], info["oldest_queued_s"]) == (0, 0, None)


def test_the_oldest_waiting_age_reads_only_queued_jobs_with_a_known_creation():
    from server.jobs import live_figures

    live = [("running", 10.0), ("queued", 40.0), ("queued", 70.0), ("queued", None)]
    assert live_figures(live, 100.0) == {"running": 1, "queued": 3, "oldest_queued_s": 60.0}
    assert live_figures([("queued", None)], 100.0)["oldest_queued_s"] is None


def test_a_job_made_by_one_service_is_read_and_cancelled_through_another(tmp_path):
    """Two instances' review services on one Redis: the second reads and cancels the first's
    job (per-instance jobs answered 404 there)."""
    import os

    url = os.environ.get("ATELIER_TEST_REDIS_URL")
    if not url:
        pytest.skip("ATELIER_TEST_REDIS_URL is not set (start one with .ci/redis.sh)")
    import uuid

    from server.config import ServiceConfig
    from server.redis_conn import SharedRedis
    from server.reviews import ReviewJob, ReviewService

    prefix = f"jobsvc{uuid.uuid4().hex[:8]}"
    config = ServiceConfig(server_secret="s", redis_url=url, redis_prefix=prefix)
    one, two = (ReviewService(None, config, SharedRedis(url, prefix)) for _ in range(2))
    import bots

    job = ReviewJob(
        "job_x", "key:k", one.owner_of("key:k"), "gallery_rush", {}, {"seat": 0},
        {"decisions": [{"step": 1, "played": {"id": 0}}]}, {}, bots.Budget(1), 0, 32,
    )  # fmt: skip
    one.store.create(job.id, one.client_digest("key:k"), job.to_spec(one.seal("key:k")))
    assert two.get("job_x", "key:k")["status"] == "queued"
    assert two._job(two.store.load("job_x")).client == "key:k"  # opened with the same secret
    with pytest.raises(Exception) as other:
        two.get("job_x", "key:other")
    assert other.value.code == "unknown_review"
    assert two.cancel("job_x", "key:k")["status"] == "cancelled"
    assert one.get("job_x", "key:k")["status"] == "cancelled"
    assert one.store.live() == {}  # finished at once: it was only queued
    assert b"key:k" not in b"".join(
        one.shared.client.hget(one.shared.key("job", "job_x"), f) or b"" for f in (b"spec",)
    )


def test_every_jobs_steps_run_in_the_job_lane():
    """A review's decisions and an analysis's positions are long work: their pool tasks are
    job tasks, which never take the last free worker (an analysis step outside the lane would
    let a batch analysis lock interactive clients out, as reviews once did)."""
    from server.pool import JOB_KINDS
    from server.reviews import KINDS

    assert {kind["step"] for kind in KINDS.values()} <= JOB_KINDS
