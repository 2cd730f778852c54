"""Every page at every moment of a game, on a phone and on a TV: screenshots (artifacts/screens/) and
axe-core run in the real browser, with no serious or critical violation allowed anywhere."""

import json

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.support.browsing import PHONE, TV
from tests.support.scripted import BLACK, WHITE, to_the_end, wait_for

SIZES = {"phone": PHONE, "tv": TV}
BAD = ("serious", "critical")


@pytest.fixture(scope="module")
def axe():
    return Axe()


class Checks:
    def __init__(self, live, axe, folder):
        self.live = live
        self.axe = axe
        self.folder = folder
        self.found: list[dict] = []
        self.shots = 0

    def look(self, moment: str, pages: dict | None = None) -> None:
        """Screenshots at both sizes and an axe run of every page, as it stands now."""
        pages = pages or self.live.pages
        for name, page in pages.items():
            natural = page.viewport_size
            for size_name, size in SIZES.items():
                page.set_viewport_size(size)
                page.wait_for_timeout(150)  # one layout after the resize
                page.screenshot(path=str(self.folder / f"{moment}-{name}-{size_name}.png"))
                self.shots += 1
                result = self.axe.run(page)
                for v in result.response["violations"]:
                    self.found.append({"moment": moment, "page": name, "size": size_name, "id": v["id"],
                                       "impact": v["impact"], "help": v["help"],
                                       "nodes": [n["target"] for n in v["nodes"]][:5]})
            page.set_viewport_size(natural)


def test_screens_and_accessibility_through_a_whole_game(live, axe, artifacts):
    folder = artifacts / "screens"
    folder.mkdir(exist_ok=True)
    checks = Checks(live, axe, folder)
    hands = live.hands
    for page in live.pages.values():
        expect(page.locator("#conn")).to_have_text("live", timeout=10000)
    live.white.click('#spaces button[data-space="w28"]')
    live.white.select_option("#clone", "time")
    live.white.click('#palette button[data-piece="shadow"]')
    checks.look("1-setup")

    def at_time():
        expect(live.status.locator("#turn")).to_have_text("White's Power of Time", timeout=10000)
        checks.look("3-time-rewind")

    hands.setup("white", WHITE)
    hands.setup("black", BLACK)
    hands.start()
    hands.move("w38", "w31")
    hands.move("b18", "b17")
    expect(live.white.locator("#turn")).to_have_text("Your move", timeout=10000)
    checks.look("2-mid-game")
    status, body = hands.declare("white", {"type": "time"})
    assert status == 200, body
    wait_for(lambda: (hands.state()["referee"] or {}).get("time"), "the Time announcement")
    at_time()
    hands.finish("w28", "b17", "b18")
    hands.move("w31", "b35")
    hands.move("b18", "b17")
    checks.look("3b-after-rewind", {"status": live.status})
    hands.flash("b35", "b38")
    expect(live.status.locator("#turn")).to_have_text("Flash on b38", timeout=10000)
    checks.look("4-flash")
    to_the_end(hands)
    expect(live.status.locator("#turn")).to_have_text("White wins: Black's Light is captured", timeout=10000)
    live.status.wait_for_timeout(300)
    checks.look("5-game-over")

    # The other pages: host, history, the replay viewer, an error page.
    others = {
        "host": live.open(f"/host/{live.table.host_key}", TV),
        "history": live.open("/history", TV),
        "replay": live.open("/history/1", TV),
        "error": live.open("/history/99", TV),
    }
    expect(others["replay"].locator("#step-label")).to_have_text("Start")
    others["replay"].click("#last")
    checks.look("6-other", others)

    (artifacts / "axe.json").write_text(json.dumps(checks.found, indent=1))
    bad = [f for f in checks.found if f["impact"] in BAD]
    assert bad == [], json.dumps(bad, indent=1)
    assert checks.shots >= 40
    assert live.errors == []
