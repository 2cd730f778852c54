"""Game records, format ``quin-record/1`` (spec section 7): load, save, replay."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .actions import Action, action_from_record
from .board import BLACK, PLAYERS, WHITE
from .errors import IllegalError, InvalidError, QuinError, quoted
from .flash import MODES
from .game import TERMINATIONS, Game
from .pieces import Setup

FORMAT = "quin-record/1"
_TOP_FIELDS = {"format", "mode", "vision", "first", "setup", "turns", "termination"}


@dataclass(frozen=True)
class Record:
    mode: str
    vision: bool
    first: str
    setups: dict[str, Setup]
    turns: tuple[tuple[str, tuple[Action, ...]], ...]
    # how a game ended other than by a move ({"reason": one of TERMINATIONS, "winner": side}), or None
    termination: dict | None = None

    def new_game(self) -> Game:
        return Game(self.setups[WHITE], self.setups[BLACK], self.mode, self.vision, self.first)


class ReplayError(QuinError):
    """An error at a place in a record: ``turn`` and ``action`` are 1-based (0: not in a turn).

    ``code`` is the exit status: 1 for an illegal action or turn, 2 for a malformed record.
    """

    def __init__(self, message: str, turn: int = 0, action: int = 0, code: int = 2):
        super().__init__(message)
        self.turn = turn
        self.action = action
        self.code = code

    def to_json(self) -> dict:
        return {"turn": self.turn, "action": self.action, "message": str(self)}


MAX_NUMBER = 40  # characters in one JSON number of a record or trace: a longer one is malformed


def _number(text: str) -> str:
    if len(text) > MAX_NUMBER:
        raise ValueError(f"a number of {len(text)} characters (at most {MAX_NUMBER})")
    return text


def parse_json(text: str | bytes) -> object:
    """JSON as records and traces allow it: ValueError in one line for anything else (bad syntax,
    a number of thousands of digits, NaN or Infinity, nesting too deep)."""

    def no_constant(name):
        raise ValueError(f"{name} is not a number")

    try:
        return json.loads(text, parse_int=lambda t: int(_number(t)), parse_float=lambda t: float(_number(t)),
                          parse_constant=no_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def load_record(data: object) -> Record:
    """Validate a record's structure and fields (not yet its legality)."""
    if not isinstance(data, dict):
        raise ReplayError("a record must be a JSON object")
    unknown = set(data) - _TOP_FIELDS
    if unknown:
        raise ReplayError(f"unknown field {quoted(sorted(unknown)[0])}")
    if data.get("format") != FORMAT:
        raise ReplayError(f"format: expected {quoted(FORMAT)}, got {quoted(data.get('format'))}")
    mode = data.get("mode")
    if mode not in MODES:
        raise ReplayError(f"mode: expected 'classic' or 'third_eye', got {quoted(mode)}")
    vision = data.get("vision", False)
    if not isinstance(vision, bool):
        raise ReplayError(f"vision: expected true or false, got {quoted(vision)}")
    first = data.get("first")
    if first not in PLAYERS:
        raise ReplayError(f"first: expected 'white' or 'black', got {quoted(first)}")
    setup = data.get("setup")
    if not isinstance(setup, dict):
        raise ReplayError("setup: expected an object with 'white' and 'black'")
    extra = set(setup) - set(PLAYERS)
    if extra:
        raise ReplayError(f"setup: unknown field {quoted(sorted(extra)[0])}")
    setups = {}
    for player in PLAYERS:
        if player not in setup:
            raise ReplayError(f"setup: missing {quoted(player)}")
        try:
            setups[player] = Setup.from_record(player, setup[player])
        except InvalidError as exc:
            raise ReplayError(str(exc)) from None
    raw_turns = data.get("turns")
    if not isinstance(raw_turns, list):
        raise ReplayError("turns: expected a list of turns")
    turns = []
    for i, raw in enumerate(raw_turns, 1):
        if not isinstance(raw, dict):
            raise ReplayError(f"turn {i}: expected an object with 'player' and 'actions'", i)
        extra = set(raw) - {"player", "actions"}
        if extra:
            raise ReplayError(f"turn {i}: unknown field {quoted(sorted(extra)[0])}", i)
        player = raw.get("player")
        if player not in PLAYERS:
            raise ReplayError(f"turn {i}: player: expected 'white' or 'black', got {quoted(player)}", i)
        actions = raw.get("actions")
        if not isinstance(actions, list):
            raise ReplayError(f"turn {i} ({player}): actions: expected a list", i)
        parsed = []
        for j, a in enumerate(actions, 1):
            try:
                parsed.append(action_from_record(a))
            except InvalidError as exc:
                raise ReplayError(f"turn {i} ({player}), action {j}: {exc}", i, j) from None
        turns.append((player, tuple(parsed)))
    return Record(mode, vision, first, setups, tuple(turns), _termination(data.get("termination")))


