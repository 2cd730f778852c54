"""Rebuilding a stored game through the engine: the one place a stored game is replayed.

:func:`replay_stored` is strict (resuming a game, its record, checking and salvaging a store):
the first action that does not read, is stored out of turn or is refused by the engine raises
:class:`StoreError` naming it.  :func:`replay_readable` is for showing a game (the history):
it replays as far as the stored actions read and replay, and names where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from engine.actions import Action, action_from_record
from engine.board import PLAYERS
from engine.errors import QuinError
from engine.game import TERMINATIONS, Game
from engine.pieces import Setup

from .errors import StoreError
from .records import GameRow, parse_action_row


def replay_stored(row: GameRow, stored: Callable[[], list[tuple[int, str, dict]]]) -> Game:
    """A game rebuilt from its row and its stored actions (``stored()``: (turn, player, record
    form) in order, read once the setups are found sound); StoreError naming what does not replay."""
    game_id = row.id
    row.check()
    if row.setups["white"] is None or row.setups["black"] is None:
        raise StoreError(f"game {game_id} has not started (setups missing)")
    try:
        setups = {p: Setup.from_record(p, row.setups[p]) for p in PLAYERS}
        game = Game(setups["white"], setups["black"], row.mode, row.vision, row.first)
    except QuinError as exc:
        raise StoreError(f"game {game_id}: stored setup no longer valid: {exc}", "the setups") from None
    try:
        actions = stored()
    except StoreError as exc:
        raise StoreError(f"game {game_id} is damaged in the store: its {exc}: run `quin store check`",
                         exc.where) from None
    for seq, (turn, player, data) in enumerate(actions, 1):
        try:
            action: Action = action_from_record(data)
            if player != game.to_move or turn != game.turn:
                raise StoreError(f"stored as turn {turn} by {player}, but it is turn {game.turn}, {game.to_move} to move")
            game.push(action)
        except QuinError as exc:
            raise StoreError(f"game {game_id}, action {seq}: {exc}", f"action {seq}") from None
    _terminate(game, row)
    return game


def termination(row: GameRow) -> dict | None:
    """How a finished stored game ended other than by a move (a resignation, an abandoned game
    claimed: engine.game.TERMINATIONS), from its stored result; None otherwise.  The actions
    alone do not say it, so the replay ends the game with it (engine.game.Game.end)."""
    result = row.result
    if row.status != "over" or not isinstance(result, dict) or result.get("reason") not in TERMINATIONS:
        return None
    if result.get("winner") not in PLAYERS:
        return None
    return {"reason": result["reason"], "winner": result["winner"]}


def _terminate(game: Game, row: GameRow) -> None:
    ended = termination(row)
    if ended is not None and not game.is_over():
        game.end(ended["reason"], ended["winner"])


@dataclass
class Replay:
    """A stored game as far as it reads: its game at the start, the actions that read and replay,
    and what of the stored game does not (None: all of it does)."""

    game: Game | None  # at the start (the setups given); None if the row or setups do not read
    actions: list[Action] = field(default_factory=list)
    damage: str | None = None  # "its action 4", "its setups", "its white setup"
    ended: dict | None = None  # a termination after the last action (``termination``)

    def steps(self) -> Iterator[tuple[int, str, Action, Game]]:
        """Each action pushed in turn: (its turn, who made it, the action, the game after it)."""
        for action in self.actions:
            turn, actor = self.game.turn, self.game.to_move
            self.game.push(action)
            yield turn, actor, action, self.game
        if self.ended is not None and not self.game.is_over():
            self.game.end(self.ended["reason"], self.ended["winner"])

    def final(self) -> Game:
        """The game after every readable action (and its termination, if it has one)."""
        for _ in self.steps():
            pass
        return self.game


def replay_readable(row: GameRow, texts: list, vision: bool) -> Replay:
    """A fresh game from the stored setups (``vision`` True: every identity public), with the
    stored actions (``texts``: their stored form, in order) that read and replay, not yet pushed."""
    if row.damage:
        return Replay(None, [], f"its {row.damage}")
    try:
        setups = {p: Setup.from_record(p, row.setups[p]) for p in PLAYERS}
        game = Game(setups["white"], setups["black"], row.mode, vision, row.first)
    except QuinError:
        return Replay(None, [], "its setups")
    actions: list = []
    trial = Game(setups["white"], setups["black"], row.mode, vision, row.first)
    for seq, text in enumerate(texts, 1):
        try:
            action = action_from_record(parse_action_row(seq, text))
            trial.push(action)
        except (QuinError, StoreError):  # never the engine's words: they may name hidden pieces
            return Replay(game, actions, f"its action {seq}")
        actions.append(action)
    return Replay(game, actions, None, termination(row))
