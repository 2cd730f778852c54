"""A game as one player saw it: their view's public record, replayed tower by tower.

``engine.views.view(game, player)`` is everything a player may know, as data: their own setup, the
board with the identities they know, the reserves and Zero Gravity boards, and the history and
events as they saw them (a rival's Reflection as a move, a Memory Swap as two spaces trading
towers, Void Gravity as towers moving, a single reinforcement without its piece).  This module
replays that history on a *seen board* that follows every tower as a token (:class:`SeenTower`),
so a player (or a program playing for them, which gets nothing but the view) knows what each
tower did: where it came from, when it was captured, how often it swapped, and the per-turn facts
the rules need (Time used, towers swapped this turn, the no-flash-back ban, the rival's last
action for Classic Time, passes).

Nothing here needs a hidden identity: a flash and a Power of Time say what happened in their events
(``outcome``), and the rest of an action is where towers went.  ``tests/engine/test_seen.py``
checks the replay against the real game (``Game``'s own state, a separate code path) on random
games: every token stands where the real tower does, with the same facts.

Tokens are numbered in the order the player first saw them: their own lineup, the rival's starting
spaces, then every tower that came onto the board (a reinforcement, or a resurrected tower, which
is brand new: its old token is ``gone``, as is a tower rewound back into the reserve).

:func:`could_have_moved` says which pieces could have made a public move: what a rival's move tells
about the tower that made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .board import (
    FIRST_SIGHT,
    HORIZON_REFLECT_TARGETS,
    IRIS,
    IS_HORIZON,
    LINE_OF,
    LINE_STEP_NEIGHBORS,
    PLAYERS,
    RAY_FIRST_SIGHT,
    RAY_HORIZON,
    RAY_RING,
    RAYS,
    REFLECT_TARGETS,
    RING_NEIGHBORS,
    SPACE_IDS,
    START_SPACES,
    other,
)
from .flash import THIRD_EYE
from .pieces import ACCELERATED_RANGE, ARTIFICIAL_LIGHT, LIGHT, PERIPHERAL, PIECES, RANGE, SHADOW, TIME, Setup
from .state import RESERVE

BOARD, CAPTURED, GONE = "board", "captured", "gone"  #: where a token is (GONE: off the game, see above)


class SeenMismatch(ValueError):
    """The view's public history does not replay onto its own board (a view not made by
    ``engine.views.view``, or cut short)."""


@dataclass
class SeenTower:
    """One tower as the player follows it."""

    owner: str
    piece: str | None  # its identity if the player knows it: their own always, a rival's once revealed
    where: str = BOARD  # BOARD, CAPTURED or GONE
    space: int = -1  # on the board: its space
    captured_turn: int = 0  # captured: the turn it was
    swaps: int = 0  # Memory Swaps it took part in
    acted_swaps: int = 0  # Memory Swaps it made as the named, acting Memory
    public: bool = False  # both players know its identity (revealed)
    at_start: bool = False  # it stood on the board from the start (so it is no Artificial Light)


@dataclass(frozen=True)
class SeenLastAction:
    """The last turn-ending action, in tokens: what Classic Time would rewind."""

    player: str
    moved: tuple[tuple[int, int, int], ...]  # (token, from space or RESERVE, to space)
    captured: bool
    on_iris: bool


class SeenAction(NamedTuple):
    """One action of the history as the player saw it.

    ``kind``: the seen record's type (``move``, ``reflect``, ``swap``, ``gravity`` / ``moves``,
    ``reinforce``, ``resurrect``, ``time``, ``pass``).  ``tower``/``frm``/``to``: the token that
    moved and where (a move or Reflection; a swap's first space, ``to`` its second; a Time tower's
    space).  ``board_before``: for a move or Reflection, the seen board just before it (space ->
    token); ``accelerated``: the actor's Artificial Lights moved 5 then (both their Shadows
    captured).  ``swapped``: the two tokens of a Memory Swap when the player could not tell which
    was the Memory (a rival's swap, seen as two spaces).  ``pulled``: the tokens Void Gravity moved.
    ``rewound``: for a Classic Time that rewound, the last action undone ((token, from, to) as it
    was played).  ``ended_turn``: the turn passed to the rival after it (the game going on);
    ``over``: the game ended with it.  (A named tuple: a long history is thousands of them, made on
    every decision of the practice opponent.)
    """

    turn: int
    actor: str
    kind: str
    accelerated: bool
    board_before: dict[int, int] | None = None
    tower: int | None = None
    frm: int | None = None
    to: int | None = None
    swapped: tuple[int, int] | None = None
    pulled: tuple[int, ...] = ()
    rewound: tuple[tuple[int, int, int], ...] = ()
    ended_turn: bool = False
    over: bool = False


@dataclass
class SeenGame:
    """Everything ``viewer`` knows of a game, tower by tower (from :func:`seen_game` or
    :func:`seen_board`)."""

    viewer: str
    mode: str
    vision: bool
    setup: Setup  # the viewer's own setup
    towers: list[SeenTower]
    board: dict[int, int]  # space -> token
    rival_reserve: int  # how many of the rival's towers wait in reserve
    turn: int
    time_used: bool = False
    frozen: frozenset[int] = frozenset()  # tokens swapped by a Third Eye Memory this turn
    flash_ban: tuple[int, int, int] | None = None  # (turn, flashed token, the token it may not flash)
    last_action: SeenLastAction | None = None
    passes: int = 0
    actions: list[SeenAction] = field(default_factory=list)  # the history; empty from the board alone
    from_history: bool = True

    @property
    def rival(self) -> str:
        return other(self.viewer)


def could_have_moved(a: int, b: int, board: dict[int, int], towers: list[SeenTower], third_eye: bool,
                     accelerated: bool) -> frozenset[str]:
    """Pieces whose plain move (or a Reflection) could take a tower from ``a`` to ``b``.

    ``board`` is the seen board before the move (space -> token).  Generous by design: a piece left
    in may be impossible, a piece left out never is.
    """
    mover = towers[board[a]].owner
    out: set[str] = set()
    for kind, path, _skip in RAYS[a]:
        if b not in path:
            continue
        i = path.index(b)
        steps = i + 1
        clear = all(s not in board for s in path[:i])
        if clear:
            if kind == RAY_FIRST_SIGHT:
                if steps <= RANGE[LIGHT]:
                    out.add(LIGHT)
            else:
                horizon = kind != RAY_HORIZON and any(IS_HORIZON[s] for s in path[: i + 1])
                for p in PIECES:
                    rng = ACCELERATED_RANGE if p == ARTIFICIAL_LIGHT and accelerated else RANGE[p]
                    if steps <= rng and (not horizon or p == PERIPHERAL):
                        out.add(p)
        if third_eye and kind == RAY_RING and i >= 1:
            # Slingshot over an own tower (a Peripheral) on the Horizon just before b
            j = i - 1
            s = path[j]
            if IS_HORIZON[s] and s in board and towers[board[s]].owner == mover and all(x not in board for x in path[:j]):
                for p in PIECES:
                    rng = ACCELERATED_RANGE if p == ARTIFICIAL_LIGHT and accelerated else RANGE[p]
                    if j + 1 <= rng:
                        out.add(p)
    if third_eye:
        for first, second in ((RING_NEIGHBORS, LINE_STEP_NEIGHBORS), (LINE_STEP_NEIGHBORS, RING_NEIGHBORS)):
            if any(m not in board and b in second[m] for m in first[a]):
                out.add(PERIPHERAL)
    if _reflectable(a, b, board, towers, mover, third_eye):
        out.update((LIGHT, ARTIFICIAL_LIGHT))
    return frozenset(out)


def _reflectable(a: int, b: int, board: dict[int, int], towers: list[SeenTower], mover: str, third_eye: bool) -> bool:
    if a in IRIS or b in IRIS:
        return False
    for s, tok in board.items():
        if s == a or towers[tok].owner != mover or s in IRIS:
            continue
        if IS_HORIZON[s]:
            if third_eye and IS_HORIZON[a] and b in HORIZON_REFLECT_TARGETS[s]:
                return True
        elif LINE_OF[a] is not None and LINE_OF[s] == LINE_OF[a] and b in REFLECT_TARGETS[s]:
            return True
    return False


def _viewer(view: dict) -> str:
    me = view.get("viewer") if isinstance(view, dict) else None
    if me not in PLAYERS:
        raise ValueError("a player's view is needed, not the public one")
    return me


def seen_game(view: dict) -> SeenGame:
    """The game of ``view`` (a player's ``engine.views.view``) as its viewer saw it, replayed from
    the start; SeenMismatch if its history does not replay onto its board."""
    me = _viewer(view)
    try:
        rp = _Replay(view, from_start=True)
        rp.play(view["history"])
        rp.check(view)
    except (KeyError, TypeError) as exc:
        raise SeenMismatch(f"the view does not replay: {exc!r}") from None
    return rp.result(me, True)


def seen_board(view: dict) -> SeenGame:
    """The game of ``view`` from its board alone (no history: no per-turn facts, no actions)."""
    me = _viewer(view)
    return _Replay(view, from_start=False).result(me, False)


class _Replay:
    """The seen board of tokens: from the start (then ``play`` the history), or from the view's board."""

    def __init__(self, view: dict, from_start: bool):
        self.me = view["viewer"]
        self.rival = other(self.me)
        self.mode = view["mode"]
        self.vision = bool(view["vision"])
        self.te = self.mode == THIRD_EYE
        self.setup = Setup.from_record(self.me, view["setup"])
        self.towers: list[SeenTower] = []
        self.board: dict[int, int] = {}
        self.events = list(view["events"])
        self.ev = 0
        self.turn = 1
        self.time_used = False
        self.frozen: set[int] = set()
        self.ban: tuple[int, int, int] | None = None
        self.last: SeenLastAction | None = None
        self.passes = 0
        self.over = False
        self.actions: list[SeenAction] = []
        self.shadows_lost = {p: 0 for p in PLAYERS}  # captured Shadows (Artificial Light's acceleration)
        if from_start:
            for space, piece in self.setup.lineup:
                self.towers[self._new(self.me, piece, space)].at_start = True
            for space in START_SPACES[self.rival]:
                self.towers[self._new(self.rival, None, space)].at_start = True
            self.rival_reserve = 7
            return
        for e in view["board"]:
            tok = self._new(e["owner"], e["piece"], SPACE_IDS[e["space"]])
            self.towers[tok].public = bool(e["revealed"])
        for player in PLAYERS:
            for piece in view["captured"][player]:
                self.towers.append(SeenTower(player, piece, CAPTURED, -1, 0))
        self.rival_reserve = view["reserve"][self.rival]["count"]
        self.turn = view["turn"]

    def result(self, me: str, from_history: bool) -> SeenGame:
        return SeenGame(me, self.mode, self.vision, self.setup, self.towers, dict(self.board), self.rival_reserve, self.turn,
                        self.time_used, frozenset(self.frozen), self.ban, self.last, self.passes, self.actions,
                        from_history)

    def _new(self, owner: str, piece: str | None, space: int) -> int:
        if space in self.board:
            raise SeenMismatch(f"two towers on {space}")
        self.towers.append(SeenTower(owner, piece, BOARD, space))
        self.board[space] = len(self.towers) - 1
        return len(self.towers) - 1

    def _reveal(self, tok: int, piece: str) -> None:
        self.towers[tok].piece = piece

    def _capture(self, tok: int) -> None:
        t = self.towers[tok]
        if t.where == BOARD and self.board.get(t.space) == tok:
            del self.board[t.space]
        t.where, t.space, t.captured_turn = CAPTURED, -1, self.turn
        if t.piece == LIGHT:
            self.over = True
        elif t.piece == SHADOW:
            self.shadows_lost[t.owner] += 1

    def _next_event(self, kind: str) -> dict:
        if self.ev >= len(self.events):
            raise SeenMismatch("an event is missing")
        e = self.events[self.ev]
        if e["type"] != kind or e["turn"] != self.turn:
            raise SeenMismatch("events out of step")
        self.ev += 1
        return e

    def _relocate(self, a: int, b: int, moved: list) -> bool:
        """A tower from a to b, flashing a rival there.  True if anything was captured."""
        tok = self.board.pop(a)
        self.towers[tok].space = -1
        defender = self.board.get(b)
        if defender is None:
            self._place(tok, b)
            moved.append((tok, a, b))
            return False
        e = self._next_event("flash")
        if SPACE_IDS[e["at"]] != b:
            raise SeenMismatch("flash at another space")
        self._reveal(tok, e["attacker"])
        self._reveal(defender, e["defender"])
        outcome = e["outcome"]
        if outcome == "capture":
            self._capture(defender)
            self._place(tok, b)
            return True
        if outcome == "swap":
            del self.board[b]
            self._place(tok, b)
            self._place(defender, a)
            moved.append((tok, a, b))
            moved.append((defender, b, a))
            self.ban = (self.turn + 1, defender, tok)
            return False
        self._capture(defender)
        self._capture(tok)
        return True

    def _place(self, tok: int, space: int) -> None:
        t = self.towers[tok]
        t.where, t.space = BOARD, space
        self.board[space] = tok

    def play(self, history: list[dict]) -> None:
        for entry in history:
            actor = entry["player"]
            if entry["turn"] != self.turn:
                raise SeenMismatch("turns out of step")
            for action in entry["actions"]:
                self._action(actor, action)

    def _action(self, actor: str, act: dict) -> None:
        kind = act["type"]
        seen: dict = {"turn": self.turn, "actor": actor, "kind": kind, "accelerated": self.shadows_lost[actor] >= 2}
        moved: list[tuple[int, int, int]] = []
        captured = on_iris = False
        ends = True
        try:
            if kind in ("move", "reflect"):
                a, b = SPACE_IDS[act["from"]], SPACE_IDS[act["to"]]
                tok = self.board.get(a)
                if tok is None:
                    raise SeenMismatch("move from an empty space")
                seen.update(tower=tok, frm=a, to=b, board_before=dict(self.board))
                if b == FIRST_SIGHT:
                    self.board.pop(a)
                    self._place(tok, b)
                    self.over = True
                    return
                captured = self._relocate(a, b, moved)
                on_iris = kind == "move" and b in IRIS
            elif kind == "swap":
                if "spaces" in act:
                    x, y = (SPACE_IDS[s] for s in act["spaces"])
                    acting = None
                else:
                    x, y = SPACE_IDS[act["memory"]], SPACE_IDS[act["with"]]
                    acting = x
                tx, ty = self.board.get(x), self.board.get(y)
                if tx is None or ty is None:
                    raise SeenMismatch("swap with an empty space")
                seen.update(tower=tx, frm=x, to=y)
                self._place(tx, y)
                self._place(ty, x)
                moved = [(tx, x, y), (ty, y, x)]
                self.towers[tx].swaps += 1
                self.towers[ty].swaps += 1
                if acting is not None:
                    self.towers[tx].acted_swaps += 1
                else:
                    seen["swapped"] = (tx, ty)
                if self.te:
                    self.frozen |= {tx, ty}
                    ends = False
            elif kind in ("gravity", "moves"):
                pulls = [(SPACE_IDS[a], SPACE_IDS[b]) for a, b in act["moves"].items()]
                toks = []
                for a, _ in pulls:
                    if a not in self.board:
                        raise SeenMismatch("gravity from an empty space")
                    toks.append(self.board.pop(a))
                for tok, (a, b) in zip(toks, pulls):
                    self._place(tok, b)
                seen["pulled"] = tuple(toks)
            elif kind == "reinforce":
                for name, piece in sorted(act["to"].items()):
                    space = SPACE_IDS[name]
                    tok = self._new(actor, piece, space)
                    if actor == self.rival:
                        self.rival_reserve -= 1
                    moved.append((tok, RESERVE, space))
            elif kind == "resurrect":
                piece = act["piece"]
                space = SPACE_IDS[act["to"]]
                lost = [i for i, t in enumerate(self.towers)
                        if t.owner == actor and t.where == CAPTURED and t.piece == piece and t.captured_turn + 2 <= self.turn]
                if not lost:
                    raise SeenMismatch("nothing to resurrect")
                # which of two captured towers of this piece came back is not seen: the earliest
                # captured (the Totem is used once, so the capture turns left matter for nothing)
                old = min(lost, key=lambda i: (self.towers[i].captured_turn, i))
                self.towers[old].where = GONE  # the resurrected tower is a new token, brand new
                if piece == SHADOW:
                    self.shadows_lost[actor] -= 1
                self._new(actor, piece, space)
                ends = False
            elif kind == "time":
                at = SPACE_IDS[act["at"]]
                tok = self.board.get(at)
                if tok is None:
                    raise SeenMismatch("time from an empty space")
                seen.update(tower=tok, frm=at)
                self._reveal(tok, TIME)
                self._capture(tok)
                e = self._next_event("time")
                ends = False
                if "target" in act:
                    target, to = SPACE_IDS[act["target"]], SPACE_IDS[act["to"]]
                    if target not in self.board:
                        raise SeenMismatch("time pushes from an empty space")
                    moving = self.board.pop(target)
                    self._place(moving, to)
                else:
                    self.time_used = True
                    last, self.last = self.last, None
                    if e["outcome"] == "rewound" and last is not None:
                        self._rewind(last)
                        seen["rewound"] = last.moved
            elif kind == "pass":
                self.passes += 1
                self.last = None
                if self.passes < 2:
                    self._end_turn()
                else:
                    self.over = True
                return
            else:
                raise SeenMismatch(f"unknown action {kind!r}")
            if not ends or self.over:
                return
            self.passes = 0
            self.last = SeenLastAction(actor, tuple(moved), captured, on_iris)
            self._end_turn()
            seen["ended_turn"] = True
        finally:
            seen["over"] = self.over
            self.actions.append(SeenAction(**seen))

    def _rewind(self, last: SeenLastAction) -> None:
        back = [(tok, a) for tok, a, b in last.moved if self.towers[tok].where == BOARD and self.towers[tok].space == b]
        for tok, _ in back:
            del self.board[self.towers[tok].space]
        for tok, a in back:
            if a == RESERVE:
                self.towers[tok].where = GONE
                self.towers[tok].space = -1
                if self.towers[tok].owner == self.rival:
                    self.rival_reserve += 1
            else:
                self._place(tok, a)

    def _end_turn(self) -> None:
        self.turn += 1
        self.time_used = False
        self.frozen = set()
        if self.ban is not None and self.ban[0] < self.turn:
            self.ban = None

    def check(self, view: dict) -> None:
        """The replayed seen board must be the view's board; take the view's revealed identities."""
        seen = {SPACE_IDS[e["space"]]: e for e in view["board"]}
        if set(seen) != set(self.board):
            raise SeenMismatch("the board differs")
        for space, e in seen.items():
            t = self.towers[self.board[space]]
            if t.owner != e["owner"]:
                raise SeenMismatch("an owner differs")
            if e["piece"] is not None:
                if t.piece is not None and t.piece != e["piece"]:
                    raise SeenMismatch("an identity differs")
                t.piece = e["piece"]
            t.public = bool(e["revealed"])
        for player in PLAYERS:
            mine = sorted(t.piece or "?" for t in self.towers if t.owner == player and t.where == CAPTURED)
            if mine != sorted(view["captured"][player]):
                raise SeenMismatch("Zero Gravity differs")
        if self.rival_reserve != view["reserve"][self.rival]["count"]:
            raise SeenMismatch("the rival's reserve differs")
        if self.turn != view["turn"]:
            raise SeenMismatch("the turn differs")


__all__ = ["BOARD", "CAPTURED", "GONE", "SeenAction", "SeenGame", "SeenLastAction", "SeenMismatch", "SeenTower",
           "could_have_moved", "seen_board", "seen_game"]
