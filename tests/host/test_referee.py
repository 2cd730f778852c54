"""The referee, one behaviour at a time, on a simulated board with a manual clock."""

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from refplay import Play, find_position, words  # noqa: E402

from engine.actions import PASS, Move, Reflect, Reinforce, Resurrect, Swap, Time, action_from_record  # noqa: E402
from engine.board import SPACE_NAMES as N, other, parse_space  # noqa: E402
from engine.flash import CAPTURE, FLASH_TABLE, MUTUAL, SWAP  # noqa: E402
from engine.game import EMPTY, Game  # noqa: E402
from engine.randplay import random_game  # noqa: E402
from engine.views import action_seen_by  # noqa: E402
from host.referee import InputError, Notice, Referee, Step, corrections, evidence_choice  # noqa: E402
from host.simulate import _path  # noqa: E402


def outcome_of(game, action):
    board = game.state.board
    return FLASH_TABLE[game.mode][(game.piece[board[action.frm]], game.piece[board[action.to]])]


def clear_move(min_path=0):
    def pred(game):
        for a in game.legal_actions():
            if type(a) is Move and game.state.board[a.to] == EMPTY and evidence_choice(game, a) == a:
                path = _path(a.frm, a.to)
                if path is not None and len(path) >= min_path:
                    return a
        return None

    return pred


def flash_with(outcome):
    def pred(game):
        for a in game.legal_actions():
            if type(a) is Move and game.state.board[a.to] != EMPTY and outcome_of(game, a) == outcome:
                if evidence_choice(game, a) == a:
                    return a
        return None

    return pred


# --- setup, sync, plain moves -----------------------------------------------------------------


def test_the_game_starts_only_when_both_lineups_stand_on_their_spaces():
    game = random_game(1, "classic", 0)
    play = Play(game, start=False)
    play.wait(1.0)
    assert play.ref.phase == "setup"
    instr = [n for n in play.notices if n.kind == "instruction"]
    assert instr and instr[-1].audience == "public"
    assert {i["space"] for i in instr[-1].data["instructions"]} == {N[s] for s in game.occupied()}
    with pytest.raises(InputError, match="not started"):
        play.say(game.to_move, {"type": "time"})
    spaces = sorted(game.occupied())
    for s in spaces[:-1]:
        play.place(s, then=0.1)
    play.wait(1.0)
    assert play.ref.phase == "setup"
    assert play.ref.public_status()["instructions"] == [
        {"do": "fill", "space": N[spaces[-1]], "text": f"put a tower on {N[spaces[-1]]}"}
    ]
    play.place(spaces[-1], then=0.5)
    assert play.ref.phase == "play"
    assert ("public", "started") in play.kinds()
    assert play.ref.public_status()["instructions"] == []


def test_a_resumed_game_waits_for_the_board_to_match_and_gives_a_correction_list():
    game, move = find_position(clear_move(), seeds=range(3))
    game.push(move)
    play = Play(game, start=False)
    play.board.set(game.occupied() - {move.to} | {move.frm})  # the board still shows the old position
    play.wait(1.0)
    assert play.ref.phase == "sync"
    todo = play.ref.public_status()["instructions"]
    assert todo == [{"do": "move", "from": N[move.frm], "to": N[move.to],
                     "text": f"move the tower on {N[move.frm]} to {N[move.to]}"}]
    play.move(move.frm, move.to, then=0.5)
    assert play.ref.phase == "play"
    assert play.played() == []  # nothing was committed while syncing


def test_a_plain_move_commits_soon_after_the_board_settles_and_on_commit_comes_first():
    game, move = find_position(clear_move())
    mover = game.to_move
    play = Play(game)
    play.lift(move.frm)
    play.board.place(move.to)
    placed = play.t
    got = play.feed()
    while not play.commits:
        got += play.wait(0.01)
    latency = play.t - placed
    assert latency < play.ref.settle  # faster than the settle window
    assert play.played() == [move]
    turn, player, action, before = play.commits[0]
    assert (player, action) == (mover, move)
    assert before == len(play.notices) - len(got)  # on_commit ran before any notice was returned
    public = [n for n in got if n.audience == "public" and n.kind == "committed"]
    assert public[0].data["action"] == action_seen_by(game, move, mover, None)
    assert [n for n in got if n.audience == mover and n.kind == "committed"]


