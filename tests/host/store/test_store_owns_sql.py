"""Issue 19: the store owns every SQL statement on the board's SQLite file and every replay of a
stored game.  Outside host/store only the hub's own PostgreSQL store runs statements."""

import ast
from pathlib import Path

HOST = Path(__file__).resolve().parents[3] / "host"
HUB_POSTGRES = {"hub/server.py", "hub/schema.py", "hub/ratings.py", "hub/remote.py",  # the hub's own store (psycopg)
                "hub/database.py",  # its health probe (SELECT 1 on a fresh connection)
                "hub/words.py"}  # the archive's names from frames (one look-up); issue 32 gathers all of these
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


def test_no_sql_outside_the_store_but_the_hubs_own():
    outside = {}
    for path in sorted(HOST.rglob("*.py")):
        where = path.relative_to(HOST).as_posix()
        if where.startswith("store/") or where in HUB_POSTGRES:
            continue
        if found := calls(path):
            outside[where] = found
    assert outside == {}


def test_the_check_finds_sql_where_there_is_some():
    """The scan is not one that cannot fail: it finds the store's own statements and the hub's."""
    assert any("execute" in c for c in calls(HOST / "store" / "games.py"))
    assert any("sqlite3.connect" in c for c in calls(HOST / "store" / "backups.py"))
    assert any("execute" in c for c in calls(HOST / "hub" / "schema.py"))


def test_the_history_replays_nothing_of_its_own():
    """web/history.py pushes no action onto a game: the store's replay does."""
    tree = ast.parse((HOST / "web" / "history.py").read_text())
    replays = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        isinstance(n.func, ast.Attribute) and n.func.attr == "push"
        or isinstance(n.func, ast.Name) and n.func.id in ("action_from_record", "Game"))]
    assert replays == []
