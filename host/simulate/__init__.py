"""The physical-play simulator: a game record becomes a realistic ``quin-trace/1``.

Two people play the recorded game on a real board, seeded and repeatable:
they set up their lineups tower by tower, think, lift and place towers (the
Hall sensors flicker as a magnet comes and goes), slide towers across the
spaces on the way, bump a neighbouring tower off its magnet for a moment,
hover before putting a tower down, reveal a flash by lifting both towers in
either order and place the outcome in any order, and tap their phones at
realistic moments: naming a Reinforcement or Resurrection before placing it,
declaring Time, declaring or confirming a Memory Swap, answering the
referee's question when the board alone cannot tell.

Noise stays within what a real board does and what the referee is built to
absorb (spec in docs/referee.md): flicker pulses shorter than the debounce,
slides crossing a space in under 50 ms, bumps shorter than 150 ms.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.actions import Action, Gravity, Move, Pass, Reflect, Reinforce, Resurrect, Swap, Time
from engine.board import NEIGHBORS, RAYS
from engine.flash import CAPTURE, FLASH_TABLE, SWAP
from engine.game import EMPTY, Game
from engine.record import Record, load_record
from host.referee import DISTANCE, evidence_choice
from host.trace import InputLine, SnapshotLine, Trace, TraceHeader


@dataclass(frozen=True)
class Noise:
    flicker: tuple[int, int]  # extra on/off pulses when a tower is lifted or placed
    bump: float  # chance per action that a neighbouring tower is bumped off its magnet
    slide: float  # chance that a move is a slide across the spaces on the way
    hover: float  # chance of hovering over the target before placing
    slow: float  # chance of a slow placement (tower held a long while)


NOISE = {
    "none": Noise((0, 0), 0.0, 0.0, 0.0, 0.0),
    "low": Noise((0, 2), 0.1, 0.3, 0.1, 0.1),
    "medium": Noise((1, 4), 0.3, 0.6, 0.3, 0.25),
    "high": Noise((2, 7), 0.7, 0.9, 0.6, 0.5),
}
LEVELS = tuple(NOISE)

# Timing (seconds).  Gaps between actions exceed the referee's multi-tower
# settle window (1.5 s), as a real player's thinking does.
THINK = (1.7, 3.5)
PULSE = (0.003, 0.02)
GAP = (0.004, 0.025)
BUMP = (0.02, 0.12)
SLIDE_DWELL = (0.012, 0.04)


class _Table:
    """The physical board over time: a list of raw sensor toggles, turned into snapshots at the end."""

    def __init__(self, rng: random.Random, noise: Noise, occupied: frozenset[int] = frozenset()):
        self.rng = rng
        self.noise = noise
        self.occ = set(occupied)  # where towers stand (the truth)
        self.toggles: list[tuple[float, int, int, bool]] = []  # (t, seq, space, reading)
        self.inputs: list[InputLine] = []
        self.t = 0.0
        self.seq = 0

    def _raw(self, t: float, space: int, reading: bool) -> None:
        self.seq += 1
        self.toggles.append((t, self.seq, space, reading))

    def wait(self, lo: float, hi: float | None = None) -> None:
        self.t += lo if hi is None else self.rng.uniform(lo, hi)

    def _pulses(self, t: float, space: int, final: bool) -> float:
        """Flicker: the reading wavers a few times before it holds at ``final``; returns the end time."""
        rng = self.rng
        lo, hi = self.noise.flicker
        for _ in range(rng.randint(lo, hi)):
            t += rng.uniform(*GAP)
            self._raw(t, space, not final)
            t += rng.uniform(*PULSE)
            self._raw(t, space, final)
        return t

    def lift(self, space: int) -> None:
        assert space in self.occ, space
        self.occ.discard(space)
        self._raw(self.t, space, False)
        self.t = self._pulses(self.t, space, False)
        self.wait(0.3, 0.8)  # a hand carries a tower for a moment at least

    def place(self, space: int) -> None:
        assert space not in self.occ, space
        rng = self.rng
        if rng.random() < self.noise.hover:  # hovering: the magnet brushes the sensor
            for _ in range(rng.randint(1, 4)):
                self._raw(self.t, space, True)
                self.t += rng.uniform(0.01, 0.035)
                self._raw(self.t, space, False)
                self.t += rng.uniform(0.03, 0.12)
        self.occ.add(space)
        self._raw(self.t, space, True)
        self.t = self._pulses(self.t, space, True)
        self.wait(0.05, 0.2)

    def slide(self, frm: int, path: list[int], to: int) -> None:
        """Slide a tower along the board: each space on the way reads for a moment."""
        rng = self.rng
        self.occ.discard(frm)
        self._raw(self.t, frm, False)
        self.t = self._pulses(self.t, frm, False)
        for s in path:
            self.t += rng.uniform(0.005, 0.03)
            if s in self.occ:
                continue  # sliding past a tower (a Slingshot): its space already reads
            self._raw(self.t, s, True)
            self.t += rng.uniform(*SLIDE_DWELL)
            self._raw(self.t, s, False)
        self.t += rng.uniform(0.005, 0.03)
        self.occ.add(to)
        self._raw(self.t, to, True)
        self.t = self._pulses(self.t, to, True)
        self.wait(0.05, 0.2)

    def bump(self, avoid: set[int]) -> None:
        """A neighbouring tower knocked off its magnet for under 150 ms, around now."""
        near = {n for s in avoid for n, _ in NEIGHBORS[s]}
        choices = sorted(s for s in near if s in self.occ and s not in avoid)
        if not choices:
            return
        s = self.rng.choice(choices)
        t0 = self.t - self.rng.uniform(0.0, 0.1)
        t0 = max(t0, self.last_time_of(s) + 0.01)
        length = self.rng.uniform(*BUMP)
        self._raw(t0, s, False)
        end = t0 + length
        if self.rng.random() < 0.5:  # a wobble on the way back
            mid = t0 + length * self.rng.uniform(0.3, 0.7)
            self._raw(mid, s, True)
            self._raw(mid + 0.005, s, False)
        self._raw(end, s, True)

    def sensor_fault(self, space: int, reading: bool, duration: float) -> None:
        """A sensor reads ``reading`` for ``duration`` whatever stands there (stuck, then healed)."""
        self._raw(self.t, space, reading)
        self.t += duration
        self._raw(self.t, space, space in self.occ)

    def last_time_of(self, space: int) -> float:
        for t, _, s, _ in reversed(self.toggles):
            if s == space:
                return t
        return -1.0

    def say(self, player: str, data: dict) -> None:
        self.inputs.append(InputLine(round(self.t, 6), player, data))

    def events(self) -> list:
        """Snapshots at every change of the raw readings, merged with the inputs in time order."""
        readings: set[int] = set()
        snaps: list[SnapshotLine] = []
        toggles = sorted(self.toggles)
        i = 0
        while i < len(toggles):
            t = toggles[i][0]
            while i < len(toggles) and toggles[i][0] == t:
                _, _, s, reading = toggles[i]
                if reading:
                    readings.add(s)
                else:
                    readings.discard(s)
                i += 1
            snap = frozenset(readings)
            if snaps and snaps[-1].occupied == snap:
                continue
            snaps.append(SnapshotLine(round(t, 6), snap))
        merged = [(e.t, 0, k, e) for k, e in enumerate(snaps)] + [(e.t, 1, k, e) for k, e in enumerate(self.inputs)]
        merged.sort(key=lambda x: (x[0], x[1], x[2]))
        return [e for *_, e in merged]


def _path(frm: int, to: int) -> list[int] | None:
    """Spaces a straight move from ``frm`` to ``to`` passes over, or None if it is not straight."""
    best = None
    for _, ray, _ in RAYS[frm]:
        if to in ray:
            i = ray.index(to)
            if best is None or i < len(best):
                best = list(ray[:i])
    return best


FAULTS = ("knock", "stuck_off", "stuck_on", "illegal", "wrong_outcome")


class Simulator:
    """Plays a game on a simulated physical board.  ``faults`` maps action numbers (0-based,
    counting every action of the game) to a fault to stage around that action:

    - ``knock``: a tower next to the move's target is knocked off the board for 6 s, then stood back;
    - ``stuck_off`` / ``stuck_on``: a sensor reads empty under a tower / a tower on an empty space for 5 s;
    - ``illegal``: the mover first makes an illegal move, leaves it 3 s, and takes it back;
    - ``wrong_outcome``: after a capturing flash the attacker goes back to its own space for 3 s.

    ``fault_log`` records what was staged, for tests: (action number, kind, spaces).
    """

    def __init__(self, header: TraceHeader, seed: int = 0, noise: str = "medium", faults: dict | None = None):
        if noise not in NOISE:
            raise ValueError(f"noise: expected one of {', '.join(LEVELS)}, got {noise!r}")
        self.header = header
        self.rng = random.Random(seed)
        self.game = header.new_game()
        self.table = _Table(self.rng, NOISE[noise])
        self.faults = dict(faults or {})
        self.fault_log: list[tuple[int, str, tuple]] = []
        self.count = 0

    def setup(self) -> None:
        """Both players put their lineups on the board, tower by tower."""
        tb = self.table
        spaces = sorted(self.game.occupied())
        self.rng.shuffle(spaces)
        tb.wait(0.2, 0.6)
        for s in spaces:
            tb.place(s)
            tb.wait(0.1, 0.5)
        tb.wait(*THINK)

    def play(self, turns) -> None:
        for player, actions in turns:
            for action in actions:
                self.act(player, action)

    def act(self, player: str, action: Action) -> None:
        number = self.count
        self.count += 1
        self.fault = self.faults.get(number)
        if self.fault is not None:
            self._stage_before(number, action)
        self._act(player, action)
        self.fault = None

    def _stage_before(self, number: int, action: Action) -> None:
        tb, rng = self.table, self.rng
        kind = self.fault
        if kind == "stuck_off":
            s = rng.choice(sorted(tb.occ))
            self.fault_log.append((number, kind, (s,)))
            tb.sensor_fault(s, False, 5.0)
            tb.wait(1.0, 2.0)
        elif kind == "stuck_on":
            s = rng.choice(sorted(set(range(99)) - tb.occ))
            self.fault_log.append((number, kind, (s,)))
            tb.sensor_fault(s, True, 5.0)
            tb.wait(1.0, 2.0)
        elif kind == "illegal":
            found = self._illegal_move()
            if found is None:
                return
            f, t = found
            self.fault_log.append((number, kind, (f, t)))
            tb.lift(f)
            tb.place(t)
            tb.wait(3.0)
            tb.lift(t)
            tb.place(f)
            tb.wait(*THINK)

    def _illegal_move(self) -> tuple[int, int] | None:
        """An own tower and an empty space it may not move to, matching no legal action."""
        from host.referee import Step

        game, rng = self.game, self.rng
        step = Step(game)
        me = game.to_move
        own = sorted(s for s in game.occupied() if game.owner[game.state.board[s]] == me)
        empty = sorted(set(range(99)) - game.occupied())
        rng.shuffle(own)
        for f in own:
            for t in empty:
                if not step.index.get((frozenset((f,)), frozenset((t,)))):
                    return f, t
        return None

    def _act(self, player: str, action: Action) -> None:
        game, tb, rng = self.game, self.table, self.rng
        kind = type(action)
        declared = None
        if kind is Pass:
            if game.legal_actions() != [action]:
                tb.say(player, {"type": "done"})
            game.push(action)
            tb.wait(*THINK)
            return
        if kind is Reinforce:
            declared = "reinforce"
        elif kind is Resurrect:
            declared = "resurrect"
        elif kind is Time:
            declared = "time"
        elif kind is Swap:
            declared = "swap"
        choice = evidence_choice(game, action, declared)
        need_choose = choice != action
        # The referee would commit another action with the same result at once: say it first.
        # Otherwise it asks; the player answers, or names the action beforehand on the phone.
        # Void Gravity too: the order of the pulls may settle which Void went where, and then the
        # referee commits without asking.
        choose_first = need_choose and (choice is not None or kind is Gravity or rng.random() < 0.4)
        swap_after = kind is Swap and not need_choose and rng.random() < 0.5
        if declared == "reinforce":
            tb.say(player, {"type": "reinforce", "pieces": [p for _, p in action.placements]})
            tb.wait(0.4, 1.5)
        elif declared == "resurrect":
            tb.say(player, {"type": "resurrect", "piece": action.piece})
            tb.wait(0.4, 1.5)
        elif declared == "time":
            tb.say(player, {"type": "time"})
            tb.wait(0.5, 1.5)
        elif declared == "swap" and not swap_after and not need_choose:  # a choice names the swap itself
            tb.say(player, {"type": "swap"})
            tb.wait(0.3, 1.0)
        if choose_first:
            tb.say(player, {"type": "choose", "action": action.to_record()})
            tb.wait(0.3, 1.0)

        involved = self._perform(action)
        if rng.random() < tb.noise.bump:
            tb.bump(involved)

        if swap_after:
            tb.wait(0.3, 1.2)
            tb.say(player, {"type": "swap"})
        if need_choose and not choose_first:
            tb.wait(0.5, 1.2)  # the referee asks; the player answers on the phone
            tb.say(player, {"type": "choose", "action": action.to_record()})
        game.push(action)
        assert tb.occ == set(game.occupied()), (str(action), sorted(tb.occ ^ set(game.occupied())))
        tb.wait(*THINK)

    def _perform(self, action: Action) -> set[int]:
        """Carry out an action on the physical board; returns the spaces it involved."""
        game, tb, rng = self.game, self.table, self.rng
        board = game.state.board
        kind = type(action)
        if kind is Move or kind is Reflect:
            f, t = action.frm, action.to
            if board[t] != EMPTY:
                self._flash(f, t)
                return {f, t}
            path = _path(f, t) if kind is Move else None
            if path is not None and rng.random() < tb.noise.slide:
                tb.slide(f, path, t)
            else:
                tb.lift(f)
                if rng.random() < tb.noise.slow:
                    tb.wait(0.5, 2.5)
                tb.place(t)
            if self.fault == "knock":
                near = sorted((DISTANCE[t][x], x) for x in tb.occ if x != t)
                if near:
                    x = near[0][1]
                    self.fault_log.append((self.count - 1, "knock", (x,)))
                    tb.wait(0.1, 0.3)
                    tb.lift(x)
                    tb.wait(6.0)
                    tb.place(x)
            return {f, t}
        if kind is Swap:
            self._relocate([(action.memory, action.other), (action.other, action.memory)])
            return {action.memory, action.other}
        if kind is Reinforce:
            spaces = [s for s, _ in action.placements]
            rng.shuffle(spaces)
            for s in spaces:
                tb.place(s)
                tb.wait(0.1, 0.6)
            return set(spaces)
        if kind is Resurrect:
            tb.place(action.to)
            return {action.to}
        if kind is Gravity:
            moves = list(action.moves)
            rng.shuffle(moves)
            for a, b in moves:
                tb.lift(a)
                tb.place(b)
                tb.wait(0.2, 0.8)
            return {s for m in action.moves for s in m}
        if kind is Time:
            return self._time(action)
        raise AssertionError(f"cannot perform {action}")  # pragma: no cover

    def _relocate(self, pairs: list[tuple[int | None, int | None]]) -> None:
        """Towers from -> to (None: off the board), lifted in any order, then placed in any order."""
        tb, rng = self.table, self.rng
        lifts = [a for a, _ in pairs if a is not None]
        places = [b for _, b in pairs if b is not None]
        rng.shuffle(lifts)
        rng.shuffle(places)
        for a in lifts:
            tb.lift(a)
        tb.wait(0.2, 0.8)
        for b in places:
            tb.place(b)

    def _flash(self, f: int, t: int) -> None:
        game, tb, rng = self.game, self.table, self.rng
        board = game.state.board
        outcome = FLASH_TABLE[game.mode][(game.piece[board[f]], game.piece[board[t]])]
        first = [f, t]
        rng.shuffle(first)  # the two towers lifted in either order
        tb.lift(first[0])
        tb.wait(0.02, 0.2)
        tb.lift(first[1])
        tb.wait(0.6, 1.8)  # both revealed; the referee announces the outcome
        if outcome == CAPTURE:
            if self.fault == "wrong_outcome":  # the attacker goes back home instead of onto the target
                self.fault_log.append((self.count - 1, "wrong_outcome", (f, t)))
                tb.place(f)
                tb.wait(3.0)
                tb.lift(f)
            tb.place(t)
        elif outcome == SWAP:
            order = [t, f]
            rng.shuffle(order)  # outcome towers placed in any order
            for s in order:
                tb.place(s)
                tb.wait(0.05, 0.5)

    def _time(self, action: Time) -> set[int]:
        game, tb, rng = self.game, self.table, self.rng
        if action.target is not None:  # Third Eye: push a rival tower back
            tb.lift(action.at)
            tb.wait(0.2, 0.8)
            path = _path(action.target, action.to)
            if path is not None and rng.random() < tb.noise.slide:
                tb.slide(action.target, path, action.to)
            else:
                tb.lift(action.target)
                tb.place(action.to)
            return {action.at, action.target, action.to}
        st = game.state
        pairs: list[tuple[int | None, int | None]] = []
        last = st.last_action
        involved = {action.at}
        spent = st.board[action.at]
        if last is not None and not last.moved_shadow:  # rewound (a Shadow makes Time fail)
            for tower, x, y in last.moved:
                if st.loc[tower] != y or y < 0 or tower == spent:
                    continue
                pairs.append((y, x if x >= 0 else None))
                involved.update(s for s in (x, y) if s >= 0)
        # The Time tower leaves first when a rewound tower goes back to its space.
        order = rng.random() < 0.5 or any(b == action.at for _, b in pairs)
        if order:
            tb.lift(action.at)
            tb.wait(0.2, 0.8)
        self._relocate(pairs)
        if not order:
            tb.wait(0.2, 0.8)
            tb.lift(action.at)
        return involved

    def trace(self) -> Trace:
        return Trace(self.header, self.table.events())


def simulate(record: Record | dict | Game, seed: int = 0, noise: str = "medium", faults: dict | None = None) -> Trace:
    """A realistic, seeded trace of the game in ``record`` (a Record, its JSON, or a played Game)."""
    if isinstance(record, Game):
        header = TraceHeader.of_game(record)
        from engine.record import turns_of

        turns = [(p, tuple(a)) for p, a in turns_of(record)]
    else:
        if isinstance(record, dict):
            record = load_record(record)
        header = TraceHeader(record.mode, record.vision, record.first, dict(record.setups))
        turns = record.turns
    sim = Simulator(header, seed, noise, faults)
    sim.setup()
    sim.play(turns)
    return sim.trace()


__all__ = ["simulate", "Simulator", "NOISE", "LEVELS", "Noise", "FAULTS"]
