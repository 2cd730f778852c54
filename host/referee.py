"""The referee: sensor snapshots and players' inputs in, refereed actions and notices out.

The Hall sensors see only which spaces hold a tower.  The referee turns that,
plus the engine's hidden knowledge and a few private inputs from the players'
phones, into exactly the actions that were played (see ``docs/referee.md``).

Sans-I/O: it never reads a clock or a device.  ``feed(snapshot)`` hands it a
raw reading, ``tick(now)`` lets time pass, ``input(player, data, now)`` hands
it a player's input; each returns the :class:`Notice` s to send.

How evidence becomes an action, in short:

1. :class:`host.debounce.Debouncer` turns raw readings into a stable occupancy
   ``S`` and records every space whose stable state changed since the step
   began (``touched``).
2. At the start of every step (a turn, or the rest of a turn after a
   non-ending action) :func:`build_step` lists every legal action of the
   player to move with the occupancy change it would make (spaces emptied,
   spaces filled), the spaces it must touch, and whether it needs the mover's
   word (Reinforcement, Resurrection, Time, Memory Swap).
3. The change ``B -> S`` is looked up in that index.  One action (or several
   with the same result) that the evidence supports: commit.  Several with
   different results: ask the mover, privately.  A flash: announce the outcome
   and what to do, commit when the board shows it.  Nothing: after the settle
   window, tell the mover, privately, exactly which spaces to clear or fill.
"""

from __future__ import annotations

import time as _time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any, Callable

from engine.actions import (
    PASS,
    Action,
    Gravity,
    Move,
    Reflect,
    Reinforce,
    Resurrect,
    Swap,
    Time,
    action_from_record,
)
from engine.board import EDGES, GATEWAYS, PLAYERS, SPACE_NAMES, SPACES, other
from engine.errors import InvalidError
from engine.flash import CAPTURE, FLASH_TABLE, SWAP
from engine.game import EMPTY, Game, TimeEvent
from engine.pieces import parse_piece
from engine.views import action_seen_by
from host.debounce import EPS, Debouncer
from host.sensing import Snapshot

N = SPACE_NAMES
INF = float("inf")
NOTHING: frozenset[int] = frozenset()
CAUSAL_SLACK = 0.1  # seconds a placement may seem to precede the lift it follows (sensor jitter)

PUBLIC = "public"
#: the kinds of Notice (docs/referee.md describes each one's data)
KINDS = ("started", "committed", "flash", "time", "instruction", "question", "rejected", "waiting", "result")

# What an input may hold: type -> (required fields, optional fields)
INPUTS = {
    "reinforce": ({"pieces"}, set()),
    "resurrect": ({"piece"}, set()),
    "time": (set(), set()),
    "swap": (set(), set()),
    "done": (set(), set()),
    "choose": ({"action"}, set()),
}


@dataclass(frozen=True)
class Notice:
    """Something to tell ``audience`` ("public", "white" or "black"); ``data`` is JSON-ready."""

    audience: str
    kind: str
    data: dict

    def to_json(self) -> dict:
        return {"audience": self.audience, "kind": self.kind, "data": self.data}


class InputError(ValueError):
    """A player's input was malformed, out of turn or impossible; nothing changed."""


# --- distances and corrections -----------------------------------------------------------


def _distances() -> tuple[tuple[int, ...], ...]:
    nbrs: list[list[int]] = [[] for _ in SPACES]
    for a, b, _ in EDGES:
        nbrs[a].append(b)
        nbrs[b].append(a)
    table = []
    for s in SPACES:
        dist = [len(SPACES)] * len(SPACES)
        dist[s] = 0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in nbrs[u]:
                if dist[v] > dist[u] + 1:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        table.append(tuple(dist))
    return tuple(table)


#: DISTANCE[a][b]: steps between two spaces along the board's adjacency
DISTANCE = _distances()


def _pair(extra: list[int], missing: list[int]) -> list[tuple[int, int]]:
    """Pair as many extras with missing spaces as possible, by the least total distance."""
    if not extra or not missing:
        return []
    swap = len(extra) > len(missing)
    small, large = (missing, extra) if swap else (extra, missing)
    # small is matched completely; large keeps leftovers.
    if len(small) > 10:  # beyond exact search: nearest first
        pairs, free = [], list(large)
        for s in small:
            best = min(free, key=lambda x: DISTANCE[s][x])
            free.remove(best)
            pairs.append((s, best))
    else:
        n = len(small)
        full = (1 << n) - 1
        # dp over the large side: best[mask] = (cost, pairs) using small items in mask
        best: dict[int, tuple[int, tuple]] = {0: (0, ())}
        for x in large:
            nxt = dict(best)
            for mask, (cost, pairs) in best.items():
                for i in range(n):
                    if not mask >> i & 1:
                        m2 = mask | 1 << i
                        c2 = cost + DISTANCE[small[i]][x]
                        if m2 not in nxt or c2 < nxt[m2][0]:
                            nxt[m2] = (c2, pairs + ((small[i], x),))
            best = nxt
        pairs = list(best[full][1])
    if swap:  # (missing, extra) -> (extra, missing)
        return [(x, s) for s, x in pairs]
    return pairs


def corrections(board: frozenset[int], target: frozenset[int]) -> list[dict]:
    """What to do so that ``board`` shows ``target``: towers to move, spaces to clear or fill.

    Displaced towers are paired with the spaces that miss one by the shortest
    total distance (towers all look alike to the sensors).
    """
    extra = sorted(board - target)
    missing = sorted(target - board)
    pairs = _pair(extra, missing)
    used_x = {a for a, _ in pairs}
    used_m = {b for _, b in pairs}
    out: list[dict] = []
    for a, b in sorted(pairs):
        out.append({"do": "move", "from": N[a], "to": N[b], "text": f"move the tower on {N[a]} to {N[b]}"})
    for a in extra:
        if a not in used_x:
            out.append({"do": "clear", "space": N[a], "text": f"clear {N[a]}"})
    for b in missing:
        if b not in used_m:
            out.append({"do": "fill", "space": N[b], "text": f"put a tower on {N[b]}"})
    return out


def _say_list(items: list[dict]) -> str:
    return "; ".join(i["text"] for i in items)


# --- candidates: what each legal action would do to the board ---------------------------


