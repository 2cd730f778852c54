"""Referee a failing remote game again, away from the board (``bench/remote_soak.py --out FILE``
keeps one in ``FILE.traces/seed-SEED/``; ``tests/support/remote_hands.py``'s ``keep_trace``).

The board's referee journal (``referee.journal``, ``host/session/journal.py``) has every call the
board's service made to its referee with its own times and every answer of its oracle: replayed,
the referee must reach the same commits (``same``), and what it says last is what the board said.
``--watch`` prints every call after ``--from`` seconds (the journal's times less the game's
``began``) with the referee's state and what it said; ``--one-table`` referees ``board.trace``
(``quin-trace/1``: the same sensor readings and words) as at one table, both sides read.

Usage: python bench/remote_replay.py FOLDER [--watch] [--from S] [--to S] [--one-table]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from host.session.journal import read_journal, replay  # noqa: E402


def _state(ref) -> str:
    st = ref.public_status()
    cur = ref.current
    return (f"{getattr(ref.state, 'value', ref.state)} to_move={ref.game.to_move} log={len(ref.game.log)} "
            f"text={st.get('text')!r} instr={[i.get('text') for i in st.get('instructions') or []]} "
            f"words={ {p: [w.data if hasattr(w, 'data') else str(w) for w in ws] for p, ws in ref.words.items() if ws} } "
            f"q={cur.question is not None}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="referee a failing remote game's journal again")
    ap.add_argument("folder", help="a seed-SEED folder (or a referee.journal file)")
    ap.add_argument("--watch", action="store_true", help="print each call and what the referee then says")
    ap.add_argument("--from", dest="start", type=float, default=0.0, help="with --watch: from this many seconds")
    ap.add_argument("--to", dest="end", type=float, default=1e9, help="with --watch: up to this many seconds")
    ap.add_argument("--ticks", action="store_true", help="with --watch: ticks that say nothing too")
    ap.add_argument("--one-table", action="store_true", help="also referee board.trace as at one table")
    args = ap.parse_args(argv)
    path = Path(args.folder)
    folder = path if path.is_dir() else path.parent
    journal = path / "referee.journal" if path.is_dir() else path
    began = 0.0
    if (folder / "game.json").exists():
        began = json.loads((folder / "game.json").read_text())["began"]
    entries = read_journal(journal)

    def watch(e, ref, got):
        t = e.get("t")
        if t is not None and not args.start <= t - began <= args.end:
            return
        if e["c"] == "tick" and not got and not args.ticks:
            return
        what = {k: v for k, v in e.items() if k not in ("game", "line", "c", "t")}
        when = f"{t - began:9.3f}" if t is not None else " " * 9
        print(f"{when} {e['c']:7} {json.dumps(what)[:160]}")
        for n in got:
            print(f"{'':18}-> {n.kind} {n.audience}: {json.dumps(n.data, default=str)[:200]}")
        if ref is not None and (got or e["c"] != "tick"):
            print(f"{'':18}   {_state(ref)[:400]}")

    run = replay(entries, watch=watch if args.watch else None)
    ref = run["referee"]
    out = {"calls": sum(1 for e in entries if e["c"] not in ("oracle", "commit")), "same": run["same"],
           "commits": len(run["commits"]), "recorded": len(run["recorded"]), "differing": run["differing"][:5]}
    if not run["same"]:
        first = next((i for i, (a, b) in enumerate(zip(run["commits"], run["recorded"])) if a != b),
                     min(len(run["commits"]), len(run["recorded"])))
        out["first_difference"] = {"index": first, "replayed": run["commits"][first:first + 1],
                                   "recorded": run["recorded"][first:first + 1]}
    if ref is not None:
        out["last"] = {"state": getattr(ref.state, "value", str(ref.state)), "idle": ref.is_idle(),
                       "public": ref.public_status(), "waiting_for": None if ref.is_idle() else ref.stuck_reason()}
    if args.one_table and (folder / "board.trace").exists():
        from host.board.trace import read_trace
        from host.referee.traces import referee_trace

        one = referee_trace(read_trace(folder / "board.trace"))
        out["one_table"] = {"actions": len(one.referee.game.log), "stuck": one.stuck,
                            "rejected": one.rejected_inputs[:5]}
    print(json.dumps(out, indent=1, default=str))
    return 0 if run["same"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
