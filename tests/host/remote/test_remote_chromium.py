"""A whole remote game in each mode: a simulated board (the local player's phone and hands on the
sensors, tests/support/remote_board.py's harness) against a remote player on the hub's
/play page in real Chromium acting only by taps (tests/support/page_hands.py), through two real
hub processes on one PostgreSQL database: the board's link on one, the browser on the other.

The test chose both lineups (the board's player sends White's from the phone path, the remote
player enters Black's on the page by taps) and keeps its own engine game of the truth: the local
player's actions are seeded random among White's legal actions there (a flash, then a power, are
preferred while none was played yet, so each side's flash and power are sure to come up; the
seeds are chosen so), named on the phone and carried out by hand; the remote player taps what
the page offers (page_turn), and once it has flashed and used a power it rushes its Light to
First Sight, so a game ends in a bounded number of actions (MAX_ACTIONS is only a safety net: a
game that reaches it fails).  Each remote action is read from the page's own POST and pushed on
the test's game; the person at the board carries out the plan the board shows.

Checked: the hub's archived record (read from the browser's hub process) replays with the engine
to the test's game, and it is the record on both sides' streams; the board's store holds the
finished game; the page never draws a rival identity the board's own view does not show as
revealed; each side flashed at least once and used a power at least once.  The latency from the
remote tap to the plan in the board's public state (the status page's stream) is printed as JSON,
p50/p99 over the game's remote actions (measured, never asserted)."""

from __future__ import annotations

import json
import os
import random
import statistics
import time
import urllib.request

import pytest
from tests.support.hubproc import HubProcess
from tests.support.page_hands import STEP, check_privacy, page_turn, rush_light, seq_of, settled
from tests.support.player import RemotePlayer
from playwright.sync_api import expect
from tests.support.remote_board import Board, applied, carry_out, count, follow_the_board

from engine.actions import Move, Pass, action_from_record
from engine.game import Game
from engine.randplay import random_setup
from engine.record import load_record, replay, to_record

MAX_ACTIONS = 160   # a safety net: the remote player rushes its Light once it flashed and used a power

# the page notes each tap and each action it sends (wall clock, ms), for the latency
PROBE = """(() => {
  window.__taps = []; window.__posts = [];
  document.addEventListener('click', () => window.__taps.push(Date.now()), true);
  const f = window.fetch;
  window.fetch = function (url, opts) {
    if (String(url).endsWith('/action')) window.__posts.push(Date.now());
    return f.apply(this, arguments);
  };
})()"""


def is_flash(game: Game, action) -> bool:
    return game.board_effect(action).flash is not None


def is_power(action) -> bool:
    return type(action) not in (Move, Pass)


def local_choice(truth: Game, rng: random.Random, flashed: bool, powered: bool):
    """White's action: seeded random among its legal actions, a flash (then a power) first while
    none was played yet."""
    legal = truth.legal_actions()
    if not flashed:
        flashes = [a for a in legal if is_flash(truth, a)]
        if flashes and rng.random() < 0.7:
            return rng.choice(flashes)
    if not powered:
        powers = [a for a in legal if is_power(a)]
        if powers and rng.random() < 0.7:
            return rng.choice(powers)
    return rng.choice(legal)


def plans_after(frames, t):
    """The first plan of the rival in the board's public frames at or after wall time ``t``."""
    for at, frame in list(frames):
        if at < t:
            continue
        data = "\n".join(line[5:].lstrip() for line in frame.decode().split("\n") if line.startswith("data:"))
        state = json.loads(data).get("state") or {}
        if ((state.get("opponent") or {}).get("plan")):
            return at
    return None


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


def enter_lineup(page, setup):
    """Black's lineup, chosen by the test, entered by taps: clone, removed piece, then each space
    and its piece."""
    rec = setup.to_record()
    page.select_option("#clone", rec["clone"])
    page.select_option("#removed", rec["removed"])
    page.click("#clear-lineup")
    for space, piece in rec["lineup"].items():
        tile = page.locator(f'#spaces button[data-space="{space}"]')
        if tile.get_attribute("aria-pressed") != "true":
            tile.click()
        page.click(f'#palette button[data-piece="{piece}"]')
    got = dict(page.eval_on_selector_all("#spaces button[data-space]", "els => els.map(e => [e.dataset.space, e.dataset.piece])"))
    assert got == rec["lineup"], (got, rec["lineup"])
    page.click("#send-setup")


