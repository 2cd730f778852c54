"""`quin setup`: run the referee as a systemd service at power-up, and take it out again.

Everything it writes lives under ``root`` (``/`` on the Pi, a temporary folder
in the tests): the unit ``etc/systemd/system/quin.service`` (from the
template ``hardware/quin.service.in``), the udev rule
``etc/udev/rules.d/99-quin.rules``, the enable link, and the user's
membership of the groups the board needs.  What it added is recorded in
``var/lib/quin/setup.json`` so that ``--undo`` removes exactly that; the data
folder (games, calibration) is never removed.

On the live system (root ``/``) it also reloads systemd and udev, enables and
starts (or restarts) the service.  Under another root it only writes files and
enables the unit there (``systemctl --root``): nothing is started.
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from host.board import hardware_files
from host.board.sources.serial_source import STABLE_NAME

UNIT_NAME = "quin.service"
UNIT_FILE = "etc/systemd/system/quin.service"
RULE_FILE = "etc/udev/rules.d/99-quin.rules"
STATE_FILE = "var/lib/quin/setup.json"
MARK = "written by `quin setup`"  # in every file it writes (the unit and rule templates carry it)
JOURNAL_FILE = "etc/systemd/journald.conf.d/quin.conf"  # --protect-card: the system journal in memory
JOURNAL_TEXT = f"""# {MARK} --protect-card: the system journal is kept in memory (lost at
# power-off), so logging does not wear the SD card. `quin setup --undo` removes it.
[Journal]
Storage=volatile
RuntimeMaxUse=16M
"""
HUB_FILE = "etc/quin/hub.env"  # --hub/--table-key: the club hub and this table's key (root only: a secret)
HUB_TEXT = f"""# {MARK} --hub: the club's hub this board pushes its games to
# (docs/hub.md). It holds the table's key, so only root reads it; systemd reads it for the
# service. `quin setup --no-hub` or `--undo` removes it.
QUIN_HUB={{url}}
QUIN_TABLE_KEY={{key}}
"""
KEY = re.compile(r"^qt_[A-Za-z0-9_-]{16,128}$")  # a table key as `quin hub add-table` prints it
BOARD_GROUPS = {"serial": ("dialout",), "gpio": ("gpio",), "blinka": ("gpio", "spi")}
CALIBRATED_BOARDS = ("serial", "blinka")  # the service cannot start on these before `quin calibrate`


class SetupError(Exception):
    """What stopped the setup, in one line."""


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int
    home: str
    group: str  # primary group's name


class Accounts:
    """Users and groups of the system at ``root``: the system's own database for ``/``, else its files."""

    def __init__(self, root: Path):
        self.root = root
        self.live = root == Path("/")

    def _passwd(self) -> list[list[str]]:
        return _colon_file(self.root / "etc/passwd")

    def _groups(self) -> list[list[str]]:
        return _colon_file(self.root / "etc/group")

    def user(self, name: str) -> Account:
        if self.live:
            try:
                pw = pwd.getpwnam(name)
            except KeyError:
                raise SetupError(f"no user {name!r} on this system (pass --user NAME)") from None
            uid, gid, home = pw.pw_uid, pw.pw_gid, pw.pw_dir
        else:
            row = next((r for r in self._passwd() if r[0] == name), None)
            if row is None or len(row) < 6:
                raise SetupError(f"no user {name!r} in {self.root / 'etc/passwd'} (pass --user NAME)")
            uid, gid, home = int(row[2]), int(row[3]), row[5]
        return Account(name, uid, gid, home, self.group_name(gid) or str(gid))

    def group_name(self, gid: int) -> str | None:
        if self.live:
            try:
                return grp.getgrgid(gid).gr_name
            except KeyError:
                return None
        return next((r[0] for r in self._groups() if len(r) > 2 and r[2] == str(gid)), None)

    def _group(self, name: str) -> tuple[int, set[str]] | None:
        if self.live:
            try:
                g = grp.getgrnam(name)
            except KeyError:
                return None
            return g.gr_gid, set(g.gr_mem)
        row = next((r for r in self._groups() if r[0] == name and len(r) > 3), None)
        return None if row is None else (int(row[2]), {m for m in row[3].split(",") if m})

    def group_exists(self, name: str) -> bool:
        return self._group(name) is not None

    def in_group(self, account: Account, name: str) -> bool:
        found = self._group(name)
        return found is not None and (found[0] == account.gid or account.name in found[1])


