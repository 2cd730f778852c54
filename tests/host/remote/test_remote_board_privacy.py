"""Hidden information at the board side of a remote game: the same game played twice, the remote
player's unrevealed identities permuted, leaves everything this board's Pi receives (the stream's
bytes), stores (its SQLite dump and the link's file), logs and serves (the status page's and the
local seat's states, the public and seat streams) byte-identical.

What differs between two runs for reasons that are not identities is masked, and only that: the
hub's address (its port), the game's code, the seat tokens and the game's UUID (random), clock readings (floats: times of rows, snapshots,
commits), and the stream's keep-alive comments (sent by the clock)."""

import json
import logging
import os
import random
import re
import sqlite3
import time

from tests.support.player import RemotePlayer
from tests.support.realhub import RealHub
from tests.support.remote_board import Board, count, heard

from engine.actions import action_from_record
from engine.game import Game
from engine.pieces import Setup
from engine.randplay import random_setup

ROUNDS = 5


def permuted(setup: Setup) -> Setup:
    """The same lineup with two towers of different pieces swapped (both stay unrevealed)."""
    record = setup.to_record()
    lineup = record["lineup"]
    spaces = sorted(lineup)
    a = spaces[0]
    b = next(s for s in spaces if lineup[s] != lineup[a])
    lineup[a], lineup[b] = lineup[b], lineup[a]
    return Setup.from_record(setup.player, record)


def script(white: Setup, blacks: list[Setup]) -> list[dict]:
    """ROUNDS rounds of plain moves (onto empty spaces, no flash) legal whatever Black's lineup is."""
    games = [Game(white, b) for b in blacks]
    out = []
    for _ in range(2 * ROUNDS):
        g0 = games[0]
        occupied = {s for s in g0.occupied()}
        common = None
        for g in games:
            recs = {json.dumps(a.to_record(), sort_keys=True) for a in g.legal_actions()
                    if type(a).__name__ == "Move" and a.to not in occupied}
            common = recs if common is None else common & recs
        choice = json.loads(sorted(common)[0])
        for g in games:
            g.push(action_from_record(choice))
        out.append(choice)
    return out


def mask(text: str, secrets: list[str]) -> str:
    for s in secrets:
        if s:
            text = text.replace(s, "<secret>")
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", text)
    text = re.sub(r"\d+\.\d+(e[-+]?\d+)?", "<float>", text)
    return text


def play(tmp_path, hub_url, black: Setup, moves: list[dict], caplog) -> dict:
    caplog.clear()
    ann = Board(tmp_path, hub_url, side="white")
    frames = {"public": [], "white": []}
    subs = []
    states = []
    bob = RemotePlayer(hub_url)
    try:
        bob.join(ann.seat.link.code)
        bob.listen()
        # one thing at a time, in the same order in both runs (which lineup reaches the hub first
        # is otherwise a race, and shows in the states)
        _record_once_present(ann, frames, subs)
        ann.set_up(11)
        ann.until(lambda: ann.seat.link.state["setups_in"]["white"], what="Ann's lineup at the hub")
        bob.post("setup", {"setup": black.to_record()})
        ann.until(lambda: ann.table.phase == "playing" and ann.table.ref is not None, what="the game to start")
        ann.place_start()
        ann.until(lambda: ann.table.ref.phase == "play", what="the board set")
        for i in range(0, len(moves), 2):
            a, b = moves[i], moves[i + 1]
            ann.move(a["from"], a["to"])
            bs = ann.until(lambda: heard(bob, lambda s: s["legal"] is not None and count(s["view"]) == i + 1),
                           what="Black's turn")
            assert bob.post("action", {"seq": bs["seq"], "action": b})[0] == 200
            ann.until(lambda: (ann.state()["opponent"] or {}).get("plan") is not None, what="the plan")
            states.append((ann.state(), ann.state("white")))
            ann.move(b["from"], b["to"])
            ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == "white"
                     and ann.state()["opponent"].get("plan") is None, what="the plan carried out")
            ann.pause(0.3)  # the board settles (the same in both runs)
            states.append((ann.state(), ann.state("white")))
        link = ann.seat.link
        secret = [link.hub, link.code, link.shown, link._token, ann.table.host_key, *ann.table.tokens.values()]
        # the recording ends with the game played: whether the hub's "Bob's browser is away" reaches
        # the board before it stops is a race of the teardown (bob.close, then ann.stop), not the game
        link.record_raw = False
        for sub in subs:
            sub.close()
    finally:
        bob.close()
        for sub in subs:
            sub.close()
        ann.stop()
    return what_the_board_holds(tmp_path, link, states, frames, secret, caplog)


