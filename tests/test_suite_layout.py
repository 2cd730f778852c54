"""The suite's own layout (issue 32, item 2): a test module never imports another (what tests share is
a helper in tests/support/), and every folder of tests is a package, so that two test files of one name
in different folders are two modules (tests.host.web.test_x and tests.host.hub.test_x), not a clash.
Read from the source with ``ast``: nothing is imported to check it."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_test_module(name: str) -> bool:
    return name.split(".")[-1].startswith("test_")


def imported_test_modules(source: str) -> list[str]:
    """Each import in ``source`` (at any depth, in a function too) that names a test module:
    ``import test_x``, ``from test_x import ...``, ``from .test_x import ...``,
    ``from tests.host import test_x``; as written, with the line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if any(
                _is_test_module(part) for part in a.name.split("."))]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            parts = (node.module or "").split(".")
            if any(_is_test_module(part) for part in parts if part):
                found.append(f"line {node.lineno}: from {module} import ...")
            else:
                found += [f"line {node.lineno}: from {module} import {a.name}" for a in node.names
                          if _is_test_module(a.name)]
    return found


def path_inserts(source: str) -> list[str]:
    """Each ``sys.path.insert(...)`` or ``sys.path.append(...)`` call in ``source``, with its line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("insert", "append", "extend")
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "path"
                and isinstance(node.func.value.value, ast.Name) and node.func.value.value.id == "sys"):
            found.append(f"line {node.lineno}: sys.path.{node.func.attr}")
    return found


def _suite_files(pattern: str) -> list[Path]:
    return sorted(p for p in TESTS.rglob(pattern) if "__pycache__" not in p.parts)


def test_the_checks_catch_each_way_of_reaching_another_test_module():
    sources = {
        "from test_remote_table import Board, wait_for": 1,
        "import test_stream_privacy as sp": 1,
        "from .test_from_position import position_of": 1,
        "from tests.engine.test_cli import LEGAL_TURNS": 1,
        "from tests.host.web import test_web_api": 1,
        "def f():\n    from test_serve import Serve\n": 1,
        "from tests.support.remote_board import Board, wait_for": 0,
        "from .helpers import mv\nimport testing_tools\nfrom tests.support import webtools": 0,
    }
    for source, n in sources.items():
        assert len(imported_test_modules(source)) == n, source
    assert path_inserts("import sys\nsys.path.insert(0, 'tests/support')\nsys.path.append('x')") == [
        "line 2: sys.path.insert", "line 3: sys.path.append"]
    assert path_inserts("program = 'sys.path.insert(0, sys.argv[1])'") == []  # a child's program, as text


def test_no_test_module_imports_another():
    files = _suite_files("test_*.py")
    assert len(files) > 100  # the suite was found
    offences = [f"{p.relative_to(TESTS.parent)} {where}"
                for p in files for where in imported_test_modules(p.read_text(encoding="utf-8"))]
    assert not offences, "shared helpers go in tests/support/, not in a test module:\n" + "\n".join(offences)


def test_no_test_module_or_conftest_puts_a_folder_on_the_path():
    files = _suite_files("test_*.py") + _suite_files("conftest.py")
    offences = [f"{p.relative_to(TESTS.parent)} {where}"
                for p in files for where in path_inserts(p.read_text(encoding="utf-8"))]
    assert not offences, "import helpers as tests.support.<module> instead:\n" + "\n".join(offences)


def test_every_folder_of_tests_is_a_package():
    folders = sorted({p.parent for p in _suite_files("*.py")})
    assert TESTS in folders and TESTS / "support" in folders
    missing = [str(f.relative_to(TESTS.parent)) for f in folders if not (f / "__init__.py").is_file()]
    assert not missing, "without __init__.py a test file's name can clash with another's: " + ", ".join(missing)


MAX_SLEEPS = 25  # issue 32, item 2: the suite proves by events; a sleep is left only where nothing else will do


def real_sleeps(source: str) -> list[tuple[int, bool]]:
    """Each call of the machine's sleep in ``source`` (``time.sleep``, ``asyncio.sleep``, a bare ``sleep``
    imported from either), as (line, whether a comment says why: on the line, or on the line above)."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if not ((isinstance(f, ast.Attribute) and f.attr == "sleep" and isinstance(f.value, ast.Name)
                 and f.value.id in ("time", "asyncio")) or (isinstance(f, ast.Name) and f.id == "sleep")):
            continue
        n = node.lineno
        found.append((n, "#" in lines[n - 1] or (n >= 2 and lines[n - 2].strip().startswith("#"))))
    return found


def test_the_sleep_check_sees_each_kind_and_its_comment():
    src = ("import time, asyncio\nfrom time import sleep\n"
           "time.sleep(1)\n"
           "# the firmware keeps real time\nasyncio.sleep(0.1)\n"
           "sleep(2)  # a real second is what is measured\n"
           "clock.sleep(3)\n")
    assert real_sleeps(src) == [(3, False), (5, True), (6, True)]


def test_few_sleeps_are_left_and_each_says_why():
    sleeps = {}
    for path in _suite_files("*.py"):
        for line, said in real_sleeps(path.read_text(encoding="utf-8")):
            sleeps[f"{path.relative_to(TESTS.parent)}:{line}"] = said
    unexplained = [where for where, said in sleeps.items() if not said]
    assert not unexplained, f"a sleep with no comment saying why nothing else will do: {unexplained}"
    assert len(sleeps) <= MAX_SLEEPS, f"{len(sleeps)} sleeps in tests/ (at most {MAX_SLEEPS}): {sorted(sleeps)}"


def test_the_files_handed_out_first_exist():
    """tests/conftest.py names the longest files so that tools/lanes.sh hands them to workers first: a
    renamed file would silently go last again."""
    from tests.conftest import FIRST

    missing = [name for name in FIRST if not (TESTS.parent / name).is_file()]
    assert not missing, f"tests/conftest.py FIRST names files that do not exist: {missing}"
