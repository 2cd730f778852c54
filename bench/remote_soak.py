"""Remote games as people live them (issue 28, item 2): the board's person carries out a remote game
with the independent hands model, at every pace and noise level, both modes; prints JSON.

Each game: a real hub on a throwaway PostgreSQL, a simulated board running the board's service in
remote mode (``quin serve --board sim --remote new``, a process of its own), Bob playing through
the hub's HTTP API as the ``/play`` page does, and Ann at the board with ``host.simulate``'s hands:
her own actions with her hands on the sensors and her words on her phone, Bob's carried out once
the status page shows them as a plan.  The game is a seeded one from the engine's legal actions,
leaning to flashes, Time, Memory Swaps and Resurrections (``tests/support/remote_hands.py``);
the board plays White in even seeds, Black in odd ones.  Judged from outside only: the hub's
logged game against the game intended (exact, the same game, or the first wrong commit), every
state the status page was sent (an alarm nobody caused: the hands make no mistake here), and
stuck games (``STUCK`` seconds without the game going on after the hands did what the board showed).

Usage: nice -n 10 python bench/remote_soak.py [--games N] [--paces relaxed,brisk] [--noise ...]
       [--modes ...] [--max-actions 30] [--start 1000] [--out FILE]

With ``--out FILE``, every game that is not right (stuck, a wrong commit, an alarm nobody caused,
the harness failing) leaves what is needed to find its cause again in ``FILE.traces/seed-SEED/``
(``tests/support/remote_hands.py``'s ``keep_trace``: the board's sensor trace as ``quin-trace/1``,
the board's referee journal, every state its screens were sent, its log); its result line names
the folder (``trace``), and ``python bench/remote_replay.py FOLDER`` referees it again.

One game at a time (the board's service runs on the real clock).  ``timing`` says how well the
hands' clock was kept on a loaded machine: an event this process could not send in time stretches
the hands' clock (intervals are never shortened, a bounce or a slide's dwell may be lengthened), and
every failure says how much it stretched near it (``near_stretch_ms``; ``clean``: no failure of the
game came within DISTORT of one; ``failing_near_a_stretch`` counts the games that may be the
harness's timing rather than the board's).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from host.simulate import ALL_PACES, LEVELS, PACE_NAMES  # noqa: E402
from tests.support.remote_hands import Services, play  # noqa: E402

MODES = ("classic", "third_eye")


def summarise(results: list[dict]) -> dict:
    rows: dict = {}
    for r in results:
        key = f"{r['pace']}/{r['noise']}/{r['mode']}"
        row = rows.setdefault(key, {"games": 0, "exact": 0, "same_game": 0, "wrong": 0, "false_alarms": 0,
                                    "stuck": 0, "failing_near_a_stretch": 0, "actions": 0})
        row["games"] += 1
        row["actions"] += r["actions"]
        row["exact"] += bool(r.get("exact"))
        row["same_game"] += bool(r.get("same_game"))
        row["wrong"] += r.get("wrong") is not None
        row["false_alarms"] += bool(r.get("false_alarms"))
        row["stuck"] += r.get("status") != "done"
        failing = r.get("wrong") is not None or bool(r.get("false_alarms")) or r.get("status") != "done"
        row["failing_near_a_stretch"] += failing and not r.get("clean", True)
    total = {k: sum(row[k] for row in rows.values()) for k in ("games", "exact", "same_game", "wrong",
                                                              "false_alarms", "stuck", "failing_near_a_stretch",
                                                              "actions")}
    kinds: dict = {}
    for r in results:
        for side, counts in r["kinds"].items():
            who = "board" if side == r["local"] else "remote"
            for kind, n in counts.items():
                kinds.setdefault(who, {}).setdefault(kind, 0)
                kinds[who][kind] += n
    stretched = sorted(r["timing"]["stretched_max_ms"] for r in results if r.get("timing"))
    return {"by_pace_noise_mode": rows, "total": total, "actions_by_side": kinds,
            "timing": {"games": len(stretched),
                       "stretched_max_ms_p50": stretched[len(stretched) // 2] if stretched else None,
                       "stretched_max_ms_max": stretched[-1] if stretched else None}}


def traces_of(out: str | None) -> Path | None:
    """Where the failing games' traces go: beside the ``--out`` file, ``FILE.traces/``."""
    return None if not out else Path(out).with_name(Path(out).name + ".traces")


