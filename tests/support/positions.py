"""Positions for the tests: seeded games after some uniformly random legal actions (the opponent's
tests), and a played game's position as the keyword arguments of ``Game.from_position``."""

from __future__ import annotations

import random

from engine.board import BLACK, PLAYERS, SPACE_NAMES, WHITE
from engine.game import Game
from engine.pieces import MEMORY
from engine.randplay import random_setup
from engine.state import BOTH, CAPTURED, RESERVE

N = SPACE_NAMES


def random_positions(mode: str, count: int, seed: int = 0, least: int = 0, most: int = 220) -> list[Game]:
    """``count`` unfinished games, each after a seeded number (least..most) of random legal actions."""
    out = []
    i = seed
    while len(out) < count:
        rng = random.Random(i)
        i += 1
        game = Game(random_setup(rng, WHITE), random_setup(rng, BLACK), mode=mode, first=rng.choice((WHITE, BLACK)))
        for _ in range(rng.randint(least, most)):
            if game.is_over():
                break
            game.push(rng.choice(game.legal_actions()))
        if not game.is_over():
            out.append(game)
    return out


def position_of(game: Game) -> dict:
    """The keyword arguments of from_position that describe ``game``'s current state."""
    st = game.state
    owner, piece = game.owner, game.piece
    kw: dict = {
        "board": {N[s]: (owner[t], piece[t]) for s, t in enumerate(st.board) if t >= 0},
        "to_move": st.to_move,
        "mode": game.mode,
        "vision": game.vision,
        "sets": {p: (game.setups[p].clone, game.setups[p].removed) for p in PLAYERS},
        "reserve": {p: [piece[t] for t in game.towers_of(p) if st.loc[t] == RESERVE] for p in PLAYERS},
        "captured": {p: [(piece[t], st.captured_turn[t]) for t in game.towers_of(p) if st.loc[t] == CAPTURED]
                     for p in PLAYERS},
        "turn": st.turn,
        "passes": st.passes,
        "time_used": st.time_used,
        "totem_used": [p for i, p in enumerate(PLAYERS) if st.totem_used[i]],
        "revealed": [N[st.loc[t]] for t in game.towers if st.loc[t] >= 0 and st.known[t] == BOTH],
    }
    if game.third_eye:
        kw["swaps_left"] = {N[st.loc[t]]: st.swaps_left[t] for t in game.towers
                            if piece[t] == MEMORY and st.loc[t] >= 0}
        kw["frozen"] = [N[st.loc[t]] for t in st.frozen]
    ban = st.flash_ban
    if ban is not None and ban[0] == st.turn and st.loc[ban[1]] >= 0 and st.loc[ban[2]] >= 0:
        kw["flash_ban"] = (N[st.loc[ban[1]]], N[st.loc[ban[2]]])
    last = st.last_action
    if last is not None and all(st.loc[t] == b for t, _, b in last.moved):
        kw["last_action"] = {"moves": [(a if a == RESERVE else N[a], N[b]) for _, a, b in last.moved],
                             "captured": last.captured, "on_iris": last.on_iris}
    return kw
