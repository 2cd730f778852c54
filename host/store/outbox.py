"""The hub outbox: what the board has to push to a club's hub, kept in the board's own store.

:class:`Outbox` numbers each public frame of a game (1, 2, ...; a frame that repeats the game's
last one is not kept), queues the record of each finished game, hands out the oldest
unacknowledged as one push's body and forgets them once the hub acknowledges them.  Its tables
(``hub_outbox``, ``hub_numbered``, ``hub_finals``) live in the board's SQLite file beside the
games; frames are written without waiting for the disk and each acknowledgement durably, which
carries every frame numbered before it there.  The network side (the thread, the HTTP pushes,
backoff, the status page's hub line) is :mod:`host.remote.push`.
"""

from __future__ import annotations

import json

from .errors import StoreError

GAMES = 8  # games whose events go in one push (the hub takes at most 8 games of a table in play at once)

OUTBOX = """
CREATE TABLE IF NOT EXISTS hub_outbox (
    id INTEGER PRIMARY KEY,
    game_uuid TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    UNIQUE (game_uuid, seq)
);
CREATE TABLE IF NOT EXISTS hub_numbered (
    game_uuid TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hub_finals (
    game_uuid TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0  -- 0 to send, 1 acknowledged, 2 refused by the hub for good
);
CREATE TABLE IF NOT EXISTS hub_refused (
    game_uuid TEXT PRIMARY KEY,
    reason TEXT NOT NULL  -- the hub's one line: why it will not keep this game's record
);
"""


