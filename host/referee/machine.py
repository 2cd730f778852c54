"""The referee's state machine: sensor snapshots and players' inputs in, actions and notices out.

Sans-I/O: it never reads a clock or a device.  ``feed(snapshot)`` hands it a raw
reading, ``tick(now)`` lets time pass, ``input(player, data, now)`` hands it a
player's input; each returns the :class:`Notice` s to send.

Its state is one frozen value (``host.referee.states``): what it waits for and what
it holds meanwhile (a question asked, the Power of Time announced, a flash held);
every change of state goes through :data:`TRANSITIONS` (as h11 keeps its states).
Each step of play (a turn, or what is left of one after a non-ending action) has its
legal actions (``matching.Step``) and its evidence (``evidence.Evidence``: the stable
flips since the step began).  At every settled change the referee finds the best
reading of the evidence: the first action it shows complete, where that action ends
in the evidence, and whether what came after is already the next step (a rival who
did not wait, the rest of a turn).  It commits an action when the evidence leaves
one game (the engine decides which actions leave the same game) and shows it is
over; it asks the mover, privately, only when the readings lead to different games;
it tells the mover what differs when nothing fits.  What its status says to each
audience is in ``host.referee.status``.
See docs/referee.md.
"""

from __future__ import annotations

import time as _time
from dataclasses import replace
from typing import Any, Callable

from engine.actions import PASS, Action, Time
from engine.board import PLAYERS, SPACE_NAMES, other, parse_space as S_
from engine.game import EMPTY, Game, TimeEvent
from engine.views import action_seen_by, knows
from engine.words import time_forecast
from host.referee.debounce import BURST_GAP, EPS, Debouncer
from host.board.sensing import Snapshot

from . import status, wording
from .corrections import corrections, say_list
from .evidence import Evidence, Flip
from .inputs import Word, check_input, parse_word, why_not
from .matching import Candidate, Step, could_grow, maybe_void, plain
from .notices import PUBLIC, InputError, Notice
from .states import (TRANSITIONS, Asking, Consult, Consulting, Event, Flashing, FlashHeld, Following, FollowPlan, Over,
                     Phase, Playing, Question, Setup, State, Sync, TimeAnnounced, Timing, change, waiting)

N = SPACE_NAMES
INF = float("inf")
#: a player's words about an action they played this long ago are late, not early (a `done` or
#: `choose` tapped while the referee had already read the board)
LATE = 5.0
#: a ``choose`` from the player not to move, said this soon after the board's last raw change while the
#: mover's action is on the board, is kept for their own turn (a brisk next player names their action
#: 0.1 to 0.3 s after the rival's tower touched down, and a landing bounces up to 80 ms); said later,
#: with the board still, it is refused as before ("it is white's turn", whatever it names)
NEXT_WORD = 0.4
#: words one player may have waiting at once (a turn needs a few: Time, Resurrection, a swap, a choice)
MAX_WORDS = 8


