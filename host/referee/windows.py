"""The referee's module-wide constants: how long a word may be late or early, and how many may wait
(docs/referee.md, "Windows").  The per-game windows are the Referee's arguments."""

from __future__ import annotations

from engine.board import SPACE_NAMES

N = SPACE_NAMES
INF = float("inf")
#: a player's words about an action they played this long ago are late, not early (a `done` or
#: `choose` tapped while the referee had already read the board)
LATE = 5.0
#: a ``choose`` from the player not to move, said this soon after the board's last raw change while the
#: mover's action is on the board, is kept for their own turn (a brisk next player names their action
#: 0.1 to 0.3 s after the rival's tower touched down, and a landing bounces up to 80 ms); said later,
#: with the board still, it is refused as before ("it is white's turn", whatever it names)
NEXT_WORD = 0.4
#: words one player may have waiting at once (a turn needs a few: Time, Resurrection, a swap, a choice)
MAX_WORDS = 8
