"""The opponent at the table: `quin serve --opponent white|black [--level N]`.

:class:`TableOpponent` is the mind of one off-board seat of a
:class:`host.session.table.Table` (``host.session.seats.OffBoardSeat``).  The
table calls the seat's ``step`` after every change (under its lock), which
calls :meth:`TableOpponent.step`; the opponent then

- sends its own setup when the game is in setup (seeded, with variety);
- on its turn, decides from ``engine.views.view(game, its side)`` only (in a
  worker thread, so the table keeps reading the board), then makes its
  declarations through the table's normal input path (``Table.input``, the
  referee's ``input(player, data, now)``): the exact action it chose
  (``choose``), and for the Power of Time the declaration (``time``), so the
  referee announces it as for any player;
- publishes a *plan* for the human who moves its towers: lift here, place
  there, built from the action's record form as the public sees it (a
  Reflection as a move, a Memory Swap as two spaces, Void Gravity as moves,
  a single reinforcement without its piece), so it never names a hidden
  identity.

The human moves the opponent's towers on the board and the referee checks the
board as for any other action.  The opponent's towers need no faces: which
physical tower stands where is all the board sees, and the referee keeps the
identities (a flash or a Time shows them on the status page).

The plan appears no sooner than ``min_think`` seconds after the opponent's
step began, so how long it thought (which depends on its own towers) does not
show.
"""

from __future__ import annotations

import os
import random
import threading

from engine.actions import Gravity, Move, Pass, Reflect, Reinforce, Resurrect, Swap, Time
from engine.board import PLAYERS, SPACE_NAMES
from engine.views import action_seen_by, view
from host.clock import Clock, clock_of

from .lineup import choose_setup
from .search import DEFAULT_LEVEL, MAX_LEVEL, choose

N = SPACE_NAMES


def plan_of(action, seen: dict, side: str, rival_spaces=frozenset()) -> dict:
    """What the human does with the opponent's towers for ``action`` (an action, or its class: only
    its kind is read): public words and spaces only.

    ``seen`` is the action as the public sees it (``action_seen_by(..., None)``);
    lift/place are what the LEDs light.  ``rival_spaces``: the spaces holding the
    rival's towers (public), so a move onto one is announced as the flash it is
    before anyone lifts a tower: both towers come up, and the flash then says
    who wins.
    """
    kind = action if isinstance(action, type) else type(action)
    Side = side.capitalize()
    rival = "black" if side == "white" else "white"
    who = f"{Side}'s tower"
    if kind in (Move, Reflect):
        a, b = seen["from"], seen["to"]
        if b in rival_spaces:
            return {"do": "move", "flash": True, "from": a, "to": b, "lift": [a, b], "place": [],
                    "text": f"{who} on {a} flashes {rival.capitalize()}'s tower on {b}: lift both towers, "
                            "then the flash says who wins"}
        return {"do": "move", "from": a, "to": b, "lift": [a], "place": [b],
                "text": f"move {who} on {a} to {b}"}
    if kind is Swap:
        a, b = seen["spaces"] if "spaces" in seen else sorted([seen["memory"], seen["with"]])
        return {"do": "swap", "spaces": [a, b], "lift": [a, b], "place": [a, b],
                "text": f"{Side} makes a Memory Swap: swap {Side}'s towers on {a} and {b}"}
    if kind is Gravity:
        moves = seen.get("moves", {})
        steps = ", ".join(f"{a} to {b}" for a, b in sorted(moves.items()))
        return {"do": "moves", "moves": dict(sorted(moves.items())), "lift": sorted(moves), "place": sorted(moves.values()),
                "text": f"move {Side}'s towers: {steps}"}
    if kind is Reinforce:
        spaces = sorted(seen["to"])
        pieces = sorted({p for p in seen["to"].values() if p})
        what = f" ({', '.join(p.replace('_', ' ').title() for p in pieces)})" if pieces else ""
        return {"do": "reinforce", "spaces": spaces, "lift": [], "place": spaces,
                "text": f"put {len(spaces)} of {Side}'s reserve towers{what} on {', '.join(spaces)}"
                if len(spaces) > 1 else f"put one of {Side}'s reserve towers on {spaces[0]}"}
    if kind is Resurrect:
        piece = seen["piece"].replace("_", " ").title()
        return {"do": "resurrect", "spaces": [seen["to"]], "lift": [], "place": [seen["to"]],
                "text": f"{Side} resurrects its {piece}: put it on {seen['to']}"}
    if kind is Time:
        text = f"{Side} uses the Power of Time: take its tower on {seen['at']} off the board"
        plan = {"do": "time", "at": seen["at"], "lift": [seen["at"]], "place": []}
        if "target" in seen:
            text += f", and push the tower on {seen['target']} back to {seen['to']}"
            plan.update({"target": seen["target"], "to": seen["to"]})
            plan["lift"].append(seen["target"])
            plan["place"].append(seen["to"])
        plan["text"] = text
        return plan
    return {"do": "pass", "lift": [], "place": [], "text": f"{Side} passes"}


