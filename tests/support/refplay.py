"""Helpers for the referee tests: a referee on a simulated board with a manual clock,
and a search for game positions with a wanted property."""

from __future__ import annotations

import re

from engine.board import parse_space
from engine.game import Game
from engine.pieces import PIECES
from engine.randplay import random_game
from host.referee import Referee
from host.board.simboard import SimulatedBoard

# a piece's name as code writes it (artificial_light) or as a sentence does (artificial light)
PIECE_WORD = re.compile(r"\b(" + "|".join(p.replace("_", "[_ ]") for p in sorted(PIECES, key=len, reverse=True))
                        + r")\b", re.IGNORECASE)


def sp(name):
    return parse_space(name) if isinstance(name, str) else name


class Play:
    """A referee watching a simulated board.  The board starts set up and the game started.

    Every call feeds the board to the referee as a sensor scanned every ``step`` seconds.
    ``notices`` holds everything returned, in order; ``commits`` what on_commit saw.
    """

    def __init__(self, game: Game, step: float = 0.01, start: bool = True, **options):
        self.game = game
        self.step = step
        self.board = SimulatedBoard(game.occupied() if start else ())
        self.notices: list = []
        self.commits: list = []
        self.ref = Referee(game, on_commit=self._on_commit, **options)
        self.start = len(game.log)
        self.feed()
        if start:
            self.wait(0.5)
            assert self.ref.phase == "play", self.ref.public_status()
            self.notices.clear()

    def _on_commit(self, turn, player, action):
        # the notices about this action have not been returned yet
        self.commits.append((turn, player, action, len(self.notices)))

    def played(self, who: bool = False) -> list:
        """Actions committed since this Play began (with their players if ``who``)."""
        return [(p, a) if who else a for _, p, a in self.game.log[self.start:]]

    @property
    def t(self) -> float:
        return self.board.clock()

    def feed(self) -> list:
        got = self.ref.feed(self.board.snapshot())
        self.notices.extend(got)
        return got

    def wait(self, seconds: float) -> list:
        got = []
        for _ in range(max(1, round(seconds / self.step))):
            self.board.advance(self.step)
            got += self.feed()
        return got

    def lift(self, space, then: float = 0.3) -> list:
        self.board.lift(sp(space))
        return self.feed() + self.wait(then)

    def place(self, space, then: float = 0.3) -> list:
        self.board.place(sp(space))
        return self.feed() + self.wait(then)

    def move(self, frm, to, then: float = 0.5) -> list:
        return self.lift(frm) + self.place(to, then)

    def raw(self, space, reading: bool, seconds: float) -> list:
        """A sensor reads ``reading`` for ``seconds`` (a bump, a glitch), then the truth again."""
        s = sp(space)
        self.board.stick(s, reading)
        got = self.feed() + self.wait(seconds)
        self.board.stick(s, None)
        return got + self.feed()

    def say(self, player, data) -> list:
        got = self.ref.input(player, data, self.t)
        self.notices.extend(got)
        return got

    def kinds(self, notices=None, audience=None) -> list:
        return [(n.audience, n.kind) for n in (self.notices if notices is None else notices)
                if audience is None or n.audience == audience]


def find_position(predicate, modes=("classic", "third_eye"), seeds=range(60), max_actions=160):
    """The first position of a random game where ``predicate(game)`` returns something truthy.

    Returns (game, value): a fresh game replayed to that position (nothing else on its undo stack).
    """
    for mode in modes:
        for seed in seeds:
            played = random_game(seed, mode, max_actions)
            game = Game(played.setups["white"], played.setups["black"], mode, played.vision, played.first)
            for _, _, action in played.log:
                value = predicate(game)
                if value:
                    return game, value
                game.push(action)
    raise LookupError("no position found")


def words(data) -> set[str]:
    """Every piece name appearing in the strings of a JSON-ready value."""
    found: set[str] = set()
    if isinstance(data, dict):
        for v in data.values():  # keys are field names or spaces
            found |= words(v)
    elif isinstance(data, (list, tuple)):
        for v in data:
            found |= words(v)
    elif isinstance(data, str):
        found |= {m.lower().replace(" ", "_") for m in PIECE_WORD.findall(data)}
    return found