def _play_all(services, tasks, args, results, out) -> None:
    keep = traces_of(args.out)
    for seed, mode, pace, noise, local in tasks:
        t = time.monotonic()
        try:
            r = play(services, seed, mode, pace, noise, local, args.max_actions, keep=keep)
        except Exception as exc:  # the harness itself failed: said, not counted as the board's
            r = {"seed": seed, "mode": mode, "pace": pace, "noise": noise, "local": local,
                 "harness_error": f"{type(exc).__name__}: {exc}"}
        r["seconds"] = round(time.monotonic() - t, 1)
        results.append(r)
        if out:
            out.write(json.dumps(r) + "\n")
            out.flush()
        print(f"{len(results)}/{len(tasks)} seed {seed} {mode} {pace} {noise} {local}: "
              f"{r.get('status') or r.get('harness_error')} exact={r.get('exact')} wrong={r.get('wrong') is not None} "
              f"alarms={len(r.get('false_alarms') or [])} {r['seconds']}s", file=sys.stderr, flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="remote games carried out by the independent hands model")
    ap.add_argument("--games", type=int, default=3, help="games per pace, noise level and mode (default 3: 48)")
    ap.add_argument("--paces", default=",".join(PACE_NAMES), help=f"of {', '.join(ALL_PACES)}")
    ap.add_argument("--noise", default=",".join(LEVELS))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--max-actions", type=int, default=30, help="actions per game (a game may end sooner)")
    ap.add_argument("--start", type=int, default=1000, help="first seed")
    ap.add_argument("--out", help="also write every game's result here (JSON lines, as they finish)")
    args = ap.parse_args(argv)
    paces, noises, modes = (x.split(",") for x in (args.paces, args.noise, args.modes))
    for name, values, allowed in (("paces", paces, ALL_PACES), ("noise", noises, LEVELS), ("modes", modes, MODES)):
        bad = [v for v in values if v not in allowed]
        if bad:
            print(f"--{name}: expected some of {', '.join(allowed)}, got {', '.join(bad)}", file=sys.stderr)
            return 2
    tasks = []
    seed = args.start
    for i in range(args.games):
        for pace in paces:
            for noise in noises:
                for mode in modes:
                    tasks.append((seed, mode, pace, noise, "white" if seed % 2 == 0 else "black"))
                    seed += 1
    services = Services()
    results = []
    began = time.monotonic()
    out = open(args.out, "a") if args.out else None
    try:
        _play_all(services, tasks, args, results, out)
    except KeyboardInterrupt:  # stopped early: the games played so far are reported
        print("stopped: reporting the games played", file=sys.stderr)
    finally:
        services.close()
        if out:
            out.close()
    judged = [r for r in results if "harness_error" not in r]
    failing = [r for r in judged if r.get("wrong") or r.get("false_alarms") or r.get("status") != "done"]
    print(json.dumps({
        "config": {"games_each": args.games, "paces": paces, "noise": noises, "modes": modes,
                   "max_actions": args.max_actions, "start": args.start},
        "seconds": round(time.monotonic() - began, 1),
        "harness_errors": [r for r in results if "harness_error" in r],
        **summarise(judged),
        "failing": [{k: r.get(k) for k in ("seed", "mode", "pace", "noise", "local", "first", "status", "clean",
                                           "stuck", "wrong", "false_alarms", "refused", "unanswered", "timing", "trace")}
                    for r in failing],
    }, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
