"""Remote play on the hub: two players far apart, one true game (docs/remote-play.md, "Protocol (hub)").

The hub is the only machine that holds both lineups.  A game lives in PostgreSQL (``remote_games``:
its seats, both setups, its seq; ``remote_log``: every action and reveal with the answer given), so
any hub process can rebuild it: each process keeps the engine's :class:`~engine.game.Game` of the
games its streams follow, keyed by (game, round, seq), and plays the log on from where it was.

Every change is one transaction on the game's row (``SELECT ... FOR UPDATE``, then the ``seq``
check, everything validated before anything is written) that ends with
``pg_notify('quin_remote', '<id>:<seq>')``; every process LISTENs and sends each of its streams the
new state of its side, and also re-reads its games every ``poll`` seconds (a notification lost while
its listening connection was down, a presence that lapsed).  A side's state is built only from
``engine.views.view(game, side)``, the side's own legal actions, and public facts; what a reveal
or an action makes public is the engine's to say too (``Game.board_effect``,
``engine.views.made_public``), and so are the hints for composed actions
(``engine.words.composable``): nothing here reads a tower's identity.  Every statement is the hub's
store's (:mod:`host.hub.store.remote`); the transactions are decided here.

Presence: the process holding a side's stream keeps a row in ``remote_presence`` renewed every
``renew`` seconds; a row not renewed for ``lapse`` seconds is away (a process that died).  A joined
side with no stream pauses the game for both (actions answer 423) until it is back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import time
import uuid as uuidlib
from contextlib import asynccontextmanager

import psycopg

from engine.actions import Gravity, Reinforce, Time, action_from_record
from engine.board import PLAYERS, SPACE_NAMES, other
from engine.errors import InvalidError
from engine.game import ABANDONMENT, RESIGNATION, Game
from engine.pieces import Setup
from engine.record import to_record
from engine.views import action_seen_by, made_public, view
from engine.words import composable

from . import frames, validate
from .base import STREAM_RETRY, Base, Limiter, _quiet
from .codes import ALPHABET, new_code, parse_code, show_code
from .store import games as stored
from .store import players
from .store import remote as store
from .store.schema import (
    hash_key as hash_token,  # a seat token is kept as a table key is: its SHA-256
)

log = logging.getLogger("quin.hub.remote")

N = SPACE_NAMES
KINDS = ("board", "browser")
MAX_NAME = 40
TABLE = "remote"  # the archive's table name for remote games
CALLED_OFF = "called_off"  # the phase (and the logged end's reason) of a game called off before it began
LATER = object()  # Remote.state: the mover's state, worked out after the other side's


class Refused(Exception):
    """An answer other than 200: status and one line naming the field, space or turn."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def new_token() -> str:
    return "qs_" + secrets.token_urlsafe(24)  # 32 url-safe characters


# --- reading requests ---------------------------------------------------------------------------


def _name(body: dict) -> str:
    name = body.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME or not name.strip().isprintable():
        raise Refused(400, f"name: 1 to {MAX_NAME} printable characters are expected")
    return name.strip()


def _kind(body: dict) -> str:
    kind = body.get("kind", "browser")
    if kind not in KINDS:
        raise Refused(400, "kind: 'board' or 'browser' is expected")
    return kind


def _player(body: dict) -> str | None:
    code = body.get("player")
    if code is None or code == "":
        return None
    if not isinstance(code, str) or len(code) != 11 or not code.startswith("qp_") or \
            any(c not in "0123456789abcdef" for c in code[3:]):
        raise Refused(400, "player: a player code (qp_ and 8 hex digits) is expected")
    return code


def _seq(body: dict) -> int:
    seq = body.get("seq")
    if type(seq) is not int or not 0 <= seq < 2**31:
        raise Refused(400, "seq: the game's sequence number (a whole number) is expected")
    return seq


def _request_id(body: dict) -> str | None:
    """A join's optional ``request``: the client's own secret name for this join, so that a retry
    after a lost answer gets the same seat (16 to 64 url-safe characters, chosen at random)."""
    rid = body.get("request")
    if rid is None:
        return None
    if not isinstance(rid, str) or not 16 <= len(rid) <= 64 or \
            any(not (c.isascii() and (c.isalnum() or c in "-_")) for c in rid):
        raise Refused(400, "request: 16 to 64 letters, digits, '-' or '_' chosen at random are expected")
    return rid


def seat_token(code: str, request_id: str) -> str:
    """The seat token a join with ``request_id`` gets: the same for a retry of the same request
    (so a lost answer loses no seat), only its SHA-256 stored as for any token; whoever knows the
    request id is the client that chose it, as whoever holds a token is its seat."""
    import base64
    import hashlib

    digest = hashlib.sha256(f"quin-seat:{code}:{request_id}".encode()).digest()
    return "qs_" + base64.urlsafe_b64encode(digest).decode()[:32]


def _action(value, field: str = "action"):
    try:
        return action_from_record(value)
    except InvalidError as exc:
        raise Refused(400, f"{field}: {exc}") from None


# --- the game's row -----------------------------------------------------------------------------


class Row:
    """A game's row as the store reads it (host/hub/store/remote.py: its values by position)."""

    __slots__ = store.COLUMNS

    def __init__(self, values):
        for k, v in zip(self.__slots__, values):
            setattr(self, k, v)

    def side_of(self, token_hash: str) -> str | None:
        for side in PLAYERS:
            seat = self.seats.get(side)
            if seat and secrets.compare_digest(seat["token"], token_hash):
                return side
        return None

    def present(self, seats) -> set[str]:
        """The sides whose seat (token hash) is among ``seats``."""
        return {s for s in PLAYERS if self.seats.get(s) and self.seats[s]["token"] in seats}

    def names(self) -> dict:
        return {s: (self.seats.get(s) or {}).get("name") for s in PLAYERS}

    def kinds(self) -> dict:
        return {s: (self.seats.get(s) or {}).get("kind") for s in PLAYERS}


