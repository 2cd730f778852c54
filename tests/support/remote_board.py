"""The board side of a remote game, for the remote-play tests (moved here from the tests that
first wrote it: tests/host/remote/test_remote_table.py and test_remote_whole_game.py).

:class:`Board` is this board's service on the simulated board (the local player's phone and hands,
on real time); :func:`carry_out` is the local player naming an action on their phone and making it
on the board; :func:`follow_the_board` does what the board asks (a plan of the rival's, a flash, a
Time) until the referee waits for a player again."""

import json
import random
import time

from engine.actions import Pass, Time
from engine.board import SPACE_NAMES
from engine.game import Game
from engine.randplay import random_setup
from host.board.simboard import SimulatedBoard
from host.compose import Service
from host.remote.service import RemoteSeat
from host.store import Store
from tests.support.page_hands import distances_to
from tests.support.waiting import wait_for


class Board:
    """This board's side: the service on the simulated board, the local player's hands and phone."""

    def __init__(self, folder, hub_url, remote="new", name="Ann", occupied=(), **kw):
        self.folder = folder
        self.seat = RemoteSeat(folder, remote, hub_url, name=name, backoff=(0.05, 0.3), **kw)
        # ``occupied``: the towers already on the board (a service restarted at a board mid-game)
        self.board = SimulatedBoard(occupied, clock=time.monotonic)
        self.service = Service(Store(folder / "quin.sqlite3"), board=self.board, settle=0.05,
                               **self.seat.service_kwargs())
        self.table = self.service.table
        self.seat.attach(self.service, wait=5.0)
        self.service.start(0.02)

    @property
    def side(self):
        return self.seat.local

    def state(self, viewer=None):
        return self.table.state(viewer)

    def feed(self, snap):
        self.table.feed(snap)

    def set_up(self, seed=1):
        setup = random_setup(random.Random(seed), self.side)
        self.table.submit_setup(self.side, setup.to_record())

    def place_start(self):
        """The local player puts the towers on their starting spaces (the referee says which)."""
        want = self.table.ref.expected()
        self.feed(self.board.set(want))

    def move(self, frm, to):
        self.feed(self.board.lift(frm))
        # real time: this board's referee reads a real-clock board beside a real hub, so a hand's pause is a real one
        time.sleep(0.08)
        self.feed(self.board.place(to))

    def stop(self):
        self.service.stop()


N = SPACE_NAMES
HOLD = 0.3  # seconds a lifted tower is held before it is put down (more than the sensors' settling)


def count(view):
    return sum(len(t["actions"]) for t in view["history"]) if view else 0


def applied(ann) -> int:
    """Actions in the hub's state the board's session has applied (read under the table's lock)."""
    with ann.table.lock:
        return count((ann.table.session.hub or {}).get("view"))


def follow_the_board(ann, timeout=30.0):
    """Do what the board asks until the referee waits for a player again: the lifts a plan needs,
    then the occupancy it expects."""
    end = time.monotonic() + timeout
    done: dict[str, set] = {}  # the towers each plan's lifts have taken up: a person lifts each once
    while time.monotonic() < end:
        ref = ann.table.ref
        status = ref.public_status()
        state = getattr(ref.state, "value", "")
        if state == "follow":
            plan = (ann.state()["opponent"] or {}).get("plan") or {}
            steps = plan.get("steps", [plan])
            # (a flash's plan lifts the tower it lands on too: once put down, it is not lifted again
            # while the referee has not yet taken the plan as done, a tick or two later)
            taken = done.setdefault(json.dumps(plan, sort_keys=True), set())
            lifted = False
            for step in steps:
                for s in step.get("lift", []):
                    if s in {N[x] for x in ann.board.occupied} and s not in taken:
                        ann.feed(ann.board.lift(s))
                        taken.add(s)
                        lifted = True
                        # real time: this board's referee reads a real-clock board beside a real hub, so a hand's pause is a real one
                        time.sleep(0.03)
            if lifted:
                time.sleep(HOLD)  # a tower is held up a moment, not flicked
            want = ref.expected()
            if want != ann.board.occupied:
                ann.feed(ann.board.set(want))
        elif state in ("flash", "time", "sync", "setup"):
            want = ref.expected()
            if want != ann.board.occupied:
                ann.feed(ann.board.set(want))
        elif state == "over" or (state == "play" and status.get("instructions") == []):
            return
        # real time: the referee, on the real clock, settles the board between looks
        time.sleep(0.05)
    ref = ann.table.ref
    cur = ref.current
    raise AssertionError(
        f"the board did not settle: {ref.public_status()}; referee state {ref.state.value}, "
        f"follow {getattr(cur, 'follow', None)}, board {sorted(N[x] for x in ann.board.occupied)}, "
        f"raw {sorted(N[x] for x in ref.deb.raw)}, pending {sorted(N[x] for x in ref.deb.pending)}")


