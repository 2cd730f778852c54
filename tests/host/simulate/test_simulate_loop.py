"""The closed loop: the players react to what a referee tells them, and to nothing else.

The players are tested against a tiny fake referee written here, apart from both the
simulator and host.referee: it expects the played actions in order, reads an action once
the board has held its occupancy for 0.3 s with every space it changes touched, and follows
a script (ask a question, refuse an input, point at a mistake).  One test runs the real
referee, to show that the loop ticks it exactly as a replay of the recorded trace does.
"""

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.actions import Move, Swap, Time, action_from_record
from engine.board import SPACE_NAMES as N
from engine.randplay import random_game
from engine.record import to_record
from host.simulate import Hands, run_closed_loop
from host.simulate.oracle import same_game
from host.simulate.timing import ANSWER, FOLLOW
from host.simulate.truth import look_alikes
from host.board.trace import InputLine
from host.referee.traces import referee_trace

ROOT = Path(__file__).resolve().parents[3]


class Refused(ValueError):
    """The fake's refusal (the documented interface: a ValueError subclass)."""


@dataclass(frozen=True)
class Note:
    audience: str
    kind: str
    data: dict


class FakeReferee:
    SETTLE = 0.3

    def __init__(self, game, ask=None, ask_swap=None, refuse=(), correct=False):
        self.game = game
        self.plan = None  # set by the test: the actions it expects, in order
        self.ask = dict(ask or {})  # action number -> options to ask about instead of committing
        self.ask_swap = dict(ask_swap or {})  # action number -> swaps to ask "did you swap?" about
        self.refuse = set(refuse)  # input types refused, once each
        self.correct = correct  # point at a tower that stands where no action puts one
        self.raw, self.touched, self.due = frozenset(), set(), None
        self.started, self.question = False, None
        self.inputs, self.notes = [], []

    def feed(self, snapshot):
        self.touched |= snapshot.occupied ^ self.raw
        self.raw = snapshot.occupied
        self.due = snapshot.t + self.SETTLE
        return []

    def next_deadline(self):
        return self.due

    def tick(self, now):
        if self.due is None or now < self.due:
            return []
        self.due = None
        return self._out(self._look())

    def input(self, player, data, now):
        self.inputs.append((now, player, data))
        if data["type"] in self.refuse:
            self.refuse.discard(data["type"])
            raise Refused(f"{data['type']} refused")
        q = self.question
        if q is not None and data["type"] == "choose" and action_from_record(data["action"]) in q["options"]:
            self.question = None
            return self._out([Note(player, "question", {"options": [], "text": "thanks"})]
                             + self._commit(action_from_record(data["action"])))
        if q is not None and q["swap"] and data["type"] == "done":
            self.question = None
            return self._out(self._commit(self.plan[len(self.game.log)]))
        return []

    def private_status(self, player):
        q = self.question
        return {"question": [o.to_record() for o in q["options"]] if q and q["player"] == player else None}

    def _out(self, notes):
        self.notes.extend(notes)
        return notes

    def _look(self):
        game = self.game
        if not self.started:
            if self.raw == game.occupied():
                self.started = True
                self.touched = set()
                return [Note("public", "started", {"turn": 1, "to_move": game.to_move, "text": "go"})]
            return []
        k = len(game.log)
        if k >= len(self.plan) or self.question is not None:
            return []
        action, mover = self.plan[k], game.to_move
        before = game.state.board[:]
        game.push(action)
        after, occupied = game.state.board[:], game.occupied()
        game.pop()
        changed = {s for s in range(99) if before[s] != after[s]}
        if self.raw == occupied and changed <= self.touched:
            for script, swap in ((self.ask, False), (self.ask_swap, True)):
                if k in script:
                    options = script.pop(k)
                    self.question = {"player": mover, "options": options, "swap": swap}
                    return [Note(mover, "question", {"options": [o.to_record() for o in options], "text": "which?"})]
            return self._commit(action)
        extra = self.raw - game.occupied() - occupied
        missing = game.occupied() - self.raw
        if self.correct and len(extra) == 1 and len(missing) == 1:
            (x,), (y,) = extra, missing
            item = {"do": "move", "from": N[x], "to": N[y], "text": f"move the tower on {N[x]} to {N[y]}"}
            return [Note(mover, "waiting", {"instructions": [item], "reason": "no", "text": item["text"]})]
        return []

    def _commit(self, action):
        game = self.game
        player, turn = game.to_move, game.turn
        game.push(action)
        self.touched = set()
        return [Note("public", "committed", {"turn": turn, "player": player, "action": {"type": "hidden"}}),
                Note(player, "committed", {"turn": turn, "player": player, "action": action.to_record()})]


