"""The seats at a table: who plays each side, and how their decisions reach the referee.

A :class:`Seat` is one side's place at the table.  It keeps its token (the store's seat token,
192 random bits) from game to game; what differs between kinds is where the side's decisions come
from and who moves its towers:

- :class:`PhoneSeat`: a person at the board with a phone.  The phone joins with the token (its QR
  code), sends setups and declarations, and its owner moves their own towers.
- :class:`OffBoardSeat`: the side's decisions come from elsewhere (a *mind*), and a person at the
  board carries them out by following a plan the status page, the virtual board and the LEDs
  show.  The practice opponent (``host.opponent.driver.TableOpponent``) is the first mind; a
  remote player's link is the next: a mind that receives the player's choices over the network
  instead of searching for them.  The seat has no phone: its token seats nobody.

A mind is any object with

- ``side``: the player it plays;
- ``who``: how a message names it ("the practice opponent");
- ``step(table)``: called after every publication, under the table's lock: it may send its setup
  (``table.submit_setup``) and its declarations (``table.input``), as a phone would;
- ``public_status(table) -> dict``: what every audience may know of it (its plan, in public words
  and spaces only), shown as the state's ``opponent``;
- ``led_items(table) -> list``: LED guidance for its plan (``host.board.leds.colours`` items).

Room is left for a seat on another board (two tables playing one game): it would be a seat whose
towers are read by a second board source; its moves reach the referee as the moves of a mind do,
and the plan it shows here is the other board's moves for the person who mirrors them.
"""

from __future__ import annotations

import hmac

from engine.board import PLAYERS


class Seat:
    """One side's place at the table."""

    kind = "seat"
    phone = False  # whether a phone joins this seat with its token

    def __init__(self, player: str, token: str | None = None):
        if player not in PLAYERS:
            raise ValueError(f"player: expected 'white' or 'black', got {player!r}")
        self.player = player
        self.token = token

    # what the table asks of every seat, after every publication and for every projection
    def step(self, table) -> None:
        """Act on the table as it now is (under its lock): nothing for a person's seat."""

    def public_status(self, table) -> dict | None:
        """What every audience may know of who plays this seat beyond the game itself; None: nothing."""
        return None

    def led_items(self, table) -> list[dict]:
        """LED guidance this seat adds to the referee's (``host.board.leds.colours`` items)."""
        return []

    def holds(self, given: bytes) -> bool:
        """Does ``given`` (a token's bytes) join this seat?  Constant time; only a phone seat is joined."""
        return False

    def no_phone(self) -> str | None:
        """Why this seat has no phone (for a refused re-issue), or None when it has one."""
        return None


class PhoneSeat(Seat):
    """A person at the board with a phone: the phone joins with the token."""

    kind = "phone"
    phone = True

    def holds(self, given: bytes) -> bool:
        return bool(self.token) and hmac.compare_digest(given, self.token.encode())


class OffBoardSeat(Seat):
    """A side whose decisions come from ``mind``; a person at the board moves its towers by its plan."""

    kind = "off_board"

    def __init__(self, player: str, mind, token: str | None = None):
        super().__init__(player, token)
        if mind.side != player:
            raise ValueError(f"the seat's mind plays {mind.side}, not {player}")
        self.mind = mind

    @property
    def who(self) -> str:
        return self.mind.who

    def step(self, table) -> None:
        self.mind.step(table)

    def public_status(self, table) -> dict | None:
        return self.mind.public_status(table)

    def led_items(self, table) -> list[dict]:
        return self.mind.led_items(table)

    def no_phone(self) -> str | None:
        return f"{self.player} is played by {self.who}: its seat has no phone to re-issue"


class Seats:
    """The two seats of a table, by player."""

    def __init__(self, seats: dict[str, Seat]):
        self._seats = dict(seats)
        self._tokens: dict[str, str] = {p: s.token for p, s in self._seats.items() if s.token is not None}

    @classmethod
    def of(cls, minds=()) -> "Seats":
        """A phone seat for each player, except those an off-board mind plays."""
        seats: dict[str, Seat] = {p: PhoneSeat(p) for p in PLAYERS}
        for mind in minds:
            if mind is not None:
                seats[mind.side] = OffBoardSeat(mind.side, mind)
        return cls(seats)

    def __getitem__(self, player: str) -> Seat:
        return self._seats[player]

    def __iter__(self):
        return (self._seats[p] for p in PLAYERS)

    def replace(self, seat: Seat) -> None:
        """Seat a new kind of player on a side; the seat's token stays."""
        seat.token = self._seats[seat.player].token
        self._seats[seat.player] = seat

    def off_board(self) -> list[OffBoardSeat]:
        return [s for s in self if isinstance(s, OffBoardSeat)]

    # --- tokens ---------------------------------------------------------------------------------
    # In the order the store or the table gave them (the host page lists the seats in that order).

    @property
    def tokens(self) -> dict[str, str]:
        """Every seat's token, the off-board seats' included (the store keeps one for each side)."""
        return dict(self._tokens)

    def set_tokens(self, tokens: dict[str, str]) -> None:
        """The seats' tokens for a game (from the store, or kept from the game before)."""
        self._tokens = dict(tokens)
        for player, token in tokens.items():
            self._seats[player].token = token

    def set_token(self, player: str, token: str) -> None:
        """A re-issued seat's new token, in its place."""
        self._tokens[player] = token
        self._seats[player].token = token

    def phone_tokens(self) -> dict[str, str]:
        """The seats a phone joins, with their tokens."""
        return {p: t for p, t in self._tokens.items() if self._seats[p].phone}

    def seat_of(self, token: object) -> str | None:
        """The player a token seats, compared in constant time; None for a bad token."""
        if not isinstance(token, str) or not token:
            return None
        given = token.encode("utf-8", "surrogateescape")
        found = None
        for player in self._tokens:  # every seat is compared: the time does not tell which matched
            if self._seats[player].holds(given):
                found = player
        return found
