"""docs/hub.md's "From an empty machine" followed as written: its shell blocks are read from the
markdown (so the doc and this test cannot drift apart) and run in order on a fresh PostgreSQL cluster
and a fresh database, as far as this machine allows:

- `apt-get install`: the machine has no network for Debian's archive; the test checks that the
  packages the line names are installed (dpkg), as the line leaves them;
- the cluster: Debian's package makes one (`main`) when it is installed; here a fresh one is made the
  same way (`pg_createcluster`, on a free port, in a temporary folder, dropped after), and the doc's
  own commands (`pg_lsclusters`, `pg_ctlcluster ... start` as the postgres user, `createuser`,
  `createdb`) run verbatim on it, its name in place of `main` and its port in `PGPORT`;
- the Python environment (`venv`, `pip install '.[hub]'`): too slow to build here, so the installed
  packages are used (the test checks that the `hub` extra's modules import) and `quin` is this
  checkout's (tests/support/quin_cmd.py);
- `quin hub init`, `add-table` and `serve` run verbatim with `$QUIN_HUB_DB` as the doc exports it,
  `serve` on loopback and a free port; the key `add-table` printed pushes a game the hub then lists.

As root (this machine), `sudo -u postgres X` runs as `runuser -u postgres -- X` (no sudo here)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from tests.support.hub_client import request
from tests.support.hubproc import ROOT, wait_for
from tests.support.wall_tables import play, frame

from tests.support.quin_cmd import QUIN

DOC = ROOT / "docs" / "hub.md"
SECTION = "## From an empty machine to the wall on a projector"


def doc_commands() -> list[str]:
    """The commands of the section's ```sh blocks, in order, without their comments."""
    text = DOC.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end if end > 0 else None]
    out = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line:
                out.append(line)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_hub_doc_from_an_empty_machine_runs_as_written(tmp_path):
    commands = doc_commands()
    assert any(c.startswith("quin hub serve") for c in commands), commands
    if shutil.which("pg_createcluster") is None:
        pytest.fail("Debian's postgresql-common is missing (bash tools/test.sh installs postgresql)")
    version = Path(shutil.which("pg_ctl") or sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1]).resolve().parents[1].name
    name = f"quintest{os.getpid()}"
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="quin-doc-pg-"))
    os.chmod(folder, 0o755)
    root = os.geteuid() == 0
    env = dict(os.environ, PGPORT=str(port), USER=os.environ.get("USER") or ("root" if root else os.getlogin()),
               PYTHONPATH=str(ROOT))
    env.pop("QUIN_HUB_DB", None)
    # the cluster apt-get install makes, made fresh: its name and port are this test's
    made = subprocess.run(["pg_createcluster", version, name, "-p", str(port), "-d", str(folder / "data")],
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    serving = None
    ran = []
    try:
        for line in commands:
            cmd = line.replace(f"{version} main", f"{version} {name}").replace(" 15 main", f" {version} {name}")
            if cmd.startswith("sudo apt-get install"):
                packages = [w for w in shlex.split(cmd)[3:] if not w.startswith("-")]
                for p in packages:
                    st = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True)
                    assert st.stdout == "install ok installed", f"{p}: {st.stdout or st.stderr}"
                ran.append(("checked installed", cmd))
                continue
            if cmd.startswith(("python3 -m venv", ". ", "pip install")):
                import openskill  # noqa: F401  the hub extra, installed
                import psycopg  # noqa: F401
                import psycopg_pool  # noqa: F401
                ran.append(("the installed packages stand for it", cmd))
                continue
            if cmd.startswith("export "):
                k, _, v = cmd[len("export "):].partition("=")
                env[k] = v
                ran.append(("ran", cmd))
                continue
            if cmd.startswith("sudo -u postgres ") and root:
                cmd = "runuser -u postgres -- " + cmd[len("sudo -u postgres "):]
            elif cmd.startswith("sudo ") and root:
                cmd = cmd[len("sudo "):]
            if cmd.startswith("quin hub serve"):
                words = shlex.split(cmd)[1:]
                words[words.index("--host") + 1] = "127.0.0.1"  # loopback only on this machine
                words[words.index("--port") + 1] = "0"
                serving = subprocess.Popen([*QUIN, *words], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True, env=env)
                first = serving.stdout.readline()
                m = re.search(r"quin hub: serving on http://127\.0\.0\.1:(\d+)/", first)
                assert m, (first, serving.stderr.read() if serving.poll() is not None else "")
                ran.append(("ran", cmd))
                continue
            if cmd.startswith("quin "):
                cmd = shlex.join(QUIN) + cmd[len("quin"):]
            assert cmd.split()[0] in ("pg_lsclusters", "runuser", "sudo") or cmd.startswith(shlex.join(QUIN)), \
                f"the doc has a command this test does not know how to follow: {line}"
            out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env, timeout=120)
            assert out.returncode == 0, (line, out.stdout, out.stderr)
            ran.append(("ran", line))
            if line.startswith("pg_lsclusters"):
                assert name in out.stdout, out.stdout
            if line.startswith("quin hub add-table"):
                key = out.stdout.strip()
                assert key.startswith("qt_"), out.stdout
        assert serving is not None
        url = f"http://127.0.0.1:{m.group(1)}"
        assert request(url + "/api/health")[0] == 200
        # the key add-table printed pushes a game; the hub lists it under the doc's table
        _, views = play(5, 6)
        body = {"games": [{"uuid": "00000000-0000-4000-8000-000000000005",
                           "events": [{"seq": i + 1, "data": frame(v, "classic", {"white": "Ann", "black": None}, None)}
                                      for i, v in enumerate(views)]}]}
        assert request(url + "/api/push", "POST", body, key=key)[0] == 200
        wait_for(lambda: request(url + "/api/games")[1]["games"], "the pushed game listed")
        listed = request(url + "/api/games")[1]["games"]
        assert [(g["table"], g["players"]["white"]) for g in listed] == [("Table 1", "Ann")]
        print("followed:", *ran, sep="\n  ")
    finally:
        if serving is not None:
            serving.terminate()
            serving.wait(20)
        subprocess.run(["pg_dropcluster", "--stop", version, name], capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)
