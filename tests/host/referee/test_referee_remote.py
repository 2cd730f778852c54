"""The referee's remote-play hooks (docs/remote-play.md, "Inside the Pi"; docs/referee.md, "Remote play").

A board in remote play holds a *stand-in* game: its own player's towers and every revealed
tower true, each unrevealed rival tower given some identity.  Here the stand-in is deliberately
WRONG (a rival tower given another identity than the truth), and a fake hub answers with the
truthful game, built apart with ``Game.from_position``: whatever the referee announces and
commits about a flash or a Classic Time must be the truth's, never the stand-in's.
"""


import pytest

from tests.support.refplay import Play
from tests.support.remote_referee import committed, followed, pos

from engine.actions import Move, Resurrect, Swap, Time
from engine.board import parse_space as S
from engine.flash import CAPTURE, MUTUAL, SWAP
from engine.game import Game
from host.referee import Phase, Referee


class Hub:
    """A fake hub: answers with the truthful game (or None while ``ready`` is False)."""

    def __init__(self, truth=None, ready=True):
        self.truth = truth
        self.ready = ready
        self.asked = []

    def flash(self, actions):
        self.asked.append(("flash", list(actions)))
        return self.truth() if self.ready else None

    def time(self, action):
        self.asked.append(("time", action))
        return self.truth() if self.ready else None


def flash_notices(play):
    return [n for n in play.notices if n.kind == "flash"]


def hub_waits(play):
    return [n for n in play.notices if n.kind == "waiting" and n.data.get("for") == "hub"]


# --- flashes --------------------------------------------------------------------------------------


def test_a_flash_announced_and_committed_is_the_truths_not_the_standins():
    """Spec 4: a Shadow flashing a Void is mutual destruction; the stand-in says the tower on w33 is
    a Peripheral (a capture).  The hub's game decides: both towers leave the board."""
    standin = pos({"w35": "S", "w33": "p"})
    assert standin.board_effect(Move(S("w35"), S("w33"))).flash.outcome == CAPTURE  # the stand-in's lie
    hub = Hub(lambda: pos({"w35": "S", "w33": "v"}))
    play = Play(standin, oracle=hub)
    play.lift("w35", then=0.1)
    play.lift("w33", then=0.6)
    assert hub.asked == [("flash", [Move(S("w35"), S("w33"))])]
    (flash,) = flash_notices(play)
    assert flash.audience == "public"
    assert (flash.data["defender"], flash.data["outcome"]) == ("void", MUTUAL)
    assert flash.data["instructions"] == []  # both off the board already: nothing to put back
    play.wait(0.5)
    assert committed(play) == [("white", Move(S("w35"), S("w33")))]
    game = play.ref.game
    assert S("w35") not in game.occupied() and S("w33") not in game.occupied()
    assert game.to_move == "black"
    assert not hub_waits(play)  # answered at once: nothing to wait for


def test_a_flash_played_faster_than_it_can_be_announced_waits_for_the_hub_too():
    """The stand-in says swap (Shadow on Shadow); the truth is a capture of a Peripheral.  Played at
    once (the defender off, the attacker on its space within 0.14 s), it is still the hub's to say."""
    standin = pos({"w35": "S", "w33": "s"})
    assert standin.board_effect(Move(S("w35"), S("w33"))).flash.outcome == SWAP
    hub = Hub(lambda: pos({"w35": "S", "w33": "p"}))
    play = Play(standin, oracle=hub)
    play.board.lift(S("w35"))
    play.board.lift(S("w33"))
    play.wait(0.16)
    play.place("w33", then=0.6)  # both towers off and the attacker on the target in 0.2 s
    assert [a for kind, a in hub.asked] == [[Move(S("w35"), S("w33"))]]
    (flash,) = flash_notices(play)
    assert (flash.data["defender"], flash.data["outcome"]) == ("peripheral", CAPTURE)
    assert committed(play) == [("white", Move(S("w35"), S("w33")))]
    assert play.ref.game.occupied() == play.board.occupied


