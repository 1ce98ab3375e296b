"""The /play page in a real browser: one full game of every game, clicked as a person would.

Headless Chromium (Debian's ``chromium`` and ``chromium-driver``) is driven by Selenium against
a real server on 127.0.0.1 (werkzeug in a thread, port 0). At every turn the test checks that
the page offers exactly the seat's legal moves (read through the API with the page's own seat
token), then plays one of them by clicking its button or typing an amount; once per game it
asks for a hint and checks the suggested move, the policy bars and the value. The screenshots
go to a temporary folder, or to ``$ATELIER_PLAY_SCREENSHOTS`` (``docs/screenshots`` refreshes
the ones in the docs).

Without Chromium the tests skip on a developer's machine and fail under CI (``CI`` set), where
``.ci/run`` installs it.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
import urllib.request
from pathlib import Path

import pytest

from tests.browser_support import (
    TURN_TIMEOUT_S,
    WINDOW,
    By,
    Select,
    StaleElementReferenceException,
    WebDriverWait,
    bots_ready,
    open_setup,
    start_game,
    wait_for_state,
)

MAX_DECISIONS = 400

# One game each: the seats' bots (tiny budgets) and the seed of the deal.
GAMES = {
    "gallery_rush": {"bots": ["ismcts"], "seed": 11},
    "finger_auction": {"bots": ["heuristic"], "seed": 12},
    "detective_eye": {"bots": ["ismcts"], "seed": 13},
    "modern_art": {"bots": ["heuristic", "random"], "seed": 14},
}


# --- helpers ------------------------------------------------------------------------------------
def api_get(base_url, path, token):
    request = urllib.request.Request(base_url + path, headers={"X-Seat-Token": token})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def page_match(driver) -> dict:
    return json.loads(driver.execute_script("return sessionStorage.getItem('atelier.match')"))


OFFERED_JS = """
const buttons = [...document.querySelectorAll("#moves button.move[data-action-id]")]
  .filter((b) => !b.dataset.amount).map((b) => Number(b.dataset.actionId));
const amounts = [...document.querySelectorAll("#moves .amount")].map((box) => {
  const input = box.querySelector("input.amount-input");
  return {type: box.dataset.type, min: Number(input.min), max: Number(input.max)};
});
const table = [...document.querySelectorAll("#table button[data-action-id]")]
  .map((b) => Number(b.dataset.actionId));
