"""The players the hub knows by the codes it issued, and their ratings (host/hub/ratings.py rates)."""

from __future__ import annotations


def add(conn, code: str, name: str, mu: float, sigma: float) -> None:
    """A new player (``quin hub add-player``: the synchronous connection), in its own transaction."""
    with conn.transaction():
        conn.execute("INSERT INTO hub_players(code, name, mu, sigma) VALUES (%s, %s, %s, %s)",
                     (code, name, mu, sigma))


async def id_of(conn, code: str) -> int | None:
    """The player's row id for a code, or None if the hub does not know it."""
    row = await (await conn.execute("SELECT id FROM hub_players WHERE code = %s", (code,))).fetchone()
    return row[0] if row else None


async def name_of(conn, code: str) -> str | None:
    """The hub's name for a player code, or None if it does not know it."""
    row = await (await conn.execute("SELECT name FROM hub_players WHERE code = %s", (code,))).fetchone()
    return row[0] if row else None


async def lock_ratings(conn, a: int, b: int) -> list[tuple[int, float, float]]:
    """(id, mu, sigma) of both players, locked until the transaction ends (a game being rated)."""
    return await (await conn.execute("SELECT id, mu, sigma FROM hub_players WHERE id IN (%s, %s) FOR UPDATE",
                                     (a, b))).fetchall()


async def set_rating(conn, player: int, mu: float, sigma: float) -> None:
    """A player's new rating after one more game."""
    await conn.execute("UPDATE hub_players SET mu = %s, sigma = %s, games = games + 1 WHERE id = %s",
                       (mu, sigma, player))


async def by_rating(conn, limit: int) -> list[tuple[str, float, float, int]]:
    """(name, mu, sigma, games) by the conservative rating (mu - 3 sigma), highest first."""
    return await (await conn.execute(
        "SELECT name, mu, sigma, games FROM hub_players ORDER BY mu - 3 * sigma DESC, name LIMIT %s",
        (limit,))).fetchall()
