"""At every step the mover's phone, the rival's phone, the status page and the virtual board show the same
next thing to do (issue 17, item 4), over random games of both modes.

The games are played through the web API by hands that move one tower at a time (tests/support/webplay's
driver, its board changes split into single lifts and placements, each given time to settle), so the
referee waits for the board in every way a game makes it: the lineups, flashes, the Power of Time with
one or two Time towers, Third Eye pushes.  After each change the projection each screen receives (the
public state for the status page and the virtual board, each seat's state for its phone) is kept; the
screens' own instruction function, ``Quin.needs`` in host/web/static/quin.js, then runs on all of them in
real Chromium.  Whenever the referee waits for the board (its setup, a flash, a Time), every screen must
show an instruction, all must name the same steps (the mover's phone alone may say where its Time towers
stand), and the virtual board's marks, the sensed board against what the referee expects, must ask for
nothing the instructions do not (never the undoing of a rewind in progress).

Flashes are made as a newcomer makes them (issue 29): the mover lifts their own tower first and holds it,
longer than the referee's ``hold`` window, before lifting the rival's.  Held alone, the lifted tower fits
nothing, and the mover's phone alone is told to put it back; once the rival's tower is lifted the flash is
announced, and from then on the mover's phone says the flash's steps and nothing more (it once kept the
stale "Put it right: put your tower back on ..." under the flash's own line).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from engine.board import PLAYERS, other
from engine.game import Game
from engine.actions import Move, Reflect
from engine.pieces import TIME
from engine.randplay import random_game
from host.referee import Phase
from host.compose import create_app
from tests.support.webplay import Driver  # tests/support, on the path from conftest
from tests.support.webtools import with_quin_js

#: (mode, seed, actions): random games cut short, chosen so that between them each mode has flashes and
#: a Power of Time used with two of the mover's Time towers on the board
GAMES = [("classic", 9, 25), ("classic", 29, 47), ("classic", 31, 35), ("classic", 55, 20),
         ("third_eye", 29, 25), ("third_eye", 10, 20), ("third_eye", 46, 32), ("third_eye", 35, 15)]
WAITING = (Phase.SETUP, Phase.SYNC, Phase.FLASH, Phase.TIME)


class OneAtATime(Driver):
    """Hands that lift or place one tower at a time, in a random order (lifts before placements, as a
    tower is lifted before it is put down), keeping what every screen would receive after each."""

    def __init__(self, client, table, rng):
        super().__init__(client, table)
        self.rng = rng
        self.seen: list[dict] = []
        self.occupied: frozenset[int] = frozenset()
        self.hesitate: int | None = None  # a flash's own tower: lifted first and held a while
        self.held = 0  # flashes whose tower was held so long that the mover was told to put it back

    def play(self, action) -> None:
        game = self.table.game
        flash = isinstance(action, (Move, Reflect)) and game.tower_at(action.to) is not None
        self.hesitate = action.frm if flash else None
        try:
            super().play(action)
        finally:
            self.hesitate = None

    def board(self, occupied) -> None:
        target = frozenset(occupied)
        off = sorted(self.occupied - target)
        on = sorted(target - self.occupied)
        self.rng.shuffle(off)
        self.rng.shuffle(on)
        if self.hesitate in off and len(off) > 1:
            off.remove(self.hesitate)
            off.insert(0, self.hesitate)
        now = set(self.occupied)
        for s, put in [(s, False) for s in off] + [(s, True) for s in on]:
            (now.add if put else now.discard)(s)
            super().board(frozenset(now))
            self.occupied = frozenset(now)
            self.wait(0.3)
            self.keep()
            if s == self.hesitate and not put and len(off) > 1:
                # A newcomer holds their tower while they find the rival's: past the referee's hold.
                self.wait(self.table.ref.hold + 0.5)
                self.keep()
                self.held += bool(self.seen[-1]["private"])

    def keep(self) -> None:
        table = self.table
        ref = table.ref
        if ref is None or table.game is None:
            return
        mover = table.game.to_move
        self.seen.append({
            "waiting": ref.state in WAITING,
            "phase": ref.state.value,
            "time_towers": _time_towers(table.game) if ref.state is Phase.TIME else 0,
            "mover": mover,
            "private": bool(ref.private_status(mover)["instructions"]),
            "public": json.loads(json.dumps(table.state(None))),
            "seats": {p: json.loads(json.dumps(table.state(p))) for p in PLAYERS},
        })


def _time_towers(game: Game) -> int:
    me = game.to_move
    return sum(1 for t in game.state.board if t >= 0 and game.owner[t] == me and game.piece[t] == TIME)


def play_game(tmp_path: Path, mode: str, seed: int, actions: int) -> list[dict]:
    played = random_game(seed, mode, actions)
    app = create_app({"DATA_DIR": str(tmp_path / f"{mode}-{seed}"), "TICK": 0, "MANUAL_CLOCK": True,
                      "MODE": mode, "FIRST": played.first})
    table = app.extensions["quin.table"]
    driver = OneAtATime(app.test_client(), table, random.Random(seed))
    driver.setup(played.setups["white"], played.setups["black"])
    for _, _, action in played.log:
        if table.game.is_over():
            break
        driver.play(action)
    return driver.seen, driver.held


JS = """(cases) => cases.map((c) => {
  const one = (state, viewer) => {
    const n = Quin.needs(state, viewer, false);
    // The headline, said from the public's side ("Your Power of Time" on White's phone is White's).
    const head = Quin.headline(state, viewer).replace(/^Your /, viewer ? Quin.cap(viewer) + "'s " : "Your ");
    return { title: n.title || "", lines: n.lines, steps: n.steps, head };
  };
  const b = c.public.board || {};
  return {
    status: one(c.public, null),
    board: Object.assign(one(c.public, null), { lift: b.lift || [], place: b.place || [] }),
    mover: one(c.seats[c.mover], c.mover),
    rival: one(c.seats[c.rival], c.rival),
  };
})"""


def test_every_screen_shows_the_same_next_step_whenever_the_referee_waits_for_the_board(browser, tmp_path):
    cases = []
    held = 0
    for mode, seed, actions in GAMES:
        seen, flashes_held = play_game(tmp_path, mode, seed, actions)
        held += flashes_held
        for moment in seen:
            moment["rival"] = other(moment["mover"])
            moment["game"] = f"{mode} {seed}"
            cases.append(moment)
    shown = with_quin_js(browser, JS, cases)

    waited = {"setup": 0, "flash": 0, "time": 0, "two time towers": 0, "third eye": 0}
    private = 0
    for c, s in zip(cases, shown):
        where = f"{c['game']}, turn {c['public']['view']['turn'] if c['public']['view'] else 0}, {c['phase']}"
        if c["private"] and not c["waiting"]:
            private += 1  # a board that fits nothing (a flash's tower held alone) is told to the mover alone
            continue
        if not c["waiting"]:
            # Nothing to carry out: no screen invents an instruction.
            for name in ("status", "board", "mover", "rival"):
                assert s[name]["steps"] == [], (where, name, s[name])
            continue
        waited[{"setup": "setup", "sync": "setup", "flash": "flash", "time": "time"}[c["phase"]]] += 1
        if c["time_towers"] > 1:
            waited["two time towers"] += 1
        if c["phase"] in ("flash", "time") and c["public"]["mode"] == "third_eye":
            waited["third eye"] += 1
        for name in ("status", "board", "mover", "rival"):
            assert s[name]["lines"], (where, name, s[name])  # an instruction, on every screen
        assert s["status"]["steps"] == s["board"]["steps"] == s["rival"]["steps"] == s["mover"]["steps"], (where, s)
        assert s["status"]["head"] == s["board"]["head"] == s["rival"]["head"] == s["mover"]["head"], (where, s)
        steps = s["status"]["steps"]
        # The virtual board's marks ask only for what the instructions say.
        asked_off = {w.split()[1] for w in steps if w.startswith(("move ", "clear "))} - {"one"}
        asked_on = {w.split()[-1] for w in steps if w.startswith(("move ", "fill "))}
        assert set(s["board"]["lift"]) <= asked_off, (where, s["board"], steps)
        assert set(s["board"]["place"]) <= asked_on, (where, s["board"], steps)
        if c["phase"] == "time" and c["time_towers"] > 1 and "clear one time" in steps:
            # Where the Time towers stand: on the mover's phone, never elsewhere.
            towers = c["seats"][c["mover"]]["seat"]["private"]["time_towers"]
            assert len(towers) > 1 and all(t in " ".join(s["mover"]["lines"]) for t in towers), (where, s["mover"])
            for name in ("status", "board", "rival"):
                assert not any(t in " ".join(s[name]["lines"]) for t in towers), (where, name, s[name])
    assert all(waited.values()), waited
    # Every held tower was said to its mover alone, and nothing else was: the driver follows the game.
    assert private == held > 0, (held, private)