def test_a_tower_slid_across_the_board_is_one_move_to_where_it_stops():
    game, move = find_position(clear_move(min_path=2))
    play = Play(game)
    path = _path(move.frm, move.to)
    play.board.lift(move.frm)
    play.feed()
    for s in path:
        play.board.place(s)
        play.wait(0.03)
        play.board.lift(s)
        play.wait(0.02)
    play.place(move.to, then=0.5)
    assert play.played() == [move]


def test_bumps_hovering_and_a_slow_hand_do_not_disturb_a_move():
    game, move = find_position(clear_move())
    play = Play(game)
    neighbour = next(s for s in sorted(game.occupied()) if s not in (move.frm, move.to))
    play.lift(move.frm, then=0.1)
    play.raw(neighbour, False, 0.12)  # bumped off its magnet for 120 ms
    play.wait(3.0)  # a slow hand: held, thinking
    assert play.played() == [] and not [n for n in play.notices if n.kind in ("waiting", "rejected")]
    for _ in range(4):  # hovering over the target
        play.raw(move.to, True, 0.03)
        play.wait(0.05)
    assert play.played() == []
    play.place(move.to, then=0.3)
    play.raw(neighbour, False, 0.1)
    play.wait(0.5)
    assert play.played() == [move]


# --- flashes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("defender_first", [False, True])
def test_a_capture_flash_is_announced_with_instructions_then_committed_when_placed(defender_first):
    game, move = find_position(flash_with(CAPTURE))
    board = game.state.board
    attacker, defender = game.piece[board[move.frm]], game.piece[board[move.to]]
    mover = game.to_move
    play = Play(game)
    first, second = (move.to, move.frm) if defender_first else (move.frm, move.to)
    play.lift(first, then=0.1)
    play.lift(second, then=0.6)
    flashes = [n for n in play.notices if n.kind == "flash"]
    assert len(flashes) == 1 and flashes[0].audience == "public"
    data = flashes[0].data
    assert (data["attacker"], data["defender"], data["outcome"]) == (attacker, defender, CAPTURE)
    assert data["at"] == N[move.to] and data["from"] == N[move.frm]
    assert data["instructions"] == [{"do": "fill", "space": N[move.to], "text": f"put a tower on {N[move.to]}"}]
    assert play.played() == []
    assert play.ref.expected() == game.occupied() - {move.frm}
    play.place(move.to, then=0.5)
    assert play.played(who=True) == [(mover, move)]
    assert game.events[-1].outcome == CAPTURE


def test_a_swap_flash_says_where_each_tower_goes():
    game, move = find_position(flash_with(SWAP))
    play = Play(game)
    play.lift(move.frm, then=0.1)
    play.lift(move.to, then=0.6)
    flash = next(n for n in play.notices if n.kind == "flash").data
    assert flash["outcome"] == SWAP
    assert sorted(i["space"] for i in flash["instructions"]) == sorted([N[move.frm], N[move.to]])
    play.place(move.frm, then=0.4)  # outcome towers in any order
    assert play.played() == []
    play.place(move.to, then=0.5)
    assert play.played() == [move]


def test_a_mutual_destruction_commits_as_soon_as_both_towers_are_off():
    game, move = find_position(flash_with(MUTUAL))
    play = Play(game)
    play.lift(move.frm, then=0.1)
    play.lift(move.to, then=0.6)
    kinds = play.kinds()
    assert kinds.index(("public", "flash")) < kinds.index(("public", "committed"))
    assert play.played() == [move]


