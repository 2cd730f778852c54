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
from engine.board import PLAYERS
from engine.game import EMPTY, Game, TimeEvent
from engine.views import action_seen_by
from host.board.sensing import Snapshot
from host.referee.debounce import BURST_GAP, EPS, Debouncer

from . import status, wording
from .corrections import corrections, say_list
from .evidence import Evidence, Flip
from .following import RemoteFollowing
from .inputs import Word, check_input, parse_word, why_not
from .matching import Candidate, Step
from .notices import PUBLIC, InputError, Notice
from .reading import Reading
from .states import (TRANSITIONS, Asking, Event, FlashHeld, Flashing, Over, Phase, Playing, Question, Setup, State,
                     Sync, change, waiting)
from .time_plan import TimePlanning
from .windows import INF, N
from .words import Words


class Referee(Reading, Words, TimePlanning, RemoteFollowing):
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
        self.completed_at: float | None = None  # when the last action committed was completed on the board
        self._changed: dict[tuple, float] = {}  # (turn, player) -> that turn's last change committed
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
        self._racing: frozenset[int] = frozenset()  # spaces a declaration being judged was said during
        self._next_words: dict[str, list[Word]] = {p: [] for p in PLAYERS}  # said for the mover's next turn
        self._step_t0 = -INF  # raw history before this is an earlier step's (set by _new_step)
        self._lifts_t0 = -INF  # where quick lifts found late may begin (set by _new_step)
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

    def view(self) -> status.View:
        """A frozen snapshot of what the status texts read (``host.referee.status``)."""
        game = self.game
        return status.View(
            phase=self.phase, current=self.current, turn=game.turn, to_move=game.to_move, over=game.is_over(),
            result=game.result.to_json() if game.result else None, occupied=game.occupied(),
            public_instructions=tuple(self.public_instructions),
            private_instructions={p: tuple(i) for p, i in self.private_instructions.items()},
            words={p: tuple(w) for p, w in self.words.items()}, rejected=dict(self.rejected),
            expected=self.expected(), stable=self.deb.stable, pending=frozenset(self.deb.pending),
            base=self.step.base if self.step is not None else None)

    def public_status(self) -> dict:
        """What anyone may see (``host.referee.status``)."""
        return status.public(self.view())

    def private_status(self, player: str) -> dict:
        """What ``player`` alone may see (``host.referee.status``)."""
        return status.private(self.view(), player)

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

    def changed_by(self, moment: float) -> bool:
        """Whether a change of the step under way settled by ``moment``: an action it belongs to may
        still be committed as completed by then (a game clock's flag waits for it)."""
        since = self.deb.since
        flips = self.ev.flips if self.ev is not None else ()
        return (any(f.settled <= moment for f in flips)
                or any(since.get(s, INF) <= moment for s in self.deb.pending))

    def stuck_reason(self) -> str:
        """What the referee is waiting for, in words (for whoever holds the whole game, e.g. the CLI)."""
        return status.stuck_reason(self.view())

    # --- inputs ----------------------------------------------------------------------------------

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
        # A quick lift found late (``_late_lifts``) may have begun once the action just committed had
        # settled, before it was committed: the new mover's hand was already on their tower (hasty
        # soak seed 720077, 88 ms before the commit).
        self._lifts_t0 = min(self._step_t0, read_until) if read_until > -INF else self._step_t0
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

    # --- committing ------------------------------------------------------------------------------

    def _commit_now(self, c: Candidate, k: int, out: list) -> None:
        """Commit ``c``, shown by the first ``k`` flips; the flips after them begin the next step."""
        game = self.game
        step = self.step
        player = step.player
        turn = game.turn
        action = c.action
        # When the action was completed on the board: the last change of the flips it is read from
        # (a word alone, such as the done that ends a Gravity: the turn's last change before it).
        # A game clock stops then, not at this commit (docs/rules.md, "Clocks").
        done = max((f.settled for f in self.ev.flips[:k]), default=-INF)
        if done == -INF:
            done = self._changed.get((turn, player), self.now)
        self.completed_at = self._changed[(turn, player)] = done
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
                reason = _why_not(game, Move(f, t))
        elif len(rem) == 1 and not add:
            (f,) = tuple(rem)
            tower = board[f]
            hit = [t for t in touched if t != f and board[t] != EMPTY and game.owner[board[t]] != mover]
            if tower != EMPTY and game.owner[tower] == mover and len(hit) == 1:
                reason = _why_not(game, Move(f, hit[0]))
        todo = corrections(S, best)
        self.private_instructions[mover] = todo
        self.rejected[mover] = reason
        text = wording.mismatch(reason, say_list(todo), best == B)
        self._say(out, mover, "waiting", {"instructions": todo, "reason": reason, "text": text},
                  sig=(S, tuple(sorted(touched))))
        if reason:
            self._say(out, mover, "rejected", {"reason": reason}, sig=(S, reason))


def _why_not(game: Game, move) -> str | None:
    """The engine's reason ``move`` is illegal, naming it; None for a legal move (the board shows
    more than it: a reason naming a legal move told the mover nothing)."""
    why = game.why_illegal(move)
    return f"move {N[move.frm]}-{N[move.to]} {why}" if why else None


def _kind_name(c: Candidate) -> str:
    name = type(c.action).__name__.lower()
    if c.flash is not None:
        return "flash"
    return name


__all__ = ["Referee", "Phase", "Event", "TRANSITIONS"]