class TableOpponent:
    """The mind of an off-board seat (``host.session.seats.OffBoardSeat``): the practice opponent."""

    who = "the practice opponent"  # how the table's messages name it

    def __init__(
        self,
        side: str,
        level: int = DEFAULT_LEVEL,
        seed: int | None = None,
        *,
        threaded: bool = True,
        min_think: float = 1.0,
        clock: Clock | None = None,
    ):
        """``clock`` (``host.clock``) times ``min_think``; by default the table's own clock (the
        service's one time source), read when the opponent steps."""
        if side not in PLAYERS:
            raise ValueError(f"side: expected 'white' or 'black', got {side!r}")
        if not 0 <= level <= MAX_LEVEL:
            raise ValueError(f"level: expected 0 to {MAX_LEVEL}, got {level!r}")
        self.side = side
        self.level = level
        self.seed = seed if seed is not None else int.from_bytes(os.urandom(4), "big")
        self.threaded = threaded
        self.min_think = min_think
        self.clock = clock
        self._busy = False  # re-entry guard: our own inputs publish, which calls step again
        self._key: tuple | None = None  # the step the plan is for (game id, actions played)
        self._plan: dict | None = None
        self._thinking: tuple | None = None
        self._error: str | None = None

    # --- what the table shows --------------------------------------------------------------

    # Both read the table as it is now, not what the last step left: the table publishes before
    # it steps the opponent, so a plan for an action already played, or a turn not yet seen as
    # the opponent's, would otherwise go out until the next change.

    @staticmethod
    def _at(table) -> tuple | None:
        """The step the table is at, (game id, actions played); None outside a game in play."""
        game = table.game
        if table.phase == "setup" or game is None or table.board_phase is None or game.is_over():
            return None
        return (table.row.id, len(game.log))

    def _current_plan(self, table) -> dict | None:
        at = self._at(table)
        return self._plan if at is not None and self._key == at else None

    def public_status(self, table) -> dict:
        """For every audience: who the opponent is and what to do with its towers now."""
        plan = self._current_plan(table)
        at = self._at(table)
        thinking = plan is None and at is not None and (
            self._thinking == at  # deciding
            or (table.game.to_move == self.side and table.board_phase == "play")  # about to
        )
        out = {"side": self.side, "level": self.level, "thinking": thinking}
        if plan is not None:
            out["plan"] = {k: v for k, v in plan.items() if k != "_action"}
            out["text"] = "Opponent: " + plan["text"]
        elif thinking:
            out["text"] = f"{self.side.capitalize()} (the practice opponent, level {self.level}) is thinking"
        if self._error:
            out["error"] = self._error
        return out

    def led_items(self, table) -> list[dict]:
        """LED guidance for the plan: lift (red), place (green)."""
        plan = self._current_plan(table)
        if plan is None:
            return []
        items = []
        if plan["lift"]:
            items.append({"kind": "remove", "spaces": list(plan["lift"])})
        if plan["place"]:
            items.append({"kind": "place", "spaces": list(plan["place"])})
        return items

    # --- driven by the table -------------------------------------------------------------------

    def step(self, table) -> None:
        """Called by the table after every change, holding its lock."""
        if self._busy:
            return
        self._busy = True
        try:
            self._step(table)
        finally:
            self._busy = False

    def _step(self, table) -> None:
        if table.phase == "setup":
            row = table.row
            if row is not None and row.setups[self.side] is None:
                setup = choose_setup(self.side, self.level, random.Random(f"{self.seed}:{row.id}"))
                table.submit_setup(self.side, setup.to_record())
            return
        game, phase = table.game, table.board_phase
        if game is None or phase is None or game.is_over():
            self._plan = None
            return
        key = (table.row.id, len(game.log))
        if self._key != key:
            self._key, self._plan, self._thinking = key, None, None
        if game.to_move != self.side or phase != "play":
            return
        if self._thinking is not None:
            return
        self._thinking = key
        seen = view(game, self.side)  # the only thing the opponent gets
        clock = clock_of(self.clock) if self.clock is not None else clock_of(table)
        started = clock.now()
        if self.threaded:
            threading.Thread(target=self._think, args=(table, key, seen, started, clock), name="quin-opponent",
                             daemon=True).start()
        else:
            self._decided(table, key, choose(seen, self.level, self.seed), started)
            table.refresh()

    def _think(self, table, key, seen, started, clock: Clock) -> None:
        action = choose(seen, self.level, self.seed)
        wait = self.min_think - (clock.now() - started)
        if wait > 0:
            clock.sleep(wait)
        with table.lock:
            self._busy = True
            try:
                self._decided(table, key, action, started)
            finally:
                self._busy = False
            table.refresh()

    def _decided(self, table, key, action, started) -> None:
        game = table.game
        if game is None or (table.row.id, len(game.log)) != key or game.to_move != self.side:
            return  # the game moved on meanwhile (a new game, a resume): decide again next time
        seen = action_seen_by(game, action, self.side, None)
        rivals = {t["space"] for t in view(game, None)["board"] if t["owner"] != self.side}  # public
        plan = plan_of(action, seen, self.side, rivals)
        self._error = None
        try:
            if type(action) is Time:
                table.input(self.side, {"type": "time"})
            table.input(self.side, {"type": "choose", "action": action.to_record()})
            if type(action) is Pass:
                table.input(self.side, {"type": "done"})
        except ValueError:
            # The referee's reason may name the opponent's own pieces: never shown.  The
            # plan still stands; the referee reads the board as for any player.
            self._error = "the referee did not take the opponent's declaration; follow the plan on the board"
        if (table.row.id, len(table.game.log)) == key:
            self._plan = plan
