"""Issue 17, item 5: a rival's word reveals nothing.

The player not to move may send the referee anything a phone can send.  What they are told
(the answer or the refusal, every notice, their private status, the public status, queue counts
included) must depend only on what they may know, never on the mover's legal actions, reserve or
hidden towers.  Each test plays the same position twice, the second time with two of the mover's
towers the rival has never seen exchanged in the lineup (so the same history is legal and the
rival's and public views are equal), probes with every action legal for the mover in either
world and every word, and compares the answers byte for byte.
"""

import json
import random

import pytest

from tests.support.refplay import Play

from engine.actions import Move
from engine.board import other
from engine.game import Game
from engine.pieces import make_setup
from engine.randplay import random_game
from engine.views import knows, view
from host.referee import InputError

PIECES = ["shadow", "time", "void", "peripheral", "light", "memory", "reflector", "artificial_light"]


def replay(game: Game, setups: dict, upto: int) -> Game:
    g = Game(setups["white"], setups["black"], game.mode, game.vision, game.first)
    for _, _, action in game.log[:upto]:
        g.push(action)
    return g


def twin(game: Game, upto: int, rng: random.Random):
    """A second world: the position after ``upto`` actions with two of the mover's never-seen towers
    exchanged in the lineup, the same history legal and the same for the rival and the public."""
    base = replay(game, game.setups, upto)
    mover = base.to_move
    rival = other(mover)
    start = replay(game, game.setups, 0)
    spaces = [start.state.loc[t] for t in start.towers
              if start.owner[t] == mover and start.state.loc[t] >= 0 and not knows(base, rival, t)]
    pairs = [(a, b) for i, a in enumerate(spaces) for b in spaces[i + 1:]]
    rng.shuffle(pairs)
    for a, b in pairs:
        s = game.setups[mover]
        lineup = dict(s.lineup)
        if lineup[a] == lineup[b]:
            continue
        lineup[a], lineup[b] = lineup[b], lineup[a]
        setups = dict(game.setups)
        setups[mover] = make_setup(mover, s.clone, s.removed, lineup)
        other_world = Game(setups["white"], setups["black"], game.mode, game.vision, game.first)
        ok = True
        for _, _, action in game.log[:upto]:
            if not other_world.is_legal(action):
                ok = False
                break
            other_world.push(action)
        if not ok or view(other_world, rival) != view(base, rival) or view(other_world, None) != view(base, None):
            continue
        if set(other_world.legal_actions()) == set(base.legal_actions()):
            continue  # the probes could not tell these apart anyway
        return base, other_world
    return None


def probes(a: Game, b: Game) -> list[dict]:
    """Every action legal for the mover in either world (those legal in one only first), then every word."""
    la, lb = set(a.legal_actions()), set(b.legal_actions())
    differ = sorted(la ^ lb, key=str)
    both = sorted(la & lb, key=str)[:20]
    out = [{"type": "choose", "action": x.to_record()} for x in differ[:40] + both]
    out += [{"type": "reinforce", "pieces": [p]} for p in PIECES]
    out += [{"type": "resurrect", "piece": p} for p in PIECES]
    out += [{"type": "time"}, {"type": "swap"}, {"type": "done"}, {"type": "time"}]
    return out


def answers(play: Play, rival: str, batch: list[dict]) -> list:
    got = []
    for data in batch:
        try:
            notices = play.say(rival, data)
            got.append(("ok", [(n.audience, n.kind, n.data) for n in notices if n.audience != play.game.to_move]))
        except InputError as exc:
            got.append(("refused", str(exc)))
        got.append(("status", play.ref.private_status(rival), play.ref.public_status()))
    return json.loads(json.dumps(got, sort_keys=True))


def worlds(seeds, mode):
    rng = random.Random(17)
    for seed in seeds:
        game = random_game(seed, mode, 40)
        for upto in range(2, len(game.log), 7):
            pair = twin(game, upto, rng)
            if pair is not None:
                yield seed, upto, pair


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_the_rivals_probes_get_the_same_answers_whatever_the_movers_towers_are(mode):
    told_apart = 0
    compared = 0
    for seed, upto, (a, b) in worlds(range(6), mode):
        batch = probes(a, b)
        told_apart += len(set(a.legal_actions()) ^ set(b.legal_actions()))
        rival = other(a.to_move)
        runs = []
        for g in (a, b):
            play = Play(g)
            settled = answers(play, rival, batch)
            # and again while the mover's tower is in the air (the board unsettled)
            mover_space = next(s for s in sorted(g.occupied())
                               if g.owner[g.state.board[s]] == g.to_move)
            play.board.lift(mover_space)
            play.feed()
            play.wait(0.02)
            moving = answers(play, rival, batch[:12] + batch[-6:])
            play.wait(0.5)
            runs.append((settled, moving, [(n.audience, n.kind, n.data) for n in play.notices
                                            if n.audience != g.to_move]))
        assert runs[0] == runs[1], (seed, upto)
        compared += 1
    assert compared >= 3 and told_apart > 0  # the test had probes legal in one world only


def test_a_rival_naming_a_legal_and_an_illegal_move_of_the_mover_hears_the_same():
    """The issue's probe: Black names a White move legal only if the tower on w35 is a Shadow
    ("moves 1 to 7"), again and again (the queue counts included)."""
    from engine.board import parse_space as S
    from tests.support.engine_helpers import position

    def world(piece):
        return position({"w35": piece, "w18": "M", "b35": "s", "w11": "L", "b11": "l"}, "white")

    shadow, peripheral = set(world("S").legal_actions()), set(world("P").legal_actions())
    only_shadow = sorted((a for a in shadow - peripheral if isinstance(a, Move) and a.frm == S("w35")), key=str)
    assert only_shadow
    out = []
    for piece in ("S", "P"):
        game = world(piece)
        play = Play(game)
        res = []
        for probe in only_shadow[:3] + sorted(shadow & peripheral, key=str)[:3]:
            for _ in range(10):
                try:
                    notices = play.say("black", {"type": "choose", "action": probe.to_record()})
                    res.append(("ok", [(n.audience, n.kind, n.data) for n in notices if n.audience != "white"]))
                except InputError as exc:
                    res.append(("refused", str(exc)))
                res.append((play.ref.private_status("black"), play.ref.public_status()))
        out.append(json.dumps(res, sort_keys=True))
    assert out[0] == out[1]