def test_a_wrong_flash_outcome_gets_a_public_correction_and_nothing_is_lost():
    game, move = find_position(flash_with(CAPTURE))
    play = Play(game)
    play.lift(move.frm, then=0.1)
    play.lift(move.to, then=0.6)
    play.place(move.frm, then=1.0)  # the attacker put back home: wrong
    assert play.played() == []
    instr = [n for n in play.notices if n.kind == "instruction"][-1]
    assert instr.audience == "public"
    assert instr.data["instructions"] == [{"do": "move", "from": N[move.frm], "to": N[move.to],
                                           "text": f"move the tower on {N[move.frm]} to {N[move.to]}"}]
    play.move(move.frm, move.to, then=0.5)
    assert play.played() == [move]


# --- never guess ----------------------------------------------------------------------------------


def ambiguous(game):
    for a in game.legal_actions():
        if type(a) in (Move,) and game.state.board[a.to] == EMPTY and evidence_choice(game, a) is None:
            return a
    return None


def test_several_different_actions_fitting_the_board_make_a_private_question():
    game, action = find_position(ambiguous, modes=("third_eye",))
    mover = game.to_move
    play = Play(game)
    play.move(action.frm, action.to, then=1.0)
    assert play.played() == []
    questions = [n for n in play.notices if n.kind == "question"]
    assert questions and all(n.audience == mover for n in questions)
    options = [action_from_record(o) for o in questions[-1].data["options"]]
    assert action in options and len(options) >= 2
    assert play.ref.private_status(mover)["question"]["options"] == questions[-1].data["options"]
    assert play.ref.private_status(other(mover))["question"] is None
    assert not any(n.audience == "public" for n in play.notices)
    other_option = next(o for o in options if o != action)
    with pytest.raises(InputError):
        play.say(other(mover), {"type": "choose", "action": action.to_record()})
    play.say(mover, {"type": "choose", "action": other_option.to_record()})
    assert play.played() == [other_option]


def test_the_answer_to_a_question_commits_exactly_that_action():
    game, action = find_position(ambiguous, modes=("third_eye",))
    mover = game.to_move
    play = Play(game)
    play.move(action.frm, action.to, then=1.0)
    play.say(mover, {"type": "choose", "action": action.to_record()})
    assert play.played() == [action]
    assert play.ref.private_status(mover)["question"] is None


def same_result(game):
    for a in game.legal_actions():
        if type(a) is Reflect and game.state.board[a.to] == EMPTY:
            choice = evidence_choice(game, a)
            if choice is not None and choice != a:
                return a, choice
    return None


def test_actions_with_the_same_result_commit_without_a_question_unless_named_first():
    game, (reflect, move) = find_position(same_result)
    play = Play(game)
    play.move(reflect.frm, reflect.to, then=0.5)
    assert play.played() == [move]
    game2, _ = find_position(same_result)
    play2 = Play(game2)
    play2.say(game2.to_move, {"type": "choose", "action": reflect.to_record()})
    play2.move(reflect.frm, reflect.to, then=0.5)
    assert play2.played() == [reflect]
    assert not [n for n in play2.notices if n.kind == "question"]


def test_an_illegal_move_is_told_only_to_the_mover_and_taking_it_back_carries_on():
    def pred(game):
        step = Step(game)
        me = game.to_move
        for f in sorted(game.occupied()):
            if game.owner[game.state.board[f]] != me:
                continue
            for t in range(99):
                if t not in game.occupied() and not step.index.get((frozenset({f}), frozenset({t}))):
                    if game.why_illegal(Move(f, t)).startswith("is "):
                        return f, t
        return None

    game, (f, t) = find_position(pred, seeds=range(2))
    mover = game.to_move
    play = Play(game)
    play.move(f, t, then=1.0)
    assert play.played() == []
    rejected = [n for n in play.notices if n.kind == "rejected"]
    assert rejected and all(n.audience == mover for n in rejected)
    assert rejected[-1].data["reason"] == f"move {N[f]}-{N[t]} {game.why_illegal(Move(f, t))}"
    waiting = [n for n in play.notices if n.kind == "waiting"][-1]
    assert waiting.audience == mover
    assert waiting.data["instructions"][0]["do"] == "move"
    assert not any(n.audience in ("public", other(mover)) for n in play.notices)
    play.move(t, f, then=0.5)
    legal = next(a for a in game.legal_actions() if type(a) is Move and game.state.board[a.to] == EMPTY
                 and evidence_choice(game, a) == a)
    play.move(legal.frm, legal.to, then=0.5)
    assert play.played() == [legal]


