"""Hidden information is sacred: a prober who asks every route, in two games that differ only in hidden identities.

The same game is played twice through the web API: once as planned, once with two
of one player's towers exchanged in the lineup (towers the rival never learns in
that game, with different pieces).  At several moments a prober asks everything
each audience may ask: the public (the status page, ``/api/state``, the layout,
the history, the live game's replay and record, the virtual board with no key or
a wrong one, error bodies) and the rival's seat (its page, its state, and every
POST it may send, legal or not: declarations, ``choose``, ``done``, setup, play
again, malformed bodies, a missing header).  Every live stream frame the public
and the rival receive is kept, and every log line written.  Everything the public
and the rival got must be the same bytes in both games: the answers, the number
of stream events and their order, the log.  Seat tokens and the host key are made
the same in both games (a seeded ``new_token``); the table runs on the test's
clock, so times are equal too.

Then the mover itself probes (at the last moment, when the game is played no
further): its own answers may differ (it knows its towers), but what the public
and the rival receive because of them must not.

The host's links are asked too (the host page, the virtual board with its key,
bodies it refuses), streams resumed with a Last-Event-ID, the board's LEDs (each
change of what they show: everyone at the table sees them), the store's log of
the rival's inputs and its black box.  Mid-action (towers in the hand, a flash or
a question under way) the public state, the waiting player's state and its
``choose`` of a mover's move are asked at every third tick.

Also probed: a game carried on the same seats by "play again" (the rival must
not learn the new lineup; the finished game before it is the same in both), the
"game could not be saved" state, a game against the practice opponent (its
choices and its plan on every screen do not depend on the person's hidden
towers), and the LEDs after a declared Power of Time with two Time towers.
Runs in about 45 s.
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
from pathlib import Path

import pytest

from engine.actions import Gravity, Move, Reflect, Reinforce, Resurrect, Swap, Time
from engine.board import BLACK, PLAYERS, RAYS, SPACE_NAMES, START_SPACES, WHITE, other
from engine.game import Game
from engine.pieces import PIECES, Setup, make_setup
from engine.randplay import random_setup
from engine.views import knows, view
from host.session.table import RETRY_SAVE
from host.compose import create_app
from host.web.errors import log as errors_log
from host.web.seats import HEADER as SEAT_HEADER
from host.web.sim import HEADER as BOARD_HEADER
from host.web.sim import board_key

from tests.support.webplay import Driver

N = SPACE_NAMES


class PromptDriver(Driver):
    """Answers the referee's question at the very tick it is asked (as test_stream_privacy's):
    the commit comes at the same moment as without one, so two runs compare byte for byte."""

    def play(self, action) -> None:
        self.playing = action
        super().play(action)

    midprobe = None  # called at every third tick: the prober asks mid-action too
    ticks = 0

    def ticked(self) -> None:
        self.ticks += 1
        if self.midprobe is not None and self.ticks % 3 == 0:
            self.midprobe()
        mover = self.table.game.to_move if self.table.game else None
        if mover is not None and self.table.opponent is not None and mover == self.table.opponent.side:
            return  # the practice opponent answers for itself
        question = self.table.ref.private_status(mover).get("question") if mover else None
        if question and question.get("options"):
            choice = self._same_as(self.playing, question["options"])
            if choice is not None:
                self.seat_post(mover, "input", {"type": "choose", "action": choice})


@pytest.fixture
def seeded_tokens(monkeypatch):
    """Tokens and the host key from a counter, restarted for each run: both runs get the same ones."""
    import host.clock
    import host.session.table

    counter = {"n": 0}

    def token() -> str:
        counter["n"] += 1
        return f"tok{counter['n']:02d}" + "x" * 24

    monkeypatch.setattr(host.session.table, "new_token", token)

    # the store stamps rows with the wall clock (host.clock.REAL unless given one): a fixed one here
    monkeypatch.setattr(host.clock.REAL, "wall", lambda: 1_800_000_000.0)
    return counter


class Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(f"{record.name} {record.levelname} {record.getMessage()}")


def bad_chooses(game: Game, player: str, rng: random.Random, n: int = 24) -> list[dict]:
    """``choose`` bodies aimed at the rival's towers and at empty spaces, which ``player``'s own
    knowledge says are not legal for them now (their own pieces decide a move's legality; what the
    referee says of them must not depend on the rival's)."""
    board = game.state.board
    mine = [s for s in range(len(N)) if board[s] >= 0 and game.owner[board[s]] == player]
    theirs = [s for s in range(len(N)) if board[s] >= 0 and game.owner[board[s]] != player]
    empty = [s for s in range(len(N)) if board[s] < 0]
    out: list = []
    for frm in mine:
        for to in theirs + rng.sample(empty, min(3, len(empty))):
            out.append(Move(frm, to))
    for frm in theirs:  # the rival's towers moved one to four spaces along each line: its moves
        for _, path, _ in RAYS[frm]:  # (legal or not by its hidden pieces) as if they were ours
            for to in path[:4]:
                if board[to] < 0:
                    out.append(Move(frm, to))
    for s in theirs[:4]:
        out.append(Time(s))
    for s in mine[:4]:
        out.append(Time(s))
    if theirs and mine:
        out.append(Swap(mine[0], theirs[0]))
        for s in theirs[:3]:  # Gravity pulling, Reflection carrying, the rival's towers
            out.append(Gravity(mine[0], ((s, empty[0]),)))
            out.append(Reflect(mine[0], s, empty[-1]))
    for piece in PIECES:  # Resurrections of every piece, onto an empty space
        out.append(Resurrect(piece, empty[len(empty) // 2]))
    rng.shuffle(out)
    illegal = [a for a in out if not game.is_legal(a)] if game.to_move == player else out
    if game.to_move == player:
        illegal = illegal[:n]
    bodies = [{"type": "choose", "action": a.to_record()} for a in illegal]
    bodies.append({"type": "choose", "action": {"type": "move", "from": "Q9", "to": "A1"}})
    bodies.append({"type": "choose", "action": {"type": "gravity"}})
    return bodies


def declarations(table, player: str) -> list[dict]:
    """Declarations the player may not make now, by what their own seat says (any, out of turn)."""
    allowed = table._declarations(player)
    bodies = []
    if not allowed or not allowed["time"]:
        bodies.append({"type": "time"})
    if not allowed or not allowed["swap"]:
        bodies.append({"type": "swap"})
    for piece in PIECES:
        if not allowed or [piece] not in allowed["reinforce"]:
            bodies.append({"type": "reinforce", "pieces": [piece]})
        if not allowed or piece not in allowed["resurrect"]:
            bodies.append({"type": "resurrect", "piece": piece})
    if table.game is None or table.game.to_move != player:
        bodies.append({"type": "done"})
    return bodies


class Run:
    """One game through the web API; ``seen[audience]``: every answer and frame that audience got."""

    def __init__(self, folder: Path, mode: str, first: str, setups: dict, actions: list, probe_at: set[int],
                 counter: dict, before: list | None = None, unsaved_at: int | None = None):
        """``before``: games (setups, actions) played to their end first, each followed by both
        seats' "play again": the compared game is then carried on the same seats."""
        counter["n"] = 0
        for f in errors_log.filters:  # its once-a-minute memory runs on the real clock: fresh for each run
            f.seen.clear()
        self.capture = Capture()
        logging.getLogger().addHandler(self.capture)
        old_level = logging.getLogger().level
        logging.getLogger().setLevel(logging.DEBUG)
        try:
            self._play(folder, mode, first, setups, actions, probe_at, before or [], unsaved_at)
        finally:
            logging.getLogger().removeHandler(self.capture)
            logging.getLogger().setLevel(old_level)

    def _play(self, folder, mode, first, setups, actions, probe_at, before, unsaved_at):
        app = create_app({"DATA_DIR": str(folder), "TICK": 0, "MANUAL_CLOCK": True, "MODE": mode,
                          "FIRST": before[0][0] if before else first})
        self.app = app
        self.table = table = app.extensions["quin.table"]
        self.client = app.test_client()
        driver = self._watch(table)
        for n, (_, earlier_setups, earlier_actions) in enumerate(before):
            driver.setup(earlier_setups[WHITE], earlier_setups[BLACK])
            for action in earlier_actions:
                driver.play(action)
            assert table.phase == "over", "an earlier game must end"
            self.probe(f"game {n + 1} over")
            for player in PLAYERS:
                token = table.tokens[player]
                self.ask(player, "again", "POST", f"/api/seat/{token}/again", {}, {SEAT_HEADER: token})
                self.probe(f"{player} asked to play again")
            assert table.phase == "setup" and table.row.first == first
        self.probe("before setup")
        # One lineup in before the other: the rival is asked then too.
        driver.seat_post(WHITE, "setup", setups[WHITE].to_record())
        self.probe("white's lineup in")
        driver.setup(setups[WHITE], setups[BLACK])
        self.probe("after setup")
        for i, action in enumerate(actions, 1):
            if i == unsaved_at:
                self.play_unsaved(action)
                continue
            driver.play(action)
            if i in probe_at:
                self.probe(f"after action {i}")
        self.log = [a for _, _, a in table.game.log]

    def _watch(self, table) -> PromptDriver:
        """Everything the run watches at ``table``: each audience's stream, the board's lights (public:
        every change of them), and the driver that plays and probes mid-action."""
        self.rng = random.Random(7)  # the prober's own choices: the same in both runs
        self.seen: dict[str, list] = {a: [] for a in ("public", "host", *PLAYERS)}
        self.frames: dict[str, list[bytes]] = {a: [] for a in ("public", *PLAYERS)}
        for audience, frames in self.frames.items():
            frames.append(table.broker.stream(audience).attach(frames.append, lambda: None))
        publish = table.broker.publish
        self.lights: list = []

        def lit(states, notices=None):
            # The board's LEDs are seen by everyone at the table: what they show is public.
            now = ("leds", "", "", "", 0, json.dumps(sorted((table.leds or {}).items())).encode())
            if self.lights[-1:] != [now]:  # what the board shows: each change of its lights
                self.lights.append(now)
                self.seen["public"].append(now)
            return publish(states, notices)

        table.broker.publish = lit
        self.driver = driver = PromptDriver(self.client, table)
        driver.midprobe = self.probe_mid
        return driver

    def play_unsaved(self, action) -> None:
        """The action decided while the store refuses to save it ("the game could not be saved"),
        probed then, and again once the store takes it."""
        table = self.table

        def refused(*args, **kwargs):
            raise sqlite3.OperationalError("attempt to write a readonly database")

        table.store.commit_action = refused
        self.driver.play(action)
        assert table.unsaved, "the store refused the action: the game must say it could not be saved"
        self.probe("unsaved")
        del table.store.commit_action
        self.driver.wait(RETRY_SAVE * 2)
        assert table.unsaved is None
        self.probe("saved again")

    # --- asking ---------------------------------------------------------------------------------

    def ask(self, audience: str, label: str, method: str, url: str, body=None, headers=None, raw=None) -> bytes:
        if method == "GET":
            r = self.client.get(url, headers=headers or {})
        else:
            kwargs = {"data": raw, "content_type": "application/json"} if raw is not None else {"json": body}
            r = self.client.post(url, headers=headers or {}, **kwargs)
        data = r.data
        self.seen[audience].append((label, method, url, json.dumps(body) if body is not None else raw,
                                    r.status_code, data))
        return data

    def probe(self, when: str) -> None:
        self.probe_public(when)
        self.probe_host(when)
        for player in PLAYERS:
            self.probe_seat(when, player)
        if self.table.ref is not None:
            # Words the prober said for a later turn are forgotten (the same in both runs), so the
            # game goes on as planned; what they caused has been compared.
            for player in self.table.phone_seats():  # (the practice opponent's own words stay)
                self.table.ref.words[player].clear()

    def probe_public(self, when: str) -> None:
        table = self.table
        gid = table.row.id
        for url in ("/", "/api/state", "/api/layout", "/history", "/api/games", f"/api/games/{gid}",
                    f"/history/{gid}", f"/api/games/{gid}/record", f"/api/games/{gid + 1}", "/board",
                    "/board/" + "0" * 32, "/api/board", "/api/seat/nobody/state", "/seat/nobody",
                    "/host/" + "0" * 20, "/no/such/page"):
            self.ask("public", when, "GET", url)
        self.ask("public", when, "POST", "/api/board/toggle", {"space": "E5"})
        self.ask("public", when, "POST", "/api/board/set", {"start": True}, {BOARD_HEADER: "0" * 32})
        self.ask("public", when, "POST", "/api/seat/nobody/input", {"type": "done"}, {SEAT_HEADER: "nobody"})
        self.ask("public", when, "POST", "/api/seat/nobody/again", {}, {SEAT_HEADER: "nobody"})
        self.ask("public", when, "POST", "/api/seat/nobody/resign", {}, {SEAT_HEADER: "nobody"})
        self.ask("public", when, "GET", "/api/now")

    def probe_mid(self) -> None:
        """Mid-action (towers in the hand, a flash or a question under way): the public state, and
        the player not to move asks its state and names a move of the mover's (always refused)."""
        game = self.table.game
        if game is None or game.is_over():
            return
        self.ask("public", "mid", "GET", "/api/state")
        waiting = other(game.to_move)
        token = self.table.tokens[waiting]
        self.ask(waiting, "mid", "GET", f"/api/seat/{token}/state")
        board = game.state.board
        theirs = [s for s in range(len(N)) if board[s] >= 0 and game.owner[board[s]] == game.to_move]
        for frm in theirs[:2]:
            for _, path, _ in RAYS[frm][:2]:
                if path and board[path[0]] < 0:
                    body = {"type": "choose", "action": Move(frm, path[0]).to_record()}
                    self.ask(waiting, "mid", "POST", f"/api/seat/{token}/input", body, {SEAT_HEADER: token})

    def probe_resume(self, when: str, audience: str) -> None:
        """A stream opened again with a Last-Event-ID (a phone waking up): the backlog it is sent."""
        broker = self.table.broker
        last = broker.last_id(audience)
        for since in ("0", "1", str(max(0, last - 3)), str(last), "junk", str(last + 5)):
            sub = broker.stream(audience, since)
            frames: list[bytes] = []
            frames.append(sub.attach(frames.append, lambda: None))
            sub.close()
            self.seen[audience].append((when, "RESUME", "/events", since, 200, b"".join(frames)))

    def probe_host(self, when: str) -> None:
        """What the host's links open: the host page (join codes) and the virtual board with its key,
        sent bodies it refuses (a move on the board would change the game)."""
        table = self.table
        key, bkey = table.host_key, board_key(table.host_key)
        self.ask("host", when, "GET", f"/host/{key}")
        self.ask("host", when, "GET", f"/board/{bkey}")
        self.ask("host", when, "GET", "/api/board")
        for body in ({"space": "Q9"}, {"space": 3}, {}):
            self.ask("host", when, "POST", "/api/board/toggle", body, {BOARD_HEADER: bkey})
        for body in ({"occupied": "E5"}, {"start": False}, {"occupied": ["E5"], "start": True}):
            self.ask("host", when, "POST", "/api/board/set", body, {BOARD_HEADER: bkey})
        self.ask("host", when, "POST", f"/api/host/{key}/new", {"mode": "chess"}, {"X-Host-Key": key})

    def probe_seat(self, when: str, player: str, full: bool = False) -> None:
        """What ``player``'s phone may ask.  Out of turn: everything.  Its turn: what its own seat
        says it may not do (so the game is not changed), unless ``full``."""
        table = self.table
        token = table.tokens[player]
        h = {SEAT_HEADER: token}
        self.ask(player, when, "GET", f"/seat/{token}")
        self.ask(player, when, "GET", f"/api/seat/{token}/state")
        self.ask(player, when, "GET", f"/api/games/{table.row.id}")
        base = f"/api/seat/{token}"
        self.ask(player, when, "POST", f"{base}/input", {"type": "done"})  # no header: refused
        self.ask(player, when, "POST", f"{base}/input", raw="{not json")
        self.ask(player, when, "POST", f"{base}/input", {"type": "whatever"}, h)
        self.ask(player, when, "POST", f"{base}/input", {"type": "time", "extra": 1}, h)
        self.ask(player, when, "POST", f"{base}/again", {}, h)
        self.ask(player, when, "POST", f"{base}/again", {"x": 1}, h)
        self.ask(player, when, "POST", f"{base}/resign", {"x": 1}, h)  # refused: a real one would end the game
        self.ask(player, when, "POST", f"{base}/resign", {})  # no header: refused
        if table.row.setups[player] is not None:
            self.ask(player, when, "POST", f"{base}/setup", table.row.setups[player], h)
        self.ask(player, when, "POST", f"{base}/setup", {"clone": "time"}, h)
        if table.game is None or table.game.is_over():
            return
        game = table.game
        bodies = declarations(table, player) + bad_chooses(game, player, self.rng)
        if full:
            bodies = [{"type": t} for t in ("time", "swap", "done")] + bodies
        for body in bodies:
            self.ask(player, when, "POST", f"{base}/input", body, h)

    def received(self, audience: str) -> list:
        frames = self.frames.get(audience, [])  # the host has no stream of its own
        return self.seen[audience] + [("frame", f) for f in frames[1:]] + [("opening", f) for f in frames[:1]]


def plan(seed: int, mode: str, first: str, length: int, clone: str | None = None) -> tuple[dict, list]:
    """Setups and a random game of ``length`` actions, favouring the actions with words (Time, swaps,
    Gravity, Reinforce, Resurrect) so the referee's questions and declarations are exercised."""
    rng = random.Random(seed)
    setups = {WHITE: random_setup(rng, WHITE), BLACK: random_setup(rng, BLACK)}
    if clone:
        for p in PLAYERS:
            s = setups[p]
            if s.clone != clone:
                while True:
                    t = random_setup(rng, p)
                    if t.clone == clone:
                        setups[p] = t
                        break
    game = Game(setups[WHITE], setups[BLACK], mode, False, first)
    actions = []
    for _ in range(length):
        if game.is_over():
            break
        legal = game.legal_actions()
        special = [a for a in legal if isinstance(a, (Time, Swap, Gravity, Reinforce, Resurrect))]
        action = rng.choice(special if special and rng.random() < 0.5 else legal)
        game.push(action)
        actions.append(action)
    return setups, actions


def permuted(setups: dict, player: str, a: int, b: int) -> dict[str, Setup]:
    out = dict(setups)
    s = setups[player]
    lineup = dict(s.lineup)
    lineup[a], lineup[b] = lineup[b], lineup[a]
    out[player] = make_setup(player, s.clone, s.removed, lineup)
    return out


def hidden_pairs(setups: dict, mode: str, first: str, actions: list, player: str) -> list[tuple[int, int]]:
    """Pairs of ``player``'s starting spaces, different pieces, whose exchange leaves every action
    legal and the rival's and the public's view the same at every step (so the rival may not tell)."""
    rival = other(player)
    base = Game(setups[WHITE], setups[BLACK], mode, False, first)
    start = {base.state.loc[t]: t for t in base.towers if base.owner[t] == player and base.state.loc[t] >= 0}
    seen = set()
    game = Game(setups[WHITE], setups[BLACK], mode, False, first)
    for a in actions:
        game.push(a)
        seen |= {t for t in start.values() if knows(game, rival, t)}
    hidden = sorted(s for s, t in start.items() if t not in seen)
    pairs = []
    for i, x in enumerate(hidden):
        for y in hidden[i + 1:]:
            if base.piece[start[x]] == base.piece[start[y]]:
                continue
            other_setups = permuted(setups, player, x, y)
            a, b = Game(setups[WHITE], setups[BLACK], mode, False, first), Game(
                other_setups[WHITE], other_setups[BLACK], mode, False, first)
            ok = True
            for action in actions:
                if not b.is_legal(action):
                    ok = False
                    break
                a.push(action)
                b.push(action)
                if view(a, rival) != view(b, rival) or view(a, None) != view(b, None):
                    ok = False
                    break
            if ok:
                pairs.append((x, y))
    return pairs


def differences(one: list, two: list) -> list[str]:
    out = []
    if len(one) != len(two):
        out.append(f"{len(one)} answers and frames vs {len(two)}")
    for a, b in zip(one, two):
        if a != b:
            out.append(f"{a[:5] if len(a) > 2 else a[0]}:\n  {a[-1][:600]!r}\n  {b[-1][:600]!r}")
            if len(out) > 4:
                break
    return out


def compare(tmp_path, counter, mode: str, seed: int, length: int, player: str, clone: str | None = None,
            first: str = WHITE, probe_every: int = 4, before: list | None = None,
            unsaved_at: int | None = None) -> int:
    setups, actions = plan(seed, mode, first, length, clone)
    pairs = hidden_pairs(setups, mode, first, actions, player)
    assert pairs, f"seed {seed}: no two of {player}'s towers stay hidden from the rival: nothing to compare"
    # A pair with a Time tower if there is one (several Time towers: which one is used stays the
    # mover's), else a Memory (its swaps ask questions), else one from the middle.
    lineup = dict(setups[player].lineup)
    x, y = next((xy for piece in ("time", "memory") for xy in pairs if piece in (lineup[xy[0]], lineup[xy[1]])),
                pairs[len(pairs) // 2])
    probe_at = set(range(probe_every, len(actions) + 1, probe_every)) | {len(actions)}
    runs = [Run(tmp_path / f"{mode}-{seed}-{player}-{i}", mode, first, s, actions, probe_at, counter, before, unsaved_at)
            for i, s in enumerate((setups, permuted(setups, player, x, y)))]
    assert len(runs[0].log) == len(actions)
    assert runs[0].log == runs[1].log, [(i, a, b) for i, (a, b) in enumerate(zip(runs[0].log, runs[1].log)) if a != b]
    # The mover probes last: its own answers may differ, what the others get must not.
    for run in runs:
        run.probe_seat("mover's probe", player, full=True)
        run.probe_seat("rival's last probe", other(player), full=True)
        run.probe_public("public's last probe")
        for audience in ("public", *PLAYERS):
            run.probe_resume("resumed", audience)
    # The replay of the game still being played has no chances picture (computed knowing every
    # tower, for finished games only) and no record to download.
    gid = runs[0].table.row.id
    for _, _, method, url, _, status, data in [("",) + item for item in runs[0].seen["public"]]:
        if url == f"/api/games/{gid}":
            assert b"white_chance" not in data and b"turning_points" not in data, data[:300]
        if url == f"/api/games/{gid}/record":
            assert status == 403, data
    compared = 0
    for audience in ("public", "host", other(player)):
        diff = differences(runs[0].received(audience), runs[1].received(audience))
        assert not diff, (f"{mode} seed {seed}: {player}'s towers on {N[x]} and {N[y]} exchanged; "
                          f"{audience} got different bytes:\n" + "\n".join(diff))
        compared += len(runs[0].received(audience))
    assert runs[0].capture.lines == runs[1].capture.lines, "the log differs"
    # What the store keeps of the rival's inputs (accepted or not) and the board's readings.
    rival = other(player)
    kept = [[i for i in run.table.store.inputs(run.table.row.id) if i["player"] == rival] for run in runs]
    assert kept[0] == kept[1], "the store's log of the rival's inputs differs"
    assert runs[0].table.store.blackbox(1000) == runs[1].table.store.blackbox(1000)
    return compared


@pytest.mark.parametrize("mode,seed,player,clone,unsaved_at", [
    ("classic", 1, WHITE, None, 7),
    ("classic", 7, BLACK, "time", None),  # Black uses a Time tower; the other stays hidden, exchanged
    ("third_eye", 3, WHITE, "time", 10),
    ("third_eye", 4, BLACK, "memory", None),
])
def test_every_route_answers_the_same_whatever_the_hidden_identities(tmp_path, seeded_tokens, mode, seed, player,
                                                                     clone, unsaved_at):
    compared = compare(tmp_path, seeded_tokens, mode, seed, 20, player, clone, probe_every=5, unsaved_at=unsaved_at)
    assert compared > 300  # the prober really asked


def test_a_game_carried_on_the_same_seats_tells_the_rival_nothing_of_the_new_lineup(tmp_path, seeded_tokens):
    """Game night: a finished game (the same in both runs, every identity shown at its end), both
    phones ask to play again, and the next game on the same seat tokens is the compared one."""
    first_setups, first_actions = plan(216, "classic", WHITE, 60)
    game = Game(first_setups[WHITE], first_setups[BLACK], "classic", False, WHITE)
    for action in first_actions:
        game.push(action)
    assert game.is_over()
    loser = other(game.result.winner) if game.result.winner else BLACK  # the loser moves first next
    before = [(WHITE, first_setups, first_actions)]
    compared = compare(tmp_path, seeded_tokens, "classic", 5, 12, WHITE, first=loser, before=before)
    assert compared > 300


def test_the_prober_catches_a_planted_leak(tmp_path, seeded_tokens, monkeypatch):
    """The comparison must be able to fail: the public state says how many legal actions the mover
    has (which depends on the mover's hidden pieces), and the prober sees it."""
    from host.session.table import Table

    state = Table.state

    def leaky(self, viewer=None):
        data = state(self, viewer)
        if self.game is not None and self.unsaved is None:
            data = dict(data, choices=len(self.game.legal_actions()))
        return data

    monkeypatch.setattr(Table, "state", leaky)
    with pytest.raises(AssertionError, match="got different bytes"):
        compare(tmp_path, seeded_tokens, "classic", 1, 8, WHITE, probe_every=4)


class OpponentRun(Run):
    """White at the table against the practice opponent (Black, level 1, seeded).  ``actions``: the
    person's actions to play (None: random ones, kept in ``human_actions``); the opponent decides
    its own, and the person moves its towers as the status page's plan says."""

    TURNS = 5  # the person's turns

    def _play(self, folder, mode, first, setups, actions, probe_at, before, unsaved_at):
        from host.opponent.driver import TableOpponent
        from host.board.simboard import SimulatedBoard
        from host.store import Store
        from host.session.table import Table
        from host.web.events import Broker

        board = SimulatedBoard()
        opponent = TableOpponent(BLACK, 1, seed=5, threaded=False, min_think=0)
        table = Table(Store(folder / "quin.sqlite3"), Broker(), board=board, clock=board.clock, wall=board.clock,
                      opponent=opponent)
        table.occupied = board.occupied
        table.open(mode, False, first)
        self.app = create_app({"TABLE": table, "DATA_DIR": str(folder), "TICK": 0})
        self.table = table
        self.client = self.app.test_client()
        driver = self._watch(table)
        self.probe("the opponent's lineup in")
        driver.seat_post(WHITE, "setup", setups[WHITE].to_record())
        self.setups = {p: Setup.from_record(p, table.row.setups[p]) for p in PLAYERS}
        game = table.game
        driver.shadow = Game(self.setups[WHITE], self.setups[BLACK], mode, False, first)
        driver.board(set(START_SPACES[WHITE]) | set(START_SPACES[BLACK]))
        driver.wait(0.5)
        self.probe("after setup")
        rng = random.Random(11)
        self.human_actions = []
        planned = list(actions) if actions is not None else None
        while not game.is_over() and len(self.human_actions) < self.TURNS:
            if game.to_move == BLACK:
                self.follow_plan()
                self.probe(f"the opponent played action {len(game.log)}")
            else:
                action = planned.pop(0) if planned is not None else rng.choice(game.legal_actions())
                driver.play(action)
                self.human_actions.append(action)
                self.probe(f"white played action {len(game.log)}")
        self.log = [a for _, _, a in game.log]

    def follow_plan(self) -> None:
        """Move the opponent's towers as the status page says (as tests/host/opponent/test_table.py's person)."""
        table, driver = self.table, self.driver
        plan = table.state(None)["opponent"]["plan"]
        n = len(table.game.log)
        occupied = set(table.board.occupied)
        lifted = {SPACE_NAMES.index(s) for s in plan["lift"]}
        if plan["do"] == "move" and SPACE_NAMES.index(plan["to"]) in occupied:
            lifted.add(SPACE_NAMES.index(plan["to"]))
        if lifted:
            driver.board(occupied - lifted)
            driver.wait(0.3)
        driver.board((occupied - lifted) | {SPACE_NAMES.index(s) for s in plan["place"]})
        driver.wait(0.3)
        for _ in range(8):
            if len(table.game.log) > n:
                break
            public = table.state(None)
            named = {SPACE_NAMES.index(ins[k]) for ins in public["referee"]["instructions"]
                     for k in ("from", "to", "space") if k in ins}
            occupied = set(table.board.occupied)
            if named & occupied:
                driver.board(occupied - named)
                driver.wait(0.3)
            driver.board({SPACE_NAMES.index(s) for s in public["board"]["expected"]})
            driver.wait(0.5)
        assert len(table.game.log) > n, f"the opponent's {plan} was not committed"
        shadow = driver.shadow
        while len(shadow.log) < len(table.game.log):
            shadow.push(table.game.log[len(shadow.log)][2])


@pytest.mark.parametrize("mode,seed", [("classic", 21), ("third_eye", 22)])
def test_the_practice_opponent_plays_and_shows_the_same_whatever_the_persons_hidden_towers(
        tmp_path, seeded_tokens, mode, seed):
    """Game night: the opponent's plan on every screen and on the LEDs, its choices and the table's
    answers do not depend on the person's towers it has not seen (the person's lineup permuted)."""
    human = random_setup(random.Random(seed), WHITE)
    first = OpponentRun(tmp_path / "a", mode, WHITE, {WHITE: human}, None, set(), seeded_tokens)
    setups = first.setups
    pairs = hidden_pairs(setups, mode, WHITE, first.log, WHITE)
    assert pairs, "no two of the person's towers stayed hidden: nothing to compare"
    x, y = pairs[len(pairs) // 2]
    second = OpponentRun(tmp_path / "b", mode, WHITE, {WHITE: permuted(setups, WHITE, x, y)[WHITE]},
                         first.human_actions, set(), seeded_tokens)
    assert second.log == first.log, "the opponent chose differently: it used the person's hidden towers"
    for audience in ("public", "host", BLACK):
        diff = differences(first.received(audience), second.received(audience))
        assert not diff, (f"{mode}: the person's towers on {N[x]} and {N[y]} exchanged; {audience} got "
                          "different bytes:\n" + "\n".join(diff))
    assert first.capture.lines == second.capture.lines
    assert any(b'"plan"' in frame for frame in first.frames["public"]), "the opponent's plan was never shown"
    assert any(b'"plan"' in item[-1] for item in first.seen["public"] if item[0] != "leds")


def test_the_boards_lights_say_nothing_of_which_tower_is_a_time_tower(tmp_path, seeded_tokens):
    """White holds two Time towers and declares the Power of Time, then lifts the tower on one of
    them: in one game it is a Time tower, in the other (lineup permuted) a Light.  The referee tells
    the public the same in both (docs/referee.md: whichever leaves is the one used; a tower that is no
    Time tower is told to the mover alone), so the LEDs everyone at the table sees must not differ
    either: the mover's own corrections ("put a tower on w39") stay on the mover's phone."""
    mode = "classic"
    setups, actions = plan(2, mode, WHITE, 20, "time")
    prefix = actions[:3]
    game = Game(setups[WHITE], setups[BLACK], mode, False, WHITE)
    for action in prefix:
        game.push(action)
    board = game.state.board
    times = [s for s in range(len(N)) if board[s] >= 0 and game.owner[board[s]] == WHITE and game.piece[board[s]] == "time"]
    assert game.to_move == WHITE and len(times) == 2 and sum(isinstance(a, Time) for a in game.legal_actions()) == 2
    lifted = times[0]
    ok = hidden_pairs(setups, mode, WHITE, prefix, WHITE)
    other_piece = next(y for x, y in ok if x == lifted and game.piece[board[y]] not in ("time",)) if any(
        x == lifted for x, _ in ok) else next(x for x, y in ok if y == lifted and game.piece[board[x]] != "time")
    seen = []
    for i, lineup in enumerate((setups, permuted(setups, WHITE, lifted, other_piece))):
        seeded_tokens["n"] = 0
        app = create_app({"DATA_DIR": str(tmp_path / str(i)), "TICK": 0, "MANUAL_CLOCK": True, "MODE": mode})
        table = app.extensions["quin.table"]
        frames: list[bytes] = []
        frames.append(table.broker.stream("public").attach(frames.append, lambda: None))
        lights = []
        publish = table.broker.publish

        def lit(states, notices=None, table=table, lights=lights):
            now = sorted((table.leds or {}).items())
            if not lights or lights[-1] != now:  # what the board shows: each change of its lights
                lights.append(now)
            return publish(states, notices)

        table.broker.publish = lit
        driver = PromptDriver(app.test_client(), table)
        driver.setup(lineup[WHITE], lineup[BLACK])
        for action in prefix:
            driver.play(action)
        driver.seat_post(WHITE, "input", {"type": "time"})
        driver.wait(0.5)
        driver.board(set(table.board.occupied) - {lifted})
        driver.wait(1.5)
        private = table.ref.private_status(WHITE)
        seen.append((lights, frames, table.state(None)["referee"], table.state(BLACK)["referee"],
                     private["instructions"]))
    (lights_a, frames_a, public_a, black_a, mine_a), (lights_b, frames_b, public_b, black_b, mine_b) = seen
    assert mine_a != mine_b and any(i.get("space") == N[lifted] for i in mine_b), "the mover is told to put it back"
    assert public_a == public_b and black_a == black_b and frames_a == frames_b
    assert lights_a == lights_b, f"the LEDs differ: {lights_a[-1]} vs {lights_b[-1]}"
