"""Remote play's hub API (docs/remote-play.md, "Protocol (hub)"), route by route, on real hub
processes and a real PostgreSQL: the lifecycle, bad input, idempotent retries and stale seqs,
illegal actions, pause and resume, reveals and what they bind, rematch, ratings, rate limits, and
that no token reaches the database or the log."""

import hashlib
import random
import re

from tests.support.hub_client import request
from tests.support.hubproc import quin
from tests.support.remote_client import SIDES, Seat, advance, create, flash_of, join, play, start

from engine.randplay import random_setup

FAST = ("--presence-renew", "0.3", "--presence-lapse", "1.5", "--remote-rate", "1000", "--join-rate", "100")
SHORT_GAME = (3, 3)  # (setup seed, play seed): a classic game of 107 actions with reveals


def _setups(seed):
    rng = random.Random(seed)
    return {s: random_setup(rng, s).to_record() for s in SIDES}


def _one_line(answer):
    assert isinstance(answer, dict) and set(answer) == {"error"}, answer
    assert "\n" not in answer["error"] and "Traceback" not in answer["error"], answer
    return answer["error"]


def _unchanged_until_next(stream, mark, seq, history, seat, action):
    """Nothing changed since state ``mark`` of ``stream``: proved by an event, not a wait.  ``seat``
    plays ``action`` now; the stream keeps every state in order, so its arrival as ``seq + 1``, with
    ``history`` and that action alone after it, shows that no refused request before it changed the
    game (had one, a state between would show another seq or history)."""
    assert seat.post("action", {"seq": seq, "action": action}) == (200, {"seq": seq + 1})
    stream.wait(lambda x: x["seq"] == seq + 1, "the action played after the refused requests")
    with stream.cond:
        states = stream.states[mark:]
    assert {x["seq"] for x in states} <= {seq, seq + 1}, [x["seq"] for x in states]
    assert all([t["actions"] for t in x["view"]["history"]] == history for x in states if x["seq"] == seq)
    after = [x for x in states if x["seq"] == seq + 1]
    assert [t["actions"] for t in after[0]["view"]["history"]][:len(history)] == history
    assert sum(len(t["actions"]) for t in after[0]["view"]["history"]) == sum(map(len, history)) + 1


def test_create_join_setup_and_each_sides_state(hubs, cluster, db):
    hub = hubs(*FAST)
    status, made = request(f"{hub.url}/api/remote", "POST", {"mode": "classic", "vision": False, "side": "black",
                                                               "first": "white", "name": "Ann", "kind": "board"})
    assert status == 200
    assert re.fullmatch(r"[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{3}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{3}", made["code"])
    assert made["side"] == "black" and re.fullmatch(r"qs_[A-Za-z0-9_-]{32}", made["token"])
    ann = Seat(hub.url, made)
    sa = ann.stream()
    first = sa.wait(lambda x: x["present"]["black"], "Ann present")
    assert first["phase"] == "waiting" and first["side"] == "black" and first["code"] == made["code"]
    assert first["names"] == {"white": None, "black": "Ann"} and first["kinds"] == {"white": None, "black": "board"}
    assert first["paused"] is None and first["view"] is None and first["legal"] is None and first["record"] is None
    # the code in any case, without its dash
    typed = made["code"].replace("-", "").lower()
    bob = join(hub.url, typed, name="Bob", kind="browser")
    assert bob.side == "white" and bob.code == made["code"]
    status, answer = request(f"{hub.url}/api/remote/{typed}/join", "POST", {"name": "Cy", "kind": "browser"})
    assert status == 409 and "taken" in _one_line(answer)
    st = sa.wait(lambda x: x["phase"] == "setup", "the join")
    assert st["names"] == {"white": "Bob", "black": "Ann"}
    # Bob has joined but has no stream: the game waits for him
    assert st["paused"] == "Bob's browser is away: the game waits for it" and st["present"] == {"white": False, "black": True}
    sb = bob.stream()
    sa.wait(lambda x: x["paused"] is None and x["present"]["white"], "Bob present")
    setups = _setups(1)
    assert ann.post("setup", {"setup": setups["black"]}) == (200, {"ok": True})
    st = sb.wait(lambda x: x["setups_in"]["black"], "Ann's setup in")
    assert st["phase"] == "setup" and st["view"] is None and st["setups_in"] == {"white": False, "black": True}
    assert bob.post("setup", {"setup": setups["white"]}) == (200, {"ok": True})
    for s, seat in ((sa, ann), (sb, bob)):
        st = s.wait(lambda x: x["phase"] == "playing", "play")
        assert st["view"]["viewer"] == seat.side and st["view"]["setup"] == setups[seat.side]
        # each side sees its own identities, none of the rival's
        for e in st["view"]["board"]:
            assert (e["piece"] is not None) == (e["owner"] == seat.side)
    assert sb.last["legal"] and sa.last["legal"] is None  # white moves first
    assert all(a["type"] != "gravity" for a in sb.last["legal"])
    # only the tokens' SHA-256 is in the database
    dump = cluster.dump(db[1])
    for token in (ann.token, bob.token):
        assert token.encode() not in dump
        assert hashlib.sha256(token.encode()).hexdigest().encode() in dump
    sa.close()
    sb.close()