return {buttons, amounts, table};
"""


def offered_moves(driver) -> tuple[list[int], list[dict], list[int]]:
    """The action ids of the move buttons, the amount controls, and the action ids of the
    clickable things on the table (Detective Eye's cards to flip), as the page shows them (one
    script call: a round trip per element would make the games slow)."""
    out = driver.execute_script(OFFERED_JS)
    return out["buttons"], out["amounts"], out["table"]


def check_offers_exactly_legal(legal: list[dict], buttons: list[int], amounts: list) -> None:
    """Every legal action has a control, and no control plays anything else."""
    legal_ids = {a["id"] for a in legal}
    assert len(set(buttons)) == len(buttons), "a move offered twice"
    assert set(buttons) <= legal_ids, f"illegal moves offered: {set(buttons) - legal_ids}"
    covered = set(buttons)
    for box in amounts:
        kind = box["type"]
        field_values = {
            a["id"]: next(v for k, v in a["struct"].items() if k != "type")
            for a in legal
            if a["struct"]["type"] == kind
        }
        assert field_values, f"an amount control for {kind!r}, which has no legal action"
        lo, hi = box["min"], box["max"]
        assert (lo, hi) == (min(field_values.values()), max(field_values.values()))
        assert not covered & set(field_values), f"{kind} offered both as buttons and an amount"
        covered |= set(field_values)
    assert covered == legal_ids, f"legal moves not offered: {legal_ids - covered}"


def move_button(driver, action_id: int):
    return driver.find_element(
        By.CSS_SELECTOR, f'#moves button.move[data-action-id="{action_id}"]:not([data-amount])'
    )


def amount_box(driver, kind: str):
    return driver.find_element(By.CSS_SELECTOR, f'#moves .amount[data-type="{kind}"]')


def type_amount(driver, box, amount) -> None:
    field = box.find_element(By.CSS_SELECTOR, "input.amount-input")
    field.clear()
    field.send_keys(str(amount))


def amount_play_button(box):
    return box.find_element(By.CSS_SELECTOR, "button.move[data-amount]")


def ask_hint(driver) -> None:
    driver.find_element(By.ID, "hint").click()
    WebDriverWait(driver, TURN_TIMEOUT_S, poll_frequency=0.05).until(
        lambda d: d.execute_script("return document.body.dataset.hint") in ("ready", "error")
    )
    hint_state = driver.execute_script("return document.body.dataset.hint")
    assert hint_state == "ready", driver.find_element(By.ID, "hint-result").text
    bars = driver.find_elements(By.CSS_SELECTOR, "#hint-policy .bar-row")
    assert bars, "the hint shows no policy bars"
    assert driver.find_elements(By.CSS_SELECTOR, "#hint-policy .bar-row.chosen")
    value = driver.find_element(By.ID, "hint-value").text
    float(value)  # the value estimate is a number
    assert "iterations" in driver.find_element(By.ID, "hint-search").text
    # A search's hint shows each candidate's value with its 95% interval (the hint's
    # `analysis` table), the suggested move's row marked.
    chosen = driver.find_elements(By.CSS_SELECTOR, "#hint-analysis tr.chosen td")
    assert chosen, driver.find_element(By.ID, "hint-result").text
    assert re.fullmatch(r"-?[0-9.]+ \(-?[0-9.]+ to -?[0-9.]+\)", chosen[1].text), chosen[1].text
    assert driver.find_element(By.ID, "hint-action").text
    words = driver.find_element(By.ID, "hint-result").text.split()
    assert "null" not in words and "undefined" not in words, words
    # The suggested move is marked among the controls.
    assert driver.find_elements(By.CSS_SELECTOR, "#moves .suggested")


def play_one_game(driver, base_url, game, shots: Path) -> dict:
    spec = GAMES[game]
    rng = random.Random(spec["seed"])
    start_game(driver, base_url, game, spec["bots"], spec["seed"], shots)
    match = page_match(driver)
    decisions = 0
    hinted = 0  # 1: hinted once, 2: hinted late in the game (Modern Art)
    typed_amounts = 0
    table_clicks = 0
    for _ in range(MAX_DECISIONS):
        state = wait_for_state(driver, {"your-turn", "over"})
        if state == "over":
            break
        view = api_get(base_url, f"/v1/matches/{match['id']}", match["token"])
        assert view["current_player"] == match["seat"] and not view["terminal"]
        buttons, amounts, on_table = offered_moves(driver)
        legal = view["infoset"]["view"]["legal_actions"]
        check_offers_exactly_legal(legal, buttons, amounts)
        if game == "detective_eye":
            check_detective_eye_cards_count_from_one(driver, legal)
        assert set(on_table) <= set(buttons), "the table offers a move the panel does not"
        step = driver.execute_script("return document.body.dataset.step")
        assert int(step) == view["step"]
        # A hint (and the docs' screenshot) a few moves in, at a decision that shows the game's
        # typical controls; Modern Art's again at a bid after round 1 when there is one, so the
        # values board shows awards.
        phase = view["infoset"]["view"].get("phase")
        typical = {"modern_art": bool(amounts), "finger_auction": phase == "bid"}.get(game, True)
        late = game == "modern_art" and amounts and view["infoset"]["view"]["round"] >= 2
        if (not hinted and decisions >= 1 and typical) or (late and hinted < 2):
            ask_hint(driver)
            hinted = 2 if late else 1
            driver.save_screenshot(str(shots / f"{game}.png"))
        if amounts and (not buttons or rng.random() < 0.7):
            spec = rng.choice(amounts)
            box = amount_box(driver, spec["type"])
            lo, hi = spec["min"], spec["max"]
            type_amount(driver, box, hi + 1)  # not a legal amount: the page refuses it
            assert not amount_play_button(box).is_enabled()
            legal_amounts = sorted(
                next(v for k, v in a["struct"].items() if k != "type")
                for a in legal
                if a["struct"]["type"] == spec["type"]
            )
            # Mostly low amounts (a short game), sometimes any legal one.
            amount = rng.choice([lo, rng.choice(legal_amounts), rng.choice(legal_amounts[:10])])
            type_amount(driver, box, amount)
            button = amount_play_button(box)
            assert button.is_enabled()
            typed_amounts += 1
        elif on_table and rng.random() < 0.5:  # flip by clicking the card itself
            action_id = rng.choice(sorted(on_table))
            button = driver.find_element(
                By.CSS_SELECTOR, f'#table button[data-action-id="{action_id}"]'
            )
            table_clicks += 1
        else:
            button = move_button(driver, rng.choice(sorted(buttons)))
        try:
            button.click()
        except StaleElementReferenceException:  # pragma: no cover - re-rendered under us
            continue
        decisions += 1
        wait_for_state(driver, {"your-turn", "over"}, step_not=step)
    else:
        pytest.fail(f"{game}: no end after {MAX_DECISIONS} decisions")
    return {
        "match": match,
        "decisions": decisions,
        "hinted": hinted,
        "typed": typed_amounts,
        "table_clicks": table_clicks,
    }


RESULT_JS = """
const table = document.querySelector("#result table");
return {
  head: [...table.querySelectorAll("thead th")].map((th) => th.textContent),
  rows: [...table.querySelectorAll("tbody tr")].map((tr) =>
    [...tr.querySelectorAll("td")].map((td) => ({text: td.textContent, ret: td.dataset.return}))),
};
"""


def check_result_in_game_units(driver, game, final) -> None:
    """The end screen shows the game's own result; the OpenSpiel return only last, rounded."""
    words = driver.find_element(By.ID, "result").text.split()
    assert "null" not in words and "undefined" not in words, words
    out = driver.execute_script(RESULT_JS)
    view = final["infoset"]["view"]
    head, rows = out["head"], out["rows"]
    assert head[0] == "Seat" and head[-1] == "return"
    assert [float(r[-1]["ret"]) for r in rows] == final["returns"]
    for r, ret in zip(rows, final["returns"], strict=True):
        assert r[-1]["text"] == format(round(ret, 3), "g"), r[-1]  # e.g. -0.333, 1, 4.5
    column = {name: [r[i]["text"] for r in rows] for i, name in enumerate(head)}
    seats = range(len(final["returns"]))
    if game == "modern_art":
        assert column["Money"] == [str(m) for m in view["money"]]
        assert "Points" in column and "Place" in column
    elif game == "finger_auction":
        assert column["Score"] == [str(x) for x in view["scores"]]
        for painter in ("Monet", "van Gogh", "Vermeer"):
            assert [c.split(" ")[0] for c in column[painter]] == [
                str(view["points_by_painter"][s][painter]) for s in seats
            ]
    elif game == "gallery_rush":
        assert column["Cards"] == [str(sum(view["collections"][s].values())) for s in seats]
        qualified = set(view["qualified"])
        assert column["Qualified"] == ["yes" if s in qualified else "no" for s in seats]
    elif game == "detective_eye":
        assert column["Cards in hand"] == [str(x) for x in view["hand_sizes"]]
        assert column["Forgeries held"] == [str(x) for x in view["forgeries_held"]]


