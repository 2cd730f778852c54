"""A throwaway PostgreSQL cluster for the hub's tests: initdb in a temporary folder, run as an
unprivileged user (PostgreSQL refuses root), listening on a loopback port; torn down after."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not versions:
        raise RuntimeError("PostgreSQL is not installed (bash tools/test.sh installs Debian's postgresql)")
    return versions[-1].parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self):
        self.bin = _bindir()
        self.folder = Path(tempfile.mkdtemp(prefix="quin-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            os.chmod(self.folder, 0o777)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "quin", "--no-sync", "-E", "UTF8")
        self.start()

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([*self.as_user, str(self.bin / tool), *args], check=check, capture_output=True,
                              text=True, timeout=120)

    def start(self) -> None:
        opts = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c max_connections=300 -c full_page_writes=off")
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.folder / "log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        self.stop()
        self.start()

    def dsn(self, db: str = "postgres") -> str:
        return f"postgresql://quin@127.0.0.1:{self.port}/{db}"

    def new_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def dump(self, db: str) -> bytes:
        """The database's data, as pg_dump writes it (the byte comparison of the privacy test)."""
        out = subprocess.run([str(self.bin / "pg_dump"), "--data-only", "--no-owner", "-d", self.dsn(db)],
                             check=True, capture_output=True, timeout=120)
        # pg_dump brackets its output with \restrict <random token> lines (a guard for psql): not data
        lines = [line for line in out.stdout.split(b"\n") if not line.startswith((b"\\restrict", b"\\unrestrict"))]
        # A table's rows come in the order they lie on disk, and where PostgreSQL puts a row depends
        # on which connection inserted it (each backend keeps its own target page): a hub's pool
        # lends its connections in no fixed order.  Each table's rows sorted: every byte of every
        # row is still compared, and no row can hide in another's place.
        out_lines, block = [], None
        for line in lines:
            if block is not None:
                if line == b"\\.":
                    out_lines += sorted(block) + [line]
                    block = None
                else:
                    block.append(line)
            else:
                out_lines.append(line)
                if line.startswith(b"COPY "):
                    block = []
        return b"\n".join(out_lines + (block or []))

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
