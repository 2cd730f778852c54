"""Who holds the board's serial port, and how to free it.

`quin serve` opens the port exclusively, so `quin doctor` and `quin calibrate`
cannot read the board while the service runs.  Instead of pyserial's bare
"Resource temporarily unavailable" they say which program holds it (from
/proc: every process's open files, and its systemd unit from its cgroup) and
the command that stops it.  When /proc does not show the holder (another
user's process), systemd's own word on ``quin.service`` is asked.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

UNIT = "quin.service"


@dataclass(frozen=True)
class Holder:
    pid: int
    command: str  # its command line, shortened
    unit: str | None  # the systemd service it runs in, if any


def holders(device: str, proc: Path = Path("/proc")) -> list[Holder]:
    """Processes (other than this one) with ``device`` open."""
    try:
        target = os.path.realpath(device)
    except OSError:
        return []
    found = []
    for entry in proc.iterdir() if proc.is_dir() else []:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue  # gone, or another user's
        if any(_link(fd) == target for fd in fds):
            found.append(Holder(int(entry.name), _command(entry), service_unit(_read(entry / "cgroup"))))
    return found


def _link(path: Path) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _command(entry: Path) -> str:
    """Its command line, programs by their names: "python3 quin serve --board serial"."""
    words = [w for w in _read(entry / "cmdline").split("\0") if w]
    words = [os.path.basename(w) if i < 2 and w.startswith("/") else w for i, w in enumerate(words)]
    text = " ".join(words)
    return text if len(text) <= 80 else text[:77] + "..."


def service_unit(cgroup: str) -> str | None:
    """The system service a process runs in, from the text of its /proc/PID/cgroup
    (``0::/system.slice/quin.service``); None for a terminal, a desktop, a user's own services."""
    for line in cgroup.splitlines():
        parts = line.rpartition(":")[2].split("/")
        if "system.slice" in parts:
            unit = parts[parts.index("system.slice") + 1:][:1]
            if unit and unit[0].endswith(".service"):
                return unit[0]
    return None


def service_active(unit: str = UNIT) -> bool:
    try:
        return subprocess.run(["systemctl", "is-active", "--quiet", unit], timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def busy_message(port: str, found: list[Holder], quin_service_active: bool) -> str:
    """One line: who holds ``port`` and how to stop it."""
    for h in found:
        if h.unit:
            name = h.unit.removesuffix(".service")
            return (f"the board at {port} is in use by the {h.unit} service (pid {h.pid}): stop it with "
                    f"`sudo systemctl stop {name}`, run this again, then `sudo systemctl start {name}`")
    if found:
        h = found[0]
        return (f"the board at {port} is in use by pid {h.pid} ({h.command}): stop that program first "
                f"(Ctrl-C in its terminal, or `kill {h.pid}`)")
    if quin_service_active:
        return (f"the board at {port} is in use and {UNIT} is running: stop it with `sudo systemctl stop quin`, "
                "run this again, then `sudo systemctl start quin`")
    return f"the board at {port} is in use by another program (`sudo fuser -v {port}` shows which)"
