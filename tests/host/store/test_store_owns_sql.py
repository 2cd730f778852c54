"""Issue 19: the store owns every SQL statement on the board's SQLite file and every replay of a
stored game.  Issue 32: the hub's own store (host/hub/store/) owns every PostgreSQL statement of
the hub.  Outside those two packages no module of the host runs a statement."""

import ast
from pathlib import Path

HOST = Path(__file__).resolve().parents[3] / "host"
STORES = ("store/", "hub/store/")  # the board's (SQLite) and the hub's (PostgreSQL)
STATEMENTS = {"execute", "executemany", "executescript"}


def calls(path: Path) -> list[str]:
    """Each call in ``path`` that runs SQL or opens a SQLite file, as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            f = node.func
            if f.attr in STATEMENTS or (f.attr == "connect" and isinstance(f.value, ast.Name) and f.value.id == "sqlite3"):
                found.append(f"{node.lineno}: {ast.unparse(f)}")
    return found


def outside(host: Path) -> dict[str, list[str]]:
    """{file under ``host``: its statements} of each file outside the two stores that runs SQL."""
    found = {}
    for path in sorted(host.rglob("*.py")):
        where = path.relative_to(host).as_posix()
        if where.startswith(STORES):
            continue
        if hits := calls(path):
            found[where] = hits
    return found


def test_no_sql_outside_the_board_and_hub_stores():
    assert outside(HOST) == {}


def test_the_check_finds_sql_where_there_is_some():
    """The scan is not one that cannot fail: it finds the store's own statements and the hub's."""
    assert any("execute" in c for c in calls(HOST / "store" / "games.py"))
    assert any("sqlite3.connect" in c for c in calls(HOST / "store" / "backups.py"))
    assert any("execute" in c for c in calls(HOST / "hub" / "store" / "schema.py"))
    assert any("execute" in c for c in calls(HOST / "hub" / "store" / "games.py"))
    assert any("execute" in c for c in calls(HOST / "hub" / "store" / "remote.py"))


def test_the_check_finds_a_statement_planted_in_the_hub_or_the_board(tmp_path):
    """A statement in a hub module beside the store (a handler's, a helper's in a function), or in
    a board module, is found; the same in either store is not."""
    for name, text in {
        "hub/store/games.py": 'async def f(conn):\n    await conn.execute("SELECT 1")\n',
        "store/games.py": 'def f(db):\n    db.execute("SELECT 1")\n',
        "hub/server.py": 'class H:\n    async def get(self):\n        async with self.pool.connection() as conn:\n'
                         '            await (await conn.execute("SELECT name FROM hub_players")).fetchone()\n',
        "hub/remote.py": 'def g(cur):\n    cur.executemany("INSERT INTO remote_log VALUES (%s)", [(1,)])\n',
        "web/history.py": 'import sqlite3\ndef h(path):\n    return sqlite3.connect(path)\n',
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert outside(tmp_path) == {"hub/remote.py": ["2: cur.executemany"], "hub/server.py": ["4: conn.execute"],
                                 "web/history.py": ["3: sqlite3.connect"]}


def test_the_history_replays_nothing_of_its_own():
    """web/history.py pushes no action onto a game: the store's replay does."""
    tree = ast.parse((HOST / "web" / "history.py").read_text())
    replays = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        isinstance(n.func, ast.Attribute) and n.func.attr == "push"
        or isinstance(n.func, ast.Name) and n.func.id in ("action_from_record", "Game"))]
    assert replays == []
