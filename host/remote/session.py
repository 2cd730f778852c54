"""A remote game at this table: a session whose other side plays far away, through the hub.

:class:`RemoteSession` is a kind of :class:`host.session.session.Session` (docs/remote-play.md,
"Inside the Pi"):

- the local player sits at a normal ``PhoneSeat``: their phone sends the lineup, which the session
  keeps (the store holds this side's lineup only) and forwards to the hub through the link;
- the rival sits at an ``OffBoardSeat`` whose mind (:class:`host.remote.mind.RemoteMind`) shows the
  rival's committed actions as plans;
- the game the referee reads the board with is ``standin_game(view)`` (``host.remote.standin``),
  rebuilt from each new state of the hub: ``replace_game`` when the hub confirms this side's own
  actions, ``follow`` (with the rival's plan) when the rival played; the referee reads only the
  local side (``reads``) and asks the hub (:class:`HubOracle`) for what a flash or a Classic Time
  of the local player reveals;
- each local commit goes to the hub as an action (the link's durable outbox, with its ``seq``)
  instead of the store's actions: the hub is the system of record.  Once the game is over the
  hub's record (every identity open) is written to the store as a finished game, so the history,
  replay and export read it as any other game.

Nothing here ever holds the rival's unrevealed identities: everything comes from this side's
states (its ``view``, ``last``, ``reveal``), and the stand-ins are chosen from the view alone.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from typing import Callable

from engine.actions import action_from_record
from engine.board import PLAYERS, SPACE_NAMES, other, parse_space as S_
from engine.pieces import Setup
from engine.record import load_record, replay
from engine.views import action_seen_by, view as view_of
from host.board.sensing import Snapshot
from host.referee.corrections import corrections, say_list
from host.session.session import Session

from .link import HubAnswer, Unreached
from .mind import plan_of_seen
from .standin import rival_moved, standin_game

log = logging.getLogger("quin.remote")
N = SPACE_NAMES
ASK_AGAIN = 1.0  # seconds before the hub is asked again for a reveal it could not answer


def history_count(view: dict | None) -> int:
    if not view:
        return 0
    return sum(len(t["actions"]) for t in view.get("history", []))


def flat_history(view: dict) -> list[tuple[str, dict]]:
    return [(t["player"], a) for t in view.get("history", []) for a in t["actions"]]


def turned_history(view: dict) -> list[tuple[int, str, dict]]:
    """(turn, player, action as this side sees it) of every action in a view's history."""
    return [(t["turn"], t["player"], a) for t in view.get("history", []) for a in t["actions"]]


def grouped(items: list[tuple[int, str, dict]]) -> list[dict]:
    """A view's ``history`` from (turn, player, action) items."""
    out: list[dict] = []
    for turn, player, action in items:
        if not out or out[-1]["turn"] != turn:
            out.append({"turn": turn, "player": player, "actions": []})
        out[-1]["actions"].append(action)
    return out


def ending_status(session) -> dict:
    """The remote status's part about ending: the hub's ``abandon`` (who is away, the seconds left
    before the other may claim the game, whether it may now), and what this side asked and the hub
    has not answered yet."""
    hub = session.hub or {}
    pending = {m["route"] for m in session.link.pending()}
    abandon = hub.get("abandon")
    if not getattr(session.link, "connected", True):
        abandon = None  # the hub not reached: the pause is that, and its countdown is not known now
    if abandon and not abandon.get("claimable"):
        # the hub sends no state as the seconds go by: a page opened later counts from now
        gone = session.link.clock.now() - session.link.state_at
        abandon = dict(abandon, left=max(0, math.ceil(abandon["left"] - gone)))
    return {"abandon": abandon, "resigning": "resign" in pending, "claiming": "claim" in pending,
            "calling_off": "call-off" in pending}


