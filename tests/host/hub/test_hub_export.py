"""A tournament's games out of the hub (issue 20): the index of games and one JSON file per game
that other tools poll, and the bulk export of a selection (days, table, player) as one JSON file or
a zip of quin-record/1 files that `quin replay` checks."""

import io
import json
import uuid
import zipfile

from tests.support.hub_client import request
from tests.support.hubproc import quin

from engine.randplay import random_game
from engine.record import load_record, replay, to_record

DAY = 86400.0
JAN_1 = 1767225600.0  # 2026-01-01 00:00 UTC


def finished_game(seed: int) -> tuple[dict, dict]:
    """(record, result) of a random game played to its end."""
    game = random_game(seed, max_actions=2000)
    assert game.is_over()
    r = game.result
    return to_record(game), {"status": r.status, "winner": r.winner, "reason": r.reason}


def push_game(hub, key, record, result, finished, players):
    g = str(uuid.uuid4())
    final = {"status": "over", "record": record, "result": result, "created": finished - 3600, "finished": finished,
             "mode": record["mode"], "players": players}
    event = {"seq": 1, "data": {"state": {"phase": "over", "mode": record["mode"]}, "notices": []}}
    status, out = request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event], "final": final}]},
                          key=key)
    assert status == 200, out
    return g


def test_a_tournaments_games_by_days_table_and_player_as_json_and_as_a_zip_of_records(db, hubs, tmp_path):
    dsn, _ = db
    k1 = quin("hub", "add-table", "Board 1", "--db", dsn).stdout.strip()
    k2 = quin("hub", "add-table", "Board 2", "--db", dsn).stdout.strip()
    hub = hubs()
    played = {}
    plan = [  # (table key, day after Jan 1, white, black)
        (k1, 0, "Ann", "Bob"), (k2, 0, "Cy", "Dee"),  # Jan 1: before the tournament
        (k1, 1, "Ann", "Cy"), (k2, 1, "Bob", "Dee"),  # Jan 2 and 3: the tournament
        (k1, 2, "Dee", "Ann"), (k2, 2.99, "Cy", "Bob"),
        (k1, 3, "Ann", "Bob"),  # Jan 4: after it
    ]
    for n, (key, day, white, black) in enumerate(plan):
        record, result = finished_game(100 + n)
        g = push_game(hub, key, record, result, JAN_1 + day * DAY + 600,
                      {"white": {"name": white, "code": None}, "black": {"name": black, "code": None}})
        played[g] = (record, n)
    live = str(uuid.uuid4())  # a game still being played is in the index, never in an export
    request(hub.url + "/api/push", "POST", {"games": [{"uuid": live, "events": [
        {"seq": 1, "data": {"state": {"phase": "play"}, "notices": []}}]}]}, key=k1)

    def chosen(query):
        return {g["uuid"] for g in request(hub.url + "/api/games?" + query)[1]["games"]}

    by_n = {n: g for g, (_, n) in played.items()}
    tournament = {by_n[n] for n in (2, 3, 4, 5)}
    assert chosen("from=2026-01-02&to=2026-01-03") == tournament
    assert chosen("from=2026-01-02&to=2026-01-03&table=Board%201") == {by_n[2], by_n[4]}
    assert chosen("from=2026-01-02&to=2026-01-03&player=dee") == {by_n[3], by_n[4]}
    assert chosen("from=2026-01-04") == {by_n[6]}
    assert live in chosen("status=live")
    for bad, field in (("from=2026-13-01", "from"), ("to=soon", "to")):
        status, out = request(hub.url + "/api/games?" + bad)
        assert status == 400 and out["error"] == f"{field}: YYYY-MM-DD expected"
        assert request(hub.url + "/api/export.zip?" + bad)[0] == 400

    # one JSON file: each game's index entry and its record
    status, export = request(hub.url + "/api/export?from=2026-01-02&to=2026-01-03")
    assert status == 200 and export["format"] == "quin-hub-export/1"
    assert {g["uuid"] for g in export["games"]} == tournament
    for g in export["games"]:
        assert g["record"] == played[g["uuid"]][0]

    # the zip: an index and one quin-record/1 file per game, each replaying to its end
    status, raw = request(hub.url + "/api/export.zip?from=2026-01-02&to=2026-01-03")
    assert status == 200
    z = zipfile.ZipFile(io.BytesIO(raw))
    index = json.loads(z.read("index.json"))
    assert index["format"] == "quin-hub-index/1" and {g["uuid"] for g in index["games"]} == tournament
    assert sorted(z.namelist()) == sorted(["index.json"] + [f"games/{g}.json" for g in tournament])
    for entry in index["games"]:
        record = json.loads(z.read(entry["file"]))
        assert record == played[entry["uuid"]][0]
        assert replay(load_record(record)).is_over()
        assert entry["players"]["white"] and entry["status"] == "over"
    # and `quin replay` checks the unzipped files, as any tool would
    z.extractall(tmp_path / "out")
    files = sorted(str(p) for p in (tmp_path / "out/games").glob("*.json"))
    out = quin("replay", *files)
    assert out.returncode == 0

    # the read formats: the index names each game's JSON file, which has its record once over
    entry = next(g for g in request(hub.url + "/api/games?from=2026-01-04")[1]["games"])
    status, one = request(hub.url + entry["url"])
    assert status == 200 and one["record"] == played[entry["uuid"]][0] and one["players"] == {"white": "Ann", "black": "Bob"}
    assert request(hub.url + entry["url"] + "/record") == (200, played[entry["uuid"]][0])


def test_bulk_exports_are_limited_per_address(db, hubs):
    """Each export reads up to 10,000 records: one every 2 seconds per address, bursts of 3 (six
    exports would have to take over 6 s for none to be held back)."""
    hub = hubs()
    answers = [request(hub.url + path, with_headers=True) for path in ["/api/export", "/api/export.zip"] * 3]
    assert [a[0] for a in answers[:3]] == [200] * 3 and 429 in [a[0] for a in answers[3:]]
    status, out, headers = next(a for a in answers if a[0] == 429)
    assert out["error"].startswith("too many exports from this address; retry after")
    assert int(headers["Retry-After"]) >= 1