# --- declarations: reinforcement, resurrection, Time, Memory Swap, pass -------------------------


def reinforce_needing_a_name(game):
    for a in game.legal_actions():
        if type(a) is Reinforce and len(a.placements) == 1 and evidence_choice(game, a) is None:
            return a
    return None


def test_a_reinforcement_is_never_guessed_the_mover_names_the_piece():
    game, action = find_position(reinforce_needing_a_name)
    mover = game.to_move
    (gate, piece), = action.placements
    play = Play(game)
    play.place(gate, then=1.0)
    assert play.played() == []
    question = [n for n in play.notices if n.kind == "question"][-1]
    assert question.audience == mover
    assert action.to_record() in question.data["options"]
    play.say(mover, {"type": "reinforce", "pieces": [piece]})
    assert play.played() == [action]
    public = [n for n in play.notices if n.audience == "public" and n.kind == "committed"][-1]
    assert public.data["action"] == {"type": "reinforce", "to": {N[gate]: None}}


def test_a_declared_reinforcement_of_several_artificial_lights_waits_for_all_of_them():
    def pred(game):
        return next((a for a in game.legal_actions() if type(a) is Reinforce and len(a.placements) == 2), None)

    game, action = find_position(pred)
    mover = game.to_move
    play = Play(game)
    play.say(mover, {"type": "reinforce", "pieces": ["artificial_light", "artificial_light"]})
    (g1, _), (g2, _) = action.placements
    play.place(g1, then=3.0)
    assert play.played() == []
    assert not [n for n in play.notices if n.kind in ("waiting", "rejected")]
    play.place(g2, then=0.5)
    assert play.played() == [action]


def test_a_resurrection_is_declared_placed_and_the_turn_goes_on():
    def pred(game):
        return next((a for a in game.legal_actions() if type(a) is Resurrect), None)

    game, action = find_position(pred)
    mover = game.to_move
    play = Play(game)
    play.say(mover, {"type": "resurrect", "piece": action.piece})
    play.place(action.to, then=0.5)
    assert play.played() == [action]
    assert game.to_move == mover  # Resurrection does not end the turn


def classic_rewind(game):
    if game.mode != "classic":
        return None
    last = game.state.last_action
    for a in game.legal_actions():
        if type(a) is Time and last is not None and not last.moved_shadow and len(last.moved) == 1:
            (_, x, y), = last.moved
            if x >= 0 and y >= 0:
                return a, x, y
    return None


def test_classic_time_says_what_to_undo_publicly_and_checks_the_board_did_it():
    game, (action, x, y) = find_position(classic_rewind, modes=("classic",))
    mover = game.to_move
    play = Play(game)
    play.say(mover, {"type": "time"})
    notice = next(n for n in play.notices if n.kind == "time")
    assert notice.audience == "public"
    todo = notice.data["instructions"]
    assert {"do": "move", "from": N[y], "to": N[x], "text": f"move the tower on {N[y]} back to {N[x]}"} in todo
    assert todo[0]["do"] == "clear" and todo[0]["space"] == N[action.at]
    play.lift(action.at, then=1.0)
    assert play.played() == []
    play.move(y, x, then=0.5)
    assert play.played() == [action]
    assert game.to_move == mover  # Time does not end the turn
    done = [n for n in play.notices if n.kind == "time" and n.data.get("done")]
    assert done and done[-1].data["outcome"] == "rewound"


