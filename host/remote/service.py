"""A remote game on this board's service: ``quin serve --remote new|CODE --hub URL``.

:class:`RemoteSeat` (made before the service, since the side decides the seats) opens or resumes
the link (``host.remote.link``): a new game on the hub, a game joined by its code, or, with no
``--remote``, the game the link's file names (a restart of ``quin serve`` resumes it exactly where
the hub has it).  It gives the service its seats (the local player's phone seat, the rival's
off-board seat with a :class:`~host.remote.mind.RemoteMind`) and the remote session's factory;
:meth:`RemoteSeat.attach` then starts the link and opens the table on the remote game.
"""

from __future__ import annotations

import logging
from pathlib import Path

from engine.board import other
from host.session.seats import OffBoardSeat, PhoneSeat, Seats

from .link import FILE_NAME, Link, LinkFile, RemoteError, check_url, normalize_code, open_game
from .mind import RemoteMind
from .session import RemotePlay, session_factory

log = logging.getLogger("quin.remote")
FIRST_STATE = 10.0  # seconds `quin serve` waits for the hub's first state before opening the table
META = "remote_game"  # store meta: "<code>:<game id>" of the store's row for the remote game


class RemoteSeat:
    """A remote game for this board: its link, its sides, the rival's mind."""

    def __init__(self, folder: str | Path, remote: str | None = None, hub: str | None = None, *,
                 side: str = "random", mode: str = "classic", name: str | None = None, first: str = "white",
                 vision: bool = False, backoff: tuple[float, float] | None = None):
        file = LinkFile(Path(folder) / FILE_NAME)
        saved = file.load()
        kw = {"backoff": backoff} if backoff else {}
        self.mode, self.vision, self.first = mode, vision, first
        if remote is None:
            if saved is None:
                raise RemoteError("--remote: no remote game to resume here: start one with --remote new or "
                                  "join one with --remote CODE")
            self.link = Link(file, **kw)
        else:
            if hub is None:
                raise RemoteError("--remote needs --hub URL (the club's hub the game is played through)")
            url = check_url(hub)
            if remote != "new":
                normalize_code(remote)  # before anything is asked of the hub
            same = saved is not None and url == saved["hub"] and (
                normalize_code(remote) == saved["code"] if remote != "new" else not saved.get("over"))
            if same:
                # this board's seat in that game already (a restart of the same command resumes it;
                # ``--remote new`` starts another only once the saved game is over)
                self.link = Link(file, **kw)
                self.resumed = True
            else:
                opened = open_game(url, remote, side=side, mode=mode, name=name, first=first, vision=vision)
                self.link = Link.create(file, opened, **kw)
        self.local = self.link.side
        self.resumed = getattr(self, "resumed", remote is None)
        self.mind = RemoteMind(other(self.local))
        self.play: RemotePlay | None = None

    def service_kwargs(self) -> dict:
        seats = Seats({self.local: PhoneSeat(self.local), self.mind.side: OffBoardSeat(self.mind.side, self.mind)})
        return {"seats": seats, "session_factory": session_factory(self)}

    def attach(self, service, wait: float = FIRST_STATE) -> None:
        """Start the link and open the table on the remote game (the store's row for it, resumed,
        or a new one; another open game of the store is set aside)."""
        table, store = service.table, service.store
        play = self.play = RemotePlay(table, self)
        self.link.on_state = play.on_state
        self.link.on_status = play.on_status
        self.link.clock = service.clock  # the service's one time source (host.clock)
        self.link.start()
        row = store.open_game()
        key = store.meta(META)
        if row is not None and key != f"{self.link.code}:{row.id}":
            log.warning("game %s is set aside: this board plays remote game %s", row.id, self.link.shown)
            store.abandon(row.id)
        self.link.wait_state(wait)
        # a joining board learns the game's terms from the hub's state (sent from the start); the
        # command line's --mode is only a new game's
        state = self.link.state or {}
        mode = state.get("mode", self.mode)
        vision = state.get("vision", self.vision)
        first = state.get("first", self.first)
        service.open(mode, vision, first, take_over=True)
        store.set_meta(META, f"{self.link.code}:{table.row.id}")
        if self.link.state is not None:
            play.on_state(self.link.state)
        service.remote = self

    def stop(self) -> None:
        self.link.stop()
