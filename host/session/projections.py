"""Projections: what each audience may see of a table's session.

- :func:`state` for the public (``viewer=None``) and for each seat (``viewer`` a player): the
  JSON-ready state the pages, the API and the streams carry;
- :func:`leds`: the board's lights, which the whole table sees.

They read the table's parts (its session, seats, board reading, the source's and the hub's
health) and change nothing.  Hidden identities reach an audience only through
``engine.views.view`` (and ``action_seen_by`` inside it), the referee's public status or the
seat's own private status, and an off-board seat's public status (its plan, in public words).
"""

from __future__ import annotations

from engine import words
from engine.actions import Move, Reflect
from engine.board import PLAYERS, SPACE_IDS, SPACE_NAMES, START_SPACES
from engine.views import view

AUDIENCES = ("public", "white", "black")


def states(table) -> dict[str, dict]:
    """Every audience's state, by audience name (the broker's ``publish`` takes them)."""
    return {a: state(table, None if a == "public" else a) for a in AUDIENCES}


def state(table, viewer: str | None = None) -> dict:
    """Everything ``viewer`` (a player, or None for the public) may see now.

    While a decision is unsaved: what it was last shown, the board's reading, and ``unsaved``."""
    session = table.session
    audience = viewer or "public"
    unsaved = session.unsaved if session is not None else None
    if unsaved is not None and audience in table.shown:
        shown = dict(table.shown[audience], unsaved=unsaved)
        shown["board"] = dict(shown["board"], occupied=board_state(table)["occupied"])
        return shown
    row = session.row if session is not None else None
    game = session.game if session is not None else None
    phase = table.phase
    # a game over has every identity open; one that never began (a remote game called off) has no game
    revealed = session.revealed() if phase == "over" else None
    data: dict = {
        "phase": phase,
        "game": row.id if row else None,
        "mode": row.mode if row else None,
        "vision": row.vision if row else False,
        "first": row.first if row else None,
        "setup_done": session.setup_done() if session is not None else {p: False for p in PLAYERS},
        "simulated": table.board is not None,
        "board": board_state(table),
        "source": table.source_status,
        "committed_at": table.committed_at,
        "view": view(revealed, viewer) if revealed is not None else _view(session, viewer),
        "referee": referee_status(session),
        "opponent": off_board_status(table),
        # who sits where, by the names they gave on their phones (never their player codes)
        "players": {p: table.seat_players().get(p, {}).get("name") for p in PLAYERS},
    }
    clock = session.clock_view(table.clock()) if session is not None else None
    if clock is not None:  # the game clocks (host.match.clock): both are public, as at a chess table
        data["clock"] = clock
    if phase == "over":
        # The game is over: nothing is hidden any more.  Every identity is shown to everyone,
        # and the table says who has asked to play again and who would move first.
        data["revealed"] = True
        data["again"] = {"asked": sorted(session.rematch), "first": session.next_first(),
                         "needs": sorted(table.seats.phone_tokens())}
    if table.resume_error and viewer is None:
        data["notice"] = table.resume_error
    if unsaved is not None:
        data["unsaved"] = unsaved
    if table.hub is not None:
        data["hub"] = table.hub
    remote = getattr(session, "remote_status", None)
    if remote is not None:  # a remote game (host.remote.session): its code, the names, the pause
        data["remote"] = remote()
    if viewer is not None:
        ref = session.ref if session is not None else None
        data["seat"] = {
            "player": viewer,
            "setup": row.setups[viewer] if row else None,
            "private": ref.private_status(viewer) if ref is not None else None,
            "hints": _hints(session, viewer) if session is not None else None,
            "declarations": _declarations(session, viewer) if session is not None else None,
            "start_spaces": [SPACE_NAMES[s] for s in START_SPACES[viewer]],
            "me": table.seat_players().get(viewer, {"name": None, "code": None}),
        }
    return data


def _view(session, viewer: str | None) -> dict | None:
    """The game's view for ``viewer``; a remote game's as its board shows it (``shown_view``)."""
    shown = getattr(session, "shown_view", None)
    if shown is not None:
        return shown(viewer)
    return view(session.game, viewer) if session is not None and session.game is not None else None


def off_board_status(table) -> dict | None:
    """What every audience may know of a seat played from off the board (the practice opponent's
    plan), shown as ``opponent``; None when both seats are people with phones."""
    for seat in table.seats.off_board():
        return seat.public_status(table)
    return None


