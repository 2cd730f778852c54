"""Hidden information through remote play: the same game played twice through a real hub, the
second time with the identities of the rival's towers that are never revealed in it permuted (both
lineups valid, the same actions, flashes and reveals of other towers included), leaves every byte
the first side's stream receives identical, message for message, until the end (where the record
opens every identity, as at one table).

The game is replayed here with the rules engine only to learn which of the rival's towers stay
hidden (never revealed to the first side) and to confirm the permuted
lineup plays the same actions; what is compared is what the hub sent."""

import json
import random
import time

import pytest
from tests.support.remote_client import SIDES, play, start

from engine.actions import action_from_record
from engine.game import Game
from engine.pieces import PIECES, Setup
from engine.randplay import random_setup
from engine.state import INDEX

FAST = ("--presence-renew", "0.3", "--presence-lapse", "1.5", "--remote-rate", "1000", "--join-rate", "100")
# (mode, setup seed, play seed): games of about a hundred actions with flashes and reveals
GAMES = [("classic", 3, 3), ("third_eye", 8, 8)]


def _replay(setups, black, mode, steps):
    """The game replayed with the engine (None if an action is not legal with this lineup)."""
    game = Game(Setup.from_record("white", setups["white"]), Setup.from_record("black", black), mode)
    try:
        for step in steps:
            game.push(action_from_record(step["action"]))
    except ValueError:
        return None
    return game


def _hidden(setups, mode, steps):
    """Black's starting spaces whose tower white never learns, and how many white learns."""
    game = Game(Setup.from_record("white", setups["white"]), Setup.from_record("black", setups["black"]), mode)
    lineup = {t: game.state.loc[t] for t in game.towers_of("black") if game.state.loc[t] >= 0}
    keep = set(lineup)
    white_bit = 1 << INDEX["white"]

    def look():
        for t in list(keep):
            if game.state.known[t] & white_bit:
                keep.discard(t)

    look()
    for step in steps:
        game.push(action_from_record(step["action"]))
        look()
    return sorted(lineup[t] for t in keep), len(lineup) - len(keep)


def _permuted(setups, mode, steps):
    """Black's setup with the pieces of towers white never learns exchanged, pair by pair, each
    exchange kept only if the same actions still play the same game (every action legal, the same
    events and result): ``(setup, towers white learnt, towers changed)``."""
    from engine.board import SPACE_NAMES as N

    spaces, revealed = _hidden(setups, mode, steps)
    truth = _replay(setups, setups["black"], mode, steps)
    public = ([e.to_json() for e in truth.events], truth.result)
    names = [N[s] for s in spaces]
    lineup = dict(setups["black"]["lineup"])
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if lineup[a] == lineup[b]:
                continue
            trial = dict(lineup, **{a: lineup[b], b: lineup[a]})
            game = _replay(setups, dict(setups["black"], lineup=trial), mode, steps)
            if game is not None and ([e.to_json() for e in game.events], game.result) == public:
                lineup = trial
    # and a hidden tower's piece exchanged with one of the reserve's (the lineup stays valid: the
    # same 17 towers), where the exchange with a lineup tower found nothing
    for a in names:
        if lineup[a] != setups["black"]["lineup"][a]:
            continue
        for piece in PIECES:
            if piece in (lineup[a], "artificial_light"):
                continue
            trial = dict(lineup, **{a: piece})
            try:
                Setup.from_record("black", dict(setups["black"], lineup=trial))
            except ValueError:
                continue
            game = _replay(setups, dict(setups["black"], lineup=trial), mode, steps)
            if game is not None and ([e.to_json() for e in game.events], game.result) == public:
                lineup = trial
                break
    changed = sum(lineup[n] != setups["black"]["lineup"][n] for n in names)
    return dict(setups["black"], lineup=lineup), revealed, changed


