"""The opponent's information state, rebuilt from what one player may know.

Input is ``engine.views.view(game, player)`` and nothing else: the player's own
setup, the board as they see it (rival identities only where revealed), the
reserves and Zero Gravity boards, and the history and events as they saw them
(a rival's Reflection as a move, a Memory Swap as two spaces trading towers,
Void Gravity as towers moving, a single reinforcement without its piece).

The history is replayed on a *public board* that follows every tower as a
token.  What each rival token did narrows what it can be:

- the distance and the kind of path of every move it made (a Void moves 1, a
  long jump along a Sight Line next to a rival tower can be a Reflection, so a
  Light or an Artificial Light; only a Peripheral enters the Horizon, ...);
- a tower on the board from the start is never an Artificial Light;
- a tower that Void Gravity moved is a Void; one of two towers that traded
  places is a Memory;
- a Power of Time that rewound an action: no tower of that action was a Shadow;
- every flash, failed Time, declared Power and Resurrection reveals identities
  (the view's board already shows them).

The state also carries what the rules need to know which actions are legal
(the rival's last action for Classic Time, the no-flash-back ban, Memory swaps
used, the towers swapped this turn, when each tower was captured).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.board import (
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
from engine.flash import THIRD_EYE
from engine.pieces import (
    ACCELERATED_RANGE,
    ARTIFICIAL_LIGHT,
    LIGHT,
    PERIPHERAL,
    PIECES,
    RANGE,
    SHADOW,
    TIME,
    VOID,
    Setup,
)

from .tables import LIGHT_MOVES

BOARD, CAPTURED, GONE = "board", "captured", "gone"  # where a token is (GONE: back in the reserve)
RESERVE_SPACE = -1  # a ``moved`` entry's origin for a reinforced tower
ALL_PIECES = frozenset(PIECES)
NOT_AT_START = ALL_PIECES - {ARTIFICIAL_LIGHT}


class HistoryMismatch(Exception):
    """The public history did not replay onto the view's board (never expected)."""


@dataclass
class Token:
    """One tower as a player at the table follows it."""

    owner: str
    piece: str | None  # known identity: own towers always, rival towers once revealed
    allowed: frozenset[str]  # what a rival token can still be (own tokens: their piece)
    where: str = BOARD
    space: int = -1
    captured_turn: int = 0
    swaps: int = 0  # Memory Swaps it took part in (for a rival Memory's swaps left)
    acted_swaps: int = 0  # own Memory: swaps it made as the acting Memory
    public: bool = False  # both players know it (revealed)
    approach: int = 0  # its moves that brought it nearer to First Sight (a running Light?)


@dataclass
class LastAction:
    """The last turn-ending action, in tokens: what Classic Time would rewind."""

    player: str
    moved: tuple[tuple[int, int, int], ...]  # (token, from space or -1, to space)
    captured: bool
    on_iris: bool


@dataclass
class InfoState:
    """Everything ``me`` knows, ready for sampling worlds."""

    me: str
    mode: str
    turn: int
    to_move: str | None
    over: bool
    setup: Setup  # my own setup
    tokens: list[Token]
    rival_reserve: int  # how many rival towers wait in reserve
    totem_used: dict[str, bool]
    time_used: bool = False
    frozen: frozenset[int] = frozenset()  # tokens swapped by Memory this turn
    flash_ban: tuple[int, int, int] | None = None  # (turn, defender token, attacker token)
    last_action: LastAction | None = None
    passes: int = 0
    memory_pairs: list[tuple[int, int]] = field(default_factory=list)  # one of each pair is a Memory
    from_history: bool = True  # False: the history did not replay; constraints were dropped
    my_last_move: tuple[int, int] | None = None  # (from, to) of my previous turn's move, if it was one

    @property
    def rival(self) -> str:
        return other(self.me)

    def on_board(self, owner: str | None = None) -> list[int]:
        return [i for i, t in enumerate(self.tokens) if t.where == BOARD and (owner is None or t.owner == owner)]

    def unknown_rival(self) -> list[int]:
        return [i for i in self.on_board(self.rival) if self.tokens[i].piece is None]

    def key(self) -> tuple:
        """A stable summary, for seeding: two equal information states give equal keys."""
        toks = tuple(
            (t.owner, t.piece, tuple(sorted(t.allowed)), t.where, t.space, t.captured_turn, t.swaps, t.approach)
            for t in self.tokens
        )
        return (self.me, self.mode, self.turn, self.to_move, toks, self.rival_reserve, self.time_used,
                tuple(sorted(self.frozen)), self.passes, self.my_last_move)


# --- which pieces could have made a move ---------------------------------------------------