def test_third_eye_time_is_read_from_the_board_after_the_declaration():
    def pred(game):
        return next((a for a in game.legal_actions() if type(a) is Time), None)

    game, action = find_position(pred, modes=("third_eye",))
    mover = game.to_move
    play = Play(game)
    play.say(mover, {"type": "time"})
    assert any(n.kind == "time" and n.audience == "public" for n in play.notices)
    play.lift(action.at, then=0.5)
    play.move(action.target, action.to, then=0.5)
    assert play.played() == [action]


def classic_swap(game):
    if game.mode != "classic":
        return None
    return next((a for a in game.legal_actions() if type(a) is Swap and evidence_choice(game, a, "swap") == a), None)


@pytest.mark.parametrize("declare", ["before", "after", "confirm"])
def test_a_memory_swap_needs_both_towers_touched_and_the_movers_word(declare):
    game, action = find_position(classic_swap, modes=("classic",))
    mover = game.to_move
    play = Play(game)
    if declare == "before":
        play.say(mover, {"type": "swap"})
    play.lift(action.memory, then=0.4)
    play.lift(action.other, then=0.4)
    play.place(action.memory, then=0.2)
    play.place(action.other, then=1.0)
    if declare == "before":
        assert play.played() == [action]
        return
    assert play.played() == []  # lifted and put back: nothing happens without the mover's word
    question = [n for n in play.notices if n.kind == "question"][-1]
    assert question.audience == mover and action.to_record() in question.data["options"]
    if declare == "after":
        play.say(mover, {"type": "swap"})
    else:
        play.say(mover, {"type": "choose", "action": action.to_record()})
    assert play.played() == [action]


class PassingGame(Game):
    """A game whose next mover has no turn-ending action (random games almost never get there)."""

    stuck_player = None

    def _generate(self):
        if self.state.to_move == self.stuck_player and self.state.result is None:
            return [PASS]
        return super()._generate()


def test_a_player_without_any_turn_ending_action_passes_and_both_are_told():
    played = random_game(4, "classic", 0)
    game = PassingGame(played.setups["white"], played.setups["black"], "classic", first=played.first)
    first = game.to_move
    move = next(a for a in game.legal_actions() if type(a) is Move and evidence_choice(game, a) == a)
    game.stuck_player = other(first)
    play = Play(game)
    play.move(move.frm, move.to, then=0.5)
    assert play.played(who=True) == [(first, move), (other(first), PASS)]
    passes = [n for n in play.notices if n.kind == "committed" and n.data["action"] == {"type": "pass"}]
    assert {n.audience for n in passes} == {"public", other(first)}


# --- inputs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, message",
    [
        ("time", "JSON object"),
        ({}, "type"),
        ({"type": "dance"}, "unknown input type"),
        ({"type": "time", "when": 1}, "unknown field 'when'"),
        ({"type": "reinforce"}, "missing field 'pieces'"),
        ({"type": "reinforce", "pieces": []}, "pieces"),
        ({"type": "reinforce", "pieces": ["dragon"]}, "unknown piece"),
        ({"type": "resurrect", "piece": 3}, "unknown piece"),
        ({"type": "choose", "action": {"type": "move", "from": "w99", "to": "w18"}}, "unknown space"),
        ({"type": "choose", "action": {"type": "fly"}}, "unknown action type"),
    ],
)
def test_malformed_inputs_are_refused_with_a_reason_and_change_nothing(data, message):
    game, _ = find_position(clear_move(), seeds=range(1))
    play = Play(game)
    before = (game.state.key(), play.ref.decl, len(play.notices))
    with pytest.raises(InputError, match=message):
        play.say(game.to_move, data)
    assert (game.state.key(), play.ref.decl, len(play.notices)) == before


def test_out_of_turn_and_impossible_inputs_are_refused_and_change_nothing():
    game, move = find_position(clear_move(), seeds=range(1))
    play = Play(game)
    rival = other(game.to_move)
    before = game.state.key()
    with pytest.raises(InputError, match=f"it is {game.to_move}'s turn"):
        play.say(rival, {"type": "done"})
    with pytest.raises(InputError, match="player"):
        play.say("green", {"type": "done"})
    illegal = Move(move.frm, move.frm)
    with pytest.raises(InputError, match="choose"):
        play.say(game.to_move, {"type": "choose", "action": illegal.to_record()})
    if not any(type(a) is Time for a in game.legal_actions()):
        with pytest.raises(InputError, match="time"):
            play.say(game.to_move, {"type": "time"})
    assert game.state.key() == before and play.ref.decl is None


