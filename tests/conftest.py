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
