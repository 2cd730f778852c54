"""Issue 32, "One time source": the board-side service reads time from one injectable clock
(``host/clock.py``), read from the source (``ast``: nothing is imported).

In the packages and modules whose timers the service runs (the board loop and ticker in
``host/compose.py``, the simulated board, the table and its sessions, the remote link, session
and push, the web server, the practice opponent, the store's timestamps) nothing reads the
machine's clock directly: no ``time.monotonic``, ``time.time``, ``time.sleep`` (nor their ``_ns``
kin, ``perf_counter``), no ``asyncio.sleep``, whether called or handed on as a default
(``clock=time.monotonic`` is a direct read too), and no ``from time import ...`` of them.  Only
``host/clock.py`` does.  The planted-breach tests show the check finds what it looks for.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("host/compose.py", "host/board/simboard.py", "host/opponent/driver.py", "host/remote",
           "host/session", "host/store", "host/web")
ALLOWED = {"host/clock.py"}
TIME_READS = {"monotonic", "monotonic_ns", "time", "time_ns", "sleep", "perf_counter", "perf_counter_ns"}
FORBIDDEN = {("time", name) for name in TIME_READS} | {("asyncio", "sleep")}


def files(root: Path) -> list[Path]:
    found: list[Path] = []
    for entry in CHECKED:
        path = root / entry
        found.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return [p for p in found if p.relative_to(root).as_posix() not in ALLOWED]


def direct_reads(root: Path) -> list[str]:
    """``file:line: what`` for every direct read of the machine's clock in the checked modules."""
    out: list[str] = []
    for path in files(root):
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        # names the module binds to the time and asyncio modules (``import time as t`` too)
        modules = {"time": "time", "asyncio": "asyncio"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in ("time", "asyncio"):
                        modules[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom) and node.module in ("time", "asyncio") and not node.level:
                for alias in node.names:
                    if (node.module, alias.name) in FORBIDDEN:
                        out.append(f"{where}:{node.lineno}: from {node.module} import {alias.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                module = modules.get(node.value.id)
                if module is not None and (module, node.attr) in FORBIDDEN:
                    out.append(f"{where}:{node.lineno}: {module}.{node.attr}")
    return out


def test_the_service_reads_time_only_from_its_clock():
    found = direct_reads(ROOT)
    assert found == [], "read the service's clock (host/clock.py) instead:\n" + "\n".join(found)


def test_every_checked_path_exists():
    """A module renamed away must not leave the check looking at nothing."""
    for entry in CHECKED:
        assert (ROOT / entry).exists(), entry
    assert len(files(ROOT)) > 30


def _copy(tmp_path: Path) -> Path:
    for entry in CHECKED:
        src, dest = ROOT / entry, tmp_path / entry
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "static", "templates"))
        else:
            shutil.copy(src, dest)
    return tmp_path


def test_a_planted_sleep_is_found(tmp_path):
    root = _copy(tmp_path)
    target = root / "host/remote/session.py"
    target.write_text(target.read_text(encoding="utf-8") + "\n\ndef _nap():\n    time.sleep(1.0)\n",
                      encoding="utf-8")
    found = direct_reads(root)
    assert len(found) == 1 and found[0].startswith("host/remote/session.py:") and found[0].endswith("time.sleep"), found


def test_a_planted_default_clock_an_alias_and_a_from_import_are_found(tmp_path):
    root = _copy(tmp_path)
    target = root / "host/web/server.py"
    target.write_text(target.read_text(encoding="utf-8") +
                      "\n\nimport time as t\nfrom time import monotonic\n\n"
                      "def _later(clock=t.monotonic):\n    return clock()\n\n"
                      "async def _nap():\n    await asyncio.sleep(0.1)\n", encoding="utf-8")
    found = {line.split(": ", 1)[1] for line in direct_reads(root)}
    assert found == {"from time import monotonic", "time.monotonic", "asyncio.sleep"}, found
