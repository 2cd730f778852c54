"""`quin virtual-pico`: the board's firmware on MicroPython behind a serial port, for people without a board."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

from host.commands import UserError

HELP = """Your hands on the board, typed here (spaces by name, e.g. w19; several at once are fine):
  place SPACE...   lift SPACE...   move FROM TO   towers SPACE... (exactly these)   clear
  start            towers on every space a new game's two lineups stand on
  all              a tower on every space (for `quin calibrate`)
  show             the towers, and the LEDs the firmware lit
  reset            press the reset button (the firmware starts again)
  unplug / plug    pull the USB cable / put it back
  stall SECONDS    the firmware hangs that long
  garbage N        N random bytes on the wire
  quit"""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("virtual-pico", help="run the board's firmware on MicroPython behind a serial port "
                                                   "(no board needed)")
    p.add_argument("--link", metavar="PATH",
                   help="where the port appears (a symlink; default: quin-virtual-pico in the temporary folder)")
    p.add_argument("--rate", type=int, default=60, help="raw frames a second (the firmware's rate_hz, default 60)")
    p.add_argument("--leds", type=int, default=99, help="WS2812 LEDs on the virtual board (default 99)")
    p.add_argument("--noise", type=int, default=20, help="ADC noise, +- counts per sample (default 20)")
    p.add_argument("--towers", metavar="SPACES", default="",
                   help="towers standing at power-up: space names separated by commas, or 'start' or 'all'")
    p.set_defaults(func=virtual_pico)


def _spaces(words: list[str]) -> list[int]:
    from engine.board import parse_space
    from engine.errors import InvalidError

    out = []
    for w in words:
        try:
            out.append(parse_space(w))
        except (InvalidError, ValueError):
            raise ValueError(f"no space {w!r} on the board") from None
    return out


def start_spaces() -> set[int]:
    """Where a new game's two lineups stand (the same spaces whoever is where)."""
    import random

    from engine.board import BLACK, WHITE
    from engine.game import Game
    from engine.randplay import random_setup

    rng = random.Random(0)
    return set(Game(random_setup(rng, WHITE), random_setup(rng, BLACK)).occupied())


def _towers(spec: str) -> set[int]:
    spec = spec.strip()
    if spec == "start":
        return start_spaces()
    if spec == "all":
        from engine.board import SPACES

        return set(SPACES)
    return set(_spaces([w for w in spec.replace(",", " ").split() if w]))


def command(pico, line: str, out=sys.stdout) -> bool:
    """Do one typed line; False to stop.  Errors are one line, never a traceback."""
    from engine.board import SPACE_NAMES, SPACES

    words = line.split()
    if not words:
        return True
    verb, rest = words[0].lower(), words[1:]
    field = pico.field
    try:
        if verb in ("quit", "exit"):
            return False
        if verb == "place":
            for s in _spaces(rest):
                field.place(s)
        elif verb == "lift":
            for s in _spaces(rest):
                field.lift(s)
        elif verb == "move":
            frm, to = _spaces(rest) if len(rest) == 2 else (None, None)
            if frm is None:
                raise ValueError("move FROM TO, e.g. move w19 w18")
            field.lift(frm)
            field.place(to)
        elif verb == "towers":
            field.set_towers(_towers(" ".join(rest)))
        elif verb == "clear":
            field.set_towers(())
        elif verb == "start":
            field.set_towers(start_spaces())
        elif verb == "all":
            field.set_towers(SPACES)
        elif verb == "show":
            with field.lock:
                towers = sorted(SPACE_NAMES[s] for s in field.towers)
            print(f"towers ({len(towers)}): {' '.join(towers) or 'none'}", file=out)
            lit = pico.lit()
            print("LEDs: " + (", ".join(f"{SPACE_NAMES[s]} #{r:02x}{g:02x}{b:02x}" for s, (r, g, b) in sorted(lit.items()))
                              or "all dark"), file=out)
        elif verb == "reset":
            pico.reset()
        elif verb == "unplug":
            pico.unplug()
        elif verb == "plug":
            pico.plug()
        elif verb == "stall":
            seconds = float(rest[0]) if rest else 5.0
            if not 0 < seconds <= 600:
                raise ValueError("stall SECONDS, between 0 and 600")
            pico.stall(seconds)
        elif verb == "garbage":
            n = int(rest[0]) if rest else 64
            if not 0 < n <= 1_000_000:
                raise ValueError("garbage N, between 1 and 1000000 bytes")
            pico.garbage(os.urandom(n))
        elif verb in ("help", "?"):
            print(HELP, file=out)
        else:
            raise ValueError(f"unknown command {verb!r}: type help")
    except ValueError as exc:
        print(f"  {exc}", file=out, flush=True)
    return True


def virtual_pico(args) -> int:
    from host.board.virtual_pico import Field, VirtualPico, VirtualPicoError

    if not 1 <= args.rate <= 1000:
        raise UserError(f"--rate must be 1..1000 frames a second, not {args.rate}")
    if not 0 <= args.leds <= 255:
        raise UserError(f"--leds must be 0..255, not {args.leds}")
    if not 0 <= args.noise <= 5000:
        raise UserError(f"--noise must be 0..5000 counts, not {args.noise}")
    link = Path(args.link) if args.link else Path(tempfile.gettempdir()) / "quin-virtual-pico"
    if not link.parent.is_dir():
        raise UserError(f"{link.parent} is not a folder: give --link a path in an existing folder")
    if link.exists() and not link.is_symlink():
        raise UserError(f"{link} exists and is not a link a virtual Pico made: give --link another path")
    try:
        towers = _towers(args.towers)
    except ValueError as exc:
        raise UserError(f"--towers: {exc}") from None
    field = Field(noise=args.noise)
    field.towers = towers
    try:
        pico = VirtualPico(link, field, settings={"rate_hz": args.rate, "leds": args.leds}, stderr=sys.stderr)
    except VirtualPicoError as exc:
        raise UserError(str(exc)) from None
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    with pico:
        if not pico.wait_for(lambda: pico.boots > 0 or not pico.running, 30) or not pico.running:
            raise UserError(f"the firmware did not start under MicroPython: {pico.crashed or 'no answer in 30 s'}", 1)
        print(f"Virtual Pico: firmware/code.py runs under MicroPython; its data port is {link}", flush=True)
        print(f"  quin calibrate --port {link}", flush=True)
        print(f"  quin doctor --port {link}", flush=True)
        print(f"  quin serve --board serial --serial-port {link}", flush=True)
        tty = sys.stdin is not None and sys.stdin.isatty()
        print(HELP if tty else "Commands (type help) are read from standard input; stop with Ctrl-C or quit.",
              flush=True)
        if sys.stdin is not None:
            threading.Thread(target=_read_commands, args=(pico, stop, tty), daemon=True).start()
        try:
            while not stop.wait(0.5):
                if not pico.running and pico.crashed:
                    raise UserError(f"the firmware stopped: {pico.crashed}", 1)
        except KeyboardInterrupt:
            pass
    return 0


def _read_commands(pico, stop: threading.Event, prompt: bool) -> None:
    """Typed (or piped) commands; at the end of the input the board keeps running until stopped."""
    while not stop.is_set():
        if prompt:
            print("pico> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            return
        if not command(pico, line):
            stop.set()
            return
