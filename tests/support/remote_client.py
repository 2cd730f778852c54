"""A remote-play client for the hub's tests: a seat (its token) and its state stream, read by a
thread of its own (standard library only; nothing of host/ is imported: the hub is checked from
outside, through its HTTP API, as the Pi and the browser page use it)."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse

from tests.support.hub_client import request


class Stream:
    """An open ``/api/remote/<code>/stream``: every message kept, raw and parsed, in order."""

    def __init__(self, base: str, code: str, token: str):
        u = urllib.parse.urlsplit(base)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self.conn.request("GET", f"/api/remote/{code}/stream?token={urllib.parse.quote(token)}",
                          headers={"Accept": "text/event-stream"})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.raw: list[bytes] = []  # each message's bytes as received
        self.states: list[dict] = []
        self.times: list[float] = []  # when each message arrived (time.monotonic)
        self.cond = threading.Condition()
        self.ended = False
        if self.status == 200:
            self.thread = threading.Thread(target=self._read, daemon=True)
            self.thread.start()

    def _read(self) -> None:
        lines: list[bytes] = []
        try:
            while True:
                line = self.resp.fp.readline()
                if not line:
                    break
                if line == b"\n":
                    if any(x.startswith(b"data: ") for x in lines):
                        blob = b"".join(lines)
                        data = json.loads(b"".join(x[6:] for x in lines if x.startswith(b"data: ")))
                        with self.cond:
                            self.raw.append(blob)
                            self.states.append(data)
                            self.times.append(time.monotonic())
                            self.cond.notify_all()
                    lines = []
                elif not line.startswith(b":"):
                    lines.append(line)
        except (OSError, ValueError, AttributeError):  # closed by close() meanwhile
            pass
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    @property
    def last(self) -> dict | None:
        with self.cond:
            return self.states[-1] if self.states else None

    def wait(self, predicate, what: str = "a state", timeout: float = 30) -> dict:
        """The first state (from the newest back... no: the newest state) satisfying predicate."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                if self.states and predicate(self.states[-1]):
                    return self.states[-1]
                left = deadline - time.monotonic()
                if left <= 0 or self.ended:
                    raise AssertionError(f"timed out waiting for {what}; last state: "
                                         f"{json.dumps(self.states[-1] if self.states else None)[:600]}")
                self.cond.wait(min(left, 1.0))

    def close(self) -> None:
        try:
            self.conn.sock.shutdown(2)
        except (OSError, AttributeError):
            pass
        self.conn.close()


class Seat:
    def __init__(self, base: str, answer: dict):
        self.base = base
        self.code = answer["code"]
        self.side = answer["side"]
        self.token = answer["token"]

    def post(self, what: str, body=None, with_headers: bool = False):
        return request(f"{self.base}/api/remote/{self.code}/{what}", "POST", body if body is not None else {},
                       key=self.token, with_headers=with_headers)

    def stream(self, base: str | None = None) -> Stream:
        return Stream(base or self.base, self.code, self.token)


def create(base: str, **body) -> Seat:
    body = {"mode": "classic", "vision": False, "side": "white", "first": "white", "name": "Ann", "kind": "board",
            **body}
    status, answer = request(f"{base}/api/remote", "POST", body)
    assert status == 200, answer
    return Seat(base, answer)


def join(base: str, code: str, **body) -> Seat:
    body = {"name": "Bob", "kind": "browser", **body}
    status, answer = request(f"{base}/api/remote/{code}/join", "POST", body)
    assert status == 200, answer
    return Seat(base, answer)


SIDES = ("white", "black")


def flash_of(state: dict, action: dict) -> bool:
    """Whether the action moves a tower onto a rival tower (read from the mover's own view)."""
    if action.get("type") not in ("move", "reflect"):
        return False
    me = state["side"]
    return any(e["space"] == action["to"] and e["owner"] != me for e in state["view"]["board"])


def compose(state: dict, rng) -> dict | None:
    """A Void Gravity or a several-Artificial-Light reinforcement composed from the state's hints
    (``gravity``, ``gateways``), as a page would let its player tap one, or None."""
    me = state["side"]
    view = state["view"]
    if state["gravity"] and rng.random() < 0.5:
        anchor = rng.choice(sorted(state["gravity"]))
        spots = state["gravity"][anchor]
        voids = [e["space"] for e in view["board"]
                 if e["owner"] == me and e["piece"] == "void" and e["space"] not in (anchor, "wi", "bi")]
        if voids and spots:
            k = rng.randint(1, min(2, len(voids), len(spots)))
            return {"type": "gravity", "void": anchor,
                    "moves": dict(zip(sorted(rng.sample(voids, k)), rng.sample(spots, k)))}
    lights = view["reserve"][me].get("pieces", []).count("artificial_light")
    if lights >= 2 and len(state["gateways"]) >= 2 and rng.random() < 0.5:
        k = rng.randint(2, min(lights, len(state["gateways"])))
        return {"type": "reinforce", "to": {g: "artificial_light" for g in sorted(rng.sample(state["gateways"], k))}}
    return None