def _termination(raw: object) -> dict | None:
    """The record's optional ``termination``: {"reason": "resignation" | "abandonment" | "time", "winner": side}."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ReplayError("termination: expected an object with 'reason' and 'winner'")
    extra = set(raw) - {"reason", "winner"}
    if extra:
        raise ReplayError(f"termination: unknown field {quoted(sorted(extra)[0])}")
    if raw.get("reason") not in TERMINATIONS:
        raise ReplayError(f"termination: reason: expected one of {', '.join(map(repr, TERMINATIONS))}, "
                          f"got {quoted(raw.get('reason'))}")
    if raw.get("winner") not in PLAYERS:
        raise ReplayError(f"termination: winner: expected 'white' or 'black', got {quoted(raw.get('winner'))}")
    return {"reason": raw["reason"], "winner": raw["winner"]}


def play_turn(game: Game, player: str, actions: tuple[Action, ...] | list[Action], turn_no: int) -> None:
    """Apply one recorded turn with full checking; ReplayError (code 1) at the first problem."""
    where = f"turn {turn_no} ({player})"
    if game.is_over():
        raise ReplayError(f"{where}: the game is already over", turn_no, 0, 1)
    if player != game.to_move:
        raise ReplayError(f"{where}: it is {game.to_move}'s turn", turn_no, 0, 1)
    if not actions:
        raise ReplayError(f"{where}: a turn needs a turn-ending action", turn_no, 0, 1)
    for j, action in enumerate(actions, 1):
        last = j == len(actions)
        ends = game.ends_turn(action)
        if ends and not last:
            raise ReplayError(
                f"{where}, action {j}: {action} ends the turn but more actions follow", turn_no, j, 1
            )
        if last and not ends:
            raise ReplayError(
                f"{where}, action {j}: {action} does not end the turn; a turn-ending action must follow",
                turn_no,
                j,
                1,
            )
        try:
            game.push(action)
        except IllegalError as exc:
            raise ReplayError(f"{where}, action {j}: {exc}", turn_no, j, 1) from None


def replay(record: Record) -> Game:
    """Rebuild a game from a record, checking every action."""
    game = record.new_game()
    for i, (player, actions) in enumerate(record.turns, 1):
        play_turn(game, player, actions, i)
    end_as_recorded(game, record)
    return game


def end_as_recorded(game: Game, record: Record) -> None:
    """After its turns, a record's ``termination`` (resigned, claimed, a flag) ends the game so;
    ReplayError if the turns had already ended it."""
    if record.termination is None:
        return
    if game.is_over():
        raise ReplayError(f"termination: the game was already over after turn {len(record.turns)} "
                          f"({game.result.reason})", len(record.turns), 0, 1)
    game.end(record.termination["reason"], record.termination["winner"])


def turns_of(game: Game) -> list[tuple[str, list[Action]]]:
    turns: list[tuple[str, list[Action]]] = []
    current = None
    for turn, player, action in game.log:
        if turn != current:
            turns.append((player, []))
            current = turn
        turns[-1][1].append(action)
    return turns


def termination_of(game: Game) -> dict | None:
    """The record's ``termination`` for a game that ended other than by a move, else None."""
    result = game.result
    if result is None or result.reason not in TERMINATIONS:
        return None
    return {"reason": result.reason, "winner": result.winner}


def to_record(game: Game) -> dict:
    """The game so far as a ``quin-record/1`` record (with its ``termination`` if it has one)."""
    ended = termination_of(game)
    return {
        "format": FORMAT,
        "mode": game.mode,
        "vision": game.vision,
        "first": game.first,
        "setup": {p: game.setups[p].to_record() for p in PLAYERS},
        "turns": [
            {"player": player, "actions": [a.to_record() for a in actions]}
            for player, actions in turns_of(game)
        ],
        **({"termination": ended} if ended else {}),
    }
