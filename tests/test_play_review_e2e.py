"""The /play page's game review, explained hints and difficulty levels (issue 17), in Chromium.

The page is built against three server contracts that other branches deliver:

- the review: ``GET /v1/matches/{id}/review`` (409 while the match is not over), then
  ``GET /v1/reviews/{id}`` polled until ``status`` is ``done`` (``review``) or ``failed``
  (``error``);
- explained hints: every hint answer carries ``explain`` (``figures``, ``text``, ``value``);
- levels: a ``level`` bot (option ``level``, 1-8) listed by ``GET /v1/bots`` and
  ``GET /v1/games/{game}/bots``.

The tests run against the service's own endpoints and read what the page received through a
fetch recorder; a fetch shim in the page can hide the ``level`` bot (a service without levels)
or make a review fail, to check those paths.
"""

from __future__ import annotations

import json
import math
import random
import re
import threading
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from server import close_app
from tests.browser_support import (  # skips this module too when there is no browser
    TURN_TIMEOUT_S,
    WINDOW,
    By,
    Select,
    WebDriverWait,
    bots_ready,
    open_setup,
    start_game,
    wait_for_state,
)
from tests.server_support import make_app

REVIEW_TIMEOUT_S = 240  # a real review searches every decision of the seat
PHONE = (390, 844)

# The page's Quick game settings (server/static/play/app.js), for matches made through the API.
QUICK = {
    "gallery_rush": {"players": 2, "max_turns": 16},
    "finger_auction": {"players": 2, "rounds": 2, "cards_per_round": 4},
    "detective_eye": {"players": 2, "max_rounds": 2, "hand_size": 4},
    "modern_art": {
        "players": 3,
        "artists": 3,
        "cards_per_artist": 8,
        "rounds": 2,
        "money": 40,
        "deal": 4,
        "refill": 2,
    },
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from werkzeug.serving import make_server

    app = make_app(tmp_path_factory.mktemp("play-review"), search_workers=2)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="play-review-server", daemon=True)
    thread.start()
    try:
        yield SimpleNamespace(url=f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        thread.join(timeout=10)
        close_app(app)


# --- in the page: a recorder of the API's answers, and the levels shim ---------------------------
RECORDER_JS = """
window.__api = [];
window.__matchBodies = [];
const realFetch = window.fetch.bind(window);
const json = (data, status = 200) => Promise.resolve(new Response(JSON.stringify(data),
  {status, headers: {"Content-Type": "application/json"}}));
window.fetch = async (url, opts = {}) => {
  const u = new URL(url, location.href);
  const mode = sessionStorage.getItem("levels") || "";  // "" or "none" (hide the level bot)
  const failReview = sessionStorage.getItem("fail-review") || "";  // "", "job" or "route"
  if (u.pathname === "/v1/matches" && opts.method === "POST") {
    window.__matchBodies.push(JSON.parse(opts.body));
  }
  if (failReview && /^\\/v1\\/matches\\/[^/]+\\/review$/.test(u.pathname)) {
    if (failReview === "route") {  // a service older than the review
      return json({code: "not_found", message: "The requested URL was not found"}, 404);
    }
    return json({id: "r-failed", status: "failed", progress: {done: 0, total: 3},
                 error: {code: "review_failed", message: "the worker died (simulated)"}});
  }
  const response = await realFetch(url, opts);
  let data = null;
  try { data = await response.clone().json(); } catch (err) { data = null; }
  if (data && u.pathname === "/v1/bots") {
    if (mode === "none") data.bots = data.bots.filter((b) => b.name !== "level");
    if (mode) return json(data);
  }
  if (data && /^\\/v1\\/games\\/[^/]+\\/bots$/.test(u.pathname) && response.ok) {
    if (mode === "none") data.bots = data.bots.filter((b) => b.name !== "level");
    if (mode) return json(data);
  }
  window.__api.push({path: u.pathname, method: opts.method || "GET", status: response.status,
                     body: data});
  return response;
};
"""


@pytest.fixture(scope="module")
def page(browser, served):
    """The browser with the recorder in every page it opens."""
    script = browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER_JS}
    )["identifier"]
    try:
        yield browser
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})


