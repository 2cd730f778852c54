"""The referee's states, as frozen values, and the one table of their changes.

The state is one value, never a phase plus loose dicts beside it: what the referee
holds in a state (a question asked, the Power of Time announced, a flash held) is
part of it.  A state is replaced, never changed in place, and every replacement goes
through :func:`change`, which checks it against :data:`TRANSITIONS` (as h11 keeps its
states).  docs/referee.md draws the table.

========================  =======  ====================================================
state                     phase    holds
========================  =======  ====================================================
:class:`Setup`            setup    nothing: both lineups to stand on their spaces
:class:`Sync`             sync     nothing: the board to show the stored position
:class:`Playing`          play     perhaps the offer to pass (a question of kind pass)
:class:`Timing`           time     the Time announced (pending); perhaps the pass offer
:class:`Asking`           asked    the question; the Time still pending, if any
:class:`Flashing`         flash    the flash held until its outcome is on the board
:class:`Consulting`       hub      what the hub is asked (a flash, a Time) and the state to go back to
:class:`Following`        follow   the rival's action played elsewhere, as a plan to carry out
:class:`Over`             over     the Time pending when the game ended, if any
========================  =======  ====================================================

The last two exist only in remote play (``Referee(reads=..., oracle=...)``, docs/remote-play.md);
at one table the referee never enters them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

from engine.actions import Action

if TYPE_CHECKING:  # pragma: no cover
    from engine.effects import Flash

    from .matching import Candidate


class Phase(str, Enum):
    """What the referee waits for (each state has one)."""

    SETUP = "setup"  # both lineups to stand on their starting spaces
    SYNC = "sync"  # a resumed game: the board to show the stored position
    PLAY = "play"  # the mover's action on the board
    FLASH = "flash"  # a flash announced: its outcome on the board
    TIME = "time"  # the Power of Time announced: carried out on the board
    ASKED = "asked"  # the mover's answer to a private question
    HUB = "hub"  # remote play: the hub's answer (the identities a flash or Classic Time depends on)
    FOLLOW = "follow"  # remote play: the rival's action, played elsewhere, carried out on this board
    OVER = "over"


class Event(str, Enum):
    BOARD_SET = "board set"  # the board shows the game: play begins
    STEP = "step"  # an action committed: a new step begins (a Time announced and not played stays pending)
    FLASH_SEEN = "flash seen"
    TIME_DECLARED = "time declared"
    TIME_READ = "time read"  # what is left of the announced Time, read again from the board
    OFFER_PASS = "pass offered"  # the mover has no turn-ending action: "send done to pass"
    ASK = "ask"
    LAPSE = "question lapsed"
    GAME_OVER = "game over"
    CONSULT = "hub asked"  # remote play: an outcome depends on a rival identity the mover does not know
    ANSWERED = "hub answered"  # the hub's answer came: back to what the referee was doing
    REPLACED = "game replaced"  # the same position with more identities known: the held flash rebuilt
    FOLLOW = "rival played"  # remote play: a plan of the rival's action to carry out on the board
    FOLLOW_READ = "plan read"  # a lift the plan needs was seen
    FOLLOWED = "plan done"  # the board shows the rival's action done


# --- what a state holds ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """A private question to the mover about the first ``k`` flips of the step's evidence.

    ``kind``: ``"choose"`` (which of different games), ``"swap"`` (was it a Memory Swap),
    ``"word"`` (which tower came in), or ``"pass"`` (the offer to pass, which holds nothing up)."""

    player: str
    options: tuple[Action, ...]
    text: str
    k: int
    kind: str
    board: frozenset[int]


@dataclass(frozen=True)
class TimeAnnounced:
    """The Power of Time announced this turn, until it is played (or the turn ends).

    ``towers``: its towers' spaces as the public may hear them; ``private_towers``: as only the
    mover may (two Time towers, face down); ``instructions`` and ``expected``: what is left to do
    of it and the occupancy the public expects, as last read from the board."""

    turn: int
    player: str
    towers: tuple[str, ...]
    private_towers: tuple[str, ...]
    outcome: str | None
    text: str
    instructions: tuple[dict, ...]
    expected: frozenset[int]


@dataclass(frozen=True)
class FlashHeld:
    """A flash announced (both towers revealed), held until its outcome is on the board: the
    flash actions it may be (``group``, leaving one game) and the occupancy once carried out."""

    turn: int
    player: str
    group: tuple[Candidate, ...]
    result: frozenset[int]

    @property
    def flash(self) -> Flash:
        return self.group[0].flash


@dataclass(frozen=True)
class Consult:
    """What the hub is asked before the referee may go on (remote play): ``kind`` ``"flash"`` (the
    flash actions it may be) or ``"time"`` (the Classic Time declared)."""

    kind: str
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class FollowPlan:
    """The rival's action played elsewhere (remote play), to carry out on this board.

    ``plan``: the public plan (``do``, ``lift``, ``place``, ``text``, as
    ``host.opponent.driver.plan_of`` makes it; the newest, when the rival played several actions);
    ``expected``: the occupancy once done; ``lifts``: spaces still to be seen lifted; ``since``:
    when the first plan came; ``changed``: the board changed since then (only then are corrections
    said: before, the plan itself says what to do); ``player``: the side whose action it is (its
    turn until the board shows it) and ``turn`` (the turn it was played in); ``matched``: how many flips the evidence held when the board
    first showed the plan done (a brisk hand may lift its own tower at once: what follows that
    moment is the next step's); ``spaces``: every space the plans lift or place (a tower off one of
    them is a plan on its way, not a board to correct)."""

    plan: dict
    expected: frozenset[int]
    lifts: frozenset[int]
    since: float
    changed: bool = False
    player: str = ""
    turn: int = 0
    matched: int | None = None
    spaces: frozenset[int] = frozenset()


# --- the states -----------------------------------------------------------------------------------


class State:
    """A state of the referee.  Every state answers ``phase``, ``question``, ``time`` and ``flash``
    (None where it holds none)."""

    phase: ClassVar[Phase]
    question: Question | None
    time: TimeAnnounced | None
    flash: FlashHeld | None


@dataclass(frozen=True)
class Setup(State):
    phase: ClassVar[Phase] = Phase.SETUP
    question: ClassVar[None] = None
    time: ClassVar[None] = None
    flash: ClassVar[None] = None


@dataclass(frozen=True)
class Sync(State):
    phase: ClassVar[Phase] = Phase.SYNC
    question: ClassVar[None] = None
    time: ClassVar[None] = None
    flash: ClassVar[None] = None


@dataclass(frozen=True)
class Playing(State):
    """The mover's action on the board; ``question`` only ever the offer to pass."""

    phase: ClassVar[Phase] = Phase.PLAY
    question: Question | None = None
    time: ClassVar[None] = None
    flash: ClassVar[None] = None

    def __post_init__(self) -> None:
        _offer_only(self)


