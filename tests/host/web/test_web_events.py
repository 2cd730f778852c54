"""The SSE broker: ids, the current state on connect, resuming, keep-alives, bounded queues."""

import json
import threading

from host.web.events import Broker


def frames(chunks: bytes) -> list[dict]:
    """Parse SSE text into events: {'id', 'event', 'data'} (comments and retry lines skipped)."""
    out = []
    for block in chunks.decode().split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            if not line or line.startswith(":") or line.startswith("retry:"):
                continue
            key, _, value = line.partition(": ")
            fields[key] = value
        if fields:
            fields["data"] = json.loads(fields["data"])
            out.append(fields)
    return out


def states(n: int) -> dict:
    return {a: {"n": n, "who": a} for a in ("public", "white", "black")}


def test_ids_increase_and_each_audience_gets_its_own_payload():
    b = Broker()
    stream = b.stream("white")
    first = next(stream)  # retry + current state
    assert frames(first)[0]["event"] == "state"
    b.publish(states(1), {"white": [{"kind": "question"}]})
    b.publish(states(2))
    got = frames(next(stream)) + frames(next(stream))
    assert [int(e["id"]) for e in got] == [1, 2]
    assert got[0]["data"] == {"state": {"n": 1, "who": "white"}, "notices": [{"kind": "question"}]}
    assert got[1]["data"]["notices"] == []
    stream.close()
    assert b.clients() == 0


def test_connect_sends_the_current_state_with_the_current_id():
    b = Broker()
    for n in range(1, 4):
        b.publish(states(n))
    (event,) = frames(next(b.stream("public")))
    assert event["event"] == "state" and event["id"] == "3"
    assert event["data"] == {"state": {"n": 3, "who": "public"}, "notices": []}


def test_resume_from_last_event_id_replays_what_was_missed():
    b = Broker()
    for n in range(1, 6):
        b.publish(states(n), {"public": [{"n": n}]})
    got = frames(next(b.stream("public", "2")))
    assert [e["id"] for e in got] == ["3", "4", "5"]
    assert [e["data"]["notices"] for e in got] == [[{"n": 3}], [{"n": 4}], [{"n": 5}]]
    assert frames(next(b.stream("public", "5"))) == []  # up to date: nothing to catch up


def test_resume_from_an_id_too_old_or_unknown_gives_the_current_state():
    b = Broker(history=3)
    for n in range(1, 10):
        b.publish(states(n))
    for last in ("1", "999", "junk"):
        (event,) = frames(next(b.stream("black", last)))
        assert event["event"] == "state" and event["data"]["state"]["n"] == 9


def test_keepalive_comment_when_idle():
    b = Broker(keepalive=0.01)
    stream = b.stream("public")
    next(stream)
    assert next(stream) == b": keep-alive\n\n"


def test_a_client_too_far_behind_is_dropped_and_can_resume():
    b = Broker(queue_size=3, history=50)
    stream = b.stream("public")
    next(stream)
    for n in range(1, 10):
        b.publish(states(n))
    assert b.clients("public") == 0  # dropped, nothing more queued for it
    rest = b"".join(stream)  # what was queued, then the stream ends
    seen = [int(e["id"]) for e in frames(rest)]
    assert seen == list(range(1, len(seen) + 1)) and len(seen) < 9  # a gap-free prefix
    resumed = frames(next(b.stream("public", str(len(seen)))))
    assert [int(e["id"]) for e in resumed] == list(range(len(seen) + 1, 10))


def test_disconnect_closes_an_audience_only():
    b = Broker()
    white, black = b.stream("white"), b.stream("black")
    next(white), next(black)
    assert b.disconnect("white") == 1
    assert list(white) == []
    b.publish(states(1))
    assert frames(next(black))[0]["id"] == "1"


def test_publish_reaches_many_concurrent_streams():
    b = Broker()
    streams = [b.stream("public") for _ in range(20)]
    for s in streams:
        next(s)
    results = []

    def read(s):
        results.append(frames(next(s))[0]["id"])

    threads = [threading.Thread(target=read, args=(s,)) for s in streams]
    for t in threads:
        t.start()
    b.publish(states(1))
    for t in threads:
        t.join(5)
    assert results == ["1"] * 20