def test_a_swap_flash_put_back_at_once_is_read_with_the_truth():
    """The stand-in says capture; the truth is Shadow on Shadow: swap.  Both towers lifted and put
    back at once shows no change at all: at one table the truth game reads it as the swap; with the
    stand-in it would have been forgotten as towers straightened."""
    standin = pos({"w35": "S", "w33": "p"})
    hub = Hub(lambda: pos({"w35": "S", "w33": "s"}))
    play = Play(standin, oracle=hub)
    play.board.lift(S("w35"))
    play.board.lift(S("w33"))
    play.wait(0.16)
    play.board.place(S("w33"))
    play.place("w35", then=0.8)  # both towers lifted and back in 0.2 s
    assert len(hub.asked) == 1
    (flash,) = flash_notices(play)
    assert (flash.data["defender"], flash.data["outcome"]) == ("shadow", SWAP)
    assert committed(play) == [("white", Move(S("w35"), S("w33")))]


def test_while_the_hub_has_not_answered_nothing_is_announced_or_committed():
    standin = pos({"w35": "S", "w33": "p"})
    hub = Hub(lambda: pos({"w35": "S", "w33": "v"}), ready=False)
    play = Play(standin, oracle=hub)
    play.lift("w35", then=0.1)
    play.lift("w33", then=2.0)
    assert play.ref.state is Phase.HUB
    (wait,) = hub_waits(play)  # said once, publicly, however long it takes
    assert wait.audience == "public" and "hub" in wait.data["text"]
    assert not flash_notices(play) and committed(play) == []
    assert "hub" in play.ref.public_status()["waiting_for"]
    asked = len(hub.asked)
    assert asked > 10  # asked again at every tick and snapshot
    # the mover carries the truth out meanwhile: still nothing is committed
    play.wait(1.0)
    assert committed(play) == [] and len(hub_waits(play)) == 1
    hub.ready = True
    play.wait(0.5)
    (flash,) = flash_notices(play)
    assert flash.data["outcome"] == MUTUAL
    assert committed(play) == [("white", Move(S("w35"), S("w33")))]
    assert play.ref.state is Phase.PLAY
    n = len(hub.asked)
    play.wait(0.5)
    assert len(hub.asked) == n  # never asked again once answered


def test_a_word_said_while_the_hub_is_asked_is_judged_once_it_answers():
    standin = pos({"w35": "S", "w33": "p"})
    hub = Hub(lambda: pos({"w35": "S", "w33": "v"}), ready=False)
    play = Play(standin, oracle=hub)
    play.lift("w35", then=0.1)
    play.lift("w33", then=0.5)
    assert play.ref.state is Phase.HUB
    play.say("white", {"type": "choose", "action": Move(S("w35"), S("w33")).to_record()})
    assert committed(play) == []
    hub.ready = True
    play.wait(0.5)
    assert committed(play) == [("white", Move(S("w35"), S("w33")))]


def test_the_hub_is_never_asked_for_a_defender_already_revealed():
    standin = pos({"w35": "S", "w33": "p"}, revealed=["w33"])
    hub = Hub(lambda: pytest.fail("the hub must not be asked"))
    play = Play(standin, oracle=hub)
    play.lift("w35", then=0.1)
    play.lift("w33", then=0.6)
    play.place("w33", then=0.5)
    assert hub.asked == []
    assert flash_notices(play)[0].data["outcome"] == CAPTURE
    assert committed(play) == [("white", Move(S("w35"), S("w33")))]


def test_a_plain_move_never_asks_the_hub():
    standin = pos({"w35": "S", "w33": "p"})
    hub = Hub(lambda: pytest.fail("the hub must not be asked"))
    play = Play(standin, oracle=hub)
    play.move("w35", "w36", then=0.6)
    assert hub.asked == [] and committed(play) == [("white", Move(S("w35"), S("w36")))]


# --- Classic Time ---------------------------------------------------------------------------------


def after_black_moved(letter: str) -> Game:
    """White to move after Black's tower (a ``letter``) b35-b33; White's Time on w38."""
    game = pos({"w38": "T", "w18": "M", "w28": "V", "b35": letter}, "black")
    game.push(Move(S("b35"), S("b33")))
    return game