class Candidate:
    """A legal action and the evidence it needs."""

    __slots__ = ("action", "rem", "add", "touch", "needs", "flash", "outcome", "rank", "index", "pairs")

    def __init__(self, action, rem, add, touch, needs, flash, outcome, rank, index, pairs=()):
        self.action = action
        self.rem: frozenset[int] = rem  # spaces it empties
        self.add: frozenset[int] = add  # spaces it fills
        self.touch: frozenset[int] = touch  # spaces that must have changed at some time
        self.needs: str | None = needs  # the mover's word it needs: reinforce, resurrect, time, swap, pass
        self.flash: tuple[int, int] | None = flash  # (from, at) for a flash
        self.outcome: str | None = outcome
        self.rank = rank  # preference among actions with the same result (a plain move first)
        self.index = index
        self.pairs: tuple[tuple[int, int], ...] = pairs  # (from, to) of each tower it carries

    def result(self, base: frozenset[int]) -> frozenset[int]:
        return (base - self.rem) | self.add

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Candidate({self.action})"


_RANK = {Move: 0, Reflect: 1, Gravity: 2}


class Step:
    """The legal actions of one step (a turn, or what is left of it) indexed by board change."""

    def __init__(self, game: Game):
        self.game = game
        self.base = game.occupied()
        self.player = game.to_move
        self.legal = game.legal_actions()
        self.cands: list[Candidate] = []
        self.index: dict[tuple[frozenset, frozenset], list[Candidate]] = {}
        self.flashes: dict[tuple[int, int], list[Candidate]] = {}
        self.flash_from: set[int] = set()
        self._results: dict[Action, tuple] = {}
        self._extendable: dict[tuple, bool] = {}
        st = game.state
        board = st.board
        table = FLASH_TABLE[game.mode]
        piece = game.piece
        base = self.base
        for i, a in enumerate(self.legal):
            kind = type(a)
            flash = outcome = needs = None
            pairs: tuple = ()
            if kind is Move or kind is Reflect:
                f, t = a.frm, a.to
                d = board[t]
                touch = frozenset((f, t))
                if d == EMPTY:
                    rem, add = frozenset((f,)), frozenset((t,))
                    pairs = ((f, t),)
                else:
                    outcome = table[(piece[board[f]], piece[d])]
                    flash = (f, t)
                    add = NOTHING
                    rem = frozenset((f,)) if outcome == CAPTURE else NOTHING if outcome == SWAP else touch
            elif kind is Swap:
                rem = add = NOTHING
                touch = frozenset((a.memory, a.other))
                needs = "swap"
            elif kind is Reinforce:
                rem, add = NOTHING, frozenset(s for s, _ in a.placements)
                touch = add
                needs = "reinforce"
            elif kind is Resurrect:
                rem, add = NOTHING, frozenset((a.to,))
                touch = add
                needs = "resurrect"
            elif kind is Gravity:
                rem = frozenset(x for x, _ in a.moves)
                add = frozenset(y for _, y in a.moves)
                touch = rem | add
                pairs = a.moves
            elif kind is Time:
                needs = "time"
                if a.target is not None:
                    rem, add = frozenset((a.at, a.target)), frozenset((a.to,))
                    touch = rem | add
                    pairs = ((a.target, a.to),)
                else:
                    touch = {a.at}
                    last = st.last_action
                    spent = board[a.at]
                    back = set()
                    if last is not None:
                        for t, x, y in last.moved:
                            if st.loc[t] == y and t != spent:
                                back.update(s for s in (x, y) if s >= 0)
                    # push/pop replaces game.state: take fresh references afterwards
                    game.push(a)
                    after = game.occupied()
                    outcome = game.events[-1].outcome
                    game.pop()
                    st = game.state
                    board = st.board
                    rem, add = base - after, after - base
                    if outcome == "rewound":
                        touch |= back
                    touch = frozenset(touch | rem | add)
            else:  # Pass
                rem = add = touch = NOTHING
                needs = "pass"
            c = Candidate(a, rem, add, touch, needs, flash, outcome, _RANK.get(kind, 3), i, pairs)
            self.cands.append(c)
            if flash is not None:
                self.flashes.setdefault(flash, []).append(c)
                self.flash_from.add(flash[0])
            else:
                self.index.setdefault((rem, add), []).append(c)
        self.pass_only = self.legal == [PASS]
        self.can_pass = PASS in self.legal

    def result_key(self, action: Action) -> tuple:
        """The whole state after ``action``: actions with equal keys are the same result."""
        key = self._results.get(action)
        if key is None:
            game = self.game
            game.push(action)
            key = game.state.key()
            game.pop()
            self._results[action] = key
        return key

    def groups(self, cands: list[Candidate]) -> list[list[Candidate]]:
        """Candidates grouped by their result, best first within each group."""
        if len(cands) == 1:
            return [cands]
        by: dict[tuple, list[Candidate]] = {}
        for c in cands:
            by.setdefault(self.result_key(c.action), []).append(c)
        return [sorted(g, key=lambda c: (c.rank, c.index)) for g in by.values()]


def evidence_choice(game: Game, action: Action, declared: str | None = None) -> Action | None:
    """What the referee makes of ``action`` played cleanly on the board, if it needs no question.

    Used by the simulator to know when a real player would have to pick an
    option on their phone: returns the action the referee would commit from the
    board (and a declaration of kind ``declared``) alone, or None if it would ask.
    """
    step = Step(game)
    c = next(c for c in step.cands if c.action == action)
    if c.flash is not None:
        group = step.flashes[c.flash]
        groups = step.groups(group)
        return groups[0][0].action if len(groups) == 1 else None
    matches = [
        m
        for m in step.index.get((c.rem, c.add), ())
        if (m.needs is None or m.needs == declared) and m.touch <= c.touch
    ]
    if declared == "reinforce":
        want = Counter(p for _, p in action.placements)
        matches = [m for m in matches if m.needs != "reinforce" or Counter(p for _, p in m.action.placements) == want]
    if declared == "resurrect":
        matches = [m for m in matches if m.needs != "resurrect" or m.action.piece == action.piece]
    groups = step.groups(matches)
    if len(groups) != 1:
        return None
    return groups[0][0].action


# --- the referee ---------------------------------------------------------------------------


