"""Two people playing a recorded game on the board, each with a phone: the hands model.

:class:`Hands` is a discrete-event machine.  The players set up their lineups tower by
tower, then play the record action by action at their own pace, from what they see on the
board (they never wait for the referee's commit), with the noise of real hands.  They react
to what the referee tells them and to nothing else, through :meth:`Hands.hear`:

- a private ``question``: the mover picks the option that is what they played, or one that
  leaves the very same game (:mod:`host.simulate.oracle`), 0.6 to 1 s later; ``done`` to a
  "did you swap?" whose options are all swaps when they did not swap; nothing when no option
  is what they did (a question about half an action: they carry on);
- a ``question`` with the single option ``pass``: they pass with ``done``;
- a correction (``waiting`` or ``instruction`` naming the spaces of a mistake they made, a
  staged fault): they put it right;
- the announcement of a flash or a Power of Time: at the relaxed pace they read it before
  carrying it out;
- ``committed`` (the mover's private one carries the full action): what the referee now
  holds, mirrored to tell wrong commits and to answer questions from the referee's game.

They decide what to do from the engine's truth (the game they play), never from the
referee: the simulator imports neither ``host.referee`` nor ``host.referee.debounce``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.actions import (
    PASS,
    Action,
    Gravity,
    Move,
    Pass,
    Reflect,
    Reinforce,
    Resurrect,
    Swap,
    Time,
    action_from_record,
)
from engine.board import PLAYERS, SPACE_NAMES, SPACES
from engine.errors import QuinError
from engine.game import EMPTY, FlashEvent, Game, TimeEvent
from engine.record import Record, load_record, to_record, turns_of
from host.board.trace import Trace, TraceHeader

from .machine import Await, Machine, at
from .oracle import canonical, canonical_after, outcomes
from .table import Table
from .timing import (
    AFTER_FAULT,
    AFTER_LAG,
    BUMP_AROUND,
    CLOSE_LEAD,
    DONE_LAG,
    FAULT_WAIT,
    FLICKER_WINDOW,
    FOLLOW,
    LANDING_WORD,
    LOOK_AFTER,
    LOOK_TIMEOUT,
    NEXT_WORD,
    NOISE,
    PACES,
    PASS_TIMEOUT,
    QUICK,
    SETUP_GAP,
    SLOW,
    STALL,
    STARTED_TIMEOUT,
    STUCK_SENSOR,
    SWAP_AFTER_LAG,
    pace_without,
)
from .truth import (
    Effect,
    declaration,
    illegal_move,
    look_alikes,
    nearest,
    physical_effect,
    straight_path,
)

N = SPACE_NAMES
PUBLIC = "public"
FAULTS = ("knock", "stuck_off", "stuck_on", "illegal", "wrong_outcome")
SETUP, FAULT, ANSWERS = -1, -2, -3  # toggle / input tags that belong to no action


@dataclass(frozen=True)
class Planned:
    index: int  # 0-based, counting every action of the game
    player: str
    action: Action
    first: bool  # the first action of its turn


def header_and_turns(record: Record | dict | Game) -> tuple[TraceHeader, list[tuple[str, tuple[Action, ...]]]]:
    if isinstance(record, Game):
        return TraceHeader.of_game(record), [(p, tuple(a)) for p, a in turns_of(record)]
    if isinstance(record, dict):
        record = load_record(record)
    header = TraceHeader(record.mode, record.vision, record.first, dict(record.setups))
    return header, [(p, tuple(a)) for p, a in record.turns]


def kind_of(action: Action, board: list[int]) -> str:
    """The kind of an action for the statistics: a flash is a move onto a tower."""
    kind = type(action)
    if kind is Move:
        return "flash" if board[action.to] != EMPTY else "move"
    if kind is Reflect:
        return "reflect_flash" if board[action.to] != EMPTY else "reflect"
    return {Swap: "swap", Reinforce: "reinforce", Resurrect: "resurrect", Time: "time", Gravity: "gravity",
            Pass: "pass"}[kind]


def _instruction_key(item: dict) -> tuple:
    if item.get("do") == "move":
        return ("move", item.get("from"), item.get("to"))
    return (item.get("do"), item.get("space"))


def _mentions(item: dict, names: set[str]) -> bool:
    return bool(names & {item.get("from"), item.get("to"), item.get("space")})


class Hands:
    """Two players with their phones, playing ``record`` (a Record, its JSON, or a played Game).

    ``faults`` maps action numbers (0-based over the whole game) to a mistake staged around
    that action: ``knock`` (a tower next to a move's target knocked off the board), ``stuck_off``
    / ``stuck_on`` (a sensor reads empty under a tower / a tower on an empty space for 5 s),
    ``illegal`` (the mover first makes a move no legal action matches), ``wrong_outcome``
    (after a capturing flash the attacker goes back to its own space).  The players put a
    mistake right when the referee points at it, or after a while by themselves.

    ``open_loop``: nobody listens to a referee (a trace made ahead of time).  The players then
    name beforehand, with ``choose``, any action the board and their declaration cannot tell
    from another, and put mistakes right on a fixed schedule.

    ``without``: brisk behaviours left out (names of ``timing.BRISK_PARTS``), to tell which of
    them a referee trips over.
    """

    def __init__(self, record, seed: int = 0, noise: str = "medium", pace: str = "relaxed",
                 faults: dict | None = None, *, open_loop: bool = False, without=()):
        if noise not in NOISE:
            raise ValueError(f"noise: expected one of {', '.join(NOISE)}, got {noise!r}")
        if pace not in PACES:
            raise ValueError(f"pace: expected one of {', '.join(PACES)}, got {pace!r}")
        faults = dict(faults or {})
        for k, kind in faults.items():
            if kind not in FAULTS:
                raise ValueError(f"faults: action {k}: expected one of {', '.join(FAULTS)}, got {kind!r}")
        self.header, turns = header_and_turns(record)
        self.seed = seed
        self.pace = pace_without(PACES[pace], without) if without else PACES[pace]
        self.faults = faults
        self.open_loop = open_loop
        self.rng = random.Random(seed)
        self.machine = Machine()
        late = self.pace.late_share if self.pace.late_edge and noise == "high" else 0.0
        self.table = Table(self.machine, self.rng, NOISE[noise], late_edge=late)
        self.truth = self.header.new_game()  # the game as the players play it
        self.mirror = self.header.new_game()  # the game as the referee committed it
        self.plan: list[Planned] = []
        for player, actions in turns:
            for j, action in enumerate(actions):
                self.plan.append(Planned(len(self.plan), player, action, j == 0))
        # what the players know of each action once they begin it
        self.after: list[tuple] = []  # the canonical form after each played action
        self.kinds: list[str] = []
        self.in_sync = True  # the referee's game is the played game so far
        self.events: list = []  # every snapshot and input, as sent
        self.commits: list[dict] = []
        self.questions: list[dict] = []
        self.pass_prompts = 0
        self.unprompted_passes = 0
        self.refusals: list[dict] = []
        self.rejections: list[dict] = []
        self.spurious: list[dict] = []  # corrections of a board that was right
        self.wrong_announcements: list[dict] = []
        self.anomalies: list[str] = []
        self.fault_log: list[tuple[int, str, tuple]] = []
        self.fault_outcomes: list[dict] = []
        # what the brisk hands chose to do, action by action (kind, index, the moments it is
        # about): race_word, word_before, relift, swap_done, swap_no_done, choose_unprompted
        self.behaviours: list[dict] = []
        self.open_question: dict[str, dict | None] = {p: None for p in PLAYERS}
        self.declared: dict[str, dict | None] = {p: None for p in PLAYERS}
        self._faults_active = 0
        self.gave_up: int | None = None  # the action the players stopped at: the referee fell behind
        self.t_end = 0.0
        self.machine.spawn(self._play(), 0.0)

    # --- the driver's side -------------------------------------------------------------

    def next_time(self) -> float | None:
        """When the players next do something (None: they are done and wait for nothing)."""
        return self.machine.next_time()

    def step(self) -> list:
        """The raw snapshot and inputs of the next instant (possibly none: someone only thought)."""
        out = self.machine.step()
        self.events.extend(out)
        return out

    def hear(self, notices, now: float) -> None:
        """The referee's notices, at ``now``.  Only ``audience``, ``kind`` and ``data`` are read."""
        for n in notices:
            self._phone(n, now)
            self.machine.hear(n, now)

    def refused(self, line, reason: str) -> None:
        """The referee refused an input (the phone shows the reason).  Nothing is queued."""
        self.refusals.append({"t": line.t, "player": line.player, "input": line.input, "reason": reason})

    def trace(self) -> Trace:
        return Trace(self.header, list(self.events))

    @property
    def toggles(self):
        return self.machine.toggles

    # --- the phones ---------------------------------------------------------------------

    def _say(self, t: float, player: str, data: dict, index: int) -> float:
        return self.machine.say(max(t, self.machine.now), player, data, index)

    def _phone(self, n, now: float) -> None:
        kind, audience, data = n.kind, n.audience, n.data
        if audience == PUBLIC:
            return
        if kind == "committed":
            self._committed(audience, data, now)
        elif kind == "question":
            self._question(audience, data, now)
        elif kind == "rejected":
            self.rejections.append({"t": now, "player": audience, "data": data})
        elif kind == "instruction" and "declared" in data:
            self.declared[audience] = data["declared"]  # the phone shows the declaration taken
        elif kind == "waiting" and data.get("instructions") and not self._faults_active:
            self.spurious.append({"t": now, "player": audience, "text": data.get("text"),
                                  "index": len(self.mirror.log)})

    def _committed(self, player: str, data: dict, now: float) -> None:
        record = data.get("action")
        try:
            action = action_from_record(record)
        except QuinError:
            self.anomalies.append(f"t={now:.3f}: a commit that is no action: {record!r}")
            return
        k = len(self.mirror.log)
        try:
            self.mirror.push(action)
        except QuinError as exc:
            self.anomalies.append(f"t={now:.3f}: committed {action}, illegal in the referee's game: {exc}")
            return
        entry = {"index": k, "t": now, "player": player, "action": record}
        if k < len(self.after):
            same = canonical(self.mirror) == self.after[k]
            entry["exact"] = action == self.plan[k].action
            entry["same_game"] = same
            entry["wrong"] = self.in_sync and not same
            self.in_sync = same
        else:  # an action the players have not begun (or an extra one)
            entry.update(exact=False, same_game=False, wrong=self.in_sync, early=True)
            self.in_sync = False
        self.commits.append(entry)
        self.open_question[player] = None
        self.declared[player] = None

    def _question(self, player: str, data: dict, now: float) -> None:
        raw = data.get("options") or []
        if not raw:  # the question lapsed or was settled
            self.open_question[player] = None
            return
        try:
            options = [action_from_record(o) for o in raw]
        except QuinError:
            self.anomalies.append(f"t={now:.3f}: a question with options that are no actions: {raw!r}")
            return
        if options == [PASS]:
            self.pass_prompts += 1
            self.open_question[player] = {"pass": True, "t": now}
            return
        k = len(self.mirror.log)
        mirror = self.mirror
        # "Did you swap?" (all options swaps, no swap declared): "no" is an answer too.
        did_you_swap = all(type(o) is Swap for o in options) and (self.declared[player] or {}).get("type") != "swap"

        entry = {"t": now, "player": player, "index": k, "options": raw, "text": data.get("text"),
                 "needed": None, "answer": None}
        if all(mirror.is_legal(o) for o in options):
            games = outcomes(mirror, options)
            if did_you_swap:
                games.add(canonical(mirror))
            entry["needed"] = len(games) > 1
        else:
            self.anomalies.append(f"t={now:.3f}: question options not legal in the referee's game: {raw!r}")
        answer = None
        if k < len(self.after) and self.plan[k].player == player:
            played = self.plan[k].action
            if played in options:
                answer = {"type": "choose", "action": played.to_record()}
            elif self.in_sync and entry["needed"] is not None:
                for o in options:
                    if canonical_after(mirror, o) == self.after[k]:
                        answer = {"type": "choose", "action": o.to_record()}
                        break
            if answer is None and did_you_swap and type(played) is not Swap:
                answer = {"type": "done"}
        entry["answer"] = answer
        self.questions.append(entry)
        self.open_question[player] = entry
        if answer is not None:
            self.machine.spawn(self._answer(player, entry, answer, now), max(now, self.machine.now))

    def _tap_unless_committed(self, t: float, player: str, data: dict, k: int):
        """A tap after the action (a late declaration, done, an unprompted choose): not if the
        phone shows it committed or shows a question (the player answers that instead).  At a
        brisk table a tap already on its way is made all the same: the phone's news must come
        ``pace.react`` before the tap to stop it."""
        yield t
        react = self.pace.react
        if len(self.mirror.log) > k:
            seen = next((c["t"] for c in self.commits if c["index"] == k), None)
            if seen is None or t - seen >= react:
                return  # committed already
        q = self.open_question[player]
        if q is not None and t - q["t"] >= react:
            return  # a question on the screen to answer instead
        self._say(t, player, data, k)

    def _answer(self, player: str, entry: dict, answer: dict, now: float):
        yield at(now + self.rng.uniform(*self.pace.answer))
        if self.open_question[player] is entry:  # still on the phone's screen
            self._say(self.machine.now, player, answer, ANSWERS)
            entry["answered_at"] = self.machine.now

    # --- playing --------------------------------------------------------------------------

    def _play(self):
        yield from self._setup()
        for step in self.plan:
            if not self.open_loop:
                kept_up = yield from self._keep_up(step.index)
                if not kept_up:
                    self.gave_up = step.index
                    break
            yield from self._do(step)
        self.table.index = -1

    def _keep_up(self, k: int):
        """Players glance at their phones: they never get more than one action ahead of the
        referee for long.  If it stays two behind for STALL, they stop playing."""
        while len(self.mirror.log) < k - 1:
            got = yield Await(lambda n: n.kind == "committed" and n.audience != PUBLIC,
                              self.machine.now + STALL, self.machine.now)
            if got is None:
                return False
        return True

    def _setup(self):
        rng, tb, game = self.rng, self.table, self.truth
        tb.index = SETUP
        spaces = sorted(game.occupied())
        rng.shuffle(spaces)
        t = at(rng.uniform(0.2, 0.6))
        end = t
        for s in spaces:
            _, end = tb.place(s, game.state.board[s], t)
            t = end + rng.uniform(*SETUP_GAP)
        self.t_end = end
        yield end
        if not self.open_loop:
            got = yield Await(lambda n: n.audience == PUBLIC and n.kind == "started", end + STARTED_TIMEOUT, 0.0)
            self.t_end = self.machine.now if got is None else max(end, got[0])
            if got is None:
                self.anomalies.append(f"t={self.t_end:.3f}: the board was set up and nobody said so")

    def _gap(self, lo_hi) -> float:
        """From the end of the last action (or from now, if the players had to wait), a pause."""
        return at(max(self.t_end, self.machine.now) + self.rng.uniform(*lo_hi))

    def _do(self, step: Planned):
        k, player, action = step.index, step.player, step.action
        game, rng, pace, tb = self.truth, self.rng, self.pace, self.table
        fault = self.faults.get(k)
        if fault in ("stuck_off", "stuck_on", "illegal"):
            yield from self._fault_before(k, fault, player)
        tb.index = k
        kind = type(action)
        board = game.state.board[:]
        said = declaration(action)
        alike = look_alikes(game, action) if self.open_loop and kind is not Pass else []
        differ = []  # brisk, closed loop: look-alikes leaving another game (the player knows to name it)
        if pace.choose_unprompted and not self.open_loop and kind is not Pass:
            mine = canonical_after(game, action)
            differ = [o for o in look_alikes(game, action) if canonical_after(game, o) != mine]
        only_pass = kind is Pass and game.legal_actions() == [action]
        n_events = len(game.events)
        self.kinds.append(kind_of(action, board))
        effect = physical_effect(game, action, keep=True)
        self.after.append(canonical(game))
        news = game.events[n_events:]
        if pace.word_race is not None:
            yield from self._do_brisk(step, kind, said, alike, differ, only_pass, effect, board, fault, news)
            return

        variant = rng.choice(pace.declare_variants) if kind is Reinforce or kind is Resurrect else None
        swap_after = kind is Swap and not alike and rng.random() < pace.swap_after
        taps_first = bool(alike) or kind is Pass or kind is Time or variant in ("before", "close") or (
            kind is Swap and not swap_after)
        base, t = self._begin(step, taps_first)
        if kind is Pass:
            yield from self._pass(k, player, t, only_pass)
            return

        start = t
        after: list[tuple[str, tuple[float, float], dict]] = []  # (anchor, lag, input) said after acting
        lead = lambda: rng.uniform(*pace.declare_lead)  # noqa: E731
        if alike:
            self._say(t, player, {"type": "choose", "action": action.to_record()}, k)
            start = at(t + lead())
        elif variant is not None:
            data = ({"type": "reinforce", "pieces": list(said[1])} if kind is Reinforce
                    else {"type": "resurrect", "piece": action.piece})
            if variant == "after":
                after.append(("down", AFTER_LAG, data))
            else:
                self._say(t, player, data, k)
                start = at(t + (lead() if variant == "before" else rng.uniform(*CLOSE_LEAD)))
        elif kind is Time:
            self._say(t, player, {"type": "time"}, k)
            start = at(t + lead())
            if pace.look and not self.open_loop:
                yield t
                got = yield Await(lambda n: n.audience == PUBLIC and n.kind == "time" and not n.data.get("done"),
                                  t + LOOK_TIMEOUT, t)
                if got is not None:
                    self._check_time(k, got[1].data, news)
                    start = max(start, at(got[0] + rng.uniform(*LOOK_AFTER)))
                else:
                    start = max(start, self.machine.now)
        elif kind is Swap:
            if swap_after:
                after.append(("end", SWAP_AFTER_LAG, {"type": "swap"}))
            else:
                self._say(t, player, {"type": "swap"}, k)
                start = at(t + lead())
                if rng.random() < pace.done_after:
                    after.append(("end", DONE_LAG, {"type": "done"}))
        if (kind is Gravity or (kind is Reinforce and len(action.placements) > 1)) and rng.random() < pace.done_after:
            after.append(("end", DONE_LAG, {"type": "done"}))

        if step.first:  # a tap may come at once; hands reach the board no sooner than a think
            start = max(start, at(base + pace.think[0]))
        end, down = yield from self._perform(k, player, action, effect, board, fault, start, news)
        for anchor, lag, data in after:
            if self.open_loop and data["type"] == "done":
                continue  # done hurries a referee the players watch; nobody is watched here
            t_say = at((down if anchor == "down" else end) + rng.uniform(*lag))
            self.machine.spawn(self._tap_unless_committed(t_say, player, data, k), self.machine.now)
        self.t_end = max(end, tb.latest, self.machine.now)
        yield self.t_end

    def _do_brisk(self, step: Planned, kind, said, alike, differ, only_pass, effect: Effect, board, fault, news):
        """An action at a table that does not wait (issue 17): each word before the hands or
        racing the board change it goes with (WORD_RACE either side), a swap's done now and
        then never sent, an ambiguous action named unprompted after it, and the next player's
        hands on the tower just placed a quarter of a second after it landed.  At a hasty table
        (issue 31) the next player's word and first hand come on the rival's landing."""
        k, player, action = step.index, step.player, step.action
        rng, pace, tb = self.rng, self.pace, self.table
        snap = None if alike else self._on_landing(step)  # hasty: the rival's touch-down they follow
        if snap is not None and kind is Pass and not only_pass:
            # a pass (Time or the Totem could still be used: the board would ask) said at once
            said_at = self._say(at(snap + rng.uniform(*NEXT_WORD)), player, {"type": "done"}, k)
            self.behaviours.append({"kind": "next_word", "index": k, "landed": snap, "t": said_at,
                                    "word": "done", "lift": None})
            self.t_end = max(said_at, self.t_end)
            yield self.t_end
            return
        declared = kind in (Reinforce, Resurrect, Time, Swap)
        variant = rng.choice(pace.declare_variants) if declared and not alike else None
        taps_first = bool(alike) or kind is Pass or variant == "before"
        base, t = self._begin(step, taps_first)
        if kind is Pass:
            yield from self._pass(k, player, t, only_pass)
            return
        word = None
        if kind is Reinforce:
            word = {"type": "reinforce", "pieces": list(said[1])}
        elif kind is Resurrect:
            word = {"type": "resurrect", "piece": action.piece}
        elif kind is Time:
            word = {"type": "time"}
        elif kind is Swap:
            word = {"type": "swap"}
        if alike:
            word = {"type": "choose", "action": action.to_record()}

        prefer = None
        if step.first and pace.relift and tb.last_place is not None:
            # the tower just placed: the previous action's last hand event (its bounce the last
            # thing on the board), and one this action moves
            space, landed, index = tb.last_place
            just = index == k - 1 and base - landed <= FLICKER_WINDOW + 0.001
            if just and any(a == space for _, a, _ in effect.moves) and rng.random() < pace.relift:
                prefer = space
        lead = rng.uniform(*pace.declare_lead)
        on_landing = None
        if snap is not None:  # hasty: word and hands on the rival's landing, each on its own clock
            window = pace.relift_window if prefer is not None else NEXT_WORD
            start = at(max(snap + rng.uniform(*window), self.machine.now))
            if prefer is not None:
                self.behaviours.append({"kind": "relift", "index": k, "space": prefer, "landed": snap,
                                        "lift": start})
            # "planned": when the hand goes for the board; "lift": when it touches it (a tower
            # still wobbling from a bump is taken once it is still)
            on_landing = {"kind": "next_lift", "index": k, "landed": snap, "planned": start, "lift": start}
            if word is not None:
                landing = kind is Swap and rng.random() < pace.landing_word
                said_at = self._say(at(snap + rng.uniform(*(LANDING_WORD if landing else NEXT_WORD))),
                                    player, word, k)
                on_landing.update(kind="landing_word" if landing else "next_word", t=said_at, word=word["type"])
            self.behaviours.append(on_landing)
            variant, taps_first = None, False  # the word is said: no other
        elif prefer is not None:  # the rival's hand on the tower just placed (measured from its landing)
            landed = tb.last_place[1]
            start = at(max(landed + rng.uniform(*pace.relift_window), base))
            t = at(max(start - lead, landed, self.machine.now))
            self.behaviours.append({"kind": "relift", "index": k, "space": prefer, "landed": landed, "lift": start})
        else:
            start = at(t + lead) if taps_first else t
            if step.first:  # a tap may come at once; hands reach the board no sooner than a think
                start = max(start, at(base + pace.think[0]))
        if taps_first and word is not None:
            said_at = self._say(t, player, word, k)
            if variant == "before":
                self.behaviours.append({"kind": "word_before", "index": k, "t": said_at, "word": word["type"]})
        tb.first_touch = None
        end, down = yield from self._perform(k, player, action, effect, board, fault, start, news, prefer)
        first_touch = tb.first_touch if tb.first_touch is not None else start
        if on_landing is not None:
            on_landing["lift"] = first_touch
        later: list[tuple[float, dict]] = []  # taps after the hands, each unless the phone says not to
        if variant == "race":
            anchor = first_touch if kind is Time else (down if down is not None else first_touch)
            said_at = self._say(at(anchor + rng.uniform(*pace.word_race)), player, word, k)  # already on its way
            self.behaviours.append({"kind": "race_word", "index": k, "t": said_at, "anchor": anchor,
                                    "word": word["type"]})
        if not self.open_loop:
            if kind is Swap:
                if rng.random() < pace.swap_done:
                    later.append((at(end + rng.uniform(*pace.done_lag)), {"type": "done"}))
                    self.behaviours.append({"kind": "swap_done", "index": k, "end": end, "t": later[-1][0]})
                else:
                    self.behaviours.append({"kind": "swap_no_done", "index": k, "end": end})
            elif (kind is Gravity or (kind is Reinforce and len(action.placements) > 1)) and (
                    rng.random() < pace.done_after):
                later.append((at(end + rng.uniform(*pace.done_lag)), {"type": "done"}))
            if differ and rng.random() < pace.choose_unprompted:
                later.append((at(end + rng.uniform(*pace.answer)), {"type": "choose", "action": action.to_record()}))
                self.behaviours.append({"kind": "choose_unprompted", "index": k, "end": end, "t": later[-1][0]})
            elif differ:
                self.behaviours.append({"kind": "choose_when_asked", "index": k, "end": end})
        for t_say, data in later:
            self.machine.spawn(self._tap_unless_committed(t_say, player, data, k), self.machine.now)
        self.t_end = max(end, tb.latest, self.machine.now)
        yield self._landing_of(k, self.t_end)

    def _landing_of(self, k: int, end: float) -> float:
        """When the players look up after action ``k``: at a hasty table, when its last tower
        touched down if the next player's turn follows (their word may come while it still
        bounces); otherwise when it is over (``end``)."""
        tb = self.table
        nxt = k + 1
        if not self.pace.next_word or nxt >= len(self.plan) or not self.plan[nxt].first or tb.last_place is None:
            return end
        _, landed, index = tb.last_place
        if index != k or tb.latest > landed + FLICKER_WINDOW + 0.001:
            return end  # the action did not end with that placement
        return max(self.machine.now, landed)

    def _on_landing(self, step: Planned) -> float | None:
        """Hasty: the rival's last touch-down, if this player's turn begins on it (their word and
        first hand follow it at NEXT_WORD); None at other tables, at later steps of a turn, after
        an action that did not end with a placement, or when the players had to wait."""
        pace, tb = self.pace, self.table
        if not pace.next_word or not step.first or tb.last_place is None:
            return None
        _, landed, index = tb.last_place
        if index != step.index - 1 or tb.latest > landed + FLICKER_WINDOW + 0.001:
            return None
        if self.machine.now > landed + FLICKER_WINDOW + 0.001:
            return None  # they waited (for the referee to catch up, or a mistake): no landing to follow
        if self.rng.random() >= pace.next_word:
            return None
        return landed

    def _pass(self, k: int, player: str, t: float, only_pass: bool):
        if only_pass:  # nothing to do: the referee passes for them
            self.t_end = t
            yield t
            return
        if self.open_loop:
            self.t_end = self._say(t, player, {"type": "done"}, k)
            yield self.t_end
            return
        since = self.t_end
        yield t
        prompt = self.open_question[player]
        if prompt is not None and prompt.get("pass"):
            got = (prompt["t"], None)
        else:
            got = yield Await(lambda n: n.audience == player and n.kind == "question"
                              and n.data.get("options") == [PASS.to_record()], t + PASS_TIMEOUT, since)
        if got is None:
            self.unprompted_passes += 1
        base = self.machine.now if got is None else max(got[0], t)
        self.t_end = self._say(base + self.rng.uniform(*self.pace.answer), player, {"type": "done"}, k)
        yield self.t_end

    # --- hands at work -------------------------------------------------------------------

    def _perform(self, k, player, action, effect: Effect, board, fault, t, news, prefer=None):
        """Carry out ``action`` from ``t``; returns (when its last reading holds, its first touch-down).
        ``prefer``: a space whose tower is lifted first (the tower the rival just placed)."""
        tb, rng, pace = self.table, self.rng, self.pace
        kind = type(action)
        if kind is Move or kind is Reflect:
            f, to = action.frm, action.to
            if board[to] != EMPTY:
                return (yield from self._flash(k, player, effect, f, to, fault, t, news, prefer))
            path = straight_path(board, f, to) if kind is Move else None
            if path is not None and rng.random() < tb.noise.slide:
                down, end = tb.slide(f, path, to, t)
            else:
                tower, lifted = tb.lift(f, t, hover_back=prefer == f)
                down, end = tb.place(to, tower, self._hold_after(f, lifted))
            self._bump(down, effect)
            if fault == "knock":
                end = yield from self._knock(k, player, to, effect, end)
            return end, down
        if kind is Gravity:
            moves = list(effect.moves)
            rng.shuffle(moves)
            moves.sort(key=lambda m: m[1] != prefer)  # the tower just placed first (stable otherwise)
            first = end = None
            for tower, a, b in moves:
                _, lifted = tb.lift(a, t, hover_back=prefer == a)
                down, end = tb.place(b, tower, self._hold_after(a, lifted))
                first = first if first is not None else down
                t = end + rng.uniform(*pace.gravity_gap)
            self._bump(down, effect)
            return end, first
        if kind is Reinforce or kind is Resurrect:
            moves = list(effect.moves)
            rng.shuffle(moves)
            first, down, end = self._put_down([(tower, b) for tower, _, b in moves], t)
            self._bump(down, effect)
            return end, first
        if kind is Swap:
            first, end = self._relocate(list(effect.moves), t, prefer)
            self._bump(end, effect)
            return end, first
        if kind is Time:
            spent = [m for m in effect.moves if m[1] == action.at and m[2] is None]
            rest = [m for m in effect.moves if m not in spent]
            dests = {b for _, _, b in rest}
            # The Time tower leaves first or last; first when a tower goes back onto its space
            # (or when it is the tower the rival just placed), last when the rival's just-placed
            # tower is to be lifted first.
            first_time = action.at in dests or rng.random() < 0.5
            if prefer is not None and action.at not in dests:
                first_time = prefer == action.at
            end = t
            if first_time:
                _, end = tb.lift(action.at, t, hover_back=prefer == action.at)
                t = end + rng.uniform(*pace.hands)
            first = None
            if action.target is not None and len(rest) == 1 and rest[0][1] == action.target:
                path = straight_path(tb_board(tb), action.target, action.to)
                if path is not None and rng.random() < tb.noise.slide:
                    first, end = tb.slide(action.target, path, action.to, t)
                else:
                    tower, lifted = tb.lift(action.target, t, hover_back=prefer == action.target)
                    first, end = tb.place(action.to, tower, self._hold_after(action.target, lifted))
            elif rest:
                first, end = self._relocate(rest, t, prefer)
            if not first_time:
                _, end = tb.lift(action.at, end + rng.uniform(*pace.hands))
            self._bump(end, effect)
            return end, first if first is not None else end
        raise AssertionError(f"cannot carry out {action}")  # pragma: no cover

    def _hold_after(self, space: int, lifted: float) -> float:
        """When a tower lifted from ``space`` (its reading holding from ``lifted``) is put down:
        a carry after the bounce ends, or (brisk) a carry counted from the lift itself, so a
        quick put-back's steady reading is the carry less the bounce."""
        rng = self.rng
        if rng.random() < self.table.noise.slow:
            return lifted + rng.uniform(*SLOW)
        carry = rng.uniform(*self.pace.carry)
        if self.pace.hold_from_lift:
            return at(max(self.table.lift_start[space] + carry, lifted + 0.002))
        return lifted + carry

    def _relocate(self, moves, t, prefer=None) -> tuple[float | None, float | None]:
        """Towers from -> to (None: off the board): all lifted in any order, then placed in any order."""
        tb, rng, pace = self.table, self.rng, self.pace
        lifts = [m for m in moves if m[1] is not None]
        places = [m for m in moves if m[2] is not None]
        rng.shuffle(lifts)
        rng.shuffle(places)
        if prefer is not None:
            lifts.sort(key=lambda m: m[1] != prefer)
        end = None
        for _, a, _ in lifts:
            _, end = tb.lift(a, t, hover_back=prefer == a)
            t = end + rng.uniform(*pace.hands)
        if not pace.hold_from_lift:
            if lifts and places:
                t = end + rng.uniform(*pace.carry)
            first, _, end = self._put_down([(tower, b) for tower, _, b in places], t, end)
            return first, end
        # Brisk: every tower is held, and every space it left stays empty, a carry (0.2 to 0.5 s)
        # from its lift: a swap's towers go back down a quarter of a second after they rose.
        held = {tower: tb.lift_start[a] for tower, a, _ in lifts}
        emptied = {a: tb.lift_start[a] for _, a, _ in lifts}
        first = None
        for tower, _, b in places:
            carry = rng.uniform(*pace.carry)
            when = max(t, held.get(tower, t) + carry, emptied.get(b, t) + carry)
            quick = b in emptied and when - emptied[b] < QUICK  # no time to hover over it
            down, end = tb.place(b, tower, at(when), hover=not quick)
            first = first if first is not None else down
            t = end + rng.uniform(*pace.hands)
        return first, end

    def _begin(self, step: Planned, taps_first: bool) -> tuple[float, float]:
        """(when the hands are free, when the action's first word or hand comes): a player's
        first step waits a tap or a think, a later step of the same turn the gap between steps."""
        base = max(self.t_end, self.machine.now)
        pace = self.pace
        return base, self._gap((pace.tap_first if taps_first else pace.think) if step.first else pace.between)

    def _put_down(self, places, t, end=None) -> tuple[float | None, float | None, float | None]:
        """Each (tower, space) of ``places`` put down in turn from ``t``: (the first touch-down, the
        last, when the last reading holds); with no places, (None, None, ``end``)."""
        first = down = None
        for tower, b in places:
            down, end = self.table.place(b, tower, t)
            first = first if first is not None else down
            t = end + self.rng.uniform(*self.pace.hands)
        return first, down, end

    def _bump(self, t: float | None, effect: Effect) -> None:
        if t is not None and self.rng.random() < self.table.noise.bump:
            self.table.bump(t + self.rng.uniform(*BUMP_AROUND), set(effect.touched))

    def _flash(self, k, player, effect: Effect, f, to, fault, t, news, prefer=None):
        tb, rng, pace = self.table, self.rng, self.pace
        order = [f, to] if rng.random() < 0.5 else [to, f]  # either tower lifted first
        if prefer in order:  # the tower the rival just placed, snatched first
            order.sort(key=lambda s: s != prefer)
        held = {}
        held[order[0]], e1 = tb.lift(order[0], t, hover_back=prefer == order[0])
        held[order[1]], e2 = tb.lift(order[1], e1 + rng.uniform(*pace.hands))
        if pace.look and not self.open_loop:
            yield e2
            got = yield Await(lambda n: n.audience == PUBLIC and n.kind == "flash", e2 + LOOK_TIMEOUT, t)
            if got is not None:
                self._check_flash(k, got[1].data, news)
                t = at(max(got[0], self.machine.now) + rng.uniform(*LOOK_AFTER))
            else:
                t = self.machine.now
        else:
            t = at(e2 + rng.uniform(*pace.flash_hold))
        places = [(tower, b) for tower, _, b in effect.moves if b is not None]
        rng.shuffle(places)  # the outcome put down in either order
        attacker = held[f]
        if fault == "wrong_outcome" and places == [(attacker, to)]:
            # A capture, but the attacker goes back to its own space instead.
            self.fault_log.append((k, "wrong_outcome", (f, to)))
            tb.index = FAULT
            down, end = tb.place(f, attacker, t)
            end = yield from self._await_fix(k, "wrong_outcome", player, {("move", N[f], N[to])}, {f, to}, end,
                                             lambda t0: self._carry(f, to, t0))
            tb.index = k
            return end, down
        first, _, end = self._put_down(places, t, e2)
        self._bump(end, effect)
        return end, first if first is not None else e2

    def _carry(self, a: int, b: int, t: float) -> float:
        tower, lifted = self.table.lift(a, t)
        return self.table.place(b, tower, lifted + self.rng.uniform(*self.pace.carry))[1]

    # --- mistakes ------------------------------------------------------------------------

    def _await_fix(self, k, kind, player, expected: set, spaces: set[int], t: float, fix):
        """Wait for the referee to point at the mistake on ``spaces``, then put it right."""
        names = {N[s] for s in spaces}

        def points_at_it(n) -> bool:  # on either phone or the status page: someone at the table reads it
            items = n.data.get("instructions") if isinstance(n.data, dict) else None
            return bool(items) and any(_mentions(i, names) for i in items)

        wait = FAULT_WAIT["open" if self.open_loop else "closed"][kind]
        self._faults_active += 1
        yield t
        got = yield Await(points_at_it, t + wait, t)
        self._faults_active -= 1
        if got is None:
            outcome, told, t0 = "unprompted", None, self.machine.now
        else:
            told = [i.get("text") for i in got[1].data["instructions"]]
            keys = {_instruction_key(i) for i in got[1].data["instructions"]}
            outcome = "followed" if keys == expected else "misleading"
            t0 = at(max(got[0], self.machine.now) + self.rng.uniform(*FOLLOW))
        self.fault_outcomes.append({"index": k, "kind": kind, "outcome": outcome, "told": told,
                                    "at": t0, "seed": self.seed})
        return fix(t0)

    def _knock(self, k, player, to, effect: Effect, end):
        tb = self.table
        x = nearest(to, set(tb.at) - set(effect.touched) - {to})
        if x is None:
            return end
        self.fault_log.append((k, "knock", (x,)))
        tb.index = FAULT
        tower, lifted = tb.lift(x, end + self.rng.uniform(0.1, 0.3))
        end = yield from self._await_fix(k, "knock", player, {("fill", N[x])}, {x}, lifted,
                                         lambda t0: tb.place(x, tower, t0)[1])
        tb.index = k
        return end

    def _fault_before(self, k, kind, player):
        tb, rng = self.table, self.rng
        tb.index = FAULT
        t = self._gap(self.pace.think)
        if kind in ("stuck_off", "stuck_on"):
            pool = sorted(tb.at) if kind == "stuck_off" else sorted(set(SPACES) - set(tb.at))
            s = rng.choice(pool)
            self.fault_log.append((k, kind, (s,)))
            self._faults_active += 1
            end = tb.stuck(s, kind == "stuck_on", t, STUCK_SENSOR)
            self.t_end = at(end + rng.uniform(*AFTER_FAULT))
            yield self.t_end
            self._faults_active -= 1
            return
        found = illegal_move(self.truth, rng)
        if found is None:
            return
        f, to = found
        self.fault_log.append((k, kind, (f, to)))
        end = self._carry(f, to, t)
        end = yield from self._await_fix(k, "illegal", player, {("move", N[to], N[f])}, {f, to}, end,
                                         lambda t0: self._carry(to, f, t0))
        self.t_end = max(end, self.machine.now)
        yield self.t_end

    # --- what the players see announced -----------------------------------------------------

    def _check_flash(self, k: int, data: dict, news) -> None:
        event = next((e for e in news if isinstance(e, FlashEvent)), None)
        told = (data.get("at"), data.get("attacker"), data.get("defender"), data.get("outcome"))
        if event is None or told != (N[event.at], event.attacker, event.defender, event.outcome):
            self.wrong_announcements.append({"index": k, "kind": "flash", "told": told,
                                             "truth": event.to_json() if event else None})

    def _check_time(self, k: int, data: dict, news) -> None:
        event = next((e for e in news if isinstance(e, TimeEvent)), None)
        if event is None or data.get("outcome") != event.outcome:
            self.wrong_announcements.append({"index": k, "kind": "time", "told": data.get("outcome"),
                                             "truth": event.outcome if event else None})

    # --- what happened --------------------------------------------------------------------

    def report(self) -> dict:
        """The run as the players lived it: commits against the played game, questions, latency."""
        n = len(self.plan)
        played = self.truth
        complete = len(self.mirror.log) == n and all(c.get("same_game") for c in self.commits)
        exact = to_record(self.mirror) == to_record(played)
        differs = [c for c in self.commits if not c.get("exact")]
        same_game = complete and not exact and self._rest_legal(differs)  # complete: every commit the same game
        last_sensor: dict[int, float] = {}
        last_said: dict[int, float] = {}
        for tg in self.machine.toggles:
            if tg.index >= 0 and tg.tag not in ("bump", "stuck", "heal"):
                last_sensor[tg.index] = tg.t
        for line, index in self.machine.inputs:
            if index >= 0:
                last_said[index] = line.t
        latency = []
        for c in self.commits:
            k = c["index"]
            if k >= n or c.get("early"):
                continue
            sensor = last_sensor.get(k)
            evidence = max(x for x in (sensor, last_said.get(k)) if x is not None) if (
                sensor is not None or k in last_said) else None
            latency.append({"index": k, "kind": self.kinds[k],
                            "after_sensor": None if sensor is None else round(c["t"] - sensor, 6),
                            "after_evidence": None if evidence is None else round(c["t"] - evidence, 6)})
        questions = [q for q in self.questions]
        return {
            "actions": n,
            "committed": len(self.mirror.log),
            "complete": complete,
            "exact": exact,
            "same_game": same_game,
            "wrong_commits": [c for c in self.commits if c.get("wrong")],
            "same_game_differences": [{"index": c["index"], "played": self.plan[c["index"]].action.to_record(),
                                       "committed": c["action"]}
                                      for c in differs if c.get("same_game")],
            "questions": questions,
            "needed": sum(1 for q in questions if q["needed"] is True),
            "needless": sum(1 for q in questions if q["needed"] is False),
            "unanswered": sum(1 for q in questions if q["answer"] is None),
            "gave_up_at": self.gave_up,
            "pass_prompts": self.pass_prompts,
            "unprompted_passes": self.unprompted_passes,
            "latency": latency,
            "refusals": self.refusals,
            "rejections": len(self.rejections),
            "spurious_corrections": len(self.spurious),
            "spurious_first": self.spurious[:5],
            "wrong_announcements": self.wrong_announcements,
            "faults": [{"index": k, "kind": kind, "spaces": [N[s] for s in spaces]} for k, kind, spaces in self.fault_log],
            "fault_outcomes": self.fault_outcomes,
            "anomalies": self.anomalies,
        }

    def _rest_legal(self, differs: list[dict]) -> bool:
        """From every turn the referee read differently, the rest of the played record is legal."""
        played = [p.action for p in self.plan]
        committed = [a for _, _, a in self.mirror.log]
        for c in differs:
            k = c["index"]
            game = self.header.new_game()
            try:
                for a in committed[: k + 1] + played[k + 1:]:
                    game.push(a)
            except QuinError:
                return False
        return True


def tb_board(tb: Table) -> list[int]:
    """The physical board as a list of towers per space (EMPTY where none stands)."""
    board = [EMPTY] * len(SPACES)
    for s, tower in tb.at.items():
        board[s] = tower
    return board


__all__ = ["Hands", "Planned", "FAULTS", "header_and_turns", "kind_of"]
