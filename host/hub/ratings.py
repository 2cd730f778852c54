"""Players and ratings: OpenSkill (Plackett-Luce), updated in the transaction that ends a game.

A player is known to the hub by the code the hub issued (``quin hub add-player NAME``); a finished
game names its players by code (``final.players``), so a rating follows the person whichever
table they sit at.  A draw is a tie; a game with an unknown or missing code is not rated.  The
players' rows are read and written by the hub's store (host/hub/store/players.py).
"""

from __future__ import annotations

import secrets

from openskill.models import PlackettLuce

from .store import players

MODEL = PlackettLuce()


def new_code() -> str:
    return "qp_" + secrets.token_hex(4)


def add_player(conn, name: str) -> str:
    name = name.strip()
    if not name or len(name) > 64 or not name.isprintable():
        raise ValueError("a player's name is 1 to 64 printable characters")
    fresh = MODEL.rating()
    code = new_code()
    players.add(conn, code, name, fresh.mu, fresh.sigma)
    return code


async def player_id(conn, who) -> int | None:
    code = who.get("code") if isinstance(who, dict) else who
    if not isinstance(code, str) or len(code) > 64:
        return None
    return await players.id_of(conn, code)


async def rate(conn, white: int, black: int, winner: str | None) -> None:
    rows = await players.lock_ratings(conn, white, black)
    have = {r[0]: MODEL.create_rating([r[1], r[2]]) for r in rows}
    if len(have) != 2:
        return
    ranks = {"white": [1, 2], "black": [2, 1]}.get(winner or "", [1, 1])
    (w,), (b,) = MODEL.rate([[have[white]], [have[black]]], ranks=ranks)
    for pid, r in ((white, w), (black, b)):
        await players.set_rating(conn, pid, r.mu, r.sigma)


async def leaderboard(conn, limit: int = 200) -> list[dict]:
    """Players by their conservative rating (mu - 3 sigma), highest first."""
    rows = await players.by_rating(conn, limit)
    return [{"name": n, "rating": round(mu - 3 * s, 2), "mu": round(mu, 3), "sigma": round(s, 3), "games": g}
            for n, mu, s, g in rows]