def move_pieces(a: int, b: int, occ: dict[int, int], tokens: list[Token], third_eye: bool, accelerated: bool) -> frozenset[str]:
    """Pieces whose plain move (or a Reflection) could take a tower from ``a`` to ``b``.

    ``occ`` is the public board before the move (space -> token).  Generous by
    design: a piece left in may be impossible, a piece left out never is.
    """
    mover = tokens[occ[a]].owner
    out: set[str] = set()
    for kind, path, _skip in RAYS[a]:
        if b not in path:
            continue
        i = path.index(b)
        steps = i + 1
        clear = all(s not in occ for s in path[:i])
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
            if IS_HORIZON[s] and s in occ and tokens[occ[s]].owner == mover and all(x not in occ for x in path[:j]):
                for p in PIECES:
                    rng = ACCELERATED_RANGE if p == ARTIFICIAL_LIGHT and accelerated else RANGE[p]
                    if j + 1 <= rng:
                        out.add(p)
    if third_eye:
        for first, second in ((RING_NEIGHBORS, LINE_STEP_NEIGHBORS), (LINE_STEP_NEIGHBORS, RING_NEIGHBORS)):
            if any(m not in occ and b in second[m] for m in first[a]):
                out.add(PERIPHERAL)
    if _reflectable(a, b, occ, tokens, mover, third_eye):
        out.update((LIGHT, ARTIFICIAL_LIGHT))
    return frozenset(out)


def _reflectable(a: int, b: int, occ: dict[int, int], tokens: list[Token], mover: str, third_eye: bool) -> bool:
    if a in IRIS or b in IRIS:
        return False
    for s, tok in occ.items():
        if s == a or tokens[tok].owner != mover or s in IRIS:
            continue
        if IS_HORIZON[s]:
            if third_eye and IS_HORIZON[a] and b in HORIZON_REFLECT_TARGETS[s]:
                return True
        elif LINE_OF[a] is not None and LINE_OF[s] == LINE_OF[a] and b in REFLECT_TARGETS[s]:
            return True
    return False


# --- replaying the public history ------------------------------------------------------------