def test_done_with_nothing_finished_is_answered_privately():
    game, _ = find_position(clear_move(), seeds=range(1))
    play = Play(game)
    got = play.say(game.to_move, {"type": "done"})
    assert [(n.audience, n.kind) for n in got] == [(game.to_move, "rejected")]
    assert play.played() == []


# --- corrections and candidates ----------------------------------------------------------------------


def test_corrections_pair_displaced_towers_with_the_nearest_free_spaces():
    sp = parse_space
    board = frozenset({sp("w35"), sp("w11"), sp("b19")})
    target = frozenset({sp("w36"), sp("w12"), sp("b19")})
    todo = corrections(board, target)
    assert [(i["from"], i["to"]) for i in todo] == [("w11", "w12"), ("w35", "w36")]
    todo = corrections(frozenset({sp("w35"), sp("w57")}), frozenset({sp("w36")}))
    assert [i["do"] for i in todo] == ["move", "clear"] and todo[0]["from"] == "w35" and todo[1]["space"] == "w57"
    todo = corrections(frozenset(), frozenset({sp("w36")}))
    assert todo == [{"do": "fill", "space": "w36", "text": "put a tower on w36"}]
    assert corrections(target, target) == []


def test_every_candidates_board_change_is_what_the_engine_does():
    checked = Counter()
    for mode in ("classic", "third_eye"):
        for seed in range(6):
            played = random_game(seed, mode, 80)
            game = Game(played.setups["white"], played.setups["black"], mode, first=played.first)
            for _, _, action in played.log:
                step = Step(game)
                before = game.occupied()
                for c in step.cands:
                    game.push(c.action)
                    assert c.result(before) == game.occupied(), str(c.action)
                    game.pop()
                    checked[type(c.action).__name__] += 1
                game.push(action)
    assert {"Move", "Reinforce", "Time", "Gravity", "Swap"} <= set(checked)


def test_notice_is_a_frozen_record_and_input_error_a_value_error():
    n = Notice("public", "committed", {"x": 1})
    with pytest.raises(Exception):
        n.kind = "other"
    assert issubclass(InputError, ValueError)
    assert n.to_json() == {"audience": "public", "kind": "committed", "data": {"x": 1}}


def test_referee_statuses_hold_nothing_hidden():
    game, move = find_position(flash_with(CAPTURE))
    play = Play(game)
    status = play.ref.public_status()
    assert status["phase"] == "play" and status["to_move"] == game.to_move
    assert words(status) == set()
    for p in ("white", "black"):
        assert play.ref.private_status(p)["player"] == p
    with pytest.raises(ValueError):
        play.ref.private_status("green")
    assert play.ref.expected() == game.occupied()


def test_a_negative_settle_window_is_refused():
    with pytest.raises(ValueError):
        Referee(random_game(0, "classic", 0), settle=-1)



def test_a_commit_made_while_refusing_an_input_is_still_reported():
    game, move = find_position(clear_move(), seeds=range(1))
    mover = game.to_move
    play = Play(game)
    play.lift(move.frm)
    play.place(move.to, then=0.0)  # placed; the referee has not had time to commit yet
    assert play.played() == []
    # An input a second later: the referee first catches up (commits the move), then finds
    # the input out of turn and refuses it.
    with pytest.raises(InputError, match="turn"):
        play.ref.input(mover, {"type": "done"}, play.t + 1.0)
    assert play.played() == [move]
    assert ("public", "committed") not in play.kinds()
    later = play.wait(0.05)  # the commit's notices come with the next call
    assert ("public", "committed") in play.kinds(later)


