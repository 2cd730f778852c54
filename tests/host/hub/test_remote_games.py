"""Remote play, whole games (docs/remote-play.md): a scripted client plays a complete random game in
each mode through a real hub's API on a real PostgreSQL, choosing among each state's ``legal``
(composing Void Gravity and several-Artificial-Light reinforcements from the state's hints and
checking them with ``check``), the board side asking ``reveal`` before each flash and Classic Time;
the finished game is archived under the table ``remote``."""

import random

from tests.support.hub_client import request
from tests.support.remote_client import SIDES, play, start

from engine.randplay import random_setup

# presence renewed often and lapsing soon; the scripted client goes faster than any player
FAST = ("--presence-renew", "0.5", "--presence-lapse", "3", "--remote-rate", "1000")


def _setups(seed):
    rng = random.Random(seed)
    return {s: random_setup(rng, s).to_record() for s in SIDES}


def _check_end(hub, seats, streams, played, setups, mode):
    finals = {s: streams[s].wait(lambda x: x["phase"] == "over", f"{s} sees the end") for s in SIDES}
    record = finals["white"]["record"]
    assert record == finals["black"]["record"]
    # the record holds the whole game: both setups as given and every action as played, in order
    assert record["mode"] == mode and record["setup"] == setups
    assert [a for t in record["turns"] for a in t["actions"]] == [step["action"] for step in played.steps]
    for s in SIDES:
        assert finals[s]["legal"] is None and finals[s]["view"]["result"]["status"] in ("won", "drawn")
    # archived: the hub's index under the table "remote", its record, its public frames
    status, index = request(f"{hub.url}/api/games?table=remote")
    assert status == 200
    [entry] = [g for g in index["games"] if g["status"] == "over"]
    assert entry["mode"] == mode and entry["players"] == {"white": "Ann", "black": "Bob"}
    assert entry["result"] == finals["white"]["view"]["result"]
    status, archived = request(f"{hub.url}/api/games/{entry['uuid']}/record")
    assert status == 200 and archived == record
    status, events = request(f"{hub.url}/api/games/{entry['uuid']}/events?after=0")
    assert status == 200
    frames = events["events"]
    assert [e["seq"] for e in frames] == list(range(1, len(frames) + 1))
    # one public frame at the start of play and one per action; each the public view (no identity
    # but the revealed ones)
    assert len(frames) == min(len(played.steps) + 1, 500)
    last = frames[-1]["data"]["state"]["view"] if len(played.steps) < 500 else None
    if last is not None:
        assert last["viewer"] is None and last["result"] == entry["result"]
        assert all(e["revealed"] or e["piece"] is None for e in last["board"])
    print(f"{mode}: {len(played.steps)} actions, {played.reveals} reveals, {played.composed} composed")
    return finals


def test_a_whole_classic_game_through_the_api(hubs):
    hub = hubs(*FAST)
    setups = _setups(11)
    seats, streams = start(hub.url, "classic", setups["white"], setups["black"], kinds=("browser", "board"))
    played = play(seats, streams, rng=random.Random(5), reveal_sides=("black",))
    finals = _check_end(hub, seats, streams, played, setups, "classic")
    flashes = [e for e in finals["white"]["view"]["events"] if e["type"] == "flash"]
    assert flashes and played.reveals > 0
    for s in streams.values():
        s.close()


def test_a_whole_third_eye_game_acting_through_one_process_streaming_from_another(hubs):
    acting = hubs(*FAST)
    streaming = hubs(*FAST)
    setups = _setups(12)
    seats, streams = start(acting.url, "third_eye", setups["white"], setups["black"], kinds=("board", "browser"),
                           stream_base={"white": streaming.url, "black": streaming.url})
    played = play(seats, streams, rng=random.Random(7), reveal_sides=("white",))
    finals = _check_end(acting, seats, streams, played, setups, "third_eye")
    assert played.composed > 0  # Void Gravity or reinforcements composed, checked and played
    assert any(step["action"]["type"] == "gravity" for step in played.steps)
    assert any(e["type"] == "flash" for e in finals["black"]["view"]["events"])
    for s in streams.values():
        s.close()
