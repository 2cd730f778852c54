"""Browser tests: the real server (waitress) and the system Chromium driven by Playwright."""

import pytest

from tests.support.browsing import ARTIFACTS, PHONE, ROOT, TV


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


class Table:
    """A live server with the status page, both seats and the virtual board open, each in its own
    browser context (its own phone or screen: separate storage, separate connections)."""

    def __init__(self, browser, base, table):
        from tests.support.scripted import Hands

        from host.web.sim import board_key

        self.browser = browser
        self.base = base
        self.table = table
        self.hands = Hands(base, table.tokens, board_key(table.host_key))
        self.errors: list[str] = []
        self.contexts = []
        self.status = self.open("/", TV)
        self.white = self.open(f"/seat/{table.tokens['white']}", PHONE)
        self.black = self.open(f"/seat/{table.tokens['black']}", PHONE)
        self.board = self.open(f"/board/{board_key(table.host_key)}", TV)

    def open(self, path, viewport):
        ctx = self.browser.new_context(viewport=viewport)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(f"{path}: {e}"))
        page.goto(self.base + path)
        return page

    @property
    def pages(self):
        return {"status": self.status, "white": self.white, "black": self.black, "board": self.board}

    def close(self):
        for ctx in self.contexts:
            ctx.close()


def served(browser, tmp_path, **config):
    """A live server (``create_app`` with ``config`` besides the defaults here) and its pages open:
    yields the :class:`Table`; a fixture yields from it."""
    from host.compose import create_app
    from tests.support.webtools import running

    app = create_app({"DATA_DIR": str(tmp_path), "KEEPALIVE": 5, **config})
    with running(app, threads=24) as base:
        t = Table(browser, base, app.extensions["quin.table"])
        try:
            yield t
        finally:
            t.close()


@pytest.fixture
def live(browser, tmp_path):
    yield from served(browser, tmp_path)
