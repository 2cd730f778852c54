"""`quin opponent` and `quin match`: the practice opponent from the command line."""

from __future__ import annotations

import json
import sys

from engine.board import PLAYERS
from engine.record import ReplayError
from host.commands import UserError
from host.commands.engine_cmds import run_record


def _level(text: str) -> int:
    from host.opponent.search import MAX_LEVEL

    try:
        level = int(text)
    except ValueError:
        level = -1
    if not 0 <= level <= MAX_LEVEL:
        import argparse

        raise argparse.ArgumentTypeError(f"expected a level from 0 to {MAX_LEVEL}, got {text!r}")
    return level


def add_parser(sub) -> None:
    p = sub.add_parser(
        "opponent",
        help="the action(s) the practice opponent would play for its turn after a record",
        description="Print the action(s) the practice opponent plays for its turn after a quin-record/1 record "
        "(several for a turn that stacks Time, Resurrection or Third Eye Memory Swaps). The opponent decides from "
        "what its seat may see. Exit 2: malformed record; 1: an illegal record, not that player's turn, or the "
        "game is over.",
    )
    p.add_argument("record", help="a quin-record/1 JSON file ('-' for standard input)")
    p.add_argument("--as", dest="side", choices=PLAYERS, required=True, help="the seat the opponent plays")
    p.add_argument("--level", type=_level, default=3, help="strength 0 (random) to 5 (default 3)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0): the same seed gives the same choice")
    p.add_argument("--json", action="store_true", help="print the turn as JSON")
    p.set_defaults(func=cmd_opponent)

    p = sub.add_parser(
        "match",
        help="play practice opponents against each other",
        description="Play seeded games between two opponent levels and print wins, losses, draws (turn limit) "
        "and the time per decision.",
    )
    p.add_argument("--white", type=_level, required=True, metavar="LEVEL", help="White's level (0-5)")
    p.add_argument("--black", type=_level, required=True, metavar="LEVEL", help="Black's level (0-5)")
    p.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    p.add_argument("--mode", choices=("classic", "third_eye"), default="classic", help="mode (default classic)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--turn-limit", type=int, default=200, help="turns before a game is drawn (default 200)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=cmd_match)


def cmd_opponent(args) -> int:
    from engine.views import view
    from host.opponent.search import choose

    try:
        game = run_record(args.record)
    except ReplayError as exc:
        print(f"quin: {exc}", file=sys.stderr)
        return exc.code
    if game.is_over():
        raise UserError("the game is over: the opponent has nothing to play", 1)
    if game.to_move != args.side:
        raise UserError(f"it is {game.to_move}'s turn, not {args.side}'s", 1)
    actions = []
    while True:
        action = choose(view(game, args.side), args.level, args.seed)
        actions.append(action)
        game.push(action)  # the table's copy; the opponent only ever saw its view
        if game.is_over() or game.to_move != args.side:
            break
    if args.json:
        print(json.dumps({"player": args.side, "level": args.level, "seed": args.seed,
                          "actions": [a.to_record() for a in actions]}))
    else:
        for a in actions:
            print(str(a))
    return 0


def _ms(times: list[float]) -> dict:
    if not times:
        return {"decisions": 0, "p50_ms": None, "p99_ms": None, "max_ms": None}
    ordered = sorted(times)
    pick = lambda q: round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)  # noqa: E731
    return {"decisions": len(ordered), "p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": round(ordered[-1] * 1000, 1)}


def match_summary(levels: dict[str, int], results: list) -> dict:
    """Wins, draws and decision times of a list of ``GameResult`` (levels by colour)."""
    out: dict = {"games": len(results), "draws": sum(1 for r in results if r.winner is None)}
    for side in PLAYERS:
        times = [t for r in results for t in r.times[side]]
        out[side] = {
            "level": levels[side],
            "wins": sum(1 for r in results if r.winner == side),
            "losses": sum(1 for r in results if r.winner not in (side, None)),
            "time": _ms(times),
        }
    reasons: dict[str, int] = {}
    for r in results:
        reasons[r.reason] = reasons.get(r.reason, 0) + 1
    out["reasons"] = dict(sorted(reasons.items()))
    out["turns_p50"] = sorted(r.turns for r in results)[len(results) // 2] if results else None
    return out


def cmd_match(args) -> int:
    from host.opponent.match import play_game

    if args.games < 1:
        raise UserError(f"--games: expected at least 1, got {args.games}")
    if args.turn_limit < 1:
        raise UserError(f"--turn-limit: expected at least 1, got {args.turn_limit}")
    levels = {"white": args.white, "black": args.black}
    results = []
    for i in range(args.games):
        results.append(play_game(args.white, args.black, args.mode, seed=args.seed * 1_000_003 + i,
                                 turn_limit=args.turn_limit))
    summary = match_summary(levels, results)
    summary["mode"] = args.mode
    if args.json:
        print(json.dumps(summary))
        return 0
    for side in PLAYERS:
        s = summary[side]
        t = s["time"]
        print(f"{side} (level {s['level']}): {s['wins']} wins, {s['losses']} losses; "
              f"per decision p50 {t['p50_ms']} ms, p99 {t['p99_ms']} ms")
    print(f"draws (turn limit or two passes): {summary['draws']} of {summary['games']} games ({args.mode})")
    return 0
