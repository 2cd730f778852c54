"""Scripted remote players for the hub's remote play, written from docs/remote-play.md alone.

Plain HTTP and SSE clients (standard library), the players' policy, and an oracle: an engine game
kept from the lineups the players chose and the actions the hub acknowledged. Nothing here imports
or reads the hub's remote-play code: the oracle is the rules engine, which the protocol names as
the truth (`view` is `engine.views.view(game, side)`).
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import threading
import time
import urllib.parse

from engine.actions import action_from_record
from engine.board import GATEWAYS, PLAYERS, SPACE_NAMES, other
from engine.game import Game
from engine.pieces import ARTIFICIAL_LIGHT
from engine.views import knows, view


def canon(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


# --- HTTP -----------------------------------------------------------------------------------------


class Answer:
    def __init__(self, status: int, body, headers):
        self.status, self.body, self.headers = status, body, headers

    def __repr__(self):
        return f"{self.status} {self.body!r}"


def call(base: str, method: str, path: str, body=None, token: str | None = None, timeout: float = 20,
         retry_429: int = 8) -> Answer:
    """One request on a fresh connection; 429 is waited out (Retry-After, at most 2 s) and retried."""
    u = urllib.parse.urlsplit(base)
    for _ in range(retry_429 + 1):
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
        finally:
            conn.close()
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        if resp.status == 429 and retry_429:
            # the hub's Retry-After asks a real client for a real wait
            time.sleep(min(2.0, float(resp.headers.get("Retry-After") or 1)))
            continue
        return Answer(resp.status, value, resp.headers)
    return Answer(resp.status, value, resp.headers)


# --- SSE ------------------------------------------------------------------------------------------


class Stream:
    """One connection of a side's state stream; a thread reads it into ``states``.

    ``states``: (monotonic time, SSE id, state) for every ``state`` event, in arrival order.
    """

    def __init__(self, base: str, code: str, token: str, label: str):
        self.base, self.label = base, label
        u = urllib.parse.urlsplit(base)
        self.states: list[tuple[float, str | None, dict]] = []
        self.errors: list[str] = []
        self.ended = False
        self.closed_by_us = False
        self.stall_until = 0.0
        self.cond = threading.Condition()
        self.sock = socket.create_connection((u.hostname, u.port), timeout=20)
        path = f"/api/remote/{code}/stream?token={urllib.parse.quote(token)}"
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
        self.fp = self.sock.makefile("rb")
        status_line = self.fp.readline().decode("latin-1")
        self.status = int(status_line.split()[1]) if len(status_line.split()) > 1 else 0
        self.headers = {}
        while True:
            line = self.fp.readline().decode("latin-1").strip()
            if not line:
                break
            k, _, v = line.partition(":")
            self.headers[k.strip().lower()] = v.strip()
        self.opened = time.monotonic()
        if self.status != 200:
            n = int(self.headers.get("content-length") or 0)
            self.body = self.fp.read(n) if n else b""
            self.ended = True
            self.sock.close()
            return
        self.chunked = "chunked" in self.headers.get("transfer-encoding", "").lower()
        # the stream may stay quiet: no read timeout (close() unblocks the reader)
        self.sock.settimeout(None)
        self.thread = threading.Thread(target=self._read, daemon=True, name=f"sse-{label}")
        self.thread.start()

    def _lines(self):
        """The body's lines, through chunked transfer encoding if the hub uses it."""
        if not self.chunked:
            while True:
                line = self.fp.readline()
                if not line:
                    return
                yield line
        pending = b""
        while True:
            size_line = self.fp.readline()
            if not size_line:
                return
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                return
            data = self.fp.read(size)
            self.fp.readline()  # the CRLF after a chunk
            pending += data
            *full, pending = pending.split(b"\n")
            for line in full:
                yield line + b"\n"

    def _read(self):
        eid, name, data = None, "message", []
        try:
            for line in self._lines():
                pause = self.stall_until - time.monotonic()
                if pause > 0:
                    time.sleep(pause)  # a slow client: what the hub writes waits in the socket
                line = line.decode("utf-8").rstrip("\r\n")
                if not line:
                    if data and name == "state":
                        try:
                            state = json.loads("\n".join(data))
                        except ValueError as exc:
                            self.errors.append(f"a state that is not JSON: {exc}")
                        else:
                            with self.cond:
                                self.states.append((time.monotonic(), eid, state))
                                self.cond.notify_all()
                    eid, name, data = None, "message", []
                    continue
                if line.startswith(":"):
                    continue
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "id":
                    eid = value
                elif field == "event":
                    name = value
                elif field == "data":
                    data.append(value)
        except (OSError, ValueError):
            pass
        finally:
            with self.cond:
                self.ended = True
                self.cond.notify_all()

    def stall(self, seconds: float) -> None:
        """Stop reading for a while (a slow phone)."""
        self.stall_until = time.monotonic() + seconds

    def newest(self) -> dict | None:
        with self.cond:
            return self.states[-1][2] if self.states else None

    def wait(self, predicate, timeout: float) -> dict | None:
        """The newest state once it satisfies ``predicate`` (None on timeout or a closed stream)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                if self.states and predicate(self.states[-1][2]):
                    return self.states[-1][2]
                left = deadline - time.monotonic()
                if left <= 0 or self.ended:
                    return None
                self.cond.wait(min(left, 0.5))

    def close(self):
        self.closed_by_us = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        if hasattr(self, "thread"):
            self.thread.join(5)


# --- the players' policy --------------------------------------------------------------------------


def offered(legal_actions: list[dict]) -> list[dict]:
    """What a side's `legal` lists, from the engine's full list: without Void Gravity and
    multi-tower reinforcements (docs/remote-play.md)."""
    return [a for a in legal_actions
            if a["type"] != "gravity" and not (a["type"] == "reinforce" and len(a["to"]) > 1)]


def choose(rng: random.Random, side: str, state_view: dict, legal: list[dict], gravity: dict | None,
           gateways: list | None) -> dict:
    """A player's pick among what its stream offers, from the view alone: flashes preferred (so that
    games end within the test's budget), sometimes a composed Void Gravity or a reinforcement of
    several Artificial Lights (which the client checks with `check` first)."""
    legal = sorted(legal, key=canon)
    roll = rng.random()
    composed = compose(rng, side, state_view, gravity, gateways)
    if composed is not None and roll < 0.15:
        return composed
    rivals = {e["space"] for e in state_view["board"] if e["owner"] != side}
    flashes = [a for a in legal if a["type"] in ("move", "reflect") and a["to"] in rivals]
    if flashes and rng.random() < 0.75:
        return rng.choice(flashes)
    return rng.choice(legal) if legal else {"type": "pass"}


def compose(rng: random.Random, side: str, state_view: dict, gravity: dict | None,
            gateways: list | None) -> dict | None:
    own = {e["space"]: e["piece"] for e in state_view["board"] if e["owner"] == side}
    reserve = state_view["reserve"][side].get("pieces") or []
    if gateways and len(gateways) >= 2 and reserve.count(ARTIFICIAL_LIGHT) >= 2 and rng.random() < 0.5:
        n = min(len(gateways), reserve.count(ARTIFICIAL_LIGHT))
        k = rng.randint(2, n)
        return {"type": "reinforce", "to": {s: ARTIFICIAL_LIGHT for s in sorted(rng.sample(sorted(gateways), k))}}
    if gravity:
        anchor = rng.choice(sorted(gravity))
        targets = sorted(gravity[anchor])
        voids = sorted(s for s, p in own.items() if p == "void" and s != anchor)
        if targets and voids:
            return {"type": "gravity", "void": anchor, "moves": {rng.choice(voids): rng.choice(targets)}}
    return None


# --- the oracle -----------------------------------------------------------------------------------


def count_actions(state_view: dict) -> int:
    return sum(len(t["actions"]) for t in state_view["history"])


class Oracle:
    """The true game, from the lineups chosen and the acknowledged actions, with what each player
    may know after every action (for the leak check of every state a stream showed)."""

    def __init__(self, setups: dict, mode: str, first: str):
        self.game = Game(setups["white"], setups["black"], mode=mode, vision=False, first=first)
        self.acked: list[tuple[str, dict]] = []
        self.snapshots = [self._snapshot()]

    def _snapshot(self):
        g = self.game
        return [(g.state.loc[t], g.owner[t], g.piece[t], knows(g, "white", t), knows(g, "black", t))
                for t in g.towers]

    @property
    def to_move(self) -> str:
        return self.game.to_move

    def legal(self) -> list[dict]:
        return [a.to_record() for a in self.game.legal_actions()]

    def is_legal(self, record: dict) -> bool:
        try:
            return self.game.is_legal(action_from_record(record))
        except Exception:  # noqa: BLE001 - a malformed composition is simply not legal
            return False

    def push(self, side: str, record: dict) -> None:
        self.game.push(action_from_record(record))
        self.acked.append((side, record))
        self.snapshots.append(self._snapshot())

    def view(self, side: str) -> dict:
        return json.loads(json.dumps(view(self.game, side)))

    def time_outcome(self, record: dict) -> tuple[str, dict]:
        """(outcome, {space: piece} revealed) of a Classic Time, by trying it and taking it back."""
        g = self.game
        before = {t: g.state.loc[t] for t in g.towers}
        known = {t for t in g.towers if knows(g, g.to_move, t)}
        g.push(action_from_record(record))
        ev = g.events[-1].to_json()
        mover = g.to_move
        pieces = {SPACE_NAMES[g.state.loc[t]]: g.piece[t] for t in g.towers
                  if g.owner[t] != mover and g.state.loc[t] >= 0 and knows(g, mover, t) and t not in known}
        g.pop()
        assert {t: g.state.loc[t] for t in g.towers} == before
        return ev["outcome"], pieces

    def piece_at(self, space: str) -> tuple[str, str] | None:
        g = self.game
        for t in g.towers:
            if g.state.loc[t] >= 0 and SPACE_NAMES[g.state.loc[t]] == space:
                return g.owner[t], g.piece[t]
        return None

    def leaks(self, side: str, state: dict, exempt: set[str]) -> list[str]:
        """Rival identities ``state`` (shown to ``side``) names that ``side`` may not know yet.

        A claim (space, piece) leaks when a rival tower stood at that space after the action the
        state shows (or before it, for `last`), is that piece, and ``side`` may not know it."""
        out = []
        v = state.get("view")
        if not v:
            return out
        k = count_actions(v)
        if k >= len(self.snapshots):
            return [f"the state shows {k} actions, only {len(self.snapshots) - 1} were acknowledged"]
        who = 3 if side == "white" else 4
        now, before = self.snapshots[k], self.snapshots[max(0, k - 1)]

        def check(space, piece, where, also_before):
            if space in exempt:
                return
            towers = [i for i, s in enumerate(now) if s[0] >= 0 and SPACE_NAMES[s[0]] == space]
            if also_before:
                towers += [i for i, s in enumerate(before) if s[0] >= 0 and SPACE_NAMES[s[0]] == space]
            for i in towers:
                loc, owner, true_piece, *_ = now[i]
                if owner != side and true_piece == piece and not now[i][who]:
                    out.append(f"{where}: the rival's {piece} at {space}, not yet revealed to {side}")
                    return

        for e in v.get("board", []):
            if e.get("owner") != side and e.get("piece") is not None:
                check(e["space"], e["piece"], "view.board", False)
        rival = other(side)
        if "pieces" in (v.get("reserve", {}).get(rival) or {}):
            out.append(f"view.reserve.{rival}: the rival's reserve pieces")
        if "setup" in v and v["setup"] != self.game.setups[side].to_record():
            out.append("view.setup: not this side's own setup")
        last = state.get("last") or {}
        for space, piece in (last.get("pieces") or {}).items():
            check(space, piece, "last.pieces", True)
        if state.get("record") is not None and state.get("phase") != "over":
            out.append("record: shown before the game is over")
        return out


def empty_gateways(game_view: dict, side: str) -> list[str]:
    taken = {e["space"] for e in game_view["board"]}
    return sorted(SPACE_NAMES[g] for g in GATEWAYS[side] if SPACE_NAMES[g] not in taken)


__all__ = ["Answer", "Oracle", "Stream", "call", "canon", "choose", "count_actions", "offered", "PLAYERS"]