def carry_out(ann, truth: Game, action):
    """The local player's action: named on the phone, then done with their hands."""
    side = ann.side
    effect = truth.board_effect(action)
    if type(action) is Time:
        ann.table.input(side, {"type": "time"})
    ann.table.input(side, {"type": "choose", "action": action.to_record()})
    if type(action) is Pass:
        ann.table.input(side, {"type": "done"})
        return
    if effect.flash is not None:
        ann.feed(ann.board.lift(action.frm))
        # real time: this board's referee reads a real-clock board beside a real hub, so a hand's pause is a real one
        time.sleep(0.05)
        ann.feed(ann.board.lift(action.to))
        wait_for(lambda: ann.table.ref.public_status().get("flash") is not None
                 or ann.table.game.to_move != side or ann.table.ref.phase == "over", what="the flash announced")
        return
    truth.push(action)
    want = truth.occupied()
    truth.pop()
    # every tower the action moves comes up (a swapped one too); the Power of Time's tower first, as
    # its text says ("put the Time tower ... on the Zero Gravity, then push ...")
    first = getattr(action, "at", None) if type(action) is Time else None
    for a in sorted(effect.touched, key=lambda s: (s != first, s)):
        if a in ann.board.occupied:
            ann.feed(ann.board.lift(a))
            # real time: this board's referee reads a real-clock board beside a real hub, so a hand's pause is a real one
            time.sleep(0.03)
    time.sleep(HOLD)  # a tower is held up a moment, not flicked (real time, as above)
    for b in sorted(effect.touched):
        if b in want and b not in ann.board.occupied:
            ann.feed(ann.board.place(b))
            # real time: this board's referee reads a real-clock board beside a real hub, so a hand's pause is a real one
            time.sleep(0.03)
    if want != ann.board.occupied:
        ann.feed(ann.board.set(want))
    if type(action) is Time and truth.mode == "third_eye":
        # the push was done: the referee takes it once the sensors settle (until then its expected
        # position still has the pushed tower in hand, and putting the board to it would undo the push)
        wait_for(lambda: getattr(ann.table.ref.state, "value", "") != "time" or ann.table.game.to_move != side,
                 what="the Power of Time taken")


def local_plays(ann, truth: Game, i: int, action) -> None:
    """The board's player's action ``i``: named and made (``carry_out``), the board followed, the hub
    has it."""
    carry_out(ann, truth, action)
    if truth.board_effect(action).flash is None:
        # the board reads it first: set to the referee's expected occupancy while it still
        # waits for the hands (a Third Eye Time's pushed tower not yet seen placed), the
        # board would lose what the player just placed (a flash is announced, then
        # resolved on the board: followed at once)
        wait_for(lambda: count(ann.seat.link.state["view"]) > i, what=f"the hub to have action {i}")
    follow_the_board(ann)
    wait_for(lambda: count(ann.seat.link.state["view"]) > i, what=f"the hub to have action {i}")


def rival_plays(ann, bob, i: int, action) -> None:
    """The remote player's action ``i`` (``bob``: tests/support/player.py's ``RemotePlayer``),
    sent once its turn came; the board's session applies it and its person carries out the plan."""
    bs = bob.wait(lambda s: s["view"] and count(s["view"]) == i and s["legal"] is not None)
    status, ans = bob.post("action", {"seq": bs["seq"], "action": action.to_record()})
    assert status == 200, (i, action, ans)
    # the board's session has applied the hub's state with it (under the table's lock)
    wait_for(lambda: applied(ann) > i, what=f"the board to have action {i}")
    follow_the_board(ann)


def plain_move(legal, occupied_names):
    """A legal move of a tower to an empty space (no flash), first in the hub's order."""
    for a in legal:
        if a["type"] == "move" and a["to"] not in occupied_names:
            return a
    raise AssertionError("no plain move")


def start(ann, bob, seeds=(1, 2)):
    """Both lineups in (seeded), the game started and the board set."""
    ann.set_up(seeds[0])
    bob.post("setup", {"setup": random_setup(random.Random(seeds[1]), bob.side).to_record()})
    wait_for(lambda: ann.table.phase == "playing" and ann.table.ref is not None, what="the game to start")
    ann.place_start()
    wait_for(lambda: ann.table.ref.phase == "play", what="the board set")


def towards(legal, view, side):
    """A plain move bringing one of ``side``'s towers nearest the rival's (the two sides meet)."""
    rivals = [t["space"] for t in view["board"] if t["owner"] != side]
    occupied = {t["space"] for t in view["board"]}
    dist = distances_to(rivals)
    moves = [a for a in legal if a["type"] == "move" and a["to"] not in occupied]
    return min(moves, key=lambda a: (dist.get(a["to"], 99), a["from"], a["to"]))


def a_flash(legal, view, side):
    rivals = {t["space"] for t in view["board"] if t["owner"] != side}
    return next((a for a in legal if a["type"] == "move" and a["to"] in rivals), None)


def carry_out_flash(ann, a):
    """The local player flashes: both towers up, then the board as the referee says."""
    ann.feed(ann.board.lift(a["from"]))
    # real time: this board's referee reads a real-clock board beside a real hub, so a hand's pause is a real one
    time.sleep(0.05)
    ann.feed(ann.board.lift(a["to"]))
    wait_for(lambda: ann.table.ref.public_status().get("flash") is not None or ann.table.game.to_move != ann.side,
             what="the flash announced")
    end = time.monotonic() + 20
    while time.monotonic() < end:
        want = ann.table.ref.expected()
        if want != ann.board.occupied:
            ann.feed(ann.board.set(want))
        if ann.table.ref.phase == "play" and ann.table.game.to_move != ann.side:
            return
        # real time: the referee, on the real clock, settles the board between looks
        time.sleep(0.05)
    raise AssertionError(f"the flash was not taken: {ann.table.ref.public_status()}")
