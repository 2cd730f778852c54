"""`quin serve`, `quin games`, `quin export`: the companion in use, and its game log."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

from host.commands import UserError
from host.system.mdns import lan_address

BOARDS = ("sim", "serial", "gpio", "blinka")


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="run the referee, the store and the web pages (simulated board by default)")
    p.add_argument("--board", choices=BOARDS, default="sim",
                   help="where the board is read: sim (a virtual board in the browser), serial (the Pico over USB), "
                        "gpio (74HC165 chain on the Pi), blinka (4067 + MCP3008 through Blinka)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface, so phones can join)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0 picks a free one)")
    p.add_argument("--data-dir", help="where games are stored (default $QUIN_DATA_DIR or ~/.local/share/quin)")
    p.add_argument("--serial-port", metavar="PATH",
                   help="with --board serial: the board's port (default: $QUIN_SERIAL_PORT, /dev/quin-board, "
                        "else /dev/serial/by-id/...-if02; a `quin virtual-pico` prints its own)")
    p.add_argument("--mode", choices=("classic", "third_eye"), default="classic", help="mode of a new game")
    p.add_argument("--vision", action="store_true", help="a new game is played in Vision Mode (every identity public)")
    p.add_argument("--first", choices=("white", "black"), default="white", help="who moves first in a new game")
    p.add_argument("--clock", metavar="CONTROL", default="none",
                   help="the board runs the game clocks of a new game: 25 (minutes each), 25+10 (and 10 s added "
                        "a turn), 25d10 (10 s' delay a turn) or none (the default); a game resumed keeps its own")
    p.add_argument("--threads", type=int, default=16,
                   help="threads that answer requests (default 16); live pages hold none")
    p.add_argument("--max-streams", type=int, default=2000, metavar="N",
                   help="live pages open at once, in all (default 2000); beyond it a page gets a 503")
    p.add_argument("--streams-per-client", type=int, default=16, metavar="N",
                   help="live pages one device may hold open (default 16); beyond it a 503")
    p.add_argument("--connections-per-client", type=int, default=64, metavar="N",
                   help="connections one device may hold open, idle or not (default 64); beyond it a 503")
    p.add_argument("--no-qr", action="store_true", help="do not draw the join QR codes in the terminal")
    p.add_argument("--opponent", choices=("white", "black"),
                   help="the practice opponent takes this seat: it sets up and decides; you move its towers")
    p.add_argument("--level", type=int, choices=range(0, 6), default=3, metavar="N",
                   help="the opponent's strength, 0 (random) to 5 (default 3)")
    p.add_argument("--take-over", action="store_true",
                   help="with --opponent: hand it that seat even in a game two people are playing (asked in a terminal)")
    p.add_argument("--mdns", metavar="NAME", default="quin",
                   help="announce the status page over mDNS as NAME.local (default quin); links and QR codes use it")
    p.add_argument("--no-mdns", action="store_true", default=os.environ.get("QUIN_MDNS") == "off",
                   help="no mDNS: links and QR codes use the IP address (also: QUIN_MDNS=off)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="another name this server answers to for changes (a DNS name you gave the Pi, a proxy's); "
                        "localhost, IP addresses, this machine's name and the mDNS name always are")
    p.add_argument("--hub", metavar="URL", default=os.environ.get("QUIN_HUB"),
                   help="push this table's games to the club's hub at URL (docs/hub.md; default $QUIN_HUB)")
    p.add_argument("--table-key", metavar="K", default=os.environ.get("QUIN_TABLE_KEY"),
                   help="the key `quin hub add-table` printed for this table (default $QUIN_TABLE_KEY)")
    p.add_argument("--remote", metavar="new|CODE",
                   help="play a friend far away through the hub at --hub (docs/remote-play.md): 'new' starts a game "
                        "and prints its code, CODE joins theirs; run again as it was, it resumes the game")
    p.add_argument("--side", choices=("white", "black", "random"), default="random",
                   help="with --remote new: the side you play (default random)")
    p.add_argument("--name", metavar="NAME", help="with --remote: your name as your friend sees it")
    p.add_argument("--referee-journal", metavar="FILE",
                   help="keep every call made to the referee, with its times, in FILE (appended): a game it got "
                        "wrong replays exactly from it (diagnosis; host/session/journal.py)")
    p.add_argument("--show-links", action="store_true",
                   help="print the seat and host links even when standard output is not a terminal "
                        "(by default they stay out of logs such as the systemd journal)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("links", help="print the open game's join links and QR codes (for a server started by systemd)")
    p.add_argument("--port", type=int, help="the port quin serve listens on (checked against the server on --data-dir)")
    p.add_argument("--host", help="the address phones reach the server at (default: the name or address "
                                  "`quin serve` announced, else this machine's LAN address)")
    p.add_argument("--data-dir", help="the data folder of the running quin serve (default $QUIN_DATA_DIR or ~/.local/share/quin)")
    p.add_argument("--no-qr", action="store_true", help="do not draw the QR codes")
    p.set_defaults(func=cmd_links)

    p = sub.add_parser("games", help="list the stored games")
    p.add_argument("--data-dir", help="where games are stored")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("export", help="write a stored game's quin-record/1 record")
    p.add_argument("game", type=int, help="the game number (see `quin games`)")
    p.add_argument("-o", "--output", help="file to write (default: standard output)")
    p.add_argument("--data-dir", help="where games are stored")
    p.add_argument("--force", action="store_true",
                   help="write the record of a game still being played (it holds both players' hidden lineups)")
    p.set_defaults(func=cmd_export)


def _data_dir(arg: str | None) -> Path:
    from host.system.config import data_dir

    if arg:
        path = Path(arg)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot use the data directory {path}: {exc.strerror}") from None
        return path
    return data_dir()


def _open_store(where: str | Path | None, readonly: bool = False):
    """The store in a data folder, in one line if it cannot be opened.

    ``readonly`` (commands that only read): nothing is created; no store yet reads as an empty one.
    """
    from host.store import DB_NAME, Store, StoreError

    folder = where if isinstance(where, Path) else _data_dir(where)
    path = folder / DB_NAME
    try:
        if readonly and not path.exists():
            return Store(":memory:")
        return Store(path, readonly=readonly)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    except Exception as exc:  # sqlite3.Error and OSError: one line, no traceback
        raise UserError(f"cannot open the game store in {folder}: {exc}") from None


def _reading(command):
    """A read-only command: a store too damaged to read is one line, never a traceback."""
    import functools
    import sqlite3

    @functools.wraps(command)
    def run(args):
        try:
            return command(args)
        except sqlite3.DatabaseError as exc:
            raise UserError(f"the game store does not read ({exc}): run `quin store check`") from None

    return run


# --- quin games / quin export --------------------------------------------------------------------


@_reading
def cmd_games(args) -> int:
    from host.commands.engine_cmds import result_text

    from host.store import DB_NAME

    store = _open_store(args.data_dir, readonly=True)
    where = _data_dir(args.data_dir) / DB_NAME  # named even when there is no store yet
    counts = store.action_counts()
    rows = [(g, counts.get(g.id, 0)) for g in store.games()]
    if args.json:
        print(json.dumps({"store": str(where), "games": [
            {"id": g.id, "created": g.created, "mode": g.mode, "vision": g.vision, "first": g.first,
             "status": g.status, "result": g.result, "actions": n,
             "damaged": f"its {g.damage}" if g.damage else None} for g, n in rows]}))
        return 0
    print(f"{len(rows) or 'no'} game{'' if len(rows) == 1 else 's'} in {where}")
    for g, n in rows:
        if g.damage:
            print(f"{g.id:>4}  damaged: its {g.damage} does not read (see `quin store check`)")
            continue
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.created))
        result = result_text(g.result) or g.status
        print(f"{g.id:>4}  {when}  {g.mode:<9}{' vision' if g.vision else '       '}  {n:>4} actions  {result}")
    return 0


@_reading
def cmd_export(args) -> int:
    from host.store import StoreError

    store = _open_store(args.data_dir, readonly=True)
    try:
        row = store.game(args.game)
        if row.status in ("setup", "playing") and not args.force:
            # As the web refuses it: the record names every hidden identity of a game still in play.
            raise UserError(f"game {args.game} is still being played: its record holds both players' hidden "
                            "lineups; add --force to write it anyway")
        record = store.record(args.game)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    text = json.dumps(record, indent=1) + "\n"
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {args.output}: {exc.strerror}") from None
        print(f"game {args.game} written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


# --- quin serve ------------------------------------------------------------------------------------


def open_source(kind: str, folder: Path | None = None, serial_port: str | None = None):
    """The hardware source for ``--board``, imported only when asked for; UserError in one line.

    Calibration and channel map are read from ``folder`` (the data directory) when given."""
    try:
        if kind == "serial":
            from host.board.sources.serial_source import SerialLink, SerialSource, find_port

            port = serial_port or find_port()
            if port is None:
                raise UserError("no board found on USB (set QUIN_SERIAL_PORT or plug the board in)")
            cal, channels, keeper = _calibration(kind, folder)
            # QUIN_SERIAL_RAW=1: the host decides from full-rate raw frames, as before the board could
            # (for comparison and diagnosis: bench/serve_cost.py measures both)
            return SerialSource(SerialLink(port), cal, channels, keeper=keeper,
                                board_decides=os.environ.get("QUIN_SERIAL_RAW") != "1")
        if kind == "gpio":
            from host.board.sources.gpio_source import GpioSource

            return GpioSource()
        if kind == "blinka":
            from host.board.sources.blinka_source import BlinkaSource

            cal, channels, keeper = _calibration(kind, folder)
            return BlinkaSource(cal, channels, keeper=keeper)
    except UserError:
        raise
    except ImportError as exc:
        raise UserError(f"--board {kind} is not available here: {exc}") from None
    except Exception as exc:  # the sources' own errors (no calibration, no GPIO) say what to do
        raise UserError(f"--board {kind}: {exc}") from None
    raise UserError(f"unknown board {kind!r}")


def _calibration(kind: str, folder: Path | None):
    """The board's calibration, channel map and drift keeper, from ``folder`` when given (else the
    default data directory): drift is saved back to the file it was read from."""
    from host.board import calibration, channel_map
    from host.system.config import calibration_file, channel_map_file

    if folder is None:
        cal_path = calibration_file()
        return calibration.load(cal_path), channel_map.load(channel_map_file()), calibration.DriftKeeper(cal_path)
    cal_path = folder / calibration.CALIBRATION_FILE
    if not cal_path.exists():  # `quin calibrate` writes to the data directory $QUIN_DATA_DIR names
        raise UserError(f"--board {kind}: no calibration at {cal_path}: run `QUIN_DATA_DIR={folder} quin calibrate` first")
    map_path = folder / channel_map.CHANNEL_MAP_FILE
    return (calibration.load(cal_path), channel_map.load(map_path if map_path.exists() else None),
            calibration.DriftKeeper(cal_path))


def pump(table, source, stop: threading.Event, status_every: float = 0.5) -> None:
    """The board loop (``host.compose.pump``), where its callers have long found it."""
    from host.compose import pump as board_loop

    board_loop(table, source, stop, status_every)


def print_links(out, base: str, host_key: str, tokens: dict, qr: bool = True, board: bool = False,
                by_address: str | None = None, who: dict | None = None) -> None:
    """The host page and the phone seats' join links, each with its QR code; the virtual board's
    link (it carries the board key) when ``board``.

    ``tokens`` holds the phone seats only: a seat without one is played off the board, by ``who``
    names (a remote player: "Bob, playing from afar"), else the practice opponent.
    ``by_address``: the same server by IP address, printed under each link for a device that
    cannot resolve the mDNS name.
    """
    from host.web.sim import board_key

    print(f"  host page:     {base}/host/{host_key}", file=out)
    if by_address:
        print(f"    by address:  {by_address}/host/{host_key}", file=out)
    if board:
        print(f"  virtual board: {base}/board/{board_key(host_key)}", file=out)
        if by_address:
            print(f"    by address:  {by_address}/board/{board_key(host_key)}", file=out)
    for player in ("white", "black"):
        if player not in tokens:
            played = (who or {}).get(player) or "played by the practice opponent"
            print(f"  {player} seat:    {played}: no phone, no link", file=out)
            continue
        url = f"{base}/seat/{tokens[player]}"
        print(f"  {player} seat:    {url}", file=out)
        if by_address:
            print(f"    by address:  {by_address}/seat/{tokens[player]}", file=out)
        if qr:
            import segno

            segno.make(url, error="l").terminal(out=out, compact=True)


def off_board_names(table) -> dict[str, str]:
    """Who plays each seat played off the board: "played by the practice opponent", "Bob, playing
    from afar" (a remote player's mind says ``remote``)."""
    return {seat.player: seat.who if getattr(seat.mind, "remote", False) else f"played by {seat.who}"
            for seat in table.seats.off_board()}


