"""`quin setup` and the SD card (issue 18): the unit waits for the data folder's own partition,
the mount table says where the games are and setup says what that means, and --protect-card
(the one change that is safe to make for the owner) keeps the system journal in memory and is
undone by --undo.  Against a temporary root with a mount table of its own."""

import subprocess

from host.cli import main
from tests.support.setup_cmd import UNIT, setup, unit_settings

JOURNAL = "etc/systemd/journald.conf.d/quin.conf"
DATA = "/home/ada/.local/share/quin"


def mountinfo(root, *mounts):
    """/proc/self/mountinfo under the root: (mount point, type, options) per line, in the kernel's form."""
    lines = [f"{20 + i} 1 179:{i} / {point} {opts} shared:{i} - {kind} /dev/mmcblk0p{i} {opts}"
             for i, (point, kind, opts) in enumerate(mounts)]
    (root / "proc/self").mkdir(parents=True, exist_ok=True)
    (root / "proc/self/mountinfo").write_text("\n".join(lines) + "\n")


def test_the_unit_waits_for_the_data_folders_mount(make_root, systemd_tool):
    root = make_root()
    assert setup(root) == 0
    assert unit_settings((root / UNIT).read_text())["RequiresMountsFor"] == [DATA]
    verify = subprocess.run([systemd_tool("systemd-analyze"), "verify", str(root / UNIT)], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr


def test_data_on_the_root_file_system_is_said_with_what_to_do_and_the_offer(make_root, capsys):
    root = make_root()
    mountinfo(root, ("/", "ext4", "rw,noatime"), ("/boot/firmware", "vfat", "rw"))
    assert setup(root) == 0
    out = capsys.readouterr().out
    assert f"the data folder {DATA} is on the root file system" in out and '"SD cards"' in out
    assert "`sudo quin setup --protect-card`" in out
    assert not (root / JOURNAL).exists()  # only offered


def test_data_on_its_own_partition_is_not_a_problem(make_root, capsys):
    root = make_root()
    mountinfo(root, ("/", "ext4", "ro,noatime"), ("/home/ada/.local/share/quin", "ext4", "rw,noatime"))
    assert setup(root) == 0
    out = capsys.readouterr().out
    assert "root file system" not in out and "LOST" not in out
    assert "--protect-card" not in out  # a read-only root writes no journal to the card anyway


def test_data_on_an_overlay_root_is_a_warning_that_games_are_lost(make_root, capsys):
    root = make_root()
    mountinfo(root, ("/", "overlay", "rw,relatime"))
    assert setup(root) == 0
    out = capsys.readouterr().out
    assert f"the data folder {DATA} is on a overlay file system (/): games written there are LOST at power-off" in out


def test_protect_card_keeps_the_journal_in_memory_and_undo_removes_it(make_root, capsys):
    root = make_root()
    mountinfo(root, ("/", "ext4", "rw"))
    assert setup(root, "--protect-card") == 0
    out = capsys.readouterr().out
    text = (root / JOURNAL).read_text()
    assert "Storage=volatile" in text and "RuntimeMaxUse=16M" in text
    assert f"wrote {root / JOURNAL}" in out and "--protect-card`" not in out
    assert setup(root) == 0  # run again without the flag: what it added stays
    assert (root / JOURNAL).exists()
    assert main(["setup", "--root", str(root), "--undo"]) == 0
    assert f"removed {root / JOURNAL}" in capsys.readouterr().out
    assert not (root / JOURNAL).exists()
