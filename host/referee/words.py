"""Players' words (docs/referee.md, "Inputs"): held while the board still settles, then judged
for the step and the turn their speaker meant; the next player's words kept for their turn; the
mover's ``done``.

A part of :class:`host.referee.machine.Referee`: a mixin that uses the referee's state; it
imports nothing of the other parts."""

from __future__ import annotations

from engine.actions import PASS, Action
from host.referee.debounce import BURST_GAP, EPS

from . import status, wording
from .inputs import Word, why_not
from .notices import InputError, Notice
from .states import Phase
from .windows import INF, LATE, MAX_WORDS, NEXT_WORD, N


class Words:
    """Words judged for the turn their speaker meant."""

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
                # commits now), then the word is judged for the step it was said in.  A declaration
                # said while the mover's own lift or placement was still under way is about it: no
                # reading that uses those spaces is committed before the word is judged (hasty soak
                # seed 520001: Black lifted the Time tower, then White's tower to rewind it, and
                # tapped "time" 13 ms into that lift; the two lifts read as the Time tower's flash of
                # that tower, both destroyed, and the word was kept for Black's next turn).
                self._racing = spaces if word is not None and word.kind != "choose" else frozenset()
                try:
                    for _ in range(64):
                        if self.state is Phase.OVER or not self._decide(now, out):
                            break
                finally:
                    self._racing = frozenset()
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
