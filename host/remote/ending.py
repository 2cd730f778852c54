"""Ending a remote game from the board's side: the local player resigns, claims a game the rival
abandoned, or calls off a game not begun (docs/remote-play.md, "Ending a game"; docs/rules.md, "How
a game may end").

The phone asks (``POST /api/seat/<token>/remote-end``, host/web/remote_end.py); the request goes to
the hub through the link's durable outbox (``resign``, ``claim``, ``call-off``); the hub decides, and its next
state (the game over, its record's ``termination``) ends the game here as any other end does.
Every audience sees the hub's countdown of an absence (``remote.abandon``) on its status
(``host.remote.session.ending_status``)."""

from __future__ import annotations

from host.session.table import TableError

from .session import RemoteSession

ENDS = ("resign", "claim", "call_off")


def end_remote(table, player: str, what: object) -> None:
    """The local player resigns (``what`` "resign", confirmed on their phone), claims the game, or
    calls off a game not begun ("call_off", confirmed on their phone: the friend never sent a lineup,
    or never joined); TableError in one line when it cannot be asked now.  Call without the table's
    lock."""
    if what not in ENDS:
        raise TableError("end: 'resign', 'claim' or 'call_off' is expected")
    with table.lock:
        session = table.session
        if not isinstance(session, RemoteSession):
            raise TableError("end: this table plays no remote game")
        if player != session.local:
            raise TableError(f"end: {player} plays from afar")
        hub = session.hub or {}
        if what == "call_off":
            if hub.get("phase") not in ("waiting", "setup"):
                raise TableError("call off: only a game not begun can be called off (a game being played is "
                                 "resigned, or claimed when your friend is away)")
            session.link.send_call_off()
            table.publish()
            return
        if hub.get("phase") != "playing":
            raise TableError("end: only a game being played can be resigned or claimed")
        if what == "claim":
            abandon = hub.get("abandon")
            names = hub.get("names") or {}
            rival = session.rival
            if not abandon or abandon.get("side") != rival:
                raise TableError(f"claim: {names.get(rival) or rival.capitalize()} is here: the game goes on")
            if not abandon.get("claimable"):
                raise TableError(f"claim: the game may be claimed in {abandon.get('left')} s, once "
                                 f"{names.get(rival) or rival.capitalize()} has been away {abandon.get('after')} s")
            session.link.send_claim()
        else:
            session.link.send_resign()
        table.publish()
