"""The remote-play page (/play, /play/<code>) in a real Chromium: a scripted remote player starts a
game and plays it WHOLE by tapping the page (it reads the page's marks and buttons to decide what
to tap, and acts only through clicks), against a scripted opponent speaking the hub's HTTP API.

Checked on the way: the page never shows a rival tower's face the opponent's own state does not
say was revealed (the opponent's view marks its revealed towers), its own towers always show
theirs; a reload mid-game resumes the same seat; the pause banner appears when the opponent's
stream closes and goes when it is back; the end shows both lineups open and a rematch starts a
new setup with the sides swapped."""

from __future__ import annotations

import http.client
import json
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import urlparse

from tests.support import hubproc
import pytest
from tests.support.page_hands import STEP, TO_FS, check_privacy, distances_to, lit, page_turn, seq_of, tap
from playwright.sync_api import expect

from engine.randplay import random_setup

MAX_ACTIONS = 400   # a bound on a game: the opponent rushes its Light, so games end long before


class Opponent:
    """The other side, speaking the hub's API directly: its state stream, its setup, its actions."""

    def __init__(self, base: str, rng: random.Random):
        self.base, self.rng = base, rng
        u = urlparse(base)
        self.host, self.port = u.hostname, u.port
        self.state = None
        self.flashed = False
        self.cond = threading.Condition()
        self.conn = None
        self.reader = None

    def post(self, path, body):
        req = urllib.request.Request(self.base + path, json.dumps(body).encode(),
                                     {"Content-Type": "application/json", "Authorization": "Bearer " + self.token})
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def join(self, code, name="Bob"):
        self.token = ""
        status, data = self.post(f"/api/remote/{code}/join", {"name": name, "kind": "board"})
        assert status == 200, data
        self.code, self.token, self.side = data["code"], data["token"], data["side"]
        self.open()

    def open(self):
        with self.cond:
            self.state = None  # only what the new stream says
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        conn.request("GET", f"/api/remote/{self.code}/stream?token={self.token}")
        resp = conn.getresponse()
        assert resp.status == 200, resp.read()
        self.conn = conn

        def read():
            data = []
            try:
                while True:
                    line = resp.fp.readline()
                    if not line:
                        return
                    line = line.decode().rstrip("\n")
                    if line.startswith("data:"):
                        data.append(line[5:].lstrip())
                    elif not line and data:
                        s = json.loads("\n".join(data))
                        data = []
                        with self.cond:
                            self.state = s
                            self.cond.notify_all()
            except (OSError, ValueError):
                return

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()

    def close(self):
        """The opponent's stream goes away (its tab closed, its line cut)."""
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()
        self.reader.join(10)

    def wait(self, pred, what, timeout=30):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not (self.state and pred(self.state)):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the opponent waited in vain for {what}; last state: {self.state and {k: self.state[k] for k in ('seq', 'phase', 'paused')}}")
                self.cond.wait(left)
            return self.state

    def setup(self):
        s = random_setup(self.rng, self.side)
        self.lineup = s.to_record()
        status, data = self.post(f"/api/remote/{self.code}/setup", {"setup": self.lineup})
        assert status == 200, data

    def choose(self, state):
        """After a few turns, rush the Light to First Sight (so a game ends soon); else anything legal."""
        legal = state["legal"]
        self.turns = getattr(self, "turns", 0) + 1
        mine = {t["space"]: t["piece"] for t in state["view"]["board"] if t["owner"] == self.side}
        rush = [a for a in legal if a["type"] == "move" and mine.get(a["from"]) == "light"
                and TO_FS[a["to"]] < TO_FS[a["from"]]]
        if rush and self.turns > 12:
            return min(rush, key=lambda a: TO_FS[a["to"]])
        if not self.flashed:
            # seek contact (so a flash comes up), with anything but the Light
            theirs = [t["space"] for t in state["view"]["board"] if t["owner"] != self.side]
            near = distances_to(theirs) if theirs else {}
            moves = [a for a in legal if a["type"] == "move" and mine.get(a["from"]) != "light"]
            if moves and near:
                return min(moves, key=lambda a: (near.get(a["to"], 99), self.rng.random()))
        ending = [a for a in legal if a["type"] in ("move", "reflect", "reinforce")]
        if ending:
            return self.rng.choice(ending)
        return self.rng.choice(legal)

    def flash_now(self, state):
        """A flash the opponent may make now (a move onto a rival tower), or None."""
        theirs = {t["space"] for t in state["view"]["board"] if t["owner"] != self.side}
        return next((a for a in state["legal"] if a["type"] == "move" and a["to"] in theirs), None)

    def reveal(self, state, action):
        """As a board does before its referee announces a flash: the hub answers both identities."""
        status, data = self.post(f"/api/remote/{self.code}/reveal", {"seq": state["seq"], "flash": [action]})
        assert status == 200, data
        return self.wait(lambda s: s["seq"] >= data["seq"], "the reveal on its own stream"), data

    def act(self, state, action=None):
        action = action or self.choose(state)
        status, data = self.post(f"/api/remote/{self.code}/action", {"seq": state["seq"], "action": action})
        assert status == 200, (data, state["seq"], action)
        self.wait(lambda s: s["seq"] >= data["seq"], f"seq {data['seq']} on its own stream")
        return data["seq"]


