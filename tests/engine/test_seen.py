"""``engine.seen``: a game as one player saw it, replayed from their view alone.

The oracle is the real game: ``Game``'s own state after ``push`` (a separate code path from the
replay of the view's records and events).  On random games of both modes, Vision Mode included,
every token stands where a real tower does, is that tower's owner, knows its identity exactly when
the player may, and the per-turn facts (Time used, the towers swapped this turn, the no-flash-back
ban, the last action Classic Time reads, Memory swaps left, capture turns) are the real ones.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.board import BLACK, PLAYERS, WHITE, other
from engine.game import Game
from engine.pieces import MEMORY, SHADOW, VOID
from engine.randplay import random_setup
from engine.seen import BOARD, CAPTURED, SeenMismatch, could_have_moved, seen_board, seen_game
from engine.state import RESERVE
from engine.views import knows, view

from tests.support.engine_helpers import S, mv, new_game


def _games(mode: str, count: int, seed: int):
    for i in range(count):
        rng = random.Random(seed + i)
        game = Game(random_setup(rng, WHITE), random_setup(rng, BLACK), mode=mode, vision=i % 6 == 5,
                    first=rng.choice(PLAYERS))
        for k in range(rng.randint(10, 240)):
            if game.is_over():
                break
            game.push(rng.choice(game.legal_actions()))
            if k % 9 == 0:
                yield game


def _check_against_the_game(game: Game, me: str) -> None:
    seen = seen_game(view(game, me))
    st = game.state
    assert seen.from_history and seen.viewer == me and seen.turn == st.turn
    tower_of = {}
    for i, t in enumerate(seen.towers):
        if t.where == BOARD:
            real = st.board[t.space]
            assert real >= 0 and seen.board[t.space] == i
            assert t.owner == game.owner[real]
            assert (t.piece is not None) == knows(game, me, real)
            assert t.piece is None or t.piece == game.piece[real]
            assert t.public == (st.known[real] == 3)
            tower_of[i] = real
    assert len(tower_of) == sum(1 for s in st.board if s >= 0)
    for p in PLAYERS:
        # (once the Totem is used, which of two captured towers of a piece came back is unseen, and
        # the capture turns left matter for nothing)
        used = st.totem_used[PLAYERS.index(p)]
        lost = Counter((t.piece, 0 if used else t.captured_turn) for t in seen.towers
                       if t.owner == p and t.where == CAPTURED)
        assert lost == Counter((game.piece[r], 0 if used else st.captured_turn[r]) for r in game.towers_of(p)
                               if st.loc[r] == -2)
    rival = other(me)
    assert seen.rival_reserve == sum(1 for r in game.towers_of(rival) if st.loc[r] == RESERVE)
    assert seen.time_used == st.time_used and seen.passes == st.passes
    assert {seen.towers[i].space for i in seen.frozen if i in tower_of} == {st.loc[r] for r in st.frozen}
    if st.flash_ban is not None and st.flash_ban[0] == st.turn and min(st.loc[st.flash_ban[1]], st.loc[st.flash_ban[2]]) >= 0:
        ban = seen.flash_ban
        assert ban is not None and ban[0] == st.turn
        assert (tower_of[ban[1]], tower_of[ban[2]]) == st.flash_ban[1:]
    if not game.third_eye:
        real_last, last = st.last_action, seen.last_action
        assert (real_last is None) == (last is None)
        if last is not None:
            assert last.player == real_last.player
            assert (last.captured, last.on_iris) == (real_last.captured, real_last.on_iris)
            assert sorted((a, b) for _, a, b in last.moved) == sorted((a, b) for _, a, b in real_last.moved)
            for tok, _, b in last.moved:  # the same towers (a swap is seen as two spaces: any order)
                assert tok not in tower_of or seen.towers[tok].space != b or tower_of[tok] == st.board[b]
    else:
        for i, real in tower_of.items():
            t = seen.towers[i]
            if game.piece[real] == MEMORY and t.owner == me:
                assert st.swaps_left[real] == 2 - t.acted_swaps


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_the_seen_game_is_the_real_game_as_the_player_may_know_it(mode):
    checked = 0
    for game in _games(mode, 30, seed=31):
        for me in PLAYERS:
            _check_against_the_game(game, me)
            checked += 1
    assert checked > 300


def test_the_history_is_listed_action_by_action_with_the_board_before():
    game = new_game()
    game.push(mv("w38", "w36"))
    seen = seen_game(view(game, BLACK))
    (act,) = seen.actions
    assert (act.kind, act.actor, act.frm, act.to, act.ended_turn) == ("move", WHITE, S("w38"), S("w36"), True)
    assert act.board_before[S("w38")] == act.tower and S("w36") not in act.board_before
    assert seen.towers[act.tower].space == S("w36") and seen.towers[act.tower].at_start


def test_a_view_whose_history_does_not_fit_its_board_is_refused_and_the_board_alone_still_reads():
    game = new_game()
    game.push(mv("w38", "w36"))
    v = view(game, BLACK)
    v["history"] = []  # cut short
    with pytest.raises(SeenMismatch):
        seen_game(v)
    alone = seen_board(v)
    assert not alone.from_history and alone.actions == []
    assert S("w36") in alone.board and S("w38") not in alone.board
    with pytest.raises(ValueError):
        seen_game(view(game, None))  # the public view has no viewer


def test_what_a_public_move_says_about_the_piece_that_made_it():
    """Moves per turn (spec 2): light 2, shadow 7, artificial_light 2, reflector 2, memory 2, time 1,
    peripheral 3, void 1; Classic: only the Peripheral enters the Horizon."""
    game = new_game()
    seen = seen_game(view(game, BLACK))
    board, towers = seen.board, seen.towers
    one = could_have_moved(S("w38"), S("w37"), board, towers, False, False)
    assert VOID in one and SHADOW in one
    four = could_have_moved(S("w28"), S("w24"), {S("w28"): board[S("w28")]}, towers, False, False)
    assert four == {SHADOW}