def what_the_board_holds(folder, link, states, frames, secret, caplog) -> dict:
    """Everything this board received (its link's stream), stored (SQLite and remote.json), logged
    and served (its states and streams) in a run, with the run's randomness and clocks masked."""
    dump = "\n".join(sqlite3.connect(folder / "quin.sqlite3").iterdump())
    linkfile = (folder / "remote.json").read_text()
    logs = "\n".join(f"{r.name} {r.levelname} {r.getMessage()}" for r in caplog.records
                     if r.name.startswith("quin"))

    def relative(items):
        """Event ids counted from the first one recorded: how many events came before the recording
        began (presence changes while both sides join, as many as the clock makes) is no part of
        the game; the count and order of those recorded are."""
        ids = [int(m) for x in items for m in re.findall(r"^id: (\d+)$", x, re.M)]
        if not ids:
            return items
        return [re.sub(r"^id: (\d+)$", lambda m: f"id: +{int(m.group(1)) - ids[0]}", x, flags=re.M) for x in items]

    def dedup(items):
        out = []
        for x in items:
            if not out or out[-1] != x:
                out.append(x)
        return out

    return {
        # keep-alive comments come with the clock, not the game: left out
        "received": mask("\n\n".join(block for block in b"".join(link.raw).decode().split("\n\n")
                                      if not block.startswith(":")), secret),
        "stored": mask(dump, secret),
        "link file": mask(linkfile, secret),
        "logs": mask(logs, secret),
        "served": mask(json.dumps(states, sort_keys=True), secret),
        "public stream": mask(json.dumps(dedup(relative([f.decode() for f in frames["public"]]))), secret),
        "seat stream": mask(json.dumps(dedup(relative([f.decode() for f in frames["white"]]))), secret),
    }


def two_runs(tmp_path, cluster, setups, run) -> list[dict]:
    """``run(folder, hub url, black's setup)`` once per Black lineup, each on a fresh real hub;
    every part of what the board holds compared between them."""
    runs = []
    for i, setup in enumerate(setups):
        hub = RealHub(cluster)
        try:
            folder = tmp_path / f"run{i}"
            folder.mkdir()
            runs.append(run(folder, hub.url, setup))
        finally:
            hub.close()
    if os.environ.get("QUIN_DEBUG_DUMP"):  # both runs kept, to compare by hand
        (tmp_path.parent / "runs.json").write_text(json.dumps(runs))
    for what in runs[0]:
        assert runs[0][what] == runs[1][what], f"{what} differs when the rival's unrevealed identities are permuted"
    return runs


def _record_once_present(ann, frames, subs):
    """Once both sides are present at the hub, record what the board's audiences are sent from here on."""
    ann.until(lambda: ann.seat.link.state is not None and ann.seat.link.paused() is None, what="both present")
    # the hub's presence states come on its own real clock: a settled moment before recording, the same
    # in both runs (before it, how many states say who is present yet comes with the machine's load)
    time.sleep(0.5)
    ann.seat.link.record_raw = True
    for audience in frames:
        sub = ann.service.broker.stream(audience)
        frames[audience].append(sub.attach(frames[audience].append, lambda: None))
        subs.append(sub)


