"""Reading the store: every query of a game, its seats, actions, reveals, inputs and black box.

:class:`Reader` holds the read statements; the :class:`~.games.Store` (one connection shared by
the referee and the web threads) adds the writes, and :class:`~.history.History` (a connection
of its own per web request) the history's summaries.  Each reads under its own lock.
"""

from __future__ import annotations

import json
import sqlite3
import threading

from engine.board import PLAYERS
from engine.game import Game

from .errors import StoreError
from .records import GameRow, parse_action_row, parse_snapshot_row
from .replay import Replay, replay_readable, replay_stored

# A game's time control and its clocks as last committed, kept in ``meta`` (host.match.clock)
CONTROL_KEY = "clock:{}"
CLOCKS_KEY = "clock_state:{}"


class Reader:
    """The store's read statements on one connection (``_conn``, under ``_lock``)."""

    _conn = None
    _lock: threading.RLock

    @property
    def table_id(self) -> str | None:
        """This data folder's table identity (a UUID made once; None in a read-only older store)."""
        return self.meta("table_id")

    def meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else default

    def control(self, game_id: int) -> str | None:
        """A game's time control as it was set (``25+10``; host.match.clock), None for none."""
        return self.meta(CONTROL_KEY.format(game_id))

    def clock_state(self, game_id: int) -> object:
        """A game's clocks as last committed (host.match.clock's ``saved()``), None before."""
        raw = self.meta(CLOCKS_KEY.format(game_id))
        try:
            return json.loads(raw) if raw is not None else None
        except ValueError:
            return raw  # said when it is read back (MatchClock.restore)

    # --- games -------------------------------------------------------------------------------

    def game(self, game_id: int) -> GameRow:
        if not 0 < game_id < 2**63:
            raise StoreError(f"no game {game_id}")
        with self._lock:
            row = self._conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id}")
        return GameRow.from_row(row)

    def games(self) -> list[GameRow]:
        """Every game, newest first; a damaged row comes back with its ``damage`` named."""
        with self._lock:
            rows = self._conn.execute("SELECT * FROM games ORDER BY id DESC").fetchall()
        return [GameRow.from_row(r) for r in rows]

    def action_counts(self) -> dict[int, int]:
        with self._lock:
            rows = self._conn.execute("SELECT game_id, COUNT(*) AS n FROM actions GROUP BY game_id").fetchall()
        return {r["game_id"]: r["n"] for r in rows}

    def open_game(self) -> GameRow | None:
        """The most recent game still in setup or being played, if any."""
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM games WHERE status IN ('setup', 'playing') ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return GameRow.from_row(row) if row else None

    # --- seats and actions ---------------------------------------------------------------------

    def seats(self, game_id: int) -> dict[str, str]:
        with self._lock:
            rows = self._conn.execute("SELECT player, token FROM seats WHERE game_id = ?", (game_id,)).fetchall()
        return {r["player"]: r["token"] for r in rows}

    def players(self, game_id: int) -> dict[str, dict]:
        """{player: {"name", "code"}} of the seats that named someone (a store without the table: {})."""
        with self._lock:
            try:
                rows = self._conn.execute("SELECT player, name, code FROM seat_players WHERE game_id = ?",
                                          (game_id,)).fetchall()
            except sqlite3.OperationalError:  # a read-only older store
                return {}
        return {r["player"]: {"name": r["name"], "code": r["code"]} for r in rows
                if r["player"] in PLAYERS and (r["name"] or r["code"])}

    def _action_rows(self, game_id: int) -> list:
        with self._lock:
            return self._conn.execute(
                "SELECT turn, player, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()

    def actions(self, game_id: int) -> list[tuple[int, str, dict]]:
        """The stored actions of a game: (turn, player, record form), in order.

        StoreError (``where``: ``"action N"``) at the first row that does not read.
        """
        rows = self._action_rows(game_id)
        return [(r["turn"], r["player"], parse_action_row(seq, r["action"])) for seq, r in enumerate(rows, 1)]

    def reveals(self, game_id: int) -> list[dict]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT event FROM reveals WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        return [json.loads(r["event"]) for r in rows]

    # --- inputs and the black box ------------------------------------------------------------

    def inputs(self, game_id: int) -> list[dict]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT player, data, accepted, at, repeats FROM inputs WHERE game_id = ? ORDER BY id", (game_id,)
            ).fetchall()
        out = []
        for r in rows:
            try:
                data = json.loads(r["data"])
            except (TypeError, ValueError, RecursionError):
                continue  # a damaged row: the log is for diagnosis, the game does not depend on it
            out.append({"player": r["player"], "data": data, "accepted": bool(r["accepted"]), "at": r["at"],
                        "repeats": r["repeats"] if isinstance(r["repeats"], int) else 1})
        return out

    def blackbox(self, limit: int = 100) -> list[dict]:
        """The most recent readable snapshots, oldest first (a damaged row is passed over)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT game_id, t, occupied FROM blackbox ORDER BY id DESC LIMIT ?", (limit,)
            ).fetchall()
        out = []
        for r in reversed(rows):
            occupied = parse_snapshot_row(r["occupied"])
            if occupied is not None and isinstance(r["t"], (int, float)):
                out.append({"game": r["game_id"], "t": r["t"], "occupied": occupied})
        return out

    # --- rebuilding games ---------------------------------------------------------------------

    def load_game(self, game_id: int) -> Game:
        """Rebuild a game by replaying its stored actions through the engine."""
        return replay_stored(self.game(game_id), lambda: self.actions(game_id))

    def record(self, game_id: int) -> dict:
        """The ``quin-record/1`` record of a game (finished or not); StoreError if it never started."""
        from engine.record import to_record

        row = self.game(game_id)
        row.check()
        if row.setups["white"] is None or row.setups["black"] is None:
            raise StoreError(f"game {game_id} never started (the setups were not both given): there is no record")
        return to_record(self.load_game(game_id))

    def replayed(self, row: GameRow, vision: bool) -> Replay:
        """A game as far as its stored actions read and replay (:func:`.replay.replay_readable`):
        ``vision`` True shows every identity (a finished game)."""
        return replay_readable(row, [r["action"] for r in self._action_rows(row.id)], vision)
