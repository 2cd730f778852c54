"""One game at one table: the game, its referee, its seats and what each audience sees.

- :mod:`.session`: :class:`Session`, one game (its row, the engine's game, its referee, its
  durable commits);
- :mod:`.seats`: :class:`PhoneSeat`, :class:`OffBoardSeat` (a mind decides, a person at the board
  carries out its plan: the practice opponent), :class:`Seats`;
- :mod:`.projections`: each audience's state and the board's LEDs;
- :mod:`.table`: :class:`~host.session.table.Table`, the live table the web and the board loop
  drive, one session after another.
"""

from .seats import OffBoardSeat, PhoneSeat, Seat, Seats
from .session import Session

__all__ = ["OffBoardSeat", "PhoneSeat", "Seat", "Seats", "Session"]