def test_permuted_rival_identities_leave_the_board_side_byte_identical(tmp_path, cluster, caplog):
    caplog.set_level(logging.INFO)
    white = random_setup(random.Random(11), "white")
    black = random_setup(random.Random(12), "black")
    other = permuted(black)
    assert other.to_record() != black.to_record()
    moves = script(white, [black, other])
    runs = two_runs(tmp_path, cluster, (black, other), lambda folder, url, setup: play(folder, url, setup, moves, caplog))
    # and the runs saw the game: the rival's moves reached the board as plans
    assert runs[0]["served"].count("playing from afar: move Black") >= ROUNDS


# --- with reveals ---------------------------------------------------------------------------------

REVEAL_ROUNDS = 8


def script_with_reveals(white: Setup, blacks: list[Setup], seed: int) -> list[dict]:
    """REVEAL_ROUNDS rounds of moves, among them flashes by both sides, chosen at random (seeded) among
    the moves legal with every Black lineup after which White's view (and the public's) is the same
    whatever the lineup: so the towers the lineups differ in stay unrevealed, and the flashes reveal
    only others.  Asks for at least one flash by White (its outcome from the hub's reveal) and one by
    Black with a tower White has not seen (the remote player's flash reveals it)."""
    from engine.actions import Move
    from engine.views import view

    rng = random.Random(seed)
    games = [Game(white, b) for b in blacks]
    out = []
    flashed = {"white": 0, "black": 0}
    for step in range(2 * REVEAL_ROUNDS):
        g0 = games[0]
        mover = g0.to_move
        ok = []
        for a in g0.legal_actions():
            if type(a) is not Move:
                continue
            rec = a.to_record()
            views = set()
            fine = True
            for g in games:
                if rec not in [x.to_record() for x in g.legal_actions()]:
                    fine = False
                    break
                g.push(action_from_record(rec))
                views.add(json.dumps([view(g, "white"), view(g, None)], sort_keys=True))
                if g.is_over():
                    fine = False
                g.pop()
            if fine and len(views) == 1:
                ok.append(a)
        # a flash by Black counts when its tower was unrevealed to White: it reveals it
        hidden = {t["space"] for t in view(g0, "white")["board"] if t["owner"] == "black" and not t.get("revealed")}
        flashes = [a for a in ok if g0.board_effect(a).flash is not None
                   and (mover == "white" or a.to_record()["from"] in hidden)]
        plain = [a for a in ok if g0.board_effect(a).flash is None]
        if flashes and flashed[mover] == 0 and step >= 2:
            choice = rng.choice(flashes)
            flashed[mover] += 1
        else:
            choice = rng.choice(plain)
        rec = choice.to_record()
        for g in games:
            g.push(action_from_record(rec))
        out.append(rec)
    assert flashed == {"white": 1, "black": 1}, f"the seed gives no flash by each side: {flashed}"
    return out


def play_with_reveals(tmp_path, hub_url, white: Setup, black: Setup, moves: list[dict], caplog) -> dict:
    from tests.support.remote_board import carry_out, follow_the_board

    caplog.clear()
    truth = Game(white, black)
    ann = Board(tmp_path, hub_url, side="white")
    frames = {"public": [], "white": []}
    subs = []
    states = []
    bob = RemotePlayer(hub_url)
    try:
        bob.join(ann.seat.link.code)
        bob.listen()
        _record_once_present(ann, frames, subs)
        ann.table.submit_setup("white", white.to_record())
        ann.until(lambda: ann.seat.link.state["setups_in"]["white"], what="Ann's lineup at the hub")
        bob.post("setup", {"setup": black.to_record()})
        ann.until(lambda: ann.table.phase == "playing" and ann.table.ref is not None, what="the game to start")
        ann.place_start()
        ann.until(lambda: ann.table.ref.phase == "play", what="the board set")
        for i, rec in enumerate(moves):
            action = action_from_record(rec)
            if i % 2 == 0:
                ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == "white"
                         and getattr(ann.table.ref.state, "value", "") == "play", what=f"white's turn ({i})")
                carry_out(ann, truth, action)
                follow_the_board(ann)
                ann.until(lambda: len([a for t in ann.seat.link.state["view"]["history"] for a in t["actions"]]) > i,
                         what=f"the hub to have action {i}")
            else:
                bs = ann.until(lambda: heard(bob, lambda s: s["legal"] is not None and len(
                    [a for t in s["view"]["history"] for a in t["actions"]]) == i), what=f"Black's turn ({i})")
                assert bob.post("action", {"seq": bs["seq"], "action": rec})[0] == 200
                ann.until(lambda: (ann.state()["opponent"] or {}).get("plan") is not None, what="the plan")
                states.append((ann.state(), ann.state("white")))
                hands_follow(ann)
            truth.push(action)
            assert ann.board.occupied == truth.occupied(), f"after action {i} ({rec})"
            ann.pause(0.3)  # the board settles (the same in both runs)
            states.append((ann.state(), ann.state("white")))
        link = ann.seat.link
        secret = [link.hub, link.code, link.shown, link._token, ann.table.host_key, *ann.table.tokens.values()]
        # the recording ends with the game played: whether the hub's "Bob's browser is away" reaches
        # the board before it stops is a race of the teardown (bob.close, then ann.stop), not the game
        link.record_raw = False
        for sub in subs:
            sub.close()
    finally:
        bob.close()
        for sub in subs:
            sub.close()
        ann.stop()
    return what_the_board_holds(tmp_path, link, states, frames, secret, caplog)