class Referee:
    """Referees one game from board snapshots and players' inputs.

    Windows (seconds; docs/referee.md): ``quiet`` -- the spaces of an action must rest this long
    before it commits (a tower resting a moment on a space during a slide is no placement);
    ``settle`` -- before a question, a correction list or "nothing fits"; ``word_wait`` -- how long
    a board that needs the mover's word (which tower came in, was it a Memory Swap) waits for it
    before asking; ``multi_settle`` -- stillness that ends an action that could still grow (Void
    Gravity), unless ``done`` or the rival's lift ends it sooner; ``hold`` -- how long a tower may
    be only lifted before it is a mistake.  ``on_commit(turn, player, action)`` runs after the
    engine applied an action and before any notice about it is returned (the store makes it
    durable); if it raises, the action is undone and the error propagates.

    Remote play (docs/remote-play.md; inert at one table): ``reads`` -- the players whose actions
    this board reads (on another's turn a board change is only a board that fits nothing, until
    :meth:`follow` gives the position after the action played elsewhere); ``oracle`` -- asked for
    the identities a flash's or a Classic Time's outcome depends on when the reader does not know
    them (``oracle.flash(actions)``, ``oracle.time(action)``: a game in the same position with them
    true, or None for not yet).  :meth:`replace_game` takes a game with more identities known.
    """

    def __init__(
        self,
        game: Game,
        on_commit: Callable[[int, str, Action], Any] | None = None,
        settle: float = 0.25,
        *,
        quiet: float = 0.14,
        debounce_on: float = 0.05,
        debounce_off: float = 0.15,
        word_wait: float = 1.0,
        multi_settle: float = 1.5,
        hold: float = 4.0,
        stats: bool = False,
        reads: frozenset[str] | set[str] | tuple[str, ...] = frozenset(PLAYERS),
        oracle: Any = None,
    ):
        if min(settle, quiet, multi_settle, word_wait, hold) < 0:
            raise ValueError("settle windows must not be negative")
        reads = frozenset(reads)
        if not reads <= set(PLAYERS):
            raise ValueError(f"reads: expected players out of {', '.join(PLAYERS)}, got {sorted(reads)}")
        self.reads = reads
        self.oracle = oracle
        self._answered: set[tuple] = set()  # what the hub answered this step (never asked twice)
        self.game = game
        self.on_commit = on_commit
        self.settle = settle
        self.quiet = min(quiet, settle)
        self.word_wait = max(word_wait, settle)
        self.multi_settle = max(multi_settle, settle)
        self.hold = max(hold, settle)
        self.deb = Debouncer(debounce_on, debounce_off)
        self.stats: dict[str, list] | None = (
            {"decisions": [], "latency": [], "builds": [], "commits": [], "kinds": []} if stats else None)
        self.current: State = Over() if game.is_over() else Setup() if not game.log else Sync()
        self.words: dict[str, list[Word]] = {p: [] for p in PLAYERS}
        self.rejected: dict[str, str | None] = {p: None for p in PLAYERS}
        self.private_instructions: dict[str, list] = {p: [] for p in PLAYERS}
        self.public_instructions: list[dict] = []
        self.last_commit: dict[str, float] = {p: -INF for p in PLAYERS}
        self.now = -INF
        self.seen_snapshot = False
        self._said: dict[tuple[str, str], Any] = {}
        self._carried: list[Notice] = []
        self._stretch: dict[int, float] = {}  # space -> when it began changing without a quiet spell
        self._dirty = True
        self._wake = INF
        self.step: Step | None = None
        self.ev: Evidence | None = None
        self._last_same: dict[str, set] = {p: set() for p in PLAYERS}  # each player's last turn's actions, and equals
        self._last_turn: dict[str, int] = {}  # the turn of each player's last commit
        # Inputs said while the board had changes not settled yet, in the order they came: each is
        # judged once every change before it has settled (docs/referee.md, "Words and towers on one
        # clock").  (player, kind, word, when, the spaces then unsettled)
        self._held: list[tuple[str, str, Word | None, float, frozenset[int]]] = []
        self._releasing = False
        self._next_words: dict[str, list[Word]] = {p: [] for p in PLAYERS}  # said for the mover's next turn
        self._step_t0 = -INF  # raw history before this is an earlier step's (set by _new_step)
        if self.state is not Phase.OVER:
            self._new_step()

    # --- states ----------------------------------------------------------------------------------

    def _go(self, event: Event, new: State) -> None:
        """Change state: the one place it happens (``states.change`` checks it against the table)."""
        self.current = change(self.current, event, new)

    @property
    def state(self) -> Phase:
        """What the referee waits for (the current state's phase)."""
        return self.current.phase

    @property
    def phase(self) -> str:
        """The coarse phase the pages show: setup, sync, play or over."""
        s = self.state
        return s.value if s in (Phase.SETUP, Phase.SYNC, Phase.OVER) else Phase.PLAY.value

    # --- the interface ---------------------------------------------------------------------------

    def feed(self, snapshot: Snapshot) -> list[Notice]:
        """A raw sensor snapshot."""
        now = max(snapshot.t, self.now)
        self.now = now
        deb = self.deb
        self.seen_snapshot = True
        if snapshot.occupied != deb.raw:
            since = deb.since
            for s in snapshot.occupied ^ deb.raw:
                if now - since.get(s, -INF) >= self.quiet - EPS:
                    self._stretch[s] = now  # this space starts changing after a quiet spell
            flipped = deb.feed(now, frozenset(snapshot.occupied))
            self._dirty = True
        else:
            flipped = deb.advance(now)
        return self._take_carried() + self._run(now, flipped)

    def tick(self, now: float) -> list[Notice]:
        """Time passes without a new snapshot."""
        now = max(now, self.now)
        self.now = now
        return self._take_carried() + self._run(now, self.deb.advance(now))

    def input(self, player: str, data: object, now: float) -> list[Notice]:
        """A player's input (schema in docs/referee.md).  InputError if malformed or impossible."""
        kind, fields = check_input(player, data)
        if player not in self.reads:
            raise InputError(f"{player} plays elsewhere: this board does not read {player}'s actions")
        word = parse_word(player, kind, fields, now) if kind != "done" else None
        out = self.tick(now)
        unsettled = self._unsettled(self.now)
        if (player == self.game.to_move and self.state not in (Phase.SETUP, Phase.SYNC, Phase.OVER, Phase.FOLLOW)
                and (unsettled or self._held or self.state is Phase.HUB)):
            # A change before the mover's word has not settled yet (a tower still landing, a lift
            # still bouncing): the word is judged once it has, against the board as it then stands,
            # and nothing is committed meanwhile.  (The other player's words wait for their turn
            # whatever the board shows.)
            self._held.append((player, kind, word, self.now, unsettled))
            self._evaluate_now(out)
            return out
        try:
            self._take_input(player, kind, word, out)
        except InputError:
            # What happened on the board meanwhile (a commit) is still news: hand it out next time.
            self._carried = out + self._carried
            raise
        return out

    def _unsettled(self, now: float) -> frozenset[int]:
        """Spaces whose change is not settled at ``now``: a stable flip still to come, or raw edges
        so recent that the same lift or placement may still bounce."""
        deb = self.deb
        since = deb.since
        return frozenset(deb.pending) | frozenset(s for s, t in since.items() if now - t < BURST_GAP - EPS)

    def _settled_since(self, spaces: frozenset[int], at: float, now: float) -> bool:
        """Has every change of ``spaces`` under way at ``at`` settled by ``now``?"""
        deb = self.deb
        for s in spaces:
            if deb.began.get(s, -INF) > at + EPS:
                continue  # its burst then ended; what it does now is a change after the word
            if s in deb.pending or now - deb.since.get(s, -INF) < BURST_GAP - EPS:
                return False
        return True

    def _release(self, now: float, out: list) -> None:
        """Judge the held words whose earlier changes have settled, in the order they were said."""
        if self._releasing:
            return
        self._releasing = True
        try:
            self._release_held(now, out)
        finally:
            self._releasing = False

    def _release_held(self, now: float, out: list) -> None:
        while self._held and self.state is not Phase.HUB:
            player, kind, word, at, spaces = self._held[0]
            if not self._later(at + self.word_wait) and not self._settled_since(spaces, at, now):
                # wake when the burst may have ended (a flip wakes us anyway)
                deb = self.deb
                self._later(max((deb.since.get(s, -INF) for s in spaces), default=now) + BURST_GAP)
                return
            self._held.pop(0)
            if player == self.game.to_move and self.state is not Phase.OVER:
                # What the board showed before the word is read first (an action over and done
                # commits now), then the word is judged for the step it was said in.
                for _ in range(64):
                    if self.state is Phase.OVER or not self._decide(now, out):
                        break
                if player == self.game.to_move and word is not None and self._for_next_turn(word, at):
                    # Said once the rival had begun: it is for this player's next turn.
                    self._next_words[player].append(word)
                    out.append(Notice(player, "instruction", {"declared": word.to_json(), "text": wording.QUEUED}))
                    continue
            try:
                self._take_input(player, kind, word, out, at)
            except InputError as exc:
                data = {"input": word.to_json() if word is not None else "done", "reason": str(exc)}
                if player == self.game.to_move or self.state is Phase.OVER:
                    self.rejected[player] = str(exc)
                out.append(Notice(player, "rejected", data))

    def _for_next_turn(self, word: Word, at: float) -> bool:
        """Does the evidence show the mover's turn over (a turn-ending action complete) and the
        rival's next action begun before ``at``?  A ``choose`` naming an action of this very step is
        about it, whenever it comes (the answer to a question asked, or about to be, on this step)."""
        step, ev = self.step, self.ev
        n = len(ev)
        if self.state is not Phase.PLAY:
            return False
        if word.kind == "choose" and word.action in step.legal:
            return False
        for k in range(n - 1, 0, -1):
            if ev.flips[k].began > at + EPS:
                continue
            for c in step.complete(ev, k):
                if c.ends and self._allowed(c) and self._next_step(c, k)[0]:
                    return True
        return False

    def _holds_mover(self) -> bool:
        """Is a word of the mover's still held?  Nothing is committed until it is judged."""
        mover = self.game.to_move
        return any(h[0] == mover for h in self._held)

    def _take_carried(self) -> list[Notice]:
        carried, self._carried = self._carried, []
        return carried

    def next_deadline(self) -> float | None:
        """The next time at which ``tick`` would change something (None: nothing is due)."""
        if not self.seen_snapshot or self.state is Phase.OVER:
            return None
        due = self.deb.next_due()
        wake = self._wake if not self._dirty else self.now
        if due is None:
            return None if wake == INF else wake
        return min(due, wake)

    def expected(self) -> frozenset[int]:
        """The occupancy the board should show once the pending step is done."""
        cur = self.current
        if cur.phase is Phase.FOLLOW:
            return cur.follow.expected
        if cur.flash is not None:
            return cur.flash.result
        if cur.time is not None:
            return cur.time.expected
        return self.game.occupied()

    def public_status(self) -> dict:
        """What anyone may see (``host.referee.status``)."""
        return status.public(self)

    def private_status(self, player: str) -> dict:
        """What ``player`` alone may see (``host.referee.status``)."""
        return status.private(self, player)

    def is_idle(self) -> bool:
        """Nothing pending: the board shows the game as it stands and no step is under way."""
        if self.state is Phase.OVER:
            return True
        if self.state in (Phase.SETUP, Phase.SYNC) or self.deb.pending or self._held:
            return False
        if self.state in (Phase.FLASH, Phase.TIME, Phase.HUB, Phase.FOLLOW):
            return False
        if self.current.question is not None and self.current.question.options != (PASS,):
            return False
        if self.words[self.game.to_move]:
            return False
        return self.deb.stable == self.step.base

    def stuck_reason(self) -> str:
        """What the referee is waiting for, in words (for whoever holds the whole game, e.g. the CLI)."""
        return status.stuck_reason(self)

    # --- inputs ----------------------------------------------------------------------------------

    def _take_input(self, player: str, kind: str, word: Word | None, out: list, at: float | None = None) -> None:
        game = self.game
        if game.is_over():
            raise InputError("the game is over")
        if self.state in (Phase.SETUP, Phase.SYNC):
            raise InputError("the game has not started: both lineups must stand on their starting spaces")
        if self.state is Phase.FOLLOW:
            self._during_follow(player, kind, word, out)
            return
        if player != game.to_move:
            self._not_my_step(player, kind, word, out)
            return
        if kind == "done":
            self._done(player, out, self.now if at is None else at)
            return
        if word.kind != "choose" and self.state is Phase.FLASH:
            at = N[self.current.flash.flash.at]
            what = {"reinforce": "a reinforcement", "resurrect": "a Resurrection", "time": "the Power of Time",
                    "swap": "a Memory Swap"}[word.kind]
            raise InputError(f"a flash is under way on {at}: finish it before {what}")
        if (word.kind == "choose" and self.now - self.last_commit[player] <= LATE
                and self._was_last(player, word.action) and word.action not in game.legal_actions()):
            out.append(Notice(player, "instruction", {"text": wording.ALREADY}))  # late: it is recorded
            return
        if word.kind == "choose" and self.state is Phase.FLASH and word.action not in [c.action for c in self.current.flash.group]:
            raise InputError(f"choose: {word.action} is not the flash under way on {N[self.current.flash.flash.at]}")
        reason = why_not(self.step, word)
        if reason and len(self.ev) and word.kind != "choose" and len(self.words[player]) < MAX_WORDS:
            # Not possible yet, but the board shows something not read yet (the Time tower just
            # resurrected): the word waits for the rest of the turn, and is refused then if still
            # impossible.
            self.words[player].append(word)
            out.append(Notice(player, "instruction", {"declared": word.to_json(), "text": wording.AFTER}))
            return
        if reason:
            raise InputError(reason)
        if word.kind == "time" and self._time_said(player):
            return  # said already
        self._add_word(word, out)
        self._evaluate_now(out)

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

    def _not_my_step(self, player: str, kind: str, word: Word | None, out: list) -> None:
        """An input from the player not to move: late words about their own last step, or early
        ones for their next."""
        recent = self.now - self.last_commit[player] <= LATE
        if kind == "done":
            if recent:
                out.append(Notice(player, "instruction", {"text": wording.ALREADY}))
                return
            raise InputError(f"it is {self.game.to_move}'s turn")
        if word.kind == "choose":
            if recent and self._was_last(player, word.action):
                out.append(Notice(player, "instruction", {"text": wording.ALREADY}))
                return
            if not self._mover_under_way():
                # Any other action named now is refused the same way, whether or not the mover could
                # play it: the answer must not tell this player what the mover's towers can do.
                raise InputError(f"it is {self.game.to_move}'s turn")
            # Said while the mover's action is on the board and not yet read (a brisk player naming
            # their own next action as the rival's tower lands): kept for this player's turn and
            # judged then, against their own actions only; the answer now is the same whatever it
            # names.
        queue = self.words[player]
        if any(w.to_json() == word.to_json() for w in queue):
            out.append(Notice(player, "instruction", {"declared": word.to_json(), "text": wording.QUEUED}))
            return  # said already
        if len(queue) >= MAX_WORDS:
            raise InputError(f"{len(queue)} inputs already wait for your turn: wait for it")
        queue.append(word)
        out.append(Notice(player, "instruction", {"declared": word.to_json(), "text": wording.QUEUED}))

    def _mover_under_way(self) -> bool:
        """Is the mover's action still landing: begun on the board in this step (a change in the
        evidence, or one still settling), with the board's last raw change under ``NEXT_WORD`` ago?
        Public: the board and the commits say it, nothing else."""
        return bool((len(self.ev) or self._unsettled(self.now)) and self.now - self.deb.last_change < NEXT_WORD - EPS)

    def _during_follow(self, player: str, kind: str, word: Word | None, out: list) -> None:
        """An input while the rival's action (played elsewhere) is carried out on the board: a word
        for the player's coming turn is kept for it, as during the rival's turn at one table."""
        if kind == "done" and self.now - self.last_commit[player] <= LATE:
            out.append(Notice(player, "instruction", {"text": wording.ALREADY}))
            return
        if kind == "done" or word.kind == "choose":
            raise InputError("the rival's action is still to be carried out on the board: wait for it")
        queue = self.words[player]
        if not any(w.to_json() == word.to_json() for w in queue):
            if len(queue) >= MAX_WORDS:
                raise InputError(f"{len(queue)} inputs already wait for your turn: wait for it")
            queue.append(word)
        out.append(Notice(player, "instruction", {"declared": word.to_json(), "text": wording.QUEUED}))

    def _was_last(self, player: str, action: Action) -> bool:
        """Is ``action`` what ``player`` last played, or an action that left the same game?"""
        return action in self._last_same[player]

    def _add_word(self, word: Word, out: list) -> None:
        player = word.player
        words = self.words[player]
        last = self.ev.flips[-1].at if len(self.ev) else -INF
        if any(w.to_json() == word.to_json() and (word.kind not in ("swap", "time") or w.at >= last) for w in words):
            # said already -- unless it is a second Memory Swap's or Power of Time's, said once the
            # board showed more since the first (a Third Eye turn may hold several, read before the
            # first is)
            return
        if len(words) >= MAX_WORDS:
            raise InputError(f"{len(words)} of your inputs already wait to be used: play them on the board first")
        words.append(word)
        self.rejected[player] = None
        out.append(Notice(player, "instruction", {"declared": word.to_json(), "text": wording.word_text(word)}))
        if word.kind == "time" and self.current.time is None:
            self._announce_time(out)  # (a second Time is announced once the first is committed)

    def _done(self, player: str, out: list, at: float) -> None:
        asked = self.current.question
        if asked is not None and asked.kind == "swap":
            # "Did you swap?" -- "No, I only straightened my towers": forget those touches.
            self._drop_asked(out, wording.NO_SWAP)
            self._cut(asked.k, self.step.base)
            self._evaluate_now(out)
            return
        if asked is not None and asked.kind == "word":
            # "Which tower did you bring in?" -- "None": the board shows something else (a sensor
            # that reads wrong, a tower knocked over); what it needs is said next.
            self._declined.update(asked.options)
            self._drop_asked(out, wording.NONE_OF_THEM)
            self._evaluate_now(out)
            return
        if asked is not None and asked.kind == "choose":
            # "Which one did you play?" is still open: done does not answer it (a Third Eye swap's
            # done, said as the question came); the question still waits, and is said again.
            self._done_at = at
            out.append(Notice(player, "question", status.question_json(asked)))
            return
        step, ev = self.step, self.ev
        if not len(ev) and not self.deb.pending:
            if step.can_pass and self.state is not Phase.TIME:
                self._commit_now(step.of(PASS), 0, out)
                return
            if self.now - self.last_commit[player] <= LATE:
                out.append(Notice(player, "instruction", {"text": wording.ALREADY}))
                return
        self._done_at = at  # when it was said (a held done is judged later)
        before = len(self.game.log)
        self._evaluate_now(out)
        if len(self.game.log) == before and not self.deb.pending and self.now - self.deb.last_change >= self.settle:
            # (while the board still settles, or its last change has not rested yet, done waits for
            # it: the step's next reading uses it)
            reason = wording.NOT_FINISHED
            self.rejected[player] = reason
            out.append(Notice(player, "rejected", {"input": "done", "reason": reason}))

    def _evaluate_now(self, out: list) -> None:
        self._dirty = True
        if self.state not in (Phase.SETUP, Phase.SYNC, Phase.OVER):
            self._evaluate(self.now, out)

    # --- steps -----------------------------------------------------------------------------------

    def _new_step(self, evidence: Evidence | None = None, read_until: float = -INF) -> None:
        """A new step begins (``evidence``: what the board showed after the action just committed,
        whose own changes settled by ``read_until``)."""
        t0 = _time.perf_counter()
        was = self.step.player if self.step is not None else None
        self.step = Step(self.game)
        if self.stats is not None:
            self.stats["builds"].append(_time.perf_counter() - t0)
        self.ev = evidence if evidence is not None else Evidence(self.step.base)
        # Raw history older than this is the last step's (the evidence carried over starts later),
        # except after a word the new mover said for their turn while the rival's action still
        # settled: their lifts right after it (and after the rival's action's own changes) are read
        # in its light ("Every word belongs to the turn its speaker meant", docs/referee.md).
        early = []
        if was is not None and was != self.step.player:
            early = [max(w.at, read_until) for w in self.words[self.step.player] if w.at >= self._step_t0]
        self._step_t0 = min([self.now] + [f.began for f in self.ev.flips] + early) - 0.001
        self._after_cache: dict[tuple, tuple[bool, bool]] = {}
        self._done_at: float | None = None
        self._declined: set[Action] = set()  # actions the mover said "done" (none of them) to
        self.public_instructions = []
        self.private_instructions = {p: [] for p in PLAYERS}
        self._said = {}
        self._answered = set()

    def _cut(self, k: int, base: frozenset[int]) -> None:
        """Drop the first ``k`` flips of the evidence (they were nothing: the board is back at ``base``)."""
        self.ev = self.ev.rest(k, base)
        self.step.forget()
        self._after_cache = {}

    def _run(self, now: float, flipped: frozenset[int]) -> list[Notice]:
        out: list[Notice] = []
        if flipped and self.ev is not None and self.state is not Phase.OVER:
            deb = self.deb
            meta = {s: deb.meta.pop(s) for s in flipped if s in deb.meta}  # lifts seen late
            times = {s: meta.get(s) or (deb.began.get(s, deb.since[s]), deb.since[s]) for s in flipped}
            cont: set[int] = set()
            if len({times[s][1] for s in flipped}) < len(flipped) and self.step is not None:
                # Changes at the very same moment (the rival's hand on the board as the mover's last
                # tower leaves): those the mover's action under way could use come first.
                moved = frozenset().union(*self.ev.change())
                for c in self.step.cands:
                    if moved <= c.touched and self._allowed(c):
                        cont |= c.touched
            for s in sorted(flipped, key=lambda s: (times[s][1], s not in cont, s)):
                self.ev.add(Flip(now, s, s in deb.stable and s not in meta, times[s][0], times[s][1]))
            self._dirty = True
        if self.state is Phase.FOLLOW and flipped:
            self._follow_read(flipped)
        if self.state is Phase.OVER or not self.seen_snapshot:
            return out
        self._watch_unsettled(now, out)
        if self.state is Phase.HUB:
            self._dirty = True  # the hub is asked again at every tick and snapshot until it answers
        if self._dirty or now + EPS >= self._wake:
            self._dirty = False
            if self.stats is not None and self.state not in (Phase.SETUP, Phase.SYNC):
                t0 = _time.perf_counter()
                n = len(self.game.log)
                self._evaluate(now, out)
                dt = _time.perf_counter() - t0
                self.stats["decisions"].append(dt)
                if len(self.game.log) != n:
                    self.stats["commits"].append(dt)
            else:
                self._evaluate(now, out)
        return out

    def _watch_unsettled(self, now: float, out: list) -> None:
        """A sensor that never settles (a flickering reading, a tower wobbling on its magnet)
        holds everything up: after ``hold`` seconds, say so publicly (it reveals nothing)."""
        deb = self.deb
        since = deb.since
        quiet = self.quiet - EPS
        for s in [s for s in self._stretch if now - since[s] >= quiet and s not in deb.pending]:
            del self._stretch[s]  # settled again
        bad = [s for s, start in self._stretch.items() if now - start >= self.hold - EPS]
        if bad:
            spaces = sorted(N[s] for s in bad)
            self._say(out, PUBLIC, "waiting", {"sensors": spaces, "text": wording.unsettled(spaces)},
                      sig=tuple(spaces))
        elif not deb.pending and self._said.get((PUBLIC, "waiting")) is not None:
            self._said[(PUBLIC, "waiting")] = None
            out.append(Notice(PUBLIC, "waiting", {"sensors": [], "text": wording.SETTLED}))

    def _later(self, when: float) -> bool:
        """Is it ``when`` yet?  If not, wake up then."""
        if self.now + EPS >= when:
            return True
        self._wake = min(self._wake, when)
        return False

    def _say(self, out: list, audience: str, kind: str, data: dict, sig: Any = None) -> None:
        """Emit a notice unless the same one was the last of its kind for this audience."""
        key = (audience, kind)
        sig = data if sig is None else sig
        if self._said.get(key) == sig:
            return
        self._said[key] = sig
        out.append(Notice(audience, kind, data))

    # --- deciding --------------------------------------------------------------------------------

    def _evaluate(self, now: float, out: list) -> None:
        self._wake = INF
        if self.state is Phase.FOLLOW:
            self._evaluate_follow(now, out)
            return
        if self.game.is_over():
            if self.state is not Phase.OVER:
                self._go(Event.GAME_OVER, Over(self.current.time))
            return
        if self.state in (Phase.SETUP, Phase.SYNC):
            self._evaluate_sync(now, out)
            return
        try:
            if self.state is Phase.HUB and not self._hub_answer(out):
                return  # nothing is announced or committed before the hub answers
            if self._held:
                self._release(now, out)
                if self._holds_mover():
                    return  # nothing is committed before the mover's word is judged (it wakes us then)
            for _ in range(64):  # each pass commits at most one action; the rest is the next step
                if self.state is Phase.OVER or not self._decide(now, out):
                    return
        finally:
            expect = self._expected_lifts()
            new = expect - self.deb.expect
            self.deb.expect = expect
            if new and self.state is not Phase.OVER:
                self._late_lifts(new)

    def _late_lifts(self, spaces: frozenset[int]) -> None:
        """A lift is now expected on ``spaces`` (the swap word came just after the towers): a quick
        lift and put-back there since the step began, which the full window missed, is evidence."""
        ev = self.ev
        seen = ev.touched()
        found = []
        for s in sorted(spaces - seen):
            q = self.deb.quick_lift(s, self._step_t0)
            if q is not None:
                began, steady, back, settled = q
                found += [Flip(back, s, False, began, steady), Flip(settled + self.deb.on_delay, s, True, back, settled)]
        if found:
            self.ev = Evidence(ev.base, sorted(ev.flips + found, key=lambda f: (f.settled, f.space)))
            self.step.forget()
            self._after_cache = {}
            self._dirty = True

    def _expected_lifts(self) -> frozenset[int]:
        """Spaces where a declared or announced action expects a tower to be lifted: there a quick
        lift counts on a shorter steady reading (host.referee.debounce, docs/referee.md "Evidence read in
        context").  Everywhere else the full window applies."""
        if self.state in (Phase.SETUP, Phase.SYNC, Phase.OVER) or self.step is None:
            return frozenset()
        step = self.step
        out: set[int] = set()
        if self.current.flash is not None:
            for c in self.current.flash.group:
                out |= c.touched  # the announced flash: public
        swap = any(w.kind == "swap" for w in self.words[step.player])
        if self.current.time is not None or swap:
            # Which of the mover's towers is a Memory or a Time tower is hidden: where a swap or a
            # Time is expected, a quick lift counts on any tower of theirs, so that what is read
            # (and when) never depends on it.  (Time's rewind or push moves rival towers: those
            # are the Time candidates' own spaces.)
            game = self.game
            board = game.state.board
            out |= {s for s in step.base if game.owner[board[s]] == step.player}
            if self.current.time is not None:
                for c in step.cands:
                    if type(c.action) is Time:
                        out |= c.touched
        return frozenset(out & step.base)  # a lift: from a space that holds a tower

    def _blocking(self) -> set[int]:
        """Spaces still settling that could change the reading: all but a rival tower being lifted
        (the rival starting their turn says nothing about the mover's action)."""
        board = self.game.state.board
        mover = self.step.player
        raw = self.deb.raw
        return {s for s in self.deb.pending
                if not (s not in raw and board[s] != EMPTY and self.game.owner[board[s]] != mover)}

    def _allowed(self, c: Candidate) -> bool:
        """May ``c`` be committed with the words the mover gave?"""
        if self.state is Phase.TIME and c.ends and type(c.action) is not Time:
            return False  # the announced Time comes first
        if c.word is None:
            return True
        return any(w.fits(c.action, c.word) for w in self.words[self.step.player])

    def _chosen(self) -> list[Action]:
        return [w.action for w in self.words[self.step.player] if w.kind == "choose"]

    def _rested(self, c: Candidate, k: int, n: int, blocking: set[int]) -> float | None:
        """When ``c``'s spaces will have rested ``quiet`` (None: they were disturbed again)."""
        spaces = c.touched
        if spaces & blocking:
            return None
        if k < n:
            if self.ev.disturbed_after(k, spaces, self.quiet):
                # touched again at once: only by the next player doing what they declared, or doing
                # in full an action of theirs, or picking up the rival's tower it put down (then once
                # the board rested ``quiet``)
                if self._declared_next(c, k):
                    return -INF
                if self._hurried_fits(c, k) and not blocking:
                    return self.ev.flips[-1].at + self.quiet
                return None
            last = max((f.settled for f in self.ev.flips[:k] if f.space in spaces), default=-INF)
            return last + self.quiet
        since = self.deb.since
        return max((since.get(s, -INF) for s in spaces), default=-INF) + self.quiet

    def _over(self, c: Candidate, k: int, n: int) -> float | None:
        """For an action that could still grow: when the evidence says it is over (None: not yet).

        Over at once with ``done``, or when the first flip after it is one the action could not
        use (the rival lifting a tower, a tower put down with none of the mover's in the hand);
        only the mover lifting another tower that may be a Void keeps it open.  Else after
        ``multi_settle`` of stillness.  Decided from public facts, as ``could_grow`` is."""
        if not could_grow(self.game, c):
            return -INF
        ev = self.ev
        if self._done_at is not None and all(f.began <= self._done_at + EPS for f in ev.flips[:k]):
            return -INF  # said done once all of it was under way (a done for the swap before is not)
        if k < n:
            board = self.game.state.board
            mover = self.step.player
            sources = {a for a, _ in c.effect.carries}
            standing = {b: board[a] for a, b in c.effect.carries}  # who stands where once it is done
            in_hand = 0
            for f in ev.flips[k:]:
                tower = standing.get(f.space, EMPTY if f.space in sources else board[f.space])
                if not f.on and tower != EMPTY and self.game.owner[tower] == mover and maybe_void(self.game, tower):
                    in_hand += 1  # perhaps the next Void, or one taken back
                elif f.on and in_hand:
                    in_hand -= 1
                else:
                    return -INF  # a flip the Gravity could not use: the rival's, or a tower from nowhere
            return None
        last = ev.flips[-1].at if ev.flips else -INF
        return last + self.multi_settle

    def _grew_after_done(self, c: Candidate, k: int) -> bool:
        """Is ``c`` an action grown past the word that said the mover's action over?

        **The mover's done.**  True when ``c`` is a Gravity some of whose flips began after the done
        was said and, of the flips that began before it, a shorter allowed reading is complete after
        which the rest is, in full or on its way to what they declared before it began, the next
        player's action: the done ended the action there, and the lift it was said during is the
        rival's (their Time, said before, pushing a Void of the mover's).  A done said with the last
        Void in the hand, nothing of the rival's after it, keeps it.  The shorter reading is one
        that could still grow and that ``c`` contains; ``c`` itself need not be able to grow any
        further (soak seed 74176: White's Gravity pulled its last Void but one, Black lifted White's
        other Void to push it with the Time said before, White's done came 60 ms into that lift, and
        the Gravity pulling both Voids, which could grow no more, was committed).

        **The next player's word.**  The same when the next player said a word for their own turn
        after a reading of the mover's was complete on the board: any turn-ending reading complete
        before the word, after which the rest is that player's action in full or on its way to what
        they declared, is the mover's action, and a reading using flips begun after the word is not
        (soak seeds 300499, 300457: White's Time said 0.22 s after Black's Gravity landed, its push of
        Black's b36 read as more of that Gravity; hasty seed 420013: White's w38-w35, Black's Time
        pushing w35 to w37 at once, read as w38-w37)."""
        for closed, by_done in ((self._done_at, True), (self._word_at(), False)):
            if closed is None:
                continue
            flips = self.ev.flips
            if all(f.began <= closed + EPS for f in flips[:k]):
                continue
            kd = sum(1 for f in flips if f.began <= closed + EPS)
            for j in range(1, min(kd, k - 1) + 1):
                for d in self.step.complete(self.ev, j):
                    if d is c or not self._allowed(d):
                        continue
                    if by_done and not (d.touched < c.touched and could_grow(self.game, d)):
                        continue
                    if not by_done and not d.ends:
                        continue
                    _, whole, declared = self._next_step(d, j)
                    if whole or declared:
                        return True
        return False

    def _word_at(self) -> float | None:
        """When the next player first said a word for their own turn during this step (None: not
        yet).  They speak once they see the rival's action over ("Every word belongs to the turn
        its speaker meant", docs/referee.md)."""
        t0 = self._step_t0
        return min((w.at for w in self.words[other(self.step.player)] if w.at >= t0), default=None)

    def _decide(self, now: float, out: list) -> bool:
        """Read the evidence once; True if an action was committed (then read again)."""
        if self.state is Phase.HUB:
            return False  # waiting for the hub (a Time announced as a step began): nothing is read
        step, ev = self.step, self.ev
        n = len(ev)
        if step.player not in self.reads:
            self._unread(n, out)  # remote play: this side's actions are played elsewhere
            return False
        if n and self.oracle is not None and self.current.flash is None:
            # remote play: a flash under way whose defender the mover does not know: the hub first
            hub = self._hub_flash(n, out)
            if hub is not None:
                return hub and self._decide(now, out)
        if n == 0:
            if self.state is Phase.TIME:
                self._time_update(out)
            if not self.deb.pending and self.current.question is None and step.can_pass and not step.pass_only:
                self._ask([step.of(PASS)], 0, wording.ASK_PASS, "pass", out)
            self._clear_waiting(out)
            return False
        pool = self.current.flash.group if self.current.flash is not None else None
        blocking = self._blocking()

        # Every action complete somewhere in the evidence, with how much it leaves unexplained
        # (towers lifted and put back that it does not touch).
        options: list[tuple[tuple, int, Candidate]] = []
        # Actions the whole evidence may still be on the way to: an action complete earlier that one
        # of them contains is only its first part (a Time tower lifted on the way to a Memory Swap).
        rem, add = ev.change()
        moved = rem | add
        now_full, touched = ev.board(), ev.touched()
        ahead = [c for c in (pool if pool is not None else step.cands)
                 if moved <= c.touched and ev.could_be_under_way(c.effect.carries)
                 and not (c.emptied & now_full & touched) and not ((c.filled & touched) - now_full)]
        whole_now = step.complete(ev, n)  # (readings of the whole evidence: not merely ahead)
        hurried: list[tuple[int, Candidate]] = []  # complete earlier, but touched again before they rested
        held: list[tuple] = []  # scores of readings that may still turn out right (a Gravity still open)
        for k in range(n, 0, -1):
            comp = step.complete(ev, k)
            if pool is not None:
                comp = [c for c in comp if c in pool]
            if not comp:
                continue
            back = ev.lifted_and_back(k) | ev.rested_in_passing(k, self.quiet)
            for c in comp:
                if c.action in self._declined:
                    continue
                # towers it leaves unexplained, then a reading after which the next player does what
                # they declared, then the longest
                declared = k < n and self._declared_next(c, k)
                score = (len(back - c.touched), not declared, -k)
                if k < n and (any(d is not c and c.touched < d.touched for d in ahead)
                              or could_grow(self.game, c) and self._over(c, k, n) is None):
                    if (declared and not self._next_step(c, k)[1]
                            and not any(d is not c and c.touched < d.touched and d not in whole_now for d in ahead)
                            and self._later(ev.flips[-1].at + self.multi_settle)):
                        # The rest would be the next player's declared action, had they gone on (a
                        # Time said before the mover began, its push looking like the Gravity's next
                        # Void); the board has rested ``multi_settle`` with it unfinished: the longer
                        # reading is the mover's, at the time it would be without the word, so that
                        # neither the wait nor the reading tells anyone of the word.
                        continue
                    held.append(score)
                    continue
                if k < n and not declared and self.ev.disturbed_after(k, c.touched, self.quiet):
                    hurried.append((k, c))
                    if not self._next_step(c, k)[1]:
                        continue
                    # Touched again at once, by what is in full an action of the next step (a rival
                    # lifting the tower as its landing still bounced, to flash it): a reading as any
                    # other, so that it is not passed over for a longer one that leaves their towers
                    # unexplained (soak trace classic-heavy-move-misread).
                if k < n and not self._next_step(c, k)[0]:
                    continue  # what came after is no beginning of the next step (a move taken back)
                if self._grew_after_done(c, k):
                    continue  # the mover said done before it grew: what came after is the rival's
                options.append((score, k, c))
        if options:
            best = min(o[0] for o in options)
            if held and min(held) < best:
                # A better reading is still open (the first Void of a Gravity, the rival pushing it
                # next): never commit a worse one meanwhile.
                self._nothing_fits(n, blocking, out, forget=False)
                return False
            k = -best[-1]
            here = [c for score, kk, c in options if score == best]
            return self._decide_at(k, n, here, blocking, out)

        # Nothing complete.  A flash under way?
        if pool is None and self._flash_seen(n, blocking, out):
            return False
        # A rival who did not wait even a moment (a Time rewind lifting the tower just put down):
        # an action touched again before its spaces rested is read only if what came after is,
        # in full, an action of the next step.
        if not blocking and self._later(ev.flips[-1].at + self.quiet):
            for k in sorted({k for k, _ in hurried}, reverse=True):
                fit = [c for kk, c in hurried if kk == k and self._hurried_fits(c, k)]
                if fit:
                    # committed only as the mover's words allow, as any other reading: a
                    # Reinforcement's piece comes only from the mover's own word (soak trace
                    # classic-heavy-reinforce-wrong-piece: the rival's flash 0.1 s after the reflector
                    # landed had committed the plainest piece, an Artificial Light)
                    return self._decide_at(k, n, fit, blocking, out)
        self._nothing_fits(n, blocking, out, forget=not (hurried or held))
        return False

    def _hurried_fits(self, c: Candidate, k: int) -> bool:
        """Is ``c``, complete at ``k`` and touched again before it rested, followed by the next step's
        action (in full, or the next player picking up the tower it just put down)?"""
        begun, whole, _ = self._next_step(c, k)
        return whole or begun and self._picked_up_again(c, k)

    def _picked_up_again(self, c: Candidate, k: int) -> bool:
        """Was the first change on ``c``'s spaces after the first ``k`` flips a lift of a tower ``c``
        had just put down (stably), and nothing else of ``c``'s touched?  The next player lifting
        the tower a quarter of a second after it landed: the placement stays seen."""
        board = self.game.state.board
        mover = self.step.player
        if self.current.flash is not None:  # an announced flash's outcome: whatever it put down
            carried_to = {b for _, b in c.effect.carries} | (self.ev.board(k) - self.step.base)
        else:  # else only a rival's tower the action put down (a Time rewind, a push)
            carried_to = {b for a, b in c.effect.carries
                          if board[a] != EMPTY and self.game.owner[board[a]] != mover}
        after = [f for f in self.ev.flips[k:] if f.space in c.touched]
        return bool(after) and not after[0].on and after[0].space in carried_to and all(
            f.space in carried_to for f in after)

    def _next_step(self, c: Candidate, k: int) -> tuple[bool, bool, bool]:
        """Would the flips after the first ``k`` be, after ``c``, (the beginning of, a whole) action
        of the next step?  Asked only of readings that end before the evidence does."""
        key = (k, c.action, len(self.ev))
        hit = self._after_cache.get(key)
        if hit is not None:
            return hit
        game = self.game
        if c.ends and other(game.to_move) not in self.reads:
            # remote play: the next player plays elsewhere; nothing on this board is their action
            self._after_cache[key] = (False, False, False)
            return False, False, False
        game.push(c.action, trusted=True)  # one of this state's legal actions: pop gives them back
        try:
            nxt = Step(game)
            rest = Evidence(nxt.base, self.ev.flips[k:])
            rem, add = rest.change()
            moved = rem | add
            words = self.words[nxt.player]
            on_way = [d for d in nxt.cands if moved <= d.touched and rest.causal(d.effect.carries)]
            begun = bool(on_way)
            if not begun and not c.ends and len(rest) > 1:
                # The rest of this player's turn and then the rival's beginning (a Memory Swap, the
                # move after it, the rival's first lift): a whole action of this player's first.
                begun = any(d.word is None or any(w.fits(d.action, d.word) for w in words)
                            for j in range(1, len(rest)) for d in nxt.complete(rest, j))
            whole = bool(on_way) and any(d.word is None or any(w.fits(d.action, d.word) for w in words)
                                  for d in nxt.complete(rest, len(rest)))
            # ... and on its way to an action the next player declared before it began (their Time
            # rewinding this very action at once)?
            first = rest.flips[0].began if len(rest) else INF
            touched = rest.touched()
            declared = begun and c.ends and any(
                d.word is not None and touched <= d.touched and any(w.kind != "choose" and w.at <= first and w.fits(d.action, d.word)
                                           for w in words) for d in on_way)
        finally:
            game.pop()
        self._after_cache[key] = (begun, whole, declared)
        return begun, whole, declared

    def _declared_next(self, c: Candidate, k: int) -> bool:
        return self._next_step(c, k)[2]

    def _decide_at(self, k: int, n: int, here: list[Candidate], blocking: set[int], out: list) -> bool:
        step = self.step
        allowed = [c for c in here if self._allowed(c)]
        if not allowed:
            # The board shows an action that needs the mover's word: wait for it, then ask.
            needing = [c for c in here if c.word is not None]
            if not needing:
                return False
            rested = self._rested(needing[0], k, len(self.ev), blocking)
            # Towers only lifted (a failing Time's tower off the board): more may come, a slow hand
            # may be carrying one, so ask only if it lasts.
            wait = self.hold if all(c.emptied and not c.filled for c in needing) else self.word_wait
            if rested is None or not self._later(max(rested, self.ev.flips[k - 1].at + wait)):
                return False
            self._ask_word(needing, k, out)
            return False
        classes = step.classes(allowed)
        chosen = self._chosen()
        if len(classes) > 1 and chosen:
            picked = [g for g in classes if any(c.action in chosen for c in g)]
            if len(picked) == 1:
                classes = picked
        if len(classes) > 1:
            # Different games: ask, privately -- at the very moment one reading alone would have been
            # committed, so that a mover who answers at once changes nothing the others see.
            rests = [self._rested(g[0], k, len(self.ev), blocking) for g in classes]
            if None not in rests and self._later(max(rests)):
                self._ask([g[0] for g in classes], k, self._question_text(classes), "choose", out)
            return False
        group = classes[0]
        c = next((c for c in group if c.action in chosen), group[0])
        rested = self._rested(c, k, len(self.ev), blocking)
        if rested is None or not self._later(rested):
            return False
        if self._time_half_done(c, k):
            return False
        over = self._over(c, k, len(self.ev))
        if over is None or not self._later(over):
            return False
        if self._flash_needs_hub(group):
            # played faster than it could be announced: its outcome is still the hub's to say
            return self._consult("flash", self._flash_group(c), out) and self._decide(self.now, out)
        self._commit_now(c, k, out)
        return True

    def _ask_word(self, needing: list[Candidate], k: int, out: list) -> None:
        """The board shows an action that needs the mover's word, and it did not come: ask for it."""
        words = {c.word for c in needing}
        options = [g[0] for g in self.step.classes(needing)]
        if words == {"swap"}:
            self._ask(options, k, wording.ASK_SWAP, "swap", out)
        elif words <= {"reinforce", "resurrect"}:
            self._ask(options, k, wording.ASK_WHICH_TOWER, "word", out)
        else:
            self._ask(options, k, wording.ASK_WHICH, "word", out)

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

    def _question_text(self, classes: list[list[Candidate]]) -> str:
        if all(g[0].flash is not None for g in classes):
            return wording.ASK_FLASH
        return wording.ASK_SEVERAL

    def _flash_seen(self, n: int, blocking: set[int], out: list) -> bool:
        """The mover's tower left its space and a rival tower it may flash was touched, nothing else
        changed: announce the flash (both towers are revealed) and what to do.  True if one is under way."""
        step, ev = self.step, self.ev
        rem, add = ev.change()
        if add or not rem:
            return False
        touched = ev.touched()
        pairs = []
        for f in rem:
            for t in touched:
                group = [c for c in step.flashes.get((f, t), ()) if self._allowed(c)]
                if group and rem <= {f, t}:
                    pairs.append(group)
        if not pairs:
            return False
        spaces = set().union(*({g[0].flash.frm, g[0].flash.at} for g in pairs))
        if spaces & blocking:
            return True
        since = self.deb.since
        if not self._later(max(since.get(s, -INF) for s in spaces) + self.quiet):
            return True
        if len(pairs) > 1:
            chosen = self._chosen()
            picked = [g for g in pairs if any(c.action in chosen for c in g)]
            if len(picked) != 1:  # asked when one flash alone would have been announced
                self._ask([g[0] for g in pairs], n, wording.ASK_FLASH, "choose", out)
                return True
            pairs = picked
        group = sorted(pairs[0], key=plain)
        if self._flash_needs_hub(group):
            if not self._consult("flash", [c.action for c in group], out):
                return True  # waiting for the hub
            return self._flash_seen(n, self._blocking(), out)  # the same flash, its true outcome
        self._start_flash(group, out)
        return True

    def _nothing_fits(self, n: int, blocking: set[int], out: list, forget: bool = True) -> None:
        step, ev = self.step, self.ev
        S = ev.board()
        B = step.base
        mover = step.player
        if self.current.question is not None and self.current.question.kind != "pass":
            # The question's board is gone: put back (the question lapses), or the board moved on.
            if S == B:
                self._drop_asked(out, wording.LAPSED_BACK)
            return
        if blocking:
            return
        last = ev.flips[-1].at
        if self.state is Phase.TIME:
            self._time_update(out, last)  # what is left of the announced Time, as the board stands
            return
        if S == B:
            # Towers lifted and put back, explaining nothing: not an action; forget those touches
            # (unless the mover declared something: then they may be its first part).
            # Kept while an action was complete in it: the rival may be undoing it (a Time rewind).
            if forget and self.words[mover] and self._later(last + self.settle):
                self._judge_words(out, wait=False)
            if forget and not self.words[mover] and self.state is not Phase.TIME and self._later(last + self.quiet):
                self._cut(n, B)
                self._clear_waiting(out)
            return
        if self.state is Phase.FLASH:
            if self._later(last + self.settle):
                todo = corrections(S, self.current.flash.result)
                self.public_instructions = todo
                self._say(out, PUBLIC, "instruction", {"for": "flash", "at": N[self.current.flash.flash.at],
                                                        "instructions": todo, "text": say_list(todo)})
            return
        rem, add = ev.change()
        on_the_way = step.on_the_way(ev, self._allowed)
        if on_the_way and self.words[mover]:
            self._clear_waiting(out)  # a declared action under way: never nag
            return
        if (not add or on_the_way) and not self._later(last + self.hold):
            self._clear_waiting(out)
            return
        if self._later(last + self.settle):
            self._tell_mismatch(S, B, rem, add, out)

    def _judge_words(self, out: list, wait: bool) -> None:
        """Refuse, privately with the engine's reason and naming the input, each of the mover's words
        that no action of this step can use.  With ``wait``, one that the board may still make
        possible (it shows something not read yet: the Time tower just resurrected) waits for the
        rest of the turn instead.  Without it (the board back as the step began and settled, so
        nothing on it is unread), it is refused now, never waited for for good (soak trace
        classic-heavy-gateway-placement-stuck: a Time refused after this turn's Resurrection filled
        the space its rewind needs; the player swapped the Time tower for a reflector on its
        Gateway and said "reinforce": the Gateway was never empty)."""
        mover = self.step.player
        kept = []
        for w in self.words[mover]:
            reason = why_not(self.step, w)
            if reason and not (wait and len(self.ev) and w.kind != "choose"):
                self.rejected[mover] = reason
                out.append(Notice(mover, "rejected", {"input": w.to_json(), "reason": reason}))
            else:
                kept.append(w)
        self.words[mover] = kept

    # --- questions -------------------------------------------------------------------------------

    def _ask(self, cands: list[Candidate], k: int, text: str, kind: str, out: list) -> None:
        """A private question to the mover about the first ``k`` flips."""
        options = tuple(c.action for c in cands)
        asked = self.current.question
        if asked is not None and asked.k == k and set(options) <= set(asked.options):
            return  # asked already (the board may have ruled out some of its options since)
        q = Question(self.step.player, options, text, k, kind, self.ev.board(k))
        if kind != "pass":
            self._go(Event.ASK, Asking(q, self.current.time))
        else:  # an offer: nothing waits for its answer
            self._go(Event.OFFER_PASS, replace(self.current, question=q))
        self._say(out, self.step.player, "question", status.question_json(q))

    def _drop_asked(self, out: list, text: str) -> None:
        player = self.current.question.player
        if self.state is Phase.ASKED:
            self._go(Event.LAPSE, waiting(self.current.time))  # back to the announced Time, if one is pending
        else:  # the offer to pass
            self._go(Event.LAPSE, replace(self.current, question=None))
        self._said[(player, "question")] = None
        out.append(Notice(player, "question", {"options": [], "text": text}))

    # --- flashes and Time ------------------------------------------------------------------------

    def _start_flash(self, group: list[Candidate], out: list) -> None:
        first = group[0]
        fl = first.flash
        mover = self.step.player
        result = first.result(self.step.base)
        if self.current.question is not None:
            self._drop_asked(out, wording.LAPSED)
        held = FlashHeld(self.game.turn, mover, tuple(group), result)
        self._go(Event.FLASH_SEEN, Flashing(held))
        # What the mover alone was told while their tower was held by itself ("put your tower back
        # on w13") is stale now: the flash's own steps say what to do, the same on every screen.
        self.rejected[mover] = None
        self._clear_waiting(out)
        todo = corrections(self.ev.board(), result)
        self.public_instructions = todo
        out.append(Notice(PUBLIC, "flash", dict(status.held_json(held), instructions=todo)))
        self._said[(PUBLIC, "instruction")] = None
        self._say(out, PUBLIC, "instruction", {"for": "flash", "at": N[fl.at], "instructions": todo,
                                                "text": say_list(todo)})

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

    # --- committing ------------------------------------------------------------------------------

    def _commit_now(self, c: Candidate, k: int, out: list) -> None:
        """Commit ``c``, shown by the first ``k`` flips; the flips after them begin the next step."""
        game = self.game
        step = self.step
        player = step.player
        turn = game.turn
        action = c.action
        if c.flash is not None and self.current.flash is None:
            # Played faster than it could be announced: the reveal is still public news.
            out.append(Notice(PUBLIC, "flash", dict(status.flash_json(turn, player, c.flash), instructions=[])))
        rest = self.ev.flips[k:]
        seen = action_seen_by(game, action, player, None)
        n_events = len(game.events)
        bucket = step.index.get((c.emptied, c.filled), [c])
        same = {action} | ({b.action for b in bucket if step.key(b.action) == step.key(action)}
                           if len(bucket) > 1 else set())
        game.push(action)
        if self.on_commit is not None:
            try:
                self.on_commit(turn, player, action)
            except BaseException:
                game.pop()
                raise
        if self.stats is not None:
            since = self.deb.since
            last = max((since.get(s, -INF) for s in c.touched), default=self.now)
            self.stats["latency"].append(self.now - last if last > -INF else 0.0)
            self.stats["kinds"].append(_kind_name(c))
        self.rejected[player] = None
        self.last_commit[player] = self.now
        if self._last_turn.get(player) == turn:
            same |= self._last_same[player]  # every action of the turn counts as one just played
        self._last_turn[player] = turn
        self._last_same[player] = same
        self._use_words(player, c)
        out.append(Notice(PUBLIC, "committed", {"turn": turn, "player": player, "action": seen}))
        out.append(Notice(player, "committed", {"turn": turn, "player": player, "action": action.to_record()}))
        for event in game.events[n_events:]:
            if isinstance(event, TimeEvent):
                out.append(Notice(PUBLIC, "time", {"turn": turn, "player": player, "outcome": event.outcome,
                                                   "done": True}))
        time = self.current.time
        if type(action) is Time or c.ends:
            time = None  # the announced Time is played, or the turn is over: it is no longer pending
        read_until = max((f.settled for f in self.ev.flips[:k]), default=-INF)
        self._new_step(Evidence(game.occupied(), rest), read_until)
        if game.result is not None:
            self._go(Event.GAME_OVER, Over(time))
            out.append(Notice(PUBLIC, "result", game.result.to_json()))
            return
        self._go(Event.STEP, waiting(time))
        self._begin_step(out)

    def _use_words(self, player: str, c: Candidate) -> None:
        """The words ``c`` used are spent (a ``choose`` naming it, one declaration of its kind); at the
        end of a turn every word left is stale."""
        words = self.words[player]
        if c.ends:
            words.clear()
            words.extend(self._next_words[player])  # said for the next turn once the rival had begun
            self._next_words[player] = []
            return
        same = self._last_same[player]
        chosen = [w for w in words if w.kind == "choose" and w.action in same]
        declared = next((w for w in words if c.word is not None and w.kind != "choose" and w.fits(c.action, c.word)),
                        None)
        for w in chosen[:1] + ([declared] if declared is not None else []):
            words.remove(w)

    def _begin_step(self, out: list) -> None:
        step = self.step
        if step.player not in self.reads:
            self._dirty = True  # played elsewhere: nothing is read or committed for this side
            return
        if step.pass_only:
            self._commit_now(step.of(PASS), 0, out)
            return
        mover = step.player
        # Words the mover gave early (while the rival's turn was still settling) count now.
        self._judge_words(out, wait=True)
        if self.current.time is None and any(w.kind == "time" and not why_not(self.step, w) for w in self.words[mover]):
            self._announce_time(out)
        self._dirty = True

    # --- remote play: the hub, a game with more known, the rival's actions played elsewhere ---------

    def replace_game(self, game: Game) -> list[Notice]:
        """The same position and mover with more identities known (the hub's answer, a refreshed
        stand-in): the referee goes on with the same evidence, its step's candidates rebuilt from
        ``game``.  ValueError (nothing changed) if the occupancy or the mover differs."""
        old = self.game
        if game.occupied() != old.occupied():
            differ = sorted(N[s] for s in game.occupied() ^ old.occupied())
            raise ValueError(f"replace_game: the position differs on {', '.join(differ)}")
        if game.to_move != old.to_move or game.is_over() != old.is_over():
            raise ValueError(f"replace_game: {game.to_move} to move, not {old.to_move}")
        self.game = game
        if self.step is not None:
            self.step = Step(game)  # the same evidence: its flips are kept as they are
            self._after_cache = {}
        cur = self.current
        if cur.phase is not Phase.OVER:
            new = cur
            if cur.flash is not None:  # the flash held: its candidates (and outcome) from the new game
                group = tuple(self.step.of(c.action) for c in cur.flash.group)
                new = Flashing(replace(cur.flash, group=group, result=group[0].result(self.step.base)))
            self._go(Event.REPLACED, new)
        self._dirty = True
        return []

    def follow(self, game: Game, plan: dict) -> list[Notice]:
        """An action of a side this board does not read was played elsewhere: ``game`` is the
        position after it, ``plan`` the public plan (``do``, ``lift``, ``place``, ``text``, as
        ``host.opponent.driver.plan_of`` makes it).  The plan is told to everyone; the referee goes
        on from ``game`` once every space in ``plan["lift"]`` was seen lifted and the board shows
        ``game``'s occupancy.  Called again before that (the rival played several actions), the
        newest position is the one expected.  ValueError (nothing changed) on a malformed plan or
        when this board reads the side to move."""
        mover = self.game.to_move
        if self.state is Phase.OVER:
            raise ValueError("follow: the game is over")
        if mover in self.reads:
            raise ValueError(f"follow: it is {mover}'s turn, and this board reads {mover}'s actions")
        if not isinstance(plan, dict) or not isinstance(plan.get("text"), str):
            raise ValueError("follow: plan must be a dict with a text")
        spaces = {}
        for field in ("lift", "place"):
            names = plan.get(field, [])
            if not isinstance(names, list):
                raise ValueError(f"follow: plan.{field} must be a list of spaces")
            try:
                spaces[field] = frozenset(S_(x) for x in names)
            except (ValueError, TypeError, KeyError) as exc:
                raise ValueError(f"follow: plan.{field}: {exc}") from None
        out: list[Notice] = []
        cur = self.current
        before = cur.follow.expected if cur.phase is Phase.FOLLOW else self.game.occupied()
        turn = self.game.turn
        self.game = game
        if cur.phase in (Phase.SETUP, Phase.SYNC):
            # the board is still being set: it is set to the newest position
            self._go(Event.FOLLOW, cur)
            self._new_step()
        else:
            stable = self.deb.stable
            # a tower already off its space now counts as lifted; a space that held no tower before
            # this plan (a tower an earlier plan of the turn brought in) is not waited for
            lifts = frozenset(s for s in spaces["lift"] if s in before and s in stable)
            touched = spaces["lift"] | spaces["place"]
            if cur.phase is Phase.FOLLOW:
                f = cur.follow
                lifts = (f.lifts & before) | lifts
                held = FollowPlan(dict(plan), game.occupied(), lifts, f.since, f.changed, f.player, f.turn,
                                  spaces=f.spaces | touched)
            else:
                held = FollowPlan(dict(plan), game.occupied(), lifts, self.now, player=mover, turn=turn, spaces=touched)
            self._go(Event.FOLLOW, Following(held))
        self._said[(PUBLIC, "instruction")] = None
        self._say_plan(plan, out)
        self._dirty = True
        if self.seen_snapshot:
            self._evaluate(self.now, out)
        return out

    def _say_plan(self, plan: dict, out: list) -> None:
        """The plan is what the board needs: said to everyone (once; again after a correction)."""
        instruction = dict(plan)
        instruction.setdefault("do", "follow")
        self.public_instructions = [instruction]
        self._say(out, PUBLIC, "instruction", {"for": "follow", "plan": dict(plan),
                                                "instructions": [instruction], "text": plan["text"]})

    def _follow_read(self, flipped: frozenset[int]) -> None:
        """Flips while a plan is carried out: a lift it needs is seen; the board changed."""
        f = self.current.follow
        lifted = {s for s in flipped if s not in self.deb.stable}
        self._go(Event.FOLLOW_READ, Following(replace(f, lifts=f.lifts - lifted, changed=True)))

    def _evaluate_follow(self, now: float, out: list) -> None:
        f = self.current.follow
        deb = self.deb
        deb.expect = f.lifts  # a lift the plan needs counts on the shorter reading
        S = deb.stable
        if S == f.expected and not f.lifts and f.matched is None:
            # the board shows the plan done (whatever else is still settling): what comes after is
            # the next step's
            f = replace(f, matched=len(self.ev))
            self._go(Event.FOLLOW_READ, Following(f))
        if deb.pending:
            return
        if S == f.expected and not f.lifts:
            if not self._later(max(deb.last_change, f.since) + self.quiet):
                return
            self._followed(now, out)
            return
        if f.matched is not None and not f.lifts and self.ev.board(f.matched) == f.expected:
            # The board showed the plan done, then changed before it was quiet: a brisk hand lifting
            # its own tower at once (0.14 s after placing the rival's).  The plan was done; what
            # followed is the evidence of the next step, as at one table a turn's flips after the
            # action read are the next turn's.
            self._followed(now, out, self.ev.rest(f.matched, f.expected))
            return
        if not f.changed or S == f.expected:
            return
        if not (S - f.expected) and (f.expected - S) <= f.spaces:
            # on the way: towers lifted as the plans say and not yet put down (a swap's, a flash's,
            # a move's): the plans themselves say what comes next; no correction
            self._say_plan(f.plan, out)
            return
        if self._later(deb.last_change + self.settle):
            todo = corrections(S, f.expected)
            self.public_instructions = todo
            self._say(out, PUBLIC, "instruction", {"for": "follow", "plan": dict(f.plan), "instructions": todo,
                                                    "text": wording.follow_fix(say_list(todo))})

    def _followed(self, now: float, out: list, evidence: Evidence | None = None) -> None:
        """The board shows the rival's action: the game goes on from its position (``evidence``: the
        flips since the board showed it, the beginning of the next step)."""
        game = self.game
        self.public_instructions = []
        self._new_step(evidence)
        if game.is_over():
            self._go(Event.GAME_OVER, Over())
            out.append(Notice(PUBLIC, "result", game.result.to_json()))
            return
        self._go(Event.FOLLOWED, Playing())
        out.append(Notice(PUBLIC, "instruction", {"for": "follow", "done": True, "instructions": [],
                                                  "text": wording.followed(game.to_move)}))
        self._begin_step(out)
        self._evaluate(now, out)

    def _unread(self, n: int, out: list) -> None:
        """The turn of a side this board does not read, before the plan of its action comes: a board
        change is a board that fits nothing; after ``settle``, corrections to everyone (they are the
        rival's towers, or a tower knocked over)."""
        step, ev = self.step, self.ev
        if not n or self.deb.pending:
            return
        S, B = ev.board(), step.base
        last = ev.flips[-1].at
        if S == B:
            if self._later(last + self.quiet):
                self._cut(n, B)
                if self._said.get((PUBLIC, "instruction")) not in (None, "back"):
                    self.public_instructions = []
                    self._said[(PUBLIC, "instruction")] = "back"
                    out.append(Notice(PUBLIC, "instruction", {"for": "board", "instructions": [],
                                                              "text": wording.AS_IT_WAS}))
            return
        if self._later(last + self.settle):
            todo = corrections(S, B)
            self.public_instructions = todo
            self._say(out, PUBLIC, "instruction", {"for": "board", "instructions": todo,
                                                    "text": wording.board_back(say_list(todo))})

    def _flash_needs_hub(self, group: list[Candidate]) -> bool:
        """Must the hub say this flash's outcome?  Only in remote play, for a player this board reads,
        when the defender is a tower the mover does not know, and not answered already."""
        if self.oracle is None or not group:
            return False
        game = self.game
        mover = game.to_move
        flashes = [c for c in group if c.flash is not None]
        if mover not in self.reads or not flashes:
            return False
        if ("flash", flashes[0].flash.at) in self._answered:
            return False
        defender = game.state.board[flashes[0].flash.at]
        return defender != EMPTY and not knows(game, mover, defender)

    def _flash_group(self, c: Candidate) -> list[Action]:
        """The flash actions the flash ``c`` may be (every allowed one from its tower onto its target)."""
        group = [d for d in self.step.flashes.get((c.flash.frm, c.flash.at), ()) if self._allowed(d)]
        return [d.action for d in sorted(group or [c], key=plain)]

    def _time_needs_hub(self) -> bool:
        """Must the hub say the Classic Time's outcome?  When the rival's last action moved a tower
        of theirs the mover does not know (it could be a Shadow)."""
        game = self.game
        mover = game.to_move
        if self.oracle is None or game.third_eye or mover not in self.reads:
            return False
        if ("time", game.turn) in self._answered:
            return False
        last = game.state.last_action
        if last is None:
            return False
        return any(a != b and game.owner[t] != mover and not knows(game, mover, t) for t, a, b in last.moved)

    def _hub_flash(self, n: int, out: list) -> bool | None:
        """A flash by the mover whose defender they do not know, under way or done on the board,
        whatever its outcome turns out to be (the stand-in's may be wrong): the mover's tower was
        lifted, a rival tower it may flash was lifted, nothing else changed.  Asked of the hub once
        its spaces rested.  None: no such flash; True: answered (read again); False: waiting."""
        step, ev = self.step, self.ev
        rem, add = ev.change()
        if add or self.state is Phase.TIME:
            return None
        touched = ev.touched()
        pairs = []
        for (f, t), group in step.flashes.items():
            if f in touched and t in touched and rem <= {f, t}:
                group = [c for c in group if self._allowed(c) and c.action not in self._declined]
                if group and self._flash_needs_hub(group):
                    pairs.append(group)
        if len(pairs) != 1:
            return None  # none, or several: which one is asked first (as at one table)
        group = pairs[0]
        if not rem and any(c.flash is None and self._allowed(c) for c in step.complete(ev, n)):
            return None  # both towers back: a Memory Swap, not a flash
        spaces = set().union(*(c.touched for c in group))
        if spaces & self._blocking() or not self._later(max(self.deb.since.get(s, -INF) for s in spaces) + self.quiet):
            return False
        return self._consult("flash", [c.action for c in sorted(group, key=plain)], out)

    def _consult(self, kind: str, actions: list[Action], out: list) -> bool:
        """Ask the hub (``oracle.flash`` or ``oracle.time``).  True if it answered (the game is
        replaced); else the referee waits in ``Consulting``, says so once, and asks again at every
        tick and snapshot."""
        if self.state is not Phase.HUB:
            self._go(Event.CONSULT, Consulting(Consult(kind, tuple(actions)), self.current))
        if self._hub_answer(out, announce=False):
            return True
        out.append(Notice(PUBLIC, "waiting", {"for": "hub", "text": wording.WAITING_FOR_HUB}))  # said once
        return False

    def _hub_answer(self, out: list, announce: bool = True) -> bool:
        """Ask the hub again; True once it answered (the game replaced, back where the referee was)."""
        consult = self.current.consult
        ask = self.oracle.flash if consult.kind == "flash" else self.oracle.time
        answer = ask(list(consult.actions)) if consult.kind == "flash" else ask(consult.actions[0])
        if answer is None:
            return False
        self.replace_game(answer)
        if consult.kind == "flash":
            self._answered.add(("flash", self.game.board_effect(consult.actions[0]).flash.at))
        else:
            self._answered.add(("time", self.game.turn))
        self._go(Event.ANSWERED, self.current.back)
        if consult.kind == "time" and announce and self.current.time is None:
            self._announce_time(out)
        return True

    # --- sync, mismatch, text --------------------------------------------------------------------

    def _evaluate_sync(self, now: float, out: list) -> None:
        want = self.game.occupied()
        S = self.deb.stable
        last = self.deb.last_change
        if S == want and not self.deb.pending:
            if self._later(last + self.quiet):
                self._go(Event.BOARD_SET, Playing())
                self.public_instructions = []
                self._new_step()
                game = self.game
                out.append(Notice(PUBLIC, "started", {"turn": game.turn, "to_move": game.to_move,
                                                      "text": wording.started(game.to_move)}))
                self._begin_step(out)
                self._evaluate(now, out)
            return
        if self._later(last + self.settle):
            todo = corrections(S, want)
            self.public_instructions = todo
            self._say(out, PUBLIC, "instruction", {"for": self.state.value, "instructions": todo,
                                                    "text": wording.setup_text(self.state.value, say_list(todo))})

    def _clear_waiting(self, out: list) -> None:
        player = self.step.player
        if self.private_instructions[player]:
            self.private_instructions[player] = []
            self._say(out, player, "waiting", {"instructions": [], "text": wording.AS_IT_WAS})

    def _tell_mismatch(self, S, B, rem, add, out: list) -> None:
        """Nothing legal fits: tell the mover (only) what differs and what would put it right."""
        from engine.actions import Move

        game = self.game
        step = self.step
        mover = step.player
        best, best_d = B, len(S ^ B)
        for c in step.cands:
            if c.flash is not None or not self._allowed(c):
                continue
            R = c.result(B)
            d = len(S ^ R)
            if d < best_d:
                best, best_d = R, d
        reason = None
        board = game.state.board
        touched = self.ev.touched()
        if len(rem) == 1 and len(add) == 1:
            (f,), (t,) = tuple(rem), tuple(add)
            tower = board[f]
            if tower != EMPTY and game.owner[tower] == mover:
                reason = f"move {N[f]}-{N[t]} {game.why_illegal(Move(f, t))}"
        elif len(rem) == 1 and not add:
            (f,) = tuple(rem)
            tower = board[f]
            hit = [t for t in touched if t != f and board[t] != EMPTY and game.owner[board[t]] != mover]
            if tower != EMPTY and game.owner[tower] == mover and len(hit) == 1:
                reason = f"move {N[f]}-{N[hit[0]]} {game.why_illegal(Move(f, hit[0]))}"
        todo = corrections(S, best)
        self.private_instructions[mover] = todo
        self.rejected[mover] = reason
        text = wording.mismatch(reason, say_list(todo), best == B)
        self._say(out, mover, "waiting", {"instructions": todo, "reason": reason, "text": text},
                  sig=(S, tuple(sorted(touched))))
        if reason:
            self._say(out, mover, "rejected", {"reason": reason}, sig=(S, reason))


def _kind_name(c: Candidate) -> str:
    name = type(c.action).__name__.lower()
    if c.flash is not None:
        return "flash"
    return name


__all__ = ["Referee", "Phase", "Event", "TRANSITIONS"]
