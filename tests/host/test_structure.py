"""Issue 32: the host's modules along their seams, read from the source (``ast``: nothing is imported).

- **No import circle** anywhere in ``host/``: module-level and function-level imports alike,
  relative ones resolved, and a module named to ``importlib.import_module`` (``host.cli``'s
  subcommands) counted as imported.  Only imports under ``if TYPE_CHECKING:`` are left out: they
  name types for annotations and never run.  Importing a module imports its parent packages too;
  that is Python's doing, not an arrow of ours, and is not counted.
- **The board's layer imports nothing above it**: ``host/board/`` never imports ``host.referee``
  (refereeing a trace is ``host/referee/traces.py``) nor ``host.system`` (which files are the data
  directory's is ``host.system.config``'s; the board reads and writes the paths it is given).
- **The hub's handlers stand at module level**: no class of ``host/hub/`` is defined inside a
  function (a route's handler built by a function was invisible to the reader and the tests).
- **The hub's package is the hub's**: outside it, only the ``quin hub`` command imports more of it
  than the two formats a board shares with the hub (``frames``, ``codes``); the board's push is
  ``host/remote/push.py``.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DYNAMIC = {"import_module", "__import__"}
BOARD_MAY_NOT = ("host.referee", "host.system")
HUB_SHARED = {"host.hub", "host.hub.frames", "host.hub.codes"}  # the package itself: its docstring only
HUB_USERS = {"host.commands.hub_cmds"}  # `quin hub ...`: schema, ratings, serve


def modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Every module of ``root/host`` by dotted name: (its file, whether it is a package)."""
    found = {}
    for path in sorted((root / "host").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            skip.update(id(n) for part in node.body for n in ast.walk(part))
    return skip


def imports(root: Path) -> dict[str, dict[str, tuple[str, int]]]:
    """module -> {host module it imports: (its file, the line)}, read from the source."""
    known = modules(root)

    def resolve(name: str) -> str | None:
        while name and name not in known:  # `from host.x import name`: the module, not the name
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, tuple[str, int]]] = {}
    for module, (path, package) in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        skip = _type_checking_only(tree)
        here = module.split(".") if package else module.split(".")[:-1]
        dynamic = any(isinstance(n, ast.Call) and (getattr(n.func, "attr", None) in DYNAMIC or
                                                   getattr(n.func, "id", None) in DYNAMIC) for n in ast.walk(tree))
        out: dict[str, tuple[str, int]] = {}
        where = path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(here[:len(here) - node.level + 1] + [node.module or ""]) if node.level else node.module
                base = base.rstrip(".")
                names = [f"{base}.{a.name}" for a in node.names]
            elif dynamic and isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
                names = [node.value]  # a module named to importlib (host.cli's COMMANDS)
            else:
                continue
            for name in names:
                target = resolve(name)
                if target is not None and target != module:
                    out.setdefault(target, (where, node.lineno))
        graph[module] = out
    return graph


def circles(graph: dict[str, dict[str, tuple[str, int]]]) -> list[str]:
    """Each import circle (a strongly connected set of modules), one line each, with where each arrow is."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[str] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            ring = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                ring.append(w)
                if w == v:
                    break
            if len(ring) > 1:
                arrows = [f"{a} -> {b} ({graph[a][b][0]}:{graph[a][b][1]})"
                          for a in sorted(ring) for b in sorted(graph[a]) if b in ring]
                found.append("; ".join(arrows))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def upward(graph: dict[str, dict[str, tuple[str, int]]]) -> list[str]:
    """Each import from the board's layer to the referee or the system, as ``file:line imports module``."""
    return [f"{where}:{line} imports {target}" for module, out in sorted(graph.items())
            if module == "host.board" or module.startswith("host.board.")
            for target, (where, line) in sorted(out.items()) if target.startswith(BOARD_MAY_NOT)]


def into_the_hub(graph: dict[str, dict[str, tuple[str, int]]]) -> list[str]:
    """Each import of the hub's own modules from outside the hub but by ``quin hub``."""
    return [f"{where}:{line} imports {target}" for module, out in sorted(graph.items())
            if not module.startswith("host.hub") and module not in HUB_USERS
            for target, (where, line) in sorted(out.items())
            if target.startswith("host.hub") and target not in HUB_SHARED]