def check_log_narrates_outcomes(driver, game, final) -> None:
    """What a step led to is in its log line: Gallery Rush flips, Finger Auction leftovers,
    and Detective Eye's cards counted from 1 with the owner named properly."""
    lines = driver.execute_script(
        "return [...document.querySelectorAll('#log li.event')]"
        ".map((li) => [Number(li.dataset.step), li.textContent])"
    )
    text = {step: line for step, line in lines}
    events = final["events"]
    if game == "gallery_rush":
        for i, event in enumerate(events):
            if event["type"] == "flip":
                assert " — " in text[i], text[i]
        assert "game over" in text[len(events) - 1], text[len(events) - 1]
    elif game == "finger_auction":
        for i, event in enumerate(events):
            if "leftover" in event:
                assert "takes the rest" in text[i] or "take the rest" in text[i], text[i]
    elif game == "detective_eye":
        for i, event in enumerate(events):
            if event["type"] == "flip":
                assert f"card {event['position'] + 1}:" in text[i], text[i]  # counted from 1
                if event["owner"] == event["seat"]:
                    assert "own card" in text[i], text[i]  # not "Seat 1 flips Seat 1's card"


MOVE_TEXT_JS = """
return Object.fromEntries([...document.querySelectorAll("#moves button.move[data-action-id]")]
  .map((b) => [b.dataset.actionId, b.textContent + " | " + b.title]));
"""


def check_detective_eye_cards_count_from_one(driver, legal: list[dict]) -> None:
    """The flip buttons say "card 1" for position 0, as the log and the table do."""
    texts = driver.execute_script(MOVE_TEXT_JS)
    for action in legal:
        struct = action["struct"]
        if struct["type"] == "flip":
            label = texts[str(action["id"])]
            assert f"card {struct['position'] + 1}" in label, label
    assert "card 0" not in driver.find_element(By.ID, "moves").text