NEXT_STEPS = """Next:
  1. Put the status page on a screen the whole table can see.
  2. {scan}
  3. The host page starts a new game (mode, who moves first) and re-issues a lost phone's seat.
Stop with Ctrl-C; the game is saved as it is played."""


def next_steps(opponent: str | None, codes_shown: bool = True, remote: str | None = None) -> str:
    """What to do now, in three lines; against the opponent, or a friend far away (``remote``: the
    side they play), only one seat needs a phone.  Where the seat codes are not printed (not a
    terminal), the line says how to get them."""
    where = "" if codes_shown else " (`quin links`, run in a terminal, prints the codes)"
    if remote is not None:
        scan = (f"Scan your seat code{where} with your phone; your friend plays {remote.capitalize()} from afar: "
                "their moves show on the status page, the virtual board and your phone, for you to make on the board.")
    elif opponent is None:
        scan = f"Each player scans their own seat code{where} with their phone, out of sight of the other."
    else:
        scan = (f"Scan your seat code{where} with your phone; the opponent plays {opponent.capitalize()} and needs "
                "none (set its towers out as the status page shows).")
    return NEXT_STEPS.format(scan=scan)


@_reading
def cmd_links(args) -> int:
    """The links of the server that runs on a data folder, found through its run record."""
    from host.store import datalock

    folder = _data_dir(args.data_dir)
    record = datalock.running(folder)
    if record is None:
        raise UserError(f"no quin serve is running with the data folder {folder} (start it, or give its --data-dir)")
    if record.port is None:
        raise UserError(f"the quin serve on {folder} (pid {record.pid}) is still starting: try again in a moment")
    if args.port is not None and args.port != record.port:
        raise UserError(f"the quin serve on port {args.port} does not use the data folder {folder} "
                        f"(the one that does listens on port {record.port}): give its --data-dir, or --port {record.port}")
    store = _open_store(folder, readonly=True)
    row = store.open_game()
    if row is None:
        raise UserError(f"the quin serve on {folder} has no open game")
    key = store.meta("host_key") or ""
    announced = store.meta("public_url")  # what the running `quin serve` printed and encodes
    if args.host or not announced:
        host = args.host or (record.host if record.host not in (None, "", "0.0.0.0", "::") else lan_address())
        base = f"http://{host}:{record.port}"
    else:
        base = announced
    print(f"game {row.id} ({row.mode}{', vision' if row.vision else ''}): {row.status}")
    print(f"  status page:   {base}/")
    # the seats played from off the board in this game (noted by the table; the host page may change them)
    off = set((store.meta(f"opponent:{row.id}") or record.opponent or "").split(","))
    who = None
    if store.meta("remote_game"):
        # a remote game's rival plays from afar (docs/remote-play.md), on the side the link's file
        # does not hold (a rematch swaps the sides)
        from engine.board import other
        from host.remote.link import FILE_NAME, LinkFile, RemoteError

        try:
            saved = LinkFile(folder / FILE_NAME).load()
        except (RemoteError, ValueError, OSError):
            saved = None
        if saved is not None and saved["side"] in ("white", "black"):
            off.add(other(saved["side"]))
            who = {other(saved["side"]): "your friend, playing from afar"}
    phones = {player: token for player, token in store.seats(row.id).items() if player not in off}
    by_address = None
    if ".local:" in base:  # an mDNS name: some devices cannot resolve it
        address = record.host if record.host not in (None, "", "0.0.0.0", "::") else lan_address()
        by_address = f"http://{address}:{record.port}"
        print(f"  by address:    {by_address}/")
    print_links(sys.stdout, base, key, phones, qr=not args.no_qr, board=record.board == "sim",
                by_address=by_address, who=who)
    return 0