# the remote player's hands (only clicks on the page) are in page_hands.py


@pytest.fixture
def remote_hub(hubs):
    """A real `quin hub serve` process on its own fresh PostgreSQL database.  Its presence renewal
    is slow (30 s), so a seat's presence lost under an open stream comes back within the test's
    waits only by what the page does."""
    return hubs("--presence-renew", "30", "--presence-lapse", "90").url


def presence_rows(dsn, token):
    import hashlib

    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM remote_presence WHERE seat = %s",
                            (hashlib.sha256(token.encode()).hexdigest(),)).fetchone()[0]


def stale_seq(seq):
    """A route handler that sends the page's action at an older seq."""
    def handler(route):
        route.continue_(post_data=json.dumps(dict(json.loads(route.request.post_data), seq=seq)))
    return handler


def lose_presence(dsn, token):
    """What a late leave of an old stream does (its DELETE after the new stream's INSERT): the
    seat's presence row is gone while its stream is open.  The hub notices at its next poll."""
    import hashlib

    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        n = conn.execute("DELETE FROM remote_presence WHERE seat = %s",
                         (hashlib.sha256(token.encode()).hexdigest(),)).rowcount
    assert n >= 1


# seeds whose games reach every power the page composes (checked at the end of each game)
@pytest.mark.parametrize("mode,seed,powers", [
    ("classic", 4, {"flash", "lights", "reinforce", "resurrect", "time"}),
    ("third_eye", 3, {"flash", "gravity", "lights", "time"}),
])
def test_a_whole_game_by_tapping(remote_hub, db, browser, mode, seed, powers):
    rng = random.Random(seed)
    errors = []
    ctx = browser.new_context(viewport={"width": 412, "height": 915}, has_touch=True)  # a phone
    # the page's own random lineup, seeded: a failing game can be played again
    lcg = "(s = (s * 1103515245 + 12345) % 2147483648) / 2147483648"
    ctx.add_init_script(f"(() => {{ let s = {seed}; Math.random = () => {lcg}; }})()")
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(STEP)
    try:
        page.goto(remote_hub + "/play")
        page.fill("#new-game input[name=name]", "Ann")
        page.select_option("#new-game select[name=mode]", mode)
        page.select_option("#new-game select[name=side]", "white")
        page.select_option("#new-game select[name=first]", "white" if seed % 2 else "black")
        page.click("#create")
        page.wait_for_url("**/play/*-*")
        code = page.url.rsplit("/", 1)[1]
        expect(page.locator("#share-code")).to_have_text(code)
        expect(page.locator("#turn")).to_have_text("Waiting for your friend to join")

        opp = Opponent(remote_hub, rng)
        opp.join(code)
        assert opp.side == "black"
        expect(page.locator("#turn")).to_have_text("Choose your lineup")
        expect(page.locator("#names")).to_contain_text("Bob")
        # the lineup: a tap on a space that is not a starting space is refused in one line
        tap(page, "w37")
        expect(page.locator("#setup-error")).to_contain_text("w37 is not one of your starting spaces")
        page.click("#random-lineup")
        expect(page.locator("#spaces button.empty")).to_have_count(0)
        # the editor: empty a space, put a piece back on it
        page.click('#spaces button[data-space="w18"]')
        piece = page.get_attribute('#spaces button[data-space="w18"]', "data-piece")
        page.click('#palette button[data-piece=""]')
        expect(page.locator("#send-setup")).to_be_disabled()
        page.click(f'#palette button[data-piece="{piece}"]')
        expect(page.locator("#send-setup")).to_be_enabled()
        page.click("#send-setup")
        expect(page.locator("#turn")).to_have_text("Waiting for Bob's lineup")
        opp.setup()
        opp.wait(lambda s: s["phase"] == "playing", "play")

        used, log = set(), []
        reloaded = paused = revealed = stale = healed = zoomed = locked = False
        for n in range(MAX_ACTIONS):
            s = opp.wait(lambda s: s["phase"] in ("playing", "over"), "play")
            page.wait_for_function("(n) => Number(document.body.dataset.seq) >= n", arg=s["seq"])
            s = opp.state
            if s["phase"] == "over" and seq_of(page) == s["seq"]:
                break
            if seq_of(page) != s["seq"]:
                continue
            check_privacy(page, s, "white")
            if s["view"]["to_move"] == "white":
                if n >= 3 and not reloaded:
                    # a reload mid-game: the seat is kept on this device, the game resumes
                    reloaded = True
                    page.reload()
                    page.wait_for_function("(n) => Number(document.body.dataset.seq) === n", arg=s["seq"])
                    # (the old stream's leave may clear the seat's presence just after the new stream
                    # set it: the page, told it is away while its stream is open, opens another)
                    expect(page.locator("#turn")).to_have_text("Your move")
                    expect(page.locator("#side-pill")).to_have_text("White")
                if n >= 4 and not healed:
                    # the hub counts the page away although its stream is open: the game pauses for
                    # the opponent, and the page, seeing itself away, opens a stream that says it is here
                    healed = True
                    seat = json.loads(page.evaluate(f"() => localStorage.getItem('quin.remote.{code.replace('-', '')}')"))
                    lose_presence(db[0], seat["token"])
                    opp.wait(lambda x: x["paused"] and "Ann" in x["paused"], "the page to look away", timeout=20)
                    opp.wait(lambda x: not x["paused"], "the page to be back", timeout=20)
                    expect(page.locator("#paused")).to_be_hidden()
                if n >= 5 and not stale:
                    # the hub refuses a tap sent at a stale seq (409): one line, and the page takes
                    # the newest state from the stream; the next tap is played
                    stale = True
                    page.route("**/action", stale_seq(s["seq"] - 1))
                    frm = page.get_attribute("#board", "data-sources").split()[0]
                    tap(page, frm)
                    tap(page, lit(page)[0])
                    expect(page.locator("#act-error")).to_contain_text("is stale")
                    page.unroute("**/action")
                    expect(page.locator("#conn")).to_have_text("live")
                    assert seq_of(page) == s["seq"]
                if n >= 6 and not locked:
                    # the opponent drops just as the page sends its tap: the hub answers 423, the
                    # page says so in one line and shows the pause from its stream; it resumes
                    locked = True

                    def drop_then_send(route):
                        opp.close()
                        hubproc.wait_for(lambda: presence_rows(db[0], opp.token) == 0, "the opponent away")
                        route.continue_()

                    page.route("**/action", drop_then_send)
                    frm = page.get_attribute("#board", "data-sources").split()[0]
                    tap(page, frm)
                    tap(page, lit(page)[0])
                    expect(page.locator("#act-error")).to_contain_text("Bob's board is away")
                    page.unroute("**/action")
                    expect(page.locator("#paused")).to_be_visible()
                    assert seq_of(page) == s["seq"]  # nothing was played
                    opp.open()
                    expect(page.locator("#paused")).to_be_hidden()
                    opp.wait(lambda x: not x["paused"], "the game to resume")
                if n >= 8 and not zoomed:
                    # a close look (a phone): the rest of the game is played zoomed in, the view
                    # following the spaces that matter
                    zoomed = True
                    page.click("#zoom")
                    expect(page.locator("#zoom")).to_have_attribute("aria-pressed", "true")
                    assert page.get_attribute("#board", "viewBox").split()[2] != "1000.0"
                page_turn(page, rng, used, log)
            else:
                if n >= 4 and not paused:
                    # the opponent's stream closes: the game pauses for both, and resumes
                    paused = True
                    opp.close()
                    expect(page.locator("#paused")).to_be_visible()
                    expect(page.locator("#paused")).to_contain_text("Bob's board is away")
                    expect(page.locator("#powers")).to_be_hidden()
                    opp.open()
                    expect(page.locator("#paused")).to_be_hidden()
                    opp.wait(lambda x: not x["paused"], "the game to resume")
                    continue
                flash = opp.flash_now(s) if not revealed else None
                if flash:
                    # a board's flash, announced before it is carried out: the page says so at once,
                    # with both faces the hub revealed, and its board shows no face until it is played
                    revealed = opp.flashed = True
                    s, answer = opp.reveal(s, flash)
                    page.wait_for_function("(n) => Number(document.body.dataset.seq) >= n", arg=s["seq"])
                    expect(page.locator("#reveal")).to_be_visible()
                    expect(page.locator("#reveal")).to_contain_text("flashes your")
                    for space in answer["pieces"]:
                        expect(page.locator("#reveal")).to_contain_text(f"on {space}")
                    check_privacy(page, s, "white")
                    opp.act(s, flash)
                    expect(page.locator("#reveal")).to_be_hidden()
                    expect(page.locator("#news")).to_contain_text("Flash!")
                    continue
                opp.act(s)
        else:
            raise AssertionError(f"no end after {MAX_ACTIONS} actions")
        assert reloaded and paused and revealed and stale and healed and locked, (reloaded, paused, revealed, stale, healed, locked, len(log))
        assert powers <= set(log), (powers - set(log), log)  # every power this game offered was played by taps

        # the end: every identity open, the record, a rematch
        final = opp.state
        expect(page.locator("#end")).to_be_visible()
        assert final["record"] is not None
        for side, setup in final["record"]["setup"].items():
            for space, piece in setup["lineup"].items():
                expect(page.locator(f'#lineups [data-lineup="{side}"] [data-space="{space}"]')).to_have_attribute("data-piece", piece)
        assert final["record"]["setup"]["black"] == opp.lineup
        expect(page.locator("#record-moves li")).to_have_count(len(final["record"]["turns"]))
        page.click("#rematch")
        expect(page.locator("#rematch-status")).to_contain_text("waiting for Bob")
        status, _ = opp.post(f"/api/remote/{code.replace('-', '')}/rematch", {})
        assert status == 200
        expect(page.locator("#turn")).to_have_text("Choose your lineup")
        expect(page.locator("#side-pill")).to_have_text("Black")  # sides swapped, same seat
        expect(page.locator("#spaces button").first).to_have_attribute("data-space", "b18")
        assert not errors, errors
        print(f"{mode}: {len(final['record']['turns'])} turns, the page used {sorted(set(log))}")
    finally:
        ctx.close()