class Outbox:
    """What the hub has not acknowledged yet, in the board's store (its own tables, its own lock)."""

    def __init__(self, store, diff=None, keyframe: int = 100):
        """``diff(previous, frame)``: the patch from one public frame to the next (host.hub.frames.diff),
        or None to keep every frame whole; a whole frame at least every ``keyframe`` events."""
        self.store = store
        self.diff = diff
        self.keyframe = keyframe
        self._last: dict[str, tuple[str, dict]] = {}  # game uuid -> its last frame (text, parsed)
        with store._tx() as c:
            for statement in OUTBOX.split(";"):
                if statement.strip():
                    c.execute(statement)

    def add(self, game_uuid: str, frame: dict, full: bool = False) -> bool:
        """Number a public frame of a game and keep it; False if it repeats the game's last one.

        What is kept (and pushed) is the frame itself when it is the game's first, when ``full``
        (the first this pusher sends of a game since it started), every ``keyframe`` events, or
        when its patch would not be smaller; otherwise ``{"patch": ...}``, the changes from the
        game's previous frame (host/hub/frames.py)."""
        data = json.dumps(frame, separators=(",", ":"))
        with self.store._tx(durable=False) as c:
            row = c.execute("SELECT seq, data FROM hub_numbered WHERE game_uuid = ?", (game_uuid,)).fetchone()
            if row is not None and row["data"] == data:
                return False
            seq = (row["seq"] if row else 0) + 1
            payload = data
            if self.diff is not None and row is not None and not full and seq % self.keyframe != 1:
                last = self._last.get(game_uuid)
                previous = last[1] if last is not None and last[0] == row["data"] else json.loads(row["data"])
                patch = json.dumps({"patch": self.diff(previous, frame)}, separators=(",", ":"))
                if len(patch) < len(data):
                    payload = patch
            c.execute("INSERT INTO hub_outbox(game_uuid, seq, data) VALUES (?, ?, ?)", (game_uuid, seq, payload))
            c.execute("INSERT OR REPLACE INTO hub_numbered(game_uuid, seq, data) VALUES (?, ?, ?)",
                      (game_uuid, seq, data))
        self._last.pop(game_uuid, None)
        self._last[game_uuid] = (data, frame)
        if len(self._last) > 8:  # the games of this table now: one or two
            self._last.pop(next(iter(self._last)))
        return True

    def realign(self, game_uuid: str, hub_last: int) -> None:
        """The hub holds other frames than this board under some of its numbers (the board lost the
        record of a push the hub stored, a power cut): number on after the hub's, starting afresh
        with the whole newest frame (the frames numbered over the hub's are not sent)."""
        with self.store._tx() as c:
            row = c.execute("SELECT data FROM hub_numbered WHERE game_uuid = ?", (game_uuid,)).fetchone()
            c.execute("DELETE FROM hub_outbox WHERE game_uuid = ?", (game_uuid,))
            if row is not None:
                c.execute("INSERT INTO hub_outbox(game_uuid, seq, data) VALUES (?, ?, ?)",
                          (game_uuid, hub_last + 1, row["data"]))
                c.execute("UPDATE hub_numbered SET seq = ? WHERE game_uuid = ?", (hub_last + 1, game_uuid))

    def add_finals(self, hold: frozenset[str] | set[str] = frozenset()) -> int:
        """Queue the record of every game that is over (or abandoned) and had events pushed.

        ``hold``: games over in the store whose last frame (the one that shows them over) is not
        numbered yet; their records wait for it.  The hub rates a game only when its last live
        frame shows the record's turns, and a record goes after every frame queued before it."""
        with self.store._lock:
            rows = self.store._conn.execute(
                "SELECT g.id, g.uuid, g.status FROM games g JOIN hub_numbered n ON n.game_uuid = g.uuid "
                "WHERE g.status IN ('over', 'abandoned') AND g.uuid NOT IN (SELECT game_uuid FROM hub_finals)"
            ).fetchall()
        rows = [r for r in rows if not (r["status"] == "over" and r["uuid"] in hold)]
        for row in rows:
            final = self._final(row["id"])
            with self.store._tx(durable=False) as c:
                c.execute("INSERT OR IGNORE INTO hub_finals(game_uuid, data) VALUES (?, ?)",
                          (row["uuid"], json.dumps(final, separators=(",", ":"))))
        return len(rows)

    def _final(self, game_id: int) -> dict:
        row = self.store.game(game_id)
        try:
            record = self.store.record(game_id)
        except StoreError:
            record = None  # never started, or no longer replays: the result alone
        # who played, as they said on their phones: names, and the hub's player codes they gave
        # (outside the quin-record/1 record, which stays as the spec has it)
        players = {p: {"name": who.get("name"), "code": who.get("code")}
                   for p, who in self.store.players(game_id).items()}
        return {"status": row.status if row.status in ("over", "abandoned") else "abandoned", "record": record,
                "result": row.result, "created": row.created, "finished": row.finished, "mode": row.mode,
                "players": players}

    def batch(self, limit: int, max_bytes: int) -> tuple[list[int], list[str], dict]:
        """(outbox ids, final game uuids, the push body) of the oldest unacknowledged: at most ``limit``
        events and about ``max_bytes`` bytes of them.  Frames of a game whose final the hub has
        acknowledged (the status page's after the end: its hub line) are dropped: the hub takes no
        event of a game that is over."""
        with self.store._tx() as c:
            c.execute("DELETE FROM hub_outbox WHERE game_uuid IN (SELECT game_uuid FROM hub_finals WHERE sent = 1)")
        with self.store._lock:
            rows = self.store._conn.execute(
                "SELECT id, game_uuid, seq, data FROM hub_outbox ORDER BY id LIMIT ?", (limit,)).fetchall()
            pending = {r[0] for r in self.store._conn.execute("SELECT DISTINCT game_uuid FROM hub_outbox")}
            finals = self.store._conn.execute(
                "SELECT game_uuid, data FROM hub_finals WHERE sent = 0 LIMIT 20").fetchall()
        size, uuids = 0, set()
        for n, r in enumerate(rows):
            size += len(r["data"])
            uuids.add(r["game_uuid"])
            if (size > max_bytes or len(uuids) > GAMES) and n:  # the hub keeps a table to 8 live games
                rows = rows[:n]
                break
        games: dict[str, dict] = {}
        for r in rows:
            games.setdefault(r["game_uuid"], {"uuid": r["game_uuid"], "events": []})["events"].append(
                {"seq": r["seq"], "data": json.loads(r["data"])})
        sent_finals = []
        for f in finals:
            # a record goes only after every event of its game, in the same push as the last ones
            if f["game_uuid"] in pending and not self._all_in(f["game_uuid"], rows):
                continue
            games.setdefault(f["game_uuid"], {"uuid": f["game_uuid"], "events": []})["final"] = json.loads(f["data"])
            sent_finals.append(f["game_uuid"])
        return [r["id"] for r in rows], sent_finals, {"board": self.store.table_id, "games": list(games.values())}

    def _all_in(self, game_uuid: str, rows) -> bool:
        with self.store._lock:
            left = self.store._conn.execute("SELECT COUNT(*) FROM hub_outbox WHERE game_uuid = ?",
                                            (game_uuid,)).fetchone()[0]
        return left == sum(1 for r in rows if r["game_uuid"] == game_uuid)

    def acknowledged(self, ids: list[int], finals: list[str]) -> None:
        # Durable, once per push: with it every frame numbered before is on disk too (the log is
        # written in order), so after a power cut the board never numbers a frame again with a
        # number the hub already holds.
        with self.store._tx() as c:
            c.executemany("DELETE FROM hub_outbox WHERE id = ?", [(i,) for i in ids])
            c.executemany("UPDATE hub_finals SET sent = 1 WHERE game_uuid = ?", [(u,) for u in finals])

    def refused(self, game_uuid: str, reason: str) -> None:
        """The hub refused a game's final for good (400 or 422: the record is not the game it
        claims): kept aside with the hub's reason, never sent again."""
        with self.store._tx() as c:
            c.execute("UPDATE hub_finals SET sent = 2 WHERE game_uuid = ?", (game_uuid,))
            c.execute("INSERT OR REPLACE INTO hub_refused(game_uuid, reason) VALUES (?, ?)", (game_uuid, reason))

    def pending(self) -> int:
        with self.store._lock:
            events = self.store._conn.execute("SELECT COUNT(*) FROM hub_outbox").fetchone()[0]
            finals = self.store._conn.execute("SELECT COUNT(*) FROM hub_finals WHERE sent = 0").fetchone()[0]
        return events + finals

    def numbered(self) -> int:
        """How many frames were numbered, every game together (each game's last number)."""
        with self.store._lock:
            return self.store._conn.execute("SELECT COALESCE(SUM(seq), 0) FROM hub_numbered").fetchone()[0]
