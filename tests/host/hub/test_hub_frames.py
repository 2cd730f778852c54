"""Incremental frames (issue 20, the hub at scale): a live event carries what changed from the
frame before it; a stream starts, or resumes by Last-Event-ID after any gap and at any process, with
what it lacks; a board that lost the record of a push numbers on after the hub's events.

The frames are rebuilt here by the rules docs/hub.md states (tests/support/pushing_board.rebuild, written apart
from the hub's code), never by host.hub.frames."""

import json
import uuid

import psycopg

from tests.support.hub_client import SSE, request
from tests.support.hubproc import quin, wait_for
from tests.support.pushing_board import Board, public_without_hub, rebuild, stored_events

from host.hub import frames


def frame(n, history):
    return {"state": {"phase": "playing", "turn": n, "view": {"history": history[:n], "board": [n % 7]}},
            "notices": [{"n": n}] if n % 5 == 0 else []}


def test_patches_turn_each_public_frame_into_the_next(tmp_path):
    """Every pair of consecutive frames of a real game: the patch rebuilt by the test's own rules
    gives the next frame exactly, and it is much smaller than the frame once the game is long."""
    board = Board(tmp_path / "b", "http://127.0.0.1:9", "qt_x", seed=21)
    try:
        board.play(actions=120)
    finally:
        board.pusher._stop.set()
        board.stop()
    seen = public_without_hub(board.public)
    assert len(seen) > 200
    sizes = []
    for old, new in zip(seen, seen[1:]):
        ops = frames.diff(old, new)
        rows = [(1, json.dumps(old)), (2, json.dumps({"patch": ops}))]
        assert json.loads(rebuild(rows)[1][1]) == new
        sizes.append((len(json.dumps({"patch": ops})), len(json.dumps(new))))
    late = sizes[len(sizes) // 2:]
    assert sum(p for p, _ in late) * 5 < sum(f for _, f in late)  # a fifth of the bytes, or less


def push(hub, key, g, events):
    status, out = request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": events}]}, key=key)
    assert status == 200, out
    return out


def stream_frames(sse, n, start=None):
    """The next n events of a stream applied one after the other: [(id, frame)]."""
    out, current = [], start
    for _ in range(n):
        eid, name, data = sse.next_event()
        assert name == "update"
        current = json.loads(rebuild([(0, json.dumps(current)), (1, json.dumps(data))])[1][1]) \
            if "patch" in data else data
        out.append((int(eid), current, "patch" in data))
    return out


def test_streams_start_and_resume_after_any_gap_with_what_they_lack(db, hubs):
    dsn, _ = db
    key = quin("hub", "add-table", "t", "--db", dsn).stdout.strip()
    a, b = hubs(), hubs()
    g = str(uuid.uuid4())
    history = [f"turn {i}" for i in range(400)]
    full = [None] + [frame(n, history) for n in range(1, 400)]
    events = [{"seq": 1, "data": full[1]}] + [
        {"seq": n, "data": {"patch": frames.diff(full[n - 1], full[n])}} for n in range(2, 320)]
    for i in range(0, len(events), 100):
        push(a, key, g, events[i:i + 100])
    # a new spectator, on the other process: the newest frame whole, then patches
    sse = SSE(b.url + f"/api/stream/games/{g}")
    (eid, got, patched), = stream_frames(sse, 1)
    assert (eid, got, patched) == (319, full[319], False)
    push(a, key, g, [{"seq": 320, "data": {"patch": frames.diff(full[319], full[320])}}])
    (eid, got, patched), = stream_frames(sse, 1, got)
    assert (eid, got, patched) == (320, full[320], True)
    sse.close()
    top = 320
    for hub in (a, b):
        # a short gap: the events missed, from memory, as they were pushed
        again = SSE(hub.url + f"/api/stream/games/{g}", last_event_id="310")
        got = stream_frames(again, top - 310, full[310])
        assert [(i, f) for i, f, _ in got] == [(n, full[n]) for n in range(311, top + 1)]
        assert all(p for _, _, p in got)
        again.close()
        # a gap longer than what a process keeps: the newest frame whole, then patches
        far = SSE(hub.url + f"/api/stream/games/{g}", last_event_id="20")
        assert stream_frames(far, 1) == [(top, full[top], False)]
        push(a, key, g, [{"seq": n, "data": {"patch": frames.diff(full[n - 1], full[n])}} for n in (top + 1, top + 2)])
        got = stream_frames(far, 2, full[top])
        top += 2
        assert [(i, f, p) for i, f, p in got] == [(top - 1, full[top - 1], True), (top, full[top], True)]
        far.close()
    # the JSON reads give whole frames, rebuilt from the stored patches
    status, info = request(a.url + f"/api/games/{g}")
    assert info["state"] == full[324]
    status, out = request(b.url + f"/api/games/{g}/events?after=250")
    assert [e["data"] for e in out["events"]] == full[251:325]
    with psycopg.connect(dsn) as conn:
        whole = conn.execute("SELECT count(*) FROM hub_events WHERE data NOT LIKE '{\"patch\":%'").fetchone()[0]
    assert whole == 1  # stored as pushed: one whole frame, patches after it


def test_a_patch_that_is_malformed_is_refused_naming_it(db, hubs):
    dsn, _ = db
    key = quin("hub", "add-table", "t", "--db", dsn).stdout.strip()
    hub = hubs()
    g = str(uuid.uuid4())
    for data, field in [({"patch": "x"}, "games[0].events[0].data.patch"),
                        ({"patch": [["move", ["a"], 1]]}, "games[0].events[0].data.patch[0]"),
                        ({"patch": [], "state": {}}, "games[0].events[0].data")]:
        status, out = request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [
            {"seq": 1, "data": data}]}]}, key=key)
        assert status == 400 and out["error"].startswith(field), out