def classes_in_functions(root: Path) -> list[str]:
    """Each class of ``root/host/hub`` defined inside a function, as ``file:line class Name``."""
    found = []
    for path in sorted((root / "host" / "hub").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [f"{path.relative_to(root).as_posix()}:{n.lineno} class {n.name}"
                          for n in ast.walk(node) if isinstance(n, ast.ClassDef)]
    return found


# --- the host as it is ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def host_imports() -> dict[str, dict[str, tuple[str, int]]]:
    return imports(ROOT)


def test_no_import_circle_in_host():
    assert circles(host_imports()) == []


def test_the_hubs_handlers_stand_at_module_level():
    assert classes_in_functions(ROOT) == []


def test_the_scan_finds_a_handler_defined_inside_a_function(tmp_path):
    root = _tree(tmp_path, {"host/hub/remote.py": "class Top:\n    pass\n\n\ndef routes():\n"
                                                  "    class Act(Top):\n        async def post(self):\n"
                                                  "            pass\n    return [Act]\n"})
    assert classes_in_functions(root) == ["host/hub/remote.py:6 class Act"]


def test_the_board_imports_nothing_of_the_referee_or_the_system():
    assert upward(host_imports()) == []


def test_only_the_hub_command_imports_the_hubs_own_modules():
    assert into_the_hub(host_imports()) == []


def test_the_scan_reads_the_real_host():
    """The scan sees the arrows that are there (so an empty answer above means something)."""
    graph = host_imports()
    assert "host.referee.traces" in graph and "host.board.trace" in graph["host.referee.traces"]
    assert "host.hub.server" in graph["host.hub.remote"] or "host.hub.base" in graph["host.hub.remote"]
    assert "host.commands.serve_cmds" in graph["host.cli"]  # through importlib
    assert "host.web" in graph["host.compose"]  # a function-level import
    assert "host.hub.frames" in graph["host.remote.push"]


# --- the scan finds what it looks for --------------------------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_scan_finds_circles_hidden_in_functions_relative_imports_and_importlib(tmp_path):
    root = _tree(tmp_path, {
        "host/__init__.py": "",
        "host/cli.py": 'import importlib\nCOMMANDS = ["host.p.four"]\n'
                       "def main():\n    for name in COMMANDS:\n        importlib.import_module(name)\n",
        "host/p/__init__.py": "from .one import X\n",
        "host/p/one.py": "from . import two\nX = 1\n",
        "host/p/two.py": "def g():\n    from host.p.one import X\n    return X\n",
        "host/p/three.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .one import X\n",
        "host/p/four.py": "from host.cli import main\n",
        "host/q.py": "import host.p.three\n",
    })
    found = circles(imports(root))
    assert sorted(found) == [
        "host.cli -> host.p.four (host/cli.py:2); host.p.four -> host.cli (host/p/four.py:1)",
        "host.p.one -> host.p.two (host/p/one.py:1); host.p.two -> host.p.one (host/p/two.py:2)",
    ]


def test_the_scan_finds_the_board_reaching_up_and_a_board_side_module_in_the_hub(tmp_path):
    root = _tree(tmp_path, {
        "host/__init__.py": "",
        "host/board/__init__.py": "",
        "host/board/a.py": "from ..system.config import data_dir\n"
                           "def run():\n    from host.referee import Referee\n",
        "host/board/b.py": "from host.board import a\nfrom host.hub import frames\n",
        "host/referee/__init__.py": "from host.board import b\n",
        "host/system/__init__.py": "",
        "host/system/config.py": "from host.board.a import run\n",
        "host/hub/__init__.py": "",
        "host/hub/frames.py": "",
        "host/hub/push.py": "from . import frames\n",
        "host/remote/__init__.py": "",
        "host/remote/link.py": "from host.hub.push import Pusher\n",
        "host/commands/__init__.py": "",
        "host/commands/hub_cmds.py": "from host.hub import push\n",
    })
    graph = imports(root)
    assert upward(graph) == ["host/board/a.py:3 imports host.referee", "host/board/a.py:1 imports host.system.config"]
    assert into_the_hub(graph) == ["host/remote/link.py:1 imports host.hub.push"]
