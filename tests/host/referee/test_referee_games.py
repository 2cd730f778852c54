"""Whole random games played on a simulated physical board: the referee must reproduce every
record exactly, across noise levels and modes, leak nothing, and recover from faults.

A stuck referee is a failure; a wrong commit is a worse one; the bar is zero.
"""


import pytest

from tests.support.refplay import words

from engine.actions import Move
from engine.board import SPACE_NAMES as N, other
from engine.flash import CAPTURE, FLASH_TABLE
from engine.game import EMPTY, FlashEvent
from engine.randplay import random_game
from engine.record import to_record, turns_of
from engine.views import action_seen_by
from host.referee import Referee
from host.simulate import LEVELS, Simulator, simulate
from host.board.trace import TraceHeader
from host.referee.traces import run_referee

# Game counts keep this file well under a minute on two cores; bench/referee_soak.py plays thousands.
GAMES = {"classic": 25, "third_eye": 12}
MAX_ACTIONS = 150


def referee_game(played, seed, noise, faults=None):
    if faults is None:
        trace = simulate(played, seed, noise)
        sim = None
    else:
        sim = Simulator(TraceHeader.of_game(played), seed, noise, faults)
        sim.setup()
        sim.play([(p, tuple(a)) for p, a in turns_of(played)])
        trace = sim.trace()
    commits = []
    ref = Referee(trace.header.new_game(), on_commit=lambda turn, player, action: commits.append((turn, player, action)))
    run = run_referee(ref, trace.events)
    return run, commits, sim


def assert_reproduced(played, run, commits):
    game = run.referee.game
    assert run.stuck is None, run.stuck
    assert run.rejected_inputs == []
    assert to_record(game) == to_record(played)
    assert commits == list(game.log)  # on_commit once per action, in order


@pytest.mark.parametrize("noise", LEVELS)
@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_random_games_are_refereed_exactly(mode, noise):
    base = {"none": 0, "low": 1000, "medium": 2000, "high": 3000}[noise]
    for seed in range(base, base + GAMES[mode]):
        played = random_game(seed, mode, MAX_ACTIONS)
        run, commits, _ = referee_game(played, seed, noise)
        assert_reproduced(played, run, commits)


def test_whole_games_to_their_end_in_vision_mode_too():
    for seed, mode in ((7, "classic"), (8, "third_eye")):
        played = random_game(seed, mode, 400, vision=True)
        run, commits, _ = referee_game(played, seed, "medium")
        assert_reproduced(played, run, commits)


def public_pieces_allowed(game, notice, log_index):
    """The piece names a public notice may carry, and a check of what it says."""
    kind, data = notice.kind, notice.data
    if kind == "flash":
        event = next(e for e in game.events if isinstance(e, FlashEvent) and e.turn == data["turn"]
                     and N[e.at] == data["at"])
        assert (event.attacker, event.defender, event.outcome) == (data["attacker"], data["defender"], data["outcome"])
        return {event.attacker, event.defender}
    if kind == "committed":
        turn, actor, action = game.log[log_index]
        assert data["action"] == action_seen_by(game, action, actor, None)
        return words(data["action"])
    if kind == "time":
        return {"time", "shadow"}  # the Power is public; a failed Time reveals a Shadow
    if kind == "instruction" and data.get("for") == "time":
        return {"time"}  # what is left to do for the (public) Power of Time
    return set()


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_public_notices_never_name_a_hidden_tower(mode):
    scanned = 0
    for seed in range(500, 506):
        played = random_game(seed, mode, MAX_ACTIONS)
        run, commits, _ = referee_game(played, seed, "medium")
        assert_reproduced(played, run, commits)
        game = run.referee.game
        committed = 0
        for notice in run.notices:
            assert notice.audience in ("public", "white", "black")
            if notice.audience != "public":
                continue
            index = committed
            if notice.kind == "committed":
                committed += 1
            allowed = public_pieces_allowed(game, notice, index)
            assert words(notice.data) <= allowed, (notice, allowed)
            scanned += 1
    assert scanned > 100


def fault_position(played, kind):
    """An action number where ``kind`` can be staged."""
    game = TraceHeader.of_game(played).new_game()
    for i, (_, _, action) in enumerate(played.log):
        board = game.state.board
        if i >= 6:
            if kind in ("stuck_off", "stuck_on", "illegal"):
                return i
            if kind == "knock" and type(action) is Move and board[action.to] == EMPTY:
                return i
            if kind == "wrong_outcome" and type(action) is Move and board[action.to] != EMPTY:
                pair = (game.piece[board[action.frm]], game.piece[board[action.to]])
                if FLASH_TABLE[game.mode][pair] == CAPTURE:
                    return i
        game.push(action)
    return None


@pytest.mark.parametrize("kind", ["knock", "stuck_off", "stuck_on", "illegal", "wrong_outcome"])
@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_faults_end_in_a_clear_instruction_and_the_game_goes_on_with_nothing_lost(mode, kind):
    staged = 0
    for seed in range(40, 52):
        played = random_game(seed, mode, 100)
        at = fault_position(played, kind)
        if at is None:
            continue
        run, commits, sim = referee_game(played, seed, "low", {at: kind})
        if not sim.fault_log:
            continue
        assert_reproduced(played, run, commits)
        number, _, spaces = sim.fault_log[0]
        names = {N[s] for s in spaces}
        turn, mover, _ = played.log[number]
        told = [n for n in run.notices if n.kind in ("waiting", "instruction", "rejected")]
        if kind == "wrong_outcome":
            f, t = (N[s] for s in spaces)
            assert any(n.audience == "public" and {"do": "move", "from": f, "to": t,
                                                   "text": f"move the tower on {f} to {t}"}
                       in n.data.get("instructions", []) for n in told)
        elif kind == "illegal":
            f, t = (N[s] for s in spaces)
            rejected = [n for n in run.notices if n.kind == "rejected" and n.data["reason"]
                        and n.data["reason"].startswith(f"move {f}-{t} ")]
            assert rejected and all(n.audience == mover for n in rejected)
            assert not any(f"{f}-{t}" in str(n.data) for n in run.notices if n.audience != mover)
        else:
            (space,) = names
            want = "clear" if kind == "stuck_on" else "fill"
            assert any(n.audience in (mover, other(mover), "public")
                       and any(i.get("do") == want and i.get("space") == space for i in n.data.get("instructions", []))
                       for n in told), kind
        staged += 1
        if staged >= 2:
            break
    assert staged >= 1