def test_join_by_code_and_link_and_the_hubs_refusals(remote_hub, db, browser):
    """Ann starts a game; Bob joins from the code on /play, a third device is refused in one line;
    a lineup chosen while waiting and changed before play; an unknown code is said."""
    errors = []
    ctxs = [browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True) for _ in range(3)]
    ann, bob, eve = (c.new_page() for c in ctxs)
    for p in (ann, bob, eve):
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.set_default_timeout(STEP)
    try:
        ann.goto(remote_hub + "/play")
        ann.fill("#new-game input[name=name]", "Ann")
        ann.select_option("#new-game select[name=side]", "random")
        ann.click("#create")
        ann.wait_for_url("**/play/*-*")
        code = ann.url.rsplit("/", 1)[1]
        # the lineup may be chosen while waiting for the friend
        expect(ann.locator("#turn")).to_have_text("Waiting for your friend to join")
        ann.click("#random-lineup")
        ann.click("#send-setup")
        expect(ann.locator("#change-setup")).to_be_visible()

        bob.goto(remote_hub + "/play")
        bob.fill("#join-code input[name=code]", "K7M")
        bob.fill("#join-code input[name=name]", "Bob")
        bob.click("#join-go")
        expect(bob.locator("#join-code-error")).to_contain_text("6 characters")
        bob.fill("#join-code input[name=code]", "222-222")
        bob.click("#join-go")
        expect(bob.locator("#join-code-error")).to_contain_text("no game")  # the hub's one line
        bob.fill("#join-code input[name=code]", code.lower())  # any case, dash or not
        bob.fill("#join-code input[name=player]", "qp_00000000")
        bob.click("#join-go")
        expect(bob.locator("#join-code-error")).to_contain_text("player: the hub does not know qp_00000000")
        from tests.support.hubproc import quin
        known = quin("hub", "add-player", "Bob", "--db", db[0]).stdout.strip()
        bob.fill("#join-code input[name=player]", known)
        bob.click("#join-go")
        bob.wait_for_url("**/play/" + code)
        expect(bob.locator("#turn")).to_have_text("Choose your lineup")
        sides = {ann.inner_text("#side-pill").strip(), bob.inner_text("#side-pill").strip()}
        assert sides == {"White", "Black"}, sides
        expect(ann.locator("#turn")).to_have_text("Waiting for Bob's lineup")

        # a third device with the link: the form to join, and the hub's refusal in one line
        eve.goto(f"{remote_hub}/play/{code}")
        eve.fill("#join-form input[name=name]", "Eve")
        eve.click("#join-this")
        expect(eve.locator("#join-error")).to_contain_text("taken")

        # a seat this device kept that the hub does not know (a stale token), or a game that is gone
        eve.evaluate(f"() => localStorage.setItem('quin.remote.{code.replace('-', '')}', JSON.stringify({{token: 'qs_' + 'x'.repeat(32), side: 'white'}}))")
        eve.goto(f"{remote_hub}/play/{code}")
        expect(eve.locator("#turn")).to_contain_text("not known to the hub")
        expect(eve.locator("#conn")).to_have_text("stopped")
        assert eve.evaluate(f"() => localStorage.getItem('quin.remote.{code.replace('-', '')}')") is None
        eve.evaluate("() => localStorage.setItem('quin.remote.222222', JSON.stringify({token: 'qs_' + 'x'.repeat(32), side: 'white'}))")
        eve.goto(f"{remote_hub}/play/222-222")
        expect(eve.locator("#turn")).to_contain_text("no game")

        # Ann changes her lineup before play starts; then both are in and play starts
        ann.click("#change-setup")
        ann.select_option("#clone", "void")
        ann.select_option("#removed", "reflector")
        ann.click("#clear-lineup")
        for _ in range(10):
            ann.click('#palette button[data-piece]:not([data-piece=""]):enabled >> nth=0')
        sent = dict(ann.eval_on_selector_all("#spaces button[data-space]", "els => els.map(e => [e.dataset.space, e.dataset.piece])"))
        assert all(sent.values()) and len(sent) == 10, sent
        ann.click("#send-setup")
        expect(ann.locator("#setup")).to_be_hidden()
        bob.click("#random-lineup")
        bob.click("#send-setup")
        for p in (ann, bob):
            expect(p.locator("#log-card")).to_be_visible()
        first = ann if ann.inner_text("#turn") == "Your move" else bob
        expect(first.locator("#turn")).to_have_text("Your move")
        # Ann's changed lineup is the one in play
        me = ann.inner_text("#side-pill").strip().lower()
        mine = dict(ann.eval_on_selector_all(f"#board g.tower.{me}", """els => els.map(e =>
            [e.getAttribute('data-tower'), e.querySelector('use.face').getAttribute('data-piece')])"""))
        assert mine == sent, (mine, sent)
        assert not errors, errors
    finally:
        for c in ctxs:
            c.close()