def test_bad_input_is_refused_in_one_line_naming_the_field_and_changes_nothing(hubs):
    hub = hubs(*FAST)
    url = f"{hub.url}/api/remote"
    for body, field in (({"mode": "chess", "name": "A"}, "mode"), ({"name": ""}, "name"),
                        ({"name": "A", "kind": "phone"}, "kind"), ({"name": "A", "side": "red"}, "side"),
                        ({"name": "A", "vision": "yes"}, "vision"), ({"name": "A", "first": 1}, "first"),
                        ({"name": "A", "player": "qp_nothex!"}, "player"),
                        ({"name": "A", "player": "qp_0000abcd"}, "player")):
        status, answer = request(url, "POST", body)
        assert status == 400 and _one_line(answer).startswith(f"{field}:"), (body, answer)
    status, answer = request(url, "POST", b"{not json")
    assert status == 400 and _one_line(answer).startswith("body:")
    for raw in (b"[" * 100000 + b"]" * 100000, b"[1, 2]"):
        status, answer = request(url, "POST", raw)
        assert status == 400 and _one_line(answer).startswith("body:")
    status, answer = request(url, "POST", b'{"name": "A", "n": ' + b"9" * 5000 + b"}")  # named (issue 30)
    assert status == 400 and _one_line(answer).startswith("n: a number of at most 40 characters")
    setups = _setups(2)
    seats, streams = start(hub.url, "classic", setups["white"], setups["black"])
    white = seats["white"]
    seq = streams["white"].last["seq"]
    legal = streams["white"].last["legal"]
    mark = len(streams["white"].states) - 1
    for body, field in (({"seq": seq}, "action"), ({"seq": seq, "action": {"type": "fly"}}, "action"),
                        ({"seq": seq, "action": {"type": "move", "from": "zz9", "to": "w11"}}, "action"),
                        ({"action": legal[0]}, "seq"), ({"seq": "1", "action": legal[0]}, "seq")):
        status, answer = white.post("action", body)
        assert status == 400 and _one_line(answer).startswith(f"{field}:"), (body, answer)
    status, answer = white.post("check", {"action": {"type": "move", "from": "w11"}})
    assert status == 400 and "to" in _one_line(answer)
    status, answer = white.post("reveal", {"seq": seq})
    assert status == 400 and _one_line(answer).startswith("flash:")
    status, answer = white.post("reveal", {"seq": seq, "time": legal[0]})
    assert status == 400 and _one_line(answer).startswith("time:")
    # tokens and codes
    status, answer = request(f"{hub.url}/api/remote/{white.code}/action", "POST", {"seq": seq, "action": legal[0]})
    assert status == 401 and _one_line(answer).startswith("token:")
    status, answer = request(f"{hub.url}/api/remote/{white.code}/action", "POST", {"seq": seq, "action": legal[0]},
                             key="qs_" + "x" * 32)
    assert status == 401 and _one_line(answer).startswith("token:")
    status, answer = request(f"{hub.url}/api/remote/222-222/action", "POST", {"seq": seq, "action": legal[0]},
                             key=white.token)
    assert status == 404 and _one_line(answer).startswith("code:")
    # a token is a seat of its own game only
    other = create(hub.url)
    status, answer = request(f"{hub.url}/api/remote/{white.code}/action", "POST", {"seq": seq, "action": legal[0]},
                             key=other.token)
    assert status == 401
    # setups after play started, a bad setup before
    status, answer = white.post("setup", {"setup": setups["white"]})
    assert status == 409 and _one_line(answer).startswith("phase:")
    status, answer = other.post("setup", {"setup": {"clone": "time", "removed": "light", "lineup": {}}})
    assert status == 400 and _one_line(answer).startswith("setup.white.removed")
    # nothing changed: the same seq, no action played
    _unchanged_until_next(streams["white"], mark, seq, [], white, legal[0])
    for s in streams.values():
        s.close()


