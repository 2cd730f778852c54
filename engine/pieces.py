"""Pieces, clones, moves per turn and setup validation (spec section 2)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .board import GATEWAYS, PLAYERS, SPACE_NAMES, START_SPACES, parse_space
from .errors import InvalidError, quoted

LIGHT = "light"
SHADOW = "shadow"
ARTIFICIAL_LIGHT = "artificial_light"
REFLECTOR = "reflector"
MEMORY = "memory"
TIME = "time"
PERIPHERAL = "peripheral"
VOID = "void"

PIECES = (LIGHT, SHADOW, ARTIFICIAL_LIGHT, REFLECTOR, MEMORY, TIME, PERIPHERAL, VOID)

BASE_SET = {
    LIGHT: 1,
    SHADOW: 2,
    ARTIFICIAL_LIGHT: 4,
    REFLECTOR: 2,
    MEMORY: 1,
    TIME: 1,
    PERIPHERAL: 2,
    VOID: 4,
}
CLONES = (TIME, VOID, MEMORY, ARTIFICIAL_LIGHT)
NOT_REMOVABLE = (LIGHT, SHADOW)

#: spaces a piece may move per turn (Artificial Light: see ACCELERATED_RANGE)
RANGE = {
    LIGHT: 2,
    SHADOW: 7,
    ARTIFICIAL_LIGHT: 2,
    REFLECTOR: 2,
    MEMORY: 2,
    TIME: 1,
    PERIPHERAL: 3,
    VOID: 1,
}
#: Artificial Light's range while both own Shadows are captured
ACCELERATED_RANGE = 5

#: one-letter codes for drawings (upper case for White, lower for Black)
LETTER = {
    LIGHT: "L",
    SHADOW: "S",
    ARTIFICIAL_LIGHT: "A",
    REFLECTOR: "R",
    MEMORY: "M",
    TIME: "T",
    PERIPHERAL: "P",
    VOID: "V",
}


def piece_set(clone: str, removed: str) -> Counter:
    """A player's 17 towers by piece after adding ``clone`` and removing ``removed``."""
    counts = Counter(BASE_SET)
    counts[clone] += 1
    counts[removed] -= 1
    return +counts


def parse_piece(name: object, field: str = "piece") -> str:
    if isinstance(name, str) and name in BASE_SET:
        return name
    raise InvalidError(f"{field}: unknown piece {quoted(name)} (one of {', '.join(PIECES)})")


@dataclass(frozen=True)
class Setup:
    """One player's choices before the game: clone, removed piece, starting lineup.

    ``lineup`` is a tuple of (space, piece) pairs sorted by space.
    """

    player: str
    clone: str
    removed: str
    lineup: tuple[tuple[int, str], ...]

    @property
    def pieces(self) -> Counter:
        """The player's 17 towers by piece."""
        return piece_set(self.clone, self.removed)

    @property
    def reserve(self) -> Counter:
        """The towers that start on Zero Gravity."""
        return self.pieces - Counter(piece for _, piece in self.lineup)

    def to_record(self) -> dict:
        return {
            "clone": self.clone,
            "removed": self.removed,
            "lineup": {SPACE_NAMES[s]: piece for s, piece in self.lineup},
        }

    @classmethod
    def from_record(cls, player: str, data: object) -> "Setup":
        where = f"setup.{player}"
        if not isinstance(data, dict):
            raise InvalidError(f"{where}: expected an object with clone, removed and lineup")
        unknown = set(data) - {"clone", "removed", "lineup"}
        if unknown:
            raise InvalidError(f"{where}: unknown field {quoted(sorted(unknown)[0])}")
        for key in ("clone", "removed", "lineup"):
            if key not in data:
                raise InvalidError(f"{where}: missing {quoted(key)}")
        lineup = data["lineup"]
        if not isinstance(lineup, dict):
            raise InvalidError(f"{where}.lineup: expected an object mapping spaces to pieces")
        pairs = []
        for name, piece in lineup.items():
            try:
                space = parse_space(name)
            except InvalidError as exc:
                raise InvalidError(f"{where}.lineup: {exc}") from None
            pairs.append((space, parse_piece(piece, f"{where}.lineup.{name}")))
        return make_setup(
            player,
            parse_piece(data["clone"], f"{where}.clone"),
            parse_piece(data["removed"], f"{where}.removed"),
            dict(pairs),
        )


def make_setup(player: str, clone: str, removed: str, lineup: dict[int, str]) -> Setup:
    """Validate a player's setup; InvalidError names the problem."""
    where = f"setup.{player}"
    if player not in PLAYERS:
        raise InvalidError(f"unknown player {quoted(player)}")
    if clone not in CLONES:
        raise InvalidError(f"{where}.clone: {quoted(clone)} is not a clone (one of {', '.join(CLONES)})")
    if removed not in BASE_SET:
        raise InvalidError(f"{where}.removed: unknown piece {quoted(removed)}")
    if removed in NOT_REMOVABLE:
        raise InvalidError(f"{where}.removed: {removed} may not be removed")
    start = START_SPACES[player]
    for space in lineup:
        if space not in start:
            raise InvalidError(
                f"{where}.lineup: {SPACE_NAMES[space]} is not one of {player}'s starting spaces"
            )
    missing = [SPACE_NAMES[s] for s in start if s not in lineup]
    if missing:
        raise InvalidError(f"{where}.lineup: {', '.join(missing)} must be filled (10 towers start)")
    setup = Setup(player, clone, removed, tuple(sorted(lineup.items())))
    have = setup.pieces
    for piece, n in Counter(lineup.values()).items():
        if piece == ARTIFICIAL_LIGHT:
            raise InvalidError(f"{where}.lineup: artificial_light may not start on the board")
        if n > have[piece]:
            raise InvalidError(f"{where}.lineup: {n} {piece} but only {have[piece]} available")
    return setup


def is_gateway(player: str, space: int) -> bool:
    return space in GATEWAYS[player]