@dataclass(frozen=True)
class Timing(State):
    """Time pending: the Power of Time announced, to be carried out on the board before the turn
    may end; ``question`` only ever the offer to pass."""

    time: TimeAnnounced
    question: Question | None = None
    phase: ClassVar[Phase] = Phase.TIME
    flash: ClassVar[None] = None

    def __post_init__(self) -> None:
        _offer_only(self)
        if not isinstance(self.time, TimeAnnounced):
            raise TypeError("Timing holds the Time announced")


@dataclass(frozen=True)
class Asking(State):
    """The mover's answer to a private question; ``time``: the announced Time still pending, which
    the referee waits for again once the question lapses."""

    question: Question
    time: TimeAnnounced | None = None
    phase: ClassVar[Phase] = Phase.ASKED
    flash: ClassVar[None] = None

    def __post_init__(self) -> None:
        if not isinstance(self.question, Question) or self.question.kind == "pass":
            raise TypeError("Asking holds a question that waits for its answer (not the offer to pass)")


@dataclass(frozen=True)
class Flashing(State):
    """A flash announced: its outcome on the board."""

    flash: FlashHeld
    phase: ClassVar[Phase] = Phase.FLASH
    question: ClassVar[None] = None
    time: ClassVar[None] = None

    def __post_init__(self) -> None:
        if not isinstance(self.flash, FlashHeld):
            raise TypeError("Flashing holds the flash")


@dataclass(frozen=True)
class Consulting(State):
    """Remote play: the hub is asked for the identities an outcome depends on; nothing is announced
    or committed until it answers.  ``back``: the state to go back to (``Playing`` or ``Asking``),
    whose question and Time the status still shows."""

    consult: Consult
    back: State
    phase: ClassVar[Phase] = Phase.HUB
    flash: ClassVar[None] = None

    def __post_init__(self) -> None:
        if not isinstance(self.consult, Consult) or type(self.back) not in (Playing, Asking):
            raise TypeError("Consulting holds what the hub is asked and a Playing or Asking state to go back to")

    @property
    def question(self) -> Question | None:  # type: ignore[override]
        return self.back.question

    @property
    def time(self) -> TimeAnnounced | None:  # type: ignore[override]
        return self.back.time


