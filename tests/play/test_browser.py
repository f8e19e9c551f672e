"""The board page in headless Chromium (Selenium): deploy, play moves by clicking over the WebSocket, check the board
shown; pick an opponent in the lobby; step through an uploaded record."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import numpy as np
import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from deepnash.play.frames import load_record, record_frames
from deepnash.play.match import describe_move
from deepnash.play.record import record_xml
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
    app = create_app("random", seed=11, tables=(tables := {}))
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield app, f"http://127.0.0.1:{port}", tables
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=opts)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


@pytest.fixture
def browser(chromium, server):
    """The shared browser with no saved game, so each test starts in the lobby.

    The storage is cleared on a same-origin page that runs no script: on the app's page an
    earlier test's game could be joined meanwhile, and joining saves its token again.
    """
    chromium.get(server[1] + "/api/options")
    chromium.execute_script("sessionStorage.clear()")
    return chromium


def cell(driver, name: str):
    return driver.find_element(By.ID, f"sq-{name}")


def board_text(driver) -> dict[str, str]:
    cells = driver.find_elements(By.CSS_SELECTOR, "#board .sq")
    return {c.get_attribute("id")[3:]: c.text for c in cells}


def name(sq: int) -> str:
    return f"{'abcdefghij'[sq % 10]}{sq // 10 + 1}"


def test_deploy_and_play_by_clicking(server, browser):
    """Deploys, plays moves by clicking, checks the board, reloads into the same game and resigns.

    With ``DEEPNASH_SCREENSHOT=docs/board.png`` it plays longer and saves the page there (the README's picture).
    """
    app, url, tables = server
    shot = os.environ.get("DEEPNASH_SCREENSHOT")
    wait = WebDriverWait(browser, 10)
    browser.get(url + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#variant option"))
    browser.find_element(By.CSS_SELECTOR, "#variant option[value=classic]").click()
    browser.find_element(By.ID, "new-game").click()

    # Click-to-place one piece, then let the server fill in a random setup.
    browser.find_element(By.ID, "piece-F").click()
    cell(browser, "a1").click()
    assert cell(browser, "a1").text == "F" and "F×0" in browser.find_element(By.ID, "piece-F").text
    assert browser.find_element(By.ID, "start").get_attribute("disabled")
    browser.find_element(By.ID, "setup-random").click()
    wait.until(lambda d: d.find_element(By.ID, "start").get_attribute("disabled") is None)
    deployed = {k: v for k, v in board_text(browser).items() if v}
    assert len(deployed) == 40 and all(int(k[1:]) <= 4 for k in deployed)
    browser.find_element(By.ID, "start").click()
    wait.until(lambda d: "Your move" in d.find_element(By.ID, "status").text)

    (table,) = tables.values()
    match = table.match
    rng = np.random.default_rng(3)
    for _ in range(40 if shot else 3):
        before = match._game.ply
        moves = match.view().legal_moves
        move = moves[int(rng.integers(len(moves)))]
        cell(browser, name(move.from_sq)).click()
        assert "selected" in cell(browser, name(move.from_sq)).get_property("className")
        assert "target" in cell(browser, name(move.to_sq)).get_property("className")
        cell(browser, name(move.to_sq)).click()
        wait.until(lambda d, b=before: match._game.ply > b and d.execute_script("return ui.state.ply") == match._game.ply)
        if match._game.is_over():
            break
    if shot:
        browser.find_element(By.TAG_NAME, "body").screenshot(shot)

    # The board shown is the person's information state, square by square.
    view = match.view()
    shown = board_text(browser)
    labels = ["F", "S", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B"]
    for sq in range(100):
        owner, t = int(view.owner[sq]), int(view.types[sq])
        want = "" if owner in (-1, 2) else ("?" if t == 12 else labels[t])
        assert shown[name(sq)] == want, (name(sq), shown[name(sq)], want)
    for sq in match.last.move:
        assert "last" in cell(browser, name(sq)).get_property("className")
    history = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li")]
    assert history == [text for text in browser.execute_script("return ui.state.history")]
    assert len(history) == match._game.ply

    # A reload takes up the same game over a new WebSocket; resigning ends it and offers the record.
    browser.refresh()
    wait.until(lambda d: d.execute_script("return ui.state && ui.state.ply") == match._game.ply)
    assert board_text(browser) == shown and len(tables) == 1
    browser.find_element(By.ID, "resign").click()
    wait.until(lambda d: "You lost (resignation)" in d.find_element(By.ID, "status").text)
    assert match._game.is_over()
    link = browser.find_element(By.ID, "download").get_attribute("href")
    assert link.endswith(f"/api/games/{table.token}/record")


def test_lobby_picks_the_opponent_and_a_replay_steps_through_the_record(server, browser, tmp_path):
    """Picks Barrage and the greedy bot in the lobby, resigns, then uploads that game's record and steps through it."""
    app, url, tables = server
    wait = WebDriverWait(browser, 10)
    browser.get(url + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#opponent option"))
    browser.find_element(By.CSS_SELECTOR, "#variant option[value=barrage]").click()
    offered = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#opponent option")]
    assert offered == app.state.choices["barrage"] and "greedy" in offered
    browser.find_element(By.CSS_SELECTOR, "#opponent option[value=greedy]").click()
    assert "Asmodeus" in browser.find_element(By.ID, "opponent-about").text
    browser.find_element(By.ID, "new-game").click()
    browser.find_element(By.ID, "setup-random").click()
    wait.until(lambda d: d.find_element(By.ID, "start").get_attribute("disabled") is None)
    browser.find_element(By.ID, "start").click()
    wait.until(lambda d: "Your move" in d.find_element(By.ID, "status").text)
    table = tables[browser.execute_script("return ui.token")]
    match = table.match
    assert match.opponent.name == "greedy" and match.variant.name == "barrage"
    move = match.view().legal_moves[0]
    cell(browser, name(move.from_sq)).click()
    cell(browser, name(move.to_sq)).click()
    wait.until(lambda d: d.execute_script("return ui.state.ply") == 2 or match._game.is_over())
    if not match._game.is_over():
        browser.find_element(By.ID, "resign").click()
    wait.until(lambda d: d.find_element(By.ID, "again").is_displayed())
    browser.find_element(By.ID, "again").click()

    # The record of that game, uploaded in the lobby: frame by frame with every piece shown.
    path = tmp_path / "mine.xml"
    path.write_text(record_xml(match))
    frames = record_frames(load_record(path))
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    wait.until(lambda d: "Start position" in d.find_element(By.ID, "replay-pos").text)
    browser.find_element(By.ID, "replay-next").click()
    n = len(frames) - 1
    assert browser.find_element(By.ID, "replay-pos").text == f"Move 1 / {n}"
    labels = ["F", "S", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B"]
    want = {name(sq): (labels[(v - 1) % 12] if v > 0 else "") for sq, v in enumerate(frames.boards[1].tolist())}
    assert board_text(browser) == want
    assert browser.find_element(By.ID, "replay-move").text == describe_move(frames.moves[0])
    browser.find_element(By.ID, "replay-last").click()
    assert browser.find_element(By.ID, "replay-pos").text == f"Move {n} / {n}"
