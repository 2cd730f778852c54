"""Issue 32, item 4: the referee along its seams and the table's public face, read from the source
(``ast``: nothing is imported).

- The referee's core (``machine.py``), its reading of the evidence, the players' words, Time
  planning and remote following are separate modules; none of the parts imports the core, and the
  status texts read a frozen snapshot (``status.View``), never the referee.
- Nothing outside ``host/session/table.py`` calls a private part of a ``Table`` (``table._x``), and
  nothing outside ``host/session/`` reads the table's referee (``table.ref``): seats, minds, remote
  play and the pages use the table's public methods (``publish``, ``board_phase``, ``following``,
  ``check_settings``, ``session_factory``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFEREE = ROOT / "host" / "referee"
PARTS = ("reading", "words", "time_plan", "following")


def _is_table(node: ast.AST) -> bool:
    """``table`` or ``<anything>.table``."""
    return (isinstance(node, ast.Name) and node.id == "table") or (isinstance(node, ast.Attribute) and node.attr == "table")


def reaches_into_the_table(root: Path) -> list[str]:
    """Each ``table._private`` outside the table's module and each ``table.ref`` outside host/session."""
    found = []
    for path in sorted((root / "host").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == "host/session/table.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _is_table(node.value):
                private = node.attr.startswith("_") and not node.attr.startswith("__")
                referee = node.attr == "ref" and not rel.startswith("host/session/")
                if private or referee:
                    found.append(f"{rel}:{node.lineno} reads table.{node.attr}")
    return found


def imports_of(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_nothing_outside_the_table_reaches_into_it():
    assert reaches_into_the_table(ROOT) == []


def test_the_scan_finds_a_private_call_and_a_read_of_the_referee(tmp_path):
    (tmp_path / "host" / "remote").mkdir(parents=True)
    (tmp_path / "host" / "session").mkdir(parents=True)
    (tmp_path / "host" / "remote" / "x.py").write_text(
        "def f(self, table):\n    table._publish({})\n    return self.table.ref.phase\n")
    (tmp_path / "host" / "session" / "projections.py").write_text("def g(table):\n    return table.ref\n")
    (tmp_path / "host" / "session" / "table.py").write_text("def h(table):\n    table._split([])\n")
    assert reaches_into_the_table(tmp_path) == ["host/remote/x.py:2 reads table._publish",
                                                "host/remote/x.py:3 reads table.ref"]


def test_the_referee_is_split_along_its_seams():
    core = REFEREE / "machine.py"
    lines = len(core.read_text(encoding="utf-8").splitlines())
    assert lines < 800, f"machine.py has {lines} lines"
    for part in PARTS:
        path = REFEREE / f"{part}.py"
        assert path.exists(), part
        assert not {".machine", "host.referee.machine"} & imports_of(path), f"{part}.py imports the core"
    tree = ast.parse(core.read_text(encoding="utf-8"))
    referee = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Referee")
    assert {b.id for b in referee.bases} == {"Reading", "Words", "TimePlanning", "RemoteFollowing"}


def test_the_status_texts_read_a_snapshot_not_the_referee():
    status = REFEREE / "status.py"
    tree = ast.parse(status.read_text(encoding="utf-8"))
    assert not {".machine", "host.referee.machine"} & imports_of(status)
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        names = [a.arg for a in fn.args.args]
        assert "ref" not in names, f"status.{fn.name} takes the referee"
