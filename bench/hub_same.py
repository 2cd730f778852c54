"""Whether two checkouts' hubs behave the same (issue 32: the hub's store and the engine's truth moved
without a change of behaviour), on loopback.  Prints JSON.

    python bench/hub_same.py [--base REV] [--games 5]

The same scripted remote games are played through the API against a ``quin hub serve`` run from
each checkout (``--base``: a git revision, exported to a temporary folder; the other is this
checkout), each on a fresh database of a throwaway PostgreSQL cluster: random legal actions from
seeded generators, composed Void Gravity and several-Artificial-Light reinforcements checked with
``check``, both sides asking ``reveal`` before every flash and Classic Time in every other game (the
other, one side only), a game of two rated players resigned (and the resignation sent again, an
action after it), stale
reveals, rematches; and a board's pushes (a live game frame by frame, a push sent again and one
that differs, finished games of rated players, the same record twice), the index's filters, the
export and a player code's check.  Compared, byte for byte: every answer, both streams' final states, the
archive's read formats (index, each game, its events and record), the leaderboard, and the
database (pg_dump, each table's rows sorted).  What is random by nature is replaced by its order of
first appearance in each run before the comparison (game codes, seat tokens and their hashes,
player codes, uuids, the tables' key hashes, clock times); a JSON object keyed by token hashes (a game's
``away``) has its keys sorted, and so do the rows (PostgreSQL orders JSONB keys and pg_dump's
sorted rows by the hashes, which differ from run to run).  Presence rows (this run's process and
expiry) are left out.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.randplay import random_game, random_setup  # noqa: E402
from engine.record import to_record  # noqa: E402
from tests.support.hub_client import request  # noqa: E402  (the tests' small client)
from tests.support.pg import Cluster  # noqa: E402  (the tests' throwaway cluster)
from tests.support.remote_client import SIDES, create, join, play, start  # noqa: E402

QUIN = [sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())"]
GAMES = [("classic", 11, "play"), ("classic", 12, "resign"), ("third_eye", 13, "play"), ("classic", 14, "play"),
         ("third_eye", 15, "play"), ("classic", 16, "play"), ("third_eye", 17, "play")]


def boards(url: str, key: str, players: list[str]) -> list:
    """A board's pushes: a live game frame by frame (its first push makes the game, the next go the
    one-statement way), a push sent again and one that differs, finished games with the players'
    codes (rated, and the same record again: not), then the index's filters, the export and a
    player code's check."""
    log: list = []
    live = "00000000-0000-4000-8000-000000000001"
    for seq in range(1, 6):
        frame = {"state": {"phase": "play", "mode": "classic", "turn": seq}, "notices": []}
        body = {"games": [{"uuid": live, "events": [{"seq": seq, "data": frame}]}], "board": live}
        log.append(["push", seq, request(url + "/api/push", "POST", body, key=key)])
    log.append(["push again", request(url + "/api/push", "POST", body, key=key)])
    body["games"][0]["events"][0]["data"]["notices"] = ["another"]
    log.append(["push other", request(url + "/api/push", "POST", body, key=key)])
    for n in range(4):
        game = random_game(300 + n % 3, max_actions=2000)
        r = game.result
        final = {"status": "over", "record": to_record(game), "result": r.to_json(), "created": 1767225600.0 + n * 86400,
                 "finished": 1767229200.0 + n * 86400, "mode": game.mode,
                 "players": {"white": {"name": "Ann", "code": players[n % 2]},
                             "black": {"name": "Bob", "code": players[(n + 1) % 2]}}}
        event = {"seq": 1, "data": {"state": {"phase": "over", "mode": game.mode}, "notices": []}}
        body = {"games": [{"uuid": f"00000000-0000-4000-8000-00000000010{n}", "events": [event], "final": final}]}
        log.append(["final", n, request(url + "/api/push", "POST", body, key=key)])
    for query in ("table=Table%201", "player=an", "status=over", "result=white", "mode=classic",
                  "date=2026-01-02", "from=2026-01-02&to=2026-01-03", "date=2026-13-01", "player=%25"):
        log.append(["index", query, request(url + "/api/games?" + query)])
    log.append(["export", request(url + "/api/export?from=2026-01-01")])
    log.append(["code", request(url + f"/api/players/{players[0]}", key=key)])
    log.append(["code", request(url + "/api/players/qp_00000000", key=key)])
    return log


