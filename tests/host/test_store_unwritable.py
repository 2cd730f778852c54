"""A store that cannot be written (issue 18): `quin serve` says in one line what and where and exits 2;
while running, a write the store refuses is a 503 that says it could not be written; a commit that
fails is told to the table, kept pending and written as soon as the store takes it."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_serve import ROOT, Serve  # noqa: E402
from test_store_damage import stored_games  # noqa: E402

from tests.support.quin_cmd import QUIN  # noqa: E402


def read_only(*paths: Path) -> list[str]:
    """A command prefix under which ``paths`` cannot be written, even by root: each is bind-mounted
    read-only in a private mount namespace (a user namespace, so no privilege is needed); as an
    ordinary user a chmod does the same."""
    if os.geteuid() != 0:
        for p in paths:
            p.chmod(0o444 if p.is_file() else 0o555)
        return []
    mounts = " && ".join(f"mount --bind {shlex.quote(str(p))} {shlex.quote(str(p))} && "
                         f"mount -o remount,ro,bind {shlex.quote(str(p))}" for p in paths)
    return ["unshare", "-rm", "sh", "-c", f'{mounts} && exec "$@"', "sh"]


def serve_on(folder: Path, *prefix: str):
    return subprocess.run([*prefix, *QUIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(folder),
                           "--no-qr", "--no-mdns"], cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("what", ["quin.sqlite3", "quin.sqlite3-wal", "the folder"])
def test_quin_serve_on_a_store_it_cannot_write_says_what_and_where_and_exits_2(tmp_path, what):
    stored_games(tmp_path, n=1)
    db = tmp_path / "quin.sqlite3"
    if what == "quin.sqlite3-wal":
        import sqlite3

        with sqlite3.connect(db) as c:  # a WAL that is there and holds nothing yet
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("CREATE TABLE IF NOT EXISTS keep_wal(x)")
            c.execute("PRAGMA wal_autocheckpoint=0")
        assert Path(f"{db}-wal").exists()
    target = tmp_path if what == "the folder" else tmp_path / what
    if what == "the folder":
        for side in ("-wal", "-shm"):
            Path(f"{db}{side}").unlink(missing_ok=True)
    out = serve_on(tmp_path, *read_only(target))
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr + out.stdout, out.stderr
    assert "cannot be written" in lines[0]
    named = f"the folder {tmp_path} is read-only" if what == "the folder" else f"{tmp_path / what} is read-only"
    assert named in lines[0], lines[0]