@dataclass(frozen=True)
class Following(State):
    """Remote play: the rival's action, played elsewhere, to be carried out on this board."""

    follow: FollowPlan
    phase: ClassVar[Phase] = Phase.FOLLOW
    question: ClassVar[None] = None
    time: ClassVar[None] = None
    flash: ClassVar[None] = None

    def __post_init__(self) -> None:
        if not isinstance(self.follow, FollowPlan):
            raise TypeError("Following holds the plan")


@dataclass(frozen=True)
class Over(State):
    """The game is over.  ``time``: a Time announced and never played when it ended (the status
    still shows it)."""

    time: TimeAnnounced | None = None
    phase: ClassVar[Phase] = Phase.OVER
    question: ClassVar[None] = None
    flash: ClassVar[None] = None


def _offer_only(state: State) -> None:
    q = state.question
    if q is not None and (not isinstance(q, Question) or q.kind != "pass"):
        raise TypeError(f"{type(state).__name__} holds no question but the offer to pass")


def waiting(time: TimeAnnounced | None) -> State:
    """Where a step of play waits: for the announced Time while one is pending, else for play."""
    return Timing(time) if time is not None else Playing()


E = Event
#: every change of state: TRANSITIONS[kind of state][event] -> the kinds it may become (two where a
#: Time announced and not played yet keeps the referee waiting for it: see :func:`waiting`)
TRANSITIONS: dict[type[State], dict[Event, tuple[type[State], ...]]] = {
    Setup: {E.BOARD_SET: (Playing,), E.GAME_OVER: (Over,), E.REPLACED: (Setup,), E.FOLLOW: (Setup,)},
    Sync: {E.BOARD_SET: (Playing,), E.GAME_OVER: (Over,), E.REPLACED: (Sync,), E.FOLLOW: (Sync,)},
    Playing: {E.STEP: (Playing,), E.FLASH_SEEN: (Flashing,), E.TIME_DECLARED: (Timing,), E.OFFER_PASS: (Playing,),
              E.ASK: (Asking,), E.LAPSE: (Playing,), E.GAME_OVER: (Over,),
              E.CONSULT: (Consulting,), E.REPLACED: (Playing,), E.FOLLOW: (Following,)},
    Timing: {E.STEP: (Playing, Timing), E.TIME_READ: (Timing,), E.OFFER_PASS: (Timing,), E.ASK: (Asking,),
             E.GAME_OVER: (Over,), E.REPLACED: (Timing,)},
    Asking: {E.STEP: (Playing, Timing), E.ASK: (Asking,), E.TIME_DECLARED: (Asking,), E.LAPSE: (Playing, Timing),
             E.GAME_OVER: (Over,), E.CONSULT: (Consulting,), E.REPLACED: (Asking,)},
    Flashing: {E.STEP: (Playing,), E.GAME_OVER: (Over,), E.REPLACED: (Flashing,)},
    Consulting: {E.ANSWERED: (Playing, Asking), E.REPLACED: (Consulting,), E.GAME_OVER: (Over,)},
    Following: {E.FOLLOW: (Following,), E.FOLLOW_READ: (Following,), E.FOLLOWED: (Playing,), E.GAME_OVER: (Over,),
                E.REPLACED: (Following,)},
    Over: {E.GAME_OVER: (Over,)},
}


def change(state: State, event: Event, new: State) -> State:
    """``new`` if the table lets ``state`` become it on ``event``: the one check of every change.
    A change with no entry is a referee bug, never an input's fault, and raises."""
    if type(new) not in TRANSITIONS[type(state)].get(event, ()):
        raise RuntimeError(f"no transition from {state.phase.value} on {event.value} to {new.phase.value}")
    return new


__all__ = ["Phase", "Event", "State", "Setup", "Sync", "Playing", "Timing", "Asking", "Flashing", "Consulting",
           "Following", "Over", "Question", "TimeAnnounced", "FlashHeld", "Consult", "FollowPlan", "TRANSITIONS", "change", "waiting"]