def test_a_retried_action_is_applied_once_and_a_stale_seq_is_refused(hubs):
    hub = hubs(*FAST)
    setups = _setups(3)
    seats, streams = start(hub.url, "classic", setups["white"], setups["black"])
    white, black = seats["white"], seats["black"]
    st = streams["white"].last
    seq, first, second = st["seq"], st["legal"][0], st["legal"][1]
    assert white.post("action", {"seq": seq, "action": first}) == (200, {"seq": seq + 1})
    # the answer was lost: the same action at the same seq answers the same, and is not applied again
    assert white.post("action", {"seq": seq, "action": first}) == (200, {"seq": seq + 1})
    st = streams["black"].wait(lambda x: x["seq"] == seq + 1, "the action")
    assert [t["actions"] for t in st["view"]["history"]] == [[first]]
    mark = len(streams["white"].states) - 1
    streams["white"].wait(lambda x: x["seq"] == seq + 1, "the action")
    # another action at that stale seq
    status, answer = white.post("action", {"seq": seq, "action": second})
    assert status == 409 and _one_line(answer).startswith("seq:")
    # or at a seq the game has not reached
    status, answer = black.post("action", {"seq": seq + 5, "action": st["legal"][0]})
    assert status == 409 and _one_line(answer).startswith("seq:")
    # the rival's action at white's stale seq is not white's action
    status, answer = black.post("action", {"seq": seq, "action": first})
    assert status == 409
    # nothing more than the one action: black's own next action comes as the very next seq
    _unchanged_until_next(streams["white"], mark, seq + 1, [[first]], black, st["legal"][0])
    for s in streams.values():
        s.close()


def test_an_illegal_action_is_refused_with_the_engines_reason(hubs):
    hub = hubs(*FAST)
    setups = _setups(4)
    seats, streams = start(hub.url, "classic", setups["white"], setups["black"])
    white, black = seats["white"], seats["black"]
    st = streams["white"].last
    seq = st["seq"]
    mark = len(streams["black"].states) - 1
    # a tower of white's moved further than it may: the engine's words, naming the action
    mine = sorted(e["space"] for e in st["view"]["board"] if e["owner"] == "white")
    far = {"type": "move", "from": mine[0], "to": "fs"}
    status, answer = white.post("action", {"seq": seq, "action": far})
    assert status == 400 and _one_line(answer).startswith(f"action: move {mine[0]}-fs ")
    assert white.post("check", {"action": far})[1]["legal"] is False
    # black's tower, by white
    theirs = sorted(e["space"] for e in st["view"]["board"] if e["owner"] == "black")
    status, answer = white.post("action", {"seq": seq, "action": {"type": "move", "from": theirs[0], "to": "fs"}})
    assert status == 400 and "not yours" in _one_line(answer)
    # black out of turn
    status, answer = black.post("action", {"seq": seq, "action": st["legal"][0]})
    assert status == 409 and _one_line(answer) == "turn: it is white's turn (turn 1)"
    assert black.post("check", {"action": st["legal"][0]}) == (200, {"legal": False, "reason": "it is white's turn"})
    assert white.post("check", {"action": st["legal"][0]}) == (200, {"legal": True, "reason": None})
    _unchanged_until_next(streams["black"], mark, seq, [], white, st["legal"][0])
    for s in streams.values():
        s.close()


