"""In the browser: Vision Mode hints, a Reinforcement declared on the phone, the host page, the replay viewer."""

import json

import pytest
from playwright.sync_api import expect

from host.compose import create_app
from host.web.sim import board_key
from tests.support.webtools import PHONE, running


@pytest.fixture
def served(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "KEEPALIVE": 5, "VISION": True})
    with running(app, threads=16) as base:
        yield base, app.extensions["quin.table"]


def test_hints_a_reinforcement_a_new_game_and_the_replay(browser, served, artifacts):
    base, table = served
    ctx = browser.new_context(viewport=PHONE)
    errors = []
    white, black, board = ctx.new_page(), ctx.new_page(), ctx.new_page()
    for page in (white, black, board):
        page.on("pageerror", lambda e: errors.append(str(e)))
    white.goto(f"{base}/seat/{table.tokens['white']}")
    black.goto(f"{base}/seat/{table.tokens['black']}")
    board.goto(f"{base}/board/{board_key(table.host_key)}")  # the host page's link: it moves towers
    for page in (white, black):
        page.bring_to_front()
        page.click("#random-lineup")
        page.click("#send-setup")
    board.bring_to_front()
    board.click("#place-start")
    white.bring_to_front()
    expect(white.locator("#turn")).to_have_text("Your move", timeout=10000)

    # Vision Mode: tapping a tower marks where it may go.
    white.click('circle.hit[data-space="w38"]')
    hints = table.state("white")["seat"]["hints"]["w38"]
    expect(white.locator("svg.board circle.mark-hint")).to_have_count(len(hints))
    white.screenshot(path=str(artifacts / "seat-vision-hints.png"))

    def move(frm, to, n):
        board.bring_to_front()
        board.click(f'circle.hit[data-space="{frm}"]')
        board.click(f'circle.hit[data-space="{to}"]')
        expect(board.locator("#log li")).to_have_count(n, timeout=10000)

    move("w38", "w37", 1)
    move("b18", "b17", 2)
    move("w39", "w38", 3)  # the Gateway w39 is free now
    move("b17", "b16", 4)

    # Reinforce from the phone: declare which tower, then put it on the free Gateway.
    white.bring_to_front()
    white.click('button[data-declare="reinforce"]')
    choice = white.locator("#sheet button[data-reinforce]").first
    pieces = choice.get_attribute("data-reinforce").split(",")
    choice.click()
    expect(white.locator("#sheet")).to_contain_text("Declared: bring in")
    board.bring_to_front()
    board.click('circle.hit[data-space="w39"]')
    expect(board.locator("#log li")).to_have_count(5, timeout=10000)
    last = table.game.log[-1][2].to_record()
    assert last == {"type": "reinforce", "to": {"w39": pieces[0]}}

    # The host abandons the game and starts another; the first one can now be replayed and exported.
    host = ctx.new_page()
    host.goto(f"{base}/host/{table.host_key}")
    expect(host.locator(".qr svg")).to_have_count(2)
    host.click("#new-game")
    host.click('dialog [data-confirm="yes"]')
    expect(host.locator("#game-title")).to_contain_text("Game 2")
    # The seats follow the table: the phone on White's seat is carried to game 2 (issue 22).
    expect(white.locator("#turn")).to_have_text("Choose your lineup", timeout=10000)
    expect(white.locator("#conn")).to_have_text("live")
    host.goto(f"{base}/history")
    expect(host.locator("#games tr")).to_have_count(2)
    host.click('a[href="/history/1"]')
    expect(host.locator("#step-label")).to_have_text("Start")
    for _ in range(3):
        host.click("#next")
    expect(host.locator("#step-label")).to_contain_text("Step 3 of 5")
    expect(host.locator("#action")).to_have_text("w39 → w38")
    expect(host.locator("svg.board use.face")).to_have_count(20)  # a finished game hides nothing
    host.click("#last")
    expect(host.locator("#action")).to_contain_text("reinforce")
    host.screenshot(path=str(artifacts / "replay.png"))
    with host.expect_download() as download:
        host.click("#export a")
    record = json.loads(open(download.value.path()).read())
    assert record["format"] == "quin-record/1" and len(record["turns"]) == 5
    assert errors == []
    ctx.close()