def test_a_board_that_lost_the_record_of_a_push_numbers_on_after_the_hub(db, hubs, tmp_path):
    """A power cut between the hub storing a push and the board recording it: the board numbers
    its next frames with numbers the hub holds.  The hub says so; the board numbers on after the
    hub's last event with its newest frame whole: every stored event rebuilds to a frame the public
    saw, none is missing, and the newest is the board's."""
    dsn, _ = db
    key = quin("hub", "add-table", "t", "--db", dsn).stdout.strip()
    hub = hubs()
    folder = tmp_path / "b"
    board = Board(folder, hub.url, key, seed=31)
    board.play(actions=8)
    wait_for(board.drained, "the first pushes")
    game = board.table.row
    board.pusher.stop()
    held = len(stored_events(dsn, game.uuid))
    with board.table.store._tx() as c:  # the cut: the board's numbering three frames back
        c.execute("UPDATE hub_numbered SET seq = seq - 3")
    from host.remote.push import Pusher

    board.pusher = Pusher(board.table, hub.url, key, backoff=(0.05, 0.3)).start()
    board.play(actions=6)
    wait_for(board.drained, "the pushes after the cut")
    rows = stored_events(dsn, game.uuid)
    assert [s for s, _ in rows] == list(range(1, len(rows) + 1)) and len(rows) > held
    seen = public_without_hub(board.public)
    frames_seen = [json.dumps(f, sort_keys=True) for f in seen if f["state"]["game"] == game.id]
    rebuilt = [json.dumps(json.loads(d), sort_keys=True) for _, d in rebuild(rows)]
    assert all(f in frames_seen for f in rebuilt)
    assert rebuilt[-1] == frames_seen[-1]
    assert json.loads(dict(rows)[held + 1]).get("patch") is None  # numbered on with a whole frame
    status, info = request(hub.url + f"/api/games/{game.uuid}")
    assert json.dumps(info["state"], sort_keys=True) == frames_seen[-1]
    board.stop()


def test_a_spectator_that_stops_reading_is_let_go_and_resumes(db, hubs):
    """A process serves thousands of streams: one whose spectator does not read is closed once far
    behind rather than kept in memory; reconnecting with its Last-Event-ID, it goes on."""
    import socket
    import time

    dsn, _ = db
    key = quin("hub", "add-table", "t", "--db", dsn).stdout.strip()
    hub = hubs()
    g = str(uuid.uuid4())
    push(hub, key, g, [{"seq": 1, "data": {"state": {"n": 1, "pad": ""}, "notices": []}}])
    host, port = hub.url.split("//")[1].split(":")
    idle = socket.socket()
    idle.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    idle.connect((host, int(port)))
    idle.sendall(f"GET /api/stream/games/{g} HTTP/1.0\r\nHost: x\r\n\r\n".encode())
    wait_for(lambda: request(hub.url + "/api/health")[1]["streams"] == 1, "the stream to open")
    pad = "x" * 60000
    seq = 1
    deadline = time.monotonic() + 60
    while request(hub.url + "/api/health")[1]["streams"] == 1:
        assert time.monotonic() < deadline, "a stream that does not read was kept open"
        push(hub, key, g, [{"seq": seq + i, "data": {"state": {"n": seq + i, "pad": pad}, "notices": []}}
                           for i in range(1, 41)])
        seq += 40
    idle.close()
    again = SSE(hub.url + f"/api/stream/games/{g}", last_event_id=str(seq - 1))
    (eid, got, patched), = stream_frames(again, 1)
    assert (eid, got["state"]["n"], patched) == (seq, seq, False)
    again.close()
