"""A remote game as people live it, judged from outside (issue 28, item 2): shared by
``bench/remote_soak.py`` and the suite's few games.

- a real hub (``quin hub serve``) on a throwaway PostgreSQL (tests/support/pg.py, hubproc.py);
- one simulated board running the board's service in remote mode, started as a person does
  (``quin serve --board sim --remote new --hub URL``), as a process of its own;
- the remote player, Bob, acting through the hub's HTTP API as the ``/play`` page does
  (tests/support/player.py: standard library only);
- the board's person, Ann, with the independent hands model (``host.simulate``, written without
  reading the referee): her own actions with her hands on the virtual board's sensors
  (``/api/board/set``) and her words on her phone (the seat's HTTP API); Bob's actions carried out
  on the board once the status page shows them as a plan, with the same timing and noise.

Nothing here imports the board side of remote play (``host/remote/``) or the referee
(``host/referee/``): the board is a process, read only through what its screens read (the public
and the seat's event streams, ``/api/state``), and the hub through its HTTP API and, at the end,
the game it logged in its database (``remote_log``).

The judge, per game: the hub's game equals the game intended (or leaves the same game at every
action, by the hands model's own oracle); no public screen showed an alarm nobody caused (the
hands make no mistake here, so any correction of the board is one: every state the status page
was sent is read); nothing stuck (the hands did what the board showed and the game did not go
on for ``STUCK`` seconds); no wrong commit (an action the hub holds that leaves another game).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from engine.actions import Move, Reflect, action_from_record  # noqa: E402
from engine.board import PLAYERS, SPACE_NAMES, other  # noqa: E402
from engine.errors import QuinError  # noqa: E402
from engine.game import EMPTY, Game  # noqa: E402
from engine.randplay import random_setup  # noqa: E402
from engine.record import to_record  # noqa: E402
from host.simulate import Hands  # noqa: E402
from host.simulate.oracle import canonical  # noqa: E402
from host.simulate.timing import PACES  # noqa: E402
from tests.support.player import RemotePlayer  # noqa: E402  (tests/support/player.py)

N = SPACE_NAMES
LAG = 0.005  # an event this late stretches the hands' clock (see _run)
DISTORT = 0.03  # a stretch of the hands' clock this large near a failure is said with it
GRACE = 0.5  # an instruction towards where an action begun this recently leads is no alarm
STUCK = 12.0  # seconds the game may stand still after the hands did what the board showed
PLAN_WAIT = 12.0  # ... and for a plan of Bob's to show, or for Bob's turn to come
# How long the board's person takes to start on a plan once the status page shows it, by pace
# (the hands model's own reaction to a phone's news: a brisk table does not wait).
PLAN_REACT = {"relaxed": (0.8, 1.6), "brisk": (0.2, 0.5), "hasty": (0.1, 0.3)}
BOB_THINK = {"relaxed": (0.8, 2.0), "brisk": (0.2, 0.6), "hasty": (0.1, 0.4)}

# What an alarm looks like on a public screen: corrections of the board (the referee's
# instructions while it syncs the board to the game), and the words of one.
ALARM_WORDS = re.compile(r"out of turn|put it back|differs from the game|knocked|not a legal|fits no", re.I)


# --- the game intended -----------------------------------------------------------------------


KIND_WEIGHTS = {"flash": 20.0, "move": 5.0, "swap": 1.0, "time": 1.5, "resurrect": 1.5, "reinforce": 1.0,
                "reflect": 1.0, "gravity": 1.5, "pass": 1.0}


def kind_of(game: Game, action) -> str:
    if type(action) in (Move, Reflect) and game.state.board[action.to] != EMPTY:
        return "flash"
    return type(action).__name__.lower()


def intended_game(seed: int, mode: str, max_actions: int, first: str) -> Game:
    """A seeded game of legal actions from the engine: each step picks a kind of action first
    (KIND_WEIGHTS among the kinds legal now: a flash nearly always when one is legal, the powers
    less, so a Classic game is not all Memory Swaps), then one of that kind.  Stops at the end
    or after ``max_actions``."""
    rng = random.Random(seed)
    game = Game(random_setup(rng, "white"), random_setup(rng, "black"), mode=mode, vision=False, first=first)
    for _ in range(max_actions):
        if game.is_over():
            break
        by_kind: dict[str, list] = {}
        for a in game.legal_actions():
            by_kind.setdefault(kind_of(game, a), []).append(a)
        kinds = sorted(by_kind)
        kind = rng.choices(kinds, [KIND_WEIGHTS.get(k, 1.0) for k in kinds])[0]
        game.push(rng.choice(by_kind[kind]))
    return game


def kinds_by_side(game: Game) -> dict:
    out: dict = {p: {} for p in PLAYERS}
    replay = Game(game.setups["white"], game.setups["black"], game.mode, game.vision, game.first)
    for _, player, action in game.log:
        kind = kind_of(replay, action)
        out[player][kind] = out[player].get(kind, 0) + 1
        replay.push(action)
    return out


# --- HTTP ------------------------------------------------------------------------------------


def call(base: str, method: str, path: str, body=None, headers=None, timeout: float = 15.0):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    head = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        head["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=data, headers=head)
        resp = conn.getresponse()
        raw = resp.read()
    finally:
        conn.close()
    try:
        return resp.status, json.loads(raw)
    except ValueError:
        return resp.status, raw


class EventStream:
    """A board's live stream (``/events``, or a seat's ``/events?seat=TOKEN``) read in a thread:
    ``events`` is every event with the monotonic time it arrived."""

    def __init__(self, base: str, path: str):
        self.base, self.path = base, path
        self.events: list[tuple[float, dict]] = []
        self.cond = threading.Condition()
        self._closed = False
        self._conn = None
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self._closed:
            u = urllib.parse.urlsplit(self.base)
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
            self._conn = conn
            try:
                conn.request("GET", self.path, headers={"Accept": "text/event-stream"})
                resp = conn.getresponse()
                data: list[str] = []
                while not self._closed:
                    line = resp.readline()
                    if not line:
                        break
                    text = line.decode().rstrip("\r\n")
                    if text.startswith("data:"):
                        data.append(text[5:].lstrip())
                    elif text == "" and data:
                        payload = json.loads("\n".join(data))
                        with self.cond:
                            self.events.append((time.monotonic(), payload))
                            self.cond.notify_all()
                        data = []
            except (OSError, http.client.HTTPException, ValueError):
                pass
            finally:
                conn.close()
            # a browser's EventSource waits a moment before it reconnects to the real hub: so does this
            time.sleep(0.05)

    def latest(self) -> dict | None:
        with self.cond:
            return self.events[-1][1].get("state") if self.events else None

    def wait(self, pred, timeout: float, since: float | None = None) -> dict | None:
        """The first state from now on (the newest included; with ``since``, every state that
        arrived since then) that ``pred`` holds for, or None."""
        end = time.monotonic() + timeout
        with self.cond:
            seen = max(len(self.events) - 1, 0)
            if since is not None:
                seen = next((i for i, (t, _) in enumerate(self.events) if t >= since), len(self.events))
            while True:
                for _, payload in self.events[seen:]:
                    state = payload.get("state")
                    if state is not None and pred(state):
                        return state
                seen = len(self.events)
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def close(self):
        self._closed = True
        if self._conn is not None and self._conn.sock is not None:
            import socket
            try:
                self._conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class BoardService:
    """``quin serve --board sim --remote new --hub URL`` in a process of its own, as a person
    starts it; its links read from what it prints."""

    def __init__(self, hub: str, side: str, mode: str, first: str, name: str = "Ann"):
        self.dir = tempfile.mkdtemp(prefix="quin-remote-hands-")
        # the board's referee journal (``quin serve --referee-journal``): every call made to its
        # referee with the board's times, kept for a game that is not right (``keep_trace``)
        self.journal = os.path.join(self.dir, "referee.journal")
        env = dict(os.environ, PYTHONPATH=str(ROOT), QUIN_MDNS="off")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "host.cli", "serve", "--board", "sim", "--host", "127.0.0.1", "--port", "0",
             "--data-dir", self.dir, "--remote", "new", "--hub", hub, "--side", side, "--mode", mode,
             "--first", first, "--name", name, "--no-mdns", "--no-qr", "--show-links",
             "--referee-journal", self.journal],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=str(ROOT))
        self.side = side
        # what this board's person gave it, as sent (monotonic seconds, the machine's clock the
        # board's own times are on): ("board", t, occupied names) and ("say", t, input)
        self.fed: list[tuple] = []
        self.log: list[str] = []
        self.base = self.code = self.board_key = self.seat = None
        self.public = self.phone = None
        self._conn = None  # the virtual board's kept-alive connection
        try:
            self._read_links()
        except BaseException:
            self.stop()  # never leave a service behind
            raise
        threading.Thread(target=self._drain, daemon=True).start()
        self.public = EventStream(self.base, "/events")
        self.phone = EventStream(self.base, f"/events?seat={self.seat}")

    def _read_links(self):
        side = self.side
        deadline = time.monotonic() + 60
        for line in self.proc.stdout:
            self.log.append(line)
            if m := re.search(r"status page:\s+(http://[\d.:]+)/", line):
                self.base = m.group(1)
            elif m := re.search(r"remote game:\s+(\S+) on", line):
                self.code = m.group(1).replace("-", "")
            elif m := re.search(r"virtual board:\s+http://[\d.:]+/board/(\S+)", line):
                self.board_key = m.group(1)
            elif m := re.search(rf"{side} seat:\s+http://[\d.:]+/seat/(\S+)", line):
                self.seat = m.group(1)
            if line.startswith("Stop with") or time.monotonic() > deadline:
                break
        if not (self.base and self.code and self.board_key and self.seat):
            raise RuntimeError("the board's service did not start: " + "".join(self.log)[-2000:])

    def _drain(self):
        for line in self.proc.stdout:
            self.log.append(line)

    def set(self, occupied) -> int:
        """The virtual board reads ``occupied`` now: one request on a kept-alive connection (a
        reading is sent again, whole, if the connection had closed)."""
        names = sorted(N[s] for s in occupied)
        self.fed.append(("board", time.monotonic(), names))
        body = json.dumps({"occupied": names}).encode()
        head = {"X-Board-Key": self.board_key, "Content-Type": "application/json"}
        for attempt in (0, 1):
            if self._conn is None:
                u = urllib.parse.urlsplit(self.base)
                self._conn = http.client.HTTPConnection(u.hostname, u.port, timeout=15)
            try:
                self._conn.request("POST", "/api/board/set", body=body, headers=head)
                resp = self._conn.getresponse()
                resp.read()
                return resp.status
            except (OSError, http.client.HTTPException):
                self._conn.close()
                self._conn = None
                if attempt:
                    raise
        return 0

    def say(self, data: dict):
        self.fed.append(("say", time.monotonic(), data))
        return call(self.base, "POST", f"/api/seat/{self.seat}/input", data, {"X-Seat-Token": self.seat})

    def setup(self, setup: dict):
        return call(self.base, "POST", f"/api/seat/{self.seat}/setup", setup, {"X-Seat-Token": self.seat})

    def stop(self, keep: Path | None = None):
        """Stop the service (``keep``: first copy its referee journal there, once it has stopped)."""
        if self._conn is not None:
            self._conn.close()
        for s in ("public", "phone"):
            stream = getattr(self, s, None)
            if stream is not None:
                stream.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if keep is not None and os.path.exists(self.journal):
            shutil.copyfile(self.journal, keep / "referee.journal")
        shutil.rmtree(self.dir, ignore_errors=True)


class Services:
    """A throwaway PostgreSQL cluster and one real hub on it, for a run of games."""

    def __init__(self, cluster=None):
        from tests.support.hubproc import HubProcess
        from tests.support.pg import Cluster

        self.own = cluster is None  # a cluster of its own, closed with it (else the caller's)
        self.cluster = cluster or Cluster()
        self.dsn = self.cluster.new_database(f"remote_hands_{os.getpid()}")
        self.hub = HubProcess(self.dsn, "--presence-renew", "0.5", "--presence-lapse", "2",
                              "--remote-rate", "1000", "--join-rate", "100")
        self.url = self.hub.url

    def logged_actions(self, code: str) -> list[dict]:
        """The actions the hub logged for the game under ``code`` (its first round), in order."""
        import psycopg

        with psycopg.connect(self.dsn) as conn:
            rows = conn.execute(
                "SELECT l.request FROM remote_log l JOIN remote_games g ON g.id = l.game_id "
                "WHERE g.code = %s AND l.kind = 'action' AND l.round = 1 ORDER BY l.seq", (code,)).fetchall()
        return [r[0]["action"] if isinstance(r[0], dict) and "action" in r[0] else r[0] for r in rows]

    def close(self):
        self.hub.stop()
        if self.own:
            self.cluster.close()


# --- the hands' schedule --------------------------------------------------------------------


def schedule_of(hands: Hands) -> list[tuple[float, str, object, int]]:
    """The hands' whole open-loop run as (t, "board", occupied, action index) and (t, "say",
    (player, data), action index), in time order: the board's reading after each instant's
    toggles, tagged with the highest action among them (-1: the setup)."""
    while hands.next_time() is not None:
        hands.step()
    out: list = []
    raw: set[int] = set()
    toggles = hands.toggles
    i = 0
    while i < len(toggles):
        t = toggles[i].t
        index = -1
        while i < len(toggles) and toggles[i].t == t:
            tg = toggles[i]
            (raw.add if tg.reading else raw.discard)(tg.space)
            index = max(index, tg.index)
            i += 1
        out.append((t, "board", frozenset(raw), index))
    for line, index in hands.machine.inputs:
        out.append((line.t, "say", (line.player, line.input), index))
    out.sort(key=lambda e: (e[0], e[1] == "say"))
    return out


# --- one game ----------------------------------------------------------------------------------


def alarm_of(state: dict, goals=None) -> str | None:
    """The alarm a public state shows, if any: the referee syncing the board to the game (its
    phase ``sync``), words of a correction, or (given ``goals``, the occupancies the game intended
    reaches by the actions the hands were carrying out) instructions towards any other board: they
    ask someone to undo what the hands did right.  Instructions during the setup, and the steps of
    an announced flash or Power of Time, are none."""
    ref = state.get("referee") or {}
    items = ref.get("instructions") or []
    texts = [ref.get("text") or ""] + [i.get("text") or "" for i in items]
    said = " | ".join(t for t in texts if t) or json.dumps(items)
    if ref.get("phase") == "sync" or any(ALARM_WORDS.search(t) for t in texts):
        return said
    announcing = ref.get("time") is not None or ref.get("flash") is not None  # its steps are no correction
    if goals is not None and items and ref.get("phase") == "play" and not announcing:
        expected = frozenset(ref.get("expected") or ())
        if expected not in goals:
            return said
    return None


def positions_of(game: Game) -> list[frozenset]:
    """The occupancy (space names) after each number of actions of ``game``, from its start."""
    replay = Game(game.setups["white"], game.setups["black"], game.mode, game.vision, game.first)
    out = [frozenset(N[s] for s in replay.occupied())]
    for _, _, action in game.log:
        replay.push(action)
        out.append(frozenset(N[s] for s in replay.occupied()))
    return out


def history_count(view: dict | None) -> int:
    return sum(len(t["actions"]) for t in (view or {}).get("history") or [])


def failing(result: dict) -> bool:
    """Is the game not right: stuck (or never started), a wrong commit, an alarm nobody caused, or
    the harness failing in it?"""
    return (result.get("status") != "done" or result.get("wrong") is not None or bool(result.get("false_alarms"))
            or "harness_error" in result)


def play(services: Services, seed: int, mode: str, pace: str, noise: str, local: str, max_actions: int = 30,
         keep: Path | str | None = None, drop: int | None = None) -> dict:
    """One remote game: Ann at the board plays ``local``, Bob from afar the other side.

    ``keep``: a folder; a game that is not right (:func:`failing`) leaves there, in
    ``seed-SEED/`` (``seed-SEED-2/``... if it is there already), what is needed to find its cause again (:func:`keep_trace`; ``result["trace"]``
    names the folder).  ``drop``: a fault of the harness's own (its tests): the hands never carry
    out the board's person's action of that index, so the game stands there."""
    rng = random.Random(seed * 7919 + 1)
    first = rng.choice(PLAYERS)
    played = intended_game(seed, mode, max_actions, first)
    remote = other(local)
    hands = Hands(played, seed, noise, pace, open_loop=True)
    plan = hands.plan
    schedule = schedule_of(hands)
    if drop is not None:
        schedule = [e for e in schedule if e[3] != drop]
    result: dict = {"seed": seed, "mode": mode, "pace": pace, "noise": noise, "local": local, "first": first,
                    "actions": len(played.log), "kinds": kinds_by_side(played), "status": None,
                    "false_alarms": [], "stuck": None, "wrong": None, "timing": None, "refused": [],
                    "questions": 0, "_timeline": [], "_stretched": [], "_late": []}
    began = time.monotonic()
    board = BoardService(services.url, local, mode, first)
    bob = RemotePlayer(services.url, "Bob")
    kept = None
    try:
        bob.join(board.code)
        bob.listen()
        assert board.setup(played.setups[local].to_record())[0] == 200
        assert bob.post("setup", {"setup": played.setups[remote].to_record()})[0] == 200
        ready = board.public.wait(lambda s: s.get("phase") == "playing" and (s.get("referee") or {}).get("phase")
                                  in ("setup", "play", "sync"), 30)
        if ready is None:
            result["status"] = "no_start"
            result["stuck"] = {"at": "setup", "public": board.public.latest()}
            return result
        _run(board, bob, hands, plan, schedule, local, pace, rng, result)
        # the end: the hub's game against the game intended
        # the hub's archive of the game is written after its last state is sent, with no event a client can wait on
        time.sleep(0.5)
        logged = services.logged_actions(board.code)
        _judge(played, logged, result)
        result["false_alarms"] = _alarms(board.public.events, result, positions_of(played))
        result["screens"] = _screens(board.public.events)
        result["_lag"] = board_lag(board)
        _near_stretch(result)
    except BaseException as exc:
        result.setdefault("harness_error", f"{type(exc).__name__}: {exc}")
        raise
    finally:
        _timing(result)
        if keep is not None and failing(result):
            kept = Path(keep) / f"seed-{seed}"
            n = 1
            while kept.exists():  # the same seed played again into the same folder: kept beside it
                n += 1
                kept = Path(keep) / f"seed-{seed}-{n}"
            try:
                keep_trace(kept, played, local, board, result, began)
                result["trace"] = str(kept)
            except Exception as exc:  # noqa: BLE001 - the game's result is said whatever its trace
                result["trace_error"] = f"{type(exc).__name__}: {exc}"
                kept = None
        for key in ("_timeline", "_stretched", "_late", "_bob", "_lag"):
            result.pop(key, None)
        bob.close()
        board.stop(keep=kept)
    return result


def keep_trace(folder: Path, played: Game, local: str, board, result: dict, began: float) -> None:
    """What is needed to find a failing game's cause again, in ``folder`` (``docs/remote-play.md``,
    "When a game is not right"):

    - ``board.trace``: ``quin-trace/1`` (host/board/trace.py) of what the board was fed: every
      reading of the virtual board the hands sent, the board's person's words, and the remote
      player's actions as his ``choose`` words when he sent them, with the game intended's lineups
      (so ``quin referee --trace`` referees it as at one table); ``t`` from ``began``;
    - ``referee.journal`` (copied once the service stopped): every call the board's service made
      to its referee, with its own times (``bench/remote_replay.py`` referees it again exactly);
    - ``notices.jsonl``: every state the status page and the person's phone were sent, with when
      it came (``"t"`` from ``began``, ``"screen"``: ``public`` or ``phone``);
    - ``game.json``: the result line, the game intended (a record), the harness's timeline and
      ``began`` (the machine's monotonic clock, which the journal's times are on);
    - ``board.log``: what the board's service printed.
    """
    folder.mkdir(parents=True, exist_ok=True)
    header = {"format": "quin-trace/1", "mode": played.mode, "vision": played.vision, "first": played.first,
              "setup": {p: played.setups[p].to_record() for p in PLAYERS}}
    events = []
    for kind, t, data in board.fed:
        if kind == "board":
            events.append((t, 0, {"occupied": data}))
        else:
            events.append((t, 1, {"player": local, "input": data}))
    for t, index, record in result.get("_bob") or []:
        events.append((t, 1, {"player": other(local), "input": {"type": "choose", "action": record}}))
    events.sort(key=lambda e: (e[0], e[1]))
    with open(folder / "board.trace", "w", encoding="utf-8") as fp:
        fp.write(json.dumps(header, separators=(",", ":")) + "\n")
        for t, _, event in events:
            fp.write(json.dumps({"t": round(max(0.0, t - began), 6), **event}, separators=(",", ":")) + "\n")
    with open(folder / "notices.jsonl", "w", encoding="utf-8") as fp:
        for screen, stream in (("public", board.public), ("phone", board.phone)):
            if stream is None:
                continue
            with stream.cond:
                got = list(stream.events)
            for t, payload in got:
                fp.write(json.dumps({"t": round(t - began, 6), "screen": screen, "event": payload},
                                    separators=(",", ":")) + "\n")
    public = {k: v for k, v in result.items() if not k.startswith("_")}
    timeline = [[round(t - began, 6), i, k] for t, i, k in result.get("_timeline") or []]
    with open(folder / "game.json", "w", encoding="utf-8") as fp:
        json.dump({"result": public, "intended": to_record(played), "local": local, "began": began,
                   "timeline": timeline}, fp, indent=1, default=str)
    (folder / "board.log").write_text("".join(board.log), encoding="utf-8")


def _run(board, bob, hands, plan, schedule, local, pace, rng, result):
    """Replay the hands' schedule on the real clock, waiting where a person waits: for Bob's
    move to show as a plan before carrying it out; answering the phone's questions."""
    shift = 0.0
    t0 = time.monotonic() + 0.5
    gated: set[int] = set()
    shown_on_board = {e[3] for e in schedule}  # the actions the hands do something for
    posted: dict[int, float] = {}
    asked: set = set()
    late: list[float] = result["_late"]

    def attend() -> None:
        _answer_questions(board, bob, local, plan, asked, result)

    started = False
    for t, kind, payload, index in schedule:
        if kind == "say" and payload[0] != local:
            continue  # Bob's words are his POSTs
        if index >= 0 and not started:
            # the board said the lineups stand: play begins (a person waits for that)
            ok = board.public.wait(lambda s: (s.get("referee") or {}).get("phase") in ("play", "follow", "over"),
                                   PLAN_WAIT)
            started = True
            if ok is None:
                _stuck(result, -1, "the board to say the lineups stand", board, bob, plan)
                return
            shift = max(shift, time.monotonic() - (t0 + t))
        if index >= 0:
            # Bob's actions the board shows nothing of (a pass): he plays them when his turn comes
            for j in range(index):
                if plan[j].player != local and j not in posted and j not in shown_on_board:
                    if _bob_plays(bob, plan, j, posted, pace, rng, result, board, attend) is None:
                        return
        if index >= 0 and plan[index].player != local and index not in gated:
            # Bob's action: he plays it once his turn shows on his page, then the board shows it
            sent = _bob_plays(bob, plan, index, posted, pace, rng, result, board, attend)
            if sent is None:
                return
            shown, end = None, time.monotonic() + PLAN_WAIT
            while shown is None and time.monotonic() < end:
                attend()
                shown = board.public.wait(_plan_shown, 0.05, since=sent)
            if shown is None:
                _stuck(result, index, "Bob's plan on the board", board, bob, plan)
                return
            gated.add(index)
            react = rng.uniform(*PLAN_REACT[pace])
            shift = max(shift, time.monotonic() + react - (t0 + t))
        due = t0 + t + shift
        while True:
            now = time.monotonic()
            attend()
            if now >= due:
                break
            # the schedule's hands act at set moments of the machine's time (the referee and hub are real)
            time.sleep(min(0.005, due - now))
        lag = time.monotonic() - due
        late.append(lag)
        if lag > LAG:
            # behind the hands' clock (this process or the board's server did not get the CPU in
            # time): the clock stretches, so no interval the hands keep (a hold, a dwell, a
            # bounce's end) is ever shortened; a stretched one is counted, and said near a failure
            shift += lag
            result["_stretched"].append((time.monotonic(), lag))
        result["_timeline"].append((time.monotonic(), index, kind))
        if kind == "board":
            board.set(payload)
        else:
            status, ans = board.say(payload[1])
            if status != 200:
                result["refused"].append({"index": index, "input": payload[1], "reason": ans})
    result["_late"] = late
    _finish(board, bob, plan, local, pace, rng, posted, attend, result)