class Referee:
    """Referees one game from board snapshots and players' inputs.

    ``settle`` is the board-level settle window (seconds): how long the board
    must be quiet before the referee asks a question, announces what it cannot
    match or gives corrections.  An action the evidence fits unambiguously is
    committed sooner, ``quiet`` seconds after the last sensor change.
    ``on_commit(turn, player, action)`` runs after the engine applied an action
    and before any notice about it is returned (the store makes it durable).
    """

    def __init__(
        self,
        game: Game,
        on_commit: Callable[[int, str, Action], Any] | None = None,
        settle: float = 0.25,
        *,
        quiet: float = 0.15,
        debounce_on: float = 0.05,
        debounce_off: float = 0.15,
        multi_settle: float = 1.5,
        hold: float = 4.0,
        stats: bool = False,
    ):
        if settle < 0 or quiet < 0 or multi_settle < 0:
            raise ValueError("settle windows must not be negative")
        self.game = game
        self.on_commit = on_commit
        self.settle = settle
        self.quiet = min(quiet, settle)
        self.multi_settle = max(multi_settle, settle)
        self.hold = max(hold, settle)  # a tower may be held in the hand this long before a reminder
        self.deb = Debouncer(debounce_on, debounce_off)
        self.phase = "over" if game.is_over() else "setup" if not game.log else "sync"
        self.stats: dict[str, list] | None = {"decisions": [], "latency": [], "builds": [], "commits": []} if stats else None
        self.touched: set[int] = set()
        self.step: Step | None = None
        self.decl: dict | None = None  # the mover's declaration for this step
        self.lock: list[Candidate] | None = None  # a flash announced, waiting for its outcome
        self.lock_result: frozenset[int] | None = None
        self.flash_info: dict | None = None
        self.time_info: dict | None = None
        self.question: dict | None = None  # {"player", "options": [Action], "text"}
        self.rejected: dict[str, str | None] = {p: None for p in PLAYERS}
        self.private_instructions: dict[str, list] = {p: [] for p in PLAYERS}
        self.public_instructions: list[dict] = []
        self._said: dict[tuple[str, str], Any] = {}
        self._force = False
        self._dirty = True
        self._wake = INF
        self.now = float("-inf")
        self.seen_snapshot = False
        self._carried: list[Notice] = []
        self._stretch: dict[int, float] = {}  # space -> when it began changing without a quiet spell
        self._waiting_commit: tuple | None = None  # (action, board it fits, since when): may grow
        self.flip_at: dict[int, float] = {}  # space -> raw time its current stable state began
        self.flip_when: dict[int, float] = {}  # space -> when its stable state last flipped
        self._asked: dict | None = None  # the evidence a pending question is about
        if self.phase != "over":
            self._new_step()

    # --- the interface ----------------------------------------------------------------------

    def feed(self, snapshot: Snapshot) -> list["Notice"]:
        """A raw sensor snapshot."""
        now = max(snapshot.t, self.now)
        self.now = now
        deb = self.deb
        self.seen_snapshot = True
        if snapshot.occupied != deb.raw:
            stretch = self._stretch
            since = deb.since
            for s in snapshot.occupied ^ deb.raw:
                if now - since.get(s, -INF) >= self.quiet - EPS:
                    stretch[s] = now  # this space starts changing after a quiet spell
            flipped = deb.feed(now, frozenset(snapshot.occupied))
            self._dirty = True
        else:
            flipped = deb.advance(now)
        return self._take_carried() + self._step(now, flipped)

    def tick(self, now: float) -> list["Notice"]:
        """Time passes without a new snapshot."""
        now = max(now, self.now)
        self.now = now
        return self._take_carried() + self._step(now, self.deb.advance(now))

    def _take_carried(self) -> list["Notice"]:
        carried, self._carried = self._carried, []
        return carried

    def next_deadline(self) -> float | None:
        """The next time at which ``tick`` would change something (None: nothing is due)."""
        if not self.seen_snapshot or self.phase == "over":
            return None
        due = self.deb.next_due()
        if self.deb.pending:
            return due
        wake = self._wake if not self._dirty else self.now
        if due is None:
            return None if wake == INF else wake
        return min(due, wake)

    def expected(self) -> frozenset[int]:
        """The occupancy the board should show once the pending step is done."""
        if self.lock_result is not None:
            return self.lock_result
        if self.time_info is not None and self.time_info.get("result") is not None:
            return self.time_info["result"]
        return self.game.occupied()

    def public_status(self) -> dict:
        game = self.game
        data: dict = {
            "phase": self.phase,
            "turn": game.turn,
            "to_move": None if game.is_over() else game.to_move,
            "result": game.result.to_json() if game.result else None,
            "flash": _public_flash(self.flash_info),
            "time": _public_time(self.time_info),
            "instructions": list(self.public_instructions),
            "expected": sorted(N[s] for s in self.expected()),
            "board": sorted(N[s] for s in self.deb.stable),
        }
        data["waiting_for"] = self._waiting_text()
        return data

    def private_status(self, player: str) -> dict:
        if player not in PLAYERS:
            raise ValueError(f"unknown player {player!r}")
        q = self.question if self.question and self.question["player"] == player else None
        decl = self.decl if self.decl and self.game.to_move == player else None
        return {
            "player": player,
            "question": _question_json(q) if q else None,
            "rejected": self.rejected[player],
            "instructions": list(self.private_instructions[player]),
            "declared": _decl_json(decl) if decl else None,
        }

    def input(self, player: str, data: object, now: float) -> list["Notice"]:
        """A player's input (schema in docs/referee.md).  InputError if malformed or out of turn."""
        kind, fields = self._check_input(player, data)
        out = self.tick(now)
        try:
            self._check_turn(player)
            getattr(self, "_input_" + kind)(player, fields, out)
        except InputError:
            # What happened on the board meanwhile (a commit) is still news: hand it out next time.
            self._carried = out + self._carried
            raise
        return out

    # --- inputs ----------------------------------------------------------------------------

    def _check_input(self, player: object, data: object) -> tuple[str, dict]:
        if player not in PLAYERS:
            raise InputError(f"player: expected 'white' or 'black', got {player!r}")
        if not isinstance(data, dict):
            raise InputError("an input must be a JSON object with a 'type'")
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in INPUTS:
            raise InputError(f"type: unknown input type {kind!r} (one of {', '.join(INPUTS)})")
        required, optional = INPUTS[kind]
        extra = set(data) - {"type"} - required - optional
        if extra:
            raise InputError(f"{kind}: unknown field {sorted(extra)[0]!r}")
        missing = required - set(data)
        if missing:
            raise InputError(f"{kind}: missing field {sorted(missing)[0]!r}")
        return kind, data

    def _check_turn(self, player: str) -> None:
        game = self.game
        if game.is_over():
            raise InputError("the game is over")
        if self.phase != "play":
            raise InputError("the game has not started: both lineups must stand on their starting spaces")
        if player != game.to_move:
            raise InputError(f"it is {game.to_move}'s turn")

    def _of_kind(self, kind: type) -> list[Candidate]:
        return [c for c in self.step.cands if type(c.action) is kind]

    def _input_reinforce(self, player: str, data: dict, out: list) -> None:
        pieces = data["pieces"]
        if not isinstance(pieces, list) or not pieces:
            raise InputError("reinforce: pieces: expected a list of one or more pieces")
        try:
            parsed = [parse_piece(p, "reinforce: pieces") for p in pieces]
        except InvalidError as exc:
            raise InputError(str(exc)) from None
        want = Counter(parsed)
        fits = [c for c in self._of_kind(Reinforce) if Counter(p for _, p in c.action.placements) == want]
        if not fits:
            raise InputError("reinforce " + self._why_reinforce(parsed))
        self._flash_lock_check("a reinforcement")
        self._declare({"kind": "reinforce", "pieces": want}, out)

    def _why_reinforce(self, pieces: list[str]) -> str:
        game = self.game
        free = [g for g in GATEWAYS[game.to_move] if game.state.board[g] == EMPTY]
        if not free:
            return "is not possible: none of your Gateways is empty"
        if len(pieces) > len(free):
            return f"is not possible: only {len(free)} of your Gateways are empty"
        why = game.why_illegal(Reinforce(tuple(sorted(zip(free, pieces)))))
        return why or "is not legal now"

    def _input_resurrect(self, player: str, data: dict, out: list) -> None:
        try:
            piece = parse_piece(data["piece"], "resurrect: piece")
        except InvalidError as exc:
            raise InputError(str(exc)) from None
        fits = [c for c in self._of_kind(Resurrect) if c.action.piece == piece]
        if not fits:
            game = self.game
            free = [g for g in GATEWAYS[other(player)] if game.state.board[g] == EMPTY]
            if not free:
                raise InputError("resurrect is not possible: none of your rival's Gateways is empty")
            raise InputError(f"resurrect {piece} " + (game.why_illegal(Resurrect(piece, free[0])) or "is not legal now"))
        self._flash_lock_check("a Resurrection")
        self._declare({"kind": "resurrect", "piece": piece}, out)

    def _input_time(self, player: str, data: dict, out: list) -> None:
        fits = self._of_kind(Time)
        if not fits:
            raise InputError("time " + self._why_time())
        self._flash_lock_check("the Power of Time")
        if self.decl and self.decl["kind"] == "time":
            return
        self._declare({"kind": "time"}, out, evaluate=False)
        self._announce_time(fits, out)
        self._evaluate_now(out)

    def _why_time(self) -> str:
        game = self.game
        mine = [s for s in SPACES if (t := game.state.board[s]) != EMPTY and game.owner[t] == game.to_move
                and game.piece[t] == "time"]
        if not mine:
            return "is not possible: you have no Time tower on the board"
        if game.third_eye:
            return "is not possible: no rival tower can be pushed back now"
        return game.why_illegal(Time(mine[0])) or "is not legal now"

    def _input_swap(self, player: str, data: dict, out: list) -> None:
        if not self._of_kind(Swap):
            raise InputError("swap is not possible: no Memory of yours can swap now")
        self._flash_lock_check("a Memory Swap")
        self._declare({"kind": "swap"}, out)

    def _input_choose(self, player: str, data: dict, out: list) -> None:
        try:
            action = action_from_record(data["action"])
        except InvalidError as exc:
            raise InputError(f"choose: action: {exc}") from None
        game = self.game
        if not game.is_legal(action):
            raise InputError(f"choose: {action} {game.why_illegal(action)}")
        if self.lock is not None and action not in [c.action for c in self.lock]:
            raise InputError(f"choose: {action} is not the flash under way on {N[self.lock[0].flash[1]]}")
        self._declare({"kind": "action", "action": action}, out)

    def _input_done(self, player: str, data: dict, out: list) -> None:
        before = len(self.game.log)
        step = self.step
        asked = self._asked
        if asked is not None and asked["options"] and all(type(a) is Swap for a in asked["options"]):
            # "Did you swap?" - "No, I only straightened my towers": forget those touches.
            self._asked = None
            self.question = None
            self.touched = {s for s in self.touched if self.flip_when.get(s, -INF) > asked["when"]}
            out.append(Notice(player, "question", {"options": [], "text": "no swap: carry on"}))
            self._evaluate_now(out)
            return
        if (
            step.can_pass
            and self.deb.stable == step.base
            and not self.deb.pending
            and self.lock is None
            and (self.decl is None or self.decl["kind"] in ("pass", "action") and self.decl.get("action") == PASS)
        ):
            self._commit(PASS, self.now, out)
            return
        self._evaluate_now(out, done=True)
        if len(self.game.log) == before:
            reason = "the board does not show a finished action yet"
            if self.deb.pending:
                reason = "the board is still moving"
            self.rejected[player] = reason
            out.append(Notice(player, "rejected", {"input": "done", "reason": reason}))

    def _flash_lock_check(self, what: str) -> None:
        if self.lock is not None:
            raise InputError(f"a flash is under way on {N[self.lock[0].flash[1]]}: finish it before {what}")

    def _declare(self, decl: dict, out: list, evaluate: bool = True) -> None:
        self.decl = decl
        player = self.game.to_move
        self.rejected[player] = None
        out.append(Notice(player, "instruction", {"declared": _decl_json(decl), "text": _decl_text(decl)}))
        if evaluate:
            self._evaluate_now(out)

    def _evaluate_now(self, out: list, done: bool = False) -> None:
        if self.deb.pending or self.phase != "play":
            self._dirty = True
            return
        self._force = True
        self._done = done
        try:
            self._evaluate(self.now, out)
        finally:
            self._force = False
            self._done = False

    # --- the step machinery ---------------------------------------------------------------

    def _new_step(self) -> None:
        t0 = _time.perf_counter()
        self.step = Step(self.game)
        if self.stats is not None:
            self.stats["builds"].append(_time.perf_counter() - t0)
        self.touched = set()
        self._waiting_commit = None
        self._asked = None
        self.decl = None
        self.lock = None
        self.lock_result = None
        self.flash_info = None
        self.time_info = None
        self.question = None
        self.public_instructions = []
        self.private_instructions = {p: [] for p in PLAYERS}
        self._said = {}
        self._done = False

    def _step(self, now: float, flipped: frozenset[int]) -> list["Notice"]:
        out: list[Notice] = []
        if flipped:
            since = self.deb.since
            for s in flipped:
                self.flip_at[s] = since[s]  # when the reading that flipped it began
                self.flip_when[s] = now
            self.touched |= flipped
            waiting = self._waiting_commit
            if waiting is not None and self.phase == "play":
                action, result, when = waiting
                S = self.deb.stable
                B = self.step.base
                if any(self.flip_when.get(x, -INF) > when for x in result ^ B):
                    self._waiting_commit = None  # the action itself was touched again: not done
                elif S != result and not self._could_extend(B - S, S - B):
                    # The board held a complete action that a bigger one might have extended, and
                    # since then it changed in a way no bigger action can (the rival starting their
                    # turn): the mover was done.  What changed since is the next step's evidence.
                    later = {x for x in self.touched if self.flip_when.get(x, -INF) > when} | flipped
                    self._commit(action, now, out)
                    if self.phase == "play":
                        self.touched = later
            self._dirty = True
        if self.phase == "over" or not self.seen_snapshot:
            return out
        if self.deb.pending or now - self.deb.last_change < self.quiet - EPS:
            self._watch_unsettled(now, out)
            if self.deb.pending:
                return out
        elif self._said.get((PUBLIC, "waiting")) is not None:
            self._said[(PUBLIC, "waiting")] = None
            out.append(Notice(PUBLIC, "waiting", {"sensors": [], "text": "the board has settled"}))
        if self._dirty or now + EPS >= self._wake:
            self._dirty = False
            if self.stats is not None and self.phase == "play":
                t0 = _time.perf_counter()
                n = len(self.game.log)
                self._evaluate(now, out)
                dt = _time.perf_counter() - t0
                self.stats["decisions"].append(dt)
                if len(self.game.log) != n:
                    self.stats["latency"].append(now - self.deb.last_change)
                    self.stats["commits"].append(dt)
            else:
                self._evaluate(now, out)
        return out

    def _watch_unsettled(self, now: float, out: list) -> None:
        """A sensor that never settles (a flickering reading, a tower wobbling on its magnet)
        holds everything up: after ``hold`` seconds, say so publicly (it reveals nothing)."""
        since = self.deb.since
        quiet = self.quiet - EPS
        for s in [s for s in self._stretch if now - since[s] >= quiet and s not in self.deb.pending]:
            del self._stretch[s]  # settled again
        bad = [s for s, start in self._stretch.items() if now - start >= self.hold - EPS]
        if not bad:
            return
        spaces = sorted(N[s] for s in bad)
        text = ("the board does not settle: the sensor on " + ", ".join(spaces)
                + " keeps changing; steady the tower there or check its sensor")
        self._say(out, PUBLIC, "waiting", {"sensors": spaces, "text": text}, sig=tuple(spaces))

    def _ready(self, q: float, threshold: float) -> bool:
        """Has the board been quiet for ``threshold``?  If not, wake up when it will have been."""
        if self._force or q >= threshold - EPS:
            return True
        self._wake = min(self._wake, self.deb.last_change + threshold)
        return False

    def _say(self, out: list, audience: str, kind: str, data: dict, sig: Any = None) -> None:
        """Emit a notice unless the same one was the last of its kind for this audience."""
        key = (audience, kind)
        sig = data if sig is None else sig
        if self._said.get(key) == sig:
            return
        self._said[key] = sig
        out.append(Notice(audience, kind, data))

    def _evaluate(self, now: float, out: list) -> None:
        self._wake = INF
        game = self.game
        if game.is_over():
            self.phase = "over"
            return
        S = self.deb.stable
        q = now - self.deb.last_change
        if self.phase in ("setup", "sync"):
            self._evaluate_sync(S, q, out)
            return
        step = self.step
        B = step.base
        mover = step.player

        if self.lock is not None:
            R = self.lock_result
            if S == R and self._ready(q, self.quiet):
                self._commit(self._pick(self.lock), now, out)
            elif S != R and self._ready(q, self.settle):
                todo = corrections(S, R)
                self.public_instructions = todo
                self._say(out, PUBLIC, "instruction", {"for": "flash", "at": N[self.lock[0].flash[1]],
                                                        "instructions": todo, "text": _say_list(todo)})
            return

        asked = self._asked
        if asked is not None and S != asked["board"]:
            if self._resolve_asked(asked, now, out):
                return
            if S == B and asked["board"] != B:
                # Everything put back: the mover took the action back; the question lapses.
                self._drop_question(mover, out, "the question lapsed: the board is back as it was")
            elif all(type(a) is Swap for a in asked["options"]):
                # "Did you swap?" is open: a Memory Swap changes nothing the sensors see, so never
                # read on past it (a move now would silently lose a swap that happened).
                if self._ready(q, self.settle):
                    self._say(out, mover, "waiting", {"instructions": [], "reason": None,
                                                      "text": "answer the question first: " + asked_text(asked)},
                              sig=("asked", S))
                return

        rem = B - S
        add = S - B
        touched = self.touched
        decl = self.decl

        # A flash: the mover's tower left its space and a rival tower on its target was touched.
        if (decl is None or decl["kind"] != "time") and touched:
            flashes = self._flash_candidates(S, B, rem, add)
            if flashes:
                pairs = {c.flash for c in flashes}
                if len(pairs) == 1 or (decl and decl["kind"] == "action"
                                       and any(c.action == decl["action"] for c in flashes)):
                    if len(pairs) > 1:
                        chosen = decl["action"]
                        pair = next(c.flash for c in flashes if c.action == chosen)
                    else:
                        pair = next(iter(pairs))
                    if self._ready(q, self.quiet):
                        self._start_flash(step.flashes[pair], S, now, out)
                    return
                if self._ready(q, self.settle):
                    self._ask(mover, [c.action for c in flashes], "several flashes fit the board: which one?", out)
                return

        matches = [
            c for c in step.index.get((rem, add), ())
            if self._allowed(c) and c.touch <= touched and self._causal(c)
        ]
        if matches:
            if decl and decl["kind"] == "action":
                for c in matches:
                    if c.action == decl["action"]:
                        if self._ready(q, self.quiet):
                            self._commit(c.action, now, out)
                        return
            groups = step.groups(matches)
            if len(groups) == 1:
                if self._extendable(rem, add) and not self._done:
                    if self._ready(q, self.multi_settle):
                        self._commit(groups[0][0].action, now, out)
                    elif self._waiting_commit is None or self._waiting_commit[1] != S:
                        # Should the board change in a way no bigger action can, commit at once.
                        self._waiting_commit = (groups[0][0].action, S, now)
                elif self._ready(q, self.quiet):
                    self._commit(groups[0][0].action, now, out)
                return
            if self._ready(q, self.settle):
                options = [g[0].action for g in groups]
                self._ask(mover, options, "the board fits several actions: which one did you play?", out)
            return

        # The board shows an action that needs the mover's word (which piece came in, was it a
        # Memory Swap): ask, privately.
        needing = [
            c for c in step.index.get((rem, add), ())
            if c.needs not in (None, "pass") and c.touch <= touched and not self._allowed(c)
            and (decl is None or decl["kind"] != c.needs)  # declared: more is coming, not a question
        ]
        if needing:
            # Only towers lifted: more may come (a swap under way), so ask only if it lasts.
            if self._ready(q, self.hold if rem and not add else self.settle):
                kinds = {c.needs for c in needing}
                if kinds == {"swap"}:
                    text = "did you swap? choose the swap, or carry on"
                elif kinds <= {"reinforce", "resurrect"}:
                    text = "which tower did you bring in?"
                else:
                    text = "which action did you play?"
                self._ask(mover, [c.action for c in needing], text, out)
            return
        if not rem and not add:
            if decl is None and self.question is None:
                self.touched = set()
            self._clear_waiting(mover, out)
            return

        # Nothing fits yet.  The Power of Time under way: say publicly what is left to do.
        info = self.time_info
        if info is not None and info.get("result") is not None:
            if self._ready(q, self.settle):
                # Nothing left to fill or clear but not all done: towers still to trade places.
                todo = corrections(S, info["result"]) or info["instructions"]
                self.public_instructions = todo
                self._say(out, PUBLIC, "instruction", {"for": "time", "instructions": todo,
                                                        "text": _say_list(todo)})
            return
        # Towers lifted and nothing placed: hands at work (a move, a flash being revealed), not a
        # mistake, unless it lasts (a tower knocked off the board, a sensor that reads nothing).
        partial = self._partial(rem, add)
        if partial and decl is not None and decl["kind"] != "action":
            self._clear_waiting(mover, out)  # a declared action under way: never nag
            return
        if (not add or partial) and not self._ready(q, self.hold):
            self._clear_waiting(mover, out)
            return
        if self._ready(q, self.settle):
            if asked is not None and S != asked["board"]:
                # The board moved on past an open question (the rival starting?): the answer
                # settles the earlier board, then what came after is read as the next step.
                self._say(out, mover, "waiting", {"instructions": [], "reason": None,
                                                  "text": "answer the question first: " + asked_text(asked)},
                          sig=("asked", S))
                return
            self._tell_mismatch(S, B, rem, add, out)

    def _own(self, space: int) -> bool:
        t = self.game.state.board[space]
        return t != EMPTY and self.game.owner[t] == self.step.player

    def _rival(self, space: int) -> bool:
        t = self.game.state.board[space]
        return t != EMPTY and self.game.owner[t] != self.step.player

    def is_idle(self) -> bool:
        """Nothing pending: the board shows the game as it stands and no step is under way."""
        if self.phase == "over":
            return True
        if self.phase != "play" or self.deb.pending:
            return False
        if self.lock is not None or self.time_info is not None:
            return False
        if self.decl is not None and not (self.decl["kind"] == "action" and self.decl["action"] == PASS):
            return False
        if self.question is not None and self.question["options"] != [PASS]:
            return False
        return self.deb.stable == self.step.base

    def stuck_reason(self) -> str:
        """What the referee is waiting for, in words (for whoever holds the whole game, e.g. the CLI)."""
        game = self.game
        S = self.deb.stable
        if self.phase == "over":
            return "nothing: the game is over"
        if self.phase != "play":
            return f"{self._waiting_text()}: {_say_list(corrections(S, game.occupied())) or 'a settled board'}"
        if self.deb.pending:
            return "the board to settle (sensors " + ", ".join(N[s] for s in sorted(self.deb.pending)) + " still changing)"
        if self.lock is not None:
            return f"{self._waiting_text()}: {_say_list(corrections(S, self.lock_result))}"
        player = game.to_move
        if self.question is not None and self.question["options"] != [PASS]:
            opts = ", ".join(str(a) for a in self.question["options"])
            return f"{player} to answer a question ({self.question['text']}): {opts}"
        if self.time_info is not None:
            return f"{self._waiting_text()}"
        if self.decl is not None:
            return f"{player}'s declared action on the board ({_decl_text(self.decl)})"
        if S != self.step.base:
            todo = corrections(S, self.step.base)
            return f"{player}'s board change to match a legal action (or be put back: {_say_list(todo)})"
        return f"{player} to play"

    def _evaluate_sync(self, S: frozenset, q: float, out: list) -> None:
        want = self.game.occupied()
        if S == want and self.seen_snapshot:
            if self._ready(q, self.quiet):
                self.phase = "play"
                self.public_instructions = []
                self._new_step()
                game = self.game
                out.append(Notice(PUBLIC, "started", {"turn": game.turn, "to_move": game.to_move,
                                                      "text": f"the board is set: {game.to_move} to play"}))
                self._begin_step(self.now, out)
            return
        if self._ready(q, self.settle):
            todo = corrections(S, want)
            self.public_instructions = todo
            what = "set up both lineups" if self.phase == "setup" else "put the board back as the game stands"
            self._say(out, PUBLIC, "instruction", {"for": self.phase, "instructions": todo,
                                                    "text": f"{what}: {_say_list(todo)}"})

    def _allowed(self, c: Candidate) -> bool:
        needs = c.needs
        if needs is None:
            return True
        decl = self.decl
        if decl is None:
            return False
        kind = decl["kind"]
        if kind == "action":
            return c.action == decl["action"]
        if kind != needs:
            return False
        if kind == "reinforce":
            return Counter(p for _, p in c.action.placements) == decl["pieces"]
        if kind == "resurrect":
            return c.action.piece == decl["piece"]
        return True

    def _extendable(self, rem: frozenset, add: frozenset) -> bool:
        """Could the mover be half-way through a bigger action (Void Gravity pulling several Voids)?"""
        if not rem and not add:
            return False  # nothing moved (a Memory Swap): there is nothing to extend
        key = (rem, add, _decl_sig(self.decl))
        hit = self.step._extendable.get(key)
        if hit is None:
            # A bigger action moves more towers: it empties *and* fills more spaces (a tower
            # placed is never "the second half" of a move whose lift has not happened).
            hit = any(
                c.flash is None
                and c.needs is None
                and len(c.rem) > len(rem)
                and len(c.add) > len(add)
                and c.rem >= rem
                and c.add >= add
                and self._allowed(c)
                for c in self.step.cands
            )
            self.step._extendable[key] = hit
        return hit

    def _causal(self, c: Candidate) -> bool:
        """A tower is lifted before it is put down: each tower the action carries must have left its
        space no later than it arrived at the other (give or take the sensors' jitter)."""
        flip_at = self.flip_at
        for a, b in c.pairs:
            left, arrived = flip_at.get(a), flip_at.get(b)
            if left is not None and arrived is not None and left > arrived + CAUSAL_SLACK:
                return False
        return True

    def _drop_question(self, player: str, out: list, text: str) -> None:
        self._asked = None
        self.question = None
        self._say(out, player, "question", {"options": [], "text": text})

    def _resolve_asked(self, asked: dict, now: float, out: list) -> bool:
        """The mover's word arrived for the board a question was about: commit that action, then
        read what happened since as the next step.  True if it did."""
        decl = self.decl
        if decl is None:
            return False
        step = self.step
        B = step.base
        board = asked["board"]
        key = (B - board, board - B)
        fits = [c for c in step.index.get(key, ())
                if self._allowed(c) and c.touch <= asked["touched"] and self._causal(c)
                and (decl["kind"] != "action" or c.action == decl["action"])
                and (c.needs is not None or decl["kind"] == "action")]
        if decl["kind"] == "action" and decl["action"] not in asked["options"]:
            return False
        groups = step.groups(fits)
        if len(groups) != 1:
            return False
        later = {s for s in self.touched if self.flip_when.get(s, -INF) > asked["when"]}
        self._commit(groups[0][0].action, now, out)
        if self.phase == "play" and self.step is not None:
            self.touched = set(later)
            self._dirty = True
            self._evaluate(now, out)
        return True

    def _could_extend(self, rem: frozenset, add: frozenset) -> bool:
        """Could this change still be on its way to a bigger action the mover may play?"""
        return any(
            c.flash is None and c.needs is None and c.rem >= rem and c.add >= add and self._allowed(c)
            for c in self.step.cands
        )

    def _partial(self, rem: frozenset, add: frozenset) -> bool:
        """Is the change so far part of a bigger allowed action (e.g. 1 of 3 declared reinforcements)?"""
        return any(
            c.flash is None and self._allowed(c) and c.rem >= rem and c.add >= add for c in self.step.cands
        )

    def _flash_candidates(self, S, B, rem, add) -> list[Candidate]:
        step = self.step
        if add:
            return []
        touched = self.touched
        found: list[Candidate] = []
        for f in touched:
            if f not in step.flash_from:
                continue
            for t in touched:
                group = step.flashes.get((f, t))
                if not group:
                    continue
                # Only the two flashed spaces may differ, and one of them is empty or it is the outcome.
                if not rem <= {f, t}:
                    continue
                if f in S and t in S and S != group[0].result(B):
                    continue
                found.extend(group)
        return found

    def _start_flash(self, group: list[Candidate], S: frozenset, now: float, out: list) -> None:
        game = self.game
        step = self.step
        first = group[0]
        f, t = first.flash
        attacker, defender = game.state.board[f], game.state.board[t]
        mover = step.player
        R = first.result(step.base)
        self.lock = group
        self.lock_result = R
        self.question = None
        outcome = first.outcome
        a_piece, d_piece = game.piece[attacker], game.piece[defender]
        if outcome == CAPTURE:
            text = (f"{a_piece} flashes {d_piece} on {N[t]}: capture. The {d_piece} goes to {mover}'s Zero "
                    f"Gravity; the {a_piece} stands on {N[t]}")
        elif outcome == SWAP:
            text = (f"{a_piece} flashes {d_piece} on {N[t]}: swap. The {a_piece} stands on {N[t]}, "
                    f"the {d_piece} goes to {N[f]}")
        else:
            text = (f"{a_piece} flashes {d_piece} on {N[t]}: mutual destruction. Both leave the board: the "
                    f"{a_piece} to {other(mover)}'s Zero Gravity, the {d_piece} to {mover}'s")
        todo = corrections(S, R)
        self.flash_info = {
            "turn": game.turn,
            "player": mover,
            "from": N[f],
            "at": N[t],
            "attacker": a_piece,
            "defender": d_piece,
            "outcome": outcome,
            "text": text,
        }
        self.public_instructions = todo
        out.append(Notice(PUBLIC, "flash", dict(self.flash_info, instructions=todo)))
        self._said[(PUBLIC, "instruction")] = None
        if S == R:
            self._commit(self._pick(group), now, out)
        else:
            self._say(out, PUBLIC, "instruction", {"for": "flash", "at": N[t], "instructions": todo,
                                                    "text": _say_list(todo)})

    def _pick(self, group: list[Candidate]) -> Action:
        decl = self.decl
        if decl and decl["kind"] == "action":
            for c in group:
                if c.action == decl["action"]:
                    return c.action
        return min(group, key=lambda c: (c.rank, c.index)).action

    def _announce_time(self, fits: list[Candidate], out: list) -> None:
        game = self.game
        mover = self.step.player
        rival = other(mover)
        spaces = sorted({c.action.at for c in fits})
        if len(spaces) > 1:
            # Two Time towers (a clone): which one is used shows on the board.  Naming both in
            # public would reveal the other, so only the mover hears where they stand.
            names = [N[s] for s in spaces]
            out.append(Notice(mover, "instruction", {"time_towers": names, "text": "lift the Time tower you use: "
                                                     + " or ".join(names)}))
            public_spaces: list[int] = []
            where = "its space"
        else:
            public_spaces = spaces
            where = N[spaces[0]]
        info: dict = {"turn": game.turn, "player": mover, "time_towers": [N[s] for s in public_spaces],
                      "result": None}
        if game.third_eye:
            info["outcome"] = "pushed"
            info["text"] = (f"{mover} uses the Power of Time: put the Time tower from {where} on {rival}'s Zero "
                            f"Gravity, then push one of {rival}'s towers 1 to 3 spaces back along its Sight Line")
            info["instructions"] = [{"do": "clear", "space": N[s], "text": f"clear {N[s]}"} for s in spaces[:1]] \
                if len(spaces) == 1 else []
        else:
            outcome = fits[0].outcome
            info["outcome"] = outcome
            base = self.step.base
            if len(spaces) == 1:
                info["result"] = fits[0].result(base)
            todo: list[dict] = [{"do": "clear", "space": N[s], "text": f"put the Time tower from {N[s]} on "
                                 f"{rival}'s Zero Gravity"} for s in spaces[:1]] if len(spaces) == 1 else []
            if outcome == "rewound":
                last = game.state.last_action
                spent = {game.state.board[s] for s in spaces}
                for t, x, y in last.moved:
                    if game.state.loc[t] != y or y < 0 or t in spent:
                        continue
                    if x >= 0:
                        todo.append({"do": "move", "from": N[y], "to": N[x],
                                     "text": f"move the tower on {N[y]} back to {N[x]}"})
                    else:
                        todo.append({"do": "clear", "space": N[y],
                                     "text": f"return the tower on {N[y]} to {rival}'s Zero Gravity"})
                info["text"] = f"{mover} uses the Power of Time: {rival}'s last action is undone"
            else:
                info["text"] = (f"{mover} uses the Power of Time: it fails, {rival}'s last action moved a Shadow; "
                                f"only the Time tower leaves the board")
            info["instructions"] = todo
        self.time_info = info
        self.public_instructions = info["instructions"]
        out.append(Notice(PUBLIC, "time", _public_time(info)))

    def _ask(self, player: str, options: list[Action], text: str, out: list) -> None:
        self.question = {"player": player, "options": options, "text": text}
        if options != [PASS]:
            # Hold on to what the board showed: the answer is about this, even if the board
            # moves on (the rival starting their turn) before it comes.
            self._asked = {"board": self.deb.stable, "touched": frozenset(self.touched), "when": self.now,
                           "options": list(options)}
        data = _question_json(self.question)
        self._say(out, player, "question", data)

    def _clear_waiting(self, player: str, out: list) -> None:
        if self.private_instructions[player]:
            self.private_instructions[player] = []
            self._say(out, player, "waiting", {"instructions": [], "text": "the board is as it was"})

    def _tell_mismatch(self, S, B, rem, add, out: list) -> None:
        """Nothing legal fits: tell the mover (only) what differs and what would put it right."""
        game = self.game
        step = self.step
        mover = step.player
        best, best_d = B, len(S ^ B)
        for c in step.cands:
            if c.flash is not None or not (c.needs is None or self._allowed(c)):
                continue
            R = c.result(B)
            d = len(S ^ R)
            if d < best_d:
                best, best_d = R, d
        reason = None
        board = game.state.board
        if len(rem) == 1 and len(add) == 1:
            (f,), (t,) = tuple(rem), tuple(add)
            tower = board[f]
            if tower != EMPTY and game.owner[tower] == mover:
                reason = f"move {N[f]}-{N[t]} {game.why_illegal(Move(f, t))}"
        elif len(rem) == 1 and not add:
            (f,) = tuple(rem)
            tower = board[f]
            hit = [t for t in self.touched if t != f and board[t] != EMPTY and game.owner[board[t]] != mover]
            if tower != EMPTY and game.owner[tower] == mover and len(hit) == 1:
                reason = f"move {N[f]}-{N[hit[0]]} {game.why_illegal(Move(f, hit[0]))}"
        todo = corrections(S, best)
        self.private_instructions[mover] = todo
        self.rejected[mover] = reason
        if best == B:
            text = "the board does not show a legal action: put it back: " + _say_list(todo)
        else:
            text = "the board does not match: " + _say_list(todo)
        if reason:
            text = f"{reason}. {text}"
        self._say(out, mover, "waiting", {"instructions": todo, "reason": reason, "text": text},
                  sig=(S, tuple(sorted(self.touched))))
        if reason:
            self._say(out, mover, "rejected", {"reason": reason}, sig=(S, reason))

    # --- committing -----------------------------------------------------------------------

    def _commit(self, action: Action, now: float, out: list) -> None:
        game = self.game
        player = game.to_move
        turn = game.turn
        seen = action_seen_by(game, action, player, None)
        n_events = len(game.events)
        game.push(action)
        if self.on_commit is not None:
            try:
                self.on_commit(turn, player, action)
            except BaseException:
                game.pop()
                raise
        self.rejected[player] = None
        out.append(Notice(PUBLIC, "committed", {"turn": turn, "player": player, "action": seen}))
        out.append(Notice(player, "committed", {"turn": turn, "player": player, "action": action.to_record()}))
        for event in game.events[n_events:]:
            if isinstance(event, TimeEvent):
                out.append(Notice(PUBLIC, "time", {"turn": turn, "player": player, "outcome": event.outcome,
                                                   "done": True}))
        self._new_step()
        if game.result is not None:
            self.phase = "over"
            out.append(Notice(PUBLIC, "result", game.result.to_json()))
            return
        self._begin_step(now, out)

    def _begin_step(self, now: float, out: list) -> None:
        step = self.step
        if step.pass_only:
            self._commit(PASS, now, out)
            return
        if step.can_pass:
            self._ask(step.player, [PASS], "you have no turn-ending action: send done to pass, or use "
                      "Time or your Totem first", out)

    # --- text ----------------------------------------------------------------------------

    def _waiting_text(self) -> str:
        game = self.game
        if game.is_over():
            return "the game is over"
        if self.phase in ("setup", "sync"):
            return "the board to be set up" if self.phase == "setup" else "the board to match the game"
        if self.flash_info:
            return f"the flash on {self.flash_info['at']} to be resolved on the board"
        if self.time_info:
            return f"{game.to_move}'s Power of Time to be carried out on the board"
        return f"{game.to_move} to play"


