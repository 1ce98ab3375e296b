"""``/docs`` in headless Chromium: "Try it" sends each game's own example (issue 18 item 3).

Uses the shared ``browser`` and ``base_url`` fixtures (tests/conftest.py); skipped, or failed
under CI, like the page's other browser tests when Chromium is missing.
"""

from __future__ import annotations

import json

import pytest

import games
from tests.browser_support import By, Select, WebDriverWait


@pytest.mark.parametrize("operation", ["hint", "validate"])
def test_try_it_sends_the_chosen_games_example(browser, base_url, operation):
    browser.get(base_url + "/docs")
    wait = WebDriverWait(browser, 20)
    op = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'details[data-op="{operation}"]'))
    op.find_element(By.TAG_NAME, "summary").click()
    area = op.find_element(By.TAG_NAME, "textarea")
    select = Select(op.find_element(By.TAG_NAME, "select"))
    status = op.find_element(By.CSS_SELECTOR, ".status")

    def shows_example_of(game):
        text = area.get_attribute("value")
        return bool(text) and json.loads(text)["infoset"]["game"] == game

    def answered():
        return status.text != "" and not status.text.startswith("sending")

    for game in sorted(games.DEFINITIONS):
        select.select_by_visible_text(game)
        wait.until(lambda d, game=game: shows_example_of(game))
        op.find_element(By.CSS_SELECTOR, "button.send").click()
        wait.until(lambda d: answered())
        answer = json.loads(op.find_element(By.CSS_SELECTOR, "pre.answer").text)
        assert status.text.startswith("200"), (game, status.text, answer)
        if operation == "hint":
            assert answer["game"] == game
        else:
            assert answer["valid"] is True


def test_the_description_is_rendered_markdown(browser, base_url):
    """The document's description reads as text with lists and code, not raw Markdown."""
    browser.get(base_url + "/docs")
    about = WebDriverWait(browser, 20).until(lambda d: d.find_element(By.ID, "about"))
    assert about.find_elements(By.CSS_SELECTOR, "ul li code"), about.get_attribute("innerHTML")
    assert "`" not in about.text and "\n* " not in about.text
    assert not browser.find_elements(By.CSS_SELECTOR, "main > pre, #ops > pre")


def open_op(driver, operation):
    op = WebDriverWait(driver, 20).until(
        lambda d: d.find_element(By.CSS_SELECTOR, f'details[data-op="{operation}"]')
    )
    if not op.get_attribute("open"):
        op.find_element(By.TAG_NAME, "summary").click()
    return op


def send_and_read(driver, op) -> tuple[str, dict]:
    status = op.find_element(By.CSS_SELECTOR, ".status")
    op.find_element(By.CSS_SELECTOR, "button.send").click()
    WebDriverWait(driver, 30).until(
        lambda d: status.text != "" and not status.text.startswith("sending")
    )
    return status.text, json.loads(op.find_element(By.CSS_SELECTOR, "pre.answer").text)


def test_a_created_match_fills_the_seat_token_and_match_id(browser, base_url):
    """Issue 43 item 9: "Try it" on createMatch, then on the match's own calls, with no copying."""
    browser.get(base_url + "/docs")
    create = open_op(browser, "createMatch")
    area = create.find_element(By.TAG_NAME, "textarea")
    WebDriverWait(browser, 20).until(lambda d: area.get_attribute("value"))
    status, created = send_and_read(browser, create)
    assert status.startswith("201"), (status, created)
    token = browser.find_element(By.ID, "seattoken").get_attribute("value")
    assert token == created["tokens"][0]["token"]
    assert created["match_id"] in browser.find_element(By.ID, "token-note").text
    get = open_op(browser, "getMatch")
    match_id = get.find_element(By.CSS_SELECTOR, "input").get_attribute("value")
    assert match_id == created["match_id"]
    status, state = send_and_read(browser, get)
    assert status.startswith("200"), (status, state)
    assert state["match_id"] == created["match_id"] and state["seat"] == 0


def test_no_page_asks_for_a_missing_favicon(browser, base_url):
    """Issue 43 item 9: /docs, /play and a rules page log no 404 (they declare their icon)."""
    for path in ("/docs", "/play", "/play/rules/modern_art"):
        browser.get_log("browser")  # drop what earlier pages logged
        browser.get(base_url + path)
        WebDriverWait(browser, 20).until(
            lambda d: d.execute_script("return document.readyState") == "complete"
        )
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not [m for m in errors if "favicon" in m or "404" in m], (path, errors)