def referee_status(session) -> dict | None:
    """The referee's public status, without its settled board: the moment the board settles
    without a commit is the moment the mover is asked a question, so it is not published
    (the sensors' own reading, ``board.occupied``, is)."""
    if session is None or session.ref is None:
        return None
    status = session.ref.public_status()
    status.pop("board", None)
    return status


def board_state(table) -> dict:
    """The sensors' reading beside what the board should show: what to lift and to place."""
    occupied = sorted(SPACE_NAMES[s] for s in table.occupied) if table.occupied is not None else None
    session = table.session
    expected = None
    if session is not None and session.ref is not None:
        expected = session.ref.expected()
    elif session is not None:
        expected = frozenset(s for p in PLAYERS for s in START_SPACES[p])
    out = {"occupied": occupied, "expected": sorted(SPACE_NAMES[s] for s in expected) if expected is not None else None}
    if table.occupied is not None and expected is not None:
        out["lift"] = sorted(SPACE_NAMES[s] for s in table.occupied - expected)
        out["place"] = sorted(SPACE_NAMES[s] for s in expected - table.occupied)
    return out


def _hints(session, player: str) -> dict | None:
    """Legal destinations by starting space: Vision Mode only (every identity is public)."""
    game = session.game
    if game is None or not game.vision or game.is_over() or game.to_move != player:
        return None
    if session.ref is not None and session.ref.public_status().get("following"):
        return None  # (remote play: the rival's action is still to be carried out on the board)
    return {SPACE_NAMES[a]: sorted({SPACE_NAMES[b] for b in to}) for a, to in words.destinations(game).items()}


def _declarations(session, player: str) -> dict | None:
    """What the player to move may declare on their phone now (docs/referee.md's inputs).

    Derived from the mover's own legal actions, which depend only on their own
    towers and the public board.
    """
    game = session.game
    ref = session.ref
    if game is None or ref is None or game.is_over() or game.to_move != player:
        return None
    if ref.phase != "play" or ref.public_status().get("following"):
        return None  # (remote play: the rival's action is still to be carried out on the board)
    said = words.declarations(game)  # the engine says what may be declared; the phone words it
    return {"reinforce": [list(ps) for ps in said.reinforce], "resurrect": list(said.resurrect),
            "time": said.time, "swap": said.swap, "flashes": _flashes(game)}


def _flashes(game) -> list[dict]:
    """The flashes the mover may make now (their tower's space and the rival tower's), for the phone's
    first-flash tip and its word while a tower is held alone.  From the mover's own legal moves: on
    their seat alone."""
    return [{"from": SPACE_NAMES[frm], "to": SPACE_NAMES[t]}
            for frm, to in words.destinations(game).items() for t in to if game.tower_at(t) is not None]


def leds(table) -> dict[int, tuple[int, int, int]]:
    """The board's LEDs: the referee's public instructions (spaces to clear, fill, move), what the
    seats add (an off-board seat's plan) and the last move."""
    session = table.session
    ref = session.ref if session is not None else None
    if ref is None:
        return {}
    from host.board.leds import colours

    status = ref.public_status()
    # Public instructions only: the whole table sees the board's lights, and the mover's own
    # corrections follow their hidden towers (after a declared Power of Time, "put the tower
    # back on w39" says w39 is no Time tower).  Those stay on the mover's phone.
    todo = list(status.get("instructions") or [])
    fixing = status.get("phase") in ("setup", "sync")
    items: list[dict] = []
    for ins in todo:
        do = ins.get("do")
        if do == "move":
            items.append({"kind": "correction" if fixing else "remove", "spaces": [ins["from"]]})
            items.append({"kind": "correction" if fixing else "place", "spaces": [ins["to"]]})
        elif do in ("clear", "fill"):
            kind = "correction" if fixing else ("remove" if do == "clear" else "place")
            items.append({"kind": kind, "spaces": [ins["space"]]})
    for seat in table.seats:
        items += seat.led_items(table)
    last = _last_move(table, session)
    if last:
        items.append({"kind": "last_move", "spaces": last})
    try:
        return colours(items)
    except ValueError:
        return {}


def _last_move(table, session) -> list[int]:
    """The last action's two spaces when it moved one tower (the move list's last entry, as shown)."""
    if getattr(session, "shown_view", None) is not None:
        shown = session.shown_view(None) or {}
        history = shown.get("history") or []
        last = history[-1]["actions"][-1] if history else None
        if last and last.get("type") in ("move", "reflect"):
            return [SPACE_IDS[last["from"]], SPACE_IDS[last["to"]]]
        return []
    game = session.game
    if game is not None and game.log:
        action = game.log[-1][2]
        if isinstance(action, (Move, Reflect)):
            return [action.frm, action.to]
    return []
