"""Headless Chromium for the page's browser tests: finding Debian's ``chromium`` and
``chromium-driver`` (a module that imports this one skips without them on a developer's
machine, and fails under CI, where ``.ci/run`` installs them), starting it, and the waits and
clicks on /play that several of those test modules use."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
HAVE_BROWSER = os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException  # noqa: F401  (for the tests)
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # pragma: no cover - selenium is in the dev extra
    webdriver = None

if not (HAVE_BROWSER and webdriver is not None):
    reason = "needs selenium and Debian's chromium + chromium-driver"
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (.ci/run installs them)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)

WINDOW = (1200, 900)
TURN_TIMEOUT_S = 30


def chromium(profile: Path):
    """A headless Chromium with its own profile folder and a ``WINDOW``-sized viewport (what
    the screenshots show); the caller quits it."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_window_size(*WINDOW)
    # The viewport itself (what the screenshots show) at the window's size.
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WINDOW[0], "height": WINDOW[1], "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


def page_state(driver) -> str:
    return driver.execute_script("return document.body.dataset.state")


def wait_for_state(driver, states, timeout=TURN_TIMEOUT_S, step_not=None) -> str:
    """Waits until the page is in one of ``states`` (and past step ``step_not``)."""

    def ready(d):
        state = page_state(d)
        if state == "error":
            return "error"
        if state not in states:
            return False
        step = d.execute_script("return document.body.dataset.step")
        if step_not is not None and state != "over" and step == step_not:
            return False
        return state

    state = WebDriverWait(driver, timeout, poll_frequency=0.05).until(ready)
    if state == "error":
        raise AssertionError(f"the page shows an error: {driver.find_element(By.ID, 'error').text}")
    return state


def start_game(driver, base_url, game, bots, seed, shots: Path) -> None:
    driver.get(base_url + "/play")
    # The page resumes the browser session's last match; a person starts anew from there.
    if wait_for_state(driver, {"setup", "your-turn", "over"}) != "setup":
        driver.find_element(By.ID, "new-game").click()
        wait_for_state(driver, {"setup"})
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    driver.find_element(By.ID, "quick").click()
    bots_ready(driver)  # the seats are redrawn once the page knows which bots can play
    for i, select in enumerate(driver.find_elements(By.CSS_SELECTOR, "#seat-bots select")):
        Select(select).select_by_value(bots[i % len(bots)])
    for field, value in (("bot-ms", "20"), ("seed", str(seed))):
        el = driver.find_element(By.ID, field)
        el.clear()
        el.send_keys(value)
    if game == "modern_art":  # the form with the most settings
        driver.save_screenshot(str(shots / "setup.png"))
    driver.find_element(By.ID, "start").click()
    wait_for_state(driver, {"your-turn", "over", "waiting"})
    hint_ms = driver.find_element(By.ID, "hint-ms")
    hint_ms.clear()
    hint_ms.send_keys("60")


def bots_ready(driver) -> None:
    """Waits until the page has asked which bots can play the chosen setting (and redrawn)."""
    WebDriverWait(driver, TURN_TIMEOUT_S, poll_frequency=0.05).until(
        lambda d: d.execute_script("return document.body.dataset.bots") == "ready"
    )


def open_setup(driver, base_url) -> None:
    driver.get(base_url + "/play")
    if wait_for_state(driver, {"setup", "your-turn", "over", "waiting"}) != "setup":
        driver.find_element(By.ID, "new-game").click()
        wait_for_state(driver, {"setup"})
