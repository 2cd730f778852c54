"""`quin board`, `quin replay`, `quin legal`: the rules engine from the command line."""

from __future__ import annotations

import json
import sys

from engine import board
from engine.errors import bounded
from engine.game import Game
from engine.pieces import LETTER
from engine.record import ReplayError, load_record, parse_json, replay, turns_of
from host.commands.files import MAX_RECORD, FileTooLarge, read_text


def add_parser(sub) -> None:
    p = sub.add_parser("board", help="draw the board and its space ids")
    p.add_argument("--json", action="store_true", help="print spaces and edges as JSON")
    p.set_defaults(func=cmd_board)

    p = sub.add_parser("replay", help="replay game records with full rules checking")
    p.add_argument("record", nargs="+", help="one or more quin-record/1 JSON files ('-' for standard input); "
                   "with several, each is replayed in turn and the exit status is the worst")
    p.add_argument("--json", action="store_true",
                   help="print the result and events as JSON (one object per line, with 'record', for several)")
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
        text = read_text(path, MAX_RECORD, "game record")
    except FileTooLarge as exc:
        raise ReplayError(str(exc)) from None
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ReplayError(f"{path} is not a UTF-8 text file") from None
    try:
        data = parse_json(text)
    except ValueError as exc:
        if trace_header(text):
            raise ReplayError(not_a_record(path)) from None
        raise ReplayError(f"{path} is not valid JSON: {exc}") from None
    if isinstance(data, dict) and data.get("format") == TRACE_FORMAT:
        raise ReplayError(not_a_record(path))
    return data


TRACE_FORMAT = "quin-trace/1"


def trace_header(text: str) -> bool:
    """Does ``text`` open like a quin-trace/1 file (JSON Lines, a header line first)?"""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        head = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(head, dict) and head.get("format") == TRACE_FORMAT


def not_a_record(path: str) -> str:
    shown = "standard input" if path == "-" else path
    again = "-" if path == "-" else path
    return f"{shown} is a {TRACE_FORMAT} trace, not a record: referee it with `quin referee --trace {again}`"


def result_text(result: dict | None) -> str:
    """A finished game's result in words; the web pages say it the same way (quin.js resultText)."""
    if not result or result.get("status") in (None, "ongoing"):
        return ""
    winner = result.get("winner")
    reason = result.get("reason")
    if winner:
        who = winner.capitalize()
        rival = "Black" if winner == "white" else "White"
        why = {
            "first_sight": f"{who}'s Light reaches First Sight",
            "light_captured": f"{rival}'s Light is captured",
            "resignation": f"{rival} resigned",
            "abandonment": f"{rival} left the game and {who} claimed it",
            "time": f"{rival}'s time ran out",
        }.get(reason, str(reason).replace("_", " "))
        return f"{who} wins: {why}"
    why = {"passes": "two passes in a row"}.get(reason, str(reason).replace("_", " "))
    return f"Drawn: {why}"


def run_record(path: str) -> Game:
    return replay(load_record(read_json(path)))  # its termination too, if the game ended so


def _fail(exc: ReplayError, as_json: bool, label: dict | None = None) -> int:
    if as_json:
        print(json.dumps({**(label or {}), "error": exc.to_json()}))
    else:
        where = f"{label['record']}: " if label else ""
        print(bounded(f"quin: {where}{exc}"), file=sys.stderr)
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
    paths = args.record
    if paths.count("-") > 1:
        print("quin: standard input ('-') can be replayed only once", file=sys.stderr)
        return 2
    if len(paths) == 1:
        return replay_one(paths[0], args.json, None)
    codes = []
    for path in paths:
        if not args.json:
            print(f"== {path}")
        codes.append(replay_one(path, args.json, {"record": path}))
    if not args.json:
        legal = codes.count(0)
        print(f"{len(paths)} records: {legal} legal, {codes.count(1)} with an illegal action, "
              f"{codes.count(2)} malformed")
    return max(codes)


def replay_one(path: str, as_json: bool, label: dict | None) -> int:
    try:
        game = run_record(path)
    except ReplayError as exc:
        return _fail(exc, as_json, label)
    result = game.result.to_json() if game.result else {"status": "ongoing", "winner": None, "reason": None}
    turns = len(turns_of(game))
    if as_json:
        print(json.dumps({**(label or {}), "result": result, "turns": turns,
                          "events": [e.to_json() for e in game.events]}))
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
        print(f"{result_text(result)} ({turns} turns)")
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
