"""The board side of a remote game, for the remote-play tests (moved here from the tests that
first wrote it: tests/host/remote/test_remote_table.py and test_remote_whole_game.py).

:class:`Board` is this board's service on the simulated board (the local player's phone and hands);
:func:`carry_out` is the local player naming an action on their phone and making it on the board;
:func:`follow_the_board` does what the board asks (a plan of the rival's, a flash, a Time) until the
referee waits for a player again.

Time (issue 32, "Tests that prove by events"): the board's service runs on a
:class:`host.clock.FakeClock` the test moves (:class:`BoardClock`), as ``quin serve``'s one clock.
A hand's pause is the clock moved that long, the referee ticked as the ticker would every
:data:`TICK` on the way (:meth:`BoardClock.pass_time`): no sleep, and the same intervals whatever
the machine's load.  What comes from the real hub (a process on PostgreSQL, on its own real clock)
is waited on as a condition (:meth:`BoardClock.until`); meanwhile the board's clock goes to the
referee's next deadline when one is near (a settle window), else at the machine's pace (a link's
backoff, the session's ask-again), never faster."""

import json
import random
import threading
import time

from engine.actions import Pass, Time
from engine.board import SPACE_NAMES
from engine.game import Game
from engine.randplay import random_setup
from host.board.simboard import SimulatedBoard
from host.clock import FakeClock
from host.compose import Service
from host.remote.service import RemoteSeat
from host.store import Store
from tests.support.page_hands import distances_to
from tests.support.waiting import wait_for

TICK = 0.02  # seconds of the board's clock between the referee's ticks (the ticker's pace in quin serve's tests before)
# a referee deadline this near is gone to at once while the test waits: its windows (debounce, settle,
# a word's 1 s, a multi-tower action's 1.5 s) pass as the person waits; never the 4 s after which a
# sensor still unsettled is said publicly (a wait on the hub that long would reach it, not a window)
NEAR = 2.0
START = 1000.0  # the board's clock at the start (any time; a restarted service goes on from where it was)


class BoardClock:
    """The clock of the boards in one test (one :class:`FakeClock`, as the machine has one), moved
    by the test: the tables on it are ticked by the test, not by a ticker thread."""

    def __init__(self):
        self.clock = FakeClock(START)
        self.tables: list = []
        self._real = time.monotonic()  # the machine's time when the board's clock last went at its pace

    def now(self) -> float:
        return self.clock.now()

    def tick(self) -> None:
        """Every table on this clock ticked now (what the ticker thread does each ``TICK``)."""
        for table in list(self.tables):
            table.tick()

    def pass_time(self, seconds: float) -> None:
        """``seconds`` go by on the boards (a hand's pause): the clock moves in steps of ``TICK``,
        each followed by a tick of every table, as the ticker ticked."""
        left = seconds
        while left > 1e-9:
            step = min(TICK, left)
            self.clock.advance(step)
            left -= step
            self.tick()
        self._real = time.monotonic()

    def _due(self) -> float | None:
        """The nearest moment at which a table's referee has something to do (None: nothing due)."""
        dues = []
        for table in list(self.tables):
            with table.lock:
                ref = table.ref
                due = ref.next_deadline() if ref is not None else None
            if due is not None:
                dues.append(due)
        return min(dues, default=None)

    def _to_deadline(self) -> bool:
        """Every table ticked, then the clock moved to the referees' next deadline if it is near
        (True), else left where it is (False)."""
        self.tick()
        now, due = self.clock.now(), self._due()
        if due is None or not now < due <= now + NEAR:
            return False
        self.clock.advance(due - now)
        self.tick()
        return True

    def _go_on(self) -> bool:
        """Time goes on while the test waits: to the referee's next deadline if it is near (True),
        else as much as the machine's clock went since the last look, at most ``TICK`` (a referee
        waiting for the hub asks at every tick: its deadline is always now, and the hub is real)."""
        real = time.monotonic()
        if self._to_deadline():
            self._real = real
            return True
        self.clock.advance(max(0.0, min(real - self._real, TICK)))
        self._real = real
        self.tick()
        return False

    def settle(self) -> None:
        """The referees' near deadlines passed, one after another, with nothing else going on (no
        wait on the hub): the board read as it stands before anyone touches it."""
        for _ in range(50):
            if not self._to_deadline():
                break
        self._real = time.monotonic()

    def until(self, pred, what: str = "a condition", timeout: float = 20.0):
        """``wait_for(pred)`` (tests/support/waiting.py) with the board's time going on meanwhile."""
        self._real = time.monotonic()

        def look():
            for _ in range(20):  # deadlines one after another (a settle window, then a commit)
                value = pred()
                if value or not self._go_on():
                    break
            return value or pred()

        return wait_for(look, what, timeout)

    def running(self):
        """While the service starts (``RemoteSeat.attach`` waits on the clock for the hub's first
        state, up to its own timeout): the clock goes at the machine's pace, as ``quin serve``'s
        would.  A context manager."""
        return _Running(self)


