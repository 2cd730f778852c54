"""A wheel-only install: build the wheel, install it into a fresh venv outside the checkout,
flash the firmware into a folder, serve the pages, and set up the service from there.

The venv sees the site-packages of the interpreter running the tests (flask,
pyserial, zeroconf ... without downloads), also when that interpreter is itself a
virtual environment (a careful newcomer's): `--system-site-packages` alone reaches
only the base interpreter's, so a path file adds the running one's after the venv's
own. The project itself must come from the wheel: the test checks that `host` is
imported from the venv, and runs everything outside the checkout.
"""

import os
import shutil
import site
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
IGNORE = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache",
                                ".hypothesis", "artifacts", "*.sqlite3*")
FIRMWARE = {"boot.py": "boot.py", "code.py": "code.py", "lib/quin_firmware.py": "quin_firmware.py",
            "lib/quin_hw.py": "quin_hw.py", "lib/quin_protocol.py": "quin_protocol.py"}


def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert done.returncode == 0, f"{cmd}: {done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A venv with the project installed from its wheel alone."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)  # a clean copy: the build leaves nothing in the checkout
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp / "dist"),
         str(src)])
    wheels = list((tmp / "dist").glob("quin_companion-*.whl"))
    assert len(wheels) == 1, wheels
    shutil.rmtree(src)  # nothing of the source tree is left to fall back on
    env_dir = tmp / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(env_dir)])
    python = env_dir / "bin" / "python"
    # The running interpreter's packages (a venv's too), after the new venv's own: plain path lines,
    # so their .pth files (an editable install of the checkout) are not run.
    own = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    outer = [p for p in site.getsitepackages() + [site.getusersitepackages()] if Path(p).is_dir()]
    (Path(own) / "zz-test-interpreter.pth").write_text("".join(p + "\n" for p in outer))
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "-q", str(wheels[0])])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QUIN_DATA_DIR", "QUIN_SERIAL_PORT")}
    env["HOME"] = str(tmp / "home")
    return env_dir, tmp, env


def test_the_project_is_imported_from_the_wheel(venv):
    env_dir, tmp, env = venv
    where = run([str(env_dir / "bin/python"), "-c", "import host, engine; print(host.__file__); print(engine.__file__)"],
                cwd=tmp, env=env).stdout.split()
    for path in where:
        assert Path(path).is_relative_to(env_dir), f"imported from {path}, not the venv"


def test_firmware_install_from_the_wheel(venv):
    env_dir, tmp, env = venv
    drive = tmp / "CIRCUITPY"
    drive.mkdir()
    (drive / "boot_out.txt").write_text("Adafruit CircuitPython 9.2.1 on Raspberry Pi Pico with rp2040\n")
    out = run([str(env_dir / "bin/quin"), "firmware", "install", str(drive), "--leds", "99"], cwd=tmp, env=env).stdout
    assert out.rstrip().endswith("so boot.py turns on the data port.")
    for target, source in FIRMWARE.items():
        assert (drive / target).read_text() == (ROOT / "firmware" / source).read_text(), target
    assert "99" in (drive / "quin_settings.py").read_text()


def test_serve_from_the_wheel_is_ready_and_serves_every_page(venv):
    env_dir, tmp, env = venv
    proc = subprocess.Popen([str(env_dir / "bin/quin"), "serve", "--host", "127.0.0.1", "--port", "0",
                             "--data-dir", str(tmp / "data"), "--no-qr", "--show-links"],
                            cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        urls, lines = {}, []
        deadline = time.monotonic() + 30
        while "black seat" not in urls:
            assert time.monotonic() < deadline, lines
            line = proc.stdout.readline()
            assert line, f"quin serve exited: {proc.stderr.read()}"
            lines.append(line)
            if "http://" in line:
                name, _, url = line.strip().partition(":")
                urls[name.strip()] = url.strip().split()[0]
        assert lines[0].startswith("Quin is ready")
        base = urls["status page"].rstrip("/")
        pages = [base + "/", urls["virtual board"], urls["history"], urls["white seat"], urls["host page"],
                 base + "/static/quin.css", base + "/static/quin.js", base + "/api/layout"]
        for url in pages:
            with urllib.request.urlopen(url, timeout=10) as response:
                assert response.status == 200 and response.read(), url
    finally:
        proc.terminate()
        proc.communicate(timeout=15)
    assert proc.returncode == 0


def test_setup_from_the_wheel_runs_the_venvs_quin(venv, make_root, systemd_tool):
    env_dir, tmp, env = venv
    root = make_root()
    run([str(env_dir / "bin/quin"), "setup", "--root", str(root), "--user", "ada"], cwd=tmp, env=env)
    unit = root / "etc/systemd/system/quin.service"
    exec_start = next(line for line in unit.read_text().splitlines() if line.startswith("ExecStart="))
    assert exec_start == f"ExecStart={env_dir / 'bin/quin'} serve --board serial --port 8000"
    run([systemd_tool("systemd-analyze"), "verify", str(unit)])
    rule = root / "etc/udev/rules.d/99-quin.rules"
    assert rule.read_text() == (ROOT / "hardware/99-quin.rules").read_text()