def recorded(driver, pattern: str) -> list[dict[str, Any]]:
    return [
        r for r in driver.execute_script("return window.__api") if re.fullmatch(pattern, r["path"])
    ]


# --- API helpers ----------------------------------------------------------------------------------
def api(base: str, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["X-Seat-Token"] = token
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as err:
        raise AssertionError(f"{method} {path}: {err.code} {err.read()[:300]!r}") from None


def finished_match(base: str, game: str, seed: int) -> dict[str, Any]:
    """A quick game played to its end through the API (random moves, random bots)."""
    params = QUICK[game]
    seats = ["human"] + ["random"] * (params["players"] - 1)
    created = api(
        base,
        "POST",
        "/v1/matches",
        body={"game": game, "seats": seats, "params": params, "seed": seed, "reproducible": True},
    )
    match = {"id": created["match_id"], "token": created["tokens"][0]["token"], "seat": 0}
    rng = random.Random(seed)
    for _ in range(500):
        data = api(base, "GET", f"/v1/matches/{match['id']}", match["token"])
        if data["terminal"]:
            return match
        assert data["current_player"] == 0, data["status"]
        legal = data["infoset"]["view"]["legal_actions"]
        action = rng.choice(legal)
        api(
            base,
            "POST",
            f"/v1/matches/{match['id']}/actions",
            match["token"],
            {"action": action["struct"]},
        )
    raise AssertionError(f"{game}: no end after 500 moves")


def open_match(driver, base: str, match: dict[str, Any]) -> None:
    """The page with ``match`` resumed, as after a reload."""
    driver.get(base + "/play")
    wait_for_state(driver, {"setup", "your-turn", "over", "waiting"})
    driver.execute_script(
        "sessionStorage.setItem('atelier.match', arguments[0])", json.dumps(match)
    )
    driver.refresh()


def wait_for(driver, script: str, values, timeout=TURN_TIMEOUT_S):
    WebDriverWait(driver, timeout, poll_frequency=0.05).until(
        lambda d: d.execute_script(script) in values
    )
    return driver.execute_script(script)


def set_viewport(driver, width: int, height: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def no_horizontal_overflow(driver) -> None:
    out = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert out[0] <= out[1], f"the page is wider than the screen: {out}"


# --- the review -----------------------------------------------------------------------------------
def received_review(driver) -> dict[str, Any]:
    answers = recorded(driver, r"/v1/matches/[^/]+/review|/v1/reviews/[^/]+")
    assert answers, "the page asked for no review"
    assert answers[0]["path"].endswith("/review")  # started from the match, then polled
    done = [a["body"] for a in answers if a["body"] and a["body"].get("status") == "done"]
    assert done, answers[-1]
    return done[-1]["review"]


def position_index(driver):
    return driver.execute_script("return document.body.dataset.position")


def pick_and_wait(driver, element, index: int) -> None:
    element.click()
    got = wait_for(driver, "return document.body.dataset.position", {str(index), "error"})
    assert got == str(index), driver.find_element(By.ID, "table").text


@pytest.mark.parametrize(
    "game, seed",
    [("detective_eye", 21), ("gallery_rush", 22), ("finger_auction", 23), ("modern_art", 24)],
)
def test_a_finished_game_shows_its_review(page, served, shots, scratch_shots, game, seed):
    base = served.url
    match = finished_match(base, game, seed)
    open_match(page, base, match)
    assert wait_for_state(page, {"over"}) == "over"
    final_table = page.find_element(By.ID, "table").text
    start = page.find_element(By.ID, "review-start")
    assert start.is_displayed() and "Review my game" in start.text
    start.click()
    state = wait_for(
        page, "return document.body.dataset.review", {"done", "failed"}, REVIEW_TIMEOUT_S
    )
    assert state == "done", page.find_element(By.ID, "review").text
    review = received_review(page)
    decisions = review["decisions"]
    assert decisions and review["summary"]["decisions"] == len(decisions)

    # The summary: accuracy, total value lost, and what the value measures.
    summary = page.find_element(By.ID, "review-summary").text
    assert "Accuracy" in summary and "%" in summary
    total = float(page.find_element(By.ID, "review-total").text)
    assert math.isclose(total, review["summary"]["total_lost"], abs_tol=0.051)
    meaning = page.find_element(By.ID, "review-meaning").text
    assert str(review["value"]["measures"]) in meaning
    # The luck split (a finished match: always computed here), its sentence and its noise.
    luck = page.find_element(By.ID, "review-luck").text
    assert review["summary"]["luck"]["sentence"] in luck and "standard errors ±" in luck, luck
    # The timeline: one bar per decision, the biggest mistakes marked (and ranked) there and in
    # the list of moves.
    bars = page.find_elements(By.CSS_SELECTOR, "#review-timeline .tl-move")
    assert [int(b.get_attribute("data-index")) for b in bars] == [d["index"] for d in decisions]
    mistakes = review["summary"]["biggest_mistakes"]
    marked = page.find_elements(By.CSS_SELECTOR, "#review-timeline .tl-move.mistake")
    assert sorted(int(b.get_attribute("data-index")) for b in marked) == sorted(mistakes)
    rows = page.find_elements(By.CSS_SELECTOR, "#review-moves .review-move")
    assert len(rows) == len(decisions)
    assert sorted(
        int(r.get_attribute("data-index"))
        for r in page.find_elements(By.CSS_SELECTOR, "#review-moves .review-move.mistake")
    ) == sorted(mistakes)
    words = page.find_element(By.ID, "review").text.split()
    assert "null" not in words and "undefined" not in words and "NaN" not in words

    # A click on the biggest mistake shows the position before it: the move played, the bot's
    # suggestion, the value lost; the log marks that step; nothing on that table is playable.
    if mistakes:
        at = {d["index"]: i for i, d in enumerate(decisions)}
        mistakes_at = [at[i] for i in mistakes]
        first = decisions[mistakes_at[0]]
        link = page.find_element(By.CSS_SELECTOR, "#review-mistakes button[data-index]")
        assert int(link.get_attribute("data-index")) == first["index"]
        pick_and_wait(page, link, first["index"])
        banner = page.find_element(By.ID, "review-position").text
        assert f"Before your move {mistakes_at[0] + 1} of {len(decisions)}" in banner
        assert page.find_element(By.ID, "review-played").text
        assert page.find_element(By.ID, "review-best").text
        assert "Value lost" in page.find_element(By.ID, "review-lost").text
        marked_log = page.find_elements(By.CSS_SELECTOR, "#log li.event.reviewed")
        assert len(marked_log) == 1
        first_step = int(marked_log[0].get_attribute("data-step"))
        assert first_step <= first["step"] <= int(marked_log[0].get_attribute("data-last"))
        # The review's information set (the page fetched it: decisions name their step only)
        # is the seat's, at its turn, and the move it played was legal there (what the page
        # drew is that infoset's view).
        fetched = [
            a["body"]
            for a in recorded(page, r"/v1/reviews/[^/]+/decisions/\d+")
            if a["body"] and a["body"].get("index") == first["index"]
        ]
        assert fetched and fetched[-1]["step"] == first["step"], fetched
        checked = api(
            base, "POST", f"/v1/games/{game}/validate", body={"infoset": fetched[-1]["infoset"]}
        )
        assert checked["your_turn"] and not checked["terminal"]
        legal = {a["id"] for a in checked["view"]["legal_actions"]}
        assert first["played"]["id"] in legal and first["best"]["id"] in legal
        # The docs show Modern Art's (the longest game); the others only when a test fails.
        if game == "modern_art":
            page.save_screenshot(str(shots / "review.png"))
        else:
            page.save_screenshot(str(scratch_shots / f"review_{game}.png"))
    # A click on a bar of the timeline shows that move; "next" steps on.
    middle = len(decisions) // 2
    target = decisions[middle]
    bar = page.find_element(
        By.CSS_SELECTOR, f'#review-timeline .tl-move[data-index="{target["index"]}"] .tl-hit'
    )
    pick_and_wait(page, bar, target["index"])
    assert (
        page.find_element(
            By.CSS_SELECTOR, f'#review-moves .review-move[data-index="{target["index"]}"]'
        )
        .get_attribute("class")
        .find("selected")
        >= 0
    )
    assert not page.find_elements(By.CSS_SELECTOR, "#table button[data-action-id]")
    assert not page.find_element(By.ID, "review-to-list").is_displayed()  # not on a desktop
    position_text = page.find_element(By.ID, "table").text
    assert position_text != final_table
    if middle + 1 < len(decisions):
        following = decisions[middle + 1]["index"]
        pick_and_wait(page, page.find_element(By.ID, "review-next"), following)
        # The keyboard: Left steps back (Right forward, Escape to the end).
        from selenium.webdriver.common.keys import Keys

        page.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
        got = wait_for(page, "return document.body.dataset.position", {str(target["index"])})
        assert got == str(target["index"])
    # Back to the end (Escape, as the button): the final table again, nothing marked.
    page.find_element(By.TAG_NAME, "body").send_keys("\ue00c")  # Keys.ESCAPE
    WebDriverWait(page, TURN_TIMEOUT_S).until(lambda d: position_index(d) is None)
    assert page.find_element(By.ID, "table").text == final_table
    assert not page.find_elements(By.CSS_SELECTOR, "#log li.event.reviewed")


def test_the_review_fits_a_phone(page, served, shots):
    match = finished_match(served.url, "detective_eye", 31)
    set_viewport(page, *PHONE)
    try:
        open_match(page, served.url, match)
        wait_for_state(page, {"over"})
        page.find_element(By.ID, "review-start").click()
        state = wait_for(
            page, "return document.body.dataset.review", {"done", "failed"}, REVIEW_TIMEOUT_S
        )
        assert state == "done"
        no_horizontal_overflow(page)
        page.execute_script("document.getElementById('review').scrollIntoView()")
        page.save_screenshot(str(shots / "review_phone.png"))
        review = received_review(page)
        d = review["decisions"][0]
        row = page.find_element(
            By.CSS_SELECTOR, f'#review-moves .review-move[data-index="{d["index"]}"]'
        )
        pick_and_wait(page, row, d["index"])
        # On a phone the table is above the review: the position is scrolled into sight.
        top = page.execute_script(
            "return document.getElementById('review-position').getBoundingClientRect().top"
        )
        assert 0 <= top < PHONE[1], top
        no_horizontal_overflow(page)
        page.save_screenshot(str(shots / "review_phone_position.png"))
        # ... and a button leads back down to the list of moves.
        page.find_element(By.ID, "review-to-list").click()
        top = page.execute_script(
            "return document.getElementById('review').getBoundingClientRect().top"
        )
        assert abs(top) < 2, top
    finally:
        set_viewport(page, *WINDOW)


def test_a_failed_review_says_why_and_can_be_asked_again(page, served):
    match = finished_match(served.url, "gallery_rush", 32)
    open_match(page, served.url, match)
    wait_for_state(page, {"over"})
    page.execute_script("sessionStorage.setItem('fail-review', 'route')")
    try:
        # A service without the review endpoint: said in words.
        page.find_element(By.ID, "review-start").click()
        assert wait_for(page, "return document.body.dataset.review", {"done", "failed"}) == "failed"
        assert "does not review games" in page.find_element(By.ID, "review-error").text
        # A review job that failed: its error, and a second try.
        page.execute_script("sessionStorage.setItem('fail-review', 'job')")
        page.find_element(By.ID, "review-retry").click()
        WebDriverWait(page, TURN_TIMEOUT_S).until(
            lambda d: "worker died" in d.find_element(By.ID, "review").text
        )
        assert wait_for(page, "return document.body.dataset.review", {"done", "failed"}) == "failed"
        error = page.find_element(By.ID, "review-error").text
        assert "review_failed" in error and "worker died" in error
        page.execute_script("sessionStorage.removeItem('fail-review')")
        page.find_element(By.ID, "review-retry").click()
        state = wait_for(
            page, "return document.body.dataset.review", {"done", "failed"}, REVIEW_TIMEOUT_S
        )
        assert state == "done" and page.find_elements(By.CSS_SELECTOR, "#review-timeline")
    finally:
        page.execute_script("sessionStorage.removeItem('fail-review')")


def test_a_new_game_clears_the_review(page, served):
    match = finished_match(served.url, "finger_auction", 33)
    open_match(page, served.url, match)
    wait_for_state(page, {"over"})
    page.find_element(By.ID, "review-start").click()
    wait_for(page, "return document.body.dataset.review", {"done", "failed"}, REVIEW_TIMEOUT_S)
    page.find_element(By.ID, "new-game").click()
    wait_for_state(page, {"setup"})
    assert not page.find_element(By.ID, "review").is_displayed()
    assert page.execute_script("return document.body.dataset.review") is None


# --- explained hints -----------------------------------------------------------------------------
def start_quick(driver, base: str, game: str, bots: list[str], seed: int) -> None:
    start_game(driver, base, game, bots, seed, Path("/tmp"))
    wait_for_state(driver, {"your-turn"})


def ask_hint(driver, bot: str = "ismcts") -> dict[str, Any]:
    Select(driver.find_element(By.ID, "hint-bot")).select_by_value(bot)
    driver.find_element(By.ID, "hint").click()
    got = wait_for(driver, "return document.body.dataset.hint", {"ready", "error"})
    assert got == "ready", driver.find_element(By.ID, "hint-result").text
    return recorded(driver, r"/v1/matches/[^/]+/hint")[-1]["body"]


@pytest.mark.parametrize(
    "game, bots, seed",
    [
        ("gallery_rush", ["random"], 41),
        ("finger_auction", ["random"], 42),
        ("detective_eye", ["random"], 43),
        ("modern_art", ["random"], 44),
    ],
)
def test_the_hint_panel_explains_the_hint_in_words(
    page, served, shots, scratch_shots, game, bots, seed
):
    start_quick(page, served.url, game, bots, seed)
    hint = ask_hint(page)
    explain = hint["explain"]
    lines = [li.text for li in page.find_elements(By.CSS_SELECTOR, "#hint-explain li")]
    assert lines == [t for t in explain["text"] if t.strip()]
    assert lines, "the hint panel shows no explanation"
    words = page.find_element(By.ID, "hint-value-text").text
    assert words == explain["value"]["text"]
    float(page.find_element(By.ID, "hint-value").text)  # the number stays, beside the words
    if explain["figures"]:
        figures = page.find_element(By.ID, "hint-figures")
        assert not figures.find_element(By.CSS_SELECTOR, ".json-map").is_displayed()  # folded
        figures.find_element(By.TAG_NAME, "summary").click()
        assert figures.find_element(By.CSS_SELECTOR, ".json-map").is_displayed()
    text = page.find_element(By.ID, "hint-result").text.split()
    assert "null" not in text and "undefined" not in text
    if game == "gallery_rush":
        page.save_screenshot(str(shots / "hint_explained.png"))
        # On a phone the explanation wraps inside the screen.
        set_viewport(page, *PHONE)
        try:
            page.execute_script("document.getElementById('hint-panel').scrollIntoView()")
            no_horizontal_overflow(page)
            page.save_screenshot(str(scratch_shots / "hint_explained_phone.png"))
        finally:
            set_viewport(page, *WINDOW)


def test_a_hint_without_explain_shows_as_before(page, served):
    """A service without ``explain`` (older, or a bot that gives none): no explanation block,
    the value as a number, nothing broken."""
    strip = """
    const realFetch = window.fetch;
    window.fetch = async (url, opts) => {
      const response = await realFetch(url, opts);
      if (!/\\/hint$/.test(new URL(url, location.href).pathname)) return response;
      const data = await response.json();
      delete data.explain;
      return new Response(JSON.stringify(data), {status: response.status,
        headers: {"Content-Type": "application/json"}});
    };
    """
    start_quick(page, served.url, "detective_eye", ["random"], 45)
    page.execute_script(strip)
    page.find_element(By.ID, "hint").click()
    assert wait_for(page, "return document.body.dataset.hint", {"ready", "error"}) == "ready"
    assert not page.find_elements(By.ID, "hint-explain")
    assert not page.find_elements(By.ID, "hint-value-text")
    float(page.find_element(By.ID, "hint-value").text)
    assert page.find_elements(By.CSS_SELECTOR, "#hint-policy .bar-row.chosen")


def test_the_figures_read_well_whatever_the_service_sends(page, served):
    """Accuracy as the percentage the review reports, values on any scale, an ``explain`` with parts
    missing or of the wrong type: words, never "NaN", "undefined" or a crash."""
    open_setup(page, served.url)
    out = page.execute_async_script(
        """
        const done = arguments[0];
        Promise.all([import("/play/static/review.js"), import("/play/static/hints.js")])
          .then(([r, hints]) => done({
            acc: [r.accuracyText(87.34), r.accuracyText(0.5), r.accuracyText(100),
                  r.accuracyText(null)],
            luck: [r.luckText({luck: {
                     sentence: "0.31 of a win lost to the cards, 0.08 to decisions",
                     stderr: {chance: 0.141, decisions: 0.1}}}),
                   r.luckText({luck: {sentence: "s", stderr: null}}),
                   r.luckText({luck: null, luck_skipped: "took longer than 1 ms (review_luck_ms)"}),
                   r.luckText({luck: null}), r.luckText({}), r.luckText(undefined)],
            values: [r.formatValue(-0.0001), r.formatValue(0.17649), r.formatValue(12.345),
                     r.formatValue(1234.5), r.formatValue(undefined)],
            meaning: [r.valueMeaning({measures: "money", scale: [0, 200]}),
                      r.valueMeaning({measures: "points", scale: {min: 0, max: 3}}),
                      r.valueMeaning({text: "Your share of first place."}), r.valueMeaning(null)],
            explain: [hints.explainOf({}), hints.explainOf({explain: "oops"}),
                      hints.explainOf({explain: {text: "not a list", value: 3}}),
                      hints.explainOf({explain: {text: ["a", "", 7, "b"], figures: {x: 1}}})],
            words: [hints.valueWords(hints.explainOf({explain: {value: {measures: "money",
                      scale: "0 or more"}}})), hints.valueWords(null)],
          }), (err) => done({error: String(err)}));
        """
    )
    assert "error" not in out, out
    assert out["acc"] == ["87.3%", "0.5%", "100%", "—"]
    assert out["luck"] == [
        "0.31 of a win lost to the cards, 0.08 to decisions (standard errors ±0.14 and ±0.10: "
        "the split is an estimate).",
        "s (standard errors ±? and ±?: the split is an estimate).",
        "No luck split: took longer than 1 ms (review_luck_ms).",
        "No luck split: not computed.",
        None,
        None,
    ]
    assert out["values"] == ["0.000", "0.176", "12.3", "1235", "—"]
    assert out["meaning"] == [
        "Values are money (from 0 to 200).",
        "Values are points (from 0 to 3).",
        "Your share of first place.",
        None,
    ]
    assert out["explain"][0] is None and out["explain"][1] is None
    assert out["explain"][2] == {"text": [], "value": None, "figures": None}
    assert out["explain"][3] == {"text": ["a", "b"], "value": None, "figures": {"x": 1}}
    assert out["words"] == ["The value is money (0 or more).", None]


# --- levels --------------------------------------------------------------------------------------
def levels_mode(driver, served, mode: str = "") -> None:
    """``none`` hides the ``level`` bot from the page (a service without levels)."""
    driver.execute_script("sessionStorage.setItem('levels', arguments[0])", mode)


def seat_select(driver, seat: int):
    return Select(driver.find_element(By.CSS_SELECTOR, f'#seat-bots select[data-seat="{seat}"]'))


def test_the_level_picker_creates_a_match_with_the_chosen_level(page, served, scratch_shots):
    open_setup(page, served.url)
    levels_mode(page, served)
    try:
        page.refresh()
        wait_for_state(page, {"setup"})
        Select(page.find_element(By.ID, "game")).select_by_value("detective_eye")
        page.find_element(By.ID, "quick").click()
        bots_ready(page)
        seat = seat_select(page, 1)
        levels = [
            o.get_attribute("value")
            for o in seat.options
            if o.get_attribute("value").startswith("level:")
        ]
        assert levels == [f"level:{n}" for n in range(1, 9)]
        labels = [o.text for o in seat.options][:8]
        assert labels[0] == "Level 1 (weakest, random play)" and labels[7] == "Level 8 (strongest)"
        assert seat.first_selected_option.get_attribute("value") == "level:4"  # the default
        # The bots stay on offer by name, and the hint bot is never a level preset.
        assert "ismcts" in [o.get_attribute("value") for o in seat.options]
        hint_bots = [
            o.get_attribute("value") for o in Select(page.find_element(By.ID, "hint-bot")).options
        ]
        assert "level" not in hint_bots and not any(v.startswith("level:") for v in hint_bots)
        seat.select_by_value("level:6")
        page.save_screenshot(str(scratch_shots / "setup_levels.png"))
        page.find_element(By.ID, "bot-ms").clear()
        page.find_element(By.ID, "bot-ms").send_keys("20")
        page.find_element(By.ID, "start").click()
        wait_for_state(page, {"your-turn", "over", "waiting"})
        body = page.execute_script("return window.__matchBodies")[-1]
        assert body["seats"][0] == "human"
        assert body["seats"][1] == {"name": "level", "options": {"level": 6}}
        match = json.loads(page.execute_script("return sessionStorage.getItem('atelier.match')"))
        data = api(served.url, "GET", f"/v1/matches/{match['id']}", match["token"])
        bot = data["seats"][1]["bot"]
        assert bot["name"] == "level" and bot["options"]["level"] == 6
        assert "level 6" in page.find_element(By.ID, "seats").text
    finally:
        page.execute_script("sessionStorage.removeItem('levels')")


def test_each_level_is_described_where_it_is_picked(page, served):
    """Issue 43.6: the form says how each level plays and its measured rating (from GET
    /v1/games/{game}/levels), and says plainly when a level plays worse than random."""
    open_setup(page, served.url)
    levels_mode(page, served)
    try:
        page.refresh()
        wait_for_state(page, {"setup"})
        Select(page.find_element(By.ID, "game")).select_by_value("gallery_rush")
        bots_ready(page)
        seat = seat_select(page, 1)
        labels = [o.text for o in seat.options][:8]
        assert labels[0] == "Level 1 (weakest, worse than random)"
        assert labels[3] == "Level 4 (worse than random)"
        assert labels[4] == "Level 5 (random play)" and labels[7] == "Level 8 (strongest)"
        served_levels = api(served.url, "GET", "/v1/games/gallery_rush/levels")["levels"]
        titles = [o.get_attribute("title") for o in seat.options][:8]
        assert titles == [x["text"] for x in served_levels]
        note = page.find_element(By.CSS_SELECTOR, '#seat-bots [data-level-note="1"]')
        assert note.text == served_levels[3]["text"]  # level 4, the default
        assert "Worse than random play" in note.text and "Elo" in note.text
        seat.select_by_value("level:7")
        assert note.text == served_levels[6]["text"] and "random move 35%" in note.text
        assert "Worse than random" not in note.text
        seat.select_by_value("ismcts")
        assert not note.is_displayed()
    finally:
        page.execute_script("sessionStorage.removeItem('levels')")


def test_without_a_level_bot_the_form_offers_the_bots(page, served):
    open_setup(page, served.url)
    levels_mode(page, served, "none")
    try:
        page.refresh()
        wait_for_state(page, {"setup"})
        Select(page.find_element(By.ID, "game")).select_by_value("gallery_rush")
        bots_ready(page)
        seat = seat_select(page, 1)
        values = [o.get_attribute("value") for o in seat.options]
        assert values and not any(v.startswith("level") for v in values)
        assert not page.find_elements(By.CSS_SELECTOR, "#seat-bots optgroup")
        assert seat.first_selected_option.get_attribute("value") in values
    finally:
        page.execute_script("sessionStorage.removeItem('levels')")


# --- the seed -------------------------------------------------------------------------------------
def test_a_seed_on_the_form_gives_the_same_deal(page, served):
    """The service ignores a client's seed unless the match is ``reproducible``: the page sends
    both, so the same seed deals the same cards."""
    hands = []
    for _ in range(2):
        start_game(page, served.url, "detective_eye", ["random"], 5, Path("/tmp"))
        body = page.execute_script("return window.__matchBodies")[-1]
        assert body["seed"] == 5 and body["reproducible"] is True
        match = json.loads(page.execute_script("return sessionStorage.getItem('atelier.match')"))
        data = api(served.url, "GET", f"/v1/matches/{match['id']}", match["token"])
        assert data["reproducible"] is True
        hands.append(data["infoset"]["private"][:3])
    assert hands[0] == hands[1] and hands[0], hands
