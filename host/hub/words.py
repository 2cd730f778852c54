"""Who plays a game, as the pages say it: the names the wall shows, the practice opponent's seat.

A finished game's names come with its final record (``final.players``: a rated player by the hub's
name for the code).  A live game has no final record yet, and the practice opponent gives no name in
either: both are in the game's public frames (``state.players``, ``state.opponent``), which the wall
reads.  The index and a game's JSON take them from there, so the archive names who plays as the wall
does.  Only public frames are read: names and the opponent's seat are public (the status page shows
them), never a hidden identity or a player code.
"""

from __future__ import annotations

from engine.board import PLAYERS

from .store import games as stored


def seats(state: dict | None) -> tuple[dict, str | None]:
    """({colour: the name given or None}, the practice opponent's colour or None) of a public frame."""
    st = state.get("state") if isinstance(state, dict) else None
    if not isinstance(st, dict):
        return {p: None for p in PLAYERS}, None
    given = st.get("players") if isinstance(st.get("players"), dict) else {}
    names = {p: given.get(p) if isinstance(given.get(p), str) and given.get(p) else None for p in PLAYERS}
    opponent = st.get("opponent") if isinstance(st.get("opponent"), dict) else {}
    side = opponent.get("side") if opponent.get("side") in PLAYERS else None
    return names, side


def complete(entry: dict, state: dict | None) -> dict:
    """An index entry (or a game's JSON) with the names its frame gives where the record gave none,
    and ``opponent``: the colour the practice opponent played, or None."""
    names, side = seats(state)
    players = dict(entry.get("players") or {})
    for p in PLAYERS:
        if not players.get(p) and p != side:
            players[p] = names[p]
    entry["players"] = players
    entry["opponent"] = side
    return entry


async def fill(hub, entries: list[dict]) -> list[dict]:
    """The index's entries completed from each game's newest frame: in this process's memory (every
    table's newest game is, for the wall), else read (the games that lack a name only)."""
    by_uuid = {ch.uuid: ch for ch in list(hub.channels.values())}
    lacking = [e["uuid"] for e in entries if e["uuid"] not in by_uuid
               and not (e["players"].get("white") and e["players"].get("black"))]
    if lacking:
        async with hub.pool.connection() as conn:
            rows = await stored.ids_of(conn, lacking)
        for game_id, uuid in rows:
            ch = await hub.channel(game_id)
            if ch is not None:
                by_uuid[str(uuid)] = ch
    for e in entries:
        ch = by_uuid.get(e["uuid"])
        complete(e, ch.state if ch is not None else None)
    return entries