def test_a_sensor_that_never_settles_is_reported_publicly_and_the_game_goes_on_after():
    game, move = find_position(clear_move(), seeds=range(1))
    play = Play(game)
    flicker = next(s for s in sorted(game.occupied()) if s not in (move.frm, move.to))
    for _ in range(60):  # 6 s of a reading flickering every 50 ms
        play.raw(flicker, False, 0.05)
        play.wait(0.05)
    waiting = [n for n in play.notices if n.kind == "waiting"]
    assert waiting and waiting[0].audience == "public" and waiting[0].data["sensors"] == [N[flicker]]
    assert words(waiting[0].data) == set()
    play.wait(0.5)
    assert play.notices[-1].data["text"] == "the board has settled"
    play.move(move.frm, move.to, then=0.5)
    assert play.played() == [move]


def extendable_gravity(game):
    if game.mode != "third_eye":
        return None
    if not any(type(a).__name__ == "Gravity" for a in game.legal_actions()):
        return None
    step = Step(game)
    for c in step.cands:
        if c.needs is None and c.flash is None and len(c.rem) == 1:
            fits = [m for m in step.index[(c.rem, c.add)] if m.needs is None]
            if len(fits) == 1 and any(d.needs is None and d.flash is None and d.rem > c.rem and d.add > c.add
                                      for d in step.cands):
                return c.action
    return None


def pull(action):
    (a, b), = action.moves
    return a, b


def test_void_gravity_that_could_still_grow_waits_but_not_past_the_rivals_first_lift():
    game, move = find_position(extendable_gravity, modes=("third_eye",))
    mover = game.to_move
    play = Play(game)
    play.move(*pull(move), then=0.8)
    assert play.played() == []  # one Void of several might be pulled: wait (1.5 s) or "done"
    bumped = next(s for s in sorted(game.occupied()) if game.owner[game.state.board[s]] != mover)
    play.raw(bumped, False, 0.1)  # a bump is not a lift: still waiting
    assert play.played() == []
    play.lift(bumped, then=0.3)  # the rival lifts a tower for real: the mover was done
    assert play.played() == [move]
    assert game.to_move == other(mover)
    assert bumped in play.ref.touched  # the rival's lift counts toward their own move
    play.place(bumped, then=0.5)
    assert play.played() == [move]


def test_done_commits_void_gravity_that_could_still_grow_at_once():
    game, move = find_position(extendable_gravity, modes=("third_eye",))
    play = Play(game)
    play.move(*pull(move), then=0.3)
    assert play.played() == []
    play.say(game.to_move, {"type": "done"})
    assert play.played() == [move]


def reinforce_next_to_a_mover(game):
    legal = game.legal_actions()
    moves = {(a.frm, a.to) for a in legal if type(a) is Move}
    for a in legal:
        if type(a) is Reinforce and len(a.placements) == 1:
            (gate, _), = a.placements
            feeders = [f for f, t in moves if t == gate]
            if feeders and evidence_choice(game, a) is None:
                return a, feeders[0]
    return None


def test_a_tower_is_lifted_before_it_is_put_down_so_late_lifts_never_make_a_move():
    game, (reinforce, feeder) = find_position(reinforce_next_to_a_mover)
    mover = game.to_move
    (gate, piece), = reinforce.placements
    play = Play(game)
    play.place(gate, then=1.0)  # a tower from Zero Gravity: which one? (a question)
    assert any(n.kind == "question" for n in play.notices)
    play.lift(feeder, then=1.0)  # someone lifts the tower next to it a second later
    # the board now reads like "move feeder-gate", but that tower was still standing when
    # the new one arrived: it is not that move
    assert play.played() == []
    play.place(feeder, then=0.5)
    play.say(mover, {"type": "reinforce", "pieces": [piece]})
    assert play.played() == [reinforce]


def two_time_towers(game):
    times = [a for a in game.legal_actions() if type(a) is Time]
    if len({a.at for a in times}) >= 2:
        return times
    return None


