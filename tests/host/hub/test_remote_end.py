"""Ending a remote game other than by play (docs/remote-play.md, "Ending a game"; docs/rules.md,
"How a game may end"): resigning, claiming a game the rival abandoned after the set absence (on
an injected clock: no test sleeps), and a join retried with the same request id answered again.
On a real hub (in this process, for its clock) and a real PostgreSQL."""

import random

import pytest
from tests.support.hub_client import request
from tests.support.hubproc import quin
from tests.support.inproc import fast_hub
from tests.support.remote_client import Seat, create, start

from engine.randplay import random_setup
from engine.record import load_record, replay

@pytest.fixture
def hub(db):
    h = fast_hub(db[0])
    yield h
    h.stop()


def _setups(seed):
    rng = random.Random(seed)
    return {s: random_setup(rng, s).to_record() for s in ("white", "black")}


def _one_line(answer):
    assert isinstance(answer, dict) and set(answer) == {"error"}, answer
    assert "\n" not in answer["error"] and "Traceback" not in answer["error"], answer
    return answer["error"]


def _started(hub, **body):
    setups = _setups(5)
    return start(hub.url, "classic", setups["white"], setups["black"], **body)


def _archived(hub):
    status, index = request(f"{hub.url}/api/games?table=remote")
    assert status == 200
    return index["games"]


def test_resigning_ends_the_game_for_the_rival_records_archives_and_rates_it(hub, db):
    ann_code = quin("hub", "add-player", "Ann", "--db", db[0]).stdout.strip()
    bob_code = quin("hub", "add-player", "Bob", "--db", db[0]).stdout.strip()
    setups = _setups(5)
    a = create(hub.url, player=ann_code)
    sa = a.stream()
    sa.wait(lambda x: x["present"]["white"], "Ann present")
    status, made = request(f"{hub.url}/api/remote/{a.code}/join", "POST", {"name": "Bob", "player": bob_code})
    assert status == 200
    b = Seat(hub.url, made)
    sb = b.stream()
    sa.wait(lambda x: x["present"]["black"], "Bob present")
    assert b.post("resign")[0] == 409  # nothing to resign before play
    a.post("setup", {"setup": setups["white"]})
    b.post("setup", {"setup": setups["black"]})
    st = sa.wait(lambda x: x["phase"] == "playing", "play")
    assert st["abandon"] is None
    status, done = a.post("action", {"seq": st["seq"], "action": st["legal"][0]})
    assert status == 200
    sb.wait(lambda x: x["seq"] == done["seq"], "Bob sees the move")
    # Bob resigns (on his turn or not, it is the same)
    status, answer = b.post("resign")
    assert status == 200
    assert answer == {"seq": done["seq"] + 1, "result": {"status": "won", "winner": "white", "reason": "resignation"}}
    assert b.post("resign") == (200, answer)  # sent again after a lost answer: the same
    for s in (sa, sb):
        over = s.wait(lambda x: x["phase"] == "over", "the end")
        assert over["view"]["result"] == answer["result"]
        assert over["record"]["termination"] == {"reason": "resignation", "winner": "white"}
        assert replay(load_record(over["record"])).result.to_json() == answer["result"]
        assert over["legal"] is None and over["paused"] is None and over["abandon"] is None
    # nothing more is played: a move, a claim, a resignation by the winner
    assert a.post("action", {"seq": answer["seq"], "action": st["legal"][0]})[0] == 409
    status, refused = a.post("resign")
    assert status == 409 and _one_line(refused).startswith("phase: the game is over")
    # archived and rated as a game won at the board
    [game] = _archived(hub)
    assert game["status"] == "over" and game["result"] == answer["result"]
    assert game["rated"] == {"white": True, "black": True}
    board = {p["name"]: p for p in request(f"{hub.url}/api/players")[1]["players"]}
    assert board["Ann"]["games"] == board["Bob"]["games"] == 1
    assert board["Ann"]["rating"] > board["Bob"]["rating"]
    status, page = request(f"{hub.url}/api/games/{game['uuid']}")
    assert status == 200 and page["record"]["termination"] == {"reason": "resignation", "winner": "white"}
    sa.close()
    sb.close()


