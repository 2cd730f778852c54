"""The host's page: join codes for both seats, re-issue a seat (a lost phone), start a new game.

The host key (printed by ``quin serve``) guards it; its state-changing
requests carry the key in the ``X-Host-Key`` header.
"""

from __future__ import annotations

import hmac

import segno
from flask import Blueprint, current_app, jsonify, render_template, request, url_for

from engine.board import PLAYERS, WHITE
from engine.flash import MODES
from host.match.clock import PRESETS, ClockError, parse_control
from host.session.table import TableError

from .current import get_table
from .bodies import boolean, choice, json_body
from .errors import ApiError, bad_request
from .sim import board_key

bp = Blueprint("host", __name__)

HEADER = "X-Host-Key"


def _check(key: str, header: bool = False) -> None:
    expected = get_table().host_key
    given = request.headers.get(HEADER, "") if header else key
    if not expected or not hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode()) or (
        header and not hmac.compare_digest(key.encode("utf-8", "surrogateescape"), expected.encode())
    ):
        raise ApiError(403, "unknown host key")


def seat_links(table) -> dict:
    """Each phone seat's join URL and QR code (on the server's network address when `quin serve` knows it).

    The practice opponent's seat has no phone, so it has no link: its token opens nothing.
    """
    base = current_app.config.get("PUBLIC_URL")
    out = {}
    for player, token in table.phone_seats().items():
        path = url_for("seats.seat_page", token=token)
        url = base.rstrip("/") + path if base else url_for("seats.seat_page", token=token, _external=True)
        out[player] = {"url": url, "qr": segno.make(url, error="m").svg_inline(scale=4, border=2)}
    return out


@bp.get("/host/<key>")
def host_page(key: str):
    _check(key)
    table = get_table()
    board = url_for("sim.board_page_with_key", key=board_key(table.host_key)) if table.board is not None else None
    return render_template("host.html", key=key, players=PLAYERS, seats=seat_links(table), state=table.state(None),
                           board=board,
                           next_first=table.next_first(), opponent=_opponent(table),
                           clock=table.control.text(), presets=PRESETS,
                           remote=_remote(table), remote_hub=table.store.meta("remote_hub") or "")


def _remote(table) -> dict | None:
    """The remote game at this table, as the host page shows it: its code, hub, sides and names."""
    session = table.session
    if not getattr(session, "remote", False):
        return None
    status = session.remote_status()
    return {"code": status["code"], "hub": session.link.hub, "side": status["side"], "rival": session.rival,
            "names": status.get("names") or {}, "phase": status.get("phase")}


def _level(data: dict) -> int:
    from host.opponent.search import DEFAULT_LEVEL, MAX_LEVEL

    level = data.get("level", DEFAULT_LEVEL)
    if type(level) is not int or not 0 <= level <= MAX_LEVEL:
        raise bad_request(f"level: a whole number from 0 (random) to {MAX_LEVEL} is expected")
    return level


def _clock(data: dict):
    """The new game's time control (``clock``: "none", "25+10"...; host.match.clock), checked here:
    a 400 naming the field, and nothing changes.  None (absent): the table's keeps."""
    if "clock" not in data:
        return None
    try:
        return parse_control(data["clock"], "clock")
    except ClockError as exc:
        raise bad_request(str(exc)) from None


@bp.post("/api/host/<key>/new")
def host_new(key: str):
    """A new game with the same seats, or with the practice opponent on a seat (``opponent``: "white",
    "black", or "none": two people) at a ``level``.  A seat that passes between a phone and the
    computer is said, and a phone seat the computer leaves gets a new code (an old phone there does
    not get it back)."""
    _check(key, header=True)
    data = json_body(("mode", "vision", "first", "opponent", "level", "clock"))
    # Every field is checked before the open game is touched: a rejected request changes nothing.
    mode = choice(data, "mode", MODES, "classic")
    clock = _clock(data)
    vision = boolean(data, "vision", False)
    first = choice(data, "first", PLAYERS, WHITE)
    table = get_table()
    change = "opponent" in data
    side = choice(data, "opponent", (*PLAYERS, "none"), "none") if change else None
    level = _level(data) if change else None
    said = []
    if getattr(table.session, "remote", False):
        if table.phase != "over":
            raise bad_request(f"new: this table plays remote game {table.session.link.shown}: finish it, or resign "
                              "or claim it on your phone (call it off there if it has not begun), before a game here")
        _leave_remote(table)
        said.append("the remote game is over: both seats are at this table again, each with its phone")
    try:
        with table.lock:
            table.check_settings(mode, vision, first)
            freed = []
            if change:
                from host.opponent.driver import TableOpponent

                old = table.opponent
                new = TableOpponent(side, level) if side != "none" else None
                if old is not None and (new is None or new.side != old.side):
                    freed.append(old.side)
                    said.append(f"the practice opponent leaves {old.side.capitalize()}'s seat: a phone takes it "
                                "with its new code")
                if new is not None and (old is None or old.side != new.side):
                    said.append(f"the practice opponent (level {level}) takes {side.capitalize()}'s seat: a phone "
                                "on it stops working")
                elif new is not None and old is not None and old.level != new.level:
                    said.append(f"the practice opponent now plays at level {level}")
                table.opponent = new
            game_id = table.new_game(mode, vision, first, clock)
            for player in freed:
                table.reissue(player)
    except TableError as exc:
        raise bad_request(str(exc)) from None
    seats = "; ".join(said) if said else "the seat links stay the same, and a phone on one is carried to the new game"
    timed = f", clocks {table.control.text()}" if table.control.timed else ""
    _announce(f"New game {game_id} ({table.row.mode}{', Vision Mode' if table.row.vision else ''}, "
              f"{table.row.first} moves first{timed}): {seats}", links=bool(said))
    return jsonify({"game": game_id, "state": table.state(None), "seats": seat_links(table), "said": said,
                    "opponent": _opponent(table)})


