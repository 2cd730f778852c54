"""What each player, and the public, may know.

The game holds the truth; :func:`view` is the only way out.  A player's view
holds their own identities, towers revealed to them (flashes, a failed Time,
Powers declared openly, a Resurrection), and the public history, in which a
rival's action shows only what the board showed.  The public view holds
only public facts.  In Vision Mode every identity is public.
:func:`made_public` says which identities an action would make public (what
the public view shows after it and not before), for a referee far away that
announces them with the action or before it (remote play on the hub).
"""

from __future__ import annotations

from .actions import Action, Gravity, Reflect, Reinforce, Swap
from .board import PLAYERS, SPACE_NAMES, other
from .errors import IllegalError
from .game import Game
from .state import BOTH, CAPTURED, INDEX, RESERVE

N = SPACE_NAMES


def knows(game: Game, viewer: str | None, tower: int) -> bool:
    """May ``viewer`` (a player, or None for the public) know this tower's identity?"""
    known = game.state.known[tower]
    if viewer is None:
        return known == BOTH
    return bool(known & (1 << INDEX[viewer]))


def action_seen_by(game: Game, action: Action, actor: str, viewer: str | None) -> dict:
    """An action's record form as ``viewer`` may see it.

    The actor (and everyone in Vision Mode) sees the full record.  Others see
    what the board showed: a Reflection as the tower's move, a Memory Swap as
    two spaces trading towers, Void Gravity as the towers' moves, and a
    Reinforcement's pieces only where they are public (several Artificial
    Lights at once are).
    """
    record = action.to_record()
    if viewer == actor or game.vision:
        return record
    if isinstance(action, Reflect):
        return {"type": "move", "from": N[action.frm], "to": N[action.to]}
    if isinstance(action, Swap):
        return {"type": "swap", "spaces": sorted([N[action.memory], N[action.other]])}
    if isinstance(action, Gravity):
        return {"type": "moves", "moves": {N[a]: N[b] for a, b in action.moves}}
    if isinstance(action, Reinforce):
        public = len(action.placements) > 1
        return {"type": "reinforce", "to": {N[s]: (p if public else None) for s, p in action.placements}}
    return record  # moves, resurrections, Time and passes are public


def made_public(game: Game, action: Action) -> dict[str, str]:
    """The identities the legal ``action`` makes public: {space: piece} of each tower the public
    may not know now and may know after it, by the space it stands on now (a tower on the board),
    else the one it stands on after (several Artificial Lights reinforced at once); a tower off
    the board both before and after is left out.  In the order of the game's
    towers.  The game is left as it was (IllegalError if the action is not legal)."""
    if not game.is_legal(action):
        raise IllegalError(f"{action} {game.why_illegal(action)}")
    before = [knows(game, None, t) for t in game.towers]
    loc = list(game.state.loc)
    game.push(action, trusted=True)  # checked: pop gives back this state's legal actions too
    try:
        out = {}
        for t in game.towers:
            if not before[t] and knows(game, None, t):
                space = loc[t] if loc[t] >= 0 else game.state.loc[t]
                if space >= 0:
                    out[N[space]] = game.piece[t]
        return out
    finally:
        game.pop()


def view(game: Game, viewer: str | None = None) -> dict:
    """Everything ``viewer`` may know, as JSON-ready data.  ``viewer`` None is the public."""
    if viewer is not None and viewer not in PLAYERS:
        raise ValueError(f"unknown viewer {viewer!r}")
    st = game.state
    board = []
    for tower in game.towers:
        space = st.loc[tower]
        if space < 0:
            continue
        board.append(
            {
                "space": N[space],
                "owner": game.owner[tower],
                "piece": game.piece[tower] if knows(game, viewer, tower) else None,
                "revealed": st.known[tower] == BOTH,
            }
        )
    board.sort(key=lambda e: e["space"])
    reserve = {}
    captured = {}
    for player in PLAYERS:
        towers = game.towers_of(player)
        waiting = [t for t in towers if st.loc[t] == RESERVE]
        entry: dict = {"count": len(waiting)}
        if viewer == player or game.vision:
            entry["pieces"] = sorted(game.piece[t] for t in waiting)
        reserve[player] = entry
        # captured towers were all revealed (flash or Time), so they are public
        captured[player] = sorted(game.piece[t] for t in towers if st.loc[t] == CAPTURED)
    history: list[dict] = []
    for turn, actor, action in game.log:
        if not history or history[-1]["turn"] != turn:
            history.append({"turn": turn, "player": actor, "actions": []})
        history[-1]["actions"].append(action_seen_by(game, action, actor, viewer))
    result = game.result
    data = {
        "mode": game.mode,
        "vision": game.vision,
        "viewer": viewer,
        "turn": st.turn,
        "to_move": None if result else st.to_move,
        "result": result.to_json() if result else {"status": "ongoing", "winner": None, "reason": None},
        "board": board,
        "reserve": reserve,
        "captured": captured,
        "totem_used": {p: st.totem_used[INDEX[p]] for p in PLAYERS},
        "history": history,
        "events": [e.to_json() for e in game.events],
    }
    if viewer is not None:
        setup = game.setups[viewer]
        data["setup"] = setup.to_record()
        data["rival"] = other(viewer)
    return data