def test_an_absence_counts_down_and_the_game_may_be_claimed_once_the_time_is_up(hub):
    seats, streams = _started(hub)
    ann, bob = seats["white"], seats["black"]
    streams["black"].close()  # Bob's board goes away
    st = streams["white"].wait(lambda x: x["paused"] is not None, "the pause")
    assert st["abandon"] == {"side": "black", "left": 120, "after": 120, "claimable": False}
    status, refused = ann.post("claim")
    assert status == 409 and _one_line(refused) == (
        "claim: Bob's board has been away 0 s: the game may be claimed once it has been away 120 s")
    assert bob.post("claim")[0] == 409  # the away side claims nothing: Ann is here
    hub.clock.advance(119)
    assert ann.post("claim")[0] == 409
    hub.clock.advance(1)  # two minutes: the hub says so by itself (its next look at the game)
    st = streams["white"].wait(lambda x: x["abandon"] and x["abandon"]["claimable"], "the claim offered")
    assert st["abandon"]["left"] == 0 and st["phase"] == "playing"
    status, answer = ann.post("claim")
    assert status == 200
    assert answer["result"] == {"status": "won", "winner": "white", "reason": "abandonment"}
    over = streams["white"].wait(lambda x: x["phase"] == "over", "the end")
    assert over["record"]["termination"] == {"reason": "abandonment", "winner": "white"}
    assert over["paused"] is None and over["abandon"] is None
    [game] = _archived(hub)
    assert game["status"] == "over" and game["result"]["reason"] == "abandonment"
    # Bob comes back: he sees the game ended
    again = bob.stream()
    seen = again.wait(lambda x: x["phase"] == "over", "Bob sees the end")
    assert seen["view"]["result"]["winner"] == "white"
    again.close()
    streams["white"].close()


def test_a_side_back_before_the_time_stops_the_countdown_and_starts_it_afresh_when_away_again(hub):
    seats, streams = _started(hub)
    ann, bob = seats["white"], seats["black"]
    streams["black"].close()
    streams["white"].wait(lambda x: x["abandon"] is not None, "the countdown")
    hub.clock.advance(100)
    back = bob.stream()
    st = streams["white"].wait(lambda x: x["paused"] is None, "Bob back")
    assert st["abandon"] is None
    status, refused = ann.post("claim")
    assert status == 409 and _one_line(refused) == "claim: Bob's board is here: the game goes on"
    back.close()
    st = streams["white"].wait(lambda x: x["abandon"] is not None, "away again")
    assert st["abandon"]["left"] == 120  # counted afresh
    hub.clock.advance(60)
    assert ann.post("claim")[0] == 409
    streams["white"].close()


def test_a_join_retried_with_the_same_request_id_gets_the_same_seat(hub):
    a = create(hub.url)
    sa = a.stream()
    sa.wait(lambda x: x["present"]["white"])
    body = {"name": "Bob", "kind": "board", "request": "r" * 8 + "Zx9_-" + "q" * 10}
    status, first = request(f"{hub.url}/api/remote/{a.code}/join", "POST", body)
    assert status == 200 and first["side"] == "black"
    seq = sa.wait(lambda x: x["phase"] == "setup")["seq"]
    status, again = request(f"{hub.url}/api/remote/{a.code}/join", "POST", body)
    assert (status, again) == (200, first)  # the lost answer, given again
    status, other = request(f"{hub.url}/api/remote/{a.code}/join", "POST", dict(body, name="Eve"))
    assert status == 409 and _one_line(other).startswith("request: this request took a seat with another name")
    status, other = request(f"{hub.url}/api/remote/{a.code}/join", "POST", dict(body, request="s" * 20))
    assert status == 409 and _one_line(other) == f"code: both seats of {a.code} are taken"
    status, bad = request(f"{hub.url}/api/remote/{a.code}/join", "POST", dict(body, request="short"))
    assert status == 400 and _one_line(bad).startswith("request: 16 to 64 letters")
    bob = Seat(hub.url, again)
    sb = bob.stream()
    st = sb.wait(lambda x: x["phase"] == "setup")
    assert st["side"] == "black" and st["seq"] == seq  # one join, not two
    sa.close()
    sb.close()