class _Running:
    def __init__(self, bc: BoardClock):
        self.bc = bc
        self.done = threading.Event()

    def __enter__(self):
        def run():
            last = time.monotonic()
            # paced by the machine's clock: the service waits for a real hub, with no event of ours
            while not self.done.wait(TICK):
                real = time.monotonic()
                self.bc.clock.advance(real - last)
                last = real

        self.thread = threading.Thread(target=run, name="board-clock", daemon=True)
        self.thread.start()
        return self.bc

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        self.bc._real = time.monotonic()


class Board:
    """This board's side: the service on the simulated board, the local player's hands and phone.

    ``clock``: a :class:`BoardClock` shared with other boards of the test, or one carried over from
    a service stopped on the same folder (a restart); by default one of its own."""

    def __init__(self, folder, hub_url, remote="new", name="Ann", occupied=(), clock: BoardClock | None = None, **kw):
        self.folder = folder
        self.clock = clock or BoardClock()
        self.seat = RemoteSeat(folder, remote, hub_url, name=name, backoff=(0.05, 0.3), **kw)
        # ``occupied``: the towers already on the board (a service restarted at a board mid-game)
        self.board = SimulatedBoard(occupied, clock=self.clock.clock)
        self.service = Service(Store(folder / "quin.sqlite3"), board=self.board, settle=0.05,
                               **self.seat.service_kwargs())
        self.table = self.service.table
        assert self.service.clock is self.clock.clock  # the service's one clock is the board's
        with self.clock.running():
            self.seat.attach(self.service, wait=5.0)
        # no ticker thread: the test ticks the table as its clock moves (BoardClock)
        self.clock.tables.append(self.table)
        # a service started at a board with towers on it (a restart) reads them before the person
        # there acts again (quin serve takes its time to start; the old clock's ticker read them meanwhile)
        self.clock.settle()

    @property
    def side(self):
        return self.seat.local

    def until(self, pred, what: str = "a condition", timeout: float = 20.0):
        """Wait for ``pred`` while the board's time goes on (:meth:`BoardClock.until`)."""
        return self.clock.until(pred, what, timeout)

    def pause(self, seconds: float) -> None:
        """A hand's pause: ``seconds`` on the board's clock (:meth:`BoardClock.pass_time`)."""
        self.clock.pass_time(seconds)

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
        self.pause(0.08)  # a tower held up a moment
        self.feed(self.board.place(to))

    def stop(self):
        if self.table in self.clock.tables:
            self.clock.tables.remove(self.table)
        self.service.stop()


N = SPACE_NAMES
HOLD = 0.3  # seconds a lifted tower is held before it is put down (more than the sensors' settling)


def count(view):
    return sum(len(t["actions"]) for t in view["history"]) if view else 0


def applied(ann) -> int:
    """Actions in the hub's state the board's session has applied (read under the table's lock)."""
    with ann.table.lock:
        return count((ann.table.session.hub or {}).get("view"))


