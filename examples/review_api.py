"""A game review through the HTTP API: post a record, poll the job, read the review.

    python examples/review_api.py                        # an in-process service
    python examples/review_api.py http://127.0.0.1:8000  # a running `atelier serve`

The record is a seeded Gallery Rush game, seat 0 (random moves) against the heuristic bot,
given as seat 0's final information set; the ISMCTS bot reviews it with 200 simulations per
decision, so the review is the same on every run (docs/api.md, "Game review", shows this output).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
import urllib.request
from typing import Any

import games
from bots.heuristics import knowledge_for
from games.core.infoset import build_infoset


def record(seed: int = 2) -> dict[str, Any]:
    """Seat 0's information set of a finished, seeded Gallery Rush game: seat 0 plays
    uniformly random moves, seat 1 the game's heuristic."""
    defn = games.definition("gallery_rush")
    params = defn.validate_params({})
    knowledge = knowledge_for("gallery_rush")
    rng = random.Random(seed)
    engine = defn.new_engine(params)
    while not engine.is_terminal():
        player = engine.current_player()
        if player < 0:
            engine.apply(engine.sample_chance(rng))
        elif player == 0:
            engine.apply(rng.choice(engine.legal_actions()))
        else:
            engine.apply(knowledge.playout(engine, rng))
    return build_infoset(defn, params, engine, 0, with_view=False)


class Http:
    """POST and GET against a running service."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.base + path, data, {"Content-Type": "application/json"}, method=method
        )
        try:
            with urllib.request.urlopen(req) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)


class InProcess:
    """The same calls on an app in this process (Flask's test client)."""

    def __init__(self) -> None:
        from server import create_app

        self.app = create_app(
            {"match_db": tempfile.mkdtemp() + "/matches.sqlite3", "search_workers": 2}
        )
        self.client = self.app.test_client()

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        answer = self.client.open(path, method=method, json=body)
        return answer.status_code, answer.json

    def close(self) -> None:
        from server import close_app

        close_app(self.app)


def main() -> None:
    api = Http(sys.argv[1]) if len(sys.argv) > 1 else InProcess()
    body = {
        "infoset": record(),
        "bot": "ismcts",
        "budget": {"simulations": 200},
        "samples": 64,
        "seed": 1,
    }
    status, job = api.call("POST", "/v1/games/gallery_rush/review", body)
    print(status, job["status"], f"{job['progress']['done']}/{job['progress']['total']}")
    while job["status"] in ("queued", "running"):
        time.sleep(0.2)
        _, job = api.call("GET", job["url"])
    print(job["status"], f"{job['progress']['done']}/{job['progress']['total']}")
    review = job["review"]
    s = review["summary"]
    print(
        f"{s['decisions']} decisions, {s['best_played']} as the bot would; total lost "
        f"{s['total_lost']:.3f}, accuracy {s['accuracy']:.1f}%"
    )
    for k in s["biggest_mistakes"]:
        d = review["decisions"][k]
        lo, hi = d["interval"]
        print(
            f"#{k} step {d['step']}: played {d['played']['string']!r}, bot {d['best']['string']!r}"
            f": lost {d['value_lost']:.3f} [{lo:.3f}, {hi:.3f}]"
        )
    luck = s["luck"]  # the AIVAT split of the result (null, with luck_skipped, when skipped)
    if luck is None:
        print(f"luck: not split ({s['luck_skipped']})")
    else:
        se = luck["stderr"]
        print(f"luck: {luck['sentence']} (+- {se['chance']:.2f}, +- {se['decisions']:.2f})")
    if isinstance(api, InProcess):
        api.close()


if __name__ == "__main__":
    main()