def _colon_file(path: Path) -> list[list[str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror}") from None
    return [line.split(":") for line in text.splitlines() if line and not line.startswith("#")]


def check_hub(url: str | None, key: str | None) -> None:
    """SetupError in one line naming the field, unless both are given and look right."""
    from urllib.parse import urlsplit

    if url is None and key is None:
        return
    if not url:
        raise SetupError("--table-key needs --hub URL (the club hub's address)")
    if not key:
        raise SetupError("--hub needs --table-key K (the key `quin hub add-table` printed for this table)")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.query
            or parts.fragment or parts.username or re.search(r"[\s\x00-\x1f%$\\\"']", url)):
        shown = url if len(url) <= 60 else url[:60] + "..."
        raise SetupError(f"--hub: an http:// or https:// address such as http://hub.local:8100 is expected, not {shown!r}")
    del port
    if not KEY.match(key):
        shown = key[:6] + "..." if len(key) > 6 else key
        raise SetupError(f"--table-key: the key `quin hub add-table` printed (qt_ and at least 16 letters, "
                         f"digits, - or _) is expected, not {shown!r}")


@dataclass
class Options:
    exec: list[str]  # the command line that runs this installation's quin
    board: str = "serial"
    serial_port: str | None = None
    user: str | None = None
    http_port: int = 8000
    data_dir: str | None = None
    protect_card: bool = False  # keep the system journal in memory (fewer writes to the SD card)
    hub: str | None = None  # push the games to this club hub (with table_key); None: keep what was set up
    table_key: str | None = None
    no_hub: bool = False  # stop pushing to the hub set up before


@dataclass
class Outcome:
    changes: list[str] = field(default_factory=list)  # what was changed, one line each
    notes: list[str] = field(default_factory=list)  # what was left as it was, and why
    started: bool = False  # the service runs the new settings now
    account: Account | None = None
    data_dir: str = ""


def systemd_quote(arg: str) -> str:
    """One word of a unit file's command line: specifiers and variables escaped, quoted if needed."""
    word = arg.replace("%", "%%").replace("$", "$$")
    if re.search(r"[\s\"'\\;]", word):
        word = '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return word


def unit_text(account: Account, opts: Options, data_dir: str, hub: bool = False) -> str:
    """The unit file for ``account`` and ``opts`` (the template with its placeholders filled in);
    ``hub``: the service reads the hub's address and the table's key from :data:`HUB_FILE`."""
    template = (hardware_files.hardware_dir() / "quin.service.in").read_text(encoding="utf-8")
    if opts.board == "serial":
        environment = f"Environment=QUIN_SERIAL_PORT={opts.serial_port or STABLE_NAME}\n"
    else:
        environment = ""
    if hub:
        environment += f"EnvironmentFile=/{HUB_FILE}\n"
    values = {
        "USER": account.name,
        "GROUP": account.group,
        "DATA_DIR": data_dir.replace("%", "%%"),
        "EXEC": " ".join(systemd_quote(a) for a in opts.exec),
        "BOARD": opts.board,
        "HTTP_PORT": str(opts.http_port),
    }
    text = template.replace("@ENVIRONMENT@\n", environment)
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    left = re.search(r"@[A-Z_]+@", text)
    if left:  # pragma: no cover - a template and this function out of step
        raise SetupError(f"the unit template has an unknown placeholder {left.group(0)}")
    return text


def rule_text() -> str:
    return (hardware_files.hardware_dir() / "99-quin.rules").read_text(encoding="utf-8")


Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


def run_command(cmd: list[str]) -> "subprocess.CompletedProcess[str]":
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise SetupError(f"`{cmd[0]}` is not installed here, and `quin setup` needs it") from None


