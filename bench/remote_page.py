"""The remote-play page (/play) on loopback: from an action to the new state drawn in the browser.
Prints JSON.

    nice python bench/remote_page.py [--games 2] [--mode classic] [--cap 120]

One real ``quin hub serve`` process on a throwaway PostgreSQL, a real Chromium (Debian's) on the
page as White, and an opponent on the HTTP API as Black with its own raw state stream (the peer:
the same state, read by a few lines of Python instead of drawn by the page).  For each of the
opponent's actions: ``raw`` (POST to the new state on the opponent's own stream) and ``page``
(POST to that state drawn by the page, the page's clock read after drawing; same machine).  For
each of the page's taps: ``tap`` (the click on a lit space to the state after it drawn).  The page
taps random lit spaces; the opponent plays random legal actions.  Medians and 99th percentiles in
milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.hubproc import HubProcess
from tests.support.pg import Cluster
from tests.support.remote_client import join

from engine.randplay import random_setup

FAST = ("--remote-rate", "1000", "--join-rate", "100")
CHROMIUM = "/usr/bin/chromium"


def _pct(values, q):
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 1) if values else None


def drawn(page, seq):
    page.wait_for_function("(n) => window.QUIN_DRAWN && window.QUIN_DRAWN[n]", arg=seq, timeout=30_000)
    return page.evaluate("(n) => window.QUIN_DRAWN[n]", seq)


def one_game(browser, base, mode, seed, cap, got):
    rng = random.Random(seed)
    ctx = browser.new_context(viewport={"width": 412, "height": 915})
    page = ctx.new_page()
    page.goto(base + "/play")
    page.fill("#new-game input[name=name]", "Ann")
    page.select_option("#new-game select[name=mode]", mode)
    page.select_option("#new-game select[name=side]", "white")
    page.click("#create")
    page.wait_for_url("**/play/*-*")
    code = page.url.rsplit("/", 1)[1].replace("-", "")
    opp = join(base, code, kind="board")
    stream = opp.stream()
    page.click("#random-lineup")
    page.click("#send-setup")
    status, answer = opp.post("setup", {"setup": random_setup(rng, "black").to_record()})
    assert status == 200, answer
    state = stream.wait(lambda x: x["phase"] == "playing", "play")
    for _ in range(cap):
        seq = state["seq"]
        drawn(page, seq)
        if state["phase"] == "over":
            break
        if state["view"]["to_move"] == "black":
            action = rng.choice(state["legal"])
            t0, w0 = time.monotonic(), time.time()
            status, done = opp.post("action", {"seq": seq, "action": action})
            assert status == 200, done
            state = stream.wait(lambda x, q=done["seq"]: x["seq"] >= q)
            with stream.cond:
                i = next(i for i, st in enumerate(stream.states) if st["seq"] >= done["seq"])
                got["raw"].append((stream.times[i] - t0) * 1000)
            got["page"].append(drawn(page, done["seq"]) - w0 * 1000)
        else:
            page.wait_for_selector("body:not([aria-busy])")
            sources = (page.get_attribute("#board", "data-sources") or "").split()
            if not sources:  # no tower can act: a pass, else this game ends here
                if not page.locator('#powers button[data-power="pass"]').count():
                    break
                page.click('#powers button[data-power="pass"]')
                state = stream.wait(lambda x, q=seq: x["seq"] > q)
                continue
            page.click(f'#board circle.hit[data-space="{rng.choice(sources)}"]')
            lit = page.eval_on_selector_all("#board circle.mark-dest, #board circle.mark-flash, #board circle.mark-swap,"
                                            " #board circle.mark-reflect", "els => els.map(e => e.dataset.mark)")
            w0 = time.time()
            page.click(f'#board circle.hit[data-space="{rng.choice(lit)}"]')
            if page.locator("#compose button[data-choice]").count():
                page.click("#compose button[data-choice]")
            state = stream.wait(lambda x, q=seq: x["seq"] > q)
            got["tap"].append(drawn(page, state["seq"]) - w0 * 1000)
    stream.close()
    ctx.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--mode", default="classic", choices=("classic", "third_eye"))
    ap.add_argument("--cap", type=int, default=120, help="states per game at most")
    args = ap.parse_args()
    cluster = Cluster()
    dsn = cluster.new_database("bench_remote_page")
    hub = HubProcess(dsn, *FAST)
    out = {"mode": args.mode, "games": args.games, "load_before": os.getloadavg()[0]}
    got = {"raw": [], "page": [], "tap": []}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for g in range(args.games):
                one_game(browser, hub.url, args.mode, 200 + g, args.cap, got)
            browser.close()
        for kind, v in got.items():
            out[kind] = {"n": len(v), "p50_ms": _pct(v, 0.5), "p99_ms": _pct(v, 0.99)}
        out["load_after"] = os.getloadavg()[0]
    finally:
        hub.stop()
        cluster.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