def fresh(game):
    """A new game from the same setups: the fake's own copy of the truth."""
    return type(game)(game.setups["white"], game.setups["black"], game.mode, game.vision, game.first)


def cut(game, n):
    """The game's first whole turns holding at least ``n`` actions, as a played Game."""
    out = fresh(game)
    for i, (turn, _, action) in enumerate(game.log):
        if i >= n and turn != game.log[i - 1][0]:
            break
        out.push(action)
    return out


def find(mode, pick, seeds=range(40), length=80):
    """(played game, action number, what pick found) for the first action pick accepts."""
    for seed in seeds:
        game = random_game(seed, mode, length)
        replay = fresh(game)
        for k, (_, _, action) in enumerate(game.log):
            found = pick(replay, action) if k >= 2 else None
            if found:
                return cut(game, k + 1), k, found
            replay.push(action)
    raise AssertionError("no such action")


def play(played, fake, seed=3, noise="none", pace="relaxed", faults=None):
    hands = Hands(played, seed, noise, pace, faults)
    fake.plan = [a for _, _, a in played.log]
    return hands, run_closed_loop(hands, fake)


def inputs_of(hands, k):
    return [line for line, index in hands.machine.inputs if index == k]


def answers(hands):
    return [line for line, index in hands.machine.inputs if index == -3]


def question_time(fake):
    return next(i for i, n in enumerate(fake.notes) if n.kind == "question" and n.data["options"])


# --- independence ----------------------------------------------------------------------------