def hands_follow(ann):
    """The person at the board carries out the plan shown, the same way whatever the timing: each
    space the plan lifts, once, in order; a moment held; then the towers where the referee expects
    them; then nothing more until the board waits for White again (``follow_the_board``, which
    acts on what it sees at each poll, may lift a tower twice depending on when it looks: the board's
    blackbox and streams would then differ for the harness's timing, not for the identities)."""
    from tests.support.remote_board import HOLD, N

    plan = ann.state()["opponent"]["plan"]
    for step in plan.get("steps", [plan]):
        for s in step.get("lift", []):
            if s in {N[x] for x in ann.board.occupied}:
                ann.feed(ann.board.lift(s))
                ann.pause(0.03)
    ann.pause(HOLD)  # a tower is held up a moment, not flicked
    ann.until(lambda: getattr(ann.table.ref.state, "value", "") == "follow", what="the plan followed")
    want = ann.table.ref.expected()
    if want != ann.board.occupied:
        ann.feed(ann.board.set(want))
    ann.until(lambda: getattr(ann.table.ref.state, "value", "") == "play" and ann.table.game.to_move == "white"
             and ann.table.ref.public_status().get("instructions") == [], what="the plan carried out")


def test_permuted_unrevealed_identities_with_reveals_leave_the_board_side_byte_identical(tmp_path, cluster, caplog):
    """As above, in a game with flashes both ways: White's flash onto a Black tower (its outcome from
    the hub's reveal) and Black's flash (revealing its own tower); only Black towers that stay
    unrevealed are permuted."""

    caplog.set_level(logging.INFO)
    white = random_setup(random.Random(11), "white")
    black = random_setup(random.Random(12), "black")
    other = permuted(black)
    assert other.to_record() != black.to_record()
    moves = script_with_reveals(white, [black, other], seed=REVEAL_SEED)
    runs = two_runs(tmp_path, cluster, (black, other),
                    lambda folder, url, setup: play_with_reveals(folder, url, white, setup, moves, caplog))
    # the runs saw the reveals: White's flash through the hub's reveal, and Black's flash naming the
    # Black tower it revealed (``last.pieces``, by the space it stood on)
    got = runs[0]["received"]
    assert '"reveal":{"flash":{"by":"white"' in got
    black_flash = [m for m in moves[1::2] if f'"last":{{"player":"black","seen":{json.dumps(m, separators=(",", ":"))},'
                   f'"pieces":{{"{m["from"]}":' in got]
    assert black_flash, "no flash by Black revealed its tower to the board"
    assert runs[0]["served"].count("playing from afar") >= REVEAL_ROUNDS


REVEAL_SEED = 3  # the first seed whose script has a flash by each side (Black's by an unseen tower)
