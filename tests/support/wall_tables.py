"""Tables for the hub's page tests: real games of the engine, pushed to a hub as a board pushes its
public frames (``engine.views.view`` for the public, the players' names, the practice opponent's
seat), one frame a turn.  A module of its own, shared by the page tests (not a test module)."""

from __future__ import annotations

import random
import uuid as uuidlib

import psycopg
from tests.support.hub_client import request

from engine.game import Game
from engine.record import to_record
from engine.randplay import random_setup
from engine.views import view
from host.hub.store import schema

BATCH = 20
NAMES = ["Ann", "Bob", "Chloé", "Dmitri", "Esther", "Fatima", "Gus", "Hana", "Ivo", "Jun", "Kalani", "Lars",
         "Maria Fernanda", "Noor", "Olu", "Pia", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Vera", "Wim", "Xu"]


def play(seed: int, actions: int, mode: str = "classic") -> tuple[Game, list[dict]]:
    """The random game of ``seed`` to its end or ``actions`` actions, and its public view at its
    start and after each action (the same game whenever asked: tests compare the pages with it)."""
    rng = random.Random(seed)
    game = Game(random_setup(rng, "white"), random_setup(rng, "black"), mode)
    views = [view(game, None)]
    for _ in range(actions):
        if game.is_over():
            break
        game.push(rng.choice(game.legal_actions()))
        views.append(view(game, None))
    return game, views


def frame(v: dict, mode: str, players: dict, opponent: str | None) -> dict:
    """One public frame of a game as the board's status page gets it."""
    over = v["result"]["status"] != "ongoing"
    state = {"phase": "over" if over else "playing", "mode": mode, "view": v,
             "players": players, "opponent": {"side": opponent} if opponent else None}
    return {"state": state, "notices": []}


def push_table(url: str, key: str, seed: int, actions: int, players: dict, opponent: str | None = None,
               mode: str = "classic", final: bool = False) -> str:
    """A game pushed under ``key``: one frame per action; with ``final``, its end as a board sends
    it (its status, result, record and players).  Its UUID."""
    game, views = play(seed, actions, mode)
    frames = [frame(v, mode, players, opponent) for v in views]
    g = str(uuidlib.UUID(int=random.Random(f"{seed} {key}").getrandbits(128), version=4))
    events = [{"seq": i + 1, "data": f} for i, f in enumerate(frames)]
    final_body = None
    if final:
        final_body = {"status": "over" if game.is_over() else "abandoned", "mode": mode,
                      "result": frames[-1]["state"]["view"]["result"], "created": 1.8e9, "finished": 1.8e9 + 600,
                      "record": to_record(game),
                      "players": {c: {"name": players[c], "code": None} for c in players if players[c]}}
    for start in range(0, len(events), BATCH):  # a push is at most 4 MB (whole frames grow with the game)
        body: dict = {"uuid": g, "events": events[start:start + BATCH]}
        if final_body and start + BATCH >= len(events):
            body["final"] = final_body
        status, answer = request(url + "/api/push", "POST", {"games": [body]}, key=key)
        assert status == 200, answer
    return g


def tables(dsn: str, url: str, n: int, actions: int = 12, seed: int = 0) -> list[str]:
    """``n`` tables, each with a live game of real moves and named players (one of them against the
    practice opponent, one with a finished game): their games' UUIDs, table by table."""
    out = []
    for i in range(n):
        with psycopg.connect(dsn, autocommit=True) as conn:  # as `quin hub add-table` does, without a process each
            schema.ensure(conn)
            key = schema.add_table(conn, f"Table {i + 1}")
        white, black = NAMES[(2 * i) % len(NAMES)], NAMES[(2 * i + 1) % len(NAMES)]
        opponent = "black" if i % 5 == 1 else None
        players = {"white": white, "black": None if opponent else black}
        over = i % 6 == 4  # played to its end: seed 19's random game, Black's Light reaches First Sight in 86 actions
        out.append(push_table(url, key, 19 if over else seed * 1000 + i, 400 if over else actions + i % 7, players, opponent,
                              mode="third_eye" if i % 3 == 2 and not over else "classic", final=over))
    return out
