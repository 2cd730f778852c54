"""Every board-side screen tells one true story of a remote game (issue 28, item 1), as issue 17's
test did for one table (tests/browser/test_instructions_agree.py), over random remote games of both
modes through a real hub on PostgreSQL.

This board's side is the service on the simulated board, its player's phone and hands
(tests/support/remote_board.py); the rival is a scripted player on the hub's HTTP API
(tests/support/player.py).  The games are seeded random games of the engine, chosen so that
between them there are flashes and the Power of Time both ways, Memory Swaps, a game the rival ends
and one the board's player ends.  Every state the board's broker publishes (what the status page,
the virtual board and the board player's phone receive) is kept, with the referee's state and the
LEDs; the screens' own functions in host/web/static/quin.js (``needs``, ``outOfTurn``,
``addOpponent``, ``headline``, ``remoteStory``, composed as status.js, sim.js and seat.js compose
them) then run on each in real Chromium.  At every state:

- an instruction on every screen whenever the board or the rival is waited for;
- the same headline and the same steps on every screen, and the headline's turn the referee's: the
  rival's plan is the rival's move until the board shows it carried out;
- no alarm nobody caused (no "moved out of turn", no "the board differs", no corrections: the hands
  only ever do what the board asks);
- the rival named as they are ("Bob, playing from afar"), never as the practice opponent;
- a flash of the rival's said with its outcome before anyone lifts a tower, a Time with its outcome,
  the result once over;
- the pause said on every screen while the rival is away;
- the LEDs lighting the plan's spaces the screens mark;

and after every action the move list holds every action the board shows.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.board import SPACE_IDS, other
from engine.game import Game
from engine.randplay import random_game
from engine.record import to_record
from tests.support.player import RemotePlayer
from tests.support.webtools import with_quin_js
from tests.support.remote_board import Board, count, local_plays, rival_plays


#: (mode, seed, the board's side, actions played): a random game, cut short or played to its end
GAMES = [("classic", 192, "white", 36), ("third_eye", 40, "black", 36), ("classic", 307, "white", None),
         ("third_eye", 266, "black", None)]
PAUSE_AT = 5  # the rival's page goes away (and comes back) before this action of each game


class Watch:
    """Every state the board's broker publishes, with the referee's state and the LEDs."""

    def __init__(self, ann: Board, game: str):
        self.ann, self.game = ann, game
        self.seen: list[dict] = []
        broker = ann.table.broker
        publish = broker.publish

        def spy(states, notices):
            self.keep(states)
            return publish(states, notices)

        broker.publish = spy

    def keep(self, states) -> None:
        table = self.ann.table
        ref = table.ref
        if states.get("public", {}).get("phase") not in ("playing", "over") or ref is None:
            return
        local = self.ann.side
        self.seen.append({
            "game": self.game,
            "ref": getattr(ref.state, "value", str(ref.state)),
            "local": local,
            "public": json.loads(json.dumps(states["public"])),
            "phone": json.loads(json.dumps(states[local])),
            "leds": sorted(table.leds or {}),
        })


def play(ann: Board, bob: RemotePlayer, played: Game, upto: int | None) -> None:
    """The game's actions, each by its side: the board's player names theirs and makes it on the
    board; the rival's comes from the hub and is carried out as the board's plan says."""
    truth = Game(played.setups["white"], played.setups["black"], played.mode, False, played.first)
    local = ann.side
    log = played.log if upto is None else played.log[:upto]
    for i, (_, player, action) in enumerate(log):
        if i == PAUSE_AT:
            bob.close()  # the rival's page goes away: the game pauses, every screen says so
            ann.until(lambda: "away" in ((ann.state()["remote"] or {}).get("paused") or ""), what="the pause")
            bob.listen()
            ann.until(lambda: ann.state()["remote"]["paused"] is None, what="the resume")
        if player == local:
            ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == local
                     and getattr(ann.table.ref.state, "value", "") == "play", what=f"{local}'s turn ({i})")
            local_plays(ann, truth, i, action)
        else:
            rival_plays(ann, bob, i, action)
        truth.push(action)
        assert ann.board.occupied == truth.occupied(), (i, action)
        # the move list: every action the board shows, as at one table (the last one drawn too)
        shown = ann.state()["view"]
        assert count(shown) == i + 1, (i, action, shown["history"])
        assert shown["events"] == [e.to_json() for e in truth.events], (i, action)
        mine = ann.state(local)["view"]
        assert [a for t in mine["history"] for a in t["actions"]][-1] == (
            action.to_record() if player == local else [a for t in shown["history"] for a in t["actions"]][-1])
    if upto is None:
        ann.until(lambda: ann.table.phase == "over", what="the game over at the board")
        assert ann.seat.link.state["record"] == to_record(truth)


JS = """(cases) => cases.map((c) => {
  // the three board-side screens, composed as status.js, sim.js and seat.js compose them
  const screen = (state, viewer) => {
    const stale = c.ref === "follow";  // a slow hand: the plan has waited long (the pages' 5 s)
    let n = Quin.needs(state, viewer, stale);
    const wrong = Quin.outOfTurn(state, viewer);
    if (wrong) n = wrong;
    else Quin.addOpponent(state, viewer, n);
    const lines = n.lines.slice();
    const title = Quin.remoteStory(state).said(n.title || "", lines);
    const head = Quin.headline(state, viewer).replace(/^Your move$/, Quin.cap(viewer || "") + " to move")
      .replace(/^Your /, viewer ? Quin.cap(viewer) + "'s " : "Your ");
    return { title, lines, steps: n.steps || [], kind: n.kind, head, marks: n.marks,
             text: [title].concat(lines).join(" | ") };
  };
  return { status: screen(c.public, null), board: screen(c.public, null), phone: screen(c.phone, c.local) };
})"""

ALARM = re.compile(r"moved out of turn|differs from the game|does not match|put it back|put it right|practice opponent",
                   re.IGNORECASE)


@pytest.mark.parametrize("mode,seed,side,upto", GAMES, ids=[f"{g[0]}-{g[1]}-{g[2]}" for g in GAMES])
def test_every_board_side_screen_tells_one_true_story(browser, tmp_path, realhub, mode, seed, side, upto):
    played = random_game(seed, mode, max_actions=400 if upto is None else upto)
    assert upto is not None or played.is_over()
    ann = Board(tmp_path, realhub.url, side=side, mode=mode, first=played.first)
    bob = RemotePlayer(realhub.url)
    rival = other(side)
    try:
        bob.join(ann.seat.link.code)
        bob.listen()
        ann.until(lambda: ann.seat.link.state is not None and ann.seat.link.paused() is None, what="both present")
        watch = Watch(ann, f"{mode} {seed}")
        ann.table.submit_setup(side, played.setups[side].to_record())
        assert bob.post("setup", {"setup": played.setups[rival].to_record()})[0] == 200
        ann.until(lambda: ann.table.phase == "playing" and ann.table.ref is not None, what="the game to start")
        ann.place_start()
        ann.until(lambda: ann.table.ref.phase == "play", what="the board set")
        play(ann, bob, played, upto)
        cases = watch.seen
        import os
        if os.environ.get("DUMP"):
            Path(os.environ["DUMP"]).write_text(json.dumps(cases))
    finally:
        bob.close()
        ann.stop()

    check(browser, cases, side)


def check(browser, cases: list[dict], side: str) -> None:
    rival = other(side)
    shown = with_quin_js(browser, JS, cases)

    seen = {"follow": 0, "rival flash": 0, "rival time": 0, "paused": 0, "over": 0, "rival's turn": 0}
    R, L = rival.capitalize(), side.capitalize()
    for c, s in zip(cases, shown):
        pub, ref = c["public"], c["public"]["referee"] or {}
        view = pub["view"] or {}
        where = f"{c['game']}, turn {view.get('turn')}, {c['ref']}"
        screens = {name: s[name] for name in ("status", "board", "phone")}
        for name, sc in screens.items():
            # no alarm nobody caused, and the rival never called the practice opponent
            assert not ALARM.search(sc["text"]), (where, name, sc["text"])
            assert sc["kind"] not in ("out-of-turn", "fix"), (where, name, sc)
        assert not (c["phone"]["seat"]["private"] or {}).get("instructions"), (where, c["phone"]["seat"]["private"])
        if c["ref"] == "follow":
            # the plan itself, never a correction (a plan's instruction names its lifts and places)
            assert all("lift" in i for i in ref.get("instructions", [])), (where, ref)
        # one headline, one set of steps, on every screen
        assert s["status"]["head"] == s["board"]["head"] == s["phone"]["head"], (where, s)
        assert s["status"]["steps"] == s["board"]["steps"] == s["phone"]["steps"], (where, s)
        over = view.get("result", {}).get("status", "ongoing") != "ongoing"
        if over:
            seen["over"] += 1
            assert s["status"]["head"].startswith(("White wins", "Black wins", "Drawn")), (where, s["status"])
            continue
        # whose move: the referee's, which is the rival's while their plan waits
        assert view["to_move"] == ref["to_move"], (where, view["to_move"], ref)
        if c["ref"] == "follow":
            seen["follow"] += 1
            assert ref["to_move"] == rival and s["status"]["head"] == f"{R} to move", (where, s["status"])
            plan = (pub["opponent"] or {}).get("plan") or {}
            steps = plan.get("steps", [plan])
            for name, sc in screens.items():
                assert sc["lines"], (where, name, sc)  # an instruction on every screen
                assert "Bob, playing from afar" in sc["text"], (where, name, sc["text"])
            if any(p.get("flash") for p in steps):
                seen["rival flash"] += 1
                for name, sc in screens.items():  # the outcome, before anyone lifts a tower
                    assert sc["title"].startswith("Flash! "), (where, name, sc)
            if any(p.get("do") == "time" and p.get("outcome") for p in steps):
                seen["rival time"] += 1
                for name, sc in screens.items():
                    assert "Time" in sc["title"] or "Time" in sc["text"], (where, name, sc)
            # the LEDs light the plan's spaces the screens mark
            marked = {sp for sp, m in s["status"]["marks"].items() if m in ("lift", "place")}
            assert {SPACE_IDS[x] for x in marked} <= set(c["leds"]), (where, marked, c["leds"])
        elif c["ref"] == "play" and ref["to_move"] == rival:
            seen["rival's turn"] += 1
            for name, sc in screens.items():  # the board waits for the rival: said on every screen
                assert sc["lines"], (where, name, sc)
                assert "Bob, playing from afar" in sc["text"], (where, name, sc["text"])
                assert sc["head"] == f"{R} to move", (where, name, sc)
        elif c["ref"] in ("flash", "time") or (c["ref"] in ("setup", "sync") and (
                pub["board"].get("lift") or pub["board"].get("place"))):
            for name, sc in screens.items():  # the board waits for hands: said on every screen
                assert sc["lines"], (where, name, sc)
        elif c["ref"] == "play":  # the board's player's move
            assert s["status"]["head"] == f"{L} to move", (where, s["status"])
        paused = (pub.get("remote") or {}).get("paused")
        if paused:  # Bob's page away, or the hub not reached from here: said first, on every screen
            seen["paused"] += 1
            for name, sc in screens.items():
                assert sc["lines"] and paused[1:] in sc["lines"][0] and "Paused" in sc["title"] + sc["lines"][0], (
                    where, name, sc)
                assert sum(paused[1:] in line for line in sc["lines"]) == 1, (where, name, sc)  # said once
    assert seen["follow"] and seen["paused"] and seen["rival's turn"], seen
    # ... and a correction the referee does say while a plan waits (a tower put where the plan puts
    # none) is said on every screen, once, beside the plan
    wrong = json.loads(json.dumps(next(c for c in cases if c["ref"] == "follow")))
    fix = {"do": "clear", "space": "fs", "text": "take the tower off fs"}
    for state in (wrong["public"], wrong["phone"]):
        state["referee"]["instructions"] = state["referee"]["instructions"] + [fix]
    said = with_quin_js(browser, JS, [wrong])[0]
    for name, sc in said.items():
        assert sc["title"] == "Put it right" and sc["steps"][0] == "fix: clear fs", (name, sc)
        assert sum("fs" in line for line in sc["lines"]) == 1 and "Bob, playing from afar" in sc["text"], (name, sc)
    assert any("Bob's browser is away" in ((c["public"].get("remote") or {}).get("paused") or "") for c in cases)
    assert seen["over"] or cases[-1]["public"]["view"]["result"]["status"] == "ongoing", seen
    print(f"{cases[0]['game']}: {len(cases)} states checked: {seen}")