# --- tests --------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", sorted(GAMES))
def test_full_game_through_the_page(browser, base_url, shots, scratch_shots, game):
    started = time.monotonic()
    out = play_one_game(browser, base_url, game, shots)
    summary = {k: v for k, v in out.items() if k != "match"}
    print(f"{game}: {summary}, {time.monotonic() - started:.1f} s")  # shown with -s
    match = out["match"]
    assert out["decisions"] >= 1 and out["hinted"], out
    if game == "modern_art":
        assert out["typed"] >= 1, "no bid was typed into the amount input"
    # The page's result agrees with the service.
    final = api_get(base_url, f"/v1/matches/{match['id']}", match["token"])
    assert final["terminal"] and final["status"] == "finished"
    assert browser.find_element(By.ID, "turn").text == "Game over."
    result = browser.find_element(By.ID, "result")
    assert result.is_displayed() and result.find_element(By.TAG_NAME, "h2").text
    check_result_in_game_units(browser, game, final)
    # The log narrates every public event, the bots' moves among them, in readable words.
    log = browser.find_elements(By.CSS_SELECTOR, "#log li.event")
    spans = [(int(li.get_attribute("data-step")), int(li.get_attribute("data-last"))) for li in log]
    covered = [step for first, last in spans for step in range(first, last + 1)]
    assert covered == list(range(len(final["events"]))), "the log skips or repeats an event"
    bot_moves = [
        li
        for li in log
        if li.text and li.get_attribute("class").find("mine") < 0 and "Seat " in li.text
    ]
    assert bot_moves, "the log shows no bot move"
    assert not browser.find_elements(By.CSS_SELECTOR, "#log li.event b.generic-type")
    check_log_narrates_outcomes(browser, game, final)
    browser.save_screenshot(str(scratch_shots / f"{game}-over.png"))
    # A guard against a slow page or bots, with room for a loaded machine (typical: 5-30 s).
    assert time.monotonic() - started < 90, f"{game} took {time.monotonic() - started:.1f} s"


def test_generic_renderer_draws_any_view(browser, base_url):
    """A game without its own renderer still gets a readable table of every view field and a
    readable log line per event (so a new game plays on the page without new code)."""
    import games
    from games.core.infoset import build_infoset
    from server.examples import decision_engine

    defn = games.definition("detective_eye")
    params = defn.validate_params({})
    engine = decision_engine("detective_eye", params, seed=3, min_steps=12)
    infoset = build_infoset(defn, params, engine, engine.current_player(), with_view=True)
    browser.get(base_url + "/play")
    wait_for_state(browser, {"setup", "your-turn", "over"})
    out = browser.execute_async_script(
        """
        const [infoset, done] = arguments;
        Promise.all([import("/play/static/renderers.js"), import("/play/static/widgets.js")])
          .then(([r, w]) => {
            const renderer = r.rendererFor("a_game_without_renderer");
            const ctx = {me: infoset.seat, players: 2, seats: [{kind: "human"}, {kind: "bot",
              bot: {name: "random"}}], params: infoset.params, events: infoset.events,
              toMove: infoset.view.current_player, findAction: () => null, play: () => {}};
            const table = renderer.renderTable(infoset.view, ctx);
            const lines = infoset.events.map((e) => w.h("p", {}, renderer.describe(e, ctx)));
            const priv = infoset.private.map((e) => w.h("p", {}, renderer.describePrivate(e, ctx)));
            done({custom: renderer.custom, table: table.innerText,
                  lines: lines.map((p) => p.textContent), priv: priv.map((p) => p.textContent)});
          }, (err) => done({error: String(err)}));
        """,
        infoset,
    )
    assert "error" not in out, out
    assert out["custom"] is False
    for field in infoset["view"]:
        if field not in ("legal_actions", "terminal", "current_player", "returns"):
            assert field.replace("_", " ") in out["table"], field
    assert len(out["lines"]) == len(infoset["events"])
    for event, line in zip(infoset["events"], out["lines"], strict=True):
        assert event["type"].replace("_", " ") in line
        if "seat" in event:
            who = "You" if event["seat"] == infoset["seat"] else f"Seat {event['seat'] + 1}"
            assert who in line  # seats counted from 1 for people
    assert out["priv"] and all(line.startswith("(private)") for line in out["priv"])


# --- the form, the hint panel, the rules page and the layout -------------------------------------
def seat_choices(driver) -> dict[int, str]:
    return {
        int(el.get_attribute("data-seat")): Select(el).first_selected_option.get_attribute("value")
        for el in driver.find_elements(By.CSS_SELECTOR, "#seat-bots select")
    }


def set_players(driver, n: int) -> None:
    field = driver.find_element(By.ID, "players")
    field.clear()
    field.send_keys(str(n))
    driver.execute_script("arguments[0].blur()", field)  # a person tabs away: "change" fires
    bots_ready(driver)