def look_again(ann, seconds: float = 0.05) -> None:
    """The person at the board looks again ``seconds`` of the board's clock later (the referee
    settles the board meanwhile; what it waits for from the hub comes as it comes)."""
    until = ann.clock.now() + seconds - 1e-9
    ann.until(lambda: ann.clock.now() >= until, what="the board's clock to go on")


def follow_the_board(ann, timeout=30.0):
    """Do what the board asks until the referee waits for a player again: the lifts a plan needs,
    then the occupancy it expects.  ``timeout``: seconds of the machine's time (only ever reached
    when something is broken)."""
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
                        ann.pause(0.03)
            if lifted:
                ann.pause(HOLD)  # a tower is held up a moment, not flicked
            want = ref.expected()
            if want != ann.board.occupied:
                ann.feed(ann.board.set(want))
        elif state in ("flash", "time", "sync", "setup"):
            want = ref.expected()
            if want != ann.board.occupied:
                ann.feed(ann.board.set(want))
        elif state == "over" or (state == "play" and status.get("instructions") == []):
            return
        look_again(ann)
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
        ann.pause(0.05)
        ann.feed(ann.board.lift(action.to))
        ann.until(lambda: ann.table.ref.public_status().get("flash") is not None
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
            ann.pause(0.03)
    ann.pause(HOLD)  # a tower is held up a moment, not flicked
    for b in sorted(effect.touched):
        if b in want and b not in ann.board.occupied:
            ann.feed(ann.board.place(b))
            ann.pause(0.03)
    if want != ann.board.occupied:
        ann.feed(ann.board.set(want))
    if type(action) is Time and truth.mode == "third_eye":
        # the push was done: the referee takes it once the sensors settle (until then its expected
        # position still has the pushed tower in hand, and putting the board to it would undo the push)
        ann.until(lambda: getattr(ann.table.ref.state, "value", "") != "time" or ann.table.game.to_move != side,
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
        ann.until(lambda: count(ann.seat.link.state["view"]) > i, what=f"the hub to have action {i}")
    follow_the_board(ann)
    ann.until(lambda: count(ann.seat.link.state["view"]) > i, what=f"the hub to have action {i}")


def heard(bob, pred):
    """The remote player's newest state if ``pred`` holds for it (else None): for ``Board.until``,
    so the board's time goes on while the test waits for the hub to tell the remote player."""
    with bob.cond:
        state = bob.states[-1] if bob.states else None
    return state if state is not None and pred(state) else None


def rival_plays(ann, bob, i: int, action) -> None:
    """The remote player's action ``i`` (``bob``: tests/support/player.py's ``RemotePlayer``),
    sent once its turn came; the board's session applies it and its person carries out the plan."""
    bs = ann.until(lambda: heard(bob, lambda s: s["view"] and count(s["view"]) == i and s["legal"] is not None),
                   what=f"the remote player's turn ({i})")
    status, ans = bob.post("action", {"seq": bs["seq"], "action": action.to_record()})
    assert status == 200, (i, action, ans)
    # the board's session has applied the hub's state with it (under the table's lock)
    ann.until(lambda: applied(ann) > i, what=f"the board to have action {i}")
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
    ann.until(lambda: ann.table.phase == "playing" and ann.table.ref is not None,
              what="the game to start")
    ann.place_start()
    ann.until(lambda: ann.table.ref.phase == "play", what="the board set")


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
    ann.pause(0.05)
    ann.feed(ann.board.lift(a["to"]))
    ann.until(lambda: ann.table.ref.public_status().get("flash") is not None or ann.table.game.to_move != ann.side,
              what="the flash announced")
    end = time.monotonic() + 20  # the machine's time: only ever reached when something is broken
    while time.monotonic() < end:
        want = ann.table.ref.expected()
        if want != ann.board.occupied:
            ann.feed(ann.board.set(want))
        if ann.table.ref.phase == "play" and ann.table.game.to_move != ann.side:
            return
        look_again(ann)
    raise AssertionError(f"the flash was not taken: {ann.table.ref.public_status()}")