def test_a_side_away_pauses_the_game_for_both_and_it_resumes_where_it_was(hubs):
    hub = hubs(*FAST)
    setups = _setups(5)
    seats, streams = start(hub.url, "classic", setups["white"], setups["black"], kinds=("board", "browser"))
    white, black = seats["white"], seats["black"]
    st = streams["white"].last
    seq, action = st["seq"], st["legal"][0]
    streams["black"].close()
    paused = streams["white"].wait(lambda x: x["paused"] is not None, "the pause")
    assert paused["paused"] == "Bob's browser is away: the game waits for it"
    assert paused["present"] == {"white": True, "black": False} and paused["seq"] == seq
    status, answer = white.post("action", {"seq": seq, "action": action})
    assert status == 423 and _one_line(answer).startswith("paused: Bob's browser is away")
    # the same seq and action once Bob is back: exactly where it was
    back = black.stream()
    st = back.wait(lambda x: x["paused"] is None and x["present"]["black"], "Bob back")
    assert st["seq"] == seq
    streams["white"].wait(lambda x: x["paused"] is None, "resumed")
    assert white.post("action", {"seq": seq, "action": action}) == (200, {"seq": seq + 1})
    back.wait(lambda x: x["seq"] == seq + 1, "the action")
    # the white board goes away: the rival's page says so
    streams["white"].close()
    st = back.wait(lambda x: x["paused"] is not None, "the board away")
    assert st["paused"] == "Ann's board is away: the game waits for it"
    back.close()


def test_a_hub_process_that_dies_leaves_its_sides_away_once_their_presence_lapses(hubs):
    one = hubs(*FAST)
    two = hubs(*FAST)
    setups = _setups(6)
    seats, streams = start(one.url, "classic", setups["white"], setups["black"],
                           stream_base={"white": one.url, "black": two.url})
    seq = streams["white"].last["seq"]
    two.kill()  # black's stream's process: no goodbye, its presence row stays until it lapses
    st = streams["white"].wait(lambda x: x["paused"] is not None, "black's presence lapsing", timeout=20)
    assert st["present"] == {"white": True, "black": False} and st["seq"] == seq
    assert seats["white"].post("action", {"seq": seq, "action": st["legal"][0]})[0] == 423
    # black reconnects to the surviving process: play resumes
    back = seats["black"].stream(one.url)
    back.wait(lambda x: x["paused"] is None, "resumed")
    assert seats["white"].post("action", {"seq": seq, "action": st["legal"][0]}) == (200, {"seq": seq + 1})
    back.close()
    streams["white"].close()


def _views(streams, seq):
    return {s: streams[s].wait(lambda x, q=seq: x["seq"] >= q, f"{s} at {seq}") for s in SIDES}


