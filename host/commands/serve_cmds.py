"""`quin serve`, `quin games`, `quin export`: the companion in use, and its game log."""

from __future__ import annotations

import json
import signal
import socket
import sys
import threading
import time
from pathlib import Path

from host.cli import UserError

BOARDS = ("sim", "serial", "gpio", "blinka")


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="run the referee, the store and the web pages (simulated board by default)")
    p.add_argument("--board", choices=BOARDS, default="sim",
                   help="where the board is read: sim (a virtual board in the browser), serial (the Pico over USB), "
                        "gpio (74HC165 chain on the Pi), blinka (4067 + MCP3008 through Blinka)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface, so phones can join)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0 picks a free one)")
    p.add_argument("--data-dir", help="where games are stored (default $QUIN_DATA_DIR or ~/.local/share/quin)")
    p.add_argument("--mode", choices=("classic", "third_eye"), default="classic", help="mode of a new game")
    p.add_argument("--vision", action="store_true", help="a new game is played in Vision Mode (every identity public)")
    p.add_argument("--first", choices=("white", "black"), default="white", help="who moves first in a new game")
    p.add_argument("--threads", type=int, default=150,
                   help="web server threads; each open live page holds one (default 150)")
    p.add_argument("--no-qr", action="store_true", help="do not draw the join QR codes in the terminal")
    p.add_argument("--opponent", choices=("white", "black"),
                   help="the practice opponent takes this seat: it sets up and decides; you move its towers")
    p.add_argument("--level", type=int, choices=range(0, 6), default=3, metavar="N",
                   help="the opponent's strength, 0 (random) to 5 (default 3)")
    p.add_argument("--show-links", action="store_true",
                   help="print the seat and host links even when standard output is not a terminal "
                        "(by default they stay out of logs such as the systemd journal)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("links", help="print the open game's join links and QR codes (for a server started by systemd)")
    p.add_argument("--port", type=int, default=8000, help="the port quin serve listens on (default 8000)")
    p.add_argument("--host", help="the address phones reach the server at (default: this machine's LAN address)")
    p.add_argument("--data-dir", help="where games are stored")
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
    p.set_defaults(func=cmd_export)


def _data_dir(arg: str | None) -> Path:
    from host.config import data_dir

    if arg:
        path = Path(arg)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot use the data directory {path}: {exc.strerror}") from None
        return path
    return data_dir()


def _open_store(arg: str | None):
    from host.store import DB_NAME, Store

    folder = _data_dir(arg)
    try:
        return Store(folder / DB_NAME)
    except Exception as exc:  # sqlite3.Error and OSError: one line, no traceback
        raise UserError(f"cannot open the game store in {folder}: {exc}") from None


# --- quin games / quin export --------------------------------------------------------------------


def cmd_games(args) -> int:
    store = _open_store(args.data_dir)
    rows = [(g, len(store.actions(g.id))) for g in store.games()]
    if args.json:
        print(json.dumps({"games": [
            {"id": g.id, "created": g.created, "mode": g.mode, "vision": g.vision, "first": g.first,
             "status": g.status, "result": g.result, "actions": n} for g, n in rows]}))
        return 0
    if not rows:
        print("no games yet")
    for g, n in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.created))
        result = g.status
        if g.result:
            result = f"{g.result['winner']} won ({g.result['reason']})" if g.result["winner"] else f"drawn ({g.result['reason']})"
        print(f"{g.id:>4}  {when}  {g.mode:<9}{' vision' if g.vision else '       '}  {n:>4} actions  {result}")
    return 0


def cmd_export(args) -> int:
    from host.store import StoreError

    store = _open_store(args.data_dir)
    try:
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


def open_source(kind: str):
    """The hardware source for ``--board``, imported only when asked for; UserError in one line."""
    try:
        if kind == "serial":
            from host import calibration, channel_map
            from host.sources.serial_source import SerialLink, SerialSource, find_port

            port = find_port()
            if port is None:
                raise UserError("no board found on USB (set QUIN_SERIAL_PORT or plug the board in)")
            return SerialSource(SerialLink(port), calibration.load(), channel_map.load())
        if kind == "gpio":
            from host.sources.gpio_source import GpioSource

            return GpioSource()
        if kind == "blinka":
            from host import calibration, channel_map
            from host.sources.blinka_source import BlinkaSource

            return BlinkaSource(calibration.load(), channel_map.load())
    except UserError:
        raise
    except ImportError as exc:
        raise UserError(f"--board {kind} is not available here: {exc}") from None
    except Exception as exc:  # the sources' own errors (no calibration, no GPIO) say what to do
        raise UserError(f"--board {kind}: {exc}") from None
    raise UserError(f"unknown board {kind!r}")


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), else 127.0.0.1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def pump(table, source, stop: threading.Event, status_every: float = 0.5) -> None:
    """Feed the referee every snapshot the board source yields; report its health; light its LEDs."""
    from host.sensing import SourceStatus

    shown = None
    checked = 0.0
    while not stop.is_set():
        try:
            snap = source.read(timeout=0.1)
        except Exception as exc:  # a source failing must not stop the game: report it
            table.set_source_status({"ok": False, "message": str(exc)})
            stop.wait(0.5)
            continue
        status = getattr(source, "status", None)
        now = time.monotonic()
        if callable(status) and now - checked >= status_every:
            checked = now
            st = status()
            if isinstance(st, SourceStatus):
                table.set_source_status(None if st.ok else {"ok": False, "message": st.message})
        if snap is not None:
            try:
                table.feed(snap)
            except Exception as exc:  # e.g. the store cannot write: the referee undid the action; say so
                table.set_source_status({"ok": False, "message": f"the game could not be updated: {exc}"})
        leds = table.leds
        if hasattr(source, "show") and leds is not None and leds != shown:
            try:
                source.show(leds)
                shown = leds
            except Exception as exc:
                table.set_source_status({"ok": False, "message": f"the board's lights: {exc}"})


