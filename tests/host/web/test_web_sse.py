"""Live streams through the real server (waitress): current state, live events, resume, keep-alive, seats."""

import pytest

from host.compose import create_app

from tests.support.webtools import SSE, board_headers, get_json, post_json, running


TABLES: dict = {}  # base URL -> its table (its board key)


@pytest.fixture
def served(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "KEEPALIVE": 0.3})
    with running(app) as base:
        TABLES[base] = app.extensions["quin.table"]
        yield base, app.extensions["quin.table"]
        del TABLES[base]


def toggle(base, space):
    status, body = post_json(base + "/api/board/toggle", {"space": space}, board_headers(TABLES[base]))
    assert status == 200, body
    return body


def test_a_stream_starts_with_the_current_state_then_live_updates(served):
    base, table = served
    s = SSE(base, "/events")
    assert s.status == 200
    first = s.next()
    assert first["event"] == "state" and first["data"]["state"]["phase"] == "setup"
    toggle(base, "w35")
    update = s.next()
    assert update["event"] == "update" and int(update["id"]) > int(first["id"])
    assert update["data"]["state"]["board"]["occupied"] == ["w35"]
    s.close()


def test_reconnect_with_last_event_id_receives_exactly_what_was_missed(served):
    base, table = served
    s = SSE(base, "/events")
    s.next()
    toggle(base, "w35")
    seen = s.next()
    s.close()
    for space in ("w36", "w37", "w35"):
        toggle(base, space)
    again = SSE(base, "/events", last_event_id=seen["id"])
    missed = [again.next() for _ in range(3)]
    assert [m["event"] for m in missed] == ["update"] * 3
    assert [int(m["id"]) for m in missed] == [int(seen["id"]) + i for i in (1, 2, 3)]
    assert missed[-1]["data"]["state"]["board"]["occupied"] == ["w36", "w37"]
    again.close()


def test_keep_alive_comments_on_an_idle_stream(tmp_path):
    """The server's keep-alives run on the service's one clock (here the test's FakeClock): a stream
    idle for the keep-alive's time gets a comment, and the next event after it."""
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "KEEPALIVE": 0.3, "MANUAL_CLOCK": True})
    clock = app.extensions["quin.service"].clock
    with running(app, clock=clock) as base:
        TABLES[base] = app.extensions["quin.table"]
        try:
            s = SSE(base, "/events")
            s.next()
            clock.advance(0.2)  # not idle long enough: nothing is written
            toggle(base, "b11")
            assert s.next()["data"]["state"]["board"]["occupied"] == ["b11"]
            assert s.comments == []
            clock.advance(0.8)  # idle for more than the keep-alive's 0.3 s
            assert s.comment() == "keep-alive"
            toggle(base, "b13")
            assert s.next()["data"]["state"]["board"]["occupied"] == ["b11", "b13"]
            s.close()
        finally:
            del TABLES[base]


def test_seat_streams_need_a_valid_token_and_carry_the_seat(served):
    base, table = served
    bad = SSE(base, "/events?seat=not-a-token")
    assert bad.status == 403
    bad.close()
    s = SSE(base, f"/events?seat={table.tokens['black']}")
    first = s.next()
    assert first["data"]["state"]["seat"]["player"] == "black"
    s.close()


def test_a_reissued_seat_closes_the_old_stream_and_the_old_token_stops_working(served):
    base, table = served
    old = table.tokens["white"]
    s = SSE(base, f"/events?seat={old}")
    s.next()
    status, _ = post_json(f"{base}/api/host/{table.host_key}/reissue", {"player": "white"},
                          {"X-Host-Key": table.host_key})
    assert status == 200
    assert s.next() is None  # the server ended the stream
    assert get_json(f"{base}/api/seat/{old}/state")[0] == 403
    status, state = get_json(f"{base}/api/seat/{table.tokens['white']}/state")
    assert status == 200 and state["seat"]["player"] == "white"
