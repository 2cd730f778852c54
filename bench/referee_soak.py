"""Soak the referee against the closed-loop hands model (host.simulate): many random games of
both modes, at every noise level and both paces; prints JSON.

The players (host.simulate.Hands) are written apart from the referee and react only to its
notices; this script is the harness that puts the two together (it may import both).  For
every game it reports how it ended:

- exact: the refereed record is the played one;
- same_game: it differs only in turns that leave the same game (the simulator's own
  oracle) and the rest of the played record is legal from them;
- wrong: the referee committed an action whose game differs from the played one;
- stuck: the referee was left waiting (what it said it waits for is kept);
- differs: every action read as the same game, yet the rest of the record is not legal
  from them (an oracle bug: expected never).

and counts questions (needed: the options lead to different games; needless: they do not),
refused inputs, and the commit latency after the last raw sensor change of each action, by
action kind.  The worst games are listed with (seed, mode, noise, pace), so each replays:
``python bench/referee_soak.py --replay SEED MODE NOISE PACE`` prints that one game.

Usage: python bench/referee_soak.py [--games N] [--modes ...] [--noise ...] [--pace ...]
           [--max-actions N] [--start SEED] [--jobs J] [--quick] [--worst N] [--faults]
           [--without race_word,quick_hold,...]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.actions import Move  # noqa: E402
from engine.flash import CAPTURE, FLASH_TABLE  # noqa: E402
from engine.game import EMPTY  # noqa: E402
from engine.randplay import random_game  # noqa: E402
from engine.record import to_record  # noqa: E402
from host.referee import Referee  # noqa: E402
from host.simulate import ALL_PACES, FAULTS, LEVELS, PACE_NAMES, Hands, run_closed_loop  # noqa: E402
from host.simulate.timing import BRISK_PARTS  # noqa: E402
from host.board.trace import TraceHeader  # noqa: E402
from host.referee.traces import referee_trace  # noqa: E402

MODES = ("classic", "third_eye")
SPACE = re.compile(r"\b(?:[wb]\d\d|h[we]\d|[wb]i|fs)\b")


def fault_at(played, kind: str) -> int | None:
    """An action number (from the 7th on) where a fault of ``kind`` can be staged."""
    game = TraceHeader.of_game(played).new_game()
    for i, (_, _, action) in enumerate(played.log):
        flash = type(action) is Move and game.state.board[action.to] != EMPTY
        if i >= 6:
            if kind in ("stuck_off", "stuck_on", "illegal"):
                return i
            if kind == "knock" and type(action) is Move and not flash:
                return i
            if kind == "wrong_outcome" and flash:
                pair = (game.piece[game.state.board[action.frm]], game.piece[game.state.board[action.to]])
                if FLASH_TABLE[game.mode][pair] == CAPTURE:
                    return i
        game.push(action)
    return None


def play_one(task: tuple) -> dict:
    mode, noise, pace, seed, max_actions, check_replay, fault, without = task
    t0 = time.perf_counter()
    played = random_game(seed, mode, max_actions)
    faults = {}
    if fault:
        kind = FAULTS[seed % len(FAULTS)]
        at = fault_at(played, kind)
        if at is not None:
            faults = {at: kind}
    hands = Hands(played, seed, noise, pace, faults, without=without)
    referee = Referee(hands.header.new_game())
    run = run_closed_loop(hands, referee)
    rep = run.report
    wrong = rep["wrong_commits"]
    if wrong:
        status = "wrong"
    elif rep["exact"]:
        status = "exact"
    elif rep["same_game"]:
        status = "same_game"
    elif rep["complete"]:
        status = "differs"  # every action read, the same game each time, but the rest not legal
    else:
        status = "stuck"
    out = {
        "mode": mode, "noise": noise, "pace": pace, "seed": seed,
        "status": status,
        "actions": rep["actions"], "committed": rep["committed"],
        "needed": rep["needed"], "needless": rep["needless"], "unanswered": rep["unanswered"],
        "pass_prompts": rep["pass_prompts"],
        "refused": len(rep["refusals"]),
        "refused_first": rep["refusals"][0]["reason"] if rep["refusals"] else None,
        "spurious": rep["spurious_corrections"],
        "latency": [(x["kind"], x["after_sensor"], x["after_evidence"]) for x in rep["latency"]],
        "seconds": 0.0,
    }
    where = None
    if status == "stuck":
        where = rep["committed"]
        out["stuck_at"] = rep["committed"]
        out["waiting_for"] = referee.stuck_reason()
        out["gave_up_at"] = rep["gave_up_at"]
        if rep["committed"] < rep["actions"]:
            out["next_action"] = str(hands.plan[rep["committed"]].action)
    if wrong:
        w = wrong[0]
        k = w["index"]
        where = k
        out["wrong"] = {"index": k, "t": round(w["t"], 3), "committed": w["action"],
                        "played": hands.plan[k].action.to_record() if k < len(hands.plan) else None,
                        "count": len(wrong)}
    if where is not None:
        # what the brisk hands did around the action the referee went wrong on (that action, the
        # one before it and the one after it): the suspects, for the summary's count
        out["behaviours_near"] = sorted({f"{b['kind']}@{b['index'] - where:+d}" for b in hands.behaviours
                                         if abs(b["index"] - where) <= 1})
        out["kinds_near"] = [hands.kinds[i] if i < len(hands.kinds) else None for i in (where - 1, where)
                             if 0 <= i < len(hands.plan)]
    if rep["needless"]:
        q = next(q for q in rep["questions"] if q["needed"] is False)
        out["needless_first"] = {"index": q["index"], "t": round(q["t"], 3), "options": q["options"]}
    if faults:
        out["fault"] = {"kind": next(iter(faults.values())), "index": next(iter(faults)),
                        "outcomes": [f["outcome"] for f in rep["fault_outcomes"]]}
    if check_replay:
        again = referee_trace(run.trace)
        out["replay_same"] = to_record(again.referee.game) == to_record(referee.game)
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    i = min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))
    return round(values[i], 3)


def summarize(results: list[dict], worst: int) -> dict:
    def block(rs: list[dict]) -> dict:
        n = len(rs)
        by = {s: sum(1 for r in rs if r["status"] == s) for s in ("exact", "same_game", "stuck", "wrong", "differs")}
        return {
            "games": n,
            "exact": by["exact"],
            "same_game": by["same_game"],
            "exact_or_same_game": by["exact"] + by["same_game"],
            "stuck": by["stuck"],
            "wrong_games": by["wrong"],
            "differs": by["differs"],
            "wrong_commits": sum(r.get("wrong", {}).get("count", 0) for r in rs),
            "questions_per_game": {
                "needed": round(sum(r["needed"] for r in rs) / n, 3) if n else None,
                "needless": round(sum(r["needless"] for r in rs) / n, 3) if n else None,
            },
            "needless_games": sum(1 for r in rs if r["needless"]),
            "refused_inputs_per_game": round(sum(r["refused"] for r in rs) / n, 3) if n else None,
        }

    out: dict = {"total": block(results), "by_config": {}}
    for r in results:
        key = f"{r['mode']}/{r['noise']}/{r['pace']}"
        out["by_config"].setdefault(key, []).append(r)
    out["by_config"] = {k: block(v) for k, v in out["by_config"].items()}
    # latency by action kind, over games where the referee kept in step (exact or same game)
    lat: dict[str, dict[str, list[float]]] = {}
    for r in results:
        if r["status"] not in ("exact", "same_game"):
            continue
        for kind, sensor, evidence in r["latency"]:
            d = lat.setdefault(f"{r['pace']}/{kind}", {"sensor": [], "evidence": []})
            if sensor is not None:
                d["sensor"].append(sensor)
            if evidence is not None:
                d["evidence"].append(evidence)
    out["commit_latency_s"] = {
        k: {"n": len(v["sensor"]), "p50": percentile(v["sensor"], 50), "p99": percentile(v["sensor"], 99),
            "p50_after_last_input_or_change": percentile(v["evidence"], 50),
            "p99_after_last_input_or_change": percentile(v["evidence"], 99)}
        for k, v in sorted(lat.items())
    }
    suspects: dict[str, dict[str, int]] = {}
    for r in results:
        for b in r.get("behaviours_near", ()):
            d = suspects.setdefault(b, {"wrong": 0, "stuck": 0})
            d[r["status"]] = d.get(r["status"], 0) + 1
    for r in results:
        if r.get("kinds_near"):
            key = "kinds:" + ">".join(str(x) for x in r["kinds_near"])
            d = suspects.setdefault(key, {"wrong": 0, "stuck": 0})
            d[r["status"]] = d.get(r["status"], 0) + 1
    if suspects:
        # brisk behaviours at the failing action (+0), the one before (-1) or after (+1), by game
        out["behaviours_near_failures"] = dict(sorted(suspects.items(), key=lambda kv: -sum(kv[1].values())))
    reasons: dict[str, int] = {}
    for r in results:
        if r["status"] == "stuck":
            shape = SPACE.sub("X", r["waiting_for"])[:160]
            reasons[shape] = reasons.get(shape, 0) + 1
    out["stuck_waiting_for"] = dict(sorted(reasons.items(), key=lambda kv: -kv[1])[:15])
    refusals: dict[str, int] = {}
    for r in results:
        if r["refused_first"]:
            shape = SPACE.sub("X", r["refused_first"])[:120]
            refusals[shape] = refusals.get(shape, 0) + 1
    out["first_refusal_reasons"] = dict(sorted(refusals.items(), key=lambda kv: -kv[1])[:10])

    def ex(r: dict, *keys) -> dict:
        base = {k: r[k] for k in ("seed", "mode", "noise", "pace", "actions", "committed")}
        if r.get("behaviours_near"):
            base["behaviours_near"] = r["behaviours_near"]
        if r.get("kinds_near"):
            base["kinds_near"] = r["kinds_near"]
        base.update({k: r[k] for k in keys if k in r})
        return base

    out["worst"] = {
        "wrong": [ex(r, "wrong") for r in results if r["status"] == "wrong"][:worst],
        "stuck": [ex(r, "waiting_for", "next_action", "gave_up_at", "refused_first")
                  for r in sorted((r for r in results if r["status"] == "stuck"), key=lambda r: r["committed"])][:worst],
        "needless": [ex(r, "needless", "needless_first")
                     for r in sorted(results, key=lambda r: -r["needless"]) if r["needless"]][:worst],
    }
    staged = [r for r in results if "fault" in r]
    if staged:
        faults: dict[str, dict[str, int]] = {}
        for r in staged:
            d = faults.setdefault(r["fault"]["kind"], {"games": 0, "exact_or_same_game": 0})
            d["games"] += 1
            d["exact_or_same_game"] += r["status"] in ("exact", "same_game")
            for o in r["fault"]["outcomes"]:
                d[o] = d.get(o, 0) + 1
        out["faults"] = faults
    if any("replay_same" in r for r in results):
        out["replays_checked"] = sum(1 for r in results if "replay_same" in r)
        out["replays_differing"] = [ex(r) for r in results if r.get("replay_same") is False][:worst]
    return out


def blame(failing: list[dict], max_actions: int, without: tuple, jobs: int) -> dict:
    """Each failing brisk game played again once per brisk behaviour left out (on top of
    ``without``): which removals make it come out exact or the same game.  Leaving a behaviour out
    changes the timing of the rest of the game, so a removal that "fixes" a game is a suspect,
    not a proof; the counts over many games are what say something."""
    failing = [r for r in failing if r["pace"] == "brisk"]
    parts = [p for p in BRISK_PARTS if p not in without]
    tasks = [(r["mode"], r["noise"], r["pace"], r["seed"], max_actions, False, False, without + (part,))
             for r in failing for part in parts]
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            again = list(pool.map(play_one, tasks, chunksize=2))
    else:
        again = [play_one(t) for t in tasks]
    fixed: dict[str, dict[str, int]] = {p: {"wrong": 0, "stuck": 0} for p in parts}
    games = []
    for i, r in enumerate(failing):
        mine = again[i * len(parts):(i + 1) * len(parts)]
        ok = [p for p, g in zip(parts, mine) if g["status"] in ("exact", "same_game")]
        for p in ok:
            fixed[p][r["status"]] += 1
        games.append({"seed": r["seed"], "mode": r["mode"], "noise": r["noise"], "status": r["status"],
                      "right_without": ok})
    return {"failing_games": len(failing), "right_when_left_out": fixed, "games": games}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="referee soak against the closed-loop hands model")
    ap.add_argument("--games", type=int, default=125, help="games per mode, noise level and pace (default 125: 2,000)")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--noise", default=",".join(LEVELS))
    ap.add_argument("--pace", default=",".join(PACE_NAMES),
                    help=f"paces, comma separated (default {','.join(PACE_NAMES)}; also: hasty, the next player's word "
                         f"and hands on the rival's landing, issue 31)")
    ap.add_argument("--max-actions", type=int, default=150)
    ap.add_argument("--start", type=int, default=10000, help="first seed")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--quick", action="store_true", help="a small configuration: 3 games each, 40 actions")
    ap.add_argument("--worst", type=int, default=8, help="examples listed per kind of failure")
    ap.add_argument("--check-replay", action="store_true",
                    help="referee every trace again from its text and compare (twice the time)")
    ap.add_argument("--faults", action="store_true",
                    help="stage one mistake per game (knock, stuck sensors, illegal move, wrong flash outcome)")
    ap.add_argument("--without", default="",
                    help="brisk behaviours left out, comma separated (an ablation): " + ", ".join(BRISK_PARTS))
    ap.add_argument("--blame", action="store_true",
                    help="replay every stuck or wrong brisk game once per brisk behaviour left out, and count which "
                         "removals make it come out right (a hint: leaving one out changes the rest of the game)")
    ap.add_argument("--blame-only", metavar="FILE",
                    help="blame the failing brisk games listed under 'worst' in an earlier run's JSON (no new soak)")
    ap.add_argument("--replay", nargs=4, metavar=("SEED", "MODE", "NOISE", "PACE"),
                    help="play one game and print its full result")
    ap.add_argument("--log", metavar="FILE",
                    help="append each game's result to FILE (JSON Lines) as it finishes, so that a run cut short "
                         "still counts every game it played; games are played seed by seed across all configurations")
    ap.add_argument("--summarize", metavar="FILE", nargs="+",
                    help="summarize the games logged in FILE(s) by --log (no new soak)")
    args = ap.parse_args(argv)
    if args.summarize:
        logged = [json.loads(line) for f in args.summarize
                  for line in Path(f).read_text(encoding="utf-8").splitlines() if line.strip()]
        print(json.dumps({"config": {"logs": args.summarize}, **summarize(logged, args.worst),
                          "cpu_seconds_per_game": round(sum(r["seconds"] for r in logged) / max(1, len(logged)), 3)},
                         indent=1))
        return 0
    without = tuple(w for w in args.without.split(",") if w)
    bad = [w for w in without if w not in BRISK_PARTS]
    if bad:
        ap.error(f"--without: unknown {bad[0]!r} (some of {', '.join(BRISK_PARTS)})")
    if args.blame_only:
        earlier = json.loads(Path(args.blame_only).read_text(encoding="utf-8"))
        failing = [dict(r, status=kind) for kind in ("wrong", "stuck") for r in earlier["worst"][kind]]
        print(json.dumps(blame(failing, earlier["config"]["max_actions"], without, args.jobs), indent=1))
        return 0
    if args.replay:
        seed, mode, noise, pace = args.replay
        print(json.dumps(play_one((mode, noise, pace, int(seed), args.max_actions, True, args.faults, without)),
                         indent=1))
        return 0
    if args.quick:
        args.games, args.max_actions = 3, 40
    modes = [m for m in args.modes.split(",") if m]
    noises = [n for n in args.noise.split(",") if n]
    paces = [p for p in args.pace.split(",") if p]
    for name, values, allowed in (("modes", modes, MODES), ("noise", noises, LEVELS), ("pace", paces, ALL_PACES)):
        bad = [v for v in values if v not in allowed]
        if bad:
            ap.error(f"--{name}: unknown {bad[0]!r} (one of {', '.join(allowed)})")
    tasks = [(m, n, p, seed, args.max_actions, args.check_replay, args.faults, without)
             for m in modes for n in noises for p in paces
             for seed in range(args.start, args.start + args.games)]
    t0 = time.time()
    if args.log:
        # seed by seed across configurations: a run stopped early is still balanced
        tasks.sort(key=lambda t: (t[3], t[0], t[1], t[2]))
        results = []
        with open(args.log, "a", encoding="utf-8") as log:
            if args.jobs > 1:
                with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                    for r in pool.map(play_one, tasks, chunksize=1):
                        log.write(json.dumps(r) + "\n")
                        log.flush()
                        results.append(r)
            else:
                for t in tasks:
                    r = play_one(t)
                    log.write(json.dumps(r) + "\n")
                    log.flush()
                    results.append(r)
    elif args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(play_one, tasks, chunksize=4))
    else:
        results = [play_one(t) for t in tasks]
    out = {"config": {"games_each": args.games, "modes": modes, "noise": noises, "pace": paces,
                      "max_actions": args.max_actions, "start": args.start, "jobs": args.jobs,
                      "faults": args.faults, "without": list(without)},
           **summarize(results, args.worst),
           "seconds": round(time.time() - t0, 1),
           "cpu_seconds_per_game": round(sum(r["seconds"] for r in results) / max(1, len(results)), 3)}
    if args.blame:
        out["blame"] = blame([r for r in results if r["status"] in ("stuck", "wrong")], args.max_actions, without,
                             args.jobs)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