def test_a_flash_reveal_answers_both_towers_shows_both_sides_and_binds_the_next_action(hubs):
    hub = hubs(*FAST)
    setups = _setups(7)
    seats, streams = start(hub.url, "classic", setups["white"], setups["black"], kinds=("board", "browser"))
    white = seats["white"]
    rng = random.Random(7)
    st = advance(seats, streams, rng, lambda x: x["side"] == "white" and any(flash_of(x, a) for a in x["legal"])
                 and len(x["legal"]) > 1)
    seq = st["seq"]
    flash = next(a for a in st["legal"] if flash_of(st, a))
    other = next(a for a in st["legal"] if a != flash)
    black_view = _views(streams, seq)["black"]["view"]
    truth = {flash["from"]: next(e["piece"] for e in st["view"]["board"] if e["space"] == flash["from"]),
             flash["to"]: next(e["piece"] for e in black_view["board"] if e["space"] == flash["to"])}
    # not a flash: refused, nothing changes
    if not flash_of(st, other):
        status, answer = white.post("reveal", {"seq": seq, "flash": [other]})
        assert status == 400 and _one_line(answer).startswith("flash[0]:")
    status, answer = white.post("reveal", {"seq": seq, "flash": [flash]})
    assert status == 200 and answer == {"seq": seq + 1, "pieces": truth, "outcome": None}
    # asked again (a lost answer): the same answer
    assert white.post("reveal", {"seq": seq, "flash": [flash]}) == (200, answer)
    states = _views(streams, seq + 1)
    shown = {"by": "white", "from": flash["from"], "to": flash["to"], "pieces": truth}
    assert states["black"]["reveal"] == {"flash": shown}  # the rival: what the flash will show, not how
    assert states["white"]["reveal"] == {"flash": dict(shown, actions=[flash])}
    assert states["white"]["legal"] == [flash]
    # bound: another action is refused naming the announced one; check says so too
    status, answer = white.post("action", {"seq": seq + 1, "action": other})
    assert status == 409 and _one_line(answer).startswith("action: the announced reveal binds this turn to move ")
    assert white.post("check", {"action": other})[1]["legal"] is False
    status, answer = white.post("reveal", {"seq": seq + 1, "flash": [flash]})
    assert status == 409 and _one_line(answer).startswith("reveal:")
    assert white.post("action", {"seq": seq + 1, "action": flash}) == (200, {"seq": seq + 2})
    states = _views(streams, seq + 2)
    for s in SIDES:
        assert states[s]["reveal"] is None
        seen = flash if s == "white" else {"type": "move", "from": flash["from"], "to": flash["to"]}
        assert states[s]["last"]["player"] == "white" and states[s]["last"]["seen"] == seen
        assert states[s]["last"]["pieces"].items() <= truth.items()
        assert states[s]["view"]["events"][-1]["type"] == "flash"
    for s in streams.values():
        s.close()


def _moved_to(action):
    kind = action["type"]
    if kind in ("move", "reflect"):
        return [action["to"]]
    if kind == "swap":
        return [action["memory"], action["with"]]
    if kind == "reinforce":
        return list(action["to"])
    return []


def test_a_classic_time_reveal_answers_its_outcome_and_the_failing_shadow(hubs):
    hub = hubs(*FAST)
    outcomes = set()
    for seed in (8, 9, 10, 11, 12, 13):
        setups = _setups(seed)
        seats, streams = start(hub.url, "classic", setups["white"], setups["black"], kinds=("board", "browser"))
        white = seats["white"]
        st = advance(seats, streams, random.Random(seed), lambda x: x["side"] == "white" and any(
            a["type"] == "time" for a in x["legal"]), limit=400)
        seq = st["seq"]
        time_action = next(a for a in st["legal"] if a["type"] == "time")
        # black's last action as black played it, and black's own towers where it put them
        black_state = _views(streams, seq)["black"]
        last = black_state["view"]["history"][-1]
        assert last["player"] == "black"
        pieces = {e["space"]: e["piece"] for e in black_state["view"]["board"]}
        shadows = [s for a in last["actions"] for s in _moved_to(a) if pieces.get(s) == "shadow"]
        status, answer = white.post("reveal", {"seq": seq, "time": time_action})
        assert status == 200
        if shadows:
            assert answer == {"seq": seq + 1, "outcome": "failed", "pieces": {shadows[0]: "shadow"}}
        else:
            assert answer == {"seq": seq + 1, "outcome": "rewound", "pieces": {}}
        outcomes.add(answer["outcome"])
        states = _views(streams, seq + 1)
        for s in SIDES:
            assert states[s]["reveal"] == {"time": {"by": "white", "at": time_action["at"], "outcome": answer["outcome"],
                                                    "pieces": answer["pieces"], "action": time_action}}
        # bound to the Power of Time, from whichever Time tower (with the clone, two): the outcome is
        # the rewind of black's last action either way
        times = [a for a in st["legal"] if a["type"] == "time"]
        assert states["white"]["legal"] == times
        other = next((a for a in st["legal"] if a["type"] != "time"), None)
        if other is not None:
            assert white.post("action", {"seq": seq + 1, "action": other})[0] == 409
        assert white.post("action", {"seq": seq + 1, "action": time_action}) == (200, {"seq": seq + 2})
        states = _views(streams, seq + 2)
        assert states["black"]["view"]["events"][-1] == {"type": "time", "turn": st["view"]["turn"],
                                                          "outcome": answer["outcome"]}
        for s in streams.values():
            s.close()
        if outcomes == {"failed", "rewound"}:
            break
    assert outcomes == {"failed", "rewound"}  # both, within these seeds