def paused_line(row: Row, present: set[str]) -> str | None:
    """Who is away, in words, while the game waits for them (None: nobody)."""
    if row.phase not in ("setup", "playing"):
        return None
    away = [s for s in PLAYERS if row.seats.get(s) and s not in present]
    if not away:
        return None
    who = " and ".join(f"{row.seats[s]['name']}'s {row.seats[s]['kind']}" for s in away)
    verb = "is" if len(away) == 1 else "are"
    return f"{who} {verb} away: the game waits for {'it' if len(away) == 1 else 'them'}"


def away_since(row: Row, present: set[str]) -> dict[str, float | None]:
    """{side: since when it has been away (the hub's clock; None: not known yet)} of each joined
    side with no stream open now."""
    return {s: (row.away or {}).get(row.seats[s]["token"]) for s in PLAYERS
            if row.seats.get(s) and s not in present}


def abandon_part(row: Row, present: set[str], now: float, after: float) -> dict | None:
    """The state's ``abandon``: while a game is played and exactly one side is away, that side, the
    whole seconds left before the other may claim the game (0: it may now), and the set time."""
    if row.phase != "playing":
        return None
    away = away_since(row, present)
    if len(away) != 1:
        return None
    side, since = next(iter(away.items()))
    left = after if since is None else max(0.0, since + after - now)
    return {"side": side, "left": int(-(-left // 1)), "after": int(-(-after // 1)), "claimable": left <= 0}


def composed_hints(game: Game) -> tuple[dict, list]:
    """What ``legal`` leaves out, for the mover to compose and ``check`` (the engine's
    ``words.composable``), by space names: Void Gravity's anchors and the empty spaces around each;
    the empty own Gateways."""
    anchors, gateways = composable(game)
    return {N[a]: sorted(N[s] for s in spots) for a, spots in anchors.items()}, sorted(N[g] for g in gateways)


def listed(action) -> bool:
    """Whether ``legal`` lists the action (Void Gravity and multi-tower reinforcements are composed)."""
    if type(action) is Gravity:
        return False
    return not (type(action) is Reinforce and len(action.placements) > 1)


# --- the hub's remote games -----------------------------------------------------------------------


class _Change:
    """One change of a game under way (Remote._change): its connection in a transaction, the game's
    row locked, the seat's side, this process's lock of the game once held, the game once changed."""

    __slots__ = ("conn", "game", "held", "row", "side")

    def __init__(self):
        self.conn = self.row = self.side = self.held = self.game = None


class Remote:
    """This process's part of remote play: its streams, its games in memory, presence renewal."""

    def __init__(self, hub, renew: float = 5.0, lapse: float = 15.0, rate: float = 20.0, join_rate: float = 1.0,
                 abandon_after: float = 120.0, clock=time.time):
        self.hub = hub
        self.abandon_after = abandon_after  # seconds a side may be away before the other may claim the game
        self.clock = clock  # the hub's clock for absences (seconds; tests inject one)
        self.renew, self.lapse = renew, lapse
        self.holder = uuidlib.uuid4().hex  # this process, in remote_presence
        self.subs: dict[int, set] = {}  # game id -> this process's open streams (RemoteStream handlers)
        self.games: dict[int, tuple[int, int, Game]] = {}  # game id -> (round, seq, its Game at that seq)
        self.locks: dict[int, asyncio.Lock] = {}
        self._presence_locks: dict[tuple[int, str], asyncio.Lock] = {}
        self.parts: dict[tuple[int, str], tuple[tuple, dict]] = {}  # (id, side) -> (key, the game part of its state)
        self._pending: set[int] = set()
        self._pending_set = asyncio.Event()
        self.action_limit = Limiter(rate, rate * 4)  # per token
        self.address_limit = Limiter(rate * 4, rate * 16)  # per address
        self.join_limit = Limiter(join_rate, join_rate * 20)  # creates and joins per address
        self._table: int | None = None
        self._used: dict[int, float] = {}  # game id -> when this process last read it (to forget idle games)

    def lock(self, game_id: int) -> asyncio.Lock:
        lk = self.locks.get(game_id)
        if lk is None:
            lk = self.locks[game_id] = asyncio.Lock()
        return lk

    # --- background -------------------------------------------------------------------------

    def tasks(self) -> list:
        return [self._refresher(), self._renewer(), self._poller()]

    def notified(self, payload: str) -> None:
        game_id = payload.partition(":")[0]
        if game_id.isdigit() and int(game_id) in self.subs:
            self._pending.add(int(game_id))
            self._pending_set.set()

    async def _refresher(self) -> None:
        while not self.hub.closing.is_set():
            await self._pending_set.wait()
            self._pending_set.clear()
            pending, self._pending = self._pending, set()
            for game_id in pending:
                try:
                    await self.refresh(game_id)
                except (psycopg.Error, OSError) as exc:
                    self.hub.db.said(exc, f"remote game {game_id} not read")

    async def _poller(self) -> None:
        while not self.hub.closing.is_set():
            await asyncio.sleep(min(self.hub.poll, self.lapse / 3))
            self._forget_idle()
            for game_id in list(self.subs):
                try:
                    await self.refresh(game_id)
                except (psycopg.Error, OSError):
                    pass

    def _forget_idle(self, idle: float = 60.0) -> None:
        """Games no stream of this process follows, unread for ``idle`` seconds, leave memory."""
        now = time.monotonic()
        for game_id in list(self._used):
            lk = self.locks.get(game_id)
            if game_id in self.subs or now - self._used[game_id] < idle or (lk is not None and lk.locked()):
                continue
            del self._used[game_id]
            self.games.pop(game_id, None)
            self.locks.pop(game_id, None)
            for side in PLAYERS:
                self.parts.pop((game_id, side), None)
            for key in [k for k, lk in self._presence_locks.items() if k[0] == game_id and not lk.locked()]:
                del self._presence_locks[key]

    async def _renewer(self) -> None:
        while not self.hub.closing.is_set():
            await asyncio.sleep(self.renew)
            for subs in list(self.subs.values()):
                for sub in list(subs):
                    sub.send(b": keep-alive\n\n")
            held = [(g, s) for g, subs in self.subs.items() for s in {sub.seat for sub in subs}]
            if not held:
                continue
            try:
                async with self.hub.pool.connection() as conn:
                    await store.renew(conn, self.holder, self.lapse, held)
            except (psycopg.Error, OSError) as exc:
                self.hub.db.said(exc, "remote presence not renewed")

    # --- presence ---------------------------------------------------------------------------

    def _presence_lock(self, game_id: int, seat: str) -> asyncio.Lock:
        lk = self._presence_locks.get((game_id, seat))
        if lk is None:
            lk = self._presence_locks[(game_id, seat)] = asyncio.Lock()
        return lk

    def _holds(self, game_id: int, seat: str) -> bool:
        return any(s.seat == seat for s in self.subs.get(game_id, ()))

    async def arrive(self, sub) -> None:
        # A seat's presence row on this process is written under one lock per (game, seat), and
        # what is written is decided inside it from the streams open then: a page reloading closes
        # its stream and opens the next at once, and a DELETE of the closed one's leave landing after
        # the new one's INSERT left the side away for good with its stream open.
        first = not self._holds(sub.game_id, sub.seat)
        self.subs.setdefault(sub.game_id, set()).add(sub)
        async with self._presence_lock(sub.game_id, sub.seat):
            async with self.hub.pool.connection() as conn:
                await store.arrive(conn, sub.game_id, sub.seat, self.holder, self.lapse)
                if first:
                    await store.notify(conn, sub.game_id, "presence")

    async def leave(self, sub) -> None:
        subs = self.subs.get(sub.game_id, set())
        subs.discard(sub)
        if not subs:
            self.subs.pop(sub.game_id, None)
        if self._holds(sub.game_id, sub.seat) or self.hub.closing.is_set():
            return  # closing: close() clears this process's presence at once
        try:
            async with self._presence_lock(sub.game_id, sub.seat):
                if self._holds(sub.game_id, sub.seat):
                    return  # a new stream of the seat arrived meanwhile: it stays present
                async with self.hub.pool.connection() as conn:
                    await store.leave(conn, sub.game_id, sub.seat, self.holder)
                    await self._mark_away(conn, sub.game_id, sub.seat)
                    await store.notify(conn, sub.game_id, "presence")
        except (psycopg.Error, OSError) as exc:  # the row lapses by itself
            self.hub.db.said(exc, "remote presence not cleared")

    async def close(self) -> None:
        """This process stops: its sides are away now (not once their presence lapses)."""
        held = list(self.subs)
        held_seats = {(g, sub.seat) for g, subs in self.subs.items() for sub in subs}
        self.subs.clear()
        if not held:
            return
        try:
            async with self.hub.pool.connection(timeout=2) as conn:
                await store.leave_all(conn, self.holder)
                for game_id, seat in held_seats:
                    await self._mark_away(conn, game_id, seat)
                await store.notify_presence(conn, held)
        except (psycopg.Error, OSError) as exc:
            log.warning("remote presence not cleared (it lapses): %s", exc)

    async def _mark_away(self, conn, game_id: int, seat: str) -> None:
        """The seat is away from now, unless a stream of it is open (on any process) or it was already."""
        await store.mark_away(conn, game_id, seat, self.clock())

    # --- the game in memory -------------------------------------------------------------------

    async def game_at(self, conn, row: Row) -> Game | None:
        """The game of ``row``'s round at ``row.seq`` (None before play).  Call holding ``lock(row.id)``."""
        self._used[row.id] = time.monotonic()
        if row.phase not in ("playing", "over"):
            return None
        cached = self.games.get(row.id)
        if cached is not None and cached[0] == row.round and cached[1] == row.seq:
            return cached[2]
        if cached is not None and cached[0] == row.round and cached[1] < row.seq:
            game, after = cached[2], cached[1]
        else:
            game = Game(Setup.from_record("white", row.setups["white"]), Setup.from_record("black", row.setups["black"]),
                        row.mode, row.vision, row.first)
            after = -1
        self.games.pop(row.id, None)
        for kind, request in await store.moves(conn, row.id, row.round, after, row.seq):
            if kind == "end":  # a resignation, an abandoned game claimed: no move
                game.end(request["reason"], request["winner"])
            else:
                game.push(action_from_record(request))
        self.games[row.id] = (row.round, row.seq, game)
        return game

    # --- states -------------------------------------------------------------------------------

    async def read(self, conn, game_id: int) -> tuple[Row, set[str], dict | None]:
        r = await store.read_game(conn, game_id)
        if r is None:
            return None, set(), None
        n = len(store.COLUMNS)
        row = Row(r[:n])
        return row, row.present(r[n]), r[n + 1]

    async def state(self, game_id: int, seat: str, mover_later: bool = False) -> dict | None:
        """The state of the seat (a token's hash) as its side sees it now (None: no such seat; with
        ``mover_later``, LATER if the seat's side is to move and its legal actions are not yet known)."""
        async with self.hub.pool.connection() as conn, self.lock(game_id):
            row, present, last = await self.read(conn, game_id)
            side = row.side_of(seat) if row is not None else None
            if side is None:
                return None
            part = await self._part(conn, row, side, last, mover_later)
            if part is LATER:
                return LATER
            for s, since in away_since(row, present).items():
                if since is None and row.phase in ("setup", "playing"):  # its process died: away from now on
                    await self._mark_away(conn, row.id, row.seats[s]["token"])
                    row.away = dict(row.away or {}, **{row.seats[s]["token"]: self.clock()})
        return {"code": show_code(row.code), "seq": row.seq, "side": side, "phase": row.phase,
                # the game's terms from the start, so a side that joined knows them before play
                "mode": row.mode, "vision": row.vision, "first": row.first,
                "names": row.names(), "kinds": row.kinds(),
                "present": {s: s in present for s in PLAYERS},
                "paused": paused_line(row, present),
                "abandon": abandon_part(row, present, self.clock(), self.abandon_after),
                "setups_in": {s: s in row.setups for s in PLAYERS},
                **part,
                "rematch": {s: bool(row.rematch.get(s)) for s in PLAYERS}}

    async def _part(self, conn, row: Row, side: str, last: dict | None, mover_later: bool = False) -> dict:
        """The state's part that follows the game (view, legal, reveal, last, record), kept per seq."""
        key = (row.round, row.seq, row.phase)
        kept = self.parts.get((row.id, side))
        if kept is not None and kept[0] == key:
            return kept[1]
        game = await self.game_at(conn, row)
        if mover_later and game is not None and not game.is_over() and game.to_move == side:
            return LATER
        part = {"view": None, "legal": None, "gravity": None, "gateways": None, "reveal": None, "last": None,
                "record": None, "called_off": None}
        if row.phase == CALLED_OFF:
            logged = await store.logged(conn, row.id, row.seq)
            part["called_off"] = logged[0] if logged is not None else None
        if game is not None:
            part["view"] = view(game, side)
            if not game.is_over() and game.to_move == side:
                bound = (row.reveal or {}).get("actions") if (row.reveal or {}).get("side") == side else None
                if bound is not None:
                    part["legal"] = bound
                    part["gravity"], part["gateways"] = {}, []
                else:
                    part["legal"] = [a.to_record() for a in game.legal_actions() if listed(a)]
                    part["gravity"], part["gateways"] = composed_hints(game)
            if row.reveal:
                shown = dict(row.reveal["public"])
                if row.reveal["side"] == side:
                    shown = {k: dict(v, actions=row.reveal["actions"]) if k == "flash" else v for k, v in shown.items()}
                part["reveal"] = shown
            if last is not None:
                actor = last["side"]
                action = action_from_record(last["request"])
                part["last"] = {"player": actor, "seen": action_seen_by(game, action, actor, side),
                                "pieces": last["revealed"]}
            if game.is_over():
                part["record"] = to_record(game)
        self.parts[(row.id, side)] = (key, part)
        return part

    @staticmethod
    def message(state: dict) -> bytes:
        return b"event: state\nid: %d\ndata: %s\n\n" % (
            state["seq"], json.dumps(state, separators=(",", ":")).encode())

    @staticmethod
    def unchanged_key(state: dict) -> bytes:
        """What a stream compares to tell a new state from the last it sent: all of it but the seconds
        an absence's countdown has left (the client counts them down; a new message goes when anything
        else changes, the claim becoming possible included)."""
        abandon = state.get("abandon")
        if abandon is None:
            return Remote.message(state)
        return Remote.message(dict(state, abandon=dict(abandon, left=None)))

    async def refresh(self, game_id: int) -> None:
        """Send each of this process's streams of the game its side's state, if it changed."""
        subs = self.subs.get(game_id)
        if not subs:
            return
        # The side not to move first: the mover's legal actions (how many depends on its hidden
        # identities) are worked out after the other side's message is on its way, so how soon
        # that message leaves never depends on them.
        later = []
        for seat in sorted({s.seat for s in subs}):
            state = await self.state(game_id, seat, mover_later=True)
            if state is LATER:
                later.append(seat)
            elif state is not None:
                self._send(game_id, seat, state)
        for seat in later:
            state = await self.state(game_id, seat)
            if state is not None and state is not LATER:
                self._send(game_id, seat, state)

    def _send(self, game_id: int, seat: str, state: dict) -> None:
        blob, key = self.message(state), self.unchanged_key(state)
        for sub in list(self.subs.get(game_id, ())):
            if sub.seat == seat:
                sub.send_state(blob, key)

    # --- changes --------------------------------------------------------------------------------

    async def _locked(self, conn, code: str, token: str | None) -> tuple[Row, str | None]:
        """The game's row, locked for this transaction, and the token's side (401 if a token was
        given that is not a seat of this game)."""
        r = await store.lock_game(conn, code)
        if r is None:
            raise Refused(404, f"code: no game {show_code(code)}")
        row = Row(r)
        side = None
        if token is not None:
            side = row.side_of(hash_token(token))
            if side is None:
                raise Refused(401, f"token: not a seat of the game {show_code(code)}")
        return row, side

    async def _present(self, conn, row: Row) -> set[str]:
        return row.present(await store.present_seats(conn, row.id))

    async def _known_player(self, conn, code: str | None) -> None:
        if code is None:
            return
        if await players.name_of(conn, code) is None:
            raise Refused(400, f"player: the hub does not know {code}: check it, or ask the hub's admin")

    async def create(self, body: dict) -> dict:
        mode = body.get("mode", "classic")
        if mode not in ("classic", "third_eye"):
            raise Refused(400, "mode: 'classic' or 'third_eye' is expected")
        vision = body.get("vision", False)
        if not isinstance(vision, bool):
            raise Refused(400, "vision: true or false is expected")
        side = body.get("side", "random")
        if side not in ("white", "black", "random"):
            raise Refused(400, "side: 'white', 'black' or 'random' is expected")
        first = body.get("first", "white")
        if first not in PLAYERS:
            raise Refused(400, "first: 'white' or 'black' is expected")
        name, kind, player = _name(body), _kind(body), _player(body)
        if side == "random":
            side = random.SystemRandom().choice(PLAYERS)
        token = new_token()
        seats = {side: {"token": hash_token(token), "name": name, "kind": kind, "player": player},
                 other(side): None}
        away = {hash_token(token): self.clock()}  # until its first stream opens
        async with self.hub.pool.connection() as conn:
            await self._known_player(conn, player)
            for _ in range(20):
                code = new_code()
                async with conn.transaction():
                    game_id = await store.create_game(conn, code, mode, vision, first, seats, away, hash_token(token))
                    if game_id is None:
                        continue
                    await store.notify(conn, game_id, 0)
                return {"code": show_code(code), "side": side, "token": token}
        raise Refused(503, "code: no free game code was found; try again")

    async def join(self, code: str, body: dict) -> dict:
        name, kind, player = _name(body), _kind(body), _player(body)
        rid = _request_id(body)
        token = seat_token(code, rid) if rid is not None else new_token()
        async with self.hub.pool.connection() as conn:
            await self._known_player(conn, player)
            async with conn.transaction():
                row, _ = await self._locked(conn, code, None)
                again = row.side_of(hash_token(token)) if rid is not None else None
                if again is not None:  # a retry of a join that was answered (the answer lost): the same seat
                    seat = row.seats[again]
                    if (seat["name"], seat["kind"], seat.get("player")) != (name, kind, player):
                        raise Refused(409, "request: this request took a seat with another name, kind or player")
                    return {"code": show_code(code), "side": again, "token": token}
                if row.phase == CALLED_OFF:
                    raise Refused(409, f"code: {show_code(code)} was called off before it began")
                free = [s for s in PLAYERS if not row.seats.get(s)]
                if not free:
                    raise Refused(409, f"code: both seats of {show_code(code)} are taken")
                side = free[0]
                seats = dict(row.seats, **{side: {"token": hash_token(token), "name": name, "kind": kind,
                                                  "player": player}})
                await store.join_seat(conn, row.id, hash_token(token), seats, {hash_token(token): self.clock()})
                await store.notify(conn, row.id, row.seq + 1)
        return {"code": show_code(code), "side": side, "token": token}

    async def setup(self, code: str, token: str, body: dict) -> dict:
        async with self.hub.pool.connection() as conn:
            async with conn.transaction():
                row, side = await self._locked(conn, code, token)
                if row.phase not in ("waiting", "setup"):
                    raise Refused(409, f"phase: the game is {row.phase}: setups are sent before play")
                try:
                    setup = Setup.from_record(side, body.get("setup"))
                except InvalidError as exc:
                    raise Refused(400, str(exc)) from None
                setups = dict(row.setups, **{side: setup.to_record()})
                if row.setups.get(side) == setups[side]:
                    return {"ok": True}  # sent again: nothing changes
                phase, started, archive = row.phase, row.started, row.archive
                if all(s in setups for s in PLAYERS) and all(row.seats.get(s) for s in PLAYERS):
                    phase, started = "playing", time.time()
                    game = Game(Setup.from_record("white", setups["white"]), Setup.from_record("black", setups["black"]),
                                row.mode, row.vision, row.first)
                    archive = await self._archive_start(conn, row, game)
                await store.keep_setups(conn, row.id, setups, phase, started, archive)
                await store.notify(conn, row.id, row.seq + 1)
        return {"ok": True}

    async def _retry(self, conn, row: Row, side: str, seq: int, kind: str, request: dict) -> dict:
        """The answer to a request at a stale ``seq``: the same answer if it is what was done then."""
        if seq > row.seq:
            raise Refused(409, f"seq: {seq} is ahead of the game (it is at {row.seq})")
        r = await store.logged(conn, row.id, seq + 1)
        if r is not None and r[0] == side and r[1] == kind and r[2] == request:
            return r[3]
        raise Refused(409, f"seq: {seq} is stale: the game is at {row.seq}; another change came first")

    @asynccontextmanager
    async def _change(self, code: str, token: str):
        """A change of the game by the token's seat: a :class:`_Change` holding the game's row locked
        in one transaction (committed when the block ends, rolled back if it raises), and this
        process's lock of the game once taken (``_hold``), released when everything is done.  The
        game in memory that ``_record`` changed is kept at the new seq only once committed."""
        change = _Change()
        try:
            async with self.hub.pool.connection() as conn:
                async with conn.transaction():
                    change.conn = conn
                    change.row, change.side = await self._locked(conn, code, token)
                    yield change
            if change.game is not None:  # committed
                self.games[change.row.id] = (change.row.round, change.row.seq + 1, change.game)
        finally:
            if change.held is not None:
                change.held.release()

    async def _hold(self, change: _Change) -> None:
        """This process's lock of the game, held until the change is committed (or given up)."""
        change.held = self.lock(change.row.id)
        await change.held.acquire()

    async def _playable(self, change: _Change) -> Game:
        """The game, this process's lock of it held, if the seat's side may play now (409, 423 if not)."""
        row, side = change.row, change.side
        await self._hold(change)
        if row.phase != "playing":
            raise Refused(409, f"phase: the game is {row.phase}, not being played")
        paused = paused_line(row, await self._present(change.conn, row))
        if paused:
            raise Refused(423, f"paused: {paused}")
        game = await self.game_at(change.conn, row)
        if game.to_move != side:
            raise Refused(409, f"turn: it is {game.to_move}'s turn (turn {game.turn})")
        return game

    async def _record(self, change: _Change, kind: str, request: dict, answer: dict, game: Game, *,
                      reveal: dict | None, phase: str, revealed: dict | None = None, before: dict | None = None,
                      ended: bool = False) -> None:
        """A change done to ``game`` (this process's, taken out of memory before it was changed) logged
        with the answer given, the game's row moved on (its announced ``reveal`` and ``phase``), the
        archive's frame after it when ``before`` (the public frame before it) is given, and every
        process told; ``game`` is kept at the new seq once the transaction commits."""
        row, conn = change.row, change.conn
        await store.record_change(conn, row.id, row.seq + 1, row.round, change.side, kind, request, answer,
                                  revealed or {}, reveal, phase)
        if before is not None:
            await self._archive_event(conn, row, game, before, phase == "over", ended=ended)
        await store.notify(conn, row.id, row.seq + 1)
        change.game = game

    async def act(self, code: str, token: str, body: dict) -> dict:
        seq = _seq(body)
        action = _action(body.get("action"))
        request = action.to_record()
        async with self._change(code, token) as change:
            row, side = change.row, change.side
            if seq != row.seq:
                return await self._retry(change.conn, row, side, seq, "action", request)
            game = await self._playable(change)
            bound = row.reveal if row.reveal and row.reveal["side"] == side else None
            if bound is not None and request not in bound["actions"]:
                named = ", ".join(str(action_from_record(a)) for a in bound["actions"])
                raise Refused(409, f"action: the announced reveal binds this turn to {named}")
            why = game.why_illegal(action)
            if why:
                raise Refused(400, f"action: {action} {why}")
            # valid: from here on the game in memory is changed, and forgotten unless committed
            before = self._public_frame(row, game)
            revealed = made_public(game, action)
            self.games.pop(row.id, None)
            game.push(action)
            answer = {"seq": row.seq + 1}
            await self._record(change, "action", request, answer, game, revealed=revealed, before=before,
                               reveal=None if bound is not None else row.reveal,
                               phase="over" if game.is_over() else "playing")
        return answer

    async def resign(self, code: str, token: str, body: dict) -> dict:
        """The token's side resigns: the rival wins.  Answered while the game is paused too (it
        needs nobody else); a resignation sent again answers the same."""
        return await self._end(code, token, RESIGNATION)

    async def claim(self, code: str, token: str, body: dict) -> dict:
        """The token's side claims a game its rival has abandoned (away for ``abandon_after``)."""
        return await self._end(code, token, ABANDONMENT)

    async def _end(self, code: str, token: str, reason: str) -> dict:
        async with self._change(code, token) as change:
            row, side = change.row, change.side
            winner = other(side) if reason == RESIGNATION else side
            request = {"reason": reason, "winner": winner}
            if row.phase == "over":
                r = await store.logged_end(change.conn, row.id, row.round, request)
                if r is not None and r[0] == side:
                    return r[1]  # sent again after a lost answer
            if row.phase != "playing":
                what = "resign" if reason == RESIGNATION else "claim"
                raise Refused(409, f"phase: the game is {row.phase}: only a game being played can be ended "
                                   f"({what})")
            if reason == ABANDONMENT:
                self._claimable(row, side, await self._present(change.conn, row))
            await self._hold(change)
            game = await self.game_at(change.conn, row)
            before = self._public_frame(row, game)
            self.games.pop(row.id, None)
            game.end(reason, winner)
            answer = {"seq": row.seq + 1, "result": game.result.to_json()}
            await self._record(change, "end", request, answer, game, before=before, ended=True, reveal=None,
                               phase="over")
        return answer

    async def call_off(self, code: str, token: str, body: dict) -> dict:
        """The token's side calls off a game not begun (its rival has not joined, or a lineup is not
        in): nobody wins, nothing is archived or rated, and both streams say who called it off.
        Answered while the game is paused too (a friend who never came back); sent again, the same
        answer.  A game being played is resigned or claimed instead (409)."""
        async with self._change(code, token) as change:
            row, side = change.row, change.side
            request = {"reason": CALLED_OFF, "by": side}
            if row.phase == CALLED_OFF:
                r = await store.logged_end(change.conn, row.id, row.round, request)
                if r is not None and r[0] == side:
                    return r[1]  # sent again after a lost answer
            if row.phase not in ("waiting", "setup"):
                raise Refused(409, f"phase: the game is {row.phase}: only a game not begun can be called off "
                                   "(a game being played is resigned, or claimed when the rival is away)")
            await self._hold(change)
            answer = {"seq": row.seq + 1, "called_off": side}
            await store.record_change(change.conn, row.id, row.seq + 1, row.round, side, "end", request, answer, {},
                                      None, CALLED_OFF)
            await store.notify(change.conn, row.id, row.seq + 1)
        return answer

    def _claimable(self, row: Row, side: str, present: set[str]) -> None:
        """Refused (409) unless the rival has been away for the set time (and this side is not)."""
        rival = other(side)
        name = f"{row.seats[rival]['name']}'s {row.seats[rival]['kind']}"
        if rival in present:
            raise Refused(409, f"claim: {name} is here: the game goes on")
        since = (row.away or {}).get(row.seats[rival]["token"])
        away = 0.0 if since is None else self.clock() - since
        if away < self.abandon_after:
            raise Refused(409, f"claim: {name} has been away {int(away)} s: the game may be claimed once it has "
                               f"been away {int(-(-self.abandon_after // 1))} s")

    async def check(self, code: str, token: str, body: dict) -> dict:
        action = _action(body.get("action"))
        async with self.hub.pool.connection() as conn:
            async with conn.transaction():
                r = await store.game_by_code(conn, code)
                if r is None:
                    raise Refused(404, f"code: no game {show_code(code)}")
                row = Row(r)
                side = row.side_of(hash_token(token))
                if side is None:
                    raise Refused(401, f"token: not a seat of the game {show_code(code)}")
                if row.phase != "playing":
                    return {"legal": False, "reason": f"the game is {row.phase}, not being played"}
                async with self.lock(row.id):
                    game = await self.game_at(conn, row)
                    if game.to_move != side:
                        return {"legal": False, "reason": f"it is {game.to_move}'s turn"}
                    if row.reveal and row.reveal["side"] == side and action.to_record() not in row.reveal["actions"]:
                        named = ", ".join(str(action_from_record(a)) for a in row.reveal["actions"])
                        return {"legal": False, "reason": f"the announced reveal binds this turn to {named}"}
                    why = game.why_illegal(action)
                    return {"legal": not why, "reason": f"{action} {why}" if why else None}

    async def reveal(self, code: str, token: str, body: dict) -> dict:
        seq = _seq(body)
        if ("flash" in body) == ("time" in body):
            raise Refused(400, "flash: either 'flash' (a list of actions) or 'time' (an action) is expected")
        if "flash" in body:
            if not isinstance(body["flash"], list) or not body["flash"] or len(body["flash"]) > 16:
                raise Refused(400, "flash: a list of 1 to 16 actions is expected")
            actions = [_action(a, f"flash[{i}]") for i, a in enumerate(body["flash"])]
            request = {"flash": [a.to_record() for a in actions]}
        else:
            actions = [_action(body["time"], "time")]
            if type(actions[0]) is not Time:
                raise Refused(400, "time: a Time action is expected")
            request = {"time": actions[0].to_record()}
        async with self._change(code, token) as change:
            row, side = change.row, change.side
            if seq != row.seq:
                return await self._retry(change.conn, row, side, seq, "reveal", request)
            game = await self._playable(change)
            if row.reveal:
                named = ", ".join(str(action_from_record(a)) for a in row.reveal["actions"])
                raise Refused(409, f"reveal: a reveal is announced already: the next action is {named}")
            for i, a in enumerate(actions):
                why = game.why_illegal(a)
                if why:
                    field = f"flash[{i}]" if "flash" in request else "time"
                    raise Refused(400, f"{field}: {a} {why}")
            if "flash" in request:
                answer, public = self._flash_answer(game, actions)
            else:
                answer, public = self._time_answer(game, actions[0])
            answer = {"seq": row.seq + 1, **answer}
            if "time" in request:
                # Classic Time's outcome is the rewind of the rival's last action, whichever Time
                # tower goes: with two Time towers (the clone) the player may still take either
                actions = [a for a in game.legal_actions() if type(a) is Time] or actions
            pending = {"side": side, "actions": [a.to_record() for a in actions], "public": public}
            self.games.pop(row.id, None)  # at row.seq + 1 once committed (a reveal moves no tower)
            await self._record(change, "reveal", request, answer, game, reveal=pending, phase=row.phase)
        return answer

    @staticmethod
    def _flash_answer(game: Game, actions) -> tuple[dict, dict]:
        """The flash every candidate makes (the engine's ``board_effect``): both towers' identities."""
        where = None
        for i, a in enumerate(actions):
            flash = game.board_effect(a).flash
            if flash is None:
                raise Refused(400, f"flash[{i}]: {a} does not move a tower onto a rival tower")
            if where is not None and (flash.frm, flash.at) != (where.frm, where.at):
                raise Refused(400, f"flash[{i}]: every candidate moves the tower on {N[where.frm]} onto {N[where.at]}")
            where = flash
        pieces = {N[where.frm]: where.attacker, N[where.at]: where.defender}
        return {"pieces": pieces, "outcome": None}, {"flash": {"by": game.to_move, "from": N[where.frm],
                                                              "to": N[where.at], "pieces": pieces}}

    @staticmethod
    def _time_answer(game: Game, action) -> tuple[dict, dict]:
        """What the Power of Time will do (the engine's ``board_effect``) and the identities it makes
        public (``made_public``) but the Time tower's own (public by its action): a failing Shadow."""
        if game.third_eye:
            raise Refused(400, "time: Third Eye Time pushes: nothing hidden to reveal")
        outcome = game.board_effect(action).time_outcome
        pieces = {space: piece for space, piece in made_public(game, action).items() if space != N[action.at]}
        return {"pieces": pieces, "outcome": outcome}, {"time": {"by": game.to_move, "at": N[action.at],
                                                                 "outcome": outcome, "pieces": pieces,
                                                                 "action": action.to_record()}}

    async def rematch(self, code: str, token: str) -> dict:
        async with self.hub.pool.connection() as conn:
            async with conn.transaction():
                row, side = await self._locked(conn, code, token)
                if row.phase != "over":
                    raise Refused(409, f"phase: the game is {row.phase}: a rematch follows a finished game")
                if row.rematch.get(side):
                    return {"ok": True}
                asked = dict(row.rematch, **{side: True})
                if all(asked.get(s) for s in PLAYERS):  # both: the next game, sides swapped, same tokens
                    await store.rematch(conn, row.id, {"white": row.seats["black"], "black": row.seats["white"]})
                else:
                    await store.ask_rematch(conn, row.id, asked)
                await store.notify(conn, row.id, row.seq + 1)
        return {"ok": True}

    async def seat(self, code: str, token: str) -> tuple[int, str]:
        """A stream's game and seat (its token's hash: the side it plays changes with a rematch);
        Refused 404/401."""
        async with self.hub.pool.connection() as conn:
            r = await store.seats_by_code(conn, code)
        if r is None:
            raise Refused(404, f"code: no game {show_code(code)}")
        digest = hash_token(token)
        for side in PLAYERS:
            seat = r[1].get(side)
            if seat and secrets.compare_digest(seat["token"], digest):
                return r[0], digest
        raise Refused(401, f"token: not a seat of the game {show_code(code)}")

    # --- the archive ----------------------------------------------------------------------------

    async def _table_id(self, conn) -> int:
        if self._table is None:
            # a key nobody holds (not even its hash is a SHA-256 of anything sent)
            self._table = await stored.remote_table(conn, TABLE, "remote:" + secrets.token_hex(16))
        return self._table

    @staticmethod
    def _public_frame(row: Row, game: Game) -> dict:
        """What the hub's wall and game page show of a remote game: a public frame as a board pushes."""
        return {"state": {"game": show_code(row.code), "phase": "over" if game.is_over() else "playing",
                          "mode": game.mode, "players": row.names(), "remote": True, "view": view(game, None)},
                "notices": []}

    async def _archive_start(self, conn, row: Row, game: Game) -> int:
        table = await self._table_id(conn)
        frame = self._public_frame(row, game)
        return await stored.start_remote_game(conn, table, str(uuidlib.uuid4()), game.mode,
                                              json.dumps(frame, separators=(",", ":")))

    async def _archive_event(self, conn, row: Row, game: Game, before: dict, over: bool, ended: bool = False) -> None:
        """The archive's frame after an action (``ended``: after a termination, the frame after the last one)."""
        if row.archive is None:
            return
        n = len(game.log) + (2 if ended else 1)
        frame = self._public_frame(row, game)
        data = frame if n % frames.KEYFRAME == 1 else {"patch": frames.diff(before, frame)}
        await stored.add_remote_event(conn, row.archive, n, json.dumps(data, separators=(",", ":")))
        status = "live"
        if over:
            status = "over"
            result = game.result.to_json()
            players = {s: {"name": (row.seats[s] or {}).get("name"), "code": (row.seats[s] or {}).get("player")}
                       for s in PLAYERS}
            await self.hub._finish(conn, row.archive, {
                "status": "over", "record": to_record(game), "result": result, "created": row.started,
                "finished": time.time(), "mode": game.mode, "players": players}, pushed=False)
        await stored.notify_game(conn, row.archive, n, status)


# --- HTTP -------------------------------------------------------------------------------------------

CODE = r"([0-9A-Za-z-]{6,7})"


class _TooMany(Exception):
    def __init__(self, message: str, wait: float):
        super().__init__(message)
        self.message, self.wait = message, wait


class RemoteBase(Base):
    """A remote route (nothing logged of a request names more than its method and path: Base)."""

    @property
    def remote(self) -> Remote:
        return self.hub.remote

    def token(self) -> str:
        auth = self.request.headers.get("Authorization", "")
        if auth.startswith("Bearer ") and auth[7:].strip():
            return auth[7:].strip()
        raise Refused(401, "token: a seat token is needed (Authorization: Bearer <token>)")

    def body(self) -> dict:
        try:  # bounded: depth, finite numbers, text without NUL (host/hub/validate.py)
            body = validate.parse(self.request.body or b"{}")
        except validate.Invalid as exc:
            raise Refused(400, str(exc)) from None
        if not isinstance(body, dict):
            raise Refused(400, "body: a JSON object is expected")
        return body

    def code(self, text: str) -> str:
        code = parse_code(text)
        if code is None:
            raise Refused(404, f"code: no game {text[:8]!r} (6 characters of {ALPHABET})")
        return code

    def limit(self, limiter, name: str, what: str) -> None:
        wait = limiter.wait(name)
        if wait:
            raise _TooMany(f"too many {what}", wait)

    async def run(self, work) -> None:
        try:
            self.json(await work())
        except _TooMany as exc:
            self.too_many(exc.message, exc.wait)
        except Refused as exc:
            self.fail(exc.status, exc.message)
        except (psycopg.Error, OSError) as exc:  # 503 (retry) if the database is away, else 400
            self.database_failed(exc)


class Create(RemoteBase):
    async def post(self):
        async def work():
            self.limit(self.remote.join_limit, self.request.remote_ip, "games started or joined from this address")
            return await self.remote.create(self.body())
        await self.run(work)


class Act(RemoteBase):
    async def post(self, code, what):
        async def work():
            c = self.code(code)
            if what == "join":
                self.limit(self.remote.join_limit, self.request.remote_ip,
                           "games started or joined from this address")
                return await self.remote.join(c, self.body())
            token = self.token()
            self.limit(self.remote.address_limit, self.request.remote_ip, "requests from this address")
            self.limit(self.remote.action_limit, hash_token(token), "requests for this seat")
            if what == "rematch":
                return await self.remote.rematch(c, token)
            if what in ("resign", "claim", "call-off"):
                if self.body():
                    raise Refused(400, f"body: {what} takes an empty object {{}}")
                return await getattr(self.remote, what.replace("-", "_"))(c, token, {})
            body = self.body()
            return await getattr(self.remote, {"action": "act"}.get(what, what))(c, token, body)
        await self.run(work)


class RemoteStream(RemoteBase):
    """SSE: the whole state for the token's side at once, then each time it changes."""

    async def get(self, code):
        hub, remote = self.hub, self.remote
        address = self.request.remote_ip
        if hub.streams.get(address, 0) >= hub.stream_cap:
            return self.too_many("too many streams open from this address", STREAM_RETRY)
        wait = hub.stream_limit.wait(address)
        if wait:
            return self.too_many("too many streams opened from this address", wait)
        token = self.get_query_argument("token", "")
        try:
            if not token:
                token = self.token()
            self.game_id, self.seat = await remote.seat(self.code(code), token)
        except Refused as exc:
            return self.fail(exc.status, exc.message)
        self.last = b""
        self.last_key = b""
        self.started = False
        self._ended = asyncio.get_running_loop().create_future()
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")
        self._watch_socket(remote.lapse)
        hub.streams[address] = hub.streams.get(address, 0) + 1
        try:
            await remote.arrive(self)
            state = await remote.state(self.game_id, self.seat)
            self.last = remote.message(state)
            self.last_key = remote.unchanged_key(state)
            self.write(b"retry: 1500\n\n" + self.last)
            self.flush().add_done_callback(_quiet)
            self.started = True
            if not hub.closing.is_set():
                await self._ended
        finally:
            hub.streams[address] -= 1
            await remote.leave(self)

    def _watch_socket(self, lapse: float) -> None:
        """A player whose network vanished without a word (no FIN, no RST) must not stay present
        for the minutes TCP would take: the keep-alive comments this stream gets every
        ``renew`` seconds that stay unacknowledged for ``lapse`` seconds close it (Linux's
        TCP_USER_TIMEOUT), and so does a silent peer (TCP keep-alive probes)."""
        import socket

        sock = getattr(self.request.connection.stream, "socket", None)
        if sock is None:
            return
        for level, name, value in ((socket.SOL_SOCKET, "SO_KEEPALIVE", 1),
                                   (socket.IPPROTO_TCP, "TCP_KEEPIDLE", max(1, int(lapse / 3))),
                                   (socket.IPPROTO_TCP, "TCP_KEEPINTVL", max(1, int(lapse / 6))),
                                   (socket.IPPROTO_TCP, "TCP_KEEPCNT", 3),
                                   (socket.IPPROTO_TCP, "TCP_USER_TIMEOUT", int(lapse * 1000))):
            option = getattr(socket, name, None)
            if option is not None:
                try:
                    sock.setsockopt(level, option, value)
                except OSError:
                    pass

    def send_state(self, blob: bytes, key: bytes) -> None:
        if not self.started or key == self.last_key:
            return
        self.last, self.last_key = blob, key
        self.send(blob)

    def send(self, blob: bytes) -> None:
        if self._ended.done() or not self.started:
            return
        stream = self.request.connection.stream
        if stream.closed():
            return self.end()
        self.request.connection.write(blob).add_done_callback(_quiet)

    def end(self) -> None:
        if hasattr(self, "_ended") and not self._ended.done():
            self._ended.set_result(None)

    def on_connection_close(self):
        self.end()


ROUTES = [
    (r"/api/remote", Create),
    (rf"/api/remote/{CODE}/(join|setup|action|check|reveal|rematch|resign|claim|call-off)", Act),
    (rf"/api/remote/{CODE}/stream", RemoteStream),
]


def routes() -> list:
    return list(ROUTES)


def access_log(handler) -> None:
    """Tornado's access log without query strings (a stream's token travels in one)."""
    from tornado.log import access_log as alog

    status = handler.get_status()
    method = alog.info if status < 400 else alog.warning if status < 500 else alog.error
    if getattr(handler, "quiet_log", False):  # a 503 of an outage the hub's log said once
        method = alog.debug
    request = handler.request
    method("%d %s %s (%s) %.2fms", status, request.method, request.path, request.remote_ip,
           1000.0 * request.request_time())