def _hold(folder: Path):
    """This server's hold on its data folder; a second server stops here in one line."""
    from host.store import datalock

    try:
        return datalock.hold(folder)
    except datalock.FolderBusy as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        import errno

        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise UserError(f"the data folder cannot be written: the folder {folder} is read-only "
                            f"({exc.strerror}): give another --data-dir") from None
        raise UserError(f"cannot lock the data folder {folder}: {exc.strerror or exc}") from None


def _serving_store(folder: Path, out):
    """The store to serve from, or UserError (exit 2) in one line naming what cannot be written.

    A file SQLite cannot open, or one whose structure is damaged, is salvaged first (from the
    file and the newest readable backup; which games came from where is said); damage is said
    in one line.
    """
    from host.store import DB_NAME, Store, StoreError, StoreWriteError, salvage

    path = folder / DB_NAME

    def opened() -> Store | None:
        try:
            return Store(path)
        except StoreWriteError as exc:
            raise UserError(f"the game store cannot be written: {exc.where}: the server cannot keep games there; "
                            "make it writable or give another --data-dir") from None
        except StoreError as exc:
            if exc.where != "the file":
                raise UserError(str(exc)) from None
            return None
        except OSError as exc:
            raise UserError(f"cannot open the game store in {folder}: {exc.strerror or exc}") from None

    def salvaged() -> None:
        import sqlite3

        try:
            saved = salvage(path)
        except (OSError, sqlite3.Error) as exc:
            raise UserError(f"the game store {path} is damaged and could not be salvaged: {exc.strerror or exc}") from None
        print(f"  note: the game store was damaged: {saved.describe()}", file=out)

    store = opened()
    if store is None:
        salvaged()
        store = opened()
        if store is None:
            raise UserError(f"the game store {path} is damaged and its salvage does not open: run `quin store check`")
    for notice in store.notices:
        print(f"  note: {notice}", file=out)
    if not store.structure_ok():
        store.close()
        salvaged()
        store = opened()
    problem = store.writable_problem()
    if problem is not None:
        store.close()
        raise UserError(f"the game store cannot be written: {problem}: the server cannot keep games there; "
                        "make it writable or give another --data-dir")
    damaged = [g.id for g in store.games() if g.damage]
    if damaged:
        print(f"  note: game(s) {', '.join(map(str, damaged))} are damaged in the store and set aside "
              "(run `quin store check`); every other game is served", file=out)
    return store


