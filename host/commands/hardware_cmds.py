"""`quin calibrate`, `quin doctor`, `quin firmware build|install`, `quin hardware build`."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from host.commands import UserError

DEFAULT_WAIT = 3.0
SILENCE = 5.0  # a board that sends nothing this long while towers are placed has stopped


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("calibrate", help="record every space's empty and tower levels")
    _port_arg(p)
    p.add_argument("--seconds", type=float, default=3.0, help="length of the empty-board recording (default 3)")
    p.add_argument("--hold", type=int, default=10, help="frames a tower must stand still to be recorded (default 10)")
    p.add_argument("--timeout", type=float, default=900.0, help="give up placing towers after this many seconds")
    p.add_argument("--baseline-only", action="store_true",
                   help="re-record the empty board only, keeping each space's tower change from the last calibration")
    p.set_defaults(func=calibrate)

    p = subparsers.add_parser("doctor", help="check the board link and every sensor")
    _port_arg(p)
    p.add_argument("--seconds", type=float, default=2.0, help="how long to listen (default 2)")
    p.add_argument("--svg", metavar="PATH", help="write the heat map here (default: doctor.svg in the data directory)")
    p.set_defaults(func=doctor)

    p = subparsers.add_parser("firmware", help="build or install the board's firmware")
    sub = p.add_subparsers(dest="firmware_command", metavar="ACTION")
    sub.required = True
    b = sub.add_parser("build", help="regenerate firmware/quin_protocol.py from host/board/protocol.py")
    b.add_argument("--check", action="store_true", help="only check that it is current (exit 1 if not)")
    b.set_defaults(func=firmware_build)
    i = sub.add_parser("install", help="copy the firmware onto a mounted CIRCUITPY drive")
    i.add_argument("path", help="where the CIRCUITPY drive is mounted, e.g. /media/pi/CIRCUITPY")
    i.add_argument("--force", action="store_true", help="install even if PATH has no boot_out.txt")
    i.add_argument("--leds", type=int, help="WS2812 LEDs fitted (writes quin_settings.py)")
    i.set_defaults(func=firmware_install)

    p = subparsers.add_parser("hardware", help="generated hardware files")
    sub = p.add_subparsers(dest="hardware_command", metavar="ACTION")
    sub.required = True
    b = sub.add_parser("build", help="regenerate hardware/board.svg and hardware/channel-map.csv")
    b.add_argument("--check", action="store_true", help="only check that they are current (exit 1 if not)")
    b.set_defaults(func=hardware_build)


def _port_arg(p) -> None:
    p.add_argument("--port", help="serial port of the board (default: $QUIN_SERIAL_PORT, /dev/quin-board, "
                                  "else /dev/serial/by-id/...-if02)")
    p.add_argument("--channel-map", metavar="CSV", help="channel map (default: channel-map.csv in the data "
                                                        "directory, else the reference wiring)")


# --- generated files ---------------------------------------------------------------


def _write_generated(paths: dict[Path, str], check: bool) -> int:
    stale = [path for path, text in paths.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    if check:
        for path in stale:
            print(f"out of date: {path}")
        return 1 if stale else 0
    for path, text in paths.items():
        if path in stale:
            if not path.parent.is_dir():
                raise UserError(f"{path.parent} does not exist: run this from a source checkout of the project")
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        else:
            print(f"up to date: {path}")
    return 0


def firmware_build(args) -> int:
    from host.board import hardware_files as hf

    return _write_generated({hf.FIRMWARE_DIR / "quin_protocol.py": hf.protocol_copy()}, args.check)


def hardware_build(args) -> int:
    from host.board import hardware_files as hf

    files = {p: t for p, t in hf.generated_files().items() if p.parent == hf.HARDWARE_DIR}
    return _write_generated(files, args.check)


def firmware_install(args) -> int:
    from host.board import hardware_files as hf

    drive = Path(args.path)
    if not drive.is_dir():
        raise UserError(f"{drive} is not a directory: mount the CIRCUITPY drive and give its path")
    if not (drive / "boot_out.txt").exists() and not args.force:
        raise UserError(f"{drive} has no boot_out.txt, so it does not look like a CIRCUITPY drive (use --force to install anyway)")
    if args.leds is not None and not 0 <= args.leds <= 255:
        raise UserError(f"--leds must be 0..255, not {args.leds}")
    try:
        files = hf.firmware_sources()
    except FileNotFoundError as exc:
        raise UserError(f"firmware file {exc} is missing: reinstall quin-companion") from None
    if args.leds is not None:
        files["quin_settings.py"] = f"# written by `quin firmware install`\nSETTINGS = {{\"leds\": {args.leds}}}\n"
    # code.py last: CircuitPython restarts when it changes, and everything it imports is then in place
    order = sorted(files, key=lambda name: name == "code.py")
    try:
        (drive / "lib").mkdir(exist_ok=True)
        for name in order:
            target = drive / name
            tmp = target.with_name(target.name + ".tmp")
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(files[name])
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
            print(f"copied {name}")
    except OSError as exc:
        raise UserError(f"cannot write to {drive}: {exc.strerror or exc}") from None
    print("Done. Press the board's reset button (or unplug it and plug it back in) so boot.py turns on the data port.")
    return 0


# --- talking to the board ---------------------------------------------------------------


def _open_link(args):
    from host.board.sources.serial_source import LinkError, SerialLink, find_port

    port = args.port or find_port()
    if not port:
        raise UserError("no board found: plug in the Pico, install hardware/99-quin.rules, or pass --port", 1)
    link = SerialLink(port)
    try:
        link.open()
    except LinkError as exc:
        raise UserError(_why_not(port, exc), 1) from None
    # every scan as a raw frame, whatever a service asked the board for before (it may decide occupancy)
    link.full_rate()
    deadline = time.monotonic() + 1.0
    while not link.config_acked and not link.config_error and time.monotonic() < deadline:
        link.next_frame(0.05)
    return link


def _why_not(port: str, exc: Exception) -> str:
    """Why the board could not be opened; when a program holds it (the service), which and how to stop it."""
    from host.system import holder

    found = holder.holders(port)
    locked = "exclusively lock" in str(exc) or "Resource temporarily unavailable" in str(exc)
    if found or locked:
        return holder.busy_message(port, found, not found and holder.service_active())
    return str(exc)


def _channel_map(args):
    from host.board import channel_map
    from host.system.config import channel_map_file

    try:
        return channel_map.load(args.channel_map if args.channel_map is not None else channel_map_file())
    except channel_map.ChannelMapError as exc:
        raise UserError(str(exc)) from None


def _raw_frames(link, seconds: float, wait: float = DEFAULT_WAIT):
    """Raw readings for ``seconds`` (after the first frame, waited for up to ``wait`` s)."""
    from host.board import protocol

    frames = []
    start = time.monotonic()
    first = None
    while True:
        now = time.monotonic()
        if first is None and now - start > wait:
            break
        if first is not None and now - first >= seconds:
            break
        frame = link.next_frame(0.05)
        if frame is not None and frame.kind == protocol.RAW:
            if first is None:
                first = time.monotonic()
            frames.append(frame.data)
    elapsed = 0.0 if first is None else time.monotonic() - first
    return frames, elapsed


def _ask(prompt: str) -> None:
    """Wait for Enter when a person is at the terminal; otherwise just say it."""
    print(prompt, flush=True)
    if sys.stdin is not None and sys.stdin.isatty():
        sys.stdin.readline()


def calibrate(args) -> int:
    from engine.board import SPACE_NAMES
    from host.board import calibration as calmod
    from host.system.config import calibration_file

    cmap = _channel_map(args)
    link = _open_link(args)
    try:
        previous = None
        if args.baseline_only:
            try:
                previous = calmod.load(calibration_file())
            except calmod.CalibrationError as exc:
                raise UserError(str(exc)) from None
        _ask("Remove every tower from the board, then press Enter.")
        print(f"Recording the empty board for {args.seconds:g} s ...", flush=True)
        frames, _ = _raw_frames(link, args.seconds)
        if not frames:
            raise UserError(f"no frames from the board at {link.port_name}: run `quin doctor`", 1)
        try:
            cal = calmod.Calibration.from_baseline(calmod.measure_levels(frames), cmap)
        except calmod.CalibrationError as exc:
            raise UserError(str(exc)) from None
        faults = calmod.reference_faults({k: v.mean for k, v in cal.references.items()})
        if previous is not None:
            cal = cal.with_placed({
                s: c.baseline + old.delta for s, (c, old) in enumerate(zip(cal.spaces, previous.spaces))
                if old.placed is not None
            })
        else:
            cal = _record_placed(link, cal, args)
        path = cal.save(calibration_file())
        flags = calmod.sensor_flags(cal)
        done = sum(1 for c in cal.spaces if c.placed is not None)
        print(f"Saved {path}: {done} of {len(SPACE_NAMES)} spaces have a tower level.")
        for line in faults + calmod.describe_flags(flags):
            print(f"  - {line}")
        return 1 if faults or flags else 0
    finally:
        link.close()


def _record_placed(link, cal, args):
    from engine.board import SPACE_NAMES
    from host.board import calibration as calmod
    from host.board import protocol

    recorder = calmod.PlacedRecorder(cal, hold=args.hold)
    finished = threading.Event()
    if sys.stdin is not None and sys.stdin.isatty():
        threading.Thread(target=lambda: (sys.stdin.readline(), finished.set()), daemon=True).start()
        hint = " Press Enter to stop early."
    else:
        hint = ""
    print(
        f"Now stand a tower on each space in turn (several at once is fine) and hold it still for a moment.{hint}",
        flush=True,
    )
    deadline = time.monotonic() + args.timeout
    while recorder.remaining and not finished.is_set() and time.monotonic() < deadline:
        frame = link.next_frame(0.1)
        if frame is None or frame.kind != protocol.RAW:
            if link.silence() > SILENCE:  # since the last frame of any kind (the empty board's, at first)
                raise UserError(f"the board at {link.port_name} stopped sending frames for {SILENCE:g} s while "
                                "towers were placed; nothing was saved: run `quin doctor`", 1)
            continue
        for s in recorder.feed(frame.data):
            total = len(SPACE_NAMES)
            print(f"  {SPACE_NAMES[s]} recorded ({total - len(recorder.remaining)}/{total})", flush=True)
    if recorder.remaining:
        names = ", ".join(SPACE_NAMES[s] for s in recorder.remaining[:10])
        print(f"No tower level for {len(recorder.remaining)} space(s): {names}"
              + (" ..." if len(recorder.remaining) > 10 else ""))
    return cal.with_placed(recorder.placed)


def doctor(args) -> int:
    from host.board import calibration as calmod
    from host.board import doctor as doc
    from host.system.config import calibration_file, data_dir

    cmap = _channel_map(args)
    try:
        cal = calmod.load(calibration_file())
    except calmod.CalibrationError:
        cal = None
    link = _open_link(args)
    try:
        link.request_status()
        frames, elapsed = _raw_frames(link, args.seconds)
        if not link.device_status:
            link.request_status()
            deadline = time.monotonic() + 0.5
            while not link.device_status and time.monotonic() < deadline:
                link.next_frame(0.05)
        report = doc.examine(frames, cmap, cal, port=link.port_name, seconds=elapsed,
                             stats=link.stats(), device=link.device_status)
    finally:
        link.close()
    print(doc.terminal(report), end="")
    if report.spaces:
        path = Path(args.svg) if args.svg else data_dir() / "doctor.svg"
        try:
            path.write_text(doc.svg(report), encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write the heat map to {path}: {exc.strerror}") from None
        print(f"Heat map written to {path}")
    return 0 if report.ok else 1
