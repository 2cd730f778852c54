"""Engine benchmark: legal action generation, membership checks and random games per second.

Prints JSON.  The peer is python-chess (a benchmark-only dependency) on the same
machine in the same run: its legal moves generated per second, and its
``move in board.legal_moves`` checks per second.  The machine may be loaded, so
only comparisons made in one run count: in every round the peers take turns, one
position each, until each has run for ``--seconds`` (so a change in the machine's
load falls on all of them alike); a position's time is its fastest run in the
round.  The report gives each figure's median over the rounds and the median of
the per-round ratios.  Random games (a few seeded games per mode) are played once
a round each, and each game's fastest run over the rounds counts.

    python bench/engine.py [--rounds 5] [--seconds 0.5] [--baseline DIR]

``--baseline DIR``: another copy of the engine (DIR/engine, e.g. from
``git archive <commit> engine | tar -x -C DIR``) measured as one more peer in the
same run, so a change's speed-up is an in-run comparison too.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from engine.flash import MODES  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.randplay import random_game  # noqa: E402

RANDOM_GAMES = 3  # seeded random games (up to 400 actions) each round, per mode


def midgame_positions(mode: str, count: int = 40, random_game=random_game) -> list[Game]:
    """Fixed midgame positions: seeded random games stopped after 20..80 actions."""
    positions = []
    seed = 0
    while len(positions) < count:
        rng = random.Random(seed)
        game = random_game(seed, mode, max_actions=rng.randint(20, 80))
        seed += 1
        if not game.is_over():
            positions.append(game)
    return positions


def chess_positions(count: int = 40) -> list:
    """Fixed python-chess positions: seeded random games stopped after 10..40 moves."""
    import chess

    rng = random.Random(1)
    boards = []
    while len(boards) < count:
        b = chess.Board()
        for _ in range(rng.randint(10, 40)):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
        if not b.is_game_over():
            boards.append(b)
    return boards


def interleaved(peers: dict, seconds: float, best: dict | None = None) -> dict[str, float]:
    """Per second rates of several peers, each ``(items, work)`` where ``work(item)`` returns how
    many things it did.  The peers take turns, one item each, until every one has run for
    ``seconds``; an item's time is its fastest run (a run the machine's load interrupted counts
    for nothing), and a peer's rate is everything its items do over the sum of their times."""
    clock = time.perf_counter
    if best is None:
        best = {}
    for name, (items, _) in peers.items():
        best.setdefault(name, [float("inf")] * len(items))
    count = {name: [0] * len(items) for name, (items, _) in peers.items()}
    spent = {name: 0.0 for name in peers}
    i = 0
    rounds = max(len(items) for items, _ in peers.values())  # every item at least once
    while i < rounds or min(spent.values()) < seconds:
        for name, (items, work) in peers.items():
            k = i % len(items)
            start = clock()
            count[name][k] = work(items[k])
            took = clock() - start
            spent[name] += took
            best[name][k] = min(best[name][k], took)
        i += 1
    return {name: sum(count[name]) / sum(best[name]) for name in peers}


def fresh(game: Game) -> Game:
    """Forget the state's remembered legal actions, so generation is measured, not the cache."""
    game._legal_cache = None
    return game


def engine_peers(mode: str, random_game=random_game) -> dict:
    """The measurements of one mode: (items, work) pairs (``random_game`` of the engine measured)."""
    positions = midgame_positions(mode, random_game=random_game)
    # every legal action of every position, to check membership of (the view's __contains__)
    probes = [(g, list(fresh(g).legal_actions())) for g in positions]

    def generate(game: Game) -> int:
        return len(fresh(game).legal_actions())

    def contains(probe) -> int:
        game, actions = probe
        if hasattr(game, "legal"):
            legal = fresh(game).legal
            for a in actions:
                a in legal  # noqa: B015 -- the check is what is measured
        else:  # an engine without the lazy view: is_legal generates them all, once per check here
            for a in actions:
                fresh(game).is_legal(a)
        return len(actions)

    def play(seed: int) -> int:
        random_game(seed, mode, max_actions=400)
        return 1

    mean = sum(len(a) for _, a in probes) / len(probes)
    return {"mean_legal_actions": round(mean, 1), "generate": (positions, generate),
            "contains": (probes, contains), "random_games": (list(range(RANDOM_GAMES)), play)}


