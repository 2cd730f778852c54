"""Reading the evidence (docs/referee.md, "From a stable board to actions"): which actions the
stable flips show complete, where each ends, whether what came after is the next step, whether
an action that could grow is over, and when to commit, ask the mover or say what differs.

A part of :class:`host.referee.machine.Referee`: a mixin that uses the referee's state; it
imports nothing of the other parts."""

from __future__ import annotations

from engine.actions import PASS, Action, Time
from engine.board import other
from engine.game import EMPTY
from host.referee.debounce import EPS

from . import wording
from .corrections import corrections, say_list
from .evidence import Evidence, Flip
from .inputs import why_not
from .matching import Candidate, Step, could_grow, maybe_void, plain
from .notices import PUBLIC, Notice
from .states import Phase
from .windows import INF, N


class Reading:
    """The best reading of the evidence, and what to do with it."""

    def _late_lifts(self, spaces: frozenset[int]) -> None:
        """A lift is now expected on ``spaces`` (the swap word came just after the towers): a quick
        lift and put-back there since the step began, which the full window missed, is evidence."""
        ev = self.ev
        seen = ev.touched()
        found = []
        for s in sorted(spaces - seen):
            q = self.deb.quick_lift(s, self._lifts_t0)
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
        if self.current.time is not None or swap or self._from_nowhere():
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

    def _from_nowhere(self) -> bool:
        """Has a tower been put down on a space empty when the step began, with no reading of the
        evidence complete and nothing still settling?  Then the lift it came from may be one the
        full window missed: the mover's tower lifted, steadily empty 148 ms, and the next player's
        tower put on that space at once (hasty soak seed 720077: White's w29-w28, Black resurrecting
        onto w29 0.23 s after White's lift began).  A quick lift there counts as where one is expected (``Debouncer.quick_lift``:
        lasting ``off_delay`` in all, which a bumped tower never does), on any of the mover's towers,
        whatever they are.  Public facts only."""
        if self.state is not Phase.PLAY or self.current.flash is not None or self.deb.pending:
            return False  # (a lift still settling: a quick move's placement flips first, 50 ms to 150)
        ev, step = self.ev, self.step
        if not any(f.on and f.space not in step.base for f in ev.flips):
            return False
        return not any(step.complete(ev, k) for k in range(1, len(ev) + 1))

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
        # (Not one the mover's own word rules out: their `reinforce` naming one Artificial Light
        # is no Reinforcement of two on its way, hasty soak seed 720081.)
        said = self.words[step.player]
        ahead = [c for c in (pool if pool is not None else step.cands)
                 if moved <= c.touched and ev.could_be_under_way(c.effect.carries)
                 and not (c.emptied & now_full & touched) and not ((c.filled & touched) - now_full)
                 and not (c.word is not None and any(w.kind == c.word for w in said)
                          and not any(w.fits(c.action, c.word) for w in said))]
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
                if c.action in self._declined or c.touched & self._racing:
                    continue
                # towers it leaves unexplained, then a reading after which the next player does what
                # they declared, then the longest
                declared = k < n and self._declared_next(c, k)
                # then a reading that uses the word the mover said for it (a turn-ending one, when
                # more came after it): their placement on the empty Gateway, said `reinforce` 9 ms
                # later, and the next player lifting another of their towers to flash it at once, is
                # the Reinforcement, not a slide onto the Gateway that leaves the word unused (hasty
                # soak seed 720136)
                own = c.word is not None and (k == n or c.ends) and any(w.fits(c.action, c.word) for w in said)
                score = (len(back - c.touched), not declared, not own, -k)
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
                    if ((not any(d is not c and c.touched < d.touched for d in ahead) or len(rem) <= len(add))
                            and self._later(ev.flips[-1].at + self.multi_settle)):
                        # A Gravity that never went on: its tower, put down, lifted again and set on
                        # another space (a slide that lingered ``quiet`` on the way), then the board
                        # still ``multi_settle``.  Held for good, the game stood with a reason that
                        # named a legal move (remote soak seed 8403); the longer reading is read.
                        # So too when a bigger Gravity could have followed but no tower is in the hand
                        # (every one lifted is down again): the stillness ended it, as it ends the
                        # whole evidence's reading (remote soak seed 9207: Black's Gravity b56-b38
                        # beside b39, named by their `choose`, then b48, which may be a Void and
                        # anchor a bigger one, bumped 0.16 s as b38 landed; held, the shorter reading
                        # stood for good against the whole one, its bump unexplained, and the game
                        # stood).
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
        # The mover's tower put down, and lifted again at once by the next player beginning an action
        # on it (their flash of it): or the mover's tower resting there a moment on the way to a flash
        # of their own.  The same flips: only the mover's answer tells them apart.
        taken = self._set_down_and_taken(hurried) if pool is None and not self._racing else []
        chosen = self._chosen() if taken else ()
        mine = [(k, c) for k, c in taken if c.action in chosen and self._allowed(c)]
        if mine:
            if not blocking and self._later(ev.flips[-1].at + self.quiet):
                k, c = mine[0]
                self._commit_now(c, k, out)  # what came after is the next player's
                return True
            return False
        if options:
            best = min(o[0] for o in options)
            if held and min(held) < best:
                # A better reading is still open (the first Void of a Gravity, the rival pushing it
                # next): never commit a worse one meanwhile.
                self._nothing_fits(n, blocking, out, forget=False)
                return False
            k = -best[-1]
            here = [c for score, kk, c in options if score == best]
            shorter = [(kk, c) for kk, c in taken if kk < k]
            if shorter and not any(c.action in chosen for c in here):
                # (a flash read through the tower's rest, its outcome now on the board): wait for the
                # board to settle it -- the next player's flash, had it been theirs, goes on
                if blocking or not self._later(ev.flips[-1].at + self.multi_settle):
                    return False
                if any(self._next_step(c, kk)[1] for kk, c in shorter):
                    self._ask([g[0] for g in self.step.classes(here)] + [c for _, c in shorter], k,
                              wording.ASK_SEVERAL, "choose", out)
                    return False
                # the board rested ``multi_settle`` with no more of it: the longer reading, as ever
            return self._decide_at(k, n, here, blocking, out)

        # Nothing complete.  A flash under way?
        if pool is None and not self._racing and self._flash_seen(n, blocking, out, taken):
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

    def _set_down_and_taken(self, hurried: list[tuple[int, Candidate]]) -> list[tuple[int, Candidate]]:
        """Readings among ``hurried`` that end the mover's turn with a tower put down last from the air
        (nothing else touched on the way: a move's, or a Memory Swap's second tower), after which that
        tower was lifted again before it rested
        ``quiet`` and then towers of the next player were lifted (whatever came after): the next
        player's flash of it, begun at once -- or the mover's tower resting a moment on the way to
        a flash of their own (the same flips).  Public: which towers are whose, never what they
        are."""
        taken = []
        board = self.game.state.board
        owner = self.game.owner
        rival = other(self.step.player)
        for k, c in hurried:
            if not c.ends or self.ev.touched(k) - c.touched:
                continue  # (over other spaces: a slide still going on, the mover's hand on it)
            if len(c.filled) == 1:
                [s] = c.filled  # a move's (its placement may flip stable before its lift does)
            else:
                # a Memory Swap's second tower (hasty seed 750005): the last put down
                ons = [f for f in self.ev.flips[:k] if f.on]
                if not ons:
                    continue
                s = ons[-1].space
            rest = self.ev.flips[k:]
            if not rest or rest[0].space != s or rest[0].on:
                continue
            lifts = []
            for f in rest[1:]:
                if f.on:
                    break  # (what the flash's outcome put down, or more)
                lifts.append(f)
            spaces = {s} | {f.space for f in lifts}
            if lifts and all(f.space != s and board[f.space] != EMPTY and owner[board[f.space]] == rival
                             for f in lifts) and all(f.space in spaces for f in rest):
                # (and nothing since on any other space: that flash's outcome is put down where its
                # two towers were, or the mover's flash went on elsewhere)
                taken.append((k, c))
        return taken

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
            # (a word said while that first change was still settling, or before the last change of
            # the rest began, counts as said before it: the next player taps as their hand lifts or
            # carries the tower, hasty seeds 720075 and 720247)
            first = max(rest.flips[0].at, rest.flips[-1].began) if len(rest) else INF
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

    def _question_text(self, classes: list[list[Candidate]]) -> str:
        if all(g[0].flash is not None for g in classes):
            return wording.ASK_FLASH
        return wording.ASK_SEVERAL

    def _flash_seen(self, n: int, blocking: set[int], out: list,
                    taken: list[tuple[int, Candidate]] = ()) -> bool:
        """The mover's tower left its space and a rival tower it may flash was touched, nothing else
        changed: announce the flash (both towers are revealed) and what to do.  True if one is under way.

        ``taken``: shorter readings that end with a tower put down that the next player lifted at
        once (``_set_down_and_taken``); while they fit, the mover is asked which they played."""
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
        if len(pairs) > 1 or taken:
            chosen = self._chosen()
            picked = [g for g in pairs if any(c.action in chosen for c in g)]
            if len(picked) != 1:  # asked when one flash alone would have been announced
                if taken:
                    # Different games that the board alone cannot tell apart: the mover's flash, their
                    # tower resting a moment on the way, or their move there and the next player's
                    # flash of it (issue 31, hasty seeds 530016 and 530025).  Nothing is announced
                    # while the board may still tell (people carrying out the flash they know is
                    # theirs); once it rested ``multi_settle``, the mover is asked.
                    if self._later(ev.flips[-1].at + self.multi_settle):
                        self._ask([g[0] for g in pairs] + [c for _, c in taken], n, wording.ASK_SEVERAL,
                                  "choose", out)
                else:
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