def test_classic_time_announces_the_truths_outcome():
    """Rulebook: Time fails if the rival's last action moved a Shadow.  The stand-in says the tower
    that moved is a Peripheral (the Time would rewind); it is a Shadow: the Time fails."""
    standin = after_black_moved("p")
    assert standin.board_effect(Time(S("w38"))).time_outcome == "rewound"  # the stand-in's lie
    hub = Hub(lambda: after_black_moved("s"))
    play = Play(standin, oracle=hub)
    play.say("white", {"type": "time"})
    assert hub.asked == [("time", Time(S("w38")))]
    (time,) = [n for n in play.notices if n.kind == "time"]
    assert time.audience == "public" and time.data["outcome"] == "failed"
    assert [i["do"] for i in time.data["instructions"]] == ["clear"]  # only the Time tower goes
    play.lift("w38", then=1.0)
    assert committed(play) == [("white", Time(S("w38")))]
    done = [n for n in play.notices if n.kind == "time" and n.data.get("done")]
    assert done[-1].data["outcome"] == "failed"


def test_classic_time_waits_for_the_hub_then_announces():
    standin = after_black_moved("p")
    hub = Hub(lambda: after_black_moved("s"), ready=False)
    play = Play(standin, oracle=hub)
    play.say("white", {"type": "time"})
    play.wait(0.5)
    assert play.ref.state is Phase.HUB
    assert not [n for n in play.notices if n.kind == "time"]
    assert len(hub_waits(play)) == 1
    play.lift("w38", then=1.0)  # carried out already: still nothing committed
    assert committed(play) == []
    hub.ready = True
    play.wait(0.5)
    (time,) = [n for n in play.notices if n.kind == "time" and not n.data.get("done")]
    assert time.data["outcome"] == "failed"
    assert committed(play) == [("white", Time(S("w38")))]


def test_classic_time_never_asks_the_hub_when_the_moved_tower_is_known():
    standin = pos({"w38": "T", "w18": "M", "w28": "V", "b35": "p"}, "black", revealed=["b35"])
    standin.push(Move(S("b35"), S("b33")))
    hub = Hub(lambda: pytest.fail("the hub must not be asked"))
    play = Play(standin, oracle=hub)
    play.say("white", {"type": "time"})
    assert hub.asked == []
    assert [n for n in play.notices if n.kind == "time"][0].data["outcome"] == "rewound"


# --- replace_game ---------------------------------------------------------------------------------


def test_replace_game_keeps_the_evidence_and_refuses_another_position():
    standin = pos({"w35": "S", "w33": "p"})
    play = Play(standin)
    play.lift("w35", then=0.3)  # a move under way
    with pytest.raises(ValueError, match="w35"):
        play.ref.replace_game(pos({"w36": "S", "w33": "p"}))
    with pytest.raises(ValueError, match="black to move"):
        play.ref.replace_game(pos({"w35": "S", "w33": "p"}, "black"))
    assert play.ref.game is standin  # nothing changed
    play.ref.replace_game(pos({"w35": "S", "w33": "v"}))
    play.place("w36", then=0.5)  # the lift before the replacement still counts
    assert committed(play) == [("white", Move(S("w35"), S("w36")))]


# --- reads: a side played elsewhere ---------------------------------------------------------------


def test_a_side_this_board_does_not_read_is_never_committed():
    game = pos({"w35": "S", "b35": "s"}, "black")
    play = Play(game, reads={"white"})
    play.move("b35", "b34", then=1.0)  # black's legal move, on this board
    assert committed(play) == [] and play.ref.game.to_move == "black"
    fix = [n for n in play.notices if n.kind == "instruction" and n.data.get("for") == "board"]
    assert fix and fix[-1].audience == "public"
    assert fix[-1].data["instructions"] == [{"do": "move", "from": "b34", "to": "b35",
                                             "text": "move the tower on b34 to b35"}]
    play.move("b34", "b35", then=1.0)
    assert committed(play) == []
    assert play.notices[-1].data["instructions"] == []  # the board is as it was again
    with pytest.raises(Exception, match="elsewhere"):
        play.say("black", {"type": "done"})
    assert play.ref.public_status()["phase"] == "play"


# --- follow: the rival's action played elsewhere --------------------------------------------------


def white_to_move():
    return pos({"w35": "S", "b35": "s", "b36": "m"})


