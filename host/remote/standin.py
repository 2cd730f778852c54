"""The stand-in game: an engine game rebuilt from the hub's view for this board's side.

In remote play (``docs/remote-play.md``) the hub keeps the true game; this board's Pi gets
``engine.views.view(game, side)`` and nothing else.  :func:`standin_game` turns that view into an
``engine.game.Game`` the referee can read its player's actions with:

- the position and every public fact are the true ones: occupancy, reserves and Zero Gravity,
  whose turn, the Totems, and the per-turn facts the rules read (``engine.seen``: the rival's last
  action for Classic Time, the no-flash-back ban, Memory swaps used, towers swapped this turn,
  when each tower was captured, Time used this turn, passes);
- the side's own identities, and every rival identity the view shows, are the true ones;
- each unrevealed rival tower gets a *stand-in* identity by a fixed rule from the view alone
  (below), so the same view gives the same game, byte for byte, whatever the rival's real towers
  are.  Which actions of the side are legal never depends on those identities; only outcomes do,
  and for those the hub answers first (``pieces``, ``not_shadow``).

Exactly the towers the view shows as revealed are revealed in the stand-in, so
``engine.views.view(standin, side)`` shows no identity the view did not (``pieces`` adds
identities to the game, not to what it shows as revealed: a flash pushed in the stand-in
reveals them, as it does in the true game).

**The rule.**  The rival's known pieces are those the view shows (revealed towers on the board,
everything on Zero Gravity, the reserve in Vision Mode) and those ``pieces`` gives.  The rival's
set is the first (clone, removed) in the engine's order (clones ``time``, ``void``, ``memory``,
``artificial_light``; removed pieces in ``engine.pieces.PIECES`` order) that holds the known pieces
and lets every ``not_shadow`` tower be something else than a Shadow.  What that set has left is
handed out to the unknown rival towers on the board in space order (engine space ids), each
taking the first piece in ``PIECES`` order still left that it may be, never one that would leave
a later ``not_shadow`` tower nothing but Shadows; the rest wait in the reserve.  A stand-in lineup
need not be one the rival could really have (a tower on the board from the start may stand in as
an Artificial Light): only its legality and its public facts are claimed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from engine.board import PLAYERS, SPACE_IDS, SPACE_NAMES, other
from engine.errors import InvalidError
from engine.game import Game
from engine.pieces import PIECES, SHADOW, piece_set
from engine.seen import BOARD, CAPTURED, SeenGame, seen_game
from host.opponent.infostate import info_from_seen
from host.opponent.worlds import COMBOS, World, world_game

N = SPACE_NAMES


def standin_game(view: dict, pieces: Mapping[str, str] | None = None, not_shadow: Iterable[str] = ()) -> Game:
    """The stand-in game of ``view`` (``engine.views.view(game, side)`` of an unfinished game).

    ``pieces``: identities the hub revealed for a pending flash or Classic Time, space name ->
    piece (towers of either side; each must agree with what the view shows).  ``not_shadow``:
    spaces of rival towers that are no Shadow: after the hub says a Classic Time rewinds, the
    rival towers its last action moved (:func:`rival_moved`); after it says the Time fails, those
    of them that are not the Shadow it revealed (that one goes in ``pieces``).

    Bad input raises ValueError with one line naming the field, space or the rival's set; nothing
    else is built.
    """
    me = _viewer(view)
    seen = _seen(view)
    info = info_from_seen(view, seen, infer=False)
    rival = other(me)
    toks = info.tokens
    at = {t.space: i for i, t in enumerate(toks) if t.where == BOARD}
    given = _given(pieces, at, toks)
    banned = _not_shadow(not_shadow, at, toks, given, rival)

    known = Counter(t.piece for t in toks if t.owner == rival and t.where in (BOARD, CAPTURED) and t.piece)
    known.update(given.values())
    reserve = info.rival_reserve
    shown_reserve = view["reserve"][rival].get("pieces")  # Vision Mode shows it
    if shown_reserve is not None:
        known.update(shown_reserve)
        reserve = 0
    unknown = sorted((i for i in at.values() if toks[i].owner == rival and toks[i].piece is None and i not in given),
                     key=lambda i: toks[i].space)

    fits = False
    for clone, removed in COMBOS:
        have = piece_set(clone, removed)
        if known - have or sum((have - known).values()) != len(unknown) + reserve:
            continue
        fits = True
        handed = _hand_out(unknown, have - known, banned)
        if handed is not None:
            break
    else:
        shown = ", ".join(f"{n} {p}" for p, n in sorted(known.items(), key=lambda kv: PIECES.index(kv[0])))
        if not fits:
            field = "pieces" if given else "view"
            raise ValueError(f"{field}: {rival}'s towers the view{' and pieces' if given else ''} show ({shown}), with "
                             f"{len(unknown)} unknown on the board and {reserve} in reserve, are in no set "
                             f"(17 towers: the base set with one clone added and one piece removed)")
        raise ValueError(f"not_shadow: {len(banned)} of {rival}'s towers may not be Shadows, but every set that "
                         f"holds the known pieces ({shown}) leaves a Shadow for one of them")
    world = World(clone, removed, tuple(sorted({**handed, **given}.items())))  # given: rival towers only
    try:
        game, _ = world_game(info, world, revealed=[i for i, t in enumerate(toks) if t.public], cls=Game,
                             vision=bool(view["vision"]))
    except InvalidError as exc:  # a view whose facts are not a position (not made by engine.views.view)
        raise ValueError(f"view: {exc}") from None
    return game


def rival_moved(view: dict) -> list[str]:
    """Spaces of the rival towers that the rival's last turn-ending action moved and that still
    stand where it put them (what Classic Time would rewind; sorted).  Empty when the last
    turn-ending action was not the rival's, or there is none."""
    me = _viewer(view)
    seen = _seen(view)
    last = seen.last_action
    if last is None or last.player != other(me):
        return []
    out = set()
    for tok, a, b in last.moved:
        t = seen.towers[tok]
        if t.owner == last.player and a != b and t.where == BOARD and t.space == b:
            out.add(N[b])
    return sorted(out)


