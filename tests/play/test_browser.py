"""The board page in headless Chromium (Selenium): deploy, play moves by clicking, check the board shown."""

from __future__ import annotations

import shutil
import socket
import threading
import time

import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from deepnash.play.web import create_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("chromium and chromium-driver are not installed (Debian: apt-get install chromium chromium-driver)",
                allow_module_level=True)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1200,900"]


@pytest.fixture(scope="module")
def server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app("random", seed=11)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield app, f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=opts)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def cell(driver, name: str):
    return driver.find_element(By.ID, f"sq-{name}")


def board_text(driver) -> dict[str, str]:
    cells = driver.find_elements(By.CSS_SELECTOR, "#board .sq")
    return {c.get_attribute("id")[3:]: c.text for c in cells}


def test_deploy_and_play_by_clicking(server, browser, tmp_path):
    app, url = server
    wait = WebDriverWait(browser, 10)
    browser.get(url + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#variant option"))
    browser.find_element(By.CSS_SELECTOR, "#variant option[value=barrage]").click()
    browser.find_element(By.ID, "new-game").click()

    # Click-to-place one piece, then let the server fill in a random setup.
    browser.find_element(By.ID, "piece-F").click()
    cell(browser, "a1").click()
    assert cell(browser, "a1").text == "F" and "F×0" in browser.find_element(By.ID, "piece-F").text
    assert browser.find_element(By.ID, "start").get_attribute("disabled")
    browser.find_element(By.ID, "setup-random").click()
    wait.until(lambda d: d.find_element(By.ID, "start").get_attribute("disabled") is None)
    deployed = {k: v for k, v in board_text(browser).items() if v}
    assert len(deployed) == 8 and all(int(k[1:]) <= 4 for k in deployed)
    browser.find_element(By.ID, "start").click()
    wait.until(lambda d: "Your move" in d.find_element(By.ID, "status").text)

    (match,) = [t.match for t in app.state.tables.values()]
    for n in range(3):
        before = match.game.ply
        move = match.view().legal_moves[0]
        names = [f"{'abcdefghij'[sq % 10]}{sq // 10 + 1}" for sq in move]
        cell(browser, names[0]).click()
        assert "selected" in cell(browser, names[0]).get_property("className")
        assert "target" in cell(browser, names[1]).get_property("className")
        cell(browser, names[1]).click()
        wait.until(lambda d, b=before: match.game.ply > b and d.execute_script("return ui.state.ply") == match.game.ply)
        if n == 0:
            browser.save_screenshot(str(tmp_path / "board.png"))
        if match.game.is_over():
            break

    # The board shown is the person's information state, square by square.
    view = match.view()
    shown = board_text(browser)
    labels = ["F", "S", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B"]
    for sq in range(100):
        name = f"{'abcdefghij'[sq % 10]}{sq // 10 + 1}"
        owner, t = int(view.owner[sq]), int(view.types[sq])
        want = "" if owner in (-1, 2) else ("?" if t == 12 else labels[t])
        assert shown[name] == want, (name, shown[name], want)
    last = match.last.move
    for sq in last:
        assert "last" in cell(browser, f"{'abcdefghij'[sq % 10]}{sq // 10 + 1}").get_property("className")
    history = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li")]
    assert history == [text for text in browser.execute_script("return ui.state.history")]
    assert len(history) == match.game.ply