def test_follow_publishes_the_plan_waits_for_it_corrects_then_reads_whites_next_move():
    game = white_to_move()
    play = Play(game, reads={"white"})
    play.move("w35", "w36", then=0.6)
    assert committed(play) == [("white", Move(S("w35"), S("w36")))]
    after = white_to_move()
    after.push(Move(S("w35"), S("w36")))
    after, plan = followed(after, Move(S("b35"), S("b34")))
    got = play.ref.follow(after, plan)
    play.notices += got
    (instr,) = [n for n in got if n.kind == "instruction"]
    assert instr.audience == "public" and instr.data["text"] == plan["text"] == "move Black's tower on b35 to b34"
    assert play.ref.state is Phase.FOLLOW
    assert play.ref.expected() == after.occupied()
    play.wait(1.0)
    assert play.ref.state is Phase.FOLLOW  # nothing done yet: no correction before the board moves
    assert not [n for n in play.notices if n.kind == "instruction" and n.data.get("for") == "follow"
                and n.data["instructions"] and n.data["instructions"][0].get("do") == "move"
                and n is not instr]
    # done wrong: the tower put on b33
    play.move("b35", "b33", then=0.6)
    assert play.ref.state is Phase.FOLLOW
    fix = [n for n in play.notices if n.kind == "instruction" and n.data.get("for") == "follow"][-1]
    assert fix.audience == "public"
    assert fix.data["instructions"] == [{"do": "move", "from": "b33", "to": "b34", "text": "move the tower on b33 to b34"}]
    play.move("b33", "b34", then=0.6)
    assert play.ref.state is Phase.PLAY and play.ref.game is after
    done = [n for n in play.notices if n.kind == "instruction" and n.data.get("done")]
    assert done and done[-1].audience == "public"
    assert committed(play) == [("white", Move(S("w35"), S("w36")))]  # black's action is the hub's
    play.move("w36", "w37", then=0.6)
    assert committed(play)[-1] == ("white", Move(S("w36"), S("w37")))
    assert after.to_move == "black"


def test_follow_is_not_done_before_its_lifts_were_seen():
    """A Memory Swap changes no occupancy: the plan is done only once both towers were lifted."""
    game = pos({"w35": "S", "b35": "s", "b36": "m"}, "black")
    play = Play(game, reads={"white"})
    after = pos({"w35": "S", "b35": "s", "b36": "m"}, "black")
    after, plan = followed(after, Swap(S("b36"), S("b35")))
    assert sorted(plan["lift"]) == ["b35", "b36"]
    play.notices += play.ref.follow(after, plan)
    play.wait(1.0)
    assert play.ref.state is Phase.FOLLOW  # the board already shows the occupancy: not enough
    play.lift("b35", then=0.3)
    play.place("b35", then=0.6)
    assert play.ref.state is Phase.FOLLOW  # one of two lifts
    play.lift("b36", then=0.3)
    play.place("b36", then=0.6)
    assert play.ref.state is Phase.PLAY and play.ref.game.to_move == "white"


def test_follow_twice_expects_the_newest_position():
    """Black resurrects (not turn-ending) and then moves: two plans before the board shows either."""
    def black_to_move():
        return pos({"w35": "S", "b35": "s"}, "black", captured={"black": ["peripheral"]})

    res, mv = Resurrect("peripheral", S("w19")), Move(S("b35"), S("b34"))
    play = Play(black_to_move(), reads={"white"})
    after1, plan1 = followed(black_to_move(), res)
    assert after1.to_move == "black"
    after2 = black_to_move()
    after2.push(res)
    after2, plan2 = followed(after2, mv)
    play.notices += play.ref.follow(after1, plan1)
    play.place("w19", then=0.1)
    got = play.ref.follow(after2, plan2)
    play.notices += got
    assert [n.data["text"] for n in got if n.kind == "instruction"] == [plan2["text"]]
    assert play.ref.expected() == after2.occupied()
    play.wait(1.0)
    assert play.ref.state is Phase.FOLLOW
    play.move("b35", "b34", then=0.6)
    assert play.ref.state is Phase.PLAY and play.ref.game is after2 and after2.to_move == "white"
    assert committed(play) == []
    play.move("w35", "w36", then=0.6)
    assert committed(play) == [("white", Move(S("w35"), S("w36")))]