class Installer:
    """Applies or undoes the setup under ``root``; ``run`` runs a system command."""

    def __init__(self, root: str | Path = "/", run: Runner = run_command):
        self.root = Path(root).resolve()
        self.live = self.root == Path("/")
        self.run = run
        self.accounts = Accounts(self.root)

    # --- paths ---

    def under_root(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def shown(self, rel: str) -> str:
        """A path as the user should read it: /etc/... on the Pi, the full path under another root."""
        return "/" + rel if self.live else str(self.root / rel)

    # --- commands ---

    def _check(self, cmd: list[str]) -> None:
        done = self.run(cmd)
        if done.returncode != 0:
            why = (done.stderr or done.stdout or "").strip().splitlines()
            raise SetupError(f"`{' '.join(cmd)}` failed: {why[0] if why else f'exit status {done.returncode}'}")

    def _ok(self, cmd: list[str]) -> bool:
        return self.run(cmd).returncode == 0

    def _systemctl(self, *args: str) -> list[str]:
        return ["systemctl", *args] if self.live else ["systemctl", f"--root={self.root}", *args]

    def _chroot_opt(self, flag: str) -> list[str]:
        return [] if self.live else [flag, str(self.root)]

    # --- state ---

    def _load_state(self) -> dict:
        path = self.under_root(STATE_FILE)
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            raise SetupError(f"{path} is damaged: remove it and run `quin setup` again") from None
        return state if isinstance(state, dict) else {}

    def _save_state(self, state: dict) -> None:
        path = self.under_root(STATE_FILE)
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(path, json.dumps(state, indent=1, sort_keys=True) + "\n", 0o644)

    # --- setup ---

    def resolve_user(self, name: str | None) -> Account:
        name = name or os.environ.get("SUDO_USER") or (pwd.getpwuid(os.getuid()).pw_name if self.live else None)
        if not name:
            raise SetupError("say which user runs the service: --user NAME")
        account = self.accounts.user(name)
        if account.uid == 0:
            raise SetupError("the service must not run as root: run `sudo quin setup` from the player's "
                             "account, or pass --user NAME")
        return account

    def setup(self, opts: Options) -> Outcome:
        if opts.board not in BOARD_GROUPS:
            raise SetupError(f"--board must be one of {', '.join(BOARD_GROUPS)}, not {opts.board!r}")
        account = self.resolve_user(opts.user)
        data_dir = opts.data_dir or os.path.join(account.home, ".local", "share", "quin")
        if not os.path.isabs(data_dir) or re.search(r"\s", data_dir):
            raise SetupError(f"the data folder must be an absolute path without spaces, not {data_dir!r}")
        check_hub(opts.hub, opts.table_key)
        out = Outcome(account=account, data_dir=data_dir)
        state = self._load_state()
        if opts.hub is not None:
            hub_text = HUB_TEXT.format(url=opts.hub.rstrip("/"), key=opts.table_key)
        elif opts.no_hub:
            hub_text = None
        else:  # run again without --hub: the hub set up before stays (its key may not be at hand)
            hub_text = self._read(HUB_FILE) if self._is_ours(HUB_FILE) else None
        unit = unit_text(account, opts, data_dir, hub=hub_text is not None)  # a bad template stops here

        created = self._make_data_dir(data_dir, account)
        if created:
            out.changes.append(f"created the data folder {data_dir} (owned by {account.name})")
        unit_changed = self._write(UNIT_FILE, unit, out)
        rule_changed = self._write(RULE_FILE, rule_text(), out)
        journal_changed = self._write(JOURNAL_FILE, JOURNAL_TEXT, out) if opts.protect_card else False
        if hub_text is not None:
            hub_changed = self._write(HUB_FILE, hub_text, out, mode=0o600)
        else:
            hub_changed = self._remove_ours(HUB_FILE, out)
        groups_added = self._join_groups(account, opts.board, out)
        added = {tuple(x) for x in state.get("groups_added", [])} | {(account.name, g) for g in groups_added}
        files = [UNIT_FILE, RULE_FILE] + ([JOURNAL_FILE] if opts.protect_card or JOURNAL_FILE in state.get("files", []) else [])
        files += [HUB_FILE] if hub_text is not None else []
        self._save_state({
            "user": account.name,
            "board": opts.board,
            "data_dir": data_dir,
            "files": files,
            "groups_added": sorted([list(x) for x in added]),
        })
        out.notes.extend(self.card_notes(data_dir, JOURNAL_FILE in files))

        if self.live:
            if journal_changed:
                self._check(["systemctl", "restart", "systemd-journald"])
            if unit_changed:
                self._check(["systemctl", "daemon-reload"])
            if rule_changed:
                self._check(["udevadm", "control", "--reload"])
                self._check(["udevadm", "trigger", "--subsystem-match=tty"])
        if not self._ok(self._systemctl("is-enabled", "--quiet", UNIT_NAME)):
            self._check(self._systemctl("enable", UNIT_NAME))
            out.changes.append(f"enabled {UNIT_NAME}: it starts at power-up")
        if not self.live:
            out.notes.append(f"not started: {self.root} is not the running system")
            return out
        calibration = Path(data_dir) / "calibration.json"
        if opts.board in CALIBRATED_BOARDS and not calibration.exists():
            out.notes.append(f"not started: the {opts.board} board has no calibration yet. Run `quin calibrate` "
                             f"as {account.name}, then `sudo systemctl start quin`")
            return out
        if not self._ok(["systemctl", "is-active", "--quiet", UNIT_NAME]):
            self._check(["systemctl", "start", UNIT_NAME])
            out.changes.append(f"started {UNIT_NAME}")
        elif unit_changed or groups_added or hub_changed:
            self._check(["systemctl", "restart", UNIT_NAME])
            out.changes.append(f"restarted {UNIT_NAME} with the new settings")
        out.started = True
        return out

    def card_notes(self, data_dir: str, journal_in_memory: bool) -> list[str]:
        """What protects the games on an SD card, and what the owner can do (docs/hardware.md,
        "SD cards"): read from the mount table (``proc/self/mountinfo`` under the root), changing nothing."""
        mounts = self._mounts()
        if mounts is None:
            return []
        notes = []
        target = os.path.normpath(data_dir)
        holding = max((m for m in mounts if target == m[0] or target.startswith(m[0].rstrip("/") + "/")),
                      key=lambda m: len(m[0]), default=None)
        root = next((m for m in mounts if m[0] == "/"), None)
        if holding is not None and holding[1] in ("overlay", "tmpfs", "ramfs"):
            notes.append(f"the data folder {data_dir} is on a {holding[1]} file system ({holding[0]}): games written "
                         "there are LOST at power-off. Give it a partition of its own (docs/hardware.md, \"SD cards\")")
        elif holding is not None and holding[0] == "/":
            notes.append(f"the data folder {data_dir} is on the root file system; a partition of its own (and a "
                         "read-only root) keeps a failing card or a power cut from taking the system with it: "
                         "docs/hardware.md, \"SD cards\" (not done for you: it repartitions the card)")
        if root is not None and not journal_in_memory and root[1] not in ("overlay",) and "ro" not in root[2]:
            notes.append("to write less to the SD card, `sudo quin setup --protect-card` also keeps the system "
                         "journal in memory (it is lost at power-off; `--undo` puts it back)")
        return notes

    def _mounts(self) -> list[tuple[str, str, set[str]]] | None:
        """(mount point, file system type, mount options) of each mount, or None if unknown."""
        try:
            text = self.under_root("proc/self/mountinfo").read_text(encoding="utf-8")
        except OSError:
            return None
        mounts = []
        for line in text.splitlines():
            left, _, right = line.partition(" - ")
            fields, after = left.split(), right.split()
            if len(fields) < 6 or not after:
                continue
            point = fields[4].replace("\\040", " ")
            mounts.append((point, after[0], set(fields[5].split(","))))
        return mounts

    def _make_data_dir(self, data_dir: str, account: Account) -> bool:
        """Create the data folder (and any missing parents) owned by the user; True if it was missing."""
        target = self.under_root(data_dir)
        if target.is_dir():
            return False
        missing = []
        p = target
        while not p.exists():
            missing.append(p)
            p = p.parent
        for folder in reversed(missing):
            folder.mkdir(mode=0o700 if folder == target else 0o755)
            os.chown(folder, account.uid, account.gid)
        return True

    def _read(self, rel: str) -> str | None:
        try:
            return self.under_root(rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _remove_ours(self, rel: str, out: Outcome) -> bool:
        """Remove a file `quin setup` wrote (and its folder, if empty); True if there was one."""
        if not self._is_ours(rel):
            return False
        path = self.under_root(rel)
        path.unlink()
        out.changes.append(f"removed {self.shown(rel)}")
        try:
            path.parent.rmdir()
        except OSError:
            pass
        return True

    def _write(self, rel: str, text: str, out: Outcome, mode: int = 0o644) -> bool:
        path = self.under_root(rel)
        try:
            old = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            old = None
        if old == text and (path.stat().st_mode & 0o777) == mode:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(path, text, mode)
        if old is None:
            out.changes.append(f"wrote {self.shown(rel)}")
        elif MARK in old:
            out.changes.append(f"updated {self.shown(rel)}")
        else:
            out.changes.append(f"replaced {self.shown(rel)} (it was not written by `quin setup`)")
        return True

    def _join_groups(self, account: Account, board: str, out: Outcome) -> list[str]:
        added = []
        for group in BOARD_GROUPS[board]:
            if not self.accounts.group_exists(group):
                out.notes.append(f"no group {group!r} on this system: {account.name} was not added to it")
            elif not self.accounts.in_group(account, group):
                self._check(["usermod", *self._chroot_opt("--root"), "--append", "--groups", group, account.name])
                out.changes.append(f"added {account.name} to the group {group}")
                added.append(group)
        return added

    # --- undo ---

    def undo(self) -> Outcome:
        state = self._load_state()
        out = Outcome(data_dir=state.get("data_dir", ""))
        ours = [rel for rel in (UNIT_FILE, RULE_FILE, JOURNAL_FILE, HUB_FILE) if self._is_ours(rel)]
        if UNIT_FILE in ours:
            if self.live and self._ok(["systemctl", "is-active", "--quiet", UNIT_NAME]):
                self._check(["systemctl", "stop", UNIT_NAME])
                out.changes.append(f"stopped {UNIT_NAME}")
            if self._ok(self._systemctl("is-enabled", "--quiet", UNIT_NAME)):
                self._check(self._systemctl("disable", UNIT_NAME))
                out.changes.append(f"disabled {UNIT_NAME}")
        for rel in ours:
            self.under_root(rel).unlink()
            out.changes.append(f"removed {self.shown(rel)}")
            if rel == HUB_FILE:
                try:
                    self.under_root(rel).parent.rmdir()
                except OSError:
                    pass
        for rel in (UNIT_FILE, RULE_FILE):
            if rel not in ours and self.under_root(rel).exists():
                out.notes.append(f"kept {self.shown(rel)}: it was not written by `quin setup`")
        for user, group in state.get("groups_added", []):
            try:
                account = self.accounts.user(user)
            except SetupError:
                continue
            if self.accounts.in_group(account, group):
                self._check(["gpasswd", *self._chroot_opt("--root"), "--delete", user, group])
                out.changes.append(f"removed {user} from the group {group}")
        if self.live and JOURNAL_FILE in ours:
            self._check(["systemctl", "restart", "systemd-journald"])
        if self.live and ours:
            self._check(["systemctl", "daemon-reload"])
            if RULE_FILE in ours:
                self._check(["udevadm", "control", "--reload"])
        state_path = self.under_root(STATE_FILE)
        if state_path.exists():
            state_path.unlink()
            try:
                state_path.parent.rmdir()
            except OSError:
                pass
        if out.data_dir and self.under_root(out.data_dir).is_dir():
            out.notes.append(f"kept the data folder {out.data_dir} (games and calibration)")
        return out

    def _is_ours(self, rel: str) -> bool:
        try:
            return MARK in self.under_root(rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return False


def _write_atomic(path: Path, text: str, mode: int) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    # made readable by its owner only, until written: the hub's file holds a table's key
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)