def cmd_serve(args) -> int:
    started = time.monotonic()
    if getattr(args, "serial_port", None) and args.board != "serial":  # before anything is written
        raise UserError(f"--serial-port is the serial board's: add --board serial (not --board {args.board})")
    control = _control(args)  # a time control that cannot be is one line, before anything is written
    folder = _data_dir(args.data_dir)
    lock = _hold(folder)
    try:
        return _serve(args, folder, lock, started, control)
    finally:
        lock.release()


def _control(args):
    """``--clock`` read (host.match.clock), or UserError in one line naming it."""
    from host.match.clock import ClockError, parse_control

    try:
        control = parse_control(getattr(args, "clock", "none") or "none", "--clock")
    except ClockError as exc:
        raise UserError(str(exc)) from None
    if control.timed and getattr(args, "remote", None) is not None:
        raise UserError("--clock: a remote game has no game clocks yet; play it without --clock")
    return control


def _serve(args, folder: Path, lock, started: float, control) -> int:
    import asyncio

    from host.compose import Service
    from host.session.table import TableError
    from host.web.server import WebServer
    from host.web.sim import make_virtual_board

    out = sys.stdout
    source = None
    board = None
    if args.board == "sim":
        board = make_virtual_board()
    else:  # the board first: a board that cannot be opened leaves no store behind
        source = open_source(args.board, Path(args.data_dir) if args.data_dir else None,
                             getattr(args, "serial_port", None))
    remote = None
    if getattr(args, "remote", None) is not None:
        # before the store is opened: a bad code or hub leaves nothing behind
        if args.opponent:
            raise UserError("--remote and --opponent: the rival is your friend far away, not the practice opponent")
        from host.remote.link import RemoteError
        from host.remote.service import RemoteSeat

        try:
            remote = RemoteSeat(folder, args.remote, args.hub, side=args.side, mode=args.mode, name=args.name,
                                first=args.first, vision=args.vision)
        except RemoteError as exc:
            raise UserError(str(exc)) from None
    elif not args.opponent:
        # A remote game not yet over (started here with --remote, or from the host page) goes on after a
        # restart: the rival's seat is theirs, not a phone's for whoever scans it.
        from host.remote.link import FILE_NAME, LinkFile, RemoteError
        from host.remote.service import RemoteSeat

        try:
            saved = LinkFile(folder / FILE_NAME).load()
        except (RemoteError, ValueError):
            saved = None
        if saved is not None and not saved.get("over"):
            try:
                remote = RemoteSeat(folder)
            except RemoteError as exc:
                raise UserError(str(exc)) from None
    store = _serving_store(folder, out)
    opponent = None
    kept = None  # the practice opponent kept in its seat of the open game (no --opponent this time)
    if args.opponent:
        from host.opponent.driver import TableOpponent

        opponent = TableOpponent(args.opponent, args.level)
    elif remote is None:
        from host.session.table import practice_opponent_of_open_game

        kept = practice_opponent_of_open_game(store)
        if kept is not None:
            # Its seat was never a person's: handing it to whoever scans its code mid-game would end
            # the game for the computer without a word.  It plays on; the host page changes who plays.
            from host.opponent.driver import TableOpponent

            opponent = TableOpponent(*kept)
    journal = None
    if getattr(args, "referee_journal", None):
        from host.session.journal import Journal

        try:
            journal = Journal.open(args.referee_journal, time.time())
        except OSError as exc:
            raise UserError(f"--referee-journal: {args.referee_journal} cannot be written ({exc.strerror or exc})") from None
    service = Service(store, board=board, source=source, opponent=opponent, control=control,
                      referee_factory=journal.referee_factory() if journal is not None else None,
                      **(remote.service_kwargs() if remote is not None else {}))
    table = service.table

    take_over = args.take_over
    if opponent is not None and not take_over:
        taken = table.seat_taken_over()
        if taken is not None:
            # A person's seat is not handed to the computer silently: ask in a terminal, else say how.
            if sys.stdin.isatty() and out.isatty():
                print(f"{taken}.", file=out)
                try:
                    answer = input(f"Hand {args.opponent.capitalize()}'s seat to the practice opponent? [y/N] ")
                except EOFError:
                    answer = ""
                take_over = answer.strip().lower() in ("y", "yes")
            if not take_over:
                raise UserError(f"{taken}: add --take-over to hand it over, or start a new game from the host "
                                "page (or `quin serve` without --opponent) first")
    try:
        if remote is not None:
            remote.attach(service)
        else:
            service.open(args.mode, args.vision, args.first, take_over=take_over)
    except ImportError as exc:
        raise UserError(f"the referee is not available: {exc}") from None
    except TableError as exc:
        raise UserError(str(exc)) from None
    pusher = None
    if args.hub and remote is None:
        if not args.table_key:
            raise UserError("--hub needs --table-key (the key `quin hub add-table` printed for this table)")
        try:
            pusher = service.push_to(args.hub, args.table_key)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        # before anyone connects: the first state the pages get says the table pushes to a hub
        # (a phone offers its player code field then)
        table.refresh()
    app = service.web()
    from host.web.server import raise_file_limit

    files = raise_file_limit()  # every connection is a file handle: take what the system allows
    try:
        server = WebServer(app, args.host, args.port, threads=args.threads, max_streams=args.max_streams,
                           streams_per_client=args.streams_per_client,
                           connections_per_client=args.connections_per_client, clock=service.clock)
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    port = server.port
    # the seat played off the board (the practice opponent's, or a friend's far away): no phone link
    lock.publish(args.host, port, opponent.side if opponent is not None else (remote.mind.side if remote is not None else None),
                 args.board)
    from host.system import mdns

    announcement, no_mdns = (None, "--no-mdns") if args.no_mdns else mdns.announce(int(port), args.host, args.mdns)
    address = lan_address() if args.host in ("0.0.0.0", "") else args.host
    host = announcement.hostname if announcement else address
    base = f"http://{host}:{port}"
    app.config["PUBLIC_URL"] = base  # join codes on the host page point here, not at localhost
    from host.web.guard import allowed_hosts

    # A change is taken only for a Host this server answers to (DNS rebinding: host.web.guard).
    app.config["ALLOWED_HOSTS"] = allowed_hosts(args.host, address, host, *args.allow_host)
    store.set_meta("public_url", base)  # and `quin links` prints the same

    service.start()  # the board loop on a hardware board, else the ticker

    print(f"Quin is ready ({time.monotonic() - started:.1f} s): {args.board} board, data in {store.path.parent}", file=out)
    if table.resume_error:
        print(f"  note: {table.resume_error} (it is kept as abandoned); a new game was started", file=out)
    phase = table.phase
    print(f"  game {table.row.id} ({table.row.mode}{', vision' if table.row.vision else ''}): {phase}", file=out)
    print(f"  status page:   {base}/", file=out)
    if announcement:
        print(f"  by address:    http://{address}:{port}/ (for devices that cannot resolve {host})", file=out)
    elif not mdns.is_loopback(args.host):
        print(f"  (no mDNS name: {no_mdns})", file=out)
    print(f"  history:       {base}/history", file=out)
    if server.max_streams < args.max_streams:
        print(f"  note: at most {server.max_streams} live pages and {server.max_connections} connections "
              f"(this process may open {files} files; raise LimitNOFILE or `ulimit -n` for more)", file=out)
    if pusher is not None:
        print(f"  hub:           {args.hub} (games are pushed there; the status page, and this terminal "
              "when it changes, say what the link is doing)", file=out)
    if remote is not None:
        link = remote.link
        print(f"  remote game:   {link.shown} on {link.hub}: you play {remote.local.capitalize()}"
              f"{' (resumed)' if remote.resumed else ''}; your friend joins with the code {link.shown} "
              "(`quin serve --remote CODE` at their board, or the hub's /play page)", file=out)
    if opponent is not None:
        print(f"  opponent:      level {opponent.level} plays {opponent.side.capitalize()}; its moves show on the status page, "
              "the virtual board and your phone", file=out)
    if kept is not None:
        print(f"  note: game {table.row.id} was being played against the practice opponent: it keeps its "
              f"{opponent.side.capitalize()} seat (level {opponent.level}). To play two people, start a new game "
              "on the host page (it chooses who plays).", file=out)
    secrets_shown = args.show_links or out.isatty()
    by_address = f"http://{address}:{port}" if announcement else None  # where the name does not resolve
    if secrets_shown:
        print_links(out, base, table.host_key, table.phone_seats(), qr=not args.no_qr, board=board is not None,
                    by_address=by_address, who=off_board_names(table))
    else:
        print(f"  seat, host{' and virtual board' if board is not None else ''} links are not printed here "
              "(not a terminal): run `quin links`", file=out)
    print(next_steps(opponent.side if opponent is not None else None, secrets_shown,
                     remote.mind.side if remote is not None else None), file=out)
    out.flush()

    def new_seats(reason: str, links: bool = True) -> None:  # the host page started a game or re-issued a seat
        print(reason, file=out)
        if secrets_shown and links:
            print_links(out, base, table.host_key, table.phone_seats(), qr=not args.no_qr, board=board is not None,
                        by_address=by_address, who=off_board_names(table))
        out.flush()

    app.config["ON_NEW_SEATS"] = new_seats

    async def serve() -> None:
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, done.set)
        await server.serve(done)

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:  # a Ctrl-C before the loop took the signals over
        pass
    finally:
        if announcement:
            announcement.close()
        # In order: no more snapshots or ticks, every stream ended, then the store closed under
        # the table's lock (a tick or request finishing first).
        service.stop()
    print("Quin stopped; the game is saved.", file=out)
    return 0