def test_follow_refuses_a_side_this_board_reads_and_a_malformed_plan():
    game = white_to_move()
    play = Play(game, reads={"white"})
    with pytest.raises(ValueError, match="reads white"):
        play.ref.follow(white_to_move(), {"text": "x", "lift": [], "place": []})
    play.move("w35", "w36", then=0.6)
    after = white_to_move()
    after.push(Move(S("w35"), S("w36")))
    with pytest.raises(ValueError, match="lift"):
        play.ref.follow(after, {"text": "x", "lift": ["z99"], "place": []})
    assert play.ref.state is Phase.PLAY


def test_at_one_table_nothing_of_remote_play_shows():
    ref = Referee(white_to_move())
    assert ref.reads == frozenset({"white", "black"}) and ref.oracle is None


def test_follow_while_the_board_is_still_being_set_up_sets_it_to_the_newest_position():
    """The rival plays first, in a browser, while this board's player still sets up their lineup:
    the board is then set to the position after the rival's action."""
    def black_first():
        return pos({"w35": "S", "b35": "s"}, "black")

    play = Play(black_first(), start=False, reads={"white"})
    after, plan = followed(black_first(), Move(S("b35"), S("b34")))
    play.notices += play.ref.follow(after, plan)
    assert play.ref.phase == "setup" and play.ref.expected() == after.occupied()
    for s in sorted(after.occupied()):
        play.place(s, then=0.05)
    play.wait(0.5)
    assert play.ref.phase == "play" and play.ref.game is after
    started = [n for n in play.notices if n.kind == "started"]
    assert started and started[-1].data["to_move"] == "white"
    play.move("w35", "w36", then=0.6)
    assert committed(play) == [("white", Move(S("w35"), S("w36")))]


def test_the_rivals_flash_is_followed_with_both_towers_lifted():
    """The rival's flash (played elsewhere, its outcome the hub's): the plan lifts both towers; done
    once both were lifted and the board shows the outcome."""
    def black_to_move():
        return pos({"w35": "S", "w34": "s"}, "black", revealed=["w34"])

    play = Play(black_to_move(), reads={"white"})
    after, plan = followed(black_to_move(), Move(S("w34"), S("w35")))  # shadow on shadow: swap
    assert plan.get("flash") and sorted(plan["lift"]) == ["w34", "w35"]
    assert after.occupied() == black_to_move().occupied()
    play.notices += play.ref.follow(after, plan)
    play.lift("w34", then=0.3)
    play.place("w34", then=0.6)
    assert play.ref.state is Phase.FOLLOW
    play.lift("w35", then=0.3)
    play.place("w35", then=0.6)
    assert play.ref.state is Phase.PLAY and play.ref.game.to_move == "white"


@pytest.mark.parametrize("ready", [True, False])
def test_a_time_said_during_the_rivals_turn_asks_the_hub_when_the_turn_begins(ready):
    """White taps Time while Black's move (played elsewhere) is still being carried out on the
    board: it counts when White's turn begins, and its outcome is the hub's."""
    def black_to_move(letter):
        return pos({"w38": "T", "w18": "M", "w28": "V", "b35": letter}, "black")

    hub = Hub(lambda: after_black_moved("s"), ready=ready)
    play = Play(black_to_move("p"), reads={"white"}, oracle=hub)
    after, plan = followed(black_to_move("p"), Move(S("b35"), S("b33")))
    play.notices += play.ref.follow(after, plan)
    play.say("white", {"type": "time"})  # kept for White's turn
    assert hub.asked == []
    play.move("b35", "b33", then=0.6)
    assert hub.asked and hub.asked[0] == ("time", Time(S("w38")))
    if not ready:
        assert play.ref.state is Phase.HUB and len(hub_waits(play)) == 1
        assert not [n for n in play.notices if n.kind == "time"]
        hub.ready = True
        play.wait(0.1)
    (time,) = [n for n in play.notices if n.kind == "time"]
    assert time.data["outcome"] == "failed" and play.ref.state is Phase.TIME
    play.lift("w38", then=1.0)
    assert committed(play) == [("white", Time(S("w38")))]