def test_changing_the_player_count_keeps_the_seat_choices(browser, base_url):
    open_setup(browser, base_url)
    Select(browser.find_element(By.ID, "game")).select_by_value("modern_art")
    bots_ready(browser)
    set_players(browser, 4)
    selects = {
        int(el.get_attribute("data-seat")): el
        for el in browser.find_elements(By.CSS_SELECTOR, "#seat-bots select")
    }
    Select(selects[1]).select_by_value("random")
    Select(selects[3]).select_by_value("heuristic")
    set_players(browser, 5)
    assert seat_choices(browser)[1] == "random" and seat_choices(browser)[3] == "heuristic"
    set_players(browser, 3)
    assert seat_choices(browser)[1] == "random" and 3 not in seat_choices(browser)
    set_players(browser, 4)
    assert seat_choices(browser) == {1: "random", 2: seat_choices(browser)[2], 3: "heuristic"}


def test_the_modern_art_form_explains_the_rulesets_in_words(browser, base_url):
    open_setup(browser, base_url)
    Select(browser.find_element(By.ID, "game")).select_by_value("modern_art")
    ruleset = Select(browser.find_element(By.ID, "param-ruleset"))
    labels = [o.text for o in ruleset.options]
    assert labels == ["Source rule text", "Published game"]
    assert [o.get_attribute("value") for o in ruleset.options] == ["seed", "classic"]
    ruleset.select_by_value("classic")
    note = browser.find_element(By.ID, "param-ruleset-note").text
    assert "published game" in note and "for free" in note
    ruleset.select_by_value("seed")
    assert "source text" in browser.find_element(By.ID, "param-ruleset-note").text


def test_rules_open_as_a_page_from_the_form_and_the_game(browser, base_url):
    open_setup(browser, base_url)
    Select(browser.find_element(By.ID, "game")).select_by_value("gallery_rush")
    link = browser.find_element(By.ID, "rules-link").get_attribute("href")
    assert link.endswith("/play/rules/gallery_rush")
    browser.get(link)
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Atelier")
    body = browser.find_element(By.CSS_SELECTOR, "main.rules")
    assert body.find_element(By.TAG_NAME, "h1").text == "Gallery Rush (gallery_rush)"
    assert body.find_elements(By.TAG_NAME, "table"), "the Markdown tables are rendered"
    assert "**" not in body.text and "| ---" not in body.text  # no raw Markdown
    assert "shared/" not in body.text and "RULINGS" not in body.text  # no internal paths
    assert browser.execute_script("return !!document.getElementById('rulings')")  # #rulings works
    # The game screen links the same page.
    start_game(browser, base_url, "gallery_rush", ["random"], 5, Path("/tmp"))
    rules = browser.find_element(By.ID, "play-rules")
    assert rules.is_displayed() and rules.get_attribute("href").endswith("/play/rules/gallery_rush")


PHONE = (390, 844)


