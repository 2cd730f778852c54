"""`quin board`, `quin replay`, `quin legal`: the rules engine from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine import board
from engine.game import Game
from engine.pieces import LETTER
from engine.record import ReplayError, load_record, parse_json, play_turn, turns_of


def add_parser(sub) -> None:
    p = sub.add_parser("board", help="draw the board and its space ids")
    p.add_argument("--json", action="store_true", help="print spaces and edges as JSON")
    p.set_defaults(func=cmd_board)

    p = sub.add_parser("replay", help="replay a game record with full rules checking")
    p.add_argument("record", help="a quin-record/1 JSON file ('-' for standard input)")
    p.add_argument("--json", action="store_true", help="print the result and events as JSON")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("legal", help="list the legal actions after a record")
    p.add_argument("record", help="a quin-record/1 JSON file ('-' for standard input)")
    p.add_argument("--json", action="store_true", help="print the actions as JSON")
    p.set_defaults(func=cmd_legal)


def cmd_board(args) -> int:
    if args.json:
        print(
            json.dumps(
                {
                    "spaces": list(board.SPACE_NAMES),
                    "edges": [[board.SPACE_NAMES[a], board.SPACE_NAMES[b], k] for a, b, k in board.EDGES],
                }
            )
        )
    else:
        print(board.draw())
    return 0


def read_json(path: str) -> object:
    """Read a JSON file; ReplayError (exit 2) with one line if it cannot be read."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ReplayError(f"{path} is not a UTF-8 text file") from None
    try:
        return parse_json(text)
    except ValueError as exc:
        raise ReplayError(f"{path} is not valid JSON: {exc}") from None


def run_record(path: str) -> Game:
    record = load_record(read_json(path))
    game = record.new_game()
    for i, (player, actions) in enumerate(record.turns, 1):
        play_turn(game, player, actions, i)
    return game


def _fail(exc: ReplayError, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"error": exc.to_json()}))
    else:
        print(f"quin: {exc}", file=sys.stderr)
    return exc.code


def _marks(game: Game) -> dict[int, str]:
    marks = {}
    for t in game.towers:
        space = game.state.loc[t]
        if space >= 0:
            letter = LETTER[game.piece[t]]
            marks[space] = letter if game.owner[t] == "white" else letter.lower()
    return marks


def cmd_replay(args) -> int:
    try:
        game = run_record(args.record)
    except ReplayError as exc:
        return _fail(exc, args.json)
    result = game.result.to_json() if game.result else {"status": "ongoing", "winner": None, "reason": None}
    turns = len(turns_of(game))
    if args.json:
        print(json.dumps({"result": result, "turns": turns, "events": [e.to_json() for e in game.events]}))
        return 0
    # The reader holds the whole record (setups included), so nothing here is hidden from them.
    for number, (player, actions) in enumerate(turns_of(game), 1):
        print(f"{number:>3}. {player:<5} " + "; ".join(str(a) for a in actions))
    for event in game.events:
        e = event.to_json()
        if e["type"] == "flash":
            print(f"     flash on {e['at']} (turn {e['turn']}): {e['attacker']} against {e['defender']}: "
                  f"{e['outcome'].replace('_', ' ')}")
        else:
            print(f"     Time on turn {e['turn']}: {e['outcome']}")
    print(board.draw(_marks(game)))
    if game.result:
        if game.result.winner:
            print(f"{game.result.winner} won ({game.result.reason.replace('_', ' ')}) after {turns} turns")
        else:
            print(f"drawn ({game.result.reason}) after {turns} turns")
    else:
        print(f"all {turns} turns legal; {game.to_move} to move")
    return 0


def cmd_legal(args) -> int:
    try:
        game = run_record(args.record)
    except ReplayError as exc:
        return _fail(exc, args.json)
    actions = game.legal_actions()
    if args.json:
        # a plain list of actions in the record's form, ready to paste into a turn
        print(json.dumps([a.to_record() for a in actions]))
        return 0
    if game.is_over():
        print("the game is over: no legal actions")
    for a in actions:
        print(str(a))
    return 0
