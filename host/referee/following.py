"""Remote play, the referee's part (docs/remote-play.md): the hub's answers about identities the
board does not know, a game with more known, and the rival's actions played elsewhere, carried out
on the board as plans.

A part of :class:`host.referee.machine.Referee`: a mixin that uses the referee's state (its step,
evidence and current state); it imports nothing of the other parts."""

from __future__ import annotations

from dataclasses import replace

from engine.actions import Action
from engine.board import parse_space as S_
from engine.game import EMPTY, Game
from engine.views import knows

from . import wording
from .corrections import corrections, say_list
from .evidence import Evidence
from .inputs import Word
from .matching import Candidate, Step, plain
from .notices import PUBLIC, InputError, Notice
from .states import Consult, Consulting, Event, Flashing, Following, FollowPlan, Over, Phase, Playing
from .windows import INF, LATE, MAX_WORDS, N


class RemoteFollowing:
    """The rival's actions played elsewhere, and the hub consulted about hidden identities."""

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
        if S == f.expected and not f.lifts and f.matched is None and self._sensed_done(f):
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

    def _sensed_done(self, f) -> bool:
        """Did the sensors show the plan done, not only the debounced board?  Not while one of its
        own spaces is changing, nor while a change begun before its spaces last changed is still
        settling: the debounced board then lags the sensors, and showed the plan done for an
        instant they never read (seed 9207 under load, twice a wrong commit: a tower steadied on
        the plan's space, off a moment, as a bumped one beside it read on 78 ms; a tower bumped off
        11 ms before the plan's tower touched down, its lift not yet held ``off_delay``).  What
        followed was read as the player's own flash.  A change begun after, a brisk hand lifting
        its own tower at once, is the next step's."""
        deb = self.deb
        if deb.pending & f.spaces:
            return False
        last = max((deb.since.get(s, -INF) for s in f.spaces), default=-INF)
        return not any(deb.began.get(s, deb.since.get(s, -INF)) < last for s in deb.pending)

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