def scenario(url: str, games: int, key: str, players: list[str]) -> list:
    """Every answer and final state of the scripted games, a board's pushes, then the archive's
    read formats."""
    log: list = []
    for n, (mode, seed, how) in enumerate(GAMES[:games]):
        rng = random.Random(seed)
        setups = random_setup(rng, "white").to_record(), random_setup(rng, "black").to_record()
        if how == "resign":  # between two rated players: the resignation rates them
            seats = {"white": create(url, mode=mode, side="white", player=players[0])}
            seats["black"] = join(url, seats["white"].code, player=players[1])
            streams = {s: seats[s].stream() for s in SIDES}
            for s in SIDES:
                streams[s].wait(lambda x: x["present"]["white"] and x["present"]["black"], "both present")
            for s, setup in zip(SIDES, setups):
                log.append([n, "setup", *seats[s].post("setup", {"setup": setup})])
            for s in SIDES:
                streams[s].wait(lambda x: x["phase"] == "playing", "play")
        else:
            seats, streams = start(url, mode, *setups)
        if how == "resign":
            seq = streams["white"].last["seq"]
            for _ in range(9):
                states = {s: streams[s].wait(lambda x, q=seq: x["seq"] >= q) for s in SIDES}
                me = next(s for s in SIDES if states[s]["legal"] is not None)
                status, answer = seats[me].post("action", {"seq": seq, "action": rng.choice(states[me]["legal"])})
                log.append([n, "action", status, answer])
                seq = answer["seq"]
            log.append([n, "resign", *seats["black"].post("resign", {})])
            log.append([n, "resign again", *seats["black"].post("resign", {})])
            log.append([n, "action after", *seats["white"].post("action", {"seq": seq, "action": {"type": "pass"}})])
        else:
            played = play(seats, streams, rng=rng, reveal_sides=("white", "black") if n % 2 == 0 else ("white",))
            log.append([n, "steps", played.steps, played.composed, played.reveals])
            log.append([n, "stale reveal", *seats["white"].post(
                "reveal", {"seq": 0, "time": {"type": "time", "at": "w39"}})])
        for s in SIDES:
            seq = max(streams[x].last["seq"] for x in SIDES)
            log.append([n, "final state", s, streams[s].wait(lambda x, q=seq: x["seq"] >= q and x["phase"] == "over")])
            streams[s].close()
        log.append([n, "rematch", *seats["white"].post("rematch"), *seats["black"].post("rematch")])
    log += boards(url, key, players)
    status, index = request(url + "/api/games")
    log.append(["index", status, index])
    for g in index["games"]:
        for what in ("", "/events", "/record"):
            log.append([what, request(url + f"/api/games/{g['uuid']}{what}")])
    log.append(["players", request(url + "/api/players")])
    return log


def run(tree: Path, games: int) -> tuple[str, str, dict]:
    """(the answers, the database) of the scenario on a hub run from ``tree``, both normalised, and counts."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cluster = Cluster()
    try:
        dsn = cluster.new_database("same")
        key = subprocess.run([*QUIN, "hub", "add-table", "Table 1", "--db", dsn], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
        players = [subprocess.run([*QUIN, "hub", "add-player", name, "--db", dsn], env=env, capture_output=True,
                                  text=True, check=True).stdout.strip() for name in ("Ann", "Bob")]
        hub = subprocess.Popen([*QUIN, "hub", "serve", "--db", dsn, "--port", "0", "--remote-rate", "10000",
                                "--join-rate", "1000"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True)
        try:
            url = "http://127.0.0.1:" + re.search(r":(\d+)/", hub.stdout.readline()).group(1)
            log = scenario(url, games, key, players)
        finally:
            hub.terminate()
            hub.wait(10)
        dump = cluster.dump("same").decode()
    finally:
        cluster.close()
    answers = json.dumps(log, sort_keys=True, indent=0)
    steps = [step for entry in log if entry[1:2] == ["steps"] for step in entry[2]]
    counts = {"answers": len(log), "actions": len(steps),
              "flash_reveals": sum(1 for st in steps if st["reveal"] and "flash" in st["reveal"]),
              "time_reveals": sum(1 for st in steps if st["reveal"] and "time" in st["reveal"]),
              "failed_time_reveals": sum(1 for st in steps if st["answer"] and st["answer"]["outcome"] == "failed"),
              "composed": sum(entry[3] for entry in log if entry[1:2] == ["steps"])}
    answers, dump = normalise(answers + "\n=== DUMP\n" + dump).split("\n=== DUMP\n")
    return answers, "\n".join(sorted(dump.split("\n"))), counts


def normalise(text: str) -> str:
    """What is random by nature replaced by its order of first appearance (see the docstring)."""
    names: dict[str, str] = {}

    def named(kind: str):
        def sub(m: re.Match) -> str:
            if m.group(0) not in names:
                names[m.group(0)] = f"<{kind}{sum(v.startswith('<' + kind) for v in names.values())}>"
            return names[m.group(0)]
        return sub

    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", named("uuid"), text)
    text = re.sub(r"remote:[0-9a-f]{32}", named("remotekey"), text)
    text = re.sub(r"\b[0-9a-f]{64}\b", named("hash"), text)
    text = re.sub(r"qs_[A-Za-z0-9_-]{32}", named("token"), text)
    text = re.sub(r"qp_[0-9a-f]{8}", named("player"), text)
    text = re.sub(r"qt_[A-Za-z0-9_-]{32}", named("tablekey"), text)
    text = re.sub(r"\b1[6-9]\d{8}(\.\d+)?\b", "<time>", text)
    text = re.sub(r"\b[0-9A-Z]{3}-[0-9A-Z]{3}\b", named("code"), text)
    text = re.sub(r"\b[0-9A-Z]{6}\b", named("code6"), text)
    text = re.sub(r'\{((?:"<hash\d+>": <time>(?:, )?)+)\}',
                  lambda m: "{" + ", ".join(sorted(p.strip() for p in m.group(1).split(","))) + "}", text)
    return "\n".join(line for line in text.split("\n") if not re.match(r"^\d+\t<hash\d+>\t[0-9a-f]{32}\t", line))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="main", help="the git revision to compare this checkout with")
    ap.add_argument("--games", type=int, default=5, help=f"remote games played (1 to {len(GAMES)})")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        base = run(Path(folder), args.games)
    here = run(ROOT, args.games)
    print(json.dumps({"base": args.base, "games": args.games, **here[2],
                      "answers_bytes": len(here[0]), "database_bytes": len(here[1]),
                      "same_answers": base[0] == here[0], "same_database": base[1] == here[1]}))
    return 0 if base[:2] == here[:2] else 1


if __name__ == "__main__":
    sys.exit(main())