def test_rematch_under_the_same_code_swaps_sides_keeps_tokens_and_rates_the_finished_game(hubs, db):
    hub = hubs(*FAST)
    ann_code = quin("hub", "add-player", "Ann", "--db", db[0]).stdout.strip()
    bob_code = quin("hub", "add-player", "Bob", "--db", db[0]).stdout.strip()
    status, answer = request(f"{hub.url}/api/remote", "POST", {"name": "Cy", "player": "qp_00000000"})
    assert status == 400 and _one_line(answer).startswith("player: the hub does not know qp_00000000")
    setups = _setups(SHORT_GAME[0])
    seats, streams = start(hub.url, "classic", setups["white"], setups["black"], player=ann_code)
    status, _ = seats["white"].post("rematch")
    assert status == 409  # not over yet
    # this game: Ann with her code, Bob a guest (a game with both codes follows)
    play(seats, streams, rng=random.Random(SHORT_GAME[1]), reveal_sides=("black",))
    over = streams["white"].wait(lambda x: x["phase"] == "over", "the end")
    seq = over["seq"]
    status, index = request(f"{hub.url}/api/games?table=remote")
    [first] = index["games"]
    assert first["status"] == "over" and first["rated"] == {"white": True, "black": False}
    assert request(f"{hub.url}/api/players")[1]["players"][0]["games"] == 0  # a game with a guest rates nobody
    assert seats["white"].post("rematch") == (200, {"ok": True})
    st = streams["black"].wait(lambda x: x["rematch"]["white"], "white asks")
    assert st["rematch"] == {"white": True, "black": False} and st["phase"] == "over"
    assert seats["black"].post("rematch") == (200, {"ok": True})
    for seat in seats.values():
        st = streams[seat.side].wait(lambda x: x["phase"] == "setup", "the rematch")
        # the same stream, the same token: now the other colour
        assert st["side"] == ("black" if seat.side == "white" else "white")
        assert st["names"] == {"white": "Bob", "black": "Ann"} and st["seq"] > seq
        assert st["setups_in"] == {"white": False, "black": False} and st["record"] is None and st["view"] is None
        assert st["rematch"] == {"white": False, "black": False}
    ann, bob = seats["white"], seats["black"]
    new = {"white": random_setup(random.Random(1), "white").to_record(),
           "black": random_setup(random.Random(2), "black").to_record()}
    assert bob.post("setup", {"setup": new["white"]}) == (200, {"ok": True})
    assert ann.post("setup", {"setup": new["black"]}) == (200, {"ok": True})
    st = streams["white"].wait(lambda x: x["phase"] == "playing", "the rematch's play")
    assert st["side"] == "black" and st["view"]["setup"] == new["black"]
    # a fresh game: the archive has the first one over and this one live
    status, index = request(f"{hub.url}/api/games?table=remote")
    assert [g["status"] for g in index["games"]] == ["live", "over"]
    for s in streams.values():
        s.close()
    # both players with codes: the finished game is rated
    setups = _setups(SHORT_GAME[0])
    a = create(hub.url, player=ann_code)
    sa = a.stream()
    sa.wait(lambda x: x["present"]["white"])
    b = join(hub.url, a.code, player=bob_code)
    sa.wait(lambda x: x["phase"] == "setup")
    sb = b.stream()
    sa.wait(lambda x: x["present"]["black"])
    a.post("setup", {"setup": setups["white"]})
    sb.wait(lambda x: x["setups_in"]["white"])
    b.post("setup", {"setup": setups["black"]})
    sa.wait(lambda x: x["phase"] == "playing")
    sb.wait(lambda x: x["phase"] == "playing")
    play({"white": a, "black": b}, {"white": sa, "black": sb}, rng=random.Random(SHORT_GAME[1]),
         reveal_sides=("black",))
    sa.wait(lambda x: x["phase"] == "over")
    status, index = request(f"{hub.url}/api/games?table=remote&status=over")
    rated = [g for g in index["games"] if g["rated"] == {"white": True, "black": True}]
    assert len(rated) == 1 and rated[0]["players"] == {"white": "Ann", "black": "Bob"}
    board = {p["name"]: p for p in request(f"{hub.url}/api/players")[1]["players"]}
    assert board["Ann"]["games"] == board["Bob"]["games"] == 1
    sa.close()
    sb.close()


