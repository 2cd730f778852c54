"""Players and ratings: OpenSkill (Plackett-Luce), updated in the transaction that ends a game.

A player is known to the hub by the code the hub issued (``quin hub add-player NAME``); a finished
game names its players by code (``final.players``), so a rating follows the person whichever
table they sit at.  A draw is a tie; a game with an unknown or missing code is not rated.
"""

from __future__ import annotations

import secrets

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


def new_code() -> str:
    return "qp_" + secrets.token_hex(4)


def add_player(conn, name: str) -> str:
    name = name.strip()
    if not name or len(name) > 64 or not name.isprintable():
        raise ValueError("a player's name is 1 to 64 printable characters")
    fresh = MODEL.rating()
    code = new_code()
    with conn.transaction():
        conn.execute("INSERT INTO hub_players(code, name, mu, sigma) VALUES (%s, %s, %s, %s)",
                     (code, name, fresh.mu, fresh.sigma))
    return code


async def player_id(conn, who) -> int | None:
    code = who.get("code") if isinstance(who, dict) else who
    if not isinstance(code, str) or len(code) > 64:
        return None
    row = await (await conn.execute("SELECT id FROM hub_players WHERE code = %s", (code,))).fetchone()
    return row[0] if row else None


async def rate(conn, white: int, black: int, winner: str | None) -> None:
    rows = await (await conn.execute("SELECT id, mu, sigma FROM hub_players WHERE id IN (%s, %s) FOR UPDATE",
                                     (white, black))).fetchall()
    have = {r[0]: MODEL.create_rating([r[1], r[2]]) for r in rows}
    if len(have) != 2:
        return
    ranks = {"white": [1, 2], "black": [2, 1]}.get(winner or "", [1, 1])
    (w,), (b,) = MODEL.rate([[have[white]], [have[black]]], ranks=ranks)
    for pid, r in ((white, w), (black, b)):
        await conn.execute("UPDATE hub_players SET mu = %s, sigma = %s, games = games + 1 WHERE id = %s",
                           (r.mu, r.sigma, pid))


async def leaderboard(conn, limit: int = 200) -> list[dict]:
    """Players by their conservative rating (mu - 3 sigma), highest first."""
    rows = await (await conn.execute(
        "SELECT name, mu, sigma, games FROM hub_players ORDER BY mu - 3 * sigma DESC, name LIMIT %s",
        (limit,))).fetchall()
    return [{"name": n, "rating": round(mu - 3 * s, 2), "mu": round(mu, 3), "sigma": round(s, 3), "games": g}
            for n, mu, s, g in rows]