class _Tracker:
    """The public board of tokens: from the start (then ``play`` the history), or from the view's board alone."""

    def __init__(self, view: dict, from_start: bool = True):
        self.me = view["viewer"]
        self.rival = other(self.me)
        self.mode = view["mode"]
        self.vision = bool(view["vision"])
        self.te = self.mode == THIRD_EYE
        self.setup = Setup.from_record(self.me, view["setup"])
        self.tokens: list[Token] = []
        self.occ: dict[int, int] = {}
        self.events = list(view["events"])
        self.ev = 0
        self.turn = 1
        self.time_used = False
        self.frozen: set[int] = set()
        self.ban: tuple[int, int, int] | None = None
        self.last: LastAction | None = None
        self.passes = 0
        self.pairs: list[tuple[int, int]] = []
        self.over = False
        self.my_last: tuple[int, int] | None = None
        if from_start:
            for space, piece in self.setup.lineup:
                self._new(self.me, piece, space)
            for space in START_SPACES[self.rival]:
                self._new(self.rival, None, space, NOT_AT_START)
            self.rival_reserve = 7
            return
        for e in view["board"]:
            tok = self._new(e["owner"], e["piece"], SPACE_IDS[e["space"]], ALL_PIECES)
            self.tokens[tok].public = bool(e["revealed"])
        for player in PLAYERS:
            for piece in view["captured"][player]:
                self.tokens.append(Token(player, piece, frozenset((piece,)), CAPTURED, -1, 0))
        self.rival_reserve = view["reserve"][self.rival]["count"]
        self.turn = view["turn"]

    def _new(self, owner: str, piece: str | None, space: int, allowed: frozenset[str] = ALL_PIECES) -> int:
        if space in self.occ:
            raise HistoryMismatch(f"two towers on {space}")
        tok = Token(owner, piece, frozenset((piece,)) if piece else allowed, BOARD, space)
        self.tokens.append(tok)
        self.occ[space] = len(self.tokens) - 1
        return len(self.tokens) - 1

    def _at(self, name: str) -> int:
        space = SPACE_IDS[name]
        if space not in self.occ:
            raise HistoryMismatch(f"no tower on {name}")
        return self.occ[space]

    def _narrow(self, tok: int, pieces: frozenset[str]) -> None:
        t = self.tokens[tok]
        if t.owner == self.rival and t.piece is None:
            narrowed = t.allowed & pieces
            if narrowed:  # never empty: a wrong deduction must not make the state impossible
                t.allowed = narrowed

    def _reveal(self, tok: int, piece: str) -> None:
        t = self.tokens[tok]
        t.piece = piece
        t.allowed = frozenset((piece,))

    def _capture(self, tok: int) -> None:
        t = self.tokens[tok]
        if t.where == BOARD and self.occ.get(t.space) == tok:
            del self.occ[t.space]
        t.where, t.space, t.captured_turn = CAPTURED, -1, self.turn
        if t.piece == LIGHT:
            self.over = True

    def _accelerated(self, owner: str) -> bool:
        return sum(1 for t in self.tokens if t.owner == owner and t.where == CAPTURED and t.piece == SHADOW) >= 2

    def _next_event(self, kind: str) -> dict:
        if self.ev >= len(self.events):
            raise HistoryMismatch("an event is missing")
        e = self.events[self.ev]
        if e["type"] != kind or e["turn"] != self.turn:
            raise HistoryMismatch("events out of step")
        self.ev += 1
        return e

    def _relocate(self, a: int, b: int, moved: list) -> bool:
        """A tower from a to b, flashing a rival there.  True if anything was captured."""
        tok = self.occ.pop(a)
        self.tokens[tok].space = -1
        defender = self.occ.get(b)
        if defender is None:
            self._place(tok, b)
            moved.append((tok, a, b))
            return False
        e = self._next_event("flash")
        if SPACE_IDS[e["at"]] != b:
            raise HistoryMismatch("flash at another space")
        self._reveal(tok, e["attacker"])
        self._reveal(defender, e["defender"])
        outcome = e["outcome"]
        if outcome == "capture":
            self._capture(defender)
            self._place(tok, b)
            return True
        if outcome == "swap":
            del self.occ[b]
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
        t = self.tokens[tok]
        t.where, t.space = BOARD, space
        self.occ[space] = tok

    def play(self, history: list[dict]) -> None:
        for entry in history:
            actor = entry["player"]
            if entry["turn"] != self.turn:
                raise HistoryMismatch("turns out of step")
            for action in entry["actions"]:
                self._action(actor, action)

    def _action(self, actor: str, act: dict) -> None:
        kind = act["type"]
        moved: list[tuple[int, int, int]] = []
        captured = on_iris = False
        ends = True
        if kind in ("move", "reflect"):
            a, b = SPACE_IDS[act["from"]], SPACE_IDS[act["to"]]
            tok = self.occ.get(a)
            if tok is None:
                raise HistoryMismatch("move from an empty space")
            if kind == "move" and actor == self.rival and not self.vision:
                self._narrow(tok, move_pieces(a, b, self.occ, self.tokens, self.te, self._accelerated(actor)))
            if LIGHT_MOVES[b] < LIGHT_MOVES[a]:
                self.tokens[tok].approach += 1
            if b == FIRST_SIGHT:
                self.occ.pop(a)
                self._place(tok, b)
                return
            captured = self._relocate(a, b, moved)
            on_iris = kind == "move" and b in IRIS
            if actor == self.me:
                self.my_last = (a, b)
        elif kind == "swap":
            if "spaces" in act:
                x, y = (SPACE_IDS[s] for s in act["spaces"])
                acting = None
            else:
                x, y = SPACE_IDS[act["memory"]], SPACE_IDS[act["with"]]
                acting = x
            tx, ty = self.occ.get(x), self.occ.get(y)
            if tx is None or ty is None:
                raise HistoryMismatch("swap with an empty space")
            self._place(tx, y)
            self._place(ty, x)
            moved = [(tx, x, y), (ty, y, x)]
            self.tokens[tx].swaps += 1
            self.tokens[ty].swaps += 1
            if acting is not None:
                self.tokens[tx].acted_swaps += 1
            elif actor == self.rival:
                self.pairs.append((tx, ty))
            if self.te:
                self.frozen |= {tx, ty}
                ends = False
        elif kind in ("gravity", "moves"):
            pulls = [(SPACE_IDS[a], SPACE_IDS[b]) for a, b in act["moves"].items()]
            toks = []
            for a, _ in pulls:
                if a not in self.occ:
                    raise HistoryMismatch("gravity from an empty space")
                toks.append(self.occ.pop(a))
            for tok, (a, b) in zip(toks, pulls):
                self._place(tok, b)
                if actor == self.rival:
                    self._narrow(tok, frozenset((VOID,)))
        elif kind == "reinforce":
            placements = sorted(act["to"].items())
            for name, piece in placements:
                space = SPACE_IDS[name]
                tok = self._new(actor, piece, space)
                if actor == self.rival:
                    self.rival_reserve -= 1
                moved.append((tok, RESERVE_SPACE, space))
        elif kind == "resurrect":
            piece = act["piece"]
            space = SPACE_IDS[act["to"]]
            lost = [i for i, t in enumerate(self.tokens)
                    if t.owner == actor and t.where == CAPTURED and t.piece == piece and t.captured_turn + 2 <= self.turn]
            if not lost:
                raise HistoryMismatch("nothing to resurrect")
            old = min(lost, key=lambda i: (self.tokens[i].captured_turn, i))
            self.tokens[old].where = GONE  # the resurrected tower is a new token, brand new
            self._new(actor, piece, space)
            ends = False
        elif kind == "time":
            at = SPACE_IDS[act["at"]]
            tok = self.occ.get(at)
            if tok is None:
                raise HistoryMismatch("time from an empty space")
            self._reveal(tok, TIME)
            self._capture(tok)
            e = self._next_event("time")
            ends = False
            if "target" in act:
                target, to = SPACE_IDS[act["target"]], SPACE_IDS[act["to"]]
                moving = self.occ.pop(target)
                self._place(moving, to)
            else:
                self.time_used = True
                last, self.last = self.last, None
                if e["outcome"] == "rewound" and last is not None:
                    self._rewind(last)
        elif kind == "pass":
            self.passes += 1
            self.last = None
            if self.passes < 2:
                self._end_turn()
            return
        else:
            raise HistoryMismatch(f"unknown action {kind!r}")
        if not ends or self.over:
            return
        if actor == self.me and kind not in ("move", "reflect"):
            self.my_last = None
        self.passes = 0
        self.last = LastAction(actor, tuple(moved), captured, on_iris)
        self._end_turn()

    def _rewind(self, last: LastAction) -> None:
        back = [(tok, a) for tok, a, b in last.moved if self.tokens[tok].where == BOARD and self.tokens[tok].space == b]
        for tok, _ in back:
            del self.occ[self.tokens[tok].space]
        for tok, a in back:
            if a == RESERVE_SPACE:
                self.tokens[tok].where = GONE
                self.tokens[tok].space = -1
                if self.tokens[tok].owner == self.rival:
                    self.rival_reserve += 1
            else:
                self._place(tok, a)
        for tok, a, b in last.moved:
            if self.tokens[tok].owner == last.player and a != b:
                self._narrow(tok, NOT_SHADOW)

    def _end_turn(self) -> None:
        self.turn += 1
        self.time_used = False
        self.frozen = set()
        if self.ban is not None and self.ban[0] < self.turn:
            self.ban = None


