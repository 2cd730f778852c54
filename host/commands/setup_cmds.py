"""`quin setup [--undo]`: the referee as a service that starts at power-up (run with sudo on the Pi)."""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from host.commands import UserError

BOARDS = ("serial", "gpio", "blinka")
SERVICE_WAIT = 30.0  # seconds for a started service to answer its first request
BOARD_WAIT = 2.5  # then how long the board gets to show it is there (the serial link faults after 1 s of silence)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "setup",
        help="run quin serve as a service at power-up: systemd unit, udev rule, groups (run with sudo)",
        description="Writes a systemd unit for this installation's quin and the given user, installs the udev "
                    "rule, adds the user to the groups the board needs, enables and starts the service, checks "
                    "the board and prints the status page's address. Safe to run again; --undo removes what it "
                    "added (never the games).",
    )
    p.add_argument("--board", choices=BOARDS, default="serial", help="how the board is read (default serial)")
    p.add_argument("--port", help="the board's serial port (default /dev/quin-board, the udev rule's name)")
    p.add_argument("--user", help="who the service runs as (default: the user who ran sudo)")
    p.add_argument("--http-port", type=int, default=8000, help="the web pages' port (default 8000)")
    p.add_argument("--data-dir", help="where games are stored (default ~USER/.local/share/quin)")
    p.add_argument("--root", default="/", metavar="DIR",
                   help="set up the system installed under DIR instead of this one (writes files only)")
    p.add_argument("--protect-card", action="store_true",
                   help="also keep the system journal in memory, so logging does not wear the SD card "
                        "(it is lost at power-off); see docs/hardware.md, \"SD cards\"")
    p.add_argument("--hub", metavar="URL",
                   help="push this table's games to the club's hub at URL, as `quin serve --hub` (docs/hub.md); "
                        "kept when setup runs again without it")
    p.add_argument("--table-key", metavar="K", help="the key `quin hub add-table` printed for this table (with --hub)")
    p.add_argument("--no-hub", action="store_true", help="stop pushing to the hub set up before")
    p.add_argument("--undo", action="store_true", help="remove the service, the udev rule and the groups it added")
    p.set_defaults(func=cmd_setup)


def installation_command() -> list[str]:
    """The command line that runs this installation's quin (the console script beside this Python)."""
    script = Path(sys.executable).parent / "quin"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "host.cli"]


def cmd_setup(args) -> int:
    from host.system import service

    if not 0 < args.http_port < 65536:
        raise UserError(f"--http-port must be 1..65535, not {args.http_port}")
    if args.port and args.board != "serial":
        raise UserError(f"--port is the serial board's port; --board {args.board} has none")
    if args.no_hub and (args.hub or args.table_key):
        raise UserError("--no-hub: give it alone, or --hub URL --table-key K")
    try:
        service.check_hub(args.hub, args.table_key)
    except service.SetupError as exc:
        raise UserError(str(exc)) from None
    if args.root == "/" and os.geteuid() != 0:
        raise UserError(f"`quin setup` changes the system: run it with sudo (sudo {installation_command()[0]} setup ...)")
    installer = service.Installer(args.root)
    try:
        if args.undo:
            outcome = installer.undo()
        else:
            outcome = installer.setup(service.Options(
                exec=installation_command(), board=args.board, serial_port=args.port, user=args.user,
                http_port=args.http_port, data_dir=args.data_dir, protect_card=args.protect_card,
                hub=args.hub, table_key=args.table_key, no_hub=args.no_hub,
            ))
    except (service.SetupError, OSError) as exc:
        raise UserError(str(exc), 1) from None
    _report(outcome, args.undo)
    if args.undo or not outcome.started:
        return 0
    return _check_service(args.http_port)


def _report(outcome, undo: bool) -> None:
    if outcome.changes:
        print("Changed:")
        print("\n".join(f"  - {line}" for line in outcome.changes))
    else:
        print("Nothing to undo." if undo else "Nothing to change: everything was already set up.")
    for line in outcome.notes:
        print(f"  note: {line}")
    if not undo and outcome.account is not None:
        print(f"The service runs `quin serve` as {outcome.account.name}, games in {outcome.data_dir}.")


def _check_service(http_port: int) -> int:
    """Wait for the started service to answer, then say how its board is and where its pages are."""
    from host.system import mdns

    url = f"http://127.0.0.1:{http_port}/api/state"
    state = _poll(url, SERVICE_WAIT)
    if state is None:
        print(f"The service did not answer at {url} within {SERVICE_WAIT:.0f} s: see `journalctl -u quin -n 30`")
        return 1
    time.sleep(BOARD_WAIT)
    state = _poll(url, 5.0) or state
    source = state.get("source")
    name = f"http://{mdns.NAME}.local:{http_port}/"
    print(f"Status page: {name} (or http://{mdns.lan_address()}:{http_port}/)")
    print("Seat links and QR codes: `quin links` on the Pi.")
    if source and not source.get("ok", True):
        print(f"The board: {source.get('message')}")
        print("Check the cable; `quin doctor` examines every sensor (it says how to stop the service first).")
        return 1
    print("The board is connected and read.")
    hub = _hub_line(url, state)
    if hub:
        print(hub)
    return 0


def _hub_line(url: str, state: dict) -> str | None:
    """What the service says of its hub, once it has tried it (a few seconds at most)."""
    deadline = time.monotonic() + 5.0
    # until the pusher has an answer: reached, or why not (a refused key, no hub at that address...)
    while state.get("hub") and state["hub"].get("state") == "connecting" and time.monotonic() < deadline:
        time.sleep(0.3)
        state = _poll(url, 2.0) or state
    hub = state.get("hub")
    if not hub:
        return None
    return f"The hub: {hub.get('message')}"


def _poll(url: str, seconds: float) -> dict | None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return json.load(response)
        except (urllib.error.URLError, OSError, ValueError):
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.3)