def test_no_token_reaches_the_log(hubs):
    hub = hubs(*FAST)
    seat = create(hub.url)
    good = seat.stream()
    good.wait(lambda x: x["present"]["white"])
    # refused streams and requests are logged (as warnings): the path only, never the query string
    bad = "qs_" + "B" * 32
    for path in (f"/api/remote/{seat.code}/stream?token={bad}", f"/api/remote/222-222/stream?token={seat.token}",
                 f"/api/games?token={seat.token}&mode=x", f"/api/remote/{seat.code}/stream?token=qs_short"):
        request(f"{hub.url}{path}")
    status, _ = request(f"{hub.url}/api/remote/{seat.code}/action", "POST", {"seq": 0, "action": {"type": "pass"}},
                        key=seat.token)
    assert status == 409
    good.close()
    hub.stop()
    err = hub.proc.stderr.read()
    assert f"/api/remote/{seat.code}/stream" in err and "/api/remote/222-222/stream" in err  # logged, without
    for token in (seat.token, bad, seat.token[3:]):
        assert token not in err
    assert "?" not in "".join(line for line in err.splitlines() if "/api/" in line)


def test_starting_joining_and_acting_are_rate_limited(hubs):
    hub = hubs("--join-rate", "0.05", "--remote-rate", "0.5")  # bursts of 1 join, 2 requests
    seat = create(hub.url)
    status, answer, headers = request(f"{hub.url}/api/remote", "POST", {"name": "A"}, with_headers=True)
    assert status == 429 and int(headers["Retry-After"]) >= 1 and "retry after" in _one_line(answer)
    status, answer = request(f"{hub.url}/api/remote/{seat.code}/join", "POST", {"name": "B"})
    assert status == 429
    answers = [seat.post("check", {"action": {"type": "pass"}}, with_headers=True) for _ in range(4)]
    assert [a[0] for a in answers][:2] == [200, 200] and answers[-1][0] == 429
    assert int(answers[-1][2]["Retry-After"]) >= 1


def test_an_uncaught_exception_is_logged_by_its_path_without_the_query_string():
    import asyncio
    import logging
    import threading

    from tornado import httpclient, httpserver, netutil, web

    from host.hub import remote, server

    class Boom(server.Base):
        def get(self):
            raise RuntimeError("boom")

    async def run():
        app = web.Application([(r"/boom", Boom)], log_function=remote.access_log)
        srv = httpserver.HTTPServer(app)
        sockets = netutil.bind_sockets(0, "127.0.0.1")
        srv.add_sockets(sockets)
        port = sockets[0].getsockname()[1]
        try:
            resp = await httpclient.AsyncHTTPClient().fetch(f"http://127.0.0.1:{port}/boom?token=qs_secret1234",
                                                            raise_error=False)
            return resp.code
        finally:
            srv.stop()

    class Keep(logging.Handler):
        def __init__(self):
            super().__init__(logging.DEBUG)
            self.lines = []

        def emit(self, record):
            self.lines.append(self.format(record))

    keep = Keep()
    keep.setFormatter(logging.Formatter("%(message)s\n%(exc_text)s"))
    # (the board's web server, started by other tests in this process, quiets tornado's loggers)
    loggers = [logging.getLogger(n) for n in ("tornado.access", "tornado.application", "tornado.general", "quin.hub")]
    saved = [(lg.level, lg.disabled) for lg in loggers]
    for lg in loggers:
        lg.addHandler(keep)
        lg.setLevel(logging.INFO)
        lg.disabled = False
    codes = []  # a thread of its own: another test's page driver may hold this thread's event loop
    try:
        t = threading.Thread(target=lambda: codes.append(asyncio.run(run())))
        t.start()
        t.join(30)
    finally:
        for lg, (level, disabled) in zip(loggers, saved):
            lg.removeHandler(keep)
            lg.setLevel(level)
            lg.disabled = disabled
    assert codes == [500]
    text = "\n".join(keep.lines)
    assert "uncaught exception GET /boom (127.0.0.1)" in text and "500 GET /boom " in text
    assert "qs_secret1234" not in text and "token=" not in text