class Prober:
    """White asking what the routes allow of the rival's towers, every few turns of its own: ``check``
    of a move of every other tower of its own onto each black tower (a flash), and a ``reveal`` with each as
    a wrong form (a Third Eye Time, a candidate that is no flash), every answer kept."""

    def __init__(self, seats, every: int = 6):
        self.seats, self.every, self.turns = seats, every, 0
        self.answers: list = []

    def __call__(self, side, state):
        if side != "white":
            return
        self.turns += 1
        if self.turns % self.every:
            return
        board = state["view"]["board"]
        mine = [e["space"] for e in board if e["owner"] == "white"]
        theirs = [e["space"] for e in board if e["owner"] == "black"]
        white = self.seats["white"]
        for a in mine[::2]:
            for b in theirs:
                self.answers.append(white.post("check", {"action": {"type": "move", "from": a, "to": b}}))
        self.answers.append(white.post("reveal", {"seq": state["seq"], "time": {"type": "time", "at": theirs[0],
                                                                               "target": theirs[-1], "to": theirs[0]}}))
        self.answers.append(white.post("reveal", {"seq": state["seq"], "flash": [
            {"type": "move", "from": mine[0], "to": theirs[0]}, {"type": "move", "from": mine[-1], "to": theirs[-1]}]}))


def _white_messages(seats, streams):
    over = streams["white"].wait(lambda x: x["phase"] == "over", "the end")
    time.sleep(0.5)  # nothing more comes (a late message would show in the comparison)
    with streams["white"].cond:
        raw = list(streams["white"].raw)
    code = over["code"].encode()
    for s in streams.values():
        s.close()
    return raw, code


@pytest.mark.parametrize("mode,setup_seed,play_seed", GAMES)
def test_the_rivals_unrevealed_identities_never_reach_a_sides_stream(hubs, mode, setup_seed, play_seed):
    hub = hubs(*FAST)
    rng = random.Random(setup_seed)
    setups = {s: random_setup(rng, s).to_record() for s in SIDES}
    seats, streams = start(hub.url, mode, setups["white"], setups["black"], kinds=("browser", "board"))
    prober = Prober(seats)
    played = play(seats, streams, rng=random.Random(play_seed), reveal_sides=("black",), probe=prober)
    first, code1 = _white_messages(seats, streams)

    permuted, revealed, moved = _permuted(setups, mode, played.steps)
    assert revealed > 0 and moved >= 2  # some of black's towers were revealed to white; others changed
    print(mode, len(played.steps), "actions", played.reveals, "reveals", revealed, "revealed", moved, "permuted",
          len(prober.answers), "probes")
    assert played.reveals > 0 or mode == "third_eye"  # black, a board, asked the hub to reveal its flashes
    seats, streams = start(hub.url, mode, setups["white"], permuted, kinds=("browser", "board"))
    prober2 = Prober(seats)
    again = play(seats, streams, script=played.steps, probe=prober2)
    second, code2 = _white_messages(seats, streams)
    for a, b in zip(played.steps, again.steps):
        assert a["answer"] == b["answer"]  # the reveals answered the same

    second = [m.replace(code2, code1) for m in second]  # a game's code is drawn at random
    # every answer white's prober got is the same (and there were some of each kind)
    assert len(prober.answers) > 100 and prober.answers == prober2.answers
    assert {a[0] for a in prober.answers} == {200, 400}
    assert len(first) == len(second)
    flashes = 0
    for i, (a, b) in enumerate(zip(first, second)):
        da, db = (json.loads(b"".join(x[6:] for x in m.split(b"\n") if x.startswith(b"data: "))) for m in (a, b))
        if da["phase"] == "over":  # the end: the record opens every identity, the rest is the same
            assert da.pop("record") != db.pop("record")
            assert json.dumps(da) == json.dumps(db), i
            continue
        assert a == b, f"message {i} differs"
        flashes = len([e for e in (da["view"] or {}).get("events", []) if e["type"] == "flash"])
    assert flashes >= 1  # and the flashes revealed towers of both sides to both
