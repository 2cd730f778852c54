"""`quin setup` run against a temporary root (the system tests' ``make_root``), and its unit read back."""

from host.cli import main

UNIT = "etc/systemd/system/quin.service"


def unit_settings(text):
    settings = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def setup(root, *args):
    return main(["setup", "--root", str(root), "--user", "ada", *args])
