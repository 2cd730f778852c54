"""A short scripted game for the browser tests: a Time rewind, two flashes and a win.

The hands are HTTP calls to the virtual board (``POST /api/board/toggle``) and
the seats' inputs, as a person tapping would send them; the pages under test
only watch.  Nothing here reads the referee's or the engine's internals to
decide what to do: it waits for what the public state says.
"""

from __future__ import annotations

from tests.support.waiting import waiter
from tests.support.webtools import get_json, post_json

# White: clone Time, remove a Void.  The Shadow on w38 crosses the Iris; a Time tower on w28.
WHITE = {"clone": "time", "removed": "void", "lineup": {
    "w18": "peripheral", "w28": "time", "w38": "shadow", "w48": "shadow", "w58": "peripheral",
    "w19": "void", "w29": "void", "w39": "light", "w49": "reflector", "w59": "memory"}}
# Black: clone Void, remove Time.  A Peripheral on b38 to be captured, the Light behind it on b39.
BLACK = {"clone": "void", "removed": "time", "lineup": {
    "b18": "void", "b28": "void", "b38": "peripheral", "b48": "shadow", "b58": "shadow",
    "b19": "reflector", "b29": "void", "b39": "light", "b49": "reflector", "b59": "memory"}}


wait_for = waiter(timeout=10.0, every=0.03)  # the browser tests' wait


class Hands:
    """The people at the table: they tap the virtual board and their phones."""

    def __init__(self, base: str, tokens: dict, board_key: str):
        self.base = base
        self.tokens = tokens
        self.board = {"X-Board-Key": board_key}  # the virtual board's link carries it

    def state(self) -> dict:
        return get_json(f"{self.base}/api/state")[1]

    def actions(self) -> int:
        view = self.state()["view"]
        return sum(len(t["actions"]) for t in view["history"]) if view else 0

    def toggle(self, *spaces: str) -> None:
        for space in spaces:
            status, body = post_json(f"{self.base}/api/board/toggle", {"space": space}, self.board)
            assert status == 200, body

    def setup(self, player: str, setup: dict) -> dict:
        token = self.tokens[player]
        status, body = post_json(f"{self.base}/api/seat/{token}/setup", setup, {"X-Seat-Token": token})
        assert status == 200, body
        return body

    def declare(self, player: str, data: dict) -> tuple[int, dict]:
        token = self.tokens[player]
        return post_json(f"{self.base}/api/seat/{token}/input", data, {"X-Seat-Token": token})

    def start(self) -> None:
        status, body = post_json(f"{self.base}/api/board/set", {"start": True}, self.board)
        assert status == 200, body
        wait_for(lambda: (self.state()["referee"] or {}).get("phase") == "play", "play to begin")

    def move(self, frm: str, to: str) -> None:
        n = self.actions()
        self.toggle(frm, to)
        wait_for(lambda: self.actions() > n, f"{frm}-{to} to be committed")

    def flash(self, frm: str, to: str) -> None:
        """Lift the attacker and the tower it flashes; wait for the flash to be announced."""
        self.toggle(frm, to)
        wait_for(lambda: (self.state()["referee"] or {}).get("flash"), f"the flash on {to}")

    def finish(self, *spaces: str) -> None:
        n = self.actions()
        self.toggle(*spaces)
        wait_for(lambda: self.actions() > n, "the action to be committed")


def to_first_flash(hands: Hands, on_time=None, rewind: bool = True) -> None:
    """Setups, the start, White's Shadow in, Black's move rewound by White's Time, up to the flash on b38.

    With ``rewind`` False White keeps its Time tower on w28 (usable during the flash)."""
    hands.setup("white", WHITE)
    hands.setup("black", BLACK)
    hands.start()
    hands.move("w38", "w31")          # 1. White's Shadow: seven spaces in
    hands.move("b18", "b17")          # 2. Black's Void
    if not rewind:
        hands.move("w31", "b35")
        hands.move("b17", "b16")
        hands.flash("b35", "b38")
        return
    status, body = hands.declare("white", {"type": "time"})
    assert status == 200, body
    wait_for(lambda: (hands.state()["referee"] or {}).get("time"), "the Time announcement")
    if on_time:
        on_time()
    hands.finish("w28", "b17", "b18")  # 3. White's Time (from w28) rewinds b18-b17 ...
    hands.move("w31", "b35")          # ... and the Shadow crosses the Iris
    hands.move("b18", "b17")          # 4. Black moves the Void again
    hands.flash("b35", "b38")         # 5. the Shadow flashes the Peripheral on b38


def to_the_end(hands: Hands) -> None:
    hands.finish("b38")               # the Shadow takes b38: capture
    hands.move("b28", "b27")          # 6. another Void of Black's
    hands.flash("b38", "b39")         # 7. the Shadow flashes Black's Light
    hands.finish("b39")               # capture: White wins
    wait_for(lambda: hands.state()["phase"] == "over", "the result")
