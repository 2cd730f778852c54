"""`quin referee` and `quin simulate`: the board referee on recorded sensor traces."""

from __future__ import annotations

import json
import sys

from engine.errors import bounded
from engine.record import FORMAT as RECORD_FORMAT
from engine.record import ReplayError, load_record, parse_json, replay, to_record
from host.commands import UserError
from host.commands.files import MAX_RECORD, MAX_TRACE, FileTooLarge, read_text
from host.referee import Referee
from host.simulate import LEVELS, PACE_NAMES, Hands, run_closed_loop
from host.board.trace import TraceError, read_trace, write_trace
from host.referee.traces import referee_trace


def add_parser(sub) -> None:
    p = sub.add_parser(
        "referee",
        help="referee a recorded sensor trace and print the inferred game record",
        description="Referee a quin-trace/1 file (raw sensor snapshots and players' inputs) and print the "
        "inferred game as a quin-record/1 record. Exit 0: refereed to its end; 1: the referee got stuck "
        "(says when and on what); 2: malformed trace.",
    )
    p.add_argument("--trace", required=True, metavar="FILE", help="a quin-trace/1 file ('-' for standard input)")
    p.add_argument("--json", action="store_true", help="print status, record and details as one JSON object")
    p.add_argument("--settle", type=float, default=0.25, metavar="SECONDS",
                   help="board settle window (default 0.25)")
    p.set_defaults(func=cmd_referee)

    p = sub.add_parser(
        "simulate",
        help="turn a game record into a realistic sensor trace",
        description="Simulate two people playing a quin-record/1 game on the sensor board, with their phones, "
        "against the referee (closed loop: they answer its questions and follow its corrections), and write "
        "the quin-trace/1 trace (seeded: the same seed gives the same trace).",
    )
    p.add_argument("record", help="a quin-record/1 file ('-' for standard input)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--noise", choices=LEVELS, default="medium", help="sensor and handling noise (default medium)")
    p.add_argument("--pace", choices=PACE_NAMES, default="relaxed",
                   help="relaxed: think 1.5-3.5 s between turns; brisk: people who do not wait (default relaxed)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the trace here instead of standard output")
    p.set_defaults(func=cmd_simulate)


def _load_trace(path: str):
    try:
        try:
            lines = read_text(path, MAX_TRACE, "trace").splitlines(keepends=True)
        except FileTooLarge as exc:
            raise UserError(str(exc), 2) from None
        except OSError as exc:
            raise TraceError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise TraceError(f"{'standard input' if path == '-' else path} is not a UTF-8 text file") from None
        try:
            return read_trace(lines)
        except TraceError:
            if _is_record("".join(lines)):
                shown, again = ("standard input", "-") if path == "-" else (path, path)
                raise UserError(f"{shown} is a {RECORD_FORMAT} record, not a trace: replay it with "
                                f"`quin replay {again}`", 2) from None
            raise
    except TraceError as exc:
        raise UserError(f"{path}: {exc}", 2) from None


def _is_record(text: str) -> bool:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == RECORD_FORMAT


def cmd_referee(args) -> int:
    if args.settle < 0 or args.settle > 5:
        raise UserError("--settle: expected a number of seconds between 0 and 5", 2)
    try:
        trace = _load_trace(args.trace)
    except UserError as exc:
        if args.json:
            print(json.dumps({"status": "malformed", "error": str(exc)}))
            return exc.code
        raise
    run = referee_trace(trace, settle=args.settle)
    game = run.referee.game
    record = to_record(game)
    rejected = [
        {"line": line, "t": t, "player": player, "reason": reason} for line, t, player, reason in run.rejected_inputs
    ]
    status = "stuck" if run.stuck else "complete"
    if args.json:
        print(json.dumps({
            "status": status,
            "result": game.result.to_json() if game.result else None,
            "stuck": run.stuck,
            "rejected_inputs": rejected,
            "record": record,
        }))
    else:
        print(json.dumps(record, indent=1))
        for r in rejected:
            print(bounded(f"quin: note: line {r['line']} (t={r['t']:.3f} s): {r['player']}'s input was rejected: "
                          f"{r['reason']}"), file=sys.stderr)
        if run.stuck:
            print(f"quin: stuck at t={run.stuck['t']:.3f} s, waiting for {run.stuck['waiting_for']}", file=sys.stderr)
    return 1 if run.stuck else 0


def cmd_simulate(args) -> int:
    try:
        text = read_text(args.record, MAX_RECORD, "game record")
    except FileTooLarge as exc:
        raise UserError(str(exc), 2) from None
    except OSError as exc:
        raise UserError(f"cannot read {args.record}: {exc.strerror or exc}", 2) from None
    except UnicodeDecodeError:
        raise UserError(f"{args.record} is not a UTF-8 text file", 2) from None
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise UserError(f"{args.record} is not valid JSON: {exc}", 2) from None
    try:
        record = load_record(data)
        replay(record)
    except ReplayError as exc:
        raise UserError(f"{args.record}: {exc}", exc.code) from None
    hands = Hands(record, seed=args.seed, noise=args.noise, pace=args.pace)
    referee = Referee(hands.header.new_game())
    run = run_closed_loop(hands, referee)
    trace = run.trace
    report = run.report
    if not (report["exact"] or report["same_game"]):
        wrong = report["wrong_commits"]
        what = f"{len(wrong)} wrong commit(s), the first at action {wrong[0]['index'] + 1}" if wrong else \
            f"left waiting for {referee.stuck_reason()}"
        print(f"quin: note: the referee committed {report['committed']} of {report['actions']} actions ({what})",
              file=sys.stderr)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fp:
                write_trace(trace, fp)
        except OSError as exc:
            raise UserError(f"cannot write {args.output}: {exc.strerror or exc}", 2) from None
    else:
        write_trace(trace, sys.stdout)
    return 0