@contextlib.contextmanager
def viewport(driver, width: int, height: int):
    """The page at another size (a phone: ``mobile``), the usual one again afterwards."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    try:
        yield
    finally:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": WINDOW[0], "height": WINDOW[1], "deviceScaleFactor": 1, "mobile": False},
        )


def test_rules_pages_fit_a_phone(browser, base_url, shots):
    """Issue 43 item 5: at 390 px no rules page scrolls sideways (Modern Art's parameters table
    made it 460 px wide), and the page opens with the game, not a Python block."""
    import games

    with viewport(browser, *PHONE):
        for game in sorted(games.DEFINITIONS):
            browser.get(f"{base_url}/play/rules/{game}")
            wide = browser.execute_script("return document.documentElement.scrollWidth")
            assert wide <= PHONE[0], (game, wide)
            first = browser.execute_script(
                "return document.querySelector('main.rules > h1 + *').tagName"
            )
            assert first == "P", (game, first)
            if game == "modern_art":
                browser.save_screenshot(str(shots / "rules-phone.png"))


def test_seats_count_from_one_on_the_form(browser, base_url):
    """Issue 43 item 6: the form says "Seat 1 you", not "Seat 0" (the values sent stay 0-based)."""
    open_setup(browser, base_url)
    Select(browser.find_element(By.ID, "game")).select_by_value("gallery_rush")
    bots_ready(browser)
    seats = " ".join(browser.find_element(By.ID, "seat-bots").text.split())
    assert seats.startswith("Seat 1 you") and "Seat 2" in seats and "Seat 0" not in seats, seats
    mine = Select(browser.find_element(By.ID, "my-seat"))
    assert [(o.text, o.get_attribute("value")) for o in mine.options] == [
        ("seat 1", "0"),
        ("seat 2", "1"),
    ]


def test_modern_art_stand_in_values_read_as_words(browser, base_url):
    """Issue 43 item 6: deal -1, refill -1 and cards per artist 0 show as "standard" boxes with
    the rule in words; the stand-in is still what is sent."""
    open_setup(browser, base_url)
    Select(browser.find_element(By.ID, "game")).select_by_value("modern_art")
    bots_ready(browser)
    # The form is drawn anew for the chosen game: wait for Modern Art's own fields, then read
    # every value in one script call (an element read one by one can be replaced in between).
    WebDriverWait(browser, TURN_TIMEOUT_S).until(
        lambda d: d.find_elements(By.ID, "param-cards_per_artist-note")
    )
    values = browser.execute_script(
        "return [...document.querySelectorAll('#params input')].map((i) => i.value)"
    )
    assert "-1" not in values, values
    for name, words in (
        ("deal", "11 / 9 / 8"),
        ("refill", "6 / 4 / 3"),
        ("cards_per_artist", "70"),
    ):
        field = browser.find_element(By.ID, f"param-{name}")
        assert not field.is_enabled() and field.get_attribute("value") == ""
        assert browser.find_element(By.ID, f"param-{name}-standard").is_selected()
        assert words in browser.find_element(By.ID, f"param-{name}-note").text
    browser.find_element(By.ID, "quick").click()  # the quick game deals 4
    assert browser.find_element(By.ID, "param-deal").get_attribute("value") == "4"
    assert not browser.find_element(By.ID, "param-deal-standard").is_selected()
    Select(browser.find_element(By.ID, "game")).select_by_value("gallery_rush")
    Select(browser.find_element(By.ID, "game")).select_by_value("modern_art")  # defaults again
    browser.find_element(By.ID, "param-deal-standard").click()  # a deal typed by hand
    deal = browser.find_element(By.ID, "param-deal")
    assert deal.is_enabled()
    deal.send_keys("9")
    bots_ready(browser)
    for select in browser.find_elements(By.CSS_SELECTOR, "#seat-bots select"):
        Select(select).select_by_value("random")
    browser.find_element(By.ID, "start").click()
    wait_for_state(browser, {"your-turn", "waiting", "over"})
    match = page_match(browser)
    state = api_get(base_url, f"/v1/matches/{match['id']}", match["token"])
    assert state["params"]["deal"] == 9 and state["params"]["refill"] == -1, state["params"]
    assert state["params"]["cards_per_artist"] == 0


WORDING_JS = """
const done = arguments[0];
Promise.all([import("/play/static/games/finger_auction.js"),
             import("/play/static/games/modern_art.js"), import("/play/static/widgets.js")])
  .then(([fa, ma, w]) => {
    const ctx = {me: 0, players: 2, seats: [{kind: "human"}, {kind: "bot", bot: {name: "random"}}]};
    const text = (parts) => w.h("p", {}, parts).textContent;
    const won = (winner) => text(fa.describe({type: "bid", seat: 1, revealed: [],
      outcome: "won", winner, takes: 3}, ctx));
    const tie = (winner) => text(fa.describe({type: "tie_break", winner, takes: 2}, ctx));
    const drawn = ma.describePrivateRun([{artist: "Yoko", auction: "Open"},
      {artist: "Krypto", auction: "Sealed"}]);
    done({wonMe: won(0), wonOther: won(1), tieMe: tie(0), tieOther: tie(1),
          drawn: text(drawn), drawnEndsWithCards: drawn[drawn.length - 1] instanceof Node});
  }, (err) => done({error: String(err)}));
