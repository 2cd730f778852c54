"""`quin setup` against a temporary root: the unit, the udev rule, the groups, idempotence, --undo.

The files are checked with systemd's own tools (`systemd-analyze verify` and
`security --offline`, `systemctl --root`), the groups by reading the root's
/etc/group after the real usermod/gpasswd changed it.  tools/test.sh installs
systemd where it is missing; a test that cannot find it fails, it does not skip.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from host.cli import main
from tests.support.setup_cmd import UNIT, setup, unit_settings

ROOT = Path(__file__).resolve().parents[3]
RULE = "etc/udev/rules.d/99-quin.rules"
WANTS = "etc/systemd/system/multi-user.target.wants/quin.service"


def members(root, group):
    for line in (root / "etc/group").read_text().splitlines():
        name, _, _, users = line.split(":")
        if name == group:
            return {u for u in users.split(",") if u}
    raise AssertionError(f"no group {group}")


def test_setup_writes_a_verified_hardened_unit_for_this_installation(make_root, systemd_tool, capsys):
    root = make_root()
    assert setup(root) == 0
    out = capsys.readouterr().out
    text = (root / UNIT).read_text()
    s = unit_settings(text)
    assert s["User"] == ["ada"] and s["Group"] == ["ada"]
    data = "/home/ada/.local/share/quin"
    assert s["Environment"] == [f"QUIN_DATA_DIR={data}", "PYTHONUNBUFFERED=1", "QUIN_SERIAL_PORT=/dev/quin-board"]
    exec_start = s["ExecStart"][0].split()
    assert exec_start[-5:] == ["serve", "--board", "serial", "--port", "8000"]
    # this installation's quin: the console script beside the interpreter that ran setup
    assert exec_start[:-5] == [str(Path(sys.executable).parent / "quin")] or exec_start[:-5] == [sys.executable, "-m", "host.cli"]
    assert "--show-links" not in text  # the journal never holds a seat token
    # the hardening the issue asks for, and the data folder the only writable path
    assert s["NoNewPrivileges"] == ["yes"] and s["PrivateTmp"] == ["yes"]
    assert s["ProtectSystem"] == ["strict"] and s["ReadWritePaths"] == [data]
    assert s["Restart"] == ["on-failure"]
    assert s["LimitNOFILE"] == ["8192"]  # issue 18: live pages and connections are files; quin serve caps them below it
    verify = subprocess.run([systemd_tool("systemd-analyze"), "verify", str(root / UNIT)],
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    security = subprocess.run([systemd_tool("systemd-analyze"), "security", "--offline=yes", str(root / UNIT)],
                              capture_output=True, text=True)
    report = security.stdout
    for setting in ("NoNewPrivileges=", "PrivateTmp=", "ProtectSystem="):
        line = next(line for line in report.splitlines() if setting in line)
        assert line.lstrip().startswith("✓"), line
    assert "Overall exposure level for quin.service" in report
    # the udev rule is the packaged one; the data folder exists for ReadWritePaths, owned by the player
    assert (root / RULE).read_text() == (ROOT / "hardware/99-quin.rules").read_text()
    folder = root / data.lstrip("/")
    assert folder.is_dir() and folder.stat().st_uid == 1000 and oct(folder.stat().st_mode & 0o777) == "0o700"
    assert (root / WANTS).is_symlink()
    enabled = subprocess.run([systemd_tool("systemctl"), f"--root={root}", "is-enabled", "quin.service"],
                             capture_output=True, text=True)
    assert enabled.stdout.strip() == "enabled"
    assert members(root, "dialout") == {"ada"} and members(root, "gpio") == set()
    for line in ("created the data folder", f"wrote {root / UNIT}", f"wrote {root / RULE}",
                 "added ada to the group dialout", "enabled quin.service"):
        assert line in out, out
    assert "not started" in out


def test_running_it_twice_changes_nothing_and_undo_removes_what_it_added(make_root, capsys):
    root = make_root()
    assert setup(root) == 0
    unit = (root / UNIT).read_text()
    capsys.readouterr()
    assert setup(root) == 0
    out = capsys.readouterr().out
    assert "Nothing to change" in out and "Changed:" not in out
    assert (root / UNIT).read_text() == unit
    assert members(root, "dialout") == {"ada"}

    games = root / "home/ada/.local/share/quin/quin.sqlite3"
    games.write_text("the games")
    assert main(["setup", "--root", str(root), "--undo"]) == 0
    out = capsys.readouterr().out
    for path in (UNIT, RULE, WANTS):
        assert not os.path.lexists(root / path), path
    assert members(root, "dialout") == set()
    assert not (root / "var/lib/quin").exists()
    assert "removed ada from the group dialout" in out and "disabled quin.service" in out
    assert games.read_text() == "the games" and "kept the data folder" in out
    assert main(["setup", "--root", str(root), "--undo"]) == 0
    assert "Nothing to undo" in capsys.readouterr().out


def test_undo_leaves_the_groups_the_user_already_had(make_root, capsys):
    root = make_root()
    (root / "etc/group").write_text((root / "etc/group").read_text().replace("dialout:x:20:", "dialout:x:20:ada"))
    assert setup(root, "--board", "gpio") == 0
    assert members(root, "gpio") == {"ada"}
    assert setup(root, "--board", "serial") == 0  # switching boards: the unit changes, dialout was there
    out = capsys.readouterr().out
    assert f"updated {root / UNIT}" in out and "added ada to the group dialout" not in out
    assert main(["setup", "--root", str(root), "--undo"]) == 0
    assert members(root, "gpio") == set() and members(root, "dialout") == {"ada"}


def test_boards_and_their_groups(make_root, capsys):
    root = make_root(groups=("gpio",))
    assert setup(root, "--board", "blinka", "--http-port", "8080") == 0
    out = capsys.readouterr().out
    s = unit_settings((root / UNIT).read_text())
    assert s["ExecStart"][0].endswith("serve --board blinka --port 8080")
    assert not any(e.startswith("QUIN_SERIAL_PORT") for e in s["Environment"])
    assert members(root, "gpio") == {"ada"}
    assert "no group 'spi' on this system" in out
    assert setup(root, "--board", "serial", "--port", "/dev/ttyACM1") == 0
    assert "QUIN_SERIAL_PORT=/dev/ttyACM1" in unit_settings((root / UNIT).read_text())["Environment"]
    assert "no group 'dialout'" in capsys.readouterr().out


def test_a_hand_written_unit_is_replaced_and_reported(make_root, capsys):
    root = make_root()
    (root / UNIT).parent.mkdir(parents=True)
    (root / UNIT).write_text("[Service]\nExecStart=/home/pi/quin/.venv/bin/quin serve\n")
    assert setup(root) == 0
    assert "(it was not written by `quin setup`)" in capsys.readouterr().out
    assert "User=ada" in (root / UNIT).read_text()


def test_a_path_with_spaces_is_quoted_for_systemd():
    from host.system.service import systemd_quote

    assert systemd_quote("/home/ada/my quin/bin/quin") == '"/home/ada/my quin/bin/quin"'
    assert systemd_quote("/opt/50%/quin") == "/opt/50%%/quin"


@pytest.mark.parametrize("argv, message", [
    (["--user", "root"], "must not run as root"),
    (["--user", "nobody-here"], "no user 'nobody-here'"),
    (["--user", "ada", "--board", "gpio", "--port", "/dev/ttyACM0"], "--port is the serial board's port"),
    (["--user", "ada", "--data-dir", "games"], "absolute path"),
])
def test_bad_requests_are_one_line_and_change_nothing(make_root, capsys, argv, message):
    root = make_root()
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    code = main(["setup", "--root", str(root), *argv])
    err = capsys.readouterr().err
    assert code in (1, 2) and message in err and len(err.strip().splitlines()) == 1
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def _serve_and_check(setup_cmds, tmp_path, *extra) -> int:
    """Start a real `quin serve` on a simulated board, run setup's last step against it, stop it; its port."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())",
                             "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path), "--no-qr",
                             *extra], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        port = int(lines[2].strip().rstrip("/").rsplit(":", 1)[1])
        assert setup_cmds._check_service(port) == 0
    finally:
        proc.terminate()
        proc.communicate(timeout=15)
    return port


