"""A board that pushes to the hub, as the hub's tests set one up, and what the hub stored of its games.

``Board``: a table served in this process with a pusher and a public stream listener beside it;
``stored_events`` reads the hub's table, ``rebuild`` turns its patches back into whole frames by the
rules docs/hub.md states (the hub's own code is not the oracle)."""

import json
import random
import sqlite3

import psycopg

from engine.board import BLACK, WHITE
from engine.game import Game
from engine.randplay import random_setup
from host.remote.push import Pusher
from host.compose import create_app
from tests.support.webplay import Driver


class Board:
    """A table served in this process (simulated board, manual clock) with a pusher and a public
    stream listener beside it: what the public saw, frame by frame."""

    def __init__(self, folder, url, key, seed=1, mode="classic"):
        app = create_app({"DATA_DIR": str(folder), "TICK": 0, "MANUAL_CLOCK": True, "MODE": mode})
        self.table = app.extensions["quin.table"]
        self.public: list[dict] = []
        sub = self.table.broker.stream("public")
        opening = sub.attach(lambda f: self.public.extend(_data(f)), lambda: None)
        self.public.extend(_data(opening))
        self.pusher = Pusher(self.table, url, key, backoff=(0.05, 0.3)).start()
        self.driver = Driver(app.test_client(), self.table)
        self.rng = random.Random(seed)
        self.mode = mode

    def play(self, actions=None, setups=None):
        """Play on (after the setups, the first time) for ``actions`` actions or to the end."""
        rng = self.rng
        if getattr(self, "shadow", None) is None:
            setups = setups or {WHITE: random_setup(rng, WHITE), BLACK: random_setup(rng, BLACK)}
            self.driver.setup(setups[WHITE], setups[BLACK])
            self.shadow = Game(setups[WHITE], setups[BLACK], self.mode)
        shadow = self.shadow
        n = 0
        while not shadow.is_over() and (actions is None or n < actions):
            action = rng.choice(shadow.legal_actions())
            shadow.push(action)
            self.driver.play(action)
            n += 1
        return shadow

    def drained(self):
        """Nothing left to push: no frame waiting, the outbox empty, and a finished game's record
        sent (it is queued on the pusher's next round, which may come after the outbox was first
        seen empty; read from the board's store, as it stands)."""
        if self.pusher._frames or self.pusher.outbox.pending():
            return False
        row = self.table.row
        if row is None or self.table.store.game(row.id).status not in ("over", "abandoned"):
            return True
        with sqlite3.connect(self.table.store.path) as c:
            return c.execute("SELECT COUNT(*) FROM hub_finals WHERE game_uuid = ? AND sent <> 0",
                             (row.uuid,)).fetchone()[0] == 1

    def stop(self):
        self.pusher.stop()


def _data(frame: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in frame.decode().split("\n") if line.startswith("data: ")]


def public_without_hub(frames):
    """The public frames as the hub should have them: the hub line dropped, repeats dropped."""
    out = []
    for f in frames:
        f = {"state": {k: v for k, v in f["state"].items() if k != "hub"}, "notices": f["notices"]}
        if not out or out[-1] != f:
            out.append(f)
    return out


def stored_events(dsn, game_uuid):
    """(seq, data) as the hub's table holds them: whole frames and patches."""
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT e.seq, e.data FROM hub_events e JOIN hub_games g ON g.id = e.game_id "
                            "WHERE g.uuid = %s ORDER BY seq", (game_uuid,)).fetchall()


def apply_patch(frame, ops) -> None:
    """Apply a patch's operations to ``frame`` in place, by the rules docs/hub.md states (written
    here again: the hub's own code is not the oracle).  KeyError, IndexError or TypeError where one
    does not fit (a key or index that is not there, a step into a value that has none, 'add' to
    what is not a list)."""
    for op in ops:
        *keys, last = op[1]
        parent = frame
        for k in keys:
            parent = parent[k]
        if op[0] == "set":
            parent[last] = op[2]
        elif op[0] == "del":
            del parent[last]
        else:
            if op[0] != "add" or not isinstance(parent[last], list):
                raise TypeError(f"{op[0]!r} does not fit {type(parent[last]).__name__} at {op[1]}")
            parent[last] += op[2]


def rebuild(rows):
    """The whole frames of stored events, each patch applied to the frame before it
    (``apply_patch``)."""
    out, frame = [], None
    for seq, data in rows:
        data = json.loads(data)
        if "patch" in data:
            frame = json.loads(json.dumps(frame))
            apply_patch(frame, data["patch"])
        else:
            frame = data
        out.append((seq, json.dumps(frame)))
    return out


def hub_events(dsn, game_uuid):
    """(seq, the whole frame) of each event the hub holds of the game."""
    return rebuild(stored_events(dsn, game_uuid))