def _viewer(view: object) -> str:
    if not isinstance(view, Mapping):
        raise ValueError("view: expected a player's view (engine.views.view), not " + type(view).__name__)
    me = view.get("viewer")
    if me not in PLAYERS:
        raise ValueError("view.viewer: a player's view is needed (white or black), not the public one")
    result = view.get("result")
    if not isinstance(result, Mapping) or result.get("status") != "ongoing":
        raise ValueError("view.result: the game is over; a finished game has no stand-in "
                         "(its record shows every identity)")
    if view.get("to_move") not in PLAYERS:
        raise ValueError("view.to_move: white or black (the game is not over)")
    return me


def _seen(view: Mapping) -> SeenGame:
    try:
        return seen_game(dict(view))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"view: its history does not replay onto its board ({exc})") from None


def _space(name: object, field: str, at: dict[int, int]) -> int:
    if not isinstance(name, str) or name not in SPACE_IDS:
        raise ValueError(f"{field}: unknown space {name!r}")
    space = SPACE_IDS[name]
    if space not in at:
        raise ValueError(f"{field}.{name}: no tower there")
    return at[space]


def _given(pieces: Mapping[str, str] | None, at: dict[int, int], toks: list) -> dict[int, str]:
    """``pieces`` as token -> piece, for the towers whose identity the view does not show (rival
    towers: the view shows every own identity)."""
    if pieces is None:
        return {}
    if not isinstance(pieces, Mapping):
        raise ValueError("pieces: expected a mapping of space -> piece")
    given = {}
    for name, piece in pieces.items():
        tok = _space(name, "pieces", at)
        if piece not in PIECES:
            raise ValueError(f"pieces.{name}: unknown piece {piece!r}")
        shown = toks[tok].piece
        if shown is not None:
            if shown != piece:
                raise ValueError(f"pieces.{name}: the view shows {toks[tok].owner}'s {shown} there, not {piece}")
            continue
        given[tok] = piece
    return given


def _not_shadow(spaces: Iterable[str], at: dict[int, int], toks: list, given: dict[int, str], rival: str) -> set[int]:
    if isinstance(spaces, str | bytes | Mapping) or not isinstance(spaces, Iterable):
        raise ValueError("not_shadow: expected a list of spaces")
    banned = set()
    for name in spaces:
        tok = _space(name, "not_shadow", at)
        if toks[tok].owner != rival:
            raise ValueError(f"not_shadow.{name}: the tower there is not {rival}'s")
        if (toks[tok].piece or given.get(tok)) == SHADOW:
            raise ValueError(f"not_shadow.{name}: the tower there is a Shadow "
                             f"({'the view shows it' if toks[tok].piece else 'pieces says so'})")
        banned.add(tok)
    return banned


def _hand_out(unknown: list[int], left: Counter, banned: set[int]) -> dict[int, str] | None:
    """The rule's hand-out: token -> piece for ``unknown`` (in order), from ``left``; None if the
    ``banned`` towers (no Shadow) cannot all get another piece."""
    left = Counter(left)
    waiting = sum(1 for i in unknown if i in banned)  # no-Shadow towers not yet served
    out = {}
    for i in unknown:
        if i in banned:
            waiting -= 1
        for p in PIECES:
            if left[p] <= 0 or (p == SHADOW and i in banned):
                continue
            left[p] -= 1
            if waiting <= sum(left.values()) - left[SHADOW]:
                out[i] = p
                break
            left[p] += 1
        else:
            return None
    return out


__all__ = ["rival_moved", "standin_game"]
