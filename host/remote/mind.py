"""The rival's mind at this board: a remote player whose decisions arrive from the hub.

:class:`RemoteMind` is the mind of the rival's ``OffBoardSeat`` (``host.session.seats``).  It
decides nothing: the remote session (``host.remote.session``) hands it each action the rival
committed elsewhere, in the form this side sees it (the hub's ``last`` or the view's history:
a Reflection as a move, a Memory Swap as two spaces, Void Gravity as moves, a single reinforcement
without its piece), and it shows it as a *plan* for the person at the board, in public words and
spaces only (``host.opponent.driver.plan_of``): lift here, place there; a flash is announced
before anyone touches a tower (both towers come up, and where the winner stands is lit).

Its ``who`` names the remote player: "Bob, playing from afar".
"""

from __future__ import annotations

from engine.actions import Gravity, Move, Pass, Reflect, Reinforce, Resurrect, Swap, Time
from engine.board import PLAYERS, other
from engine.flash import CAPTURE, SWAP
from host.opponent.driver import plan_of
from host.referee import wording

# The record types of an action as a side that did not play it sees it (engine.views.action_seen_by),
# and the full forms Vision Mode shows.
KINDS = {"move": Move, "reflect": Reflect, "swap": Swap, "moves": Gravity, "gravity": Gravity,
         "reinforce": Reinforce, "resurrect": Resurrect, "time": Time, "pass": Pass}


def plan_of_seen(seen: dict, side: str, rival_spaces=frozenset(), after: frozenset[str] | None = None,
                 events: list[dict] = ()) -> dict:
    """The plan for the rival's action ``seen`` (its record as this side sees it), in public words.

    ``rival_spaces``: spaces holding towers of the side that did not play it (this board's player)
    before the action, so a move onto one is announced as a flash.  ``after``: the occupied spaces
    after the action (the hub's view); a flash then also says where its winner stands.  ``events``:
    the public events of the action's turn (the hub's view: a flash's outcome, a Time's), said in
    the plan with the words the referee says at one table (``host.referee.wording``); a flash's
    becomes ``plan["outcome"]`` (``player``, ``from``, ``at``, ``attacker``, ``defender``,
    ``outcome``), as the referee's ``flash`` status has it."""
    kind = KINDS.get(seen.get("type")) if isinstance(seen, dict) else None
    if kind is None:
        raise ValueError(f"seen: unknown action type {seen.get('type') if isinstance(seen, dict) else seen!r}")
    if kind is Swap and "memory" in seen:  # the full form (Vision Mode)
        seen = {"type": "swap", "spaces": sorted([seen["memory"], seen["with"]])}
    if kind is Gravity and "void" in seen:
        seen = {"type": "moves", "moves": seen["moves"]}
    plan = plan_of(kind, seen, side, rival_spaces)  # the kind of action; the rest is in ``seen``
    flash = next((e for e in events if e.get("type") == "flash" and e.get("at") == plan.get("to")), None)
    if plan.get("flash") and flash is not None:
        a, b = plan["from"], plan["to"]
        plan["outcome"] = {"player": side, "from": a, "at": b, "attacker": flash["attacker"],
                           "defender": flash["defender"], "outcome": flash["outcome"]}
        said = wording.flash_text(side, a, b, flash["attacker"], flash["defender"], flash["outcome"])
        plan["place"] = {CAPTURE: [b], SWAP: [a, b]}.get(flash["outcome"], [])
        plan["text"] = f"{side.capitalize()}'s tower on {a} flashes the tower on {b}: {said}"
        return plan
    if kind is Time:
        timed = next((e for e in events if e.get("type") == "time"), None)
        if timed is not None and timed.get("outcome") in ("rewound", "failed"):
            Side, Rival = side.capitalize(), other(side).capitalize()
            plan["outcome"] = timed["outcome"]
            said = (f"{Rival}'s last action is undone" if timed["outcome"] == "rewound"
                    else f"it fails, {Rival}'s last action moved a Shadow")
            plan["text"] = f"{Side} uses the Power of Time: {said}; take {Side}'s Time tower on {plan['at']} off the board"
    if plan.get("flash") and after is not None:
        b = plan["to"]
        if b in after:
            plan["place"] = [b]
            plan["text"] += f"; then put the winning tower on {b}"
        else:
            plan["text"] += "; both towers leave the board"
    return plan


class RemoteMind:
    """The rival's mind: its plan is the hub's, shown for the person who moves its towers."""

    remote = True  # a person far away (how the serve command and the pages name the seat)

    def __init__(self, side: str, name: str | None = None):
        if side not in PLAYERS:
            raise ValueError(f"side: expected 'white' or 'black', got {side!r}")
        self.side = side
        self.name = name
        self.plans: list[dict] = []  # the rival's actions still to be carried out on this board
        self.waiting: str | None = None  # why the rival's moves cannot come now (the game paused)

    @property
    def who(self) -> str:
        return f"{self.name or 'your friend'}, playing from afar"

    def show(self, plans: list[dict]) -> None:
        """The plans the referee now follows (the newest actions of the rival), in order."""
        self.plans = [dict(p) for p in plans]

    def done(self) -> None:
        self.plans = []

    # --- what the table asks of a mind -----------------------------------------------------------

    def step(self, table) -> None:
        """Nothing: the rival's decisions arrive from the hub (the remote session hands them over)."""

    def _following(self, table) -> bool:
        return bool(self.plans) and table.following

    def public_status(self, table) -> dict:
        out: dict = {"side": self.side, "remote": True, "who": self.who, "thinking": False}
        game = table.game
        if self._following(table):
            steps = [p["text"] for p in self.plans]
            out["plan"] = dict(self.plans[-1]) if len(self.plans) == 1 else {"steps": [dict(p) for p in self.plans]}
            out["text"] = f"{self.who}: " + "; then ".join(steps)
        elif (game is not None and table.phase == "playing" and game.to_move == self.side
              and table.board_phase == "play"):
            out["thinking"] = True
            out["text"] = f"{self.who}: it is their turn"
        if self.waiting:
            out["waiting"] = self.waiting
        return out

    def led_items(self, table) -> list[dict]:
        """The plans' lifts (red) and places (green), while the referee waits for them."""
        if not self._following(table):
            return []
        lift = sorted({s for p in self.plans for s in p.get("lift", [])})
        place = sorted({s for p in self.plans for s in p.get("place", [])})
        items = []
        if lift:
            items.append({"kind": "remove", "spaces": lift})
        if place:
            items.append({"kind": "place", "spaces": place})
        return items
