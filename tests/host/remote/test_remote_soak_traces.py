"""A remote game that is not right leaves what is needed to find its cause again
(``bench/remote_soak.py --out FILE`` keeps it in ``FILE.traces/seed-SEED/``;
tests/support/remote_hands.py's ``keep_trace``): the board's sensor trace as ``quin-trace/1``,
the board's referee journal, every state its screens were sent, its log.

The failing game here is made so by the harness itself: the hands never carry out the board's
person's last action (``drop``), so the board never sends it and the game stands (the harness
says "stuck" once nothing happened for ``STUCK`` seconds, shortened here).  The trace must read,
hold the game's lineups and what the board was fed, and its journal must referee again to the
very commits the board made, leaving the referee where the board's was: waiting."""

import json

import pytest

from engine.board import other
from host.board.trace import InputLine, SnapshotLine, read_trace
from host.session.journal import read_journal, replay
from tests.support import remote_hands
from tests.support.remote_hands import Services, intended_game, play

# real time: what this file tests runs on the machine's clock (tools/lanes.sh gives it a lane of its own)
pytestmark = pytest.mark.realtime

SEED, MODE, PACE, NOISE, LOCAL, ACTIONS = 7101, "third_eye", "brisk", "low", "black", 4


@pytest.fixture(scope="module")
def services(cluster):
    s = Services(cluster)
    yield s
    s.close()


def test_a_stuck_game_leaves_a_trace_that_referees_again_to_the_same_commits(services, tmp_path, monkeypatch):
    monkeypatch.setattr(remote_hands, "STUCK", 3.0)
    import random

    first = random.Random(SEED * 7919 + 1).choice(("white", "black"))  # as play() draws it
    game = intended_game(SEED, MODE, ACTIONS, first)
    mine = [i for i, (_, player, _) in enumerate(game.log) if player == LOCAL]
    last = mine[-1]
    assert all(p == other(LOCAL) for _, p, _ in game.log[last + 1:])

    r = play(services, SEED, MODE, PACE, NOISE, LOCAL, ACTIONS, keep=tmp_path, drop=last)
    assert r["status"] == "stuck", r
    folder = tmp_path / f"seed-{SEED}"
    assert r["trace"] == str(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["board.log", "board.trace", "game.json", "notices.jsonl",
                                                        "referee.journal"]

    # the sensor trace: quin-trace/1 with the game's lineups, what the board was fed, in time order
    trace = read_trace(folder / "board.trace")
    assert {p: s.to_record() for p, s in trace.header.setups.items()} == {
        p: game.setups[p].to_record() for p in ("white", "black")}
    snaps = [e for e in trace.events if isinstance(e, SnapshotLine)]
    words = [e for e in trace.events if isinstance(e, InputLine)]
    assert snaps and all(e.t >= 0 for e in trace.events)
    assert {e.player for e in words} <= {"white", "black"}

    # the board's notices: every state the status page and the phone were sent
    screens = {json.loads(line)["screen"] for line in (folder / "notices.jsonl").read_text().splitlines()}
    assert screens == {"public", "phone"}
    kept = json.loads((folder / "game.json").read_text())
    assert kept["result"]["status"] == "stuck" and kept["local"] == LOCAL

    # the journal referees again to the same commits: every action of the board's person but the last
    entries = read_journal(folder / "referee.journal")
    run = replay(entries)
    assert run["same"], (run["commits"], run["recorded"])
    assert not run["differing"]
    assert [c[2] for c in run["commits"]] == [game.log[i][2].to_record() for i in mine[:-1]]
    ref = run["referee"]
    assert ref.game.to_move == LOCAL and not ref.game.is_over()  # waiting for the action never made
