"""What the browser tests share besides fixtures: where things are, the two viewports, what a person reads.

A module of its own (not conftest): several conftest.py files are on the path during a run, and
``from conftest import ...`` got whichever of them was imported last."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts"
PHONE = {"width": 390, "height": 844}
TV = {"width": 1280, "height": 800}


def body_text(page) -> str:
    """What a person reads on the page."""
    return page.evaluate("document.body.innerText")