def test_after_starting_it_checks_the_service_and_its_board(tmp_path, capsys, monkeypatch):
    """The last step of a live setup, against a real `quin serve` (a simulated board: nothing to fault)."""
    from host.commands import setup_cmds

    monkeypatch.setattr(setup_cmds, "BOARD_WAIT", 0.5)
    port = _serve_and_check(setup_cmds, tmp_path)
    out = capsys.readouterr().out
    assert f"Status page: http://quin.local:{port}/ (or http://" in out
    assert "The board is connected and read." in out and "/seat/" not in out

    monkeypatch.setattr(setup_cmds, "SERVICE_WAIT", 0.5)
    assert setup_cmds._check_service(port) == 1  # nothing answers there now
    assert "journalctl -u quin" in capsys.readouterr().out


HUB = "etc/quin/hub.env"
KEY = "qt_" + "k" * 32


def test_setup_with_a_hub_persists_it_for_the_service_readable_by_root_only(make_root, systemd_tool, capsys):
    """`quin setup --hub URL --table-key K` is `quin serve --hub URL --table-key K` at every start."""
    root = make_root()
    assert setup(root, "--hub", "http://hub.club.example:8100/", "--table-key", KEY) == 0
    out = capsys.readouterr().out
    assert f"wrote {root / HUB}" in out and KEY not in out  # the key is not printed back
    text = (root / HUB).read_text()
    settings = unit_settings(text)
    assert settings["QUIN_HUB"] == ["http://hub.club.example:8100"] and settings["QUIN_TABLE_KEY"] == [KEY]
    assert oct((root / HUB).stat().st_mode & 0o777) == "0o600"  # a secret: root only (systemd reads it as root)
    unit = (root / UNIT).read_text()
    assert unit_settings(unit)["EnvironmentFile"] == ["/etc/quin/hub.env"] and KEY not in unit
    verify = subprocess.run([systemd_tool("systemd-analyze"), "verify", str(root / UNIT)], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    # what the service runs reads them as `quin serve` reads QUIN_HUB and QUIN_TABLE_KEY
    from host.commands import serve_cmds
    import argparse
    import os as _os

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    env = dict(settings_line.split("=", 1) for settings_line in text.splitlines() if settings_line and not settings_line.startswith("#"))
    old = {k: _os.environ.get(k) for k in env}
    _os.environ.update(env)
    try:
        serve_cmds.add_parser(sub)
        args = parser.parse_args(["serve"])
    finally:
        for k, v in old.items():
            if v is None:
                _os.environ.pop(k)
            else:
                _os.environ[k] = v
    assert (args.hub, args.table_key) == ("http://hub.club.example:8100", KEY)

    # run again without --hub (to change the port, say): the hub stays
    assert setup(root, "--http-port", "8080") == 0
    assert (root / HUB).read_text() == text and "EnvironmentFile=/etc/quin/hub.env" in (root / UNIT).read_text()
    capsys.readouterr()
    # --no-hub takes it away; --undo removes it with the rest
    assert setup(root, "--no-hub") == 0
    assert not (root / HUB).exists() and "EnvironmentFile" not in (root / UNIT).read_text()
    assert f"removed {root / HUB}" in capsys.readouterr().out
    assert setup(root, "--hub", "https://hub.example", "--table-key", KEY) == 0
    assert main(["setup", "--root", str(root), "--undo"]) == 0
    assert not (root / HUB).exists() and not (root / "etc/quin").exists()


@pytest.mark.parametrize("argv, message", [
    (["--hub", "hub.local:8100", "--table-key", KEY], "--hub: an http:// or https:// address"),
    (["--hub", "ftp://hub.local", "--table-key", KEY], "--hub: an http:// or https:// address"),
    (["--hub", "http://hub local", "--table-key", KEY], "--hub: an http:// or https:// address"),
    (["--hub", "http://hub.local:99999", "--table-key", KEY], "--hub: an http:// or https:// address"),
    (["--hub", "http://hub.local"], "--hub needs --table-key"),
    (["--table-key", KEY], "--table-key needs --hub"),
    (["--hub", "http://hub.local", "--table-key", "secret"], "--table-key: the key `quin hub add-table` printed"),
    (["--hub", "http://hub.local", "--table-key", KEY + "\nX=1"], "--table-key: the key"),
    (["--no-hub", "--hub", "http://hub.local", "--table-key", KEY], "--no-hub: give it alone"),
])
def test_a_bad_hub_or_key_is_one_line_naming_the_field_and_changes_nothing(make_root, capsys, argv, message):
    root = make_root()
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    code = main(["setup", "--root", str(root), "--user", "ada", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "X=1" not in err
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def test_after_starting_it_says_whether_the_hub_is_reached(tmp_path, capsys, monkeypatch):
    from host.commands import setup_cmds

    monkeypatch.setattr(setup_cmds, "BOARD_WAIT", 0.2)
    with __import__("socket").socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    _serve_and_check(setup_cmds, tmp_path, "--no-mdns", "--hub", f"http://127.0.0.1:{dead}", "--table-key", KEY)
    out = capsys.readouterr().out
    hub = [line for line in out.splitlines() if line.startswith("The hub: ")]
    assert len(hub) == 1 and f"no hub at http://127.0.0.1:{dead} (nothing listens there)" in hub[0], out