NOT_SHADOW = ALL_PIECES - {SHADOW}


def _check(tr: _Tracker, view: dict) -> None:
    """The replayed public board must be the view's board; take the view's revealed identities."""
    seen = {SPACE_IDS[e["space"]]: e for e in view["board"]}
    if set(seen) != set(tr.occ):
        raise HistoryMismatch("the board differs")
    for space, e in seen.items():
        t = tr.tokens[tr.occ[space]]
        if t.owner != e["owner"]:
            raise HistoryMismatch("an owner differs")
        if e["piece"] is not None:
            if t.piece is not None and t.piece != e["piece"]:
                raise HistoryMismatch("an identity differs")
            t.piece = e["piece"]
            t.allowed = frozenset((e["piece"],))
        t.public = bool(e["revealed"])
    for player in PLAYERS:
        mine = sorted(t.piece or "?" for t in tr.tokens if t.owner == player and t.where == CAPTURED)
        if mine != sorted(view["captured"][player]):
            raise HistoryMismatch("Zero Gravity differs")
    if tr.rival_reserve != view["reserve"][tr.rival]["count"]:
        raise HistoryMismatch("the rival's reserve differs")
    if tr.turn != view["turn"]:
        raise HistoryMismatch("the turn differs")


def info_state(view: dict) -> InfoState:
    """The information state of ``view``'s viewer (a player's view from ``engine.views.view``)."""
    me = view.get("viewer")
    if me not in PLAYERS:
        raise ValueError("the opponent needs a player's view, not the public one")
    from_history = True
    try:
        tr = _Tracker(view)
        tr.play(view["history"])
        _check(tr, view)
    except (HistoryMismatch, KeyError, ValueError):
        tr = _Tracker(view, from_start=False)  # without the history: the board as the view shows it
        from_history = False
    result = view["result"]
    return InfoState(
        me=me,
        mode=view["mode"],
        turn=view["turn"],
        to_move=view["to_move"],
        over=result["status"] != "ongoing",
        setup=tr.setup,
        tokens=tr.tokens,
        rival_reserve=tr.rival_reserve,
        totem_used=dict(view["totem_used"]),
        time_used=tr.time_used,
        frozen=frozenset(tr.frozen),
        flash_ban=tr.ban,
        last_action=tr.last,
        passes=tr.passes,
        memory_pairs=list(tr.pairs),
        from_history=from_history,
        my_last_move=tr.my_last,
    )


__all__ = ["InfoState", "Token", "LastAction", "info_state", "move_pieces", "BOARD", "CAPTURED", "GONE"]
