"""A bounded locust scenario for the hint service (127.0.0.1 only); not imported by the service.

Run against a local ``atelier serve`` (see ``docs/api.md``)::

    atelier serve --port 8765 --db /tmp/locust.sqlite3 &
    locust -f evaluation/bench/locustfile.py --headless -u 16 -r 16 -t 60s --host http://127.0.0.1:8765

The mix is the one ``atelier bench service`` soaks with: cached hints, uncached hints at a
200 ms budget, validation, listings and short hosted-match flows. Any status other than the
expected 2xx counts as a failure. The run stops by itself: ``-t`` bounds it, and without ``-t``
it quits after ``ATELIER_LOCUST_MAX_S`` seconds (default 120). Only loopback hosts are
accepted.
"""

from __future__ import annotations

import itertools
import os
import random
from urllib.parse import urlparse

from locust import HttpUser, events, task

import games
from server.examples import example_infoset

MAX_SECONDS = float(os.environ.get("ATELIER_LOCUST_MAX_S", "120"))
BUDGET = {"milliseconds": float(os.environ.get("ATELIER_LOCUST_BUDGET_MS", "200"))}
NAMES = sorted(games.DEFINITIONS)
INFOSETS = [
    (name, example_infoset(name, seed=k, min_steps=2 + 3 * (k % 7)))
    for name in NAMES
    for k in range(8)
]
CACHED_GAME, CACHED_INFOSET = INFOSETS[0]
SEEDS = itertools.count(30_000_000)


@events.init.add_listener
def _bounded(environment, **_kw):
    host = urlparse(environment.host or "").hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"this scenario only targets a local server, not {host!r}")
    runner = environment.runner
    if runner is not None and not getattr(environment.parsed_options, "run_time", None):
        import gevent

        gevent.spawn_later(MAX_SECONDS, runner.quit)


class HintClient(HttpUser):
    """One client: mostly hints, some validation and listings, some hosted-match moves."""

    def on_start(self) -> None:
        self.rng = random.Random(id(self))
        self.bot = self.client.get("/v1/bots").json()["default"]

    def _post(
        self, path: str, body: dict, expect: int = 200, name: str | None = None, headers=None
    ):
        with self.client.post(
            path, json=body, headers=headers, catch_response=True, name=name
        ) as r:
            if r.status_code != expect:
                r.failure(f"{r.status_code}: {r.text[:200]}")
            return r

    @task(8)
    def cached_hint(self) -> None:
        body = {"infoset": CACHED_INFOSET, "bot": self.bot, "budget": BUDGET, "seed": 7}
        self._post(f"/v1/games/{CACHED_GAME}/hint", body, name="hint (cached)")

    @task(2)
    def uncached_hint(self) -> None:
        name, infoset = self.rng.choice(INFOSETS)
        body = {"infoset": infoset, "bot": self.bot, "budget": BUDGET, "seed": next(SEEDS)}
        self._post(f"/v1/games/{name}/hint", body, name="hint (uncached)")

    @task(3)
    def validate(self) -> None:
        name, infoset = self.rng.choice(INFOSETS)
        self._post(f"/v1/games/{name}/validate", {"infoset": infoset}, name="validate")

    @task(3)
    def listings(self) -> None:
        self.client.get("/v1/games")
        self.client.get(f"/v1/games/{self.rng.choice(NAMES)}", name="/v1/games/{game}")

    @task(4)
    def match_move(self) -> None:
        name = self.rng.choice(NAMES)
        players = games.definition(name).min_players
        seats = ["human"] + ["random"] * (players - 1)
        r = self._post(
            "/v1/matches",
            {"game": name, "seats": seats, "seed": self.rng.randrange(1 << 30)},
            expect=201,
        )
        if r.status_code != 201:
            return
        match = r.json()
        mid, token = match["match_id"], match["tokens"][0]["token"]
        headers = {"X-Seat-Token": token}
        view = self.client.get(f"/v1/matches/{mid}", headers=headers, name="/v1/matches/{id}")
        data = view.json()
        if data["terminal"]:
            return
        self.client.get(
            f"/v1/matches/{mid}/hint?bot=random", headers=headers, name="/v1/matches/{id}/hint"
        )
        action = self.rng.choice(data["infoset"]["view"]["legal_actions"])["struct"]
        self._post(
            f"/v1/matches/{mid}/actions",
            {"action": action},
            name="/v1/matches/{id}/actions",
            headers=headers,
        )
