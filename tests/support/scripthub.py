"""A small hub that speaks the remote-play protocol (docs/remote-play.md, Protocol), written from
the document alone for the board side's tests while the real hub's routes are being built.

It holds the true game (engine.game.Game) for both sides, as the hub does, and answers each side's
token with ``engine.views.view(game, side)``.  It imports nothing from host/: the link and the
remote session are checked against the document, not against themselves.  It can be told to
refuse connections (``down``), to drop every stream (``drop``), and it keeps every byte it sent
on each side's streams.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from engine.actions import action_from_record
from engine.board import SPACE_NAMES
from engine.game import Game
from engine.pieces import Setup
from engine.record import to_record
from engine.views import action_seen_by, view

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
OTHER = {"white": "black", "black": "white"}


class RemoteGame:
    def __init__(self, code, mode, vision, first):
        self.code, self.mode, self.vision, self.first = code, mode, vision, first
        self.tokens: dict[str, str] = {}  # sha256 -> side
        self.names: dict[str, str | None] = {"white": None, "black": None}
        self.kinds: dict[str, str | None] = {"white": None, "black": None}
        self.setups: dict[str, Setup | None] = {"white": None, "black": None}
        self.streams = {"white": 0, "black": 0}
        self.game: Game | None = None
        self.seq = 0
        self.actions: dict[int, dict] = {}  # seq -> the action applied at it (idempotent resends)
        self.last = None
        self.reveal = None
        self.bound = None  # (side, [records]) the side's next action must be one of
        self.rematch = {"white": False, "black": False}

    def phase(self):
        if None in self.names.values():
            return "waiting"
        if self.game is None:
            return "setup"
        return "over" if self.game.is_over() else "playing"

    def paused(self):
        for side in ("white", "black"):
            if self.names[side] is not None and not self.streams[side]:
                return f"{self.names[side]}'s {self.kinds[side]} is away: the game waits for it"
        return None

    def state(self, side):
        game = self.game
        legal = None
        if game is not None and not game.is_over() and game.to_move == side:
            legal = [a.to_record() for a in game.legal_actions()]
        last = None
        if self.last is not None:
            player, action, pieces = self.last
            last = {"player": player, "seen": self.last_seen[side], "pieces": pieces}
        return {
            "code": self.code, "seq": self.seq, "side": side, "phase": self.phase(),
            "names": dict(self.names), "kinds": dict(self.kinds),
            "present": {s: bool(self.streams[s]) for s in self.streams},
            "paused": self.paused(),
            "setups_in": {s: self.setups[s] is not None for s in self.setups},
            "view": view(game, side) if game is not None else None,
            "legal": legal,
            "reveal": self.reveal,
            "last": last,
            "record": to_record(game) if game is not None and game.is_over() else None,
            "rematch": dict(self.rematch),
        }


class ScriptHub:
    def __init__(self):
        self.games: dict[str, RemoteGame] = {}
        self.lock = threading.Condition()
        self.down = False
        self.keepalive = 5.0  # seconds between a stream's keep-alive comments when nothing changed
        self.sent: dict[tuple[str, str], list[bytes]] = {}  # (code, side) -> every byte streamed
        self.requests: list[tuple[str, str]] = []  # (method, path) as received
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                hub._get(self)

            def do_POST(self):
                hub._post(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        with self.lock:
            self.down = True
            self.lock.notify_all()
        self.server.shutdown()
        self.server.server_close()

    # --- helpers ---------------------------------------------------------------------------------

    def _answer(self, h, status, body, extra=()):
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _token_side(self, g, token):
        if not token:
            return None
        return g.tokens.get(hashlib.sha256(token.encode()).hexdigest())

    def _new_token(self, g, side):
        token = "qs_" + secrets.token_urlsafe(24)[:32]
        g.tokens[hashlib.sha256(token.encode()).hexdigest()] = side
        return token

    def changed(self):
        self.lock.notify_all()

    def drop(self):
        """Every open stream ends (the hub restarted, a proxy cut it)."""
        with self.lock:
            self.epoch = getattr(self, "epoch", 0) + 1
            self.lock.notify_all()

    # --- routes ----------------------------------------------------------------------------------

    def _post(self, h):
        if self.down:
            h.close_connection = True
            h.connection.close()
            return
        parts = urllib.parse.urlsplit(h.path)
        self.requests.append(("POST", parts.path))
        length = int(h.headers.get("Content-Length") or 0)
        try:
            body = json.loads(h.rfile.read(length) or b"{}")
        except ValueError:
            return self._answer(h, 400, {"error": "body: not JSON"})
        segs = parts.path.strip("/").split("/")
        with self.lock:
            if segs == ["api", "remote"]:
                code = "".join(secrets.choice(ALPHABET) for _ in range(6))
                g = RemoteGame(code, body.get("mode", "classic"), body.get("vision", False), body.get("first", "white"))
                side = body.get("side", "white")
                if side == "random":
                    side = secrets.choice(["white", "black"])
                g.names[side], g.kinds[side] = body.get("name"), body.get("kind")
                self.games[code] = g
                token = self._new_token(g, side)
                self.changed()
                return self._answer(h, 200, {"code": code, "side": side, "token": token})
            if len(segs) < 4 or segs[:2] != ["api", "remote"]:
                return self._answer(h, 404, {"error": "no such route"})
            code = segs[2].replace("-", "").upper()
            g = self.games.get(code)
            if g is None:
                return self._answer(h, 404, {"error": f"code: no game {code}"})
            route = segs[3]
            if route == "join":
                free = [s for s in ("white", "black") if g.names[s] is None]
                if not free:
                    return self._answer(h, 409, {"error": "code: both seats are taken"})
                side = free[0]
                g.names[side], g.kinds[side] = body.get("name"), body.get("kind")
                token = self._new_token(g, side)
                self.changed()
                return self._answer(h, 200, {"code": code, "side": side, "token": token})
            auth = h.headers.get("Authorization", "")
            side = self._token_side(g, auth.removeprefix("Bearer ").strip())
            if side is None:
                return self._answer(h, 401, {"error": "token: not a seat of this game"})
            if route == "setup":
                if g.game is not None:
                    return self._answer(h, 409, {"error": "setup: the game has started"})
                g.setups[side] = Setup.from_record(side, body["setup"])
                if all(g.setups.values()):
                    g.game = Game(g.setups["white"], g.setups["black"], g.mode, g.vision, g.first)
                    g.seq += 1
                self.changed()
                return self._answer(h, 200, {"ok": True})
            if route == "action":
                seq, record = body.get("seq"), body.get("action")
                if seq in g.actions and g.actions[seq] == {"side": side, "action": record}:
                    return self._answer(h, 200, {"seq": seq + 1})
                if g.paused():
                    return self._answer(h, 423, {"error": g.paused()})
                if seq != g.seq:
                    return self._answer(h, 409, {"error": f"seq: the game is at {g.seq}, not {seq}"})
                game = g.game
                if game is None or game.to_move != side:
                    return self._answer(h, 409, {"error": "action: not this side's turn"})
                try:
                    action = action_from_record(record)
                except ValueError as exc:
                    return self._answer(h, 400, {"error": f"action: {exc}"})
                if not game.is_legal(action):
                    return self._answer(h, 409, {"error": "action: not legal now"})
                if g.bound is not None and g.bound[0] == side and record not in g.bound[1]:
                    return self._answer(h, 409, {"error": f"action: one of {g.bound[1]} was announced"})
                before = len(game.events)
                seen = {s: action_seen_by(game, action, side, s) for s in ("white", "black")}
                game.push(action)
                pieces = {}
                for ev in game.events[before:]:
                    pieces.update(_event_pieces(ev))
                g.last = (side, record, pieces)
                g.last_seen = seen
                g.actions[seq] = {"side": side, "action": record}
                g.seq += 1
                g.reveal, g.bound = None, None
                self.changed()
                return self._answer(h, 200, {"seq": g.seq})
            if route == "rematch":
                g.rematch[side] = True
                if all(g.rematch.values()):
                    g.game = None
                    g.setups = {"white": None, "black": None}
                    g.rematch = {"white": False, "black": False}
                    g.seq += 1
                self.changed()
                return self._answer(h, 200, {"ok": True})
            if route == "reveal":
                game = g.game
                if "flash" in body:
                    records = body["flash"]
                    actions = [action_from_record(r) for r in records]
                    if not actions or not all(game.is_legal(a) for a in actions):
                        return self._answer(h, 409, {"error": "flash: not legal now"})
                    to = actions[0].to
                    frm = {getattr(a, "frm", None) for a in actions}
                    pieces = {SPACE_NAMES[to]: game.piece[game.state.board[to]]}
                    for f in frm:
                        if f is not None:
                            pieces[SPACE_NAMES[f]] = game.piece[game.state.board[f]]
                    g.reveal = {"flash": {"spaces": sorted(pieces)}}
                    g.bound = (side, records)
                    g.seq += 1
                    self.changed()
                    return self._answer(h, 200, {"seq": g.seq, "pieces": pieces, "outcome": None})
                return self._answer(h, 400, {"error": "reveal: flash or time expected"})
            return self._answer(h, 404, {"error": "no such route"})

    def _get(self, h):
        if self.down:
            h.close_connection = True
            h.connection.close()
            return
        parts = urllib.parse.urlsplit(h.path)
        self.requests.append(("GET", parts.path))
        segs = parts.path.strip("/").split("/")
        query = urllib.parse.parse_qs(parts.query)
        if len(segs) != 4 or segs[:2] != ["api", "remote"] or segs[3] != "stream":
            return self._answer(h, 404, {"error": "no such route"})
        with self.lock:
            g = self.games.get(segs[2].replace("-", "").upper())
            if g is None:
                return self._answer(h, 404, {"error": "code: no such game"})
            side = self._token_side(g, (query.get("token") or [""])[0])
            if side is None:
                return self._answer(h, 401, {"error": "token: not a seat of this game"})
            g.streams[side] += 1
            epoch = getattr(self, "epoch", 0)
            self.changed()
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True
        sent = None
        sink = self.sent.setdefault((g.code, side), [])
        gone = threading.Event()

        def watch():
            # the client sends nothing more on a stream: the read ends when it closes the connection,
            # which the hub takes in at once (as a real server's close callback does)
            try:
                h.connection.recv(1)
            except OSError:
                pass
            gone.set()
            with self.lock:
                self.changed()

        threading.Thread(target=watch, daemon=True).start()
        try:
            while True:
                with self.lock:
                    while True:
                        if self.down or getattr(self, "epoch", 0) != epoch or gone.is_set():
                            return
                        state = g.state(side)
                        if state != sent:
                            break
                        self.lock.wait(self.keepalive)
                        if g.state(side) == sent:
                            h.wfile.write(b": keep-alive\n\n")
                            h.wfile.flush()
                data = json.dumps(state, sort_keys=True, separators=(",", ":"))
                frame = f"event: state\nid: {state['seq']}\ndata: {data}\n\n".encode()
                sink.append(frame)
                h.wfile.write(frame)
                h.wfile.flush()
                sent = state
        except OSError:
            return
        finally:
            with self.lock:
                g.streams[side] -= 1
                self.changed()


def _event_pieces(ev) -> dict:
    data = ev.to_json()
    out = {}
    for key in ("attacker", "defender"):
        item = data.get(key)
        if isinstance(item, dict) and "space" in item and "piece" in item:
            out[item["space"]] = item["piece"]
    return out