class HubOracle:
    """The referee's oracle (``oracle.flash``, ``oracle.time``): asks the hub's reveal route in a
    background thread; None until it answered, then a stand-in game with the revealed identities."""

    def __init__(self, session: "RemoteSession"):
        self.session = session
        self.answers: dict[str, dict] = {}  # request key -> (the hub's answer)
        self._asking: set[str] = set()
        self._lock = threading.Lock()

    def flash(self, actions) -> object:
        body = {"flash": [a.to_record() for a in actions]}
        return self._ask(body)

    def time(self, action) -> object:
        return self._ask({"time": action.to_record()})

    def _ask(self, body: dict):
        s = self.session
        key = json.dumps([s.base, body], sort_keys=True)
        with self._lock:
            answer = self.answers.get(key)
        if answer is not None:
            return s.game_with(answer.get("pieces") or {}, answer.get("not_shadow") or ())
        if not s.in_sync():
            return None  # this side's last action is not at the hub yet: asked once it is
        if s.link.paused():
            return None  # the hub answers 423 while the game waits: asked again at a tick once it goes on
        with self._lock:
            if key in self._asking:
                return None
            self._asking.add(key)
        view = s.hub["view"]
        seq = s.next_seq
        threading.Thread(target=self._run, args=(key, {"seq": seq, **body}, view), name="quin-remote-reveal",
                         daemon=True).start()
        return None

    def _run(self, key: str, body: dict, view: dict) -> None:
        s = self.session
        try:
            answer = s.link.reveal(body)
        except (HubAnswer, Unreached) as exc:
            log.warning("the hub could not answer a reveal now: %s", exc)
            s.link.clock.sleep(ASK_AGAIN)
            with self._lock:
                self._asking.discard(key)
            return
        pieces = dict(answer.get("pieces") or {})
        not_shadow: list[str] = []
        if "time" in body:
            moved = rival_moved(view)
            if answer.get("outcome") == "rewound":
                not_shadow = moved
            else:
                not_shadow = [sp for sp in moved if sp not in pieces]
        table = s.table
        with table.lock:
            with self._lock:
                self.answers[key] = {"pieces": pieces, "not_shadow": not_shadow}
                self._asking.discard(key)
            if isinstance(answer.get("seq"), int):
                s.next_seq = max(s.next_seq, answer["seq"])
            s.known = (s.base, pieces, not_shadow)
        table.tick()  # the referee asks again at once


