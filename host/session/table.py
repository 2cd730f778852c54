"""The table: the live place where sessions are played, one after another.

The :class:`Table` holds what outlasts one game: the store, the two seats
(:mod:`host.session.seats`: a phone, or a side played from off the board such as
the practice opponent), the board's last reading and the stream broker.  The
game itself is the current :class:`~host.session.session.Session` (its game,
referee and durable commits); what each audience sees of it is built by
:mod:`host.session.projections`.  Every change goes through one lock, in this
order: the session's referee acts, its ``on_commit`` writes the action to the
store, then each audience's projection and its notices are published, then each
seat takes its step (an off-board seat may decide and declare).

The table is built, with its board, pump, ticker, store and web, by
:mod:`host.compose`.

A commit the store refuses (read-only, full, failing) is never silent and never
lost: the referee's decision stands in memory but is *unsaved*; every screen
keeps what it last showed, with "the game could not be saved: ..." (``unsaved``
in each state), the referee is not fed meanwhile (the board's readings are
kept), and :meth:`Table.tick` writes the decision as soon as the store takes it,
then publishes it and carries on from the board as it stands: nobody replays
the move.

What an audience receives is built only from ``engine.views.view`` (and
``action_seen_by`` inside it), the referee's public or private status, an
off-board seat's public plan, and the referee's notices for that audience.
"""

from __future__ import annotations

import logging
import re
import secrets
import sqlite3
import threading
from typing import Callable

from engine.board import PLAYERS, WHITE
from engine.errors import QuinError
from engine.flash import MODES
from engine.pieces import Setup
from host.board.sensing import Snapshot
from host.clock import REAL
from host.match.clock import NONE, ClockError, TimeControl, parse_control
from host.referee.notices import PUBLIC, Notice
from host.store import GameRow, Store, StoreError, StoreWriteError

from . import projections
from .seats import OffBoardSeat, PhoneSeat, Seats
from .session import RETRY_SAVE, FlagFell, Session

TOKEN_BYTES = 24  # 192 random bits per seat token
log = logging.getLogger("quin.table")
__all__ = ["RETRY_SAVE", "TOKEN_BYTES", "Table", "TableError", "new_token"]


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def practice_opponent_of_open_game(store) -> tuple[str, int] | None:
    """(side, level) of the practice opponent in the store's open game, or None: a restart of
    ``quin serve`` without ``--opponent`` keeps it in its seat rather than hand that seat, mid-game,
    to whoever scans its code (the seat was never a person's).  Noted by :meth:`Table._note_seats`."""
    row = store.open_game()
    if row is None:
        return None
    side = store.meta(f"opponent:{row.id}")
    level = store.meta(f"opponent_level:{row.id}")
    if side not in PLAYERS or not (level or "").isdigit():
        return None  # two people, a remote game's rival, or a game from before levels were noted
    return side, int(level)


class TableError(ValueError):
    """A request the table cannot honour now (one line for the user)."""


NAME_MAX = 40  # characters in a player's name
CODE = re.compile(r"^qp_[0-9a-f]{8}$")  # a hub's player code (host.hub.ratings.new_code)


def check_who(data: object) -> tuple[str | None, str | None]:
    """(name, player code) from a phone's ``{"name": ..., "code": ...}``: each optional, checked
    and tidied (a code is case-blind); TableError in one line naming the field."""
    if not isinstance(data, dict):
        raise TableError("player: expected an object with name and code")
    unknown = set(data) - {"name", "code"}
    if unknown:
        raise TableError(f"player: unknown field {sorted(unknown)[0]!r}")
    name, code = data.get("name"), data.get("code")
    if name is not None and not isinstance(name, str):
        raise TableError("Your name: expected text")
    if code is not None and not isinstance(code, str):
        raise TableError("Player code: expected text")
    name = " ".join((name or "").split()) or None
    if name is not None and (len(name) > NAME_MAX or not name.isprintable()):
        raise TableError(f"Your name: at most {NAME_MAX} letters, digits, spaces and signs (no line breaks)")
    typed = (code or "").strip()
    code = typed.lower() or None
    if code is not None and not CODE.match(code):
        shown = typed if len(typed) <= 20 else typed[:20] + "..."  # what the person typed, not our tidying
        raise TableError(f"Player code: {shown!r} is not one: a code is qp_ and 8 of the digits 0-9 and letters "
                         "a-f (such as qp_3f9a0c12), as the club's hub gave it; check it, or leave it empty to "
                         "play unrated")
    return name, code


