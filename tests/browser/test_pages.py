"""A short game played in the browser: two seat pages and the virtual board, on the real server.

Phone-sized pages; screenshots go to artifacts/.
"""


import pytest
from playwright.sync_api import expect

from host.compose import create_app
from host.web.sim import board_key
from tests.support.browsing import body_text
from tests.support.webtools import PHONE, running

# White's lineup (tapped in on the white seat): the Shadow on w38 will cross the Iris.
WHITE = {"w19": "void", "w29": "void", "w39": "light", "w49": "void", "w59": "memory",
         "w18": "reflector", "w28": "peripheral", "w38": "shadow", "w48": "shadow", "w58": "peripheral"}
# Black's: a Void on b18 to shuffle, a Reflector on b38 to be flashed.
BLACK = {"b19": "void", "b29": "void", "b39": "light", "b49": "void", "b59": "memory",
         "b18": "void", "b28": "peripheral", "b38": "reflector", "b48": "shadow", "b58": "shadow"}


@pytest.fixture
def served(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "KEEPALIVE": 5})
    table = app.extensions["quin.table"]
    opened = []
    stream = table.broker.stream

    def recording_stream(audience, last_event_id=None):
        opened.append((audience, last_event_id))
        return stream(audience, last_event_id)

    table.broker.stream = recording_stream
    with running(app, threads=16) as base:
        yield base, table, opened


def tap_lineup(page, clone, removed, lineup):
    """One hand on the phone: choose clone and removal, then tap a space and the piece for it."""
    page.bring_to_front()  # background tabs throttle animation frames, which clicks wait on
    page.select_option("#clone", clone)
    page.select_option("#removed", removed)
    for space, piece in lineup.items():
        page.click(f'#spaces button[data-space="{space}"]')
        page.click(f'#palette button[data-piece="{piece}"]')
    expect(page.locator("#bar-status")).to_have_text("Your lineup is complete.")
    page.click("#send-setup")


def tap(board, *spaces):
    board.bring_to_front()
    for s in spaces:
        board.click(f'circle.hit[data-space="{s}"]')


def test_a_short_game_in_the_browser_with_a_flash_and_a_reconnect(browser, served, artifacts):
    base, table, opened = served
    ctx = browser.new_context(viewport=PHONE)
    errors = []
    white = ctx.new_page()
    black = ctx.new_page()
    board = ctx.new_page()
    status = ctx.new_page()
    for page in (white, black, board, status):
        page.on("pageerror", lambda e: errors.append(str(e)))
    white.goto(f"{base}/seat/{table.tokens['white']}")
    black.goto(f"{base}/seat/{table.tokens['black']}")
    board.goto(f"{base}/board/{board_key(table.host_key)}")  # the host page's link: it moves towers
    status.goto(f"{base}/")
    expect(white.locator("#turn")).to_have_text("Choose your lineup")
    white.screenshot(path=str(artifacts / "seat-setup.png"))

    tap_lineup(white, "time", "artificial_light", WHITE)
    expect(white.locator("#bar-status")).to_contain_text("Black is still choosing")
    tap_lineup(black, "void", "time", BLACK)

    # Both lineups in: put the towers on the board.
    board.bring_to_front()
    board.click("#place-start")
    expect(white.locator("#turn")).to_have_text("Your move", timeout=10000)
    expect(black.locator("#turn")).to_have_text("White to move")
    # Each seat sees its own identities only.
    expect(white.locator('svg.board use.face')).to_have_count(10)
    expect(black.locator('svg.board use.face')).to_have_count(10)
    expect(status.locator('svg.board use.face')).to_have_count(0)

    def played(n):
        try:
            expect(status.locator("#log li")).to_have_count(n, timeout=10000)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nreferee: {table.ref.public_status()}") from None

    tap(board, "w38", "w31")  # White's Shadow: seven spaces in
    played(1)
    tap(board, "b18", "b17")
    played(2)
    tap(board, "w31", "b35")  # across the Iris
    played(3)

    # Black's phone sleeps: its stream is cut while White... no: while Black moves again.
    table.broker.disconnect("black")
    tap(board, "b17", "b16")
    played(4)
    expect(black.locator("#log li")).to_have_count(4, timeout=10000)
    resumed = [last for audience, last in opened if audience == "black" and last is not None]
    assert resumed, "the black seat reconnected without Last-Event-ID"

    # The flash: lift the Shadow, lift the Reflector it flashes, then put the Shadow down.
    tap(board, "b35", "b38")
    # Said once, from each side: the panel under the headline says it (a toast would only repeat it).
    expect(white.locator("#now h3")).to_have_text("Your Shadow captures Black's Reflector on b38", timeout=10000)
    expect(black.locator("#now h3")).to_have_text("White's Shadow captures your Reflector on b38", timeout=10000)
    for page in (white, black):
        assert body_text(page).count("captures") == 1
    white.screenshot(path=str(artifacts / "seat-white-flash.png"))
    black.screenshot(path=str(artifacts / "seat-black-flash.png"))
    tap(board, "b38")
    played(5)
    # Both flashed towers are revealed to both players; the Reflector sits on White's Zero Gravity.
    for page in (white, black, status):
        expect(page.locator('svg.board .tower.revealed[data-tower="b38"]')).to_have_count(1)
        expect(page.locator("#zg")).to_contain_text("Reflector")
    expect(black.locator('svg.board use.face')).to_have_count(10)  # Black's 9 + White's revealed Shadow
    status.screenshot(path=str(artifacts / "status.png"))
    board.screenshot(path=str(artifacts / "virtual-board.png"))
    assert [a.to_record() for _, _, a in table.game.log] == [
        {"type": "move", "from": "w38", "to": "w31"},
        {"type": "move", "from": "b18", "to": "b17"},
        {"type": "move", "from": "w31", "to": "b35"},
        {"type": "move", "from": "b17", "to": "b16"},
        {"type": "move", "from": "b35", "to": "b38"},
    ]
    assert errors == []
    ctx.close()