class RemoteSession(Session):
    """One remote game at this table (a Session whose rival plays through the hub)."""

    remote = True

    def __init__(self, store, row, *, link, table, mind, local: str, **kw):
        self._game = None
        super().__init__(store, row, **kw)
        self.link = link
        self.table = table
        self.mind = mind
        # the pause as every screen says it: the link's, taken at one moment (here, at each hub state
        # and at each change of the link's connection) for both the remote status and the rival's
        # line, so that no state shows one without the other
        self.mind.waiting = link.paused()
        self.local = local
        self.rival = other(local)
        self.hub: dict | None = None  # the newest state of the hub applied
        self.base = 0  # actions in the history of the view the referee's game was built from
        self.next_seq = 0  # the hub's seq this side's next action is sent at
        self.known: tuple | None = None  # (base, pieces, not_shadow) the hub revealed at this base
        self.oracle = HubOracle(self)
        self._final = None  # the hub's record replayed, once the game is over
        self.called_off: str | None = None  # the side that called the game off before it began
        self.problem: str | None = None
        # while the rival's plans are carried out: the referee's game before them and how many
        # actions the board then showed (the board side shows that game until the plans are done)
        self._before: tuple | None = None

    # The referee's game moves on (follow, replace_game): the session's game is the referee's.
    @property
    def game(self):
        if self.ref is not None:
            return self.ref.game
        return self._game

    @game.setter
    def game(self, value) -> None:
        self._game = value

    @property
    def phase(self) -> str:
        if self._final is not None or self.called_off is not None:
            return "over"
        game = self.game
        if game is None:
            return "setup"
        return "over" if game.is_over() else "playing"

    def setup_done(self) -> dict[str, bool]:
        hub = self.hub or {}
        given = hub.get("setups_in") or {}
        return {p: bool(given.get(p)) or (p == self.local and self.row.setups[p] is not None) for p in PLAYERS}

    def remote_status(self) -> dict:
        """What every audience may know of the remote game: its code, the players' names, the pause."""
        hub = self.hub or {}
        return {"code": self.link.shown, "side": self.local, "phase": hub.get("phase"),
                "names": hub.get("names"), "paused": self.mind.waiting,
                "problem": self.problem or self.link.problem, **ending_status(self),
                "called_off": self.called_off}

    def revealed(self):
        return self._final if self._final is not None else self.game

    # --- the story the board side tells -----------------------------------------------------------

    def following(self) -> bool:
        """Is a plan of the rival's still to be carried out on the board?"""
        ref = self.ref
        return ref is not None and self._before is not None and getattr(ref.state, "value", None) == "follow"

    def shown_view(self, viewer: str | None) -> dict | None:
        """``engine.views.view`` of the game as this board shows it, for ``viewer``, as at one table:
        while the rival's plan is carried out, the position before it (the rival's turn); the move
        list and the events (flashes, Time) from the hub's history, with this side's actions the hub
        has not confirmed yet, each as ``viewer`` may see it.  The rival's own seat (no phone) sees
        what the public sees: this board holds no lineup of the rival's to show it."""
        game = self.game
        if game is None:
            return None
        ref = self.ref
        if self.following():
            game, count = self._before
        else:
            count = self.base + (len(ref.game.log) if ref is not None else 0)
        shown_to = viewer if viewer == self.local else None
        data = view_of(game, shown_to)
        hub_view = (self.hub or {}).get("view") or {}
        items = turned_history(hub_view)[:count]
        from_hub = len(items)
        if ref is not None and not self.following() and count > from_hub:
            items += [(t, p, a.to_record()) for t, p, a in ref.game.log[from_hub - self.base:]]
        if shown_to != self.local and not game.vision:
            items = [(t, p, action_seen_by(game, action_from_record(a), p, None) if p == self.local else a)
                     for t, p, a in items]
        last_hub = items[from_hub - 1][0] if from_hub else 0
        last = items[-1][0] if items else 0
        events = [e for e in hub_view.get("events", []) if e.get("turn", 0) <= last_hub]
        if ref is not None and not self.following():
            events += [e.to_json() for e in ref.game.events if last_hub < e.turn <= last]
        data["history"] = grouped(items)
        data["events"] = events
        if viewer is not None:
            data["viewer"] = viewer
        return data

    def both_setups(self) -> bool:
        return False  # play starts when the hub says both lineups are in

    def save_setup(self, player: str, setup: Setup) -> None:
        if player != self.local:
            raise ValueError(f"setup: {player} plays from afar")
        self.store.save_setup(self.row.id, player, setup)
        self.row = self.store.game(self.row.id)
        self.link.send_setup(setup.to_record())

    def start(self) -> None:  # pragma: no cover - the hub starts a remote game (apply)
        raise RuntimeError("a remote game starts when the hub says so")

    def load(self) -> None:
        """A resumed remote game waits for the hub's state (the hub is the system of record)."""
        self.ref = None
        self._game = None

    def ask_rematch(self, player: str) -> None:
        self.rematch.add(player)
        self.link.send_rematch()

    def _make_referee(self):
        factory = self._referee_factory
        if factory is None:
            from host.referee import Referee

            factory = Referee
        return factory(self._game, on_commit=self._on_commit, settle=self.settle,
                       reads=frozenset({self.local}), oracle=self.oracle)

    # --- the referee's commits go to the hub ------------------------------------------------------

    def _on_commit(self, turn, player, action) -> None:
        """This side's committed action, durable in the link's outbox before anyone hears of it."""
        self.link.send_action(self.next_seq, action.to_record())
        self.next_seq += 1
        self.committed_at = self.wall()

    def in_sync(self) -> bool:
        """Does the hub have every action this board committed (the oracle may ask now)?"""
        if self.hub is None or self.ref is None:
            return False
        return history_count(self.hub.get("view")) == self.base + len(self.ref.game.log) and not any(
            m["route"] == "action" for m in self.link.pending())

    def game_with(self, pieces: dict, not_shadow=()) -> object:
        return standin_game(self.hub["view"], pieces=pieces, not_shadow=not_shadow)

    # --- the hub's states -------------------------------------------------------------------------

    def apply(self, state: dict) -> list:
        """A new state of the hub for this side: the referee's game follows it.  Returns notices."""
        self.hub = state
        names = state.get("names") or {}
        self.mind.name = names.get(self.rival)
        self.mind.waiting = self.link.paused()
        phase = state.get("phase")
        if phase == "over" and state.get("record") is not None:
            return self._over(state)
        if phase == "called_off":
            return self._called_off(state)
        if phase != "playing" or not state.get("view"):
            return []
        view = state["view"]
        count = history_count(view)
        ref = self.ref
        if ref is None:
            return self._build(state)
        local_total = self.base + len(ref.game.log)
        log.debug("hub state seq %s: %s actions, this board at %s (%s in its game), referee %s", state.get("seq"),
                  count, local_total, len(ref.game.log), getattr(ref.state, "value", ref.state))
        if count < local_total:
            return []  # this side's actions are on their way to the hub
        if count == local_total:
            self.next_seq = state["seq"]
            if count > self.base:  # the hub confirmed this side's actions: the referee's game re-based on it
                log.debug("re-based on the hub's state at %s actions", count)
                try:
                    out = ref.replace_game(self._standin(view, count))
                except ValueError:
                    return self._build(state)
                self.base = count
                return list(out)
            return []
        new = flat_history(view)[local_total:]
        if any(player == self.local for player, _ in new):
            return self._build(state)  # actions of this side this board did not see (a restart): set again
        return self._follow(state, new)

    def _standin(self, view: dict, count: int):
        pieces, not_shadow = {}, ()
        if self.known is not None and self.known[0] == count:
            pieces, not_shadow = self.known[1], self.known[2]
        return standin_game(view, pieces=pieces, not_shadow=not_shadow)

    def _build(self, state: dict) -> list:
        """The referee from the hub's state: a new game, or a resume (the board is checked against it)."""
        view = state["view"]
        log.debug("a referee built on the hub's state at %s actions", history_count(view))
        if self.row.status == "setup":
            self.store.start_game(self.row.id)
            self.row = self.store.game(self.row.id)
        self._game = standin_game(view)
        self.base = history_count(view)
        self.next_seq = state["seq"]
        self.known = None
        self._before = None
        self.ref = self._make_referee()
        self.mind.done()
        occupied = self.table.occupied
        if occupied is None:
            return []
        return list(self.ref.feed(Snapshot(self.clock(), occupied)))

    def _plans(self, view: dict, count: int) -> list[dict]:
        """The plans of the rival's actions after the first ``count`` of the view's history: in
        public words, each with what its turn's events say (a flash's outcome, a Time's), the last
        also with whatever else the board must show then (a rewind's undoing)."""
        before = self.ref.game
        occupied = frozenset(N[s] for s in before.occupied())
        mine = frozenset(N[before.state.loc[t]] for t in before.towers_of(self.local) if before.state.loc[t] >= 0)
        after = frozenset(t["space"] for t in view["board"])
        new = turned_history(view)[count:]
        plans = []
        for i, (turn, _, seen) in enumerate(new):
            events = [e for e in view.get("events", []) if e.get("turn") == turn]
            plans.append(plan_of_seen(seen, self.rival, mine, after if i == len(new) - 1 else None, events))
        naive = set(occupied)
        for plan in plans:
            naive = (naive - set(plan.get("lift", []))) | set(plan.get("place", []))
        extra = corrections(frozenset(S_(x) for x in naive), frozenset(S_(x) for x in after))
        if plans and extra:
            last = plans[-1]
            last["lift"] = sorted(set(last["lift"]) | {i.get("from", i.get("space")) for i in extra if i["do"] != "fill"})
            last["place"] = sorted(set(last["place"]) | {i.get("to", i.get("space")) for i in extra if i["do"] != "clear"})
            last["text"] += "; then " + say_list(extra)
            last["also"] = extra  # (drawn as the plan's own steps: a rewind's move back)
        return plans

    def _follow(self, state: dict, new: list) -> list:
        view = state["view"]
        ref = self.ref
        plans = self._plans(view, self.base + len(ref.game.log))
        if view["result"]["status"] != "ongoing":
            return []  # an ended game is followed from its record (the "over" state)
        game = self._standin(view, history_count(view))
        log.debug("following %s: to %s to move, occupancy changes %s", [p["text"] for p in plans], game.to_move,
                  sorted(N[x] for x in game.occupied() ^ ref.game.occupied()))
        out: list = []
        # the rival's earlier plans still shown if the board has not carried them out yet
        shown = self.mind.plans if getattr(ref.state, "value", None) == "follow" else []
        if not shown:
            self._before = (ref.game, self.base + len(ref.game.log))
        try:
            for plan in plans:
                out += ref.follow(game, plan)
        except ValueError as exc:
            log.warning("the rival's action could not be followed: %s", exc)
            return self._build(state)
        self.mind.show(shown + plans)
        self.base = history_count(view)
        self.next_seq = state["seq"]
        self.known = None
        return out

    def _called_off(self, state: dict) -> list:
        """The game was called off before it began (by either side): nobody won; the store keeps it
        abandoned, and the table may start another (the host page's New game)."""
        if self.called_off is not None:
            return []
        self.called_off = state.get("called_off") if state.get("called_off") in PLAYERS else self.rival
        self.ref = None
        self._game = None
        self.mind.done()
        try:
            self.store.abandon(self.row.id)
            self.row = self.store.game(self.row.id)
        except Exception as exc:  # noqa: BLE001 - the game stands called off at the hub; the store says why not
            log.error("the called-off remote game could not be stored as abandoned: %s", exc)
        log.info("remote game %s called off by %s", self.link.shown, self.called_off)
        return []

    def _over(self, state: dict) -> list:
        """The hub's record, every identity open: kept in the store as a finished game."""
        if self._final is not None:
            return []
        try:
            record = load_record(state["record"])
            final = replay(record)
        except ValueError as exc:
            self.problem = f"the hub's record of the game does not replay: {exc}"
            log.error("%s", self.problem)
            return []
        out: list = []
        ref = self.ref
        if ref is not None and not ref.game.is_over():
            # the rival's last action ended the game: carried out on the board as a plan
            view = state["view"]
            count = self.base + len(ref.game.log)
            new = flat_history(view)[count:]
            log.debug("the game is over: %d actions of the rival to follow", len(new))
            if new and all(p == self.rival for p, _ in new):
                plans = self._plans(view, count)
                self._before = (ref.game, count)
                try:
                    for plan in plans:
                        out += ref.follow(final, plan)
                    self.mind.show(plans)
                except ValueError as exc:
                    log.warning("the rival's last action could not be followed: %s", exc)
        self._final = final
        try:
            self.store.save_setup(self.row.id, self.rival, record.setups[self.rival])
            if self.row.status == "setup":
                self.store.start_game(self.row.id)
            self.store.commit_action(self.row.id, final)
            self.row = self.store.game(self.row.id)
        except Exception as exc:  # noqa: BLE001 - the game stands on the hub; the store says why not
            log.error("the finished remote game could not be stored: %s", exc)
        return out