def _leave_remote(table) -> None:
    """A finished remote game gives the table back: two phone seats (this board's player keeps their
    code), a session of this table, the link stopped and forgotten."""
    from host.session.seats import Seats

    service = current_app.extensions.get("quin.service")
    remote = getattr(service, "remote", None) if service is not None else None
    with table.lock:
        tokens = table.seats.tokens
        table.seats = Seats.of([])
        table.seats.set_tokens(tokens)
        table.session_factory = None
    if remote is not None:
        remote.link.forget()
        service.remote = None


def _opponent(table) -> dict | None:
    opponent = table.opponent
    if opponent is None or not hasattr(opponent, "level"):
        return None
    return {"side": opponent.side, "level": opponent.level}


@bp.post("/api/host/<key>/reissue")
def host_reissue(key: str):
    _check(key, header=True)
    data = json_body(("player",))
    player = choice(data, "player", PLAYERS)
    try:
        get_table().reissue(player)
    except TableError as exc:
        raise bad_request(str(exc)) from None
    _announce(f"{player.capitalize()}'s seat is re-issued: the old link no longer works")
    return jsonify({"ok": True, "seats": seat_links(get_table())})


def _announce(line: str, links: bool = True) -> None:
    """Tell the terminal that started the server (``quin serve`` sets ON_NEW_SEATS) about a new game or
    new seat codes (``links``: print the seat links again)."""
    hook = current_app.config.get("ON_NEW_SEATS")
    if hook is not None:
        hook(line, links)


# --- a remote game, started or joined from the host page (as `quin serve --remote` does) -----------


@bp.post("/api/host/<key>/remote")
def host_remote(key: str):
    """Play a friend far away through the club's hub: ``{"hub": URL, "game": "new" | CODE, "side":
    "white" | "black" | "random", "name": NAME, "mode": "classic" | "third_eye"}`` (``side`` and
    ``mode`` only for a new game: a joining board takes the game's terms from the hub).  The open
    game at this table is set aside; the seats become this board's player's phone and the rival
    far away.  Each field is checked, and the hub answers, before the table changes."""
    _check(key, header=True)
    data = json_body(("hub", "game", "side", "name", "mode"))
    from host.remote.link import RemoteError, check_url, normalize_code
    from host.session.table import NAME_MAX

    table = get_table()
    service = current_app.extensions.get("quin.service")
    if service is None:
        raise bad_request("remote: this server was not started by `quin serve`: it cannot play a remote game")
    session = table.session
    if getattr(session, "remote", False) and table.phase != "over":
        raise bad_request(f"remote: this table plays remote game {session.link.shown} already")
    game = data.get("game")
    name = data.get("name")
    side = choice(data, "side", (*PLAYERS, "random"), "random")
    mode = choice(data, "mode", MODES, "classic")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_MAX or not name.strip().isprintable():
        raise bad_request(f"name: your name as your friend sees it, 1 to {NAME_MAX} characters, is expected")
    try:
        hub = check_url(data.get("hub"))
        if game != "new":
            game = normalize_code(game)
    except RemoteError as exc:
        raise bad_request(_field(str(exc))) from None
    try:
        seat = _remote_seat(table, service, hub, game, side, mode, name.strip())
    except RemoteError as exc:
        raise bad_request(_field(str(exc))) from None
    link = seat.link
    table.store.set_meta("remote_hub", hub)
    _announce(f"remote game {link.shown} on {link.hub}: you play {seat.local.capitalize()}; your friend joins "
              f"with the code {link.shown} (`quin serve --remote CODE` at their board, or the hub's /play page)")
    return jsonify({"code": link.shown, "side": seat.local, "hub": link.hub, "seats": seat_links(table)})


def _field(line: str) -> str:
    """The link's one line names the command line's options; the host page's fields are these."""
    return line.replace("--remote:", "game:").replace("--hub:", "hub:").replace("--side:", "side:") \
        .replace("--mode:", "mode:").replace("--remote", "game")


def _remote_seat(table, service, hub: str, game: str, side: str, mode: str, name: str):
    """The remote game opened at the hub (RemoteError if it cannot be), then put on this table: its
    seats, its session, its link; the table's open game set aside."""
    from host.remote.service import RemoteSeat
    from host.remote.session import session_factory

    folder = table.store.path.parent
    old = getattr(service, "remote", None)
    seat = RemoteSeat(folder, game, hub, side=side, mode=mode, name=name, first="white")
    if old is not None and old is not seat:
        old.stop()
    kwargs = seat.service_kwargs()
    with table.lock:
        tokens = table.seats.tokens
        table.seats = kwargs["seats"]
        # this board's player keeps their phone: its seat's code carries over to the side they play
        if tokens.get(seat.local):
            table.seats.set_tokens({p: t for p, t in tokens.items()})
        table.session_factory = kwargs["session_factory"]
    seat.attach(service)
    return seat