def test_with_two_time_towers_only_the_mover_hears_where_they_stand():
    game, times = find_position(two_time_towers, modes=("third_eye",), seeds=range(300))
    mover = game.to_move
    spaces = sorted({N[a.at] for a in times})
    play = Play(game)
    got = play.say(mover, {"type": "time"})
    public = [n for n in got if n.audience == "public"]
    assert public and all(s not in str(n.data) for n in public for s in spaces)
    private = [n for n in got if n.audience == mover and n.data.get("time_towers")]
    assert private and private[0].data["time_towers"] == spaces
    action = times[0]
    play.lift(action.at, then=0.5)
    play.move(action.target, action.to, then=0.5)
    assert play.played() == [action]


def third_eye_swap_then_move(game):
    if game.mode != "third_eye":
        return None
    for a in game.legal_actions():
        if type(a) is Swap and evidence_choice(game, a, "swap") == a:
            game.push(a)
            try:
                move = next((m for m in game.legal_actions() if type(m) is Move
                             and game.state.board[m.to] == EMPTY and m.frm not in (a.memory, a.other)
                             and m.to not in (a.memory, a.other) and evidence_choice(game, m) == m), None)
            finally:
                game.pop()
            if move is not None:
                return a, move
    return None


def swap_on_board(play, swap):
    play.lift(swap.memory, then=0.4)
    play.lift(swap.other, then=0.4)
    play.place(swap.memory, then=0.2)
    play.place(swap.other, then=1.0)


def test_an_unanswered_did_you_swap_holds_the_next_move_until_answered():
    game, (swap, move) = find_position(third_eye_swap_then_move, modes=("third_eye",))
    mover = game.to_move
    play = Play(game)
    swap_on_board(play, swap)
    assert any(n.kind == "question" and n.audience == mover for n in play.notices)
    play.move(move.frm, move.to, then=1.0)  # carries on without answering
    assert play.played() == []  # a swap may have happened: never read past the question
    assert "answer the question first" in [n for n in play.notices if n.kind == "waiting"][-1].data["text"]
    play.say(mover, {"type": "swap"})  # yes: the swap, then the move, in that order
    assert play.played() == [swap, move]


def test_done_answers_did_you_swap_with_no():
    game, (swap, move) = find_position(third_eye_swap_then_move, modes=("third_eye",))
    mover = game.to_move
    play = Play(game)
    swap_on_board(play, swap)  # (only straightening two towers, as far as the mover is concerned)
    play.move(move.frm, move.to, then=1.0)
    assert play.played() == []
    play.say(mover, {"type": "done"})
    assert play.played() == [move]


def test_an_answer_settles_the_board_it_was_asked_about_and_what_came_after_is_the_next_turn():
    game, action = find_position(ambiguous, modes=("third_eye",))
    mover = game.to_move
    play = Play(game)
    play.move(action.frm, action.to, then=1.0)
    assert any(n.kind == "question" for n in play.notices)
    game.push(action)  # find the rival's reply in the position after the answer
    reply = next(m for m in game.legal_actions() if type(m) is Move and game.state.board[m.to] == EMPTY
                 and evidence_choice(game, m) == m and not {m.frm, m.to} & {action.frm, action.to})
    game.pop()
    play.move(reply.frm, reply.to, then=1.0)  # the rival does not wait for the answer
    assert play.played() == []
    play.say(mover, {"type": "choose", "action": action.to_record()})
    assert play.played() == [action, reply]


def test_void_gravity_taken_back_is_not_committed_when_the_rival_moves_later():
    game, pulled = find_position(extendable_gravity, modes=("third_eye",))
    mover = game.to_move
    play = Play(game)
    a, b = pull(pulled)
    play.move(a, b, then=0.5)
    play.move(b, a, then=0.5)  # taken back before the multi-tower wait ran out
    rival_tower = next(s for s in sorted(game.occupied()) if game.owner[game.state.board[s]] != mover)
    play.lift(rival_tower, then=0.5)
    assert play.played() == []
    play.place(rival_tower, then=2.0)
    assert play.played() == []