def _timing(result: dict) -> None:
    late = sorted(result.get("_late") or [])
    if late:
        stretched = result["_stretched"]
        result["timing"] = {"events": len(late), "late_p50_ms": round(1000 * late[len(late) // 2], 1),
                            "late_p99_ms": round(1000 * late[int(len(late) * 0.99)], 1),
                            "stretched": len(stretched),
                            "stretched_over_20ms": sum(1 for _, d in stretched if d > 0.02),
                            "stretched_max_ms": round(1000 * max((d for _, d in stretched), default=0.0), 1)}
        lag = sorted(d for _, d in result.get("_lag") or [])
        if lag:
            result["timing"].update(board_lag_p50_ms=round(1000 * lag[len(lag) // 2], 1),
                                    board_lag_p99_ms=round(1000 * lag[int(len(lag) * 0.99)], 1),
                                    board_lag_max_ms=round(1000 * lag[-1], 1))


def _finish(board, bob, plan, local, pace, rng, posted, attend, result) -> None:
    """The last action is Ann's (or Bob's, carried out): the hub has every action within STUCK."""
    n = len(plan)
    for j in range(n):  # Bob's last actions, if the board shows nothing of them
        if plan[j].player != local and j not in posted:
            if _bob_plays(bob, plan, j, posted, pace, rng, result, board, attend) is None:
                return
    end = time.monotonic() + STUCK
    while time.monotonic() < end and hub_count(bob) < n:
        attend()
        # the board's hands are attended between looks at the real hub (no event spans both)
        time.sleep(0.02)
    if hub_count(bob) < n:
        _stuck(result, hub_count(bob), "the board to send the last action", board, bob, plan)
    else:
        result["status"] = "done"


def hub_count(bob) -> int:
    """Actions in the hub's game, as Bob's page last heard."""
    with bob.cond:
        return history_count(bob.states[-1].get("view")) if bob.states else 0


def _bob_plays(bob, plan, index, posted, pace, rng, result, board, attend) -> float | None:
    """Bob plays action ``index`` once his page shows his turn: when he sent it (None: never).
    Meanwhile Ann answers her phone (``attend``): the board may be asking her."""
    if index in posted:
        return posted[index]
    state = None
    end = time.monotonic() + PLAN_WAIT
    while time.monotonic() < end:
        attend()
        with bob.cond:
            bob.cond.wait_for(lambda: bob.states and history_count(bob.states[-1].get("view")) >= index
                              and bob.states[-1].get("legal") is not None, min(0.05, max(0.0, end - time.monotonic())))
            state = bob.states[-1] if bob.states else None
        if state and history_count(state.get("view")) == index and state.get("legal") is not None:
            break
        state = None
    if state is None:
        _stuck(result, index, "Bob's turn at the hub (the board did not send Ann's action)", board, bob, plan)
        return None
    # Bob's thinking time on the real hub: the pace under test
    time.sleep(rng.uniform(*BOB_THINK[pace]))
    sent = time.monotonic()
    status, ans = bob.post("action", {"seq": state["seq"], "action": plan[index].action.to_record()})
    if status != 200:
        _stuck(result, index, f"the hub refused Bob's action: {status} {ans}", board, bob, plan)
        return None
    posted[index] = sent
    result.setdefault("_bob", []).append((sent, index, plan[index].action.to_record()))
    result["_timeline"].append((sent, index, "bob"))  # Bob began it: the board may show it from now
    return sent


def _plan_shown(state: dict) -> bool:
    ref = state.get("referee") or {}
    return ref.get("phase") == "follow" or (state.get("opponent") or {}).get("plan") is not None


def _answer_questions(board, bob, local, plan, asked, result) -> int:
    """A question on Ann's phone: she taps the option that is what she played, or `done` to a
    "did you swap?" she did not make.  Each question once."""
    state = board.phone.latest()
    if not state:
        return 0
    private = (state.get("seat") or {}).get("private") or {}
    q = private.get("question")
    options = (q or {}).get("options") or []
    if not options:
        return 0
    key = json.dumps(options, sort_keys=True)
    if key in asked:
        return 0
    asked.add(key)
    # the action asked about: the first of Ann's the hub does not have yet
    k = hub_count(bob)
    while k < len(plan) and plan[k].player != local:
        k += 1
    if k >= len(plan):
        result.setdefault("unanswered", []).append({"options": options})
        return 0
    want = plan[k].action.to_record()
    answer = {"type": "choose", "action": want} if want in options else None
    if answer is None and all(o.get("type") == "swap" for o in options) and want.get("type") != "swap":
        answer = {"type": "done"}
    if answer is None:
        result.setdefault("unanswered", []).append({"index": k, "options": options})
        return 0
    board.say(answer)
    result.setdefault("asked", []).append({"index": k, "options": options, "answer": answer})
    result["questions"] += 1
    return 1


def _brief(state: dict | None) -> dict | None:
    if not state:
        return None
    ref = state.get("referee") or {}
    board = state.get("board") or {}
    return {"referee": {k: ref.get(k) for k in ("phase", "text", "instructions") if k in ref},
            "opponent": state.get("opponent"), "remote": state.get("remote"),
            "board": {k: board.get(k) for k in ("lift", "place")}}


def _stuck(result: dict, at: int, waiting: str, board, bob, plan) -> None:
    """Why the game stands still: what the hub has, the actions around, what every screen says."""
    have = hub_count(bob)
    phone = board.phone.latest() or {}
    result["status"] = "stuck"
    result["stuck"] = {"at": at, "hub_has": have, "waiting": waiting,
                       "actions": {i: f"{plan[i].player} {plan[i].action.to_record()}"
                                   for i in range(max(0, have - 1), min(len(plan), have + 2))},
                       "public": _brief(board.public.latest()),
                       "phone": (phone.get("seat") or {}).get("private")}


def _alarms(events, result, positions) -> list[dict]:
    """Every alarm the status page was sent, once per stretch it stood, with what the hands had
    just done (the action their last event belonged to, and how long before).  A board the
    referee asks for is no alarm when it is where an action leads that the hands (or Bob) are
    carrying out or were at in the last GRACE seconds (a plan's steps shown again while its last
    placement settles): ``positions[j]`` is the occupancy after j actions."""
    out = []
    timeline = result.get("_timeline") or []
    begun: dict[int, float] = {}
    ended: dict[int, float] = {}
    for tt, index, _ in timeline:
        begun.setdefault(index, tt)
        ended[index] = tt
    t_first = timeline[0][0] if timeline else (events[0][0] if events else 0.0)
    shown = None
    for t, payload in events:
        state = payload.get("state")
        if not state:
            continue
        now = max((i for i, tt in begun.items() if tt <= t), default=-1)
        recent = [i for i, tt in begun.items() if tt <= t and ended[i] >= t - GRACE] + [now]
        goals = {positions[j + 1] for j in recent if 0 <= j + 1 < len(positions)} | (
            {positions[0]} if now < 0 else set())
        text = alarm_of(state, goals)
        if text is not None and text != shown:
            last = next(((tt, i, k) for tt, i, k in reversed(timeline) if tt <= t), None)
            out.append({"t": round(t - t_first, 3), "text": text[:300],
                        "hands_last": None if last is None else {"action": last[1], "kind": last[2],
                                                                 "ago": round(t - last[0], 3)},
                        "opponent": ((state.get("opponent") or {}).get("text") or "")[:200]})
        shown = text
    return out


def board_lag(board) -> list[tuple[float, float]]:
    """(when the hands sent a reading, how much later the board's referee was fed it), from the
    board's referee journal (its ``feed`` lines carry the board's own times, on the machine's
    monotonic clock as the harness's are): a loaded machine delays the board's server too, which
    stretches a bounce the hands kept short into one the board reads as long (seed 9207's wrong
    commit under load: a 33 ms bump read as 78 ms).  Read as a file: nothing of the board is imported."""
    sends = [(t, names) for kind, t, names in board.fed if kind == "board"]
    feeds = []
    try:
        with open(board.journal, encoding="utf-8") as fp:
            for line in fp:
                if '"c":"feed"' in line:
                    try:
                        e = json.loads(line)
                    except ValueError:
                        continue
                    feeds.append((e["t"], e["occupied"]))
    except OSError:
        return []
    out, i = [], 0
    for t_feed, occupied in feeds:
        j = i
        while j < len(sends) and sends[j][0] <= t_feed + 0.001 and sends[j][1] != occupied:
            j += 1
        if j < len(sends) and sends[j][0] <= t_feed + 0.001:
            out.append((sends[j][0], max(0.0, t_feed - sends[j][0])))
            i = j + 1
    return out


def _near_stretch(result: dict) -> None:
    """Says of each failure whether the hands' clock stretched by more than DISTORT near it (the
    harness's timing, not the board's, may then be to blame: a slide's 30 ms dwell sent 300 ms
    late reads as a tower put down): ``near_stretch_ms``, the most it stretched there."""
    stretched = result.get("_stretched") or []
    timeline = result.get("_timeline") or []
    t_first = timeline[0][0] if timeline else 0.0

    def most(lo: float, hi: float) -> float:
        return round(1000 * max((d for ts, d in stretched if lo <= ts <= hi), default=0.0), 1)

    def window(index: int):
        times = [tt for tt, i, _ in timeline if i == index]
        return (min(times) - 0.5, max(times) + 0.5) if times else None

    lag = result.get("_lag") or []

    def lagged(lo: float, hi: float) -> float:
        return round(1000 * max((d for ts, d in lag if lo <= ts <= hi), default=0.0), 1)

    for alarm in result.get("false_alarms") or []:
        t = t_first + alarm["t"]
        alarm["near_stretch_ms"] = most(t - 1.0, t)
        alarm["near_board_lag_ms"] = lagged(t - 1.0, t)
    for key, at in (("wrong", "index"), ("stuck", "hub_has")):
        failure = result.get(key)
        if isinstance(failure, dict) and isinstance(failure.get(at), int):
            w = window(failure[at])
            failure["near_stretch_ms"] = most(*w) if w else 0.0
            failure["near_board_lag_ms"] = lagged(*w) if w else 0.0
    flagged = [max(a["near_stretch_ms"], a["near_board_lag_ms"]) for a in result.get("false_alarms") or []] + [
        max((result.get(k) or {}).get("near_stretch_ms", 0.0), (result.get(k) or {}).get("near_board_lag_ms", 0.0))
        for k in ("wrong", "stuck") if result.get(k)]
    # every failure with the clock kept: the hands' (stretched) and the board's (its readings late)
    result["clean"] = all(v <= 1000 * DISTORT for v in flagged)


def _screens(events) -> list[str]:
    """The distinct things the status page said (the referee's text, the rival seat's line), in the
    order first seen, spaces written as X: what the story on the board side looked like."""
    seen: dict[str, None] = {}
    for _, payload in events:
        state = payload.get("state") or {}
        ref = state.get("referee") or {}
        for text in (ref.get("text"), (state.get("opponent") or {}).get("text")):
            if text:
                seen.setdefault(re.sub(r"\b(?:[wb]\d\d|h[we]\d|[wb]i|fs)\b", "X", text)[:160], None)
    return list(seen)


def _judge(played: Game, logged: list[dict], result: dict) -> None:
    """The hub's game against the game intended: exact, the same game, or the first wrong commit."""
    intended = [a.to_record() for _, _, a in played.log]
    result["hub_actions"] = len(logged)
    if logged == intended:
        result["exact"] = True
        return
    result["exact"] = False
    game = Game(played.setups["white"], played.setups["black"], played.mode, played.vision, played.first)
    ref = Game(played.setups["white"], played.setups["black"], played.mode, played.vision, played.first)
    for i, rec in enumerate(logged):
        if i >= len(intended):
            result["wrong"] = {"index": i, "extra": rec}
            return
        try:
            ref.push(action_from_record(rec))
        except QuinError as exc:
            result["wrong"] = {"index": i, "logged": rec, "intended": intended[i], "why": str(exc)}
            return
        game.push(action_from_record(intended[i]))
        if canonical(ref) != canonical(game):
            result["wrong"] = {"index": i, "logged": rec, "intended": intended[i]}
            return
    result["same_game"] = len(logged) == len(intended)


__all__ = ["Services", "BoardService", "play", "intended_game", "alarm_of", "PACES", "to_record"]