def test_resign_and_claim_take_an_empty_object_and_a_seat_token(hub):
    seats, streams = _started(hub)
    ann = seats["white"]
    for what in ("resign", "claim"):
        status, bad = ann.post(what, {"side": "black"})
        assert status == 400 and _one_line(bad) == f"body: {what} takes an empty object {{}}"
        status, bad = request(f"{hub.url}/api/remote/{ann.code}/{what}", "POST", {})
        assert status == 401 and _one_line(bad).startswith("token:")
    assert streams["white"].last["phase"] == "playing"  # nothing changed
    for s in streams.values():
        s.close()


def test_a_game_not_begun_may_be_called_off_by_either_side_and_nothing_is_archived(hub):
    """The friend never sends a lineup (or never joins): either side calls the game off (issue 28).
    Nobody wins; both streams say who called it off; nothing more is taken; the archive has nothing."""
    setups = _setups(5)
    # never joined: the one seated side calls it off
    lone = create(hub.url)
    sl = lone.stream()
    sl.wait(lambda x: x["present"]["white"], "Ann present")
    status, answer = lone.post("call-off")
    assert status == 200 and answer == {"seq": answer["seq"], "called_off": "white"}
    st = sl.wait(lambda x: x["phase"] == "called_off", "called off")
    assert st["called_off"] == "white" and st["paused"] is None and st["abandon"] is None and st["view"] is None
    assert lone.post("call-off") == (200, answer)  # sent again after a lost answer: the same
    status, refused = request(f"{hub.url}/api/remote/{lone.code}/join", "POST", {"name": "Bob"})
    assert status == 409 and _one_line(refused) == f"code: {lone.code} was called off before it began"
    sl.close()
    # joined, one lineup in, the other side away: Ann calls it off, paused or not
    a = create(hub.url)
    sa = a.stream()
    sa.wait(lambda x: x["present"]["white"], "Ann present")
    status, made = request(f"{hub.url}/api/remote/{a.code}/join", "POST", {"name": "Bob"})
    b = Seat(hub.url, made)
    sb = b.stream()
    sa.wait(lambda x: x["present"]["black"], "Bob present")
    assert a.post("setup", {"setup": setups["white"]})[0] == 200
    sb.close()  # Bob's browser goes away without a lineup
    sa.wait(lambda x: x["paused"] is not None, "the pause")
    status, answer = a.post("call-off")
    assert status == 200 and answer["called_off"] == "white"
    st = sa.wait(lambda x: x["phase"] == "called_off", "called off")
    assert st["called_off"] == "white" and st["paused"] is None
    # nothing more: a lineup, a claim, a resignation, a rematch, another call-off by Bob
    for what, body in (("setup", {"setup": setups["black"]}), ("claim", {}), ("resign", {}), ("rematch", {}),
                       ("call-off", {})):
        status, refused = b.post(what, body)
        assert status == 409 and _one_line(refused).startswith("phase: the game is called_off"), (what, refused)
    back = b.stream()  # Bob comes back: he sees it called off, and by whom
    seen = back.wait(lambda x: x["phase"] == "called_off", "Bob sees it")
    assert seen["called_off"] == "white"
    assert _archived(hub) == []
    back.close()
    sa.close()


def test_a_game_being_played_is_not_called_off(hub):
    seats, streams = _started(hub)
    status, refused = seats["white"].post("call-off")
    assert status == 409 and _one_line(refused).startswith("phase: the game is playing: only a game not begun")
    status, bad = seats["white"].post("call-off", {"x": 1})
    assert status == 400 and _one_line(bad) == "body: call-off takes an empty object {}"
    assert streams["white"].last["phase"] == "playing"
    for s in streams.values():
        s.close()