class Played:
    def __init__(self):
        self.steps: list[dict] = []  # {"side", "action", "reveal": request or None, "answer": reveal's answer}
        self.composed = 0
        self.reveals = 0


def play(seats: dict, streams: dict, rng=None, script=None, reveal_sides=(), limit: int = 4000,
         on_step=None, probe=None) -> Played:
    """Play the game to its end through the API in lockstep: after each change both streams show it
    before the next.  ``rng``: choose among each state's ``legal`` (and compose Gravity and
    several-tower reinforcements, checked with ``check``); ``script``: the steps of an earlier
    ``play``.  A side in ``reveal_sides`` plays as a board: ``reveal`` before each flash and each
    Classic Time.  ``probe(side, state)`` is called with the mover's state before it acts."""
    out = Played()
    seq = max(streams[s].last["seq"] for s in SIDES)
    for n in range(limit):
        states = {s: streams[s].wait(lambda x, q=seq: x["seq"] >= q, f"{s}'s stream at seq {seq}") for s in SIDES}
        assert states["white"]["seq"] == states["black"]["seq"] == seq, (states["white"]["seq"], states["black"]["seq"])
        if states["white"]["phase"] == "over":
            return out
        movers = [s for s in SIDES if states[s]["legal"] is not None]
        assert len(movers) == 1, movers
        me = movers[0]
        st = states[me]
        seat = seats[me]
        if probe is not None:
            probe(me, st)
        if script is not None:
            step = script[n]
            assert step["side"] == me, (n, step, me)
            action, ask = step["action"], step["reveal"]
        else:
            action = None
            made = compose(st, rng)
            if made is not None:
                status, answer = seat.post("check", {"action": made})
                assert status == 200, answer
                if answer["legal"]:
                    action = made
                    out.composed += 1
                else:
                    assert isinstance(answer["reason"], str) and answer["reason"], answer
            if action is None:
                action = rng.choice(st["legal"])
            ask = None
            if me in reveal_sides:
                if flash_of(st, action):
                    ask = {"flash": [action]}
                elif action["type"] == "time" and "target" not in action:
                    ask = {"time": action}
        answer = None
        if ask is not None:
            status, answer = seat.post("reveal", {"seq": seq, **ask})
            assert status == 200, (status, answer, ask)
            assert answer["seq"] == seq + 1
            seq += 1
            out.reveals += 1
            for s in SIDES:
                streams[s].wait(lambda x, q=seq: x["seq"] >= q and x["reveal"] is not None, f"{s} shown the reveal")
        status, done = seat.post("action", {"seq": seq, "action": action})
        assert status == 200, (status, done, action)
        assert done == {"seq": seq + 1}
        seq += 1
        out.steps.append({"side": me, "action": action, "reveal": ask, "answer": answer})
        if on_step is not None:
            on_step(out.steps[-1])
    raise AssertionError(f"the game did not end in {limit} actions")


def start(base: str, mode: str, white_setup: dict, black_setup: dict, first: str = "white",
          kinds=("browser", "board"), stream_base: dict | None = None, **create_body):
    """A game started and set up, both streams open and both sides present, each change seen by
    both streams before the next (so what each stream receives does not depend on timing)."""
    stream_base = stream_base or {}
    a = create(base, mode=mode, side="white", first=first, kind=kinds[0], **create_body)
    sa = a.stream(stream_base.get("white"))
    sa.wait(lambda x: x["present"]["white"], "white present")
    b = join(base, a.code, kind=kinds[1])
    sa.wait(lambda x: x["phase"] == "setup", "white sees the join")
    sb = b.stream(stream_base.get("black"))
    for s in (sa, sb):
        s.wait(lambda x: x["present"]["black"] and x["present"]["white"], "both present")
    status, answer = a.post("setup", {"setup": white_setup})
    assert status == 200, answer
    for s in (sa, sb):
        s.wait(lambda x: x["setups_in"]["white"], "white's setup in")
    status, answer = b.post("setup", {"setup": black_setup})
    assert status == 200, answer
    for s in (sa, sb):
        s.wait(lambda x: x["phase"] == "playing", "play")
    return {"white": a, "black": b}, {"white": sa, "black": sb}


def advance(seats: dict, streams: dict, rng, until, limit: int = 600):
    """Play random legal actions (no reveals) until ``until(state)`` holds for the mover's state;
    that state (the other side's stream at the same seq)."""
    seq = max(streams[s].last["seq"] for s in SIDES)
    for _ in range(limit):
        states = {s: streams[s].wait(lambda x, q=seq: x["seq"] >= q, f"{s} at seq {seq}") for s in SIDES}
        assert states["white"]["phase"] == "playing", "the game ended first"
        me = next(s for s in SIDES if states[s]["legal"] is not None)
        if until(states[me]):
            return states[me]
        status, done = seats[me].post("action", {"seq": seq, "action": rng.choice(states[me]["legal"])})
        assert status == 200, done
        seq = done["seq"]
    raise AssertionError("no such state was reached")