DEFENDERS = ["p", "s", "v", "r", "m", "t", "l", "a"]


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("attacker", ["S", "P", "R", "M", "A"])  # those that reach w33
def test_every_lie_about_the_defender_gives_the_truths_flash(attacker, fast):
    """Every attacker, every identity the stand-in may give the defender, every true identity: the
    board carries out the truth's outcome (from the truth game's own board effect), and the referee
    announces and commits exactly that, whatever the stand-in said (spec 4, the flash table)."""
    move = Move(S("w35"), S("w33"))

    def board(defender):  # the same occupancy whatever the defender (Black's Light on b11 unless on w33)
        return pos({"w35": attacker, "w33": defender, "b11": "l" if defender != "l" else "p"})

    tried = 0
    for lie in DEFENDERS:
        for truth in DEFENDERS:
            if lie == truth:
                continue
            standin, true_game = board(lie), board(truth)
            if move not in true_game.legal_actions():
                continue
            assert move in standin.legal_actions()  # legality never depends on the defender
            effect = true_game.board_effect(move)
            hub = Hub(lambda truth=truth: board(truth))
            play = Play(standin, oracle=hub)
            play.board.lift(S("w35"))
            play.wait(0.2)
            play.board.lift(S("w33"))
            play.wait(0.16 if fast else 0.6)
            after = effect.after(true_game.occupied())
            for s in sorted(after - play.board.occupied):
                play.board.place(s)
                play.wait(0.2)
            play.wait(0.6)
            assert len(hub.asked) == 1, (lie, truth)
            (flash,) = flash_notices(play)
            assert (flash.data["defender"], flash.data["outcome"]) == (effect.flash.defender, effect.flash.outcome)
            assert committed(play) == [("white", move)], (lie, truth)
            true_game.push(move)
            assert play.ref.game.occupied() == true_game.occupied()
            assert play.ref.game.state.loc == true_game.state.loc
            tried += 1
    assert tried >= 20


@pytest.mark.parametrize("fast", [False, True])
def test_what_happens_before_the_hub_answers_never_depends_on_the_standins_lie(fast):
    """Until the hub answers, the notices (their bytes, their count, their timing) are the same
    whatever identity the stand-in gave the defender: it decides nothing."""
    runs = []
    for lie in DEFENDERS:
        if lie == "l":
            continue
        standin = pos({"w35": "S", "w33": lie})
        hub = Hub(lambda: pos({"w35": "S", "w33": "v"}), ready=False)
        play = Play(standin, oracle=hub)
        trace = []
        play.board.lift(S("w35"))
        play.wait(0.2)
        play.board.lift(S("w33"))
        for _ in range(16 if fast else 60):
            trace.append([n.to_json() for n in play.wait(0.01)])
        play.board.place(S("w33"))  # (a capture, as the truth is not: nothing may come of it yet)
        for _ in range(100):
            trace.append([n.to_json() for n in play.wait(0.01)])
        runs.append((trace, len(hub.asked) > 0, play.ref.state))
    assert all(r == runs[0] for r in runs)
    assert runs[0][1] and runs[0][2] is Phase.HUB


def test_replace_game_while_a_flash_is_held_keeps_it_held_with_the_new_games_candidates():
    """A refreshed stand-in arriving while an announced flash is carried out: the flash stays held
    (rebuilt from the new game) and commits when the board shows its outcome."""
    def game():
        return pos({"w35": "S", "w33": "p", "b35": "s"}, revealed=["w33"])

    play = Play(game())
    play.lift("w35", then=0.1)
    play.lift("w33", then=0.6)
    assert play.ref.state is Phase.FLASH
    held = play.ref.current.flash
    fresh = game()
    play.ref.replace_game(fresh)
    assert play.ref.state is Phase.FLASH and play.ref.game is fresh
    now = play.ref.current.flash
    assert [c.action for c in now.group] == [c.action for c in held.group] and now.result == held.result
    assert all(c.effect is not d.effect for c, d in zip(now.group, held.group))  # rebuilt
    play.place("w33", then=0.5)
    assert committed(play) == [("white", Move(S("w35"), S("w33")))] and fresh.to_move == "black"