@pytest.fixture
def two_hubs(cluster):
    """Two `quin hub serve` processes on one fresh database."""
    dsn = cluster.new_database(f"chromium_{os.getpid()}_{time.monotonic_ns()}")
    args = ("--presence-renew", "0.5", "--presence-lapse", "3", "--remote-rate", "1000", "--join-rate", "100")
    hubs = []
    try:
        hubs.append(HubProcess(dsn, *args))
        hubs.append(HubProcess(dsn, *args))
        yield hubs
    finally:
        for h in hubs:
            h.stop()


def get_json(url):
    with urllib.request.urlopen(url, timeout=20) as r:
        return json.load(r)


# seeds whose games bring a flash and a power by each side, and end (checked below)
@pytest.mark.parametrize("mode,seed", [("classic", 1), ("third_eye", 2)])
def test_a_whole_game_board_against_chromium(tmp_path, two_hubs, browser, mode, seed):
    board_hub, page_hub = two_hubs
    rng = random.Random(seed)
    white, black = random_setup(rng, "white"), random_setup(rng, "black")
    first = rng.choice(["white", "black"])
    truth = Game(white, black, mode, False, first)
    local_rng, page_rng = random.Random(rng.random()), random.Random(rng.random())

    ann = Board(tmp_path, board_hub.url, side="white", mode=mode, first=first)
    frames = []  # (wall time, frame) of the board's public stream: what its status page receives
    sub = ann.service.broker.stream("public")
    sub.attach(lambda frame: frames.append((time.time(), frame)), lambda: None)
    errors, posted = [], []
    ctx = browser.new_context(viewport={"width": 412, "height": 915}, has_touch=True)
    ctx.add_init_script(PROBE)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: posted.append(json.loads(r.post_data)["action"])
            if r.method == "POST" and r.url.endswith("/action") else None)
    page.set_default_timeout(STEP)
    t_start = time.monotonic()
    try:
        # the friend opens the link on the other hub process and joins
        page.goto(f"{page_hub.url}/play/{ann.seat.link.shown}")
        page.fill("#join-form input[name=name]", "Bob")
        page.click("#join-this")
        expect(page.locator("#turn")).to_have_text("Choose your lineup")
        expect(page.locator("#side-pill")).to_have_text("Black")
        ann.until(lambda: ann.seat.link.state is not None and ann.seat.link.paused() is None, what="both present")
        ann.table.submit_setup("white", white.to_record())
        enter_lineup(page, black)
        ann.until(lambda: ann.table.phase == "playing" and ann.table.ref is not None, what="the game to start")
        ann.place_start()
        ann.until(lambda: ann.table.ref.phase == "play", what="the board set")

        used, log, latencies, posts_to_plan = set(), [], [], []
        checked = 0  # the page's towers compared with the board's view at the same seq
        by = {"white": {"flash": 0, "power": 0}, "black": {"flash": 0, "power": 0}}
        for i in range(MAX_ACTIONS):
            if truth.is_over():
                break
            mover = truth.to_move
            if mover == "white":
                ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == "white"
                         and getattr(ann.table.ref.state, "value", "") == "play", what=f"white's turn ({i})")
                link_state = ann.seat.link.state
                if seq_of(page) == link_state["seq"]:  # the page on the board's turn (after the rival's action)
                    check_privacy(page, link_state, "black")
                    checked += 1
                action = local_choice(truth, local_rng, by["white"]["flash"] > 0, by["white"]["power"] > 0)
                try:
                    carry_out(ann, truth, action)
                    if not is_flash(truth, action):
                        # the board reads it first: set to the referee's expected occupancy while it
                        # still waits for the hands (a Third Eye Time's pushed tower not yet seen
                        # placed), the board would lose what the player just placed
                        ann.until(lambda i=i: count(ann.seat.link.state["view"]) > i, what=f"the hub to have action {i}")
                    follow_the_board(ann)
                    ann.until(lambda i=i: count(ann.seat.link.state["view"]) > i, what=f"the hub to have action {i}")
                except AssertionError as e:
                    raise AssertionError(f"action {i}, white's {action.to_record()}: {e}") from None
                got = [a for t in ann.seat.link.state["view"]["history"] for a in t["actions"]][i]
                assert got == action.to_record(), f"action {i}: the board read {got}, the player did {action}"
            else:
                # the page has caught up with the game (the board's view at the same seq)
                link_state = ann.seat.link.state
                page.wait_for_function("(n) => Number(document.body.dataset.seq) >= n", arg=link_state["seq"])
                settled(page)
                expect(page.locator("#turn")).to_have_text("Your move")
                link_state = ann.seat.link.state
                if seq_of(page) == link_state["seq"]:
                    check_privacy(page, link_state, "black")
                    checked += 1
                n_posted = len(posted)
                page.evaluate("() => { window.__taps = []; window.__posts = []; }")
                if not (by["black"]["flash"] and by["black"]["power"] and rush_light(page, "black")):
                    page_turn(page, page_rng, used, log)
                assert len(posted) > n_posted, f"action {i}: the page sent nothing"
                action = action_from_record(posted[-1])
                assert truth.is_legal(action), (i, action)
                ann.until(lambda i=i: applied(ann) > i, what=f"the board to have action {i}")
                taps, posts = page.evaluate("() => [window.__taps, window.__posts]")
                follow_the_board(ann)
                t_post = posts[-1] / 1000
                t_tap = max(t for t in taps if t <= posts[-1]) / 1000
                t_plan = plans_after(frames, t_post - 0.002)  # Date.now() is whole ms
                if t_plan is not None:
                    latencies.append(t_plan - t_tap)
                    posts_to_plan.append(t_plan - t_post)
            if is_flash(truth, action):
                by[mover]["flash"] += 1
            if is_power(action):
                by[mover]["power"] += 1
            truth.push(action)
            assert ann.board.occupied == truth.occupied(), f"after action {i} ({mover} {action})"
        else:
            raise AssertionError(f"no end after {MAX_ACTIONS} actions: {by}")

        # the end, on both sides and in the hub's archive
        ann.until(lambda: ann.table.phase == "over", what="the game over at the board")
        ann.until(lambda: ann.seat.link.state["phase"] == "over", what="the hub's end")
        want = to_record(truth)
        assert ann.seat.link.state["record"] == want
        row = ann.table.row
        ann.until(lambda: ann.service.store.game(row.id).status == "over", what="the store's end")
        assert ann.service.store.record(row.id) == want
        # the page's own seat: its stream's record, and the end drawn with every identity open
        seat = json.loads(page.evaluate(
            f"() => localStorage.getItem('quin.remote.{ann.seat.link.code}')"))
        bob = RemotePlayer(page_hub.url)
        bob.code, bob.token = ann.seat.link.code, seat["token"]
        bob.listen()
        try:
            assert bob.wait(lambda s: s["phase"] == "over")["record"] == want
        finally:
            bob.close()
        expect(page.locator("#end")).to_be_visible()
        for side, setup in want["setup"].items():
            for space, piece in setup["lineup"].items():
                expect(page.locator(f'#lineups [data-lineup="{side}"] [data-space="{space}"]')).to_have_attribute("data-piece", piece)
        games = [g for g in get_json(page_hub.url + "/api/games?table=remote")["games"] if g["status"] == "over"]
        assert len(games) == 1, games
        archived = get_json(page_hub.url + games[0]["url"] + "/record")
        replayed = replay(load_record(archived))
        assert to_record(replayed) == want
        assert replayed.result.to_json() == truth.result.to_json() == ann.state()["view"]["result"]

        for side in ("white", "black"):
            assert by[side]["flash"] >= 1 and by[side]["power"] >= 1, by
        remote = sum(1 for _, p, _ in truth.log if p == "black")
        assert checked >= remote, (checked, remote)
        assert not errors, errors
        assert latencies, "no plan of the remote player's was seen on the board's public stream"
        ms = [x * 1000 for x in latencies]
        print(json.dumps({
            "mode": mode, "seed": seed, "actions": len(truth.log), "remote_actions": remote, "privacy_checks": checked,
            "by_side": by, "page_used": sorted(set(log)), "seconds": round(time.monotonic() - t_start, 1),
            "tap_to_plan_ms": {"n": len(ms), "p50": round(statistics.median(ms), 1), "p99": round(pct(ms, 99), 1),
                               "max": round(max(ms), 1)},
            "post_to_plan_ms": {"p50": round(statistics.median(posts_to_plan) * 1000, 1),
                                "p99": round(pct(posts_to_plan, 99) * 1000, 1)},
        }))
    finally:
        ctx.close()
        ann.stop()
