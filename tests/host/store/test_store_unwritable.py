"""A store that cannot be written (issue 18): `quin serve` says in one line what and where and exits 2;
while running, a write the store refuses is a 503 that says it could not be written; a commit that
fails is told to the table, kept pending and written as soon as the store takes it."""

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.support.quin_cmd import QUIN
from tests.support.served import ROOT
from tests.support.stores import stored_games
from tests.support.webtools import board_headers


def read_only(*paths: Path) -> list[str]:
    """A command prefix under which ``paths`` cannot be written, even by root: each is bind-mounted
    read-only in a private mount namespace (a user namespace, so no privilege is needed); as an
    ordinary user a chmod does the same."""
    if os.geteuid() != 0:
        for p in paths:
            p.chmod(0o444 if p.is_file() else 0o555)
        return []
    mounts = " && ".join(f"mount --bind {shlex.quote(str(p))} {shlex.quote(str(p))} && "
                         f"mount -o remount,ro,bind {shlex.quote(str(p))}" for p in paths)
    return ["unshare", "-rm", "sh", "-c", f'{mounts} && exec "$@"', "sh"]


def serve_on(folder: Path, *prefix: str):
    return subprocess.run([*prefix, *QUIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(folder),
                           "--no-qr", "--no-mdns"], cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("what", ["quin.sqlite3", "quin.sqlite3-wal", "the folder"])
def test_quin_serve_on_a_store_it_cannot_write_says_what_and_where_and_exits_2(tmp_path, what):
    stored_games(tmp_path, n=1)
    db = tmp_path / "quin.sqlite3"
    if what == "quin.sqlite3-wal":
        import sqlite3

        with sqlite3.connect(db) as c:  # a WAL that is there and holds nothing yet
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("CREATE TABLE IF NOT EXISTS keep_wal(x)")
            c.execute("PRAGMA wal_autocheckpoint=0")
        assert Path(f"{db}-wal").exists()
    target = tmp_path if what == "the folder" else tmp_path / what
    if what == "the folder":
        for side in ("-wal", "-shm"):
            Path(f"{db}{side}").unlink(missing_ok=True)
    out = serve_on(tmp_path, *read_only(target))
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr + out.stdout, out.stderr
    assert "cannot be written" in lines[0]
    named = f"the folder {tmp_path} is read-only" if what == "the folder" else f"{tmp_path / what} is read-only"
    assert named in lines[0], lines[0]


# --- while running: a store that stops taking writes ------------------------------------------------

from engine.actions import Move  # noqa: E402
from engine.randplay import random_setup  # noqa: E402
from host.board.sensing import Snapshot  # noqa: E402
from host.board.simboard import ManualClock  # noqa: E402
from host.store import Store, StoreWriteError  # noqa: E402
from host.session.table import RETRY_SAVE, Table  # noqa: E402
from host.compose import create_app  # noqa: E402
from host.web.events import Broker  # noqa: E402

from tests.support.webplay import Driver  # noqa: E402


class Recorder(Broker):
    """The real broker, keeping every publication to look at afterwards."""

    def __init__(self):
        super().__init__()
        self.sent = []

    def publish(self, states, notices=None):
        self.sent.append((states, notices or {}))
        return super().publish(states, notices)


class BoardDriver(Driver):
    """Plays on a real board's readings (the table has no virtual board): snapshots go straight in."""

    def __init__(self, client, table, clock):
        super().__init__(client, table)
        self.clock = clock

    def board(self, occupied) -> None:
        self.table.feed(Snapshot(self.clock(), frozenset(occupied)))

    def wait(self, seconds: float) -> None:
        steps = max(1, int(seconds / 0.05))
        for _ in range(steps):
            self.clock.advance(seconds / steps)
            self.table.tick()


def refuse_writes(store: Store, refuse: bool) -> None:
    """SQLite itself refuses every write on the store's connection (as on a read-only file)."""
    store._conn.execute(f"PRAGMA query_only={int(refuse)}")


def board_table(tmp_path):
    import random

    clock = ManualClock()
    store = Store(tmp_path / "quin.sqlite3")
    broker = Recorder()
    table = Table(store, broker, clock=clock, wall=clock)
    table.open()
    client = create_app({"TABLE": table, "TICK": 0}).test_client()
    driver = BoardDriver(client, table, clock)
    rng = random.Random(3)
    driver.setup(random_setup(rng, "white"), random_setup(rng, "black"))
    return table, store, broker, client, driver, clock


def a_move(game):
    return next(a for a in game.legal_actions() if isinstance(a, Move))


def test_a_commit_the_store_refuses_is_told_kept_pending_and_written_once_it_can_be(tmp_path):
    table, store, broker, client, driver, clock = board_table(tmp_path)
    driver.play(a_move(driver.shadow))  # a first move, saved as usual
    assert len(store.actions(table.row.id)) == 1
    shown = client.get("/api/state").get_json()
    assert shown["view"]["history"] and "unsaved" not in shown

    refuse_writes(store, True)
    published = len(broker.sent)
    action = a_move(driver.shadow)
    driver.play(action)  # the referee decides it: the board shows it done
    assert len(table.game.log) == 2 and len(store.actions(table.row.id)) == 1
    for viewer in ("public", "white", "black"):
        path = "/api/state" if viewer == "public" else f"/api/seat/{table.tokens[viewer]}/state"
        state = client.get(path).get_json()
        assert state["unsaved"].startswith("the game could not be saved: ")
        assert "is kept and is saved as soon as the store can be written" in state["unsaved"]
        assert len(state["view"]["history"]) == len(shown["view"]["history"])  # nobody was told of it
        if viewer == "public":
            assert state["view"] == shown["view"]
    later = broker.sent[published:]
    assert not [n for _, notices in later for n in notices.get("public", []) if n["kind"] == "committed"]
    held = [i for i, (states, _) in enumerate(later) if "unsaved" in states["public"]]
    assert held and all("unsaved" in s["public"] and not n for s, n in later[held[0]:])  # told, nothing else
    # A phone's input waits too: a 503 that says the store could not be written.
    r = client.post(f"/api/seat/{table.tokens[table.game.to_move]}/input", json={"type": "done"},
                    headers={"X-Seat-Token": table.tokens[table.game.to_move]})
    assert r.status_code == 503 and r.get_json()["error"].startswith("the game store could not be written")
    driver.wait(RETRY_SAVE * 4)  # still refused: still held, nothing lost
    assert table.unsaved and len(store.actions(table.row.id)) == 1

    refuse_writes(store, False)
    published = len(broker.sent)
    driver.wait(RETRY_SAVE * 2)  # nobody touches the board or a phone: the tick saves it
    assert table.unsaved is None
    assert [a for _, _, a in store.actions(table.row.id)] == [a.to_record() for _, _, a in table.game.log]
    assert table.game.log[1][2] == action
    kinds = [n["kind"] for _, notices in broker.sent[published:] for n in notices.get("public", [])]
    assert "committed" in kinds  # now the table is told
    state = client.get("/api/state").get_json()
    assert "unsaved" not in state and len(state["view"]["history"]) >= len(shown["view"]["history"])
    assert store.load_game(table.row.id).state.key() == table.game.state.key()
    driver.play(a_move(driver.shadow))  # and play goes on
    assert len(store.actions(table.row.id)) == len(table.game.log)


def test_the_virtual_board_undoes_a_change_the_store_cannot_keep_and_says_it_could_not_be_written(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    client, table = app.test_client(), app.extensions["quin.table"]
    before = client.get("/api/board").get_json()
    refuse_writes(table.store, True)
    key = board_headers(table)
    r = client.post("/api/board/toggle", json={"space": "w35"}, headers=key)
    assert r.status_code == 503
    error = r.get_json()["error"]
    assert error.startswith("the game store could not be written") and "read" not in error.split(":")[0]
    assert client.get("/api/board").get_json() == before  # the tap was undone on the board
    assert client.get("/api/state").get_json()["board"]["occupied"] == before["occupied"]
    refuse_writes(table.store, False)
    assert client.post("/api/board/toggle", json={"space": "w35"}, headers=key).status_code == 200
    assert client.get("/api/board").get_json() != before


def test_a_real_board_reading_the_black_box_cannot_keep_still_reaches_the_referee(tmp_path, caplog):
    table, store, broker, client, driver, clock = board_table(tmp_path)
    refuse_writes(store, True)
    action = a_move(driver.shadow)
    driver.play(action)  # the readings go on to the referee (a real board cannot be undone)
    assert table.game.log[-1][2] == action and table.unsaved
    said = [r for r in caplog.records if "could not be kept in the black box" in r.getMessage()]
    assert len(said) == 1  # once a minute at most, not once a reading


def test_a_new_game_while_a_move_is_unsaved_saves_it_first_or_changes_nothing(tmp_path):
    table, store, broker, client, driver, clock = board_table(tmp_path)
    refuse_writes(store, True)
    driver.play(a_move(driver.shadow))
    game_id = table.row.id
    with pytest.raises(StoreWriteError):
        table.new_game()
    assert table.row.id == game_id and table.unsaved
    refuse_writes(store, False)
    new_id = table.new_game()  # the store takes writes again: the move is saved, then the game changes
    assert new_id != game_id and table.unsaved is None
    assert len(store.actions(game_id)) == 1 and store.game(game_id).status == "abandoned"