class RemotePlay:
    """Puts a remote game on a table: the link's states, under the table's lock, into its session."""

    def __init__(self, table, seat):
        self.table = table
        self.seat = seat
        self.link = seat.link
        self.states = 0

    def on_state(self, state: dict) -> None:
        table = self.table
        with table.lock:
            session = table.session
            if not isinstance(session, RemoteSession):
                return
            if state.get("side") != session.local:
                if state.get("phase") not in ("waiting", "setup"):
                    log.warning("the hub's state is for %s, not %s", state.get("side"), session.local)
                    return
                session = self._new_round(state)
            try:
                notices = session.apply(state)
            except Exception:  # noqa: BLE001 - a state that cannot be applied must not stop the link
                log.exception("the hub's state could not be applied")
                notices = []
            self.states += 1
            table.publish(notices)

    @property
    def mind(self):
        return self.seat.mind

    def _new_round(self, state: dict) -> "RemoteSession":
        """The rematch the hub started: sides swapped, the same seats.  This board's player keeps
        their phone (its token moves to their new side); a new game in setup."""
        from host.session.seats import OffBoardSeat, PhoneSeat, Seats

        from .mind import RemoteMind

        table, seat, link = self.table, self.seat, self.link
        old = seat.local
        new = state["side"]
        tokens = table.seats.tokens
        seat.local = new
        seat.mind = RemoteMind(other(new), name=(state.get("names") or {}).get(other(new)))
        table.seats = Seats({new: PhoneSeat(new), other(new): OffBoardSeat(other(new), seat.mind)})
        table.seats.set_tokens({new: tokens[old], other(new): tokens[other(old)]})
        row = table.session.row
        table.new_game(row.mode, row.vision, row.first)
        table.store.set_meta("remote_game", f"{link.code}:{table.row.id}")
        table.broker.disconnect(old)  # the phone's stream reopens as its new side's
        log.info("rematch of %s: this board now plays %s", link.shown, new)
        return table.session

    def on_status(self) -> None:
        table = self.table
        with table.lock:
            session = table.session
            if isinstance(session, RemoteSession):
                self.mind.waiting = self.link.paused()
            table.publish()


def session_factory(seat) -> Callable:
    """The table's session factory for a remote game (``Table(session_factory=...)``): ``seat`` (a
    ``host.remote.service.RemoteSeat``) says the link, this board's side and the rival's mind, which
    a rematch swaps."""

    def make(table, store, row, **kw):
        return RemoteSession(store, row, link=seat.link, table=table, mind=seat.mind, local=seat.local, **kw)

    return make
