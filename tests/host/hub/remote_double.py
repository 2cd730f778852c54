"""A double of the hub's remote-play routes as docs/remote-play.md states them, for the browser
page's tests while the real routes are not on this branch (they are built on another).

It keeps games in memory (no PostgreSQL) and runs the engine for the true game, as the hub does; it
does not import or consult the page it serves to the browser (host/hub/pages/play.*), only the
engine and the hub's own page routes (make_app) for the static files.  Run it with
``RemoteDouble().start()`` -> base URL; ``stop()``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import threading

from tornado import web

from engine.actions import Gravity, Reinforce, action_from_record
from engine.board import GATEWAYS, PLAYERS, SPACE_IDS, SPACE_NAMES, other
from engine.errors import InvalidError
from engine.game import Game
from engine.pieces import Setup
from engine.record import to_record
from engine.views import action_seen_by, view

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


class Remote:
    def __init__(self, mode, vision, first):
        self.mode, self.vision, self.first = mode, vision, first
        self.tokens = {}      # sha256 -> side
        self.names = {}
        self.kinds = {}
        self.setups = {}
        self.game = None
        self.seq = 0
        self.last = None      # (actor, action, pieces by viewer)
        self.answers = {}     # (seq, action json) -> answer
        self.rematch = {p: False for p in PLAYERS}
        self.streams = {p: set() for p in PLAYERS}

    def phase(self):
        if len(self.names) < 2:
            return "waiting"
        if self.game is None:
            return "setup"
        return "over" if self.game.is_over() else "playing"

    def paused(self):
        for p in PLAYERS:
            if p in self.names and not self.streams[p]:
                return f"{self.names[p] or p.capitalize()}'s {self.kinds[p]} is away: the game waits for it"
        return None

    def state(self, side):
        g = self.game
        phase = self.phase()
        legal = gravity = gateways = None
        if phase == "playing" and g.to_move == side:
            legal, gravity, anchors = [], {}, False
            for a in g.legal_actions():
                if isinstance(a, Gravity):
                    anchors = True
                    spots = gravity.setdefault(SPACE_NAMES[a.void], set())
                    spots.update(SPACE_NAMES[b] for _, b in a.moves)
                elif isinstance(a, Reinforce) and len(a.placements) > 1:
                    continue
                else:
                    legal.append(a.to_record())
            gravity = {k: sorted(v) for k, v in gravity.items()} if anchors else {}
            gateways = sorted(SPACE_NAMES[s] for s in GATEWAYS[side] if g.tower_at(s) is None)
        last = None
        if self.last and g is not None:
            actor, action, pieces = self.last
            last = {"player": actor, "seen": action_seen_by(g, action, actor, side), "pieces": pieces.get(side, {})}
        return {
            "code": self.code, "seq": self.seq, "side": side, "phase": phase,
            "names": {p: self.names.get(p) for p in PLAYERS}, "kinds": {p: self.kinds.get(p) for p in PLAYERS},
            "present": {p: bool(self.streams[p]) for p in PLAYERS}, "paused": self.paused(),
            "setups_in": {p: p in self.setups for p in PLAYERS},
            "view": view(g, side) if g is not None else None, "legal": legal, "gravity": gravity, "gateways": gateways,
            "reveal": None, "last": last,
            "record": to_record(g) if phase == "over" else None, "rematch": dict(self.rematch),
        }

    def publish(self):
        for side in PLAYERS:
            blob = None
            for handler in list(self.streams[side]):
                if blob is None:
                    blob = f"event: state\nid: {self.seq}\ndata: {json.dumps(self.state(side))}\n\n".encode()
                handler.push(blob)


class Double:
    def __init__(self):
        self.games: dict[str, Remote] = {}


def _hash(token):
    return hashlib.sha256(token.encode()).hexdigest()


class Base(web.RequestHandler):
    def initialize(self, double):
        self.double = double

    def fail(self, status, text):
        self.set_status(status)
        self.finish({"error": text})

    def body(self):
        try:
            data = json.loads(self.request.body or b"{}")
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def remote(self, code):
        code = code.upper().replace("-", "")
        g = self.double.games.get(code)
        if g is None:
            self.fail(404, f"code: no game has the code {code}")
        return g

    def side(self, g):
        auth = self.request.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else self.get_argument("token", "")
        side = g.tokens.get(_hash(token))
        if side is None:
            self.fail(401, "token: not a seat of this game")
        return side


def _seat(g, side, name, kind):
    token = "qs_" + secrets.token_urlsafe(24)[:32]
    g.tokens[_hash(token)] = side
    g.names[side] = name
    g.kinds[side] = kind
    return token


class Create(Base):
    def post(self):
        b = self.body() or {}
        side = b.get("side", "random")
        if side == "random":
            side = secrets.choice(PLAYERS)
        if b.get("mode") not in ("classic", "third_eye") or side not in PLAYERS or b.get("first") not in PLAYERS:
            return self.fail(400, "mode, side or first: not one of the choices")
        g = Remote(b["mode"], bool(b.get("vision")), b["first"])
        g.code = "".join(secrets.choice(ALPHABET) for _ in range(6))
        self.double.games[g.code] = g
        token = _seat(g, side, b.get("name") or None, b.get("kind", "browser"))
        self.finish({"code": g.code, "side": side, "token": token})


class Join(Base):
    def post(self, code):
        g = self.remote(code)
        if g is None:
            return
        free = [p for p in PLAYERS if p not in g.names]
        if not free:
            return self.fail(409, "code: both seats of this game are taken")
        b = self.body() or {}
        token = _seat(g, free[0], b.get("name") or None, b.get("kind", "browser"))
        self.finish({"code": g.code, "side": free[0], "token": token})
        g.publish()


class Act(Base):
    def post(self, code, what):
        g = self.remote(code)
        if g is None:
            return
        side = self.side(g)
        if side is None:
            return
        b = self.body()
        if b is None:
            return self.fail(400, "body: expected a JSON object")
        getattr(self, what)(g, side, b)

    def setup(self, g, side, b):
        if g.phase() != "setup":
            return self.fail(409, "setup: the game is not choosing lineups now")
        try:
            s = Setup.from_record(side, b.get("setup"))
        except InvalidError as exc:
            return self.fail(400, str(exc))
        g.setups[side] = s
        if len(g.setups) == 2:
            g.game = Game(g.setups["white"], g.setups["black"], g.mode, g.vision, g.first)
            g.seq += 1
        self.finish({"ok": True})
        g.publish()

    def check(self, g, side, b):
        if g.phase() != "playing":
            return self.fail(409, "action: the game is not being played")
        try:
            a = action_from_record(b.get("action"))
        except InvalidError as exc:
            return self.fail(400, f"action: {exc}")
        if g.game.to_move != side:
            return self.finish({"legal": False, "reason": f"it is {g.game.to_move}'s turn"})
        why = g.game.why_illegal(a)
        self.finish({"legal": not why, "reason": why or None})

    def action(self, g, side, b):
        key = (b.get("seq"), json.dumps(b.get("action"), sort_keys=True))
        if key in g.answers:
            return self.finish(g.answers[key])
        if g.paused():
            return self.fail(423, g.paused())
        if g.phase() != "playing":
            return self.fail(409, "action: the game is not being played")
        if b.get("seq") != g.seq:
            return self.fail(409, f"seq: the game is at {g.seq}, not {b.get('seq')}")
        if g.game.to_move != side:
            return self.fail(409, f"action: it is {g.game.to_move}'s turn")
        try:
            a = action_from_record(b.get("action"))
        except InvalidError as exc:
            return self.fail(400, f"action: {exc}")
        why = g.game.why_illegal(a)
        if why:
            return self.fail(400, f"action: {a} {why}")
        before = {p: {e["space"]: e["piece"] for e in view(g.game, p)["board"]} for p in PLAYERS}
        g.game.push(a)
        after = {p: {e["space"]: e["piece"] for e in view(g.game, p)["board"]} for p in PLAYERS}
        # what the action revealed to each side: rival towers whose face it now knows and did not before
        pieces = {p: {s: pc for s, pc in after[p].items() if pc and not before[p].get(s) and
                      g.game.owner[g.game.tower_at(SPACE_IDS[s])] == other(p)}
                  for p in PLAYERS}
        g.last = (side, a, pieces)
        g.seq += 1
        answer = {"seq": g.seq}
        g.answers[key] = answer
        self.finish(answer)
        g.publish()

    def rematch(self, g, side, b):
        if g.phase() != "over":
            return self.fail(409, "rematch: the game is not over")
        g.rematch[side] = True
        if all(g.rematch.values()):
            g.tokens = {h: other(s) for h, s in g.tokens.items()}
            g.names = {other(p): n for p, n in g.names.items()}
            g.kinds = {other(p): n for p, n in g.kinds.items()}
            g.streams = {other(p): s for p, s in g.streams.items()}
            g.setups, g.game, g.last, g.answers = {}, None, None, {}
            g.rematch = {p: False for p in PLAYERS}
            g.seq += 1
        self.finish({"ok": True})
        g.publish()


class Stream(Base):
    async def get(self, code):
        g = self.remote(code)
        if g is None:
            return
        side = self.side(g)
        if side is None:
            return
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.g, self.done = g, asyncio.Event()
        g.streams[side].add(self)
        g.publish()
        await self.done.wait()

    def push(self, blob):
        try:
            self.write(blob)
            self.flush()
        except Exception:
            self.on_connection_close()

    def on_connection_close(self):
        g = getattr(self, "g", None)
        if g is None or self.done.is_set():
            return
        for s in g.streams.values():
            s.discard(self)
        self.done.set()
        g.publish()


def routes(double):
    c = r"([0-9A-Za-z-]{6,7})"
    d = {"double": double}
    return [
        (r"/api/remote", Create, d),
        (rf"/api/remote/{c}/join", Join, d),
        (rf"/api/remote/{c}/(setup|action|check|rematch)", Act, d),
        (rf"/api/remote/{c}/stream", Stream, d),
    ]


class RemoteDouble:
    """The hub's page routes (make_app) plus the remote routes above, in a thread of its own."""

    def start(self) -> str:
        from tornado import httpserver, netutil

        from host.hub.server import make_app

        ready = threading.Event()

        def run():
            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
            app = make_app(None)
            app.add_handlers(r".*", routes(Double()))  # checked before make_app's own routes
            sockets = netutil.bind_sockets(0, "127.0.0.1")
            self.port = sockets[0].getsockname()[1]
            server = httpserver.HTTPServer(app)
            server.add_sockets(sockets)
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait(10)
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
