"""The composition root: the whole companion for one table, built in one place.

:class:`Service` puts the parts together, for ``quin serve`` and for the tests alike:

- the **store** (given: ``quin serve`` opens, salvages and checks it first);
- the **board**: the simulated board (``host.board.simboard``, the browser's virtual board), or a
  hardware **source** (``host.board.sources``: serial, GPIO, Blinka) read by the board loop;
- the **table** (``host.session.table.Table``) with its seats (``host.session.seats``: a phone, or
  an off-board mind such as the practice opponent) and its sessions;
- the **broker** of the live streams (``host.web.events``), and the **web** app
  (``host.web.create_app``) on it; :func:`create_app` builds the whole service from a web config
  (the tests, the fingerprint);
- optionally the **push to a hub** (``host.remote.push.Pusher``, a reader of the public stream);
- its threads: the **board loop** (one thread: it reads the source, feeds the table, ticks the
  referee between readings and lights the board's LEDs), or with no hardware source the
  **ticker** (settle windows expire with no new reading).

The web server (``host.web.server.WebServer``) runs the app; ``quin serve`` owns it (its address,
its signals, its mDNS name).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from host.clock import REAL, Clock
from host.session.table import Table

TICK = 0.05  # seconds between referee ticks (settle windows expire)
STATUS_EVERY = 0.5  # seconds between looks at a hardware source's health


def start_ticker(table, interval: float, clock: Clock = REAL) -> threading.Event:
    """Tick the referee every ``interval`` seconds of ``clock`` (settle windows expire); returns a
    stop event.  On a fake clock it ticks as the test advances the clock.

    For a table with no hardware source (the simulated board, tests): a board loop ticks itself."""
    stop = threading.Event()

    def run():
        while not clock.wait(stop, interval):
            try:
                table.tick()
            except Exception:  # pragma: no cover - keep ticking; the error is the referee's to report
                current = getattr(table, "tick_errors", 0)
                table.tick_errors = current + 1

    threading.Thread(target=run, name="quin-ticker", daemon=True).start()
    table.ticker_stop = stop
    return stop


def pump(table, source, stop: threading.Event, status_every: float = STATUS_EVERY, *,
         tick: float | None = None, clock: Clock = REAL) -> None:
    """The board loop: feed the table every snapshot the source yields; report the source's health;
    light its LEDs.  With ``tick``, it also ticks the referee every ``tick`` seconds, so a reading,
    the commit its settle window ends in, and the LEDs that follow all happen on this one thread."""
    from host.board.sensing import SourceStatus

    shown = None
    checked = 0.0
    wait = 0.1 if tick is None else min(0.1, tick)
    next_tick = clock() + tick if tick is not None else None

    def ticking() -> None:
        nonlocal next_tick
        if next_tick is not None and clock() >= next_tick:
            next_tick = clock() + tick
            table.tick()

    while not stop.is_set():
        try:
            snap = source.read(timeout=wait)
        except Exception as exc:  # a source failing must not stop the game: report it
            table.set_source_status({"ok": False, "message": str(exc)})
            until = clock() + 0.5
            while not clock.wait(stop, max(0.0, min(wait, until - clock()))) and clock() < until:
                ticking()
            continue
        status = getattr(source, "status", None)
        now = clock()
        if callable(status) and now - checked >= status_every:
            checked = now
            st = status()
            if isinstance(st, SourceStatus):  # a problem, or a notice of what just happened to the board
                shown_status = {"ok": st.ok, "message": st.message}
                table.set_source_status(None if st.ok and not st.details.get("notice") else shown_status)
        if snap is not None:
            try:
                table.feed(snap)
            except Exception as exc:  # e.g. the store cannot write: the referee undid the action; say so
                table.set_source_status({"ok": False, "message": f"the game could not be updated: {exc}"})
        ticking()
        leds = table.leds
        if hasattr(source, "show") and leds is not None and leds != shown:
            try:
                source.show(leds)
                shown = leds
            except Exception as exc:
                table.set_source_status({"ok": False, "message": f"the board's lights: {exc}"})


class Service:
    """One table's companion: store, board, table, streams, web, and the threads that drive them."""

    def __init__(
        self,
        store,
        *,
        board=None,
        source=None,
        opponent=None,
        settle: float = 0.25,
        keepalive: float = 15.0,
        manual_clock: bool = False,
        referee_factory: Callable | None = None,
        seats=None,
        session_factory: Callable | None = None,
        clock: Clock | None = None,
        control=None,
    ):
        """``seats`` and ``session_factory`` seat a remote game (``host.remote.service``): the
        local player's phone seat, the rival's off-board seat, and the remote session.

        ``clock`` (``host.clock``) is the service's one time source, passed down to the table and
        its sessions, the board loop or ticker, the push to a hub, a remote game's link and the
        practice opponent (``quin serve`` hands it to the web server too).  By default the
        simulated board's clock when it is one (a test's ``FakeClock``), else the real clock.
        ``control``: the time control of new games (``host.match.clock``; ``quin serve --clock``)."""
        from host.web.events import Broker

        self.store = store
        self.board = board  # the simulated board, or None
        self.source = source  # a hardware source (host.board.sources), or None
        self.broker = Broker(keepalive=keepalive)
        board_clock = getattr(board, "clock", None)
        if clock is None:
            clock = board_clock if isinstance(board_clock, Clock) else REAL
        self.clock = clock
        # Records are stamped on the wall clock; with the test's clock (manual_clock, or one given),
        # on its wall: two runs of one game give the same bytes.
        wall = clock.wall if (manual_clock or clock is not board_clock) else REAL.wall
        self.table = Table(store, self.broker, board=board, settle=settle, opponent=opponent,
                           referee_factory=referee_factory, seats=seats, session_factory=session_factory,
                           clock=clock, wall=wall, control=control)
        if board is not None:
            self.table.occupied = board.occupied
        self.app = None
        self.pusher = None
        self._stop = threading.Event()
        self._ticker: threading.Event | None = None
        self._loop: threading.Thread | None = None

    @classmethod
    def from_config(cls, config) -> "Service":
        """The service :func:`create_app` builds when it is given no table (tests, the
        fingerprint): the store in ``DATA_DIR``, a simulated board unless ``BOARD`` says otherwise,
        the open game resumed or a new one, and the ticker unless ``TICK`` is 0."""
        from host.store import DB_NAME, Store
        from host.system.config import data_dir
        from host.web.sim import make_virtual_board

        folder = Path(config["DATA_DIR"]) if config["DATA_DIR"] else data_dir()
        store = Store(folder / DB_NAME)
        board = make_virtual_board(manual=config["MANUAL_CLOCK"]) if config["BOARD"] == "sim" else None
        control = None
        if config.get("CLOCK"):
            from host.match.clock import parse_control

            control = parse_control(config["CLOCK"], "CLOCK")
        service = cls(store, board=board, settle=config["SETTLE"], keepalive=config["KEEPALIVE"],
                      manual_clock=config["MANUAL_CLOCK"], control=control)
        service.open(config["MODE"], config["VISION"], config["FIRST"])
        if config["TICK"]:
            service.start(config["TICK"])
        return service

    def open(self, mode: str = "classic", vision: bool = False, first: str = "white", *, take_over: bool = False) -> None:
        """Resume the store's open game, or start a new one (``Table.open``)."""
        self.table.open(mode, vision, first, take_over=take_over)

    def web(self, config: dict | None = None):
        """The Flask app on this service's table (``host.web.create_app``)."""
        from host.web import create_app

        self.app = create_app({"TABLE": self.table, "DATA_DIR": str(self.store.path.parent), **(config or {})})
        self.app.extensions["quin.service"] = self
        return self.app

    def push_to(self, url: str, key: str):
        """Push this table's games to a club's hub (ValueError for a bad URL or key)."""
        from host.remote.push import Pusher

        self.pusher = Pusher(self.table, url, key, clock=self.clock).start()
        return self.pusher

    def start(self, tick: float = TICK) -> None:
        """Start driving the table: the board loop on a hardware source, else the ticker."""
        if self.source is not None:
            self._loop = threading.Thread(target=pump, args=(self.table, self.source, self._stop),
                                          kwargs={"tick": tick, "clock": self.clock}, name="quin-board",
                                          daemon=True)
            self._loop.start()
        else:
            self._ticker = start_ticker(self.table, tick, self.clock)

    def stop(self) -> None:
        """Stop in order: no more readings or ticks, the hub's pusher, every stream ended, the board
        closed; then the store closed under the table's lock (a tick or request finishing first)."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.set()
        if self.pusher is not None:
            self.pusher.stop()
        remote = getattr(self, "remote", None)
        if remote is not None:
            remote.stop()
        self.broker.close()
        if self._loop is not None:
            self._loop.join(1)
        if self.source is not None:
            try:
                self.source.close()
            except Exception:  # noqa: BLE001 - the board may already be gone
                pass
        with self.table.lock:
            self.store.close()


def create_app(test_config: dict | None = None):
    """The web app (``host.web.create_app``) on ``TABLE`` if the config gives one, else on a whole
    service built from the config (:meth:`Service.from_config`), kept as ``quin.service``."""
    from host.web import DEFAULTS, create_app as web_app

    config = dict(test_config or {})
    if config.get("TABLE") is not None:
        return web_app(config)
    service = Service.from_config({**DEFAULTS, **config})
    app = web_app({**config, "TABLE": service.table})
    app.extensions["quin.service"] = service
    return app
