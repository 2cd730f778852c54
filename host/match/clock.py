"""Game clocks that the board runs (issue 33, "The board is the clock"): time controls, and the
two players' clocks as the referee's commits drive them.

Sans-I/O: every method takes the moment it is about (seconds on the service's one clock,
``host.clock``); nothing here reads a clock or sleeps, so tests drive it with plain numbers.

**Time controls** (:class:`TimeControl`, :func:`parse_control`):

- ``none``: no clock (the default; a casual game).
- ``25``: sudden death, 25 minutes each for the whole game.
- ``25+10``: Fischer increment, 25 minutes each and 10 seconds added after every turn, from the
  first (as FIDE and lichess do).
- ``25d10``: Bronstein delay, 25 minutes each; the first 10 seconds of every turn are not charged
  (what is not used of them is not kept).

Minutes may have a fraction (``0.5+2``); the bonus is whole or fractional seconds.

**The clock** (:class:`MatchClock`): the mover's clock runs from the moment the rival's turn was
completed on the board.  A turn ends with the referee's commit of a turn-ending action, but the
clock stops at the time the action was *completed* (its last sensor change), so the settle window
between the last change and the commit is never charged (:meth:`MatchClock.turn_done` takes that
earlier moment).  Intervals when nobody's time runs (the board link lost, the store unable to
save, a question the referee asks) are :meth:`MatchClock.pause` .. :meth:`MatchClock.resume`;
time inside them is charged to nobody, also when a turn's end is recorded after the fact.  The
rulings that say which intervals those are live in ``docs/rules.md`` ("Clocks").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engine.board import BLACK, PLAYERS, WHITE, other

KINDS = ("none", "sudden", "fischer", "bronstein")
MAX_MINUTES = 600  # ten hours each: longer is a typing mistake
MAX_BONUS = 600  # seconds


class ClockError(ValueError):
    """A time control that cannot be; the message names the field and what was wrong."""


@dataclass(frozen=True)
class TimeControl:
    """``kind`` one of KINDS; ``base`` seconds each; ``bonus`` the increment or delay in seconds."""

    kind: str = "none"
    base: float = 0.0
    bonus: float = 0.0

    @property
    def timed(self) -> bool:
        return self.kind != "none"

    def text(self) -> str:
        """As the players write it: ``none``, ``25``, ``25+10``, ``25d10``."""
        if not self.timed:
            return "none"
        minutes = _number(self.base / 60)
        if self.kind == "sudden":
            return minutes
        return f"{minutes}{'+' if self.kind == 'fischer' else 'd'}{_number(self.bonus)}"

    def words(self) -> str:
        """For a page: "25 minutes + 10 seconds a turn", "no clock"."""
        if not self.timed:
            return "no clock"
        minutes = _number(self.base / 60)
        each = f"{minutes} minute{'' if minutes == '1' else 's'} each"
        bonus = _number(self.bonus)
        if self.kind == "fischer":
            return f"{each}, + {bonus} seconds a turn"
        if self.kind == "bronstein":
            return f"{each}, {bonus} seconds' delay a turn"
        return each

    def to_json(self) -> dict:
        return {"kind": self.kind, "base": self.base, "bonus": self.bonus, "text": self.text()}

    @classmethod
    def from_json(cls, raw: object) -> "TimeControl":
        """From :meth:`to_json` (a record's ``clock.control``); ClockError naming the field."""
        if not isinstance(raw, dict):
            raise ClockError(f"clock: control: expected an object, got {type(raw).__name__}")
        kind = raw.get("kind")
        if kind not in KINDS:
            raise ClockError(f"clock: control: kind: expected one of {', '.join(KINDS)}, got {kind!r}")
        base, bonus = raw.get("base", 0), raw.get("bonus", 0)
        for name, value in (("base", base), ("bonus", bonus)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ClockError(f"clock: control: {name}: expected seconds (a number, 0 or more), got {value!r}")
        return _checked(kind, float(base), float(bonus), "clock: control")


NONE = TimeControl()
#: the host page's choices (minutes + seconds a turn), from quick to a club's long game
PRESETS = ("10+5", "25+10", "45+15", "90+30")

_CONTROL = re.compile(r"^(\d+(?:\.\d+)?)(?:([+d])(\d+(?:\.\d+)?))?$")


def parse_control(text: object, field: str = "clock") -> TimeControl:
    """``none``, ``25``, ``25+10`` or ``25d10`` (minutes, then seconds); ClockError naming ``field``."""
    if not isinstance(text, str):
        raise ClockError(f"{field}: expected text such as 25+10, got {type(text).__name__}")
    raw = text.strip().lower().replace(" ", "")
    if raw in ("", "none", "off", "no"):
        return NONE
    m = _CONTROL.match(raw)
    if not m:
        raise ClockError(f"{field}: expected none, minutes (25), minutes+increment (25+10) or "
                         f"minutes d delay (25d10), got {text!r}")
    minutes, sign, bonus = float(m.group(1)), m.group(2), float(m.group(3) or 0)
    kind = "sudden" if sign is None else ("fischer" if sign == "+" else "bronstein")
    return _checked(kind, minutes * 60, bonus, field)


def _checked(kind: str, base: float, bonus: float, field: str) -> TimeControl:
    if kind == "none":
        return NONE
    if base <= 0:
        raise ClockError(f"{field}: the time each must be more than 0 minutes")
    if base > MAX_MINUTES * 60:
        raise ClockError(f"{field}: at most {MAX_MINUTES} minutes each, got {_number(base / 60)}")
    if bonus > MAX_BONUS:
        raise ClockError(f"{field}: at most {MAX_BONUS} seconds a turn, got {_number(bonus)}")
    if kind == "sudden":
        bonus = 0.0
    elif bonus <= 0:
        raise ClockError(f"{field}: the {'increment' if kind == 'fischer' else 'delay'} must be more than 0 seconds "
                         f"(for none, write {_number(base / 60)})")
    return TimeControl(kind, base, bonus)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class MatchClock:
    """Both players' clocks for one game.  Times are seconds on one clock, never decreasing."""

    def __init__(self, control: TimeControl, first: str = WHITE):
        if first not in PLAYERS:
            raise ClockError(f"first: expected 'white' or 'black', got {first!r}")
        self.control = control
        self.first = first
        self.used = {WHITE: 0.0, BLACK: 0.0}  # charged so far, increments not counted
        self.gained = {WHITE: 0.0, BLACK: 0.0}  # increments earned
        self.running: str | None = None
        self.since: float | None = None  # when the running side's turn began
        self.pauses: list[list] = []  # [from, to or None]: nobody's time runs
        self.flagged: str | None = None  # the side whose time ran out
        self.flagged_at: float | None = None
        # The moment the screens' view is told at (the last change: a start, a turn's end, a pause,
        # a resume, a flag): between changes the view is the same, whenever it is asked for, so
        # nothing a screen is sent changes unless the clocks did (a page counts down itself).
        self.mark: float | None = None

    # --- what drives it ------------------------------------------------------------------------

    def start(self, at: float, side: str | None = None) -> None:
        """The game's first turn begins (both lineups stand): the first mover's clock runs; or, a
        game resumed (the service restarted), ``side``'s runs on from ``at``."""
        if self.running is None and self.flagged is None and self.control.timed:
            self.running, self.since = side or self.first, at
            self.mark = at

    @property
    def started(self) -> bool:
        return self.running is not None or self.flagged is not None

    def saved(self) -> dict:
        """What the store keeps after every turn: the time each used and gained (a resumed game's
        clocks go on from there; the time the service was down is charged to nobody)."""
        return {"used": dict(self.used), "gained": dict(self.gained), "flagged": self.flagged}

    def restore(self, saved: object) -> None:
        """From :meth:`saved` (ClockError naming the field if it is not that)."""
        if not isinstance(saved, dict):
            raise ClockError("clock state: expected an object")
        for field in ("used", "gained"):
            value = saved.get(field)
            if (not isinstance(value, dict) or set(value) != set(PLAYERS)
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
                               for v in value.values())):
                raise ClockError(f"clock state: {field}: expected seconds for white and black")
        if saved.get("flagged") not in (None, *PLAYERS):
            raise ClockError("clock state: flagged: expected white, black or null")
        self.used = {p: float(saved["used"][p]) for p in PLAYERS}
        self.gained = {p: float(saved["gained"][p]) for p in PLAYERS}
        self.flagged = saved.get("flagged")

    def turn_done(self, side: str, completed: float, now: float) -> float | None:
        """``side``'s turn ended with an action completed on the board at ``completed`` (its last
        sensor change; committed at ``now``).  Their clock stops then, gains its increment, and the
        rival's runs from then.  Returns ``side``'s time left, or None without a clock.  A turn
        completed after the side's time ran out does not save them: :meth:`flag` decides that."""
        if not self.control.timed or self.running != side or self.flagged is not None:
            return None
        completed = min(max(completed, self.since), now)
        self.used[side] += self._charge(self.since, completed)
        if self.control.kind == "fischer":
            self.gained[side] += self.control.bonus
        self.running = other(side)
        self.since = self.mark = completed
        return self.left(side, now)

    def pause(self, at: float) -> None:
        """From ``at`` nobody's time runs (until :meth:`resume`)."""
        if not self.pauses or self.pauses[-1][1] is not None:
            self.pauses.append([at, None])
            self.mark = max(at, self.mark or at)

    def resume(self, at: float) -> None:
        if self.pauses and self.pauses[-1][1] is None:
            self.pauses[-1][1] = max(at, self.pauses[-1][0])
            self.mark = self.pauses[-1][1]

    @property
    def paused(self) -> bool:
        return bool(self.pauses) and self.pauses[-1][1] is None

    def stop(self, at: float) -> None:
        """The game ended otherwise (by play, resignation) at ``at``: the running side is charged
        up to then, and nobody's time runs any more."""
        if self.running is not None and self.since is not None:
            self.used[self.running] += self._charge(self.since, max(at, self.since))
            self.mark = max(at, self.since)
        self.running = None

    # --- what it says ------------------------------------------------------------------------------

    def left(self, side: str, now: float) -> float:
        """``side``'s time left at ``now`` (0 at the least); without a clock, infinity."""
        if not self.control.timed:
            return math.inf
        used = self.used[side]
        if self.running == side and self.since is not None:
            used += self._charge(self.since, now)
        return max(0.0, self.control.base + self.gained[side] - used)

    def flag_due(self) -> float | None:
        """When the running side's time runs out if nothing happens (None: no clock, nobody's time
        runs, or paused)."""
        if not self.control.timed or self.running is None or self.paused or self.flagged is not None:
            return None
        side = self.running
        budget = self.control.base + self.gained[side] - self.used[side]
        if self.control.kind == "bronstein":
            budget += self.control.bonus
        t = self.since
        # walk the closed pauses after the turn began: they push the moment on
        for a, b in self.pauses:
            if b is None or b <= t:
                continue
            a = max(a, t)
            if a - t >= budget:
                break
            budget -= a - t
            t = b
        return t + budget

    def flag(self, now: float) -> str | None:
        """Has the running side's time run out by ``now``?  Then it is recorded (the side, and the
        moment it ran out) and returned.  The caller decides when to ask: never while a turn the
        board completed earlier may still be committed (docs/rules.md, "Clocks")."""
        due = self.flag_due()
        if due is None or now < due:
            return None
        side = self.running
        self.flagged, self.flagged_at = side, due
        self.used[side] = self.control.base + self.gained[side]  # nothing left
        self.running = None
        self.mark = due
        return side

    def view(self, now: float | None = None) -> dict:
        """What every screen shows (public: both clocks are seen by everyone at a table): each
        side's time left at :attr:`mark`, the last change, whatever ``now`` is (a screen counts the
        running clock down from there: ``at`` in the view the session sends), or at ``now`` before
        the clocks start."""
        if not self.control.timed:
            return {"control": NONE.to_json()}
        t = self.mark if self.mark is not None else (now or 0.0)
        out = {"control": self.control.to_json(), "running": self.running, "paused": self.paused,
               "flagged": self.flagged,
               "left": {s: round(self.left(s, t), 3) for s in PLAYERS}}
        if self.control.kind == "bronstein" and self.running is not None and self.since is not None:
            spent = self._elapsed(self.since, t)
            out["delay_left"] = round(max(0.0, self.control.bonus - spent), 3)
        return out

    # --- inside ----------------------------------------------------------------------------------

    def _elapsed(self, a: float, b: float) -> float:
        """Seconds from ``a`` to ``b`` outside the pauses."""
        if b <= a:
            return 0.0
        total = b - a
        for p, q in self.pauses:
            q = b if q is None else q
            lo, hi = max(a, p), min(b, q)
            if hi > lo:
                total -= hi - lo
        return total

    def _charge(self, a: float, b: float) -> float:
        spent = self._elapsed(a, b)
        if self.control.kind == "bronstein":
            return max(0.0, spent - self.control.bonus)
        return spent
