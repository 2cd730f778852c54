"""The Power of Time, the referee's part (docs/referee.md, "Time"): announcing it, what is left
to do of it on the board as it stands, and a Time half done that may be the other Time tower's.

A part of :class:`host.referee.machine.Referee`: a mixin that uses the referee's state; it
imports nothing of the other parts."""

from __future__ import annotations

from dataclasses import replace

from engine.actions import Time
from engine.board import other
from engine.board import parse_space as S_
from engine.game import EMPTY
from engine.words import time_forecast

from . import status, wording
from .corrections import corrections, say_list
from .matching import Candidate
from .notices import PUBLIC, Notice
from .states import Event, Phase, TimeAnnounced, Timing
from .windows import INF, N


class TimePlanning:
    """The announced Power of Time and its plan on the board."""

    def _announce_time(self, out: list) -> None:
        if self._time_needs_hub():
            time = next(c.action for c in self.step.cands if type(c.action) is Time)
            if not self._consult("time", [time], out):
                return  # announced once the hub answers
        game = self.game
        step = self.step
        mover = step.player
        will = time_forecast(game)  # the engine says which Time towers and what it does
        spaces = list(will.towers)
        secret = len(spaces) > 1 and not game.vision
        if secret:
            # Two Time towers (a clone): whichever leaves the board is the one used.  Naming both in
            # public would reveal the other, so only the mover hears where they stand.
            names = [N[s] for s in spaces]
            out.append(Notice(mover, "instruction", {"time_towers": names, "text": wording.lift_time_tower(names)}))
        public_spaces = [] if secret else spaces
        where = N[spaces[0]] if len(spaces) == 1 else "its space"
        outcome = will.outcome
        public, _, expected = self._time_plan()
        time = TimeAnnounced(game.turn, mover, tuple(N[s] for s in public_spaces),
                             tuple(N[s] for s in spaces) if secret else (), outcome,
                             wording.time_text(mover, game.third_eye, outcome, where), tuple(public), expected)
        cur = self.current
        self._go(Event.TIME_DECLARED, replace(cur, time=time) if cur.phase is Phase.ASKED else Timing(time, cur.question))
        self.public_instructions = public
        self._said[(PUBLIC, "instruction")] = {"for": "time", "instructions": public, "text": say_list(public)}
        out.append(Notice(PUBLIC, "time", status.time_json(time)))

    def _time_plan(self) -> tuple[list[dict], list[dict], frozenset[int]]:
        """What is left to do of the announced Power of Time, from the board as it stands now:
        (the public instructions, the mover's corrections if the board fits no way of carrying it
        out, the occupancy the public expects).

        With several Time towers whichever one leaves the board is the one used.  Then what the
        public is told depends on public facts only (the board, whose towers are whose, the rewind):
        "take one of the mover's Time towers off" until one of the mover's towers has left, the
        rewind's moves still to make.  A tower of the mover's that left but is no Time tower is told
        to the mover alone, as any board that fits nothing is."""
        game, step = self.game, self.step
        B, S = step.base, self.ev.board()
        mover = step.player
        rival = other(mover)
        board = game.state.board
        fits = [c for c in step.cands if type(c.action) is Time]
        if not fits:  # no longer possible (cannot happen: the announcement waits for it)
            return [], [], B
        by_at: dict[int, Candidate] = {}
        for c in fits:
            by_at.setdefault(c.action.at, c)
        spaces = sorted(by_at)
        secret = len(spaces) > 1 and not game.vision
        first = by_at[spaces[0]]
        eff = first.effect
        rewind = set() if game.third_eye else {s for pair in eff.carries for s in pair} | set(eff.leaves[1:])
        carries = set(eff.carries)
        gone = [s for s in spaces if s not in S]
        own_off = [s for s in sorted(B - S) if board[s] != EMPTY and game.owner[board[s]] == mover
                   and s not in rewind]

        # A rewind that swaps two towers back (a Memory Swap, a swap flash) changes no occupancy: each
        # is listed until both towers were lifted and stand again.
        touched = self.ev.touched()
        pending = [(a, b) for a, b in eff.carries if (b, a) in carries and not game.third_eye
                   and not ({a, b} <= touched and a in S and b in S)]
        busy = {N[s] for pair in pending for s in pair}

        def said(items: list[dict], time_at: int | None) -> list[dict]:
            items = [i for i in items if not busy & {i.get("from"), i.get("to"), i.get("space")}]
            items += [{"do": "move", "from": N[a], "to": N[b], "text": ""} for a, b in pending]
            for i in items:
                if i["do"] == "move" and (S_(i["from"]), S_(i["to"])) in carries:
                    i["text"] = wording.move_back(i["from"], i["to"])
                elif i["do"] == "clear" and time_at is not None and S_(i["space"]) == time_at:
                    i["text"] = wording.time_tower_off(i["space"], rival)
                elif i["do"] == "clear" and S_(i["space"]) in rewind:
                    i["text"] = wording.back_off_board(i["space"], rival)
            # the Time tower first, then the rewind
            return sorted(items, key=lambda i: i["do"] != "clear" or S_(i["space"]) != time_at)

        def one_off(names: list[str]) -> dict:
            return {"do": "clear_one", "piece": "time", "player": mover, "spaces": names,
                    "text": wording.time_tower_one_off(mover, rival, names)}

        # The occupancy once carried out, all Time towers still standing (the rewind alone).
        if game.third_eye:
            standing = B
        else:
            standing = first.result(B) | {spaces[0]}
        if len(gone) == 1 or len(spaces) == 1:
            used = gone[0] if len(spaces) > 1 else spaces[0]
            exact = standing - {used}
        elif gone:  # several Time towers off: the nearest way to carry it out
            used = None
            exact = min((standing - {s} for s in gone), key=lambda R: (len(S ^ R), sorted(R)))
        else:
            used = None
            exact = None
        names = [] if secret else [N[s] for s in spaces]  # face up (Vision Mode): everyone may hear where
        wrong = any(s not in spaces for s in own_off) or len(gone) > 1
        if game.third_eye:
            # The push is read from the board: only the Time tower is an instruction.  A rival tower
            # lifted, or put on an empty space, may be the push under way: never asked back.
            rival_off = {s for s in B - S if board[s] != EMPTY and game.owner[board[s]] == rival}
            extra = S - B
            pushing = (rival_off | extra) if len(rival_off) <= 1 and len(extra) <= 1 else set()

            def expect(R: frozenset[int]) -> frozenset[int]:
                return (R - pushing) | (extra & pushing)

            if exact is not None:
                exact = expect(exact)
        else:
            def expect(R: frozenset[int]) -> frozenset[int]:
                return R

        if exact is not None and (len(spaces) == 1 or not secret):
            return said(corrections(S, exact), used), [], exact
        # Which Time tower is used is not known yet, or known to the mover alone.  The public is told
        # what public facts support: a tower of the mover's that left (not one the rewind moves) is
        # taken to be the Time tower; everything else must come to what the Power does.
        target = expect(standing - set(own_off))
        public = ([] if own_off else [one_off(names)]) + said(corrections(S, target), None)
        if not wrong:
            fix = []
        elif exact is not None:
            fix = said(corrections(S, exact), used)
        else:
            fix = said(corrections(S, expect(standing)), None) + [one_off([N[s] for s in spaces])]
        return public, fix, target

    def _time_update(self, out: list, last: float | None = None) -> None:
        """The announced Power of Time as the board now stands: the public instructions (said when
        they change), what the public expects, and the mover's corrections (after ``settle``)."""
        public, fix, expected = self._time_plan()
        cur = self.current
        self._go(Event.TIME_READ, replace(cur, time=replace(cur.time, instructions=tuple(public), expected=expected)))
        self.public_instructions = public
        self._say(out, PUBLIC, "instruction", {"for": "time", "instructions": public, "text": say_list(public)})
        mover = self.step.player
        if not fix:
            self._clear_waiting(out)
        elif last is None or self._later(last + self.settle):
            self.private_instructions[mover] = fix
            self._say(out, mover, "waiting", {"instructions": fix, "reason": None,
                                              "text": wording.mismatch(None, say_list(fix), False)})

    def _time_half_done(self, c: Candidate, k: int) -> bool:
        """Is the board, which shows the Power of Time ``c`` done, perhaps another Time's rewind
        half done?  With two Time towers, the one a Classic rewind moves (a swap flash's defender)
        taken off looks like the other Time's rewind with that tower still in the hand.  Then ``c``
        waits for ``multi_settle`` of stillness.  Public facts only: a tower of the mover's that a
        rewind moves was in the flash rewound, so it was revealed; that the mover has two Time
        towers the public instruction "take one of ... Time towers off" has said; the rest is the
        board and the rewind (docs/referee.md, "Time")."""
        if type(c.action) is not Time or self.state is not Phase.TIME:
            return False
        ev = self.ev
        if k != len(ev):
            return False
        rem, add = ev.change(k)
        moved = rem | add
        for d in self.step.cands:
            if (d is not c and type(d.action) is Time and c.touched < d.touched and moved <= d.touched
                    and self._allowed(d) and ev.could_be_under_way(d.effect.carries)):
                return not self._later(ev.flips[-1].at + self.multi_settle)
        return False

    def _time_said(self, player: str) -> bool:
        """Is a ``time`` word of the player's the same as one already said?  Only if the board has
        shown nothing since it: a ``time`` said once the announced Time is under way (its tower
        lifted, its push begun) is a second Power of Time in the same Third Eye turn, read when the
        first is committed -- never dropped as a repeat, or the board's second push would need a
        question."""
        last = self.ev.flips[-1].at if len(self.ev) else -INF
        said = [w for w in self.words[player] if w.kind == "time"]
        if not said:
            return self.current.time is not None  # announced, its word spent: the same Time
        return any(w.at >= last for w in said)