def test_actions_sent_at_once_through_two_processes_are_serialized_on_the_game(hubs):
    import threading

    one, two = hubs(*FAST), hubs(*FAST)
    setups = _setups(14)
    seats, streams = start(one.url, "classic", setups["white"], setups["black"])
    white = seats["white"]
    via_two = Seat(two.url, {"code": white.code, "side": "white", "token": white.token})
    def actions(state):
        return len([a for t in state["view"]["history"] for a in t["actions"]])

    for round_ in range(6):
        st = streams["white"].wait(lambda x: x["legal"] is not None, "white to move")
        seq, before = st["seq"], actions(st)
        same = round_ % 2 == 0  # the same action twice (a retry racing itself), or two different ones
        acts = [st["legal"][0], st["legal"][0] if same else st["legal"][-1]]
        answers = [None, None]
        barrier = threading.Barrier(2)

        def send(i, seat):
            barrier.wait()
            answers[i] = seat.post("action", {"seq": seq, "action": acts[i]})

        threads = [threading.Thread(target=send, args=(i, s)) for i, s in enumerate((white, via_two))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        if same:
            assert answers == [(200, {"seq": seq + 1})] * 2, answers
        else:
            assert sorted(a[0] for a in answers) == [200, 409], answers
        st = streams["black"].wait(lambda x, q=seq: x["seq"] >= q + 1, "the action")
        assert st["seq"] == seq + 1 and actions(st) == before + 1  # applied once
        # play on (legal[0] for whoever moves) until white is to move again
        seq += 1
        while True:
            states = {s: streams[s].wait(lambda x, q=seq: x["seq"] >= q, "play on") for s in SIDES}
            me = next(s for s in SIDES if states[s]["legal"] is not None)
            if me == "white" and states["white"]["view"]["turn"] > st["view"]["turn"]:
                break
            assert seats[me].post("action", {"seq": seq, "action": states[me]["legal"][0]})[0] == 200
            seq += 1
    for s in streams.values():
        s.close()


def test_a_classic_time_reveal_with_two_time_towers_lets_either_tower_go(hubs):
    """Spec 5: "Time, Classic ... goes to the rival's Zero Gravity whatever happens": with the clone
    (two Time towers) the outcome is the same from either tower, and at the table whichever leaves the
    board is the one used; the reveal binds the Power of Time, not the tower the board asked with."""
    hub = hubs(*FAST)
    white_setup = {"clone": "time", "removed": "void", "lineup": {
        "w19": "shadow", "w29": "void", "w39": "light", "w49": "void", "w59": "shadow",
        "w18": "time", "w28": "reflector", "w38": "memory", "w48": "peripheral", "w58": "time"}}
    for seed in (3, 4, 5, 6):
        black_setup = _setups(seed)["black"]
        seats, streams = start(hub.url, "classic", white_setup, black_setup, kinds=("board", "browser"))
        try:
            st = advance(seats, streams, random.Random(seed), lambda x: x["side"] == "white" and len(
                [a for a in x["legal"] if a["type"] == "time"]) == 2, limit=60)
        except AssertionError:  # this seed's random play lost a Time tower first (or ended)
            for s in streams.values():
                s.close()
            continue
        seq = st["seq"]
        first, second = sorted((a for a in st["legal"] if a["type"] == "time"), key=lambda a: a["at"])
        assert seats["white"].post("reveal", {"seq": seq, "time": first})[0] == 200
        assert seats["white"].post("action", {"seq": seq + 1, "action": second}) == (200, {"seq": seq + 2})
        for s in streams.values():
            s.close()
        return
    raise AssertionError("no seed reached a Classic Time with both Time towers on the board")