def asked_text(asked: dict) -> str:
    return ", ".join(str(a) for a in asked["options"]) + " (choose one" + (
        ", or send done if you did not swap)" if all(type(a) is Swap for a in asked["options"]) else ")")


def _decl_sig(decl: dict | None):
    if decl is None:
        return None
    return tuple(sorted((k, str(v)) for k, v in decl.items()))


def _decl_json(decl: dict) -> dict:
    kind = decl["kind"]
    if kind == "reinforce":
        return {"type": "reinforce", "pieces": sorted(decl["pieces"].elements())}
    if kind == "resurrect":
        return {"type": "resurrect", "piece": decl["piece"]}
    if kind == "action":
        return {"type": "choose", "action": decl["action"].to_record()}
    return {"type": kind}


def _decl_text(decl: dict) -> str:
    kind = decl["kind"]
    if kind == "reinforce":
        n = sum(decl["pieces"].values())
        return f"place the {'tower' if n == 1 else f'{n} towers'} on your empty Gateway{'s' if n > 1 else ''}"
    if kind == "resurrect":
        return f"place the resurrected {decl['piece']} on an empty Gateway of your rival"
    if kind == "time":
        return "carry out the Power of Time on the board"
    if kind == "swap":
        return "swap your Memory with the other tower on the board (lift both, put each on the other's space)"
    return f"play {decl['action']} on the board"


def _question_json(q: dict) -> dict:
    return {"options": [a.to_record() for a in q["options"]], "text": q["text"]}


def _public_flash(info: dict | None) -> dict | None:
    return dict(info) if info else None


def _public_time(info: dict | None) -> dict | None:
    if not info:
        return None
    return {k: v for k, v in info.items() if k != "result"}


__all__ = ["Referee", "Notice", "InputError", "Step", "corrections", "evidence_choice", "DISTANCE"]
