"""A session: one game at one table, from both setups to the result.

A :class:`Session` holds the game's stored row, the engine's :class:`~engine.game.Game` (the
truth), its referee and its durable commits: the referee's ``on_commit`` writes each action to
the store before anyone hears of it.  It knows nothing of phones, streams or boards: the table
(:mod:`host.session.table`) feeds it, and the projections (:mod:`host.session.projections`) turn
it into what each audience may see.

A commit the store refuses (read-only, full, failing) is never silent and never lost: the
referee's decision stands in memory but is *unsaved* (``unsaved`` says why) and
:meth:`Session.save_unsaved` writes it as soon as the store takes it.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Callable

from engine.board import PLAYERS, WHITE, other
from engine.game import RESIGNATION, TIME_FORFEIT, Game
from engine.pieces import Setup
from engine.record import termination_of
from host.match.clock import NONE, ClockError, MatchClock, TimeControl
from host.store import GameRow, Store, StoreWriteError

RETRY_SAVE = 0.5  # seconds between attempts to write a decision the store refused
# How long past the moment a mover's time ran out the flag waits for an action the board shows
# changing by then, which may still be committed as completed in time (docs/rules.md, "Clocks").
FLAG_HOLD = 3.0
log = logging.getLogger("quin.table")


class FlagFell(Exception):
    """The mover's time ran out before the action the referee is committing was completed on the
    board: the action is not played (the referee undoes it) and the game ends on time."""

    def __init__(self, side: str):
        super().__init__(f"{side}'s time ran out")
        self.side = side


class Session:
    """One game at one table: its row, its game and referee once both setups are in, its commits.

    Not thread-safe on its own: the table calls it under its lock."""

    def __init__(
        self,
        store: Store,
        row: GameRow,
        *,
        referee_factory: Callable | None = None,
        settle: float = 0.25,
        clock: Callable[[], float],
        wall: Callable[[], float],
        committed_at: float | None = None,
        control: TimeControl = NONE,
    ):
        self.store = store
        self.row = row
        self.control = control  # the game's time control (host.match.clock): none, or the board runs a clock
        self.match: MatchClock | None = None  # both clocks, once the game has begun with a time control
        self._mark_wall: tuple | None = None  # (the clocks' last change, that moment on the wall clock)
        self.game: Game | None = None
        self.ref = None
        self.settle = settle
        self.clock = clock
        self.wall = wall
        self._referee_factory = referee_factory
        # When the table's last commit was written (shown as the state's committed_at; it carries
        # over to the next game until that game's first commit).
        self.committed_at = committed_at
        self.unsaved: str | None = None  # why the referee's last decision is not in the store yet
        self._retry_at = 0.0
        self.rematch: set[str] = set()  # the players who asked to play again, once the game is over
        self._reveal: tuple | None = None  # ((game id, actions), the finished game with every identity open)

    # --- where the game stands -------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """setup (lineups awaited), playing or over."""
        if self.game is None:
            return "setup"
        return "over" if self.game.is_over() else "playing"

    def referee_phase(self) -> str | None:
        """The referee's coarse phase (setup, sync, play, over); None before the game starts."""
        return self.ref.phase if self.ref is not None else None

    def declaring(self, player: str) -> bool:
        """Is it ``player``'s turn, with the referee taking declarations (its phase is play)?"""
        game = self.game
        return (game is not None and self.ref is not None and not game.is_over()
                and game.to_move == player and self.ref.phase == "play")

    def next_first(self) -> str:
        """Who moves first in the next game: the loser of a finished game, or after a draw the
        player who did not move first in it (the host page may choose otherwise)."""
        row, game = self.row, self.game
        result = game.result if game is not None and game.is_over() else None
        winner = result.winner if result is not None else None
        if winner:
            return "black" if winner == "white" else "white"
        if result is not None:
            return "black" if row.first == "white" else "white"
        return row.first

    def revealed(self) -> Game:
        """The finished game replayed with every identity open (Vision Mode: the same rules)."""
        game = self.game
        key = (self.row.id, len(game.log), game.result)
        if self._reveal is None or self._reveal[0] != key:
            open_game = Game(game.setups[WHITE], game.setups["black"], game.mode, True, game.first)
            for _, _, action in game.log:
                open_game.push(action, trusted=True)
            ended = termination_of(game)  # resigned or lost on time: not a move
            if ended is not None:
                open_game.end(ended["reason"], ended["winner"])
            self._reveal = (key, open_game)
        return self._reveal[1]

    # --- from setup to play ----------------------------------------------------------------------

    def setup_done(self) -> dict[str, bool]:
        """Whose lineup is in (a remote session: as the hub says)."""
        return {p: self.row.setups[p] is not None for p in PLAYERS}

    def both_setups(self) -> bool:
        return all(self.row.setups[p] is not None for p in PLAYERS)

    def save_setup(self, player: str, setup: Setup) -> None:
        self.store.save_setup(self.row.id, player, setup)
        self.row = self.store.game(self.row.id)

    def start(self) -> None:
        """Both lineups are in: the game and its referee begin."""
        row = self.row
        setups = {p: Setup.from_record(p, row.setups[p]) for p in PLAYERS}
        self.store.start_game(row.id)  # first: a store that refuses it leaves the table in setup
        self.game = Game(setups["white"], setups["black"], row.mode, row.vision, row.first)
        self.row = self.store.game(row.id)
        self.ref = self._make_referee()
        self._make_clock()

    def load(self) -> None:
        """The game in play rebuilt from its stored actions (StoreError if they no longer replay);
        its clocks go on from the time each had used (the time the service was down is nobody's)."""
        self.game = self.store.load_game(self.row.id)
        self.ref = self._make_referee()
        self._make_clock()
        if self.match is not None:
            saved = self.store.clock_state(self.row.id)
            if saved is not None:
                try:
                    self.match.restore(saved)
                except ClockError as exc:
                    log.error("game %d: its clocks could not be read back (%s): they start again", self.row.id, exc)

    def _make_clock(self) -> None:
        self.match = MatchClock(self.control, self.row.first) if self.control.timed else None

    # --- the game clocks (host.match.clock; docs/rules.md, "Clocks") -----------------------------

    def clock_step(self, now: float, link_ok: bool = True) -> str | None:
        """After every referee call and tick: the clocks start when play begins (both lineups
        stand), stop for nobody's fault (the store cannot save, the board's link is lost), and the
        side whose time ran out is returned once nothing completed on the board before that moment
        can still be committed (the table then ends the game: :meth:`time_out`)."""
        match, game, ref = self.match, self.game, self.ref
        if match is None or game is None or ref is None:
            return None
        if game.is_over():
            if match.running is not None:
                match.stop(now)
            return None
        if not match.started:
            if ref.phase == "play":
                match.start(now, game.to_move)
            return None
        hold = self.unsaved is not None or not link_ok
        if hold and not match.paused:
            match.pause(now)
        elif not hold and match.paused:
            match.resume(now)
        due = match.flag_due()
        if due is None or now < due:
            return None
        if ref.changed_by(due) and now < due + FLAG_HOLD:
            return None  # a tower set down just before may still be committed as in time
        return match.flag(now)

    def clock_view(self, now: float) -> dict | None:
        """Both clocks as every screen shows them (None without a time control); before play
        begins, each side's whole time, nobody's running.  Told at the clocks' last change
        (``MatchClock.mark``), with ``at``, that moment on the wall clock (seconds, as the pages'
        ``/api/now``): the same view whenever it is published, so a publish for one audience (a
        question to the mover) sends nobody else anything."""
        if not self.control.timed:
            return None
        match = self.match or MatchClock(self.control, self.row.first)
        if match.mark is None:  # not begun (or resumed, before the board matches): nobody's runs
            return match.view(now)
        if self._mark_wall is None or self._mark_wall[0] != match.mark:
            self._mark_wall = (match.mark, round(self.wall() - (self.clock() - match.mark), 3))
        return dict(match.view(), at=self._mark_wall[1])

    def time_out(self, side: str) -> None:
        """``side``'s time ran out: the game ends, won by the rival (``time``), and is saved."""
        match = self.match
        if match.flagged is None and match.flag(float("inf")) is None:
            match.flagged, match.running = side, None  # ran out while paused: said as it stands
        self._end(TIME_FORFEIT, side)

    def resign(self, side: str) -> None:
        """``side`` resigns (their phone asked first): the game ends, won by the rival, and is saved;
        the clocks stop."""
        if self.match is not None:
            self.match.stop(self.clock())
        self._end(RESIGNATION, side)

    def _end(self, reason: str, loser: str) -> None:
        """The game ends otherwise than by a move (engine.game.TERMINATIONS), won by ``loser``'s
        rival; saved as any commit is (unsaved, with the reason, if the store refuses it)."""
        self.game.end(reason, other(loser))
        self.ref = self._make_referee()  # the game is over: the referee has nothing more to read
        self._on_commit(self.game.turn, loser, None)

    def _make_referee(self):
        factory = self._referee_factory
        if factory is None:
            from host.referee import Referee

            factory = Referee
        return factory(self.game, on_commit=self._on_commit, settle=self.settle)

    # --- durable commits -------------------------------------------------------------------------

    def _on_commit(self, turn, player, action) -> None:
        """The referee's on_commit: the action is on disk before anyone hears of it.

        If the store refuses it, the decision is kept unsaved (nobody hears of it) and retried.
        With a clock: FlagFell if the action was completed after the mover's time ran out; else
        the mover's clock stops when the action was completed, if it ended the turn."""
        match = self.match
        if match is not None and action is not None:
            now = self.clock()
            completed = getattr(self.ref, "completed_at", None)
            completed = now if completed is None else completed
            if match.running == player:
                due = match.flag_due()
                if due is not None and completed > due:
                    raise FlagFell(player)
                if self.game.is_over():
                    match.stop(completed)
                elif self.game.to_move != player:
                    match.turn_done(player, completed, now)
        if self.unsaved is not None:
            return  # written with the decision before it, once the store takes them
        try:
            self.store.commit_action(self.row.id, self.game, self._clock_saved())
        except sqlite3.Error as exc:
            where = exc.where if isinstance(exc, StoreWriteError) else str(exc)
            self.unsaved = (f"the game could not be saved: {where}. The move is kept and is saved as soon as "
                            "the store can be written; play waits until then")
            self._retry_at = self.clock() + RETRY_SAVE
            log.error("the game could not be saved: %s", where)
            return
        self.committed_at = self.wall()

    def save_unsaved(self, *, now: bool = False) -> bool:
        """Write the held decision if the store takes it (at once with ``now``, else when the retry
        is due).  True when it was just written."""
        if now:
            self._retry_at = float("-inf")
        if self.unsaved is None or self.clock() < self._retry_at:
            return False
        try:
            self.store.commit_action(self.row.id, self.game, self._clock_saved())
        except sqlite3.Error:
            self._retry_at = self.clock() + RETRY_SAVE
            return False
        log.warning("the game is saved again")
        self.unsaved = None
        self.committed_at = self.wall()
        return True

    def _clock_saved(self) -> dict | None:
        return self.match.saved() if self.match is not None else None

    def ensure_saved(self) -> None:
        """Before the game changes hands (a new game): the held decision is saved first, or
        StoreWriteError (a 503) and nothing changes."""
        if self.unsaved is None:
            return
        self.save_unsaved(now=True)
        if self.unsaved is not None:
            raise StoreWriteError(self.unsaved.removeprefix("the game could not be saved: "))