def print_links(out, base: str, host_key: str, tokens: dict, qr: bool = True) -> None:
    """The host page and both seats' join links, each seat with its QR code."""
    print(f"  host page:     {base}/host/{host_key}", file=out)
    for player in ("white", "black"):
        url = f"{base}/seat/{tokens[player]}"
        print(f"  {player} seat:    {url}", file=out)
        if qr:
            import segno

            segno.make(url, error="l").terminal(out=out, compact=True)


def cmd_links(args) -> int:
    store = _open_store(args.data_dir)
    row = store.open_game()
    if row is None:
        raise UserError("no open game: start `quin serve` first")
    key = store.meta("host_key") or ""
    base = f"http://{args.host or lan_address()}:{args.port}"
    print(f"game {row.id} ({row.mode}{', vision' if row.vision else ''}): {row.status}")
    print(f"  status page:   {base}/")
    print_links(sys.stdout, base, key, store.seats(row.id), qr=not args.no_qr)
    return 0


def cmd_serve(args) -> int:
    started = time.monotonic()
    from waitress import create_server

    from host.table import Table
    from host.web import create_app, start_ticker
    from host.web.events import Broker
    from host.web.sim import make_virtual_board

    store = _open_store(args.data_dir)
    source = None
    board = None
    if args.board == "sim":
        board = make_virtual_board()
    else:
        source = open_source(args.board)
    broker = Broker()
    opponent = None
    if args.opponent:
        from host.opponent.driver import TableOpponent

        opponent = TableOpponent(args.opponent, args.level)
    table = Table(store, broker, board=board, opponent=opponent)
    if board is not None:
        table.occupied = board.occupied
    try:
        table.open(args.mode, args.vision, args.first)
    except ImportError as exc:
        raise UserError(f"the referee is not available: {exc}") from None
    app = create_app({"TABLE": table, "DATA_DIR": str(store.path.parent)})
    try:
        server = create_server(
            app,
            host=args.host,
            port=args.port,
            threads=args.threads,
            connection_limit=args.threads + 50,
            ident="quin",
            clear_untrusted_proxy_headers=True,
        )
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    port = server.effective_port
    host = lan_address() if args.host in ("0.0.0.0", "") else args.host
    base = f"http://{host}:{port}"
    app.config["PUBLIC_URL"] = base  # join codes on the host page point here, not at localhost

    stop = threading.Event()
    ticker = start_ticker(table, 0.05)
    if source is not None:
        threading.Thread(target=pump, args=(table, source, stop), name="quin-board", daemon=True).start()

    out = sys.stdout
    print(f"Quin is ready ({time.monotonic() - started:.1f} s): {args.board} board, data in {store.path.parent}", file=out)
    if table.resume_error:
        print(f"  note: {table.resume_error} (it is kept as abandoned); a new game was started", file=out)
    phase = table.phase
    print(f"  game {table.row.id} ({table.row.mode}{', vision' if table.row.vision else ''}): {phase}", file=out)
    print(f"  status page:   {base}/", file=out)
    if board is not None:
        print(f"  virtual board: {base}/board", file=out)
    print(f"  history:       {base}/history", file=out)
    if opponent is not None:
        print(f"  opponent:      level {args.level} plays {args.opponent}; follow its moves on the status page", file=out)
    if args.show_links or out.isatty():
        print_links(out, base, table.host_key, table.tokens, qr=not args.no_qr)
    else:
        print("  seat and host links are not printed here (not a terminal): run `quin links`", file=out)
    out.flush()

    def _stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        ticker.set()
        broker.close()
        server.close()
        if source is not None:
            try:
                source.close()
            except Exception:
                pass
        store.close()
    print("Quin stopped; the game is saved.", file=out)
    return 0
