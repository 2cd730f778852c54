"""A damaged store (issue 10): one line saying what is damaged, every intact game still served,
`quin store check` / `quin store salvage`, backups after finished games."""

import json
import random
import sqlite3
from pathlib import Path

import pytest

from host.cli import main
from host.store import Store, readable_backups

from tests.support.served import Serve, quin
from tests.support.stores import stored_games


def run(*argv, capsys):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


DAMAGE = {
    "bad games row": "UPDATE games SET black_setup = '{oops' WHERE id = 2",
    "black box naming space 1000": "INSERT INTO blackbox(game_id, t, occupied) VALUES (2, 1.0, '[3, 1000]')",
    "bad action row": "UPDATE actions SET action = 'null' WHERE game_id = 2 AND seq = 3",
}


@pytest.mark.parametrize("what", DAMAGE)
def test_quin_games_export_and_check_on_a_damaged_row(tmp_path, capsys, what):
    stored_games(tmp_path)
    with sqlite3.connect(tmp_path / "quin.sqlite3") as c:
        c.execute(DAMAGE[what])
    code, out, err = run("games", "--data-dir", str(tmp_path), capsys=capsys)
    assert code == 0 and "Traceback" not in err
    head, *rows = [line for line in out.splitlines() if line.strip()]
    assert head.startswith("3 games in ") and len(rows) == 3  # every game listed, the damaged one too
    for gid in (1, 3):
        code, out, err = run("export", str(gid), "--data-dir", str(tmp_path), capsys=capsys)
        assert code == 0 and json.loads(out)["format"] == "quin-record/1"
    code, out, err = run("export", "2", "--data-dir", str(tmp_path), capsys=capsys)
    if what == "black box naming space 1000":
        assert code == 0  # the black box is not part of the game
    else:
        assert code == 2 and len(err.strip().splitlines()) == 1 and "damaged" in err and "Traceback" not in err
    code, out, err = run("store", "check", "--data-dir", str(tmp_path), capsys=capsys)
    assert code == 1 and "Traceback" not in out + err
    expected = {"bad games row": "game 2: its black setup does not read",
                "black box naming space 1000": "the black box: 1 snapshot(s) do not read",
                "bad action row": "game 2: its stored action 3 no longer replays"}[what]
    assert expected in out


def test_quin_serve_on_a_damaged_row_says_so_and_serves_the_rest(tmp_path):
    stored_games(tmp_path)
    with sqlite3.connect(tmp_path / "quin.sqlite3") as c:
        for sql in DAMAGE.values():
            c.execute(sql)
    s = Serve(tmp_path)
    try:
        assert any("game(s) 2 are damaged in the store" in line for line in s.lines), s.lines
        from tests.support.webtools import get_json

        status, body = get_json(s.base + "/api/games")
        assert status == 200 and [g["damaged"] is not None for g in body["games"] if g["id"] <= 3] == [False, True, False]
        assert get_json(s.base + "/api/games/3")[0] == 200
        assert get_json(s.base + "/api/games/2")[0] == 200
    finally:
        s.stop()
    assert "Traceback" not in s.proc.stderr.read() if not s.proc.stderr.closed else True


