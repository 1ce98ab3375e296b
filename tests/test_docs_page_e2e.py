"""``/docs`` in headless Chromium: "Try it" sends each game's own example (issue 18 item 3).

Uses the browser and server of ``tests/test_play_e2e.py`` (skipped, or failed under CI, in the
same way when Chromium is missing).
"""

from __future__ import annotations

import json

import pytest

import games
from tests.test_play_e2e import base_url, browser  # noqa: F401  (fixtures)

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait


@pytest.mark.parametrize("operation", ["hint", "validate"])
def test_try_it_sends_the_chosen_games_example(browser, base_url, operation):  # noqa: F811
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
