"""Play a game through the web API as people at the table would.

The driver knows the actions it wants (a shadow :class:`engine.game.Game`),
and does only what players do: send setups from the seats, move towers on the
simulated board (``POST /api/board/set``), declare and answer the referee's
questions from the mover's seat (``POST /api/seat/<token>/input``).  Time
passes on the simulated board's manual clock, and the referee is ticked by
hand, so nothing sleeps.
"""

from __future__ import annotations

import random

from engine.actions import action_from_record, Gravity, Move, Pass, Reflect, Reinforce, Resurrect, Swap, Time
from engine.board import BLACK, SPACE_NAMES, WHITE, parse_space
from engine.game import Game
from engine.randplay import random_setup
from host.web.sim import HEADER as BOARD_HEADER
from host.web.sim import board_key

N = SPACE_NAMES


class Driver:
    def __init__(self, client, table, record=None):
        self.client = client
        self.table = table
        self.record = record  # called with (audience, url or "event", payload) for every response seen
        self.shadow: Game | None = None

    # --- http --------------------------------------------------------------------------------

    def get(self, url: str, audience: str) -> dict:
        r = self.client.get(url)
        assert r.status_code == 200, (url, r.status_code, r.get_json())
        body = r.get_json()
        if self.record:
            self.record(audience, url, body)
        return body

    def seat_post(self, player: str, path: str, body: dict, expect: int = 200) -> dict:
        token = self.table.tokens[player]
        r = self.client.post(f"/api/seat/{token}/{path}", json=body, headers={"X-Seat-Token": token})
        assert r.status_code == expect, (path, body, r.status_code, r.get_json())
        data = r.get_json()
        if self.record:
            self.record(player, path, data)
        return data

    def board(self, occupied) -> None:
        r = self.client.post("/api/board/set", json={"occupied": sorted(N[s] for s in occupied)},
                             headers={BOARD_HEADER: board_key(self.table.host_key)})
        assert r.status_code == 200, r.get_json()

    def wait(self, seconds: float) -> None:
        """Let time pass on the board's clock, ticking the referee as the ticker thread would."""
        clock = self.table.board.clock
        steps = max(1, int(seconds / 0.05))
        for _ in range(steps):
            clock.advance(seconds / steps)
            self.table.tick()
            self.ticked()

    def ticked(self) -> None:
        """After each tick of :meth:`wait` (a player who reacts at once overrides it)."""

    def look(self, rival_of: str | None = None) -> None:
        """Fetch what the public and (optionally) a rival may see, for the privacy scan."""
        self.get("/api/state", "public")
        if rival_of is not None:
            rival = "black" if rival_of == "white" else "white"
            self.get(f"/api/seat/{self.table.tokens[rival]}/state", rival)

    # --- the game --------------------------------------------------------------------------------

    def setup(self, white, black) -> None:
        self.seat_post("white", "setup", white.to_record())
        self.seat_post("black", "setup", black.to_record())
        game = self.table.game
        assert game is not None, "both setups are in: the game must have started"
        self.shadow = Game(white, black, game.mode, game.vision, game.first)
        self.board(game.occupied())
        self.wait(0.5)
        assert self.table.ref.phase == "play", self.table.ref.public_status()

    def _same_as(self, action, options: list[dict]) -> dict | None:
        """The option that leaves the game exactly as ``action`` would (the referee lists one per result)."""
        shadow = self.shadow
        shadow.push(action)
        want = shadow.state.key()
        shadow.pop()
        for option in options:
            other = action_from_record(option)
            if not shadow.is_legal(other):
                continue
            shadow.push(other)
            same = shadow.state.key() == want
            shadow.pop()
            if same:
                return option
        return None

    def play(self, action) -> None:
        """Carry out one action on the board and the mover's phone; it must be committed."""
        game = self.table.game
        shadow = self.shadow
        mover = game.to_move
        n = len(game.log)
        before = shadow.occupied()
        shadow.push(action)
        after = shadow.occupied()
        shadow.pop()

        declare = None
        if isinstance(action, Reinforce):
            declare = {"type": "reinforce", "pieces": [p for _, p in action.placements]}
        elif isinstance(action, Resurrect):
            declare = {"type": "resurrect", "piece": action.piece}
        elif isinstance(action, Time):
            declare = {"type": "time"}
        elif isinstance(action, Swap):
            declare = {"type": "swap"}
        if declare:
            self.seat_post(mover, "input", declare)

        if isinstance(action, Pass):
            self.seat_post(mover, "input", {"type": "done"})
        else:
            lifted = set(before - after)
            if isinstance(action, (Move, Reflect)):
                lifted |= {action.frm} | ({action.to} & before)
            elif isinstance(action, Swap):
                lifted |= {action.memory, action.other}
            elif isinstance(action, Gravity):
                lifted |= {a for a, _ in action.moves}
            # Follow the referee's instructions (a rewind moves towers back, perhaps in place).
            for ins in self.table.ref.public_status().get("instructions") or []:
                for key in ("from", "to", "space"):
                    if key in ins and parse_space(ins[key]) in before:
                        lifted.add(parse_space(ins[key]))
            if lifted:
                self.board(before - lifted)
                self.wait(0.3)
            self.board(after)
            self.wait(0.3)

        for _ in range(6):
            if len(game.log) > n:
                break
            private = self.table.ref.private_status(mover)
            question = private.get("question")
            if question:
                choice = self._same_as(action, question["options"])
                assert choice is not None, f"{action} is not among the referee's options {question['options']}"
                self.seat_post(mover, "input", {"type": "choose", "action": choice})
            elif question is None:
                # "Done": the mover says the action is finished (e.g. fewer Voids pulled than could be).
                token = self.table.tokens[mover]
                self.client.post(f"/api/seat/{token}/input", json={"type": "done"}, headers={"X-Seat-Token": token})
            self.wait(2.0)
        assert len(game.log) > n, (
            f"not committed: {action} by {mover}: {self.table.ref.public_status()} {self.table.ref.private_status(mover)}"
        )
        committed = game.log[n][2]
        # Actions with the same result on the board are one to the referee (a Light moved
        # two spaces or reflected there): it records the plainest.  The shadow follows it.
        shadow.push(committed)
        assert shadow.occupied() == after, f"committed {committed}, meant {action}"
        # The referee may commit a forced pass by itself.
        while len(shadow.log) < len(game.log):
            shadow.push(game.log[len(shadow.log)][2])


def make(tmp_path, **config):
    """A table served by a Flask app in ``tmp_path``, on a manual clock: (app, its test client, the table)."""
    from host.compose import create_app

    conf = {"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True}
    conf.update(config)
    app = create_app(conf)
    return app, app.test_client(), app.extensions["quin.table"]


def setups(seed=1):
    """Seeded random lineups: (White's, Black's)."""
    rng = random.Random(seed)
    return random_setup(rng, WHITE), random_setup(rng, BLACK)


def started(web, seed=1):
    """The game on ``web`` (what ``make`` returned) started with ``setups(seed)``: its Driver."""
    app, client, table = web
    driver = Driver(client, table)
    driver.setup(*setups(seed))
    return driver
