import os

import pytest

# No test announces anything on this machine's network: a `quin serve` a test starts on every
# interface stays off mDNS (tests/host/system/test_mdns.py turns it on inside a network namespace).
os.environ["QUIN_MDNS"] = "off"


CHROMIUM = "/usr/bin/chromium"  # Debian's (tools/test.sh installs it); Playwright's own download is not used


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole run: Playwright's sync API runs one instance per thread, so the
    browser tests and the hub's page tests share it (a second sync_playwright() inside the first fails)."""
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: run tools/test.sh (it installs Debian's chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


# The longest files first (measured one process, quiet machine): tools/lanes.sh hands whole files to
# worker processes, and a long file handed out last would leave the others idle at the end.
FIRST = (
    "tests/browser/test_game_night.py", "tests/browser/test_seat.py", "tests/host/referee/test_referee_games.py",
    "tests/browser/test_status.py", "tests/host/referee/test_referee_hands.py", "tests/browser/test_screens.py",
    "tests/host/hub/test_remote_page.py", "tests/browser/test_instructions_agree.py",
    "tests/host/hub/test_remote_games.py", "tests/host/remote/test_remote_chromium.py",
    "tests/host/remote/test_remote_story.py", "tests/host/test_privacy_probe.py", "tests/engine/test_legal_view.py",
    "tests/host/hub/test_hub_players.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(FIRST)))  # stable: the rest keep their order
