"""Helpers for the referee tests: a referee on a simulated board with a manual clock, positions
built by hand (``tests/support/engine_helpers.position`` for Classic, ``tests/support/third_eye_helpers.build`` for Third Eye,
both Lights out of the way), and a search for game positions with a wanted property."""

from __future__ import annotations

import re

from engine.actions import Gravity, Move, Reinforce, Swap
from engine.board import parse_space
from engine.game import Game
from engine.pieces import PIECES
from engine.randplay import random_game
from host.referee import Referee
from host.board.simboard import SimulatedBoard
from tests.support.engine_helpers import position
from tests.support.third_eye_helpers import build

# a piece's name as code writes it (artificial_light) or as a sentence does (artificial light)
PIECE_WORD = re.compile(r"\b(" + "|".join(p.replace("_", "[_ ]") for p in sorted(PIECES, key=len, reverse=True))
                        + r")\b", re.IGNORECASE)


def sp(name):
    return parse_space(name) if isinstance(name, str) else name


# --- positions built by hand, and actions by space names ------------------------------------------

S = parse_space


def mv(a, b):
    return Move(S(a), S(b))


def swap(m, o):
    return Swap(S(m), S(o))


def gravity(anchor, moves):
    return Gravity(S(anchor), tuple(sorted((S(a), S(b)) for a, b in moves.items())))


def reinforce(**placements):
    return Reinforce(tuple(sorted((S(s), p) for s, p in placements.items())))


LIGHTS = {"w11": "L", "b11": "l"}


def _with_lights(towers: dict) -> dict:
    """Both Lights somewhere out of the way, unless the test places one itself."""
    out = dict(towers)
    for space, letter in LIGHTS.items():
        if letter not in towers.values():
            out.setdefault(space, letter)
    return out


def classic(towers, to_move="white", **kw) -> Game:
    return position(_with_lights(towers), to_move, **kw)


def third_eye(towers, to_move="white", **kw) -> Game:
    return build(_with_lights(towers), to_move, **kw)


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


def questions(play, audience=None) -> list:
    """The questions asked (not the withdrawals), to ``audience`` if given."""
    return [n for n in play.notices if n.kind == "question" and n.data["options"]
            and (audience is None or n.audience == audience)]


def refused(play, player=None) -> list:
    """Words refused after they were said (a held word's refusal is a private 'rejected' notice naming it)."""
    return [n for n in play.notices if n.kind == "rejected" and "input" in n.data
            and (player is None or n.audience == player)]


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


# --- raw readings to the 5 ms (heavy noise, brisk hands) --------------------------------------------


def heavy(play, plan):
    """Raw readings, to the 5 ms: ``plan`` is [(t, space, reading)] from now; each reading holds
    until the next for that space; the board's truth takes over after the last (None)."""
    t0 = play.t
    plan = sorted(plan)
    for t, space, reading in plan:
        while play.t < t0 + t - 1e-9:
            play.wait(play.step)
        play.board.stick(S(space), reading)
        if reading is None:
            continue
        play.feed()


def quick_lift(space, at, held=0.2):
    """A tower lifted and put back ``held`` later, bouncing 80 ms at each edge, so that it reads
    steadily empty for only ``held`` - 80 ms (heavy noise, a brisk hand)."""
    edges = [0.0, 0.01, 0.02, 0.04, 0.05, 0.07, 0.08]
    plan = [(at + e, space, i % 2 == 1) for i, e in enumerate(edges)]  # off, on, off, ... off
    plan += [(at + held + e, space, i % 2 == 0) for i, e in enumerate(edges)]  # on, off, ... on
    plan.append((at + held + 0.09, space, None))
    return plan