"""


def test_the_log_words_agree_with_their_subject(browser, base_url):
    """Issue 43 item 13: "You won and take 3" (not "takes"), "Seat 2 won and takes 3", and no
    lone full stop after a drawn row of cards."""
    open_setup(browser, base_url)
    out = browser.execute_async_script(WORDING_JS)
    assert "error" not in out, out
    assert "You won and take 3." in out["wonMe"], out
    assert "Seat 2 won and takes 3." in out["wonOther"], out
    assert "You won and take 2." in out["tieMe"] and "Seat 2 won and takes 2." in out["tieOther"]
    assert out["drawn"].startswith("You draw 2 cards: ") and out["drawnEndsWithCards"], out


def test_hint_bars_are_the_share_of_the_search_the_docs_describe(browser, base_url):
    """Issue 43 item 7: a bar says visits / all visits (200 of 653: 30.6%), not the policy's
    probability (36.0% after ``final_policy: significant`` dropped a 48-visit move to 0)."""
    open_setup(browser, base_url)
    out = browser.execute_async_script(
        """
        const done = arguments[0];
        import("/play/static/hints.js").then((hints) => {
          const searched = {policy: [
            {id: 1, probability: 0.36, visits: 200}, {id: 2, probability: 0.0, visits: 48},
            {id: 3, probability: 0.64, visits: 355}], policy_omitted: {omitted: 5, visits: 50}};
          const heuristic = {policy: [{id: 1, probability: 0.25}, {id: 2, probability: 0.75}]};
          done({searched: hints.policyBars(searched), heuristic: hints.policyBars(heuristic)});
        }, (err) => done({error: String(err)}));
        """
    )
    assert "error" not in out, out
    searched = out["searched"]
    assert searched["kind"] == "visits" and searched["total"] == 653
    shares = {row["entry"]["id"]: row["share"] for row in searched["rows"]}
    assert round(shares[1] * 100, 1) == 30.6 and round(shares[2] * 100, 1) == 7.4
    assert "visits out of 653" in searched["caption"]
    heuristic = out["heuristic"]
    assert heuristic["kind"] == "policy" and heuristic["rows"][0]["share"] == 0.75
    # A real ISMCTS hint: every bar's percentage is its visits over the caption's total.
    start_game(browser, base_url, "gallery_rush", ["random"], 7, Path("/tmp"))
    wait_for_state(browser, {"your-turn"})
    Select(browser.find_element(By.ID, "hint-bot")).select_by_value("ismcts")
    ask_hint(browser)
    caption = browser.find_element(By.ID, "hint-bars-caption").text
    total = int(caption.rstrip(".").split()[-1])
    for row in browser.find_elements(By.CSS_SELECTOR, "#hint-policy .bar-row"):
        visits = int(row.find_element(By.CSS_SELECTOR, ".bar-extra").text.split()[0])
        shown = row.find_element(By.CSS_SELECTOR, ".bar-value").text
        assert abs(float(shown.rstrip("%")) - 100 * visits / total) <= 0.051, (shown, visits, total)


def test_a_hint_without_a_value_says_so(browser, base_url):
    start_game(browser, base_url, "gallery_rush", ["random"], 7, Path("/tmp"))
    wait_for_state(browser, {"your-turn"})
    Select(browser.find_element(By.ID, "hint-bot")).select_by_value("heuristic")
    browser.find_element(By.ID, "hint").click()
    WebDriverWait(browser, TURN_TIMEOUT_S).until(
        lambda d: d.execute_script("return document.body.dataset.hint") in ("ready", "error")
    )
    panel = browser.find_element(By.ID, "hint-result").text
    assert "null" not in panel.split()
    assert not browser.find_elements(By.ID, "hint-value")
    assert "does not estimate" in browser.find_element(By.ID, "hint-no-value").text
    assert "0 iterations" not in panel and "0.000" not in panel
    assert browser.find_elements(By.CSS_SELECTOR, "#hint-policy .bar-row.chosen")


def test_a_flat_hint_says_the_value_means_nothing(browser, base_url):
    open_setup(browser, base_url)
    out = browser.execute_async_script(
        """
        const done = arguments[0];
        Promise.all([import("/play/static/hints.js"), import("/play/static/renderers.js")])
          .then(([hints, r]) => {
            const same = {policy: [{id: 1, value: 0, visits: 30}, {id: 2, value: 0, visits: 30}]};
            const differ = {policy: [{id: 1, value: 0, visits: 30}, {id: 2, value: 1, visits: 9}]};
            const flat = hints.flatValues(same);
            const ctx = {params: {payoff: "points"}};
            done({flat, differ: hints.flatValues(differ),
                  text: hints.flatText(flat, r.rendererFor("modern_art"), ctx)});
          }, (err) => done({error: String(err)}));
        """
    )
    assert "error" not in out, out
    assert out["flat"] == {"value": 0} and out["differ"] is None
    assert "every move scores the same" in out["text"].lower() and "place" in out["text"]


def test_the_finger_auction_grid_fits_its_panel_at_1280_px(browser, base_url):
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        start_game(browser, base_url, "finger_auction", ["random"], 3, Path("/tmp"))
        wait_for_state(browser, {"your-turn"})
        out = browser.execute_script(
            """
            const panel = document.querySelector(".turn-box").getBoundingClientRect();
            const buttons = [...document.querySelectorAll("#moves .move-grid button")];
            return {n: buttons.length, panel: panel.right,
                    right: Math.max(...buttons.map((b) => b.getBoundingClientRect().right)),
                    texts: buttons.map((b) => b.textContent)};
            """
        )
        assert out["n"] == 25 and "block 5" in out["texts"]
        assert out["right"] <= out["panel"], out
    finally:
        browser.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": WINDOW[0], "height": WINDOW[1], "deviceScaleFactor": 1, "mobile": False},
        )


# The bots endpoint (GET /v1/games/{game}/bots?params=) answered by the test in the browser, so
# the page's use of it is checked whatever the server in this tree answers.
FAKE_BOTS_JS = """
window.__botRequests = [];
const realFetch = window.fetch.bind(window);
window.fetch = (url, opts) => {
  const u = new URL(url, location.href);
  const m = u.pathname.match(/^\\/v1\\/games\\/([^/]+)\\/bots$/);
  if (!m) return realFetch(url, opts);
  window.__botRequests.push({game: m[1], params: JSON.parse(u.searchParams.get("params"))});
  const mode = sessionStorage.getItem("fake-bots");
  if (mode === "404") {
    const body = JSON.stringify({code: "not_found", message: "no such route"});
    return Promise.resolve(
      new Response(body, {status: 404, headers: {"Content-Type": "application/json"}}));
  }
  const body = [
    {name: "heuristic", available: true, reason: null},
    {name: "ismcts", available: true, reason: null},
    {name: "random", available: true, reason: null},
    {name: "cfr", available: false, reason: "no stored solution for these parameters"},
  ];
  return Promise.resolve(new Response(JSON.stringify(body),
    {status: 200, headers: {"Content-Type": "application/json"}}));
};
"""


def test_only_bots_that_can_play_the_setting_are_offered(browser, base_url):
    script = browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_BOTS_JS}
    )["identifier"]
    try:
        open_setup(browser, base_url)
        Select(browser.find_element(By.ID, "game")).select_by_value("detective_eye")
        WebDriverWait(browser, TURN_TIMEOUT_S).until(
            lambda d: d.find_element(By.ID, "bots-note").is_displayed()
        )
        cfr = browser.find_element(By.CSS_SELECTOR, '#seat-bots select option[value="cfr"]')
        assert not cfr.is_enabled() and "unavailable" in cfr.text
        assert "no stored solution" in browser.find_element(By.ID, "bots-note").text
        assert "cfr" not in seat_choices(browser).values()
        hint_cfr = browser.find_element(By.CSS_SELECTOR, '#hint-bot option[value="cfr"]')
        assert not hint_cfr.is_enabled()
        # A change of setting asks again, with the new parameters.
        field = browser.find_element(By.ID, "param-hand_size")
        field.clear()
        field.send_keys("4")
        browser.execute_script(
            "arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", field
        )
        WebDriverWait(browser, TURN_TIMEOUT_S).until(
            lambda d: any(
                r["game"] == "detective_eye" and r["params"].get("hand_size") == 4
                for r in d.execute_script("return window.__botRequests")
            )
        )
        # A service without the endpoint (404): every bot is offered, as before.
        browser.execute_script("sessionStorage.setItem('fake-bots', '404')")
        browser.refresh()
        wait_for_state(browser, {"setup"})
        WebDriverWait(browser, TURN_TIMEOUT_S).until(
            lambda d: d.execute_script("return window.__botRequests.length") > 0
        )
        options = browser.find_elements(By.CSS_SELECTOR, "#seat-bots select option")
        assert options and all(o.is_enabled() for o in options)
        assert not browser.find_element(By.ID, "bots-note").is_displayed()
    finally:
        browser.execute_script("sessionStorage.removeItem('fake-bots')")
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})


def test_the_review_reads_a_loss_as_a_positive_number_or_no_loss(browser, base_url):
    """Issue 38: one sign convention. A review said "Value lost -0.225"; a loss is now never
    negative, and a move within noise of the best reads "no loss"."""
    open_setup(browser, base_url)
    out = browser.execute_async_script(
        """
        const done = arguments[0];
        import("/play/static/review.js").then((r) => done({
          negative: r.lossText(-0.225, {interval: [-0.3, -0.1]}),
          noise: r.lossText(0.02, {interval: [-0.01, 0.05]}),
          flagged: r.lossText(0.3, {interval: [0.1, 0.5], no_loss: false}),
          told: r.lossText(0.2, {no_loss: true}),
          bare: r.lossText(-0.3, {}),
        }), (err) => done({error: String(err)}));
        """
    )
    assert "error" not in out, out
    assert out["negative"] == out["noise"] == out["told"] == "no loss", out
    assert out["flagged"] == "0.300" and out["bare"] == "0.000", out