class Table:
    """The live table: its seats and the current session.  Thread-safe."""

    def __init__(
        self,
        store: Store,
        broker,
        *,
        referee_factory: Callable | None = None,
        board=None,
        settle: float = 0.25,
        clock: Callable[[], float] = REAL,
        wall: Callable[[], float] = REAL.wall,
        opponent=None,
        seats: Seats | None = None,
        session_factory: Callable | None = None,
        control: TimeControl | None = None,
    ):
        self.store = store
        self.control = control or NONE  # the time control of a new game (host.match.clock; quin serve --clock)
        self.broker = broker
        self.board = board  # the simulated board (host.board.simboard) in simulated mode, else None
        self.settle = settle
        self.clock = clock
        self.wall = wall  # server time shown as committed_at (tests: a manual clock, so runs compare byte for byte)
        self._referee_factory = referee_factory
        # A session of another kind (host.remote.session: a game whose rival plays through the hub):
        # session_factory(table, store, row, **Session's keywords); None: a game at this table.
        self._session_factory = session_factory
        self.lock = threading.RLock()
        # Who plays each side: a phone, or a mind off the board (``opponent``: the practice opponent).
        self.seats = seats if seats is not None else Seats.of([opponent])
        self.session: Session | None = None  # the game being played (None before the first is opened)
        self.occupied: frozenset[int] | None = None  # the last snapshot, if any
        self.resume_error: str | None = None
        self.source_status: dict | None = None
        self.host_key: str | None = None
        self.leds: dict | None = None  # LED colours for a hardware board (projections.leds)
        self._held: dict[str, list] = {}  # the notices held back while a decision is unsaved, per audience
        self.shown: dict[str, dict] = {}  # the state each audience was last sent
        self._blackbox_said = float("-inf")  # when a black box that cannot be written may be logged again
        self.hub: dict | None = None  # whether the club's hub is reached (host.remote.push), when pushing to one
        self.hub_pusher = None  # the host.remote.push.Pusher, when pushing to a hub (it checks player codes)
        self._who: tuple[int, dict] | None = None  # (game id, its seat_players) as last read from the store

    # --- the session's parts, as the table's callers and tests read them -------------------------

    @property
    def row(self) -> GameRow | None:
        return self.session.row if self.session is not None else None

    @property
    def game(self):
        return self.session.game if self.session is not None else None

    @property
    def ref(self):
        return self.session.ref if self.session is not None else None

    @property
    def board_phase(self) -> str | None:
        """The referee's coarse phase (setup, sync, play, over; None with no game): what a mind at
        the table may know of it."""
        ref = self.ref
        return ref.phase if ref is not None else None

    @property
    def following(self) -> bool:
        """Is the board carrying out an action played elsewhere (remote play's rival)?"""
        ref = self.ref
        return ref is not None and ref.state.value == "follow"

    @property
    def session_factory(self):
        """What makes this table's sessions (None: the table's own, one board; remote play sets its own)."""
        return self._session_factory

    @session_factory.setter
    def session_factory(self, factory) -> None:
        self._session_factory = factory

    @property
    def unsaved(self) -> str | None:
        return self.session.unsaved if self.session is not None else None

    @property
    def committed_at(self) -> float | None:
        return self.session.committed_at if self.session is not None else None

    @property
    def rematch(self) -> set[str]:
        return self.session.rematch if self.session is not None else set()

    @property
    def tokens(self) -> dict[str, str]:
        return self.seats.tokens

    @property
    def opponent(self):
        """The practice opponent (the mind of an off-board seat), or None."""
        for seat in self.seats.off_board():
            return seat.mind
        return None

    @opponent.setter
    def opponent(self, mind) -> None:
        for seat in self.seats.off_board():
            self.seats.replace(PhoneSeat(seat.player))
        if mind is not None:
            self.seats.replace(OffBoardSeat(mind.side, mind))

    # --- lifecycle -------------------------------------------------------------------------

    def open(self, mode: str = "classic", vision: bool = False, first: str = WHITE, *, take_over: bool = False) -> None:
        """Resume the open game from the store, or start a new one in setup.

        With a seat played from off the board, a game two people are playing (begun, or that
        seat's lineup sent from a phone) is not handed to it silently: a TableError says so,
        unless ``take_over``.
        """
        with self.lock:
            if not take_over:
                taken = self.seat_taken_over()
                if taken is not None:
                    raise TableError(taken)
            # Stream ids never repeat across restarts: each start numbers its events in a new epoch.
            epoch = self.store.next_epoch()
            self.broker.set_epoch(epoch)
            self.host_key = self.store.meta("host_key")
            if not self.host_key:
                self.host_key = new_token()
                self.store.set_meta("host_key", self.host_key)
            row = self.store.open_game()
            if self.board is not None:
                # The simulated board is the physical world: it comes back as it last stood.
                last = self.store.blackbox(limit=1)
                if last:
                    self.occupied = self.board.set(last[0]["occupied"]).occupied
            notices: list = []
            if row is not None:
                try:
                    notices = self._resume(row)
                except StoreError as exc:
                    # Never the engine's words here: they may name hidden pieces.
                    self.resume_error = f"game {row.id} could not be resumed: its stored {exc.where or 'data'} no longer replays"
                    self.session = None
                    self.store.abandon(row.id)
                    row = None
            if row is None:
                self._new(mode, vision, first)
            self.publish(notices)

    def seat_taken_over(self) -> str | None:
        """Why opening the store's open game would take a person's seat from them, or None.

        A seat played from off the board may take a seat nobody has played yet; a game whose
        lineup for that seat came from a phone, or that is under way with a person in that seat,
        is theirs."""
        off_board = self.seats.off_board()
        row = self.store.open_game() if off_board else None
        if row is None:
            return None
        for seat in off_board:
            side = seat.player
            if self.store.meta(f"opponent:{row.id}") == side:
                continue  # it played this seat already
            if row.status == "playing" or row.setups.get(side) is not None:
                what = "is being played" if row.status == "playing" else "is being set up"
                return (f"game {row.id} {what} by two people: {seat.who} would take "
                        f"{side.capitalize()}'s seat and that phone would stop working")
        return None

    def _note_seats(self, game_id: int) -> None:
        """Note who plays this game's seats, so a later start knows whether a person's seat is at stake
        (and, for the practice opponent, at which level it played: a restart keeps it in its seat)."""
        off = [seat.player for seat in self.seats.off_board()]
        self.store.set_meta(f"opponent:{game_id}", ",".join(off) or "none")
        levels = [str(seat.mind.level) for seat in self.seats.off_board() if isinstance(getattr(seat.mind, "level", None), int)]
        self.store.set_meta(f"opponent_level:{game_id}", ",".join(levels) or "none")

    def _session(self, row: GameRow, committed_at: float | None = None) -> Session:
        kw = dict(referee_factory=self._referee_factory, settle=self.settle, clock=self.clock, wall=self.wall,
                  committed_at=committed_at)
        if self._session_factory is not None:
            return self._session_factory(self, self.store, row, **kw)
        return Session(self.store, row, control=self._control_of(row), **kw)

    def _control_of(self, row: GameRow) -> TimeControl:
        """The time control a stored game was set up with (none if it had none)."""
        try:
            return parse_control(self.store.control(row.id) or "none")
        except ClockError as exc:
            log.error("game %d: its time control does not read (%s): played without a clock", row.id, exc)
            return NONE

    def _resume(self, row: GameRow) -> list:
        """Rebuild the open game from its stored actions, then check the board against it."""
        row.check()  # a damaged row is set aside like a game that no longer replays
        if self.seats.off_board():
            self._note_seats(row.id)
        self.session = session = self._session(row, self.committed_at)
        self.seats.set_tokens(self.store.seats(row.id))
        if row.status == "setup" and session.both_setups():
            # Both lineups were saved but the power went before the game was marked started.
            self._start()
            return []
        if row.status != "playing":
            return []
        session.load()
        if self.occupied is None or session.ref is None:  # a remote game's referee waits for the hub
            return []
        # The referee waits for the board to match the game, with corrections if it does not.
        return self._referee(session.ref.feed, Snapshot(self.clock(), self.occupied))

    @staticmethod
    def check_settings(mode: object, vision: object, first: object) -> None:
        if not isinstance(mode, str) or mode not in MODES:
            raise TableError(f"mode: expected 'classic' or 'third_eye', got {mode!r}")
        if not isinstance(vision, bool):
            raise TableError(f"vision: expected true or false, got {vision!r}")
        if not isinstance(first, str) or first not in PLAYERS:
            raise TableError(f"first: expected 'white' or 'black', got {first!r}")

    def _new(self, mode: str, vision: bool, first: str) -> None:
        """A new game in setup.  A seat is a phone's place at the table: it keeps its token from
        game to game (a phone on it is carried to the new game) until the host re-issues it."""
        self.check_settings(mode, vision, first)
        held = self.seats.tokens
        tokens = {p: held.get(p) or new_token() for p in PLAYERS}
        game_id = self.store.new_game(mode, vision, first, tokens)
        if self.control.timed:
            self.store.set_control(game_id, self.control.text())
        self._note_seats(game_id)
        self.session = self._session(self.store.game(game_id), self.committed_at)
        self.seats.set_tokens(tokens)

    def new_game(self, mode: str = "classic", vision: bool = False, first: str = WHITE,
                 control: TimeControl | None = None) -> int:
        """Abandon the open game (if unfinished) and start a new one in setup, with the same seats.
        ``control``: its time control (host.match.clock), kept for the games after it; None keeps the
        table's."""
        self.check_settings(mode, vision, first)  # before anything changes: a bad request abandons nothing
        with self.lock:
            self.control = control or self.control
            if self.session is not None:
                self.session.ensure_saved()
                self.store.abandon(self.session.row.id)
            self._new(mode, vision, first)
            self._publish({})
            return self.row.id

    def next_first(self) -> str:
        """Who moves first in the next game: the loser of a finished game, or after a draw the
        player who did not move first in it (the host page may choose otherwise)."""
        return self.session.next_first() if self.session is not None else WHITE

    def play_again(self, player: str) -> int | None:
        """``player`` asks for a rematch once the game is over: the same seats, mode, Vision and clocks, the
        loser moving first.  It starts when every phone seat has asked (a seat played from off the
        board always agrees); returns the new game's number then, else None."""
        with self.lock:
            if self.phase != "over":
                raise TableError("the game is not over: play again once it has ended")
            if getattr(self.session, "remote", False):  # the hub starts the rematch when both asked
                self.session.ask_rematch(player)
                self._publish({})
                return None
            self.rematch.add(player)
            waiting = [p for p in self.phone_seats() if p not in self.rematch]
            if waiting:
                self._publish({})
                return None
            row = self.row
            # a rematch is played on the clocks of the game it follows (that game may have been resumed
            # by a service started without them); an untimed game leaves the table's choice
            timed = self.session.control if self.session.control.timed else None
            return self.new_game(row.mode, row.vision, self.next_first(), control=timed)

    def reissue(self, player: str) -> str:
        """A new seat token for ``player`` (a lost phone); the old one stops working at once."""
        if player not in PLAYERS:
            raise TableError(f"player: expected 'white' or 'black', got {player!r}")
        refused = self.seats[player].no_phone()
        if refused is not None:
            raise TableError(refused)
        with self.lock:
            token = new_token()
            self.store.reissue_seat(self.row.id, player, token)
            self.seats.set_token(player, token)
            self.broker.disconnect(player)
            return token

    # --- seats ----------------------------------------------------------------------------

    def phone_seats(self) -> dict[str, str]:
        """The seats a phone joins, with their tokens: a seat played from off the board is not one."""
        return self.seats.phone_tokens()

    def seat_of(self, token: object) -> str | None:
        """The player a token seats, compared in constant time; None for a bad token."""
        return self.seats.seat_of(token)

    @property
    def phase(self) -> str:
        if self.session is None:
            return "idle"
        return self.session.phase

    def submit_setup(self, player: str, data: object, who: tuple[str | None, str | None] | None = None) -> None:
        """A player's clone, removed piece and lineup.  The game starts once both are in.

        ``who``: (name, player code) the player gave with it (see :func:`check_who`); kept with the
        game (the name is public, the code is shown to nobody but this seat)."""
        with self.lock:
            if self.phase != "setup":
                raise TableError("the game has already started: setups are closed")
            try:
                setup = Setup.from_record(player, data)
            except QuinError as exc:
                raise TableError(str(exc)) from None
            if who is not None:
                self.store.save_player(self.row.id, player, *who)
                self._who = None
            self.session.save_setup(player, setup)
            if self.session.both_setups():
                self._start()
            self._publish({})

    def seat_players(self) -> dict[str, dict]:
        """{player: {"name", "code"}} of the open game, as its phones gave them."""
        if self.row is None:
            return {}
        if self._who is None or self._who[0] != self.row.id:
            self._who = (self.row.id, self.store.players(self.row.id))
        return self._who[1]

    def _start(self) -> None:
        session = self.session
        session.start()
        if self.occupied is not None:
            self.publish(self._referee(session.ref.feed, Snapshot(self.clock(), self.occupied)))

    # --- what the referee is fed -----------------------------------------------------------------

    def feed(self, snapshot: Snapshot) -> None:
        """A board reading.  On the virtual board, a reading the store cannot keep is undone on the
        board (StoreWriteError): the board page and the referee never disagree."""
        with self.lock:
            try:
                self.store.record_snapshot(self.row.id if self.row else None, snapshot.t, snapshot.occupied)
            except sqlite3.Error as exc:
                if self.board is not None:
                    if self.occupied is not None:
                        self.board.set(self.occupied)
                    raise
                # A real board cannot be undone: the reading goes on to the referee, unrecorded.
                now = self.clock()
                if now >= self._blackbox_said:
                    self._blackbox_said = now + 60.0  # one line a minute at most
                    log.warning("a board reading could not be kept in the black box: %s", exc)
            changed = snapshot.occupied != self.occupied
            self.occupied = snapshot.occupied
            if self.unsaved is not None:  # the referee waits for its last decision to be saved
                if changed:
                    self._publish({})
                return
            notices = self._referee(self.ref.feed, snapshot) if self.ref is not None else []
            if notices or changed:
                self.publish(notices)

    def tick(self) -> None:
        with self.lock:
            if self.unsaved is not None:
                self._save_unsaved()
                return
            if self.ref is None:
                return
            notices = self._referee(self.ref.tick, self.clock())
            if notices:
                self.publish(notices)

    def _save_unsaved(self) -> None:
        """Write the held decision if the store takes it now; then publish it and carry on."""
        if not self.session.save_unsaved():
            return
        held, self._held = self._held, {}
        self._publish(held)
        if self.occupied is not None and self.ref is not None:
            # The board may have changed while the referee waited: it carries on from it as it stands.
            notices = self._referee(self.ref.feed, Snapshot(self.clock(), self.occupied))
            if notices:
                self.publish(notices)

    def input(self, player: str, data: object) -> None:
        """A player's input to the referee; the referee's InputError propagates (a 400).

        While the last decision is unsaved, StoreWriteError (a 503 saying so): send it again later."""
        with self.lock:
            if self.ref is None:
                raise TableError("the game has not started: both players must send their setup first")
            self._refuse_while_unsaved()
            try:
                notices = self._referee(self.ref.input, player, data, self.clock())
            except ValueError:
                self._log_input(player, data, False)
                raise
            self._log_input(player, data, True)
            self.publish(notices)

    def _referee(self, call: Callable, *args) -> list:
        """A call to the referee (feed, tick, input), then the game clocks: a flag that fell ends
        the game on time, also when it fell before an action being committed was completed."""
        session = self.session
        try:
            notices = list(call(*args))
        except FlagFell as fell:  # the referee undid the action: it was completed too late
            return self._time_out(fell.side)
        if session is None or session.match is None:
            return notices
        link_ok = not (self.source_status and self.source_status.get("ok") is False)
        side = session.clock_step(self.clock(), link_ok)
        return notices + self._time_out(side) if side else notices

    def resign(self, player: str) -> None:
        """``player`` resigns the game being played at this table (their phone asked "Resign this
        game?" first); TableError in one line when there is none to resign.  A remote game is
        resigned through the hub (host.remote.ending)."""
        with self.lock:
            if getattr(self.session, "remote", False):
                raise TableError("resign: a remote game is resigned through the hub (Resign… on your phone)")
            if self.phase != "playing":
                raise TableError("resign: no game is being played" if self.phase != "over" else
                                 "resign: the game is already over")
            self._refuse_while_unsaved()
            self.session.resign(player)
            log.info("game %d: %s resigned", self.row.id, player)
            self.publish([Notice(PUBLIC, "resigned", {"player": player})])

    def _refuse_while_unsaved(self) -> None:
        """While the last decision is unsaved, a player's change waits: StoreWriteError (a 503
        saying so): send it again later."""
        if self.unsaved is not None:
            raise StoreWriteError(self.unsaved.removeprefix("the game could not be saved: "))

    def _time_out(self, side: str) -> list:
        self.session.time_out(side)
        log.info("game %d: %s's time ran out", self.row.id, side)
        return [Notice(PUBLIC, "flag", {"player": side})]

    def _log_input(self, player: str, data: object, accepted: bool) -> None:
        """The input log is for diagnosis: a store that cannot keep it does not stop the game."""
        try:
            self.store.record_input(self.row.id, player, data, accepted)
        except sqlite3.Error as exc:
            log.warning("an input could not be logged: %s", exc)

    def set_source_status(self, status: dict | None) -> None:
        with self.lock:
            if status != self.source_status:
                self.source_status = status
                self._publish({})

    # --- what each audience sees ---------------------------------------------------------------

    @staticmethod
    def _split(notices) -> dict[str, list]:
        out: dict[str, list] = {"public": [], "white": [], "black": []}
        for n in notices:
            item = {"kind": n.kind, "audience": n.audience, "data": n.data}
            out[n.audience].append(item)
            if n.audience == "public":
                out["white"].append(item)
                out["black"].append(item)
        return out

    def publish(self, notices=()) -> None:
        """Tell every screen: the referee's ``notices`` (each to its audience; public ones to all)
        with every audience's state as it now stands.  The caller holds :attr:`lock`.  (Remote play
        hands the rival's actions and the hub's news through here, as the board's own do.)"""
        self._publish(self._split(notices))

    def _publish(self, notices: dict[str, list]) -> None:
        if self.unsaved is not None:
            # Nobody hears of a decision before it is saved: each screen keeps what it was last
            # shown, told why; the referee's notices wait for the save.
            for audience, items in notices.items():
                self._held.setdefault(audience, []).extend(items)
            self.broker.publish(projections.states(self), {})
            return
        self.leds = projections.leds(self)
        states = projections.states(self)
        self.shown = states
        self.broker.publish(states, notices)
        for seat in self.seats:
            seat.step(self)  # an off-board seat's turn: it decides and declares through self.input

    def refresh(self) -> None:
        """Publish the current state again (an off-board seat's plan changed)."""
        with self.lock:
            self._publish({})

    def show_hub(self, hub: dict) -> None:
        """The link to the club's hub changed (host.remote.push): every screen gets its last state with
        the ``hub`` line changed and nothing else, so the moment of it tells nobody anything of the
        game.  A screen that has been sent nothing yet gets the line with its first state."""
        from host.web.events import AUDIENCES

        with self.lock:
            self.hub = hub
            shown = {a: self.broker.current(a) for a in AUDIENCES}
            if all(shown.values()):
                self.broker.publish({a: dict(s, hub=hub) for a, s in shown.items()}, {})

    def state(self, viewer: str | None = None) -> dict:
        """Everything ``viewer`` (a player, or None for the public) may see now (projections.state)."""
        with self.lock:
            return projections.state(self, viewer)

    def answer(self, viewer: str) -> dict:
        """``viewer``'s state as the answer to their own request, with ``event``: the id of the last
        event their stream was sent when it was read.  The answer and the stream race to the page: a
        page that has already heard a later event keeps it (an answer read before the game's end must
        not draw over the end)."""
        with self.lock:
            return dict(projections.state(self, viewer), event=self.broker.last_id(viewer))

    def _declarations(self, player: str) -> dict | None:
        """What the player to move may declare on their phone now (projections)."""
        return projections._declarations(self.session, player) if self.session is not None else None

    def close(self) -> None:
        self.broker.close()