def garble(path: Path) -> None:
    """Overwrite some pages in the middle of the file with junk, as a failing SD card might."""
    data = bytearray(path.read_bytes())
    page = 4096
    rng = random.Random(1)
    for n in range(2, len(data) // page - 1, 3):
        for i in range(n * page + 100, n * page + 400):
            data[i] = rng.randrange(256)
    path.write_bytes(bytes(data))


def test_a_garbled_file_is_reported_and_salvaged(tmp_path, capsys):
    stored_games(tmp_path, n=6)
    db = tmp_path / "quin.sqlite3"
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    garble(db)
    code, out, err = run("store", "check", "--data-dir", str(tmp_path), capsys=capsys)
    assert code in (1, 2) and "Traceback" not in out + err
    code, out, err = run("games", "--data-dir", str(tmp_path), capsys=capsys)
    assert "Traceback" not in out + err and (code == 0 or len(err.strip().splitlines()) == 1)
    code, out, err = run("store", "salvage", "--data-dir", str(tmp_path), capsys=capsys)
    assert code == 0, err
    assert "copied into a new" in out and "damaged file is kept as" in out
    aside = [p for p in tmp_path.glob("quin.sqlite3.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1
    code, out, err = run("store", "check", "--data-dir", str(tmp_path), capsys=capsys)
    assert code == 0 and "is sound" in out
    kept = int(out.split(": ")[1].split()[0])
    code, out, err = run("games", "--data-dir", str(tmp_path), capsys=capsys)
    assert code == 0 and len(out.splitlines()) == 1 + kept  # the line naming the store, then each game


def test_salvage_keeps_every_intact_game_whole(tmp_path, capsys):
    games = stored_games(tmp_path, n=4)
    for backup in (tmp_path / "backups").glob("*"):
        backup.unlink()  # no backup to fall back on: the damaged game is lost
    with sqlite3.connect(tmp_path / "quin.sqlite3") as c:
        c.execute(DAMAGE["bad action row"])
    code, out, err = run("store", "salvage", "--data-dir", str(tmp_path), capsys=capsys)
    assert code == 0 and "3 game(s) copied" in out and "game(s) 2 could not be read" in out
    store = Store(tmp_path / "quin.sqlite3")
    assert [g.id for g in store.games()] == [4, 3, 1]
    for gid in (1, 3, 4):
        assert store.load_game(gid).state.key() == games[gid - 1].state.key()
    assert store.problems() == []


def test_salvage_takes_a_game_the_file_does_not_yield_from_the_newest_backup(tmp_path, capsys):
    games = stored_games(tmp_path, n=4)
    with sqlite3.connect(tmp_path / "quin.sqlite3") as c:
        c.execute(DAMAGE["bad action row"])
    code, out, err = run("store", "salvage", "--data-dir", str(tmp_path), capsys=capsys)
    newest = sorted((tmp_path / "backups").glob("quin-*.sqlite3"))[-1]
    assert code == 0 and "4 game(s) copied" in out, out
    assert f"game(s) 1, 3, 4 from the damaged file, game(s) 2 from the backup {newest}" in out
    store = Store(tmp_path / "quin.sqlite3")
    assert [g.id for g in store.games()] == [4, 3, 2, 1]
    for gid in (1, 2, 3, 4):
        assert store.load_game(gid).state.key() == games[gid - 1].state.key()
    assert store.problems() == []


HEADER_DAMAGE = {
    "truncated": lambda data: data[:len(data) // 3],
    "header overwritten": lambda data: b"\0" * 100 + data[100:],
}


@pytest.mark.parametrize("what", HEADER_DAMAGE)
def test_a_store_sqlite_cannot_open_is_salvaged_from_the_backup(tmp_path, capsys, what):
    games = stored_games(tmp_path, n=3)
    db = tmp_path / "quin.sqlite3"
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.write_bytes(HEADER_DAMAGE[what](db.read_bytes()))
    code, out, err = run("store", "salvage", "--data-dir", str(tmp_path), capsys=capsys)
    assert code == 0, err
    assert "3 game(s) copied" in out and "from the backup" in out, out
    store = Store(db)
    assert [g.id for g in store.games()] == [3, 2, 1]
    for gid in (1, 2, 3):
        assert store.load_game(gid).state.key() == games[gid - 1].state.key()


def test_quin_serve_recovers_a_store_it_cannot_open_from_the_backup_by_itself(tmp_path):
    stored_games(tmp_path, n=2)
    db = tmp_path / "quin.sqlite3"
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.write_bytes(b"\0" * 100 + db.read_bytes()[100:])
    s = Serve(tmp_path)
    try:
        notes = [line for line in s.lines if "the game store was damaged" in line]
        assert len(notes) == 1 and "game(s) 1, 2 from the backup" in notes[0], s.lines
        from tests.support.webtools import get_json

        status, body = get_json(s.base + "/api/games")
        assert status == 200 and {g["id"] for g in body["games"]} >= {1, 2}
        assert get_json(s.base + "/api/games/2")[0] == 200
    finally:
        s.stop()


def test_salvage_refuses_while_a_server_holds_the_folder(tmp_path):
    s = Serve(tmp_path)
    try:
        out = quin("store", "salvage", "--data-dir", str(tmp_path))
        assert out.returncode == 2 and "in use by another quin serve" in out.stderr
        assert f"pid {s.proc.pid}" in out.stderr
    finally:
        s.stop()


def test_an_empty_store_file_is_said_in_one_line(tmp_path):
    (tmp_path / "quin.sqlite3").write_bytes(b"")
    s = Serve(tmp_path)
    try:
        notes = [line for line in s.lines if "empty file (0 bytes)" in line]
        assert len(notes) == 1, s.lines
    finally:
        s.stop()


def test_a_backup_after_each_finished_game_keeping_the_last_five(tmp_path):
    stored_games(tmp_path, n=7)
    backups = sorted((tmp_path / "backups").glob("quin-*.sqlite3"))
    assert len(backups) == 5
    newest = Store(backups[-1], readonly=True)
    assert [g.id for g in newest.games()] == [7, 6, 5, 4, 3, 2, 1]
    assert newest.problems() == []


def test_salvage_passes_over_a_backup_that_does_not_read_for_the_next_newest(tmp_path, capsys):
    games = stored_games(tmp_path, n=3)
    backups = sorted((tmp_path / "backups").glob("quin-*.sqlite3"))
    backups[-1].write_bytes(b"\0" * 4096)  # the newest backup is damaged too
    db = tmp_path / "quin.sqlite3"
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.write_bytes(b"\0" * 100 + db.read_bytes()[100:])
    code, out, err = run("store", "salvage", "--data-dir", str(tmp_path), capsys=capsys)
    assert code == 0, err
    # The second newest backup was made when game 2 ended, before game 3 began.
    assert f"game(s) 1, 2 from the backup {backups[-2]}" in out, out
    store = Store(db)
    assert [g.id for g in store.games()] == [2, 1]
    for gid in (1, 2):
        assert store.load_game(gid).state.key() == games[gid - 1].state.key()


def test_backups_sort_in_the_order_they_were_made_across_a_seconds_tick(tmp_path, monkeypatch):
    """The newest backup is the one salvaged from and the last pruned: its name must sort last even
    when it is made as a second ticks over (the name once read the clock twice, and the one made at
    x.000001 s sorted before the one made at x-1.999999 s; a salvage took the older copy in a suite run)."""
    import time as real_time

    from host.store import backups

    ticks = iter([1_700_000_000_999_999_000, 1_700_000_001_000_001_000, 1_700_000_001_500_000_000])

    class Clock:  # the clock the backups read: these instants, and the rest of the time module
        def __getattr__(self, name):
            return getattr(real_time, name)

        @staticmethod
        def time_ns():
            return next(ticks)

    monkeypatch.setattr(backups, "time", Clock())
    store = Store(tmp_path / "quin.sqlite3")
    try:
        made = [store.backup() for _ in range(3)]
    finally:
        store.close()
    assert all(made) and sorted(made) == made, made
    assert readable_backups(tmp_path / "quin.sqlite3")[0] == made[-1]
