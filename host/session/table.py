"""The table: one live game, from both setups to the result.

The :class:`Table` ties the parts together: the store (durable first), the
referee (snapshots and inputs in, actions and notices out), the seats (tokens),
the board source and the SSE broker.  Every change goes through one lock, in
this order: the referee acts, its ``on_commit`` callback writes the action to
the store, then the new state and the notices are published to each audience.

A commit the store refuses (read-only, full, failing) is never silent and never
lost: the referee's decision stands in memory but is *unsaved*; every screen
keeps what it last showed, with "the game could not be saved: ..." (``unsaved``
in each state), the referee is not fed meanwhile (the board's readings are
kept), and :meth:`Table.tick` writes the decision as soon as the store takes it,
then publishes it and carries on from the board as it stands: nobody replays
the move.

What an audience receives is built only from ``engine.views.view`` (and
``action_seen_by`` inside it), the referee's public or private status, and the
referee's notices for that audience.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import sqlite3
import threading
import time
from typing import Callable

from engine.board import PLAYERS, SPACE_NAMES, START_SPACES, WHITE
from engine.errors import QuinError
from engine.flash import MODES
from engine.game import Game
from engine.pieces import Setup
from engine.views import view
from engine.actions import Move, Reflect
from engine import words
from host.board.sensing import Snapshot
from host.store import GameRow, Store, StoreError, StoreWriteError

TOKEN_BYTES = 24  # 192 random bits per seat token
RETRY_SAVE = 0.5  # seconds between attempts to write a decision the store refused
log = logging.getLogger("quin.table")


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


class TableError(ValueError):
    """A request the table cannot honour now (one line for the user)."""


class Table:
    """The live game at the table.  Thread-safe."""

    def __init__(
        self,
        store: Store,
        broker,
        *,
        referee_factory: Callable | None = None,
        board=None,
        settle: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        opponent=None,
    ):
        self.store = store
        self.broker = broker
        self.board = board  # the simulated board (host.board.simboard) in simulated mode, else None
        self.settle = settle
        self.clock = clock
        self.wall = wall  # server time shown as committed_at (tests: a manual clock, so runs compare byte for byte)
        self._referee_factory = referee_factory
        self.lock = threading.RLock()
        self.row: GameRow | None = None
        self.game: Game | None = None
        self.ref = None
        self.tokens: dict[str, str] = {}
        self.occupied: frozenset[int] | None = None  # the last snapshot, if any
        self.resume_error: str | None = None
        self.committed_at: float | None = None
        self.source_status: dict | None = None
        self.host_key: str | None = None
        self.leds: dict | None = None  # LED colours for a hardware board, from the referee's instructions
        self.opponent = opponent  # host.opponent.driver.TableOpponent playing one seat, or None
        self.unsaved: str | None = None  # why the referee's last decision is not in the store yet
        self._held: dict[str, list] = {}  # the notices held back meanwhile, per audience
        self._shown: dict[str, dict] = {}  # the state each audience was last sent
        self._retry_at = 0.0
        self._blackbox_said = float("-inf")  # when a black box that cannot be written may be logged again
        self.rematch: set[str] = set()  # the players who asked to play again, once the game is over
        self._reveal: tuple | None = None  # ((game id, actions), the finished game with every identity open)
        self.hub: dict | None = None  # whether the club's hub is reached (host.hub.push), when pushing to one

    # --- the referee ----------------------------------------------------------------------

    def _make_referee(self, game: Game):
        factory = self._referee_factory
        if factory is None:
            from host.referee import Referee

            factory = Referee
        return factory(game, on_commit=self._on_commit, settle=self.settle)

    def _on_commit(self, turn, player, action) -> None:
        """The referee's on_commit: the action is on disk before anyone hears of it.

        If the store refuses it, the decision is kept unsaved (nobody hears of it) and retried."""
        if self.unsaved is not None:
            return  # written with the decision before it, once the store takes them
        try:
            self.store.commit_action(self.row.id, self.game)
        except sqlite3.Error as exc:
            where = exc.where if isinstance(exc, StoreWriteError) else str(exc)
            self.unsaved = (f"the game could not be saved: {where}. The move is kept and is saved as soon as "
                            "the store can be written; play waits until then")
            self._held = {"public": [], "white": [], "black": []}
            self._retry_at = self.clock() + RETRY_SAVE
            log.error("the game could not be saved: %s", where)
            return
        self.committed_at = self.wall()

    def _no_unsaved(self) -> None:
        """Before the game changes hands (a new game): the held decision is saved first, or
        StoreWriteError (a 503) and nothing changes."""
        if self.unsaved is None:
            return
        self._retry_at = float("-inf")
        self._save_unsaved()
        if self.unsaved is not None:
            raise StoreWriteError(self.unsaved.removeprefix("the game could not be saved: "))

    def _save_unsaved(self) -> None:
        """Write the held decision if the store takes it now; then publish it and carry on."""
        if self.clock() < self._retry_at:
            return
        try:
            self.store.commit_action(self.row.id, self.game)
        except sqlite3.Error:
            self._retry_at = self.clock() + RETRY_SAVE
            return
        log.warning("the game is saved again")
        self.unsaved = None
        self.committed_at = self.wall()
        held, self._held = self._held, {}
        self._publish(held)
        if self.occupied is not None and self.ref is not None:
            # The board may have changed while the referee waited: it carries on from it as it stands.
            notices = self.ref.feed(Snapshot(self.clock(), self.occupied))
            if notices:
                self._publish(self._split(notices))

    # --- lifecycle -------------------------------------------------------------------------

    def open(self, mode: str = "classic", vision: bool = False, first: str = WHITE, *, take_over: bool = False) -> None:
        """Resume the open game from the store, or start a new one in setup.

        With a practice opponent, a game two people are playing (begun, or its seat's lineup sent
        from a phone) is not handed to it silently: a TableError says so, unless ``take_over``.
        """
        with self.lock:
            if self.opponent is not None and not take_over:
                taken = self.seat_taken_over()
                if taken is not None:
                    raise TableError(taken)
            # Stream ids never repeat across restarts: each start numbers its events in a new epoch.
            epoch = self.store.next_epoch()
            if hasattr(self.broker, "set_epoch"):
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
                    self.row = None
                    self.store.abandon(row.id)
                    row = None
            if row is None:
                self._new(mode, vision, first)
            self._publish(self._split(notices))

    def seat_taken_over(self) -> str | None:
        """Why opening the store's open game would take a person's seat from them, or None.

        The practice opponent may take a seat nobody has played yet; a game whose lineup for that
        seat came from a phone, or that is under way with a person in that seat, is theirs."""
        row = self.store.open_game()
        if row is None or self.opponent is None:
            return None
        side = self.opponent.side
        if self.store.meta(f"opponent:{row.id}") == side:
            return None  # the opponent played this seat already
        if row.status == "playing" or row.setups.get(side) is not None:
            what = "is being played" if row.status == "playing" else "is being set up"
            return (f"game {row.id} {what} by two people: the practice opponent would take "
                    f"{side.capitalize()}'s seat and that phone would stop working")
        return None

    def _opponent_plays(self, game_id: int) -> None:
        """Note who plays this game's seats, so a later start knows whether a person's seat is at stake."""
        self.store.set_meta(f"opponent:{game_id}", self.opponent.side if self.opponent is not None else "none")

    def _resume(self, row: GameRow) -> list:
        """Rebuild the open game from its stored actions, then check the board against it."""
        row.check()  # a damaged row is set aside like a game that no longer replays
        if self.opponent is not None:
            self._opponent_plays(row.id)
        self.row = row
        self.tokens = self.store.seats(row.id)
        self.game = None
        self.ref = None
        if row.status == "setup" and all(row.setups[p] is not None for p in PLAYERS):
            # Both lineups were saved but the power went before the game was marked started.
            self._start()
            return []
        if row.status != "playing":
            return []
        self.game = self.store.load_game(row.id)
        self.ref = self._make_referee(self.game)
        if self.occupied is None:
            return []
        # The referee waits for the board to match the game, with corrections if it does not.
        return list(self.ref.feed(Snapshot(self.clock(), self.occupied)))

    @staticmethod
    def _check_settings(mode: object, vision: object, first: object) -> None:
        if not isinstance(mode, str) or mode not in MODES:
            raise TableError(f"mode: expected 'classic' or 'third_eye', got {mode!r}")
        if not isinstance(vision, bool):
            raise TableError(f"vision: expected true or false, got {vision!r}")
        if not isinstance(first, str) or first not in PLAYERS:
            raise TableError(f"first: expected 'white' or 'black', got {first!r}")

    def _new(self, mode: str, vision: bool, first: str) -> None:
        """A new game in setup.  A seat is a phone's place at the table: it keeps its token from
        game to game (a phone on it is carried to the new game) until the host re-issues it."""
        self._check_settings(mode, vision, first)
        tokens = {p: self.tokens.get(p) or new_token() for p in PLAYERS}
        game_id = self.store.new_game(mode, vision, first, tokens)
        self._opponent_plays(game_id)
        self.row = self.store.game(game_id)
        self.tokens = tokens
        self.game = None
        self.ref = None
        self.rematch = set()

    def new_game(self, mode: str = "classic", vision: bool = False, first: str = WHITE) -> int:
        """Abandon the open game (if unfinished) and start a new one in setup, with the same seats."""
        self._check_settings(mode, vision, first)  # before anything changes: a bad request abandons nothing
        with self.lock:
            self._no_unsaved()
            if self.row is not None:
                self.store.abandon(self.row.id)
            self._new(mode, vision, first)
            self._publish({})
            return self.row.id

    def next_first(self) -> str:
        """Who moves first in the next game: the loser of a finished game, or after a draw the
        player who did not move first in it (the host page may choose otherwise)."""
        row, game = self.row, self.game
        if row is None:
            return WHITE
        result = game.result if game is not None and game.is_over() else None
        winner = getattr(result, "winner", None)
        if winner:
            return "black" if winner == "white" else "white"
        if result is not None:
            return "black" if row.first == "white" else "white"
        return row.first

    def play_again(self, player: str) -> int | None:
        """``player`` asks for a rematch once the game is over: the same seats, mode and Vision, the
        loser moving first.  It starts when every phone seat has asked (the practice opponent always
        agrees); returns the new game's number then, else None."""
        with self.lock:
            if self.phase != "over":
                raise TableError("the game is not over: play again once it has ended")
            self.rematch.add(player)
            waiting = [p for p in self.phone_seats() if p not in self.rematch]
            if waiting:
                self._publish({})
                return None
            row = self.row
            return self.new_game(row.mode, row.vision, self.next_first())

    def reissue(self, player: str) -> str:
        """A new seat token for ``player`` (a lost phone); the old one stops working at once."""
        if player not in PLAYERS:
            raise TableError(f"player: expected 'white' or 'black', got {player!r}")
        if self.opponent is not None and player == self.opponent.side:
            raise TableError(f"{player} is played by the practice opponent: its seat has no phone to re-issue")
        with self.lock:
            token = new_token()
            self.store.reissue_seat(self.row.id, player, token)
            self.tokens[player] = token
            self.broker.disconnect(player)
            return token

    # --- seats ----------------------------------------------------------------------------

    def phone_seats(self) -> dict[str, str]:
        """The seats a phone joins, with their tokens: the practice opponent's seat is not one."""
        robot = self.opponent.side if self.opponent is not None else None
        return {player: token for player, token in self.tokens.items() if player != robot}

    def seat_of(self, token: object) -> str | None:
        """The player a token seats, compared in constant time; None for a bad token."""
        if not isinstance(token, str) or not token:
            return None
        given = token.encode("utf-8", "surrogateescape")
        found = None
        # The opponent's seat has no phone: its lineup is nobody's to see.
        for player, expected in self.phone_seats().items():
            if hmac.compare_digest(given, expected.encode()):
                found = player
        return found

    @property
    def phase(self) -> str:
        if self.row is None:
            return "idle"
        if self.game is None:
            return "setup"
        return "over" if self.game.is_over() else "playing"

    def submit_setup(self, player: str, data: object) -> None:
        """A player's clone, removed piece and lineup.  The game starts once both are in."""
        with self.lock:
            if self.phase != "setup":
                raise TableError("the game has already started: setups are closed")
            try:
                setup = Setup.from_record(player, data)
            except QuinError as exc:
                raise TableError(str(exc)) from None
            self.store.save_setup(self.row.id, player, setup)
            self.row = self.store.game(self.row.id)
            if all(self.row.setups[p] is not None for p in PLAYERS):
                self._start()
            self._publish({})

    def _start(self) -> None:
        row = self.row
        setups = {p: Setup.from_record(p, row.setups[p]) for p in PLAYERS}
        self.store.start_game(row.id)  # first: a store that refuses it leaves the table in setup
        self.game = Game(setups["white"], setups["black"], row.mode, row.vision, row.first)
        self.row = self.store.game(row.id)
        self.ref = self._make_referee(self.game)
        if self.occupied is not None:
            self._route(self.ref.feed(Snapshot(self.clock(), self.occupied)))

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
            notices = self.ref.feed(snapshot) if self.ref is not None else []
            if notices or changed:
                self._publish(self._split(notices))

    def tick(self) -> None:
        with self.lock:
            if self.unsaved is not None:
                self._save_unsaved()
                return
            if self.ref is None:
                return
            notices = self.ref.tick(self.clock())
            if notices:
                self._publish(self._split(notices))

    def input(self, player: str, data: object) -> None:
        """A player's input to the referee; the referee's InputError propagates (a 400).

        While the last decision is unsaved, StoreWriteError (a 503 saying so): send it again later."""
        with self.lock:
            if self.ref is None:
                raise TableError("the game has not started: both players must send their setup first")
            if self.unsaved is not None:
                raise StoreWriteError(self.unsaved.removeprefix("the game could not be saved: "))
            try:
                notices = self.ref.input(player, data, self.clock())
            except ValueError:
                self._log_input(player, data, False)
                raise
            self._log_input(player, data, True)
            self._publish(self._split(notices))

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

    def _route(self, notices) -> None:
        self._publish(self._split(notices))

    def _publish(self, notices: dict[str, list]) -> None:
        if self.unsaved is not None:
            # Nobody hears of a decision before it is saved: each screen keeps what it was last
            # shown, told why; the referee's notices wait for the save.
            for audience, items in notices.items():
                self._held.setdefault(audience, []).extend(items)
            self.broker.publish({a: self.state(None if a == "public" else a) for a in ("public", "white", "black")}, {})
            return
        self.leds = self._leds()
        states = {a: self.state(None if a == "public" else a) for a in ("public", "white", "black")}
        self._shown = states
        self.broker.publish(states, notices)
        if self.opponent is not None:
            self.opponent.step(self)  # its turn: it decides and declares through self.input

    def refresh(self) -> None:
        """Publish the current state again (the opponent's plan changed)."""
        with self.lock:
            self._publish({})

    def state(self, viewer: str | None = None) -> dict:
        """Everything ``viewer`` (a player, or None for the public) may see now.

        While a decision is unsaved: what it was last shown, the board's reading, and ``unsaved``."""
        with self.lock:
            audience = viewer or "public"
            if self.unsaved is not None and audience in self._shown:
                shown = dict(self._shown[audience], unsaved=self.unsaved)
                shown["board"] = dict(shown["board"], occupied=self._board_state()["occupied"])
                return shown
            row = self.row
            game = self.game
            data: dict = {
                "phase": self.phase,
                "game": row.id if row else None,
                "mode": row.mode if row else None,
                "vision": row.vision if row else False,
                "first": row.first if row else None,
                "setup_done": {p: bool(row and row.setups[p] is not None) for p in PLAYERS},
                "simulated": self.board is not None,
                "board": self._board_state(),
                "source": self.source_status,
                "committed_at": self.committed_at,
                "view": view(self._revealed(), viewer) if self.phase == "over" else view(game, viewer) if game is not None else None,
                "referee": self._referee_status(),
                "opponent": self.opponent.public_status(self) if self.opponent is not None else None,
            }
            if self.phase == "over":
                # The game is over: nothing is hidden any more.  Every identity is shown to everyone,
                # and the table says who has asked to play again and who would move first.
                data["revealed"] = True
                data["again"] = {"asked": sorted(self.rematch), "first": self.next_first(),
                                 "needs": sorted(self.phone_seats())}
            if self.resume_error and viewer is None:
                data["notice"] = self.resume_error
            if self.unsaved is not None:
                data["unsaved"] = self.unsaved
            if self.hub is not None:
                data["hub"] = self.hub
            if viewer is not None:
                data["seat"] = {
                    "player": viewer,
                    "setup": row.setups[viewer] if row else None,
                    "private": self.ref.private_status(viewer) if self.ref is not None else None,
                    "hints": self._hints(viewer),
                    "declarations": self._declarations(viewer),
                    "start_spaces": [SPACE_NAMES[s] for s in START_SPACES[viewer]],
                }
            return data

    def _revealed(self) -> Game:
        """The finished game replayed with every identity open (Vision Mode: the same rules)."""
        game = self.game
        key = (self.row.id, len(game.log))
        if self._reveal is None or self._reveal[0] != key:
            open_game = Game(game.setups[WHITE], game.setups["black"], game.mode, True, game.first)
            for _, _, action in game.log:
                open_game.push(action, trusted=True)
            self._reveal = (key, open_game)
        return self._reveal[1]

    def _referee_status(self) -> dict | None:
        """The referee's public status, without its settled board: the moment the board settles
        without a commit is the moment the mover is asked a question, so it is not published
        (the sensors' own reading, ``board.occupied``, is)."""
        if self.ref is None:
            return None
        status = self.ref.public_status()
        status.pop("board", None)
        return status

    def _board_state(self) -> dict:
        occupied = sorted(SPACE_NAMES[s] for s in self.occupied) if self.occupied is not None else None
        expected = None
        if self.ref is not None:
            expected = self.ref.expected()
        elif self.row is not None:
            expected = frozenset(s for p in PLAYERS for s in START_SPACES[p])
        out = {"occupied": occupied, "expected": sorted(SPACE_NAMES[s] for s in expected) if expected is not None else None}
        if self.occupied is not None and expected is not None:
            out["lift"] = sorted(SPACE_NAMES[s] for s in self.occupied - expected)
            out["place"] = sorted(SPACE_NAMES[s] for s in expected - self.occupied)
        return out

    def _hints(self, player: str) -> dict | None:
        """Legal destinations by starting space: Vision Mode only (every identity is public)."""
        game = self.game
        if game is None or not game.vision or game.is_over() or game.to_move != player:
            return None
        return {SPACE_NAMES[a]: sorted({SPACE_NAMES[b] for b in to}) for a, to in words.destinations(game).items()}

    def _declarations(self, player: str) -> dict | None:
        """What the player to move may declare on their phone now (docs/referee.md's inputs).

        Derived from the mover's own legal actions, which depend only on their own
        towers and the public board.
        """
        game = self.game
        ref = self.ref
        if game is None or ref is None or game.is_over() or game.to_move != player:
            return None
        if getattr(ref, "phase", "play") != "play":
            return None
        said = words.declarations(game)  # the engine says what may be declared; the phone words it
        return {"reinforce": [list(ps) for ps in said.reinforce], "resurrect": list(said.resurrect),
                "time": said.time, "swap": said.swap}

    def _leds(self) -> dict[int, tuple[int, int, int]]:
        """The board's LEDs: the referee's public instructions (spaces to clear, fill, move), the practice
        opponent's plan and the last move."""
        ref = self.ref
        if ref is None:
            return {}
        from host.board.leds import colours

        status = ref.public_status()
        # Public instructions only: the whole table sees the board's lights, and the mover's own
        # corrections follow their hidden towers (after a declared Power of Time, "put the tower
        # back on w39" says w39 is no Time tower).  Those stay on the mover's phone.
        todo = list(status.get("instructions") or [])
        fixing = status.get("phase") in ("setup", "sync")
        items: list[dict] = []
        for ins in todo:
            do = ins.get("do")
            if do == "move":
                items.append({"kind": "correction" if fixing else "remove", "spaces": [ins["from"]]})
                items.append({"kind": "correction" if fixing else "place", "spaces": [ins["to"]]})
            elif do in ("clear", "fill"):
                kind = "correction" if fixing else ("remove" if do == "clear" else "place")
                items.append({"kind": kind, "spaces": [ins["space"]]})
        if self.opponent is not None:
            items += self.opponent.led_items(self)
        if self.game is not None and self.game.log:
            last = self.game.log[-1][2]
            if isinstance(last, (Move, Reflect)):
                items.append({"kind": "last_move", "spaces": [last.frm, last.to]})
        try:
            return colours(items)
        except ValueError:
            return {}

    def close(self) -> None:
        self.broker.close()

