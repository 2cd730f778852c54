"""Game identity (issue 19 item 4, issue 20): every stored game has a UUID and the store knows its
table's identity; both survive reopening, a backup, a salvage and a plain copy of the file, and an
older store (written before identities existed) gets them when it is opened."""

import re
import shutil
import sqlite3

from host.store import SCHEMA, Store, salvage

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def games(store, n):
    return [store.new_game("classic", False, "white", {"white": f"w{i}", "black": f"b{i}"}) for i in range(n)]


def test_each_game_gets_its_own_uuid_and_the_store_one_table_identity(tmp_path):
    s = Store(tmp_path / "quin.sqlite3")
    ids = games(s, 5)
    uuids = [s.game(i).uuid for i in ids]
    assert all(UUID.match(u) for u in uuids)
    assert len(set(uuids)) == 5
    table = s.table_id
    assert UUID.match(table) and table not in uuids
    s.close()
    again = Store(tmp_path / "quin.sqlite3")
    assert again.table_id == table  # made once per data folder
    assert [again.game(i).uuid for i in ids] == uuids


def test_two_data_folders_are_two_tables(tmp_path):
    a, b = Store(tmp_path / "a" / "quin.sqlite3"), Store(tmp_path / "b" / "quin.sqlite3")
    assert a.table_id != b.table_id
    assert a.game(games(a, 1)[0]).uuid != b.game(games(b, 1)[0]).uuid


def test_identities_survive_a_copy_of_the_file_and_a_backup(tmp_path):
    s = Store(tmp_path / "quin.sqlite3")
    ids = games(s, 3)
    uuids = {i: s.game(i).uuid for i in ids}
    backup = s.backup()
    s.close()
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(tmp_path / "quin.sqlite3", tmp_path / "elsewhere" / "quin.sqlite3")
    for path in (tmp_path / "elsewhere" / "quin.sqlite3", backup):
        copy = Store(path)
        assert copy.table_id == Store(tmp_path / "quin.sqlite3").table_id
        assert {i: copy.game(i).uuid for i in ids} == uuids


def test_identities_survive_a_salvage(tmp_path):
    s = Store(tmp_path / "quin.sqlite3")
    ids = games(s, 3)
    uuids = {i: s.game(i).uuid for i in ids}
    table = s.table_id
    s.close()
    result = salvage(tmp_path / "quin.sqlite3")
    assert result.kept == ids
    again = Store(tmp_path / "quin.sqlite3")
    assert again.table_id == table
    assert {i: again.game(i).uuid for i in ids} == uuids


def older_store(path):
    """A store as written before game identities: the games table without its uuid column."""
    old = SCHEMA.replace(",\n    uuid TEXT\n", "\n")
    assert old != SCHEMA
    conn = sqlite3.connect(path)
    conn.executescript(old)
    for i in range(4):
        conn.execute("INSERT INTO games(created, mode, vision, first, status) VALUES (?, 'classic', 0, 'white', 'setup')",
                     (1000.0 + i,))
    conn.commit()
    assert "uuid" not in {r[1] for r in conn.execute("PRAGMA table_info(games)")}
    conn.close()


def test_an_older_store_gets_identities_when_opened_and_keeps_them(tmp_path):
    path = tmp_path / "quin.sqlite3"
    older_store(path)
    readonly = Store(path, readonly=True)  # reading an older store changes nothing
    assert [g.uuid for g in readonly.games()] == [None] * 4
    readonly.close()
    s = Store(path)
    uuids = [g.uuid for g in s.games()]
    assert all(UUID.match(u) for u in uuids) and len(set(uuids)) == 4
    table = s.table_id
    s.close()
    again = Store(path)
    assert [g.uuid for g in again.games()] == uuids and again.table_id == table


def test_a_salvaged_older_store_gets_identities(tmp_path):
    path = tmp_path / "quin.sqlite3"
    older_store(path)
    result = salvage(path)
    assert len(result.kept) == 4
    s = Store(path)
    assert all(UUID.match(g.uuid) for g in s.games())


def test_a_uuid_is_unique_in_the_store(tmp_path):
    s = Store(tmp_path / "quin.sqlite3")
    a, b = games(s, 2)
    try:
        with s._tx() as c:
            c.execute("UPDATE games SET uuid = (SELECT uuid FROM games WHERE id = ?) WHERE id = ?", (a, b))
    except sqlite3.IntegrityError:
        pass
    else:
        raise AssertionError("two games with one uuid were stored")