def baseline_randplay(path: str):
    """``engine.randplay`` of the engine copy in ``path``/engine, imported as ``engine_baseline``."""
    import atexit
    import importlib
    import shutil
    import tempfile

    where = tempfile.mkdtemp(prefix="quin-bench-")
    atexit.register(shutil.rmtree, where, True)
    shutil.copytree(os.path.join(path, "engine"), os.path.join(where, "engine_baseline"))
    sys.path.insert(0, where)
    return importlib.import_module("engine_baseline.randplay")


def chess_peers() -> dict:
    import chess

    boards = chess_positions()
    probes = [(b, list(b.legal_moves)) for b in boards]

    def generate(board) -> int:
        return len(list(board.legal_moves))

    def contains(probe) -> int:
        board, moves = probe
        legal = board.legal_moves
        for m in moves:
            m in legal  # noqa: B015
        return len(moves)

    mean = sum(len(m) for _, m in probes) / len(probes)
    return {"version": chess.__version__, "mean_legal_moves": round(mean, 1), "generate": (boards, generate),
            "contains": (probes, contains)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of interleaved measurements (median)")
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    parser.add_argument("--baseline", metavar="DIR", help="also measure the engine in DIR/engine (in the same run)")
    args = parser.parse_args()

    peers = {mode: engine_peers(mode) for mode in MODES}
    if args.baseline:
        other = baseline_randplay(args.baseline)
        for mode in MODES:
            peers[f"{mode}_baseline"] = engine_peers(mode, other.random_game)
    try:
        peers["python_chess"] = chess_peers()
    except ImportError:
        pass
    samples: dict[tuple[str, str], list[float]] = {}
    games_best: dict = {}  # a random game takes long: each is played once a round, its fastest run counts
    for _ in range(args.rounds):
        for kind in ("generate", "contains", "random_games"):
            jobs = {name: p[kind] for name, p in peers.items() if kind in p}
            if kind == "random_games":
                games = interleaved(jobs, 0.0, games_best)
                continue
            for name, value in interleaved(jobs, args.seconds).items():
                samples.setdefault((name, kind), []).append(value)
    for name, value in games.items():
        samples[(name, "random_games")] = [value]

    def med(name: str, kind: str) -> float:
        return statistics.median(samples[(name, kind)])

    def ratios(name: str, kind: str, peer: str = "python_chess") -> list[float]:
        return [a / b for a, b in zip(samples[(name, kind)], samples[(peer, kind)])]

    result: dict = {"python": platform.python_version(), "machine": platform.machine(),
                    "rounds": args.rounds, "seconds_per_measurement": args.seconds}
    for mode in MODES:
        entry = {
            "positions": 40,
            "mean_legal_actions": peers[mode]["mean_legal_actions"],
            "actions_per_second": round(med(mode, "generate")),
            "actions_per_second_rounds": [round(x) for x in samples[(mode, "generate")]],
            "contains_per_second": round(med(mode, "contains")),
            "random_games_per_second": round(med(mode, "random_games"), 2),
        }
        if "python_chess" in peers:
            gen = ratios(mode, "generate")
            entry["ratio_to_python_chess"] = round(statistics.median(gen), 2)
            entry["ratio_to_python_chess_rounds"] = [round(x, 2) for x in gen]
            entry["contains_ratio_to_python_chess"] = round(statistics.median(ratios(mode, "contains")), 2)
        if args.baseline:
            base = f"{mode}_baseline"
            entry["baseline"] = {
                "actions_per_second": round(med(base, "generate")),
                "contains_per_second": round(med(base, "contains")),
                "random_games_per_second": round(med(base, "random_games"), 2),
            }
            if "python_chess" in peers:
                entry["baseline"]["ratio_to_python_chess"] = round(statistics.median(ratios(base, "generate")), 2)
            entry["speedup_over_baseline"] = {
                kind: round(statistics.median(ratios(mode, kind, base)), 2)
                for kind in ("generate", "contains", "random_games")
            }
        result[mode] = entry
    if "python_chess" in peers:
        c = peers["python_chess"]
        result["python_chess"] = {
            "version": c["version"],
            "positions": 40,
            "mean_legal_moves": c["mean_legal_moves"],
            "legal_moves_per_second": round(med("python_chess", "generate")),
            "legal_moves_per_second_rounds": [round(x) for x in samples[("python_chess", "generate")]],
            "contains_per_second": round(med("python_chess", "contains")),
        }
    else:
        result["python_chess"] = None
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