def test_the_simulator_imports_nothing_of_the_referee():
    code = ("import sys; import host.simulate, host.simulate.players, host.simulate.loop; "
            "bad = [m for m in ('host.referee', 'host.referee.debounce') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    # ...and no module of it names them, imports its way round, or calls the engine's reading of
    # the board (what the referee uses): every import and every name, read from the source.
    banned = {"board_effect", "evidence_choice", "importlib", "__import__", "import_module", "Debouncer"}
    for path in sorted((ROOT / "host" / "simulate").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                names = [base] + [f"{base}.{a.name}" for a in node.names]
                assert not (node.level and base.startswith(("referee", "debounce"))), path.name
            else:
                names = []
            for name in names:
                assert not name.startswith(("host.referee", "host.referee.debounce")) and name not in ("host",), (path.name, name)
            word = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
            assert word not in banned, (path.name, word)


# --- reacting to the phone ---------------------------------------------------------------------


def test_players_answer_a_question_with_the_option_they_played():
    def pick(game, action):
        if type(action) is Move and game.state.board[action.to] == -1:
            other = next((a for a in game.legal_actions() if type(a) is Move and a != action), None)
            return other
    played, k, other = find("classic", pick)
    action = played.log[k][2]
    fake = FakeReferee(fresh(played),
                       ask={k: [other, action]})
    hands, run = play(played, fake)
    (answer,) = answers(hands)
    assert answer.input == {"type": "choose", "action": action.to_record()}
    asked = next(t for t, n in run.notices if n.kind == "question" and n.data["options"])
    assert ANSWER[0] <= answer.t - asked <= ANSWER[1] + 1e-6
    assert to_record(fake.game) == to_record(played)
    assert hands.report()["exact"] and hands.questions[0]["needed"] is True


def test_players_choose_an_option_that_leaves_the_very_same_game():
    def pick(game, action):
        twins = [a for a in look_alikes(game, action) if same_game(game, action, a)]
        if not twins:
            return None
        other = next(a for a in game.legal_actions() if not same_game(game, action, a))
        return twins[0], other
    for mode in ("classic", "third_eye"):
        played, k, (twin, other) = find(mode, pick)
        fake = FakeReferee(fresh(played),
                           ask={k: [other, twin]})
        hands, _ = play(played, fake)
        (answer,) = answers(hands)
        assert answer.input == {"type": "choose", "action": twin.to_record()}
        report = hands.report()
        assert report["same_game"] and not report["exact"]
        assert report["same_game_differences"] == [{"index": k, "played": played.log[k][2].to_record(),
                                                    "committed": twin.to_record()}]


def test_players_say_done_to_a_did_you_swap_they_did_not_make():
    def pick(game, action):
        if type(action) is Move:
            return next((a for a in game.legal_actions() if type(a) is Swap), None)
    played, k, swap = find("classic", pick)
    fake = FakeReferee(fresh(played),
                       ask_swap={k: [swap]})
    hands, _ = play(played, fake)
    (answer,) = answers(hands)
    assert answer.input == {"type": "done"}
    assert to_record(fake.game) == to_record(played)
    assert hands.questions[0]["needed"] is True  # "no" leaves another game than the swap


def test_a_refused_input_is_not_sent_again():
    played, k, _ = find("classic", lambda game, action: type(action) is Time)
    fake = FakeReferee(fresh(played), refuse={"time"})
    hands, run = play(played, fake)
    sent = [line for line in hands.trace().events if isinstance(line, InputLine) and line.input == {"type": "time"}]
    times = [a for _, _, a in played.log if type(a) is Time]
    assert len(sent) == len(times)  # one tap per Time used, the refused one not repeated
    assert [(r["input"], r["reason"]) for r in hands.refusals] == [({"type": "time"}, "time refused")]
    assert run.refused[0][3] == "time refused"
    assert to_record(fake.game) == to_record(played)  # the fake reads Time from the board


def test_players_follow_a_correction_after_a_staged_illegal_move():
    played, k, _ = find("classic", lambda game, action: type(action) is Move and game.state.board[action.to] == -1)
    fake = FakeReferee(fresh(played), correct=True)
    hands, run = play(played, fake, faults={k: "illegal"})
    (number, kind, (f, t)), = hands.fault_log
    assert (number, kind) == (k, "illegal")
    told = next(tn for tn, n in run.notices if n.kind == "waiting")
    lift = next(tg for tg in hands.toggles if tg.space == t and not tg.reading and tg.tag == "lift" and tg.t > told)
    place = next(tg for tg in hands.toggles if tg.space == f and tg.reading and tg.tag == "place" and tg.t > lift.t)
    assert FOLLOW[0] <= lift.t - told <= FOLLOW[1] + 0.2
    assert hands.fault_outcomes[0]["outcome"] == "followed"
    assert place.t < lift.t + 3
    assert to_record(fake.game) == to_record(played)


def test_without_a_correction_players_put_a_mistake_right_by_themselves_later():
    played, k, _ = find("classic", lambda game, action: type(action) is Move and game.state.board[action.to] == -1)
    fake = FakeReferee(fresh(played), correct=False)
    hands, _ = play(played, fake, faults={k: "illegal"})
    assert hands.fault_outcomes[0]["outcome"] == "unprompted"
    assert to_record(fake.game) == to_record(played)


def test_the_same_seed_gives_the_same_closed_loop_run():
    played = cut(random_game(4, "third_eye", 60), 40)

    def run(seed):
        fake = FakeReferee(fresh(played))
        hands, _ = play(played, fake, seed=seed, noise="high", pace="brisk")
        return hands.trace().events

    a, b, c = run(1), run(1), run(2)
    assert a == b and a != c


# --- against the real referee: the loop is its replay ----------------------------------------


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_the_recorded_trace_referees_again_exactly_as_the_loop_went(mode):
    from host.referee import Referee  # the harness side: the test may hold both

    played = random_game(12, mode, 60)
    hands = Hands(played, 5, "high", "brisk")
    run = run_closed_loop(hands, Referee(hands.header.new_game()))
    again = referee_trace(run.trace)
    assert again.referee.game.log == run.referee.game.log
    assert [(n.audience, n.kind, n.data) for n in again.notices] == [(n.audience, n.kind, n.data) for _, n in run.notices]
    assert [r[3] for r in again.rejected_inputs] == [r[3] for r in run.refused]


def test_quin_simulate_plays_the_closed_loop_at_either_pace(tmp_path, capsys):
    import json

    from host.cli import main

    played = random_game(11, "classic", 40)
    record = tmp_path / "game.json"
    record.write_text(json.dumps(to_record(played)), encoding="utf-8")
    out = tmp_path / "brisk.trace"
    assert main(["simulate", str(record), "--seed", "2", "--pace", "brisk", "--noise", "low", "-o", str(out)]) == 0
    note = capsys.readouterr().err
    assert main(["simulate", str(record), "--seed", "2", "--pace", "brisk", "--noise", "low"]) == 0
    again = capsys.readouterr()
    assert again.out == out.read_text(encoding="utf-8") and again.err == note  # seeded, closed loop included
    code = main(["referee", "--trace", str(out)])
    refereed = json.loads(capsys.readouterr().out)
    # The note says when the referee did not keep up; the trace referees again to the same end.
    assert (code == 0 and not note) or note.startswith("quin: note: the referee committed ")
    assert refereed["format"] == "quin-record/1"
    with pytest.raises(SystemExit) as refused:
        main(["simulate", str(record), "--pace", "frantic"])
    assert refused.value.code == 2 and "--pace" in capsys.readouterr().err
