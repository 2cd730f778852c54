"""The store: durable actions, replay on load, the black box, records."""

import json
import sqlite3

import pytest

from engine.game import Game
from engine.randplay import random_game
from engine.record import to_record
from host.store import Store, StoreError, connect


def fresh_copy(game: Game) -> Game:
    return Game(game.setups["white"], game.setups["black"], game.mode, game.vision, game.first)


def started(store: Store, game: Game) -> int:
    gid = store.new_game(game.mode, game.vision, game.first, {"white": "tw", "black": "tb"})
    for p in ("white", "black"):
        store.save_setup(gid, p, game.setups[p])
    store.start_game(gid)
    return gid


def play_into(store: Store, gid: int, source: Game, upto: int | None = None) -> Game:
    game = fresh_copy(source)
    for _, _, action in source.log[:upto]:
        game.push(action)
        store.commit_action(gid, game)
    return game


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "quin.sqlite3")
    yield s
    s.close()


def test_wal_mode_and_full_sync(store):
    conn = connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_committed_actions_survive_reopening_and_replay_to_the_same_state(tmp_path):
    source = random_game(3, max_actions=120)
    s = Store(tmp_path / "q.sqlite3")
    gid = started(s, source)
    game = play_into(s, gid, source)
    s.close()
    again = Store(tmp_path / "q.sqlite3")
    loaded = again.load_game(gid)
    assert loaded.state.key() == game.state.key()
    assert [a.to_record() for _, _, a in loaded.log] == [a.to_record() for _, _, a in game.log]
    assert again.reveals(gid) == [e.to_json() for e in game.events]
    assert again.record(gid) == to_record(game)


def test_finished_game_is_marked_over_with_its_result(store):
    seed = next(s for s in range(50) if random_game(s, max_actions=400).is_over())
    source = random_game(seed, max_actions=400)
    gid = started(store, source)
    play_into(store, gid, source)
    row = store.game(gid)
    assert row.status == "over"
    assert row.result == source.result.to_json()
    assert store.open_game() is None


def test_an_undone_action_is_removed_from_the_store(store):
    source = random_game(5, max_actions=30)
    gid = started(store, source)
    game = play_into(store, gid, source, 20)
    game.pop()
    game.pop()
    store.commit_action(gid, game)  # the referee commits the log as it now stands
    assert len(store.actions(gid)) == 18
    game.push(source.log[18][2])
    store.commit_action(gid, game)
    assert [a for _, _, a in store.actions(gid)] == [a.to_record() for _, _, a in game.log]
    assert store.load_game(gid).state.key() == game.state.key()


def test_a_stored_action_that_no_longer_replays_is_reported_with_its_number(store):
    source = random_game(7, max_actions=10)
    gid = started(store, source)
    play_into(store, gid, source)
    with sqlite3.connect(store.path) as c:
        c.execute("UPDATE actions SET action = ? WHERE game_id = ? AND seq = 4", (json.dumps({"type": "pass"}), gid))
    with pytest.raises(StoreError, match=f"game {gid}, action 4"):
        store.load_game(gid)


def test_open_game_is_the_latest_unfinished_and_abandon_closes_it(store):
    a = store.new_game("classic", False, "white", {"white": "a", "black": "b"})
    b = store.new_game("third_eye", True, "black", {"white": "c", "black": "d"})
    assert store.open_game().id == b
    store.abandon(b)
    assert store.open_game().id == a
    assert store.game(b).status == "abandoned"
    assert [g.id for g in store.games()] == [b, a]


def test_seats_are_stored_and_reissue_replaces_the_token(store):
    gid = store.new_game("classic", False, "white", {"white": "old-w", "black": "old-b"})
    store.reissue_seat(gid, "white", "new-w")
    assert store.seats(gid) == {"white": "new-w", "black": "old-b"}


def test_blackbox_keeps_only_changes_and_is_bounded(tmp_path):
    s = Store(tmp_path / "q.sqlite3", blackbox_limit=10)
    kept = 0
    for i in range(40):
        kept += s.record_snapshot(None, float(i), frozenset({i // 2}))
    assert kept == 20  # every second snapshot repeats the previous occupancy
    box = s.blackbox(limit=100)
    assert len(box) == 10
    assert box[-1]["occupied"] == [19] and box[0]["occupied"] == [10]


def test_inputs_are_logged_with_whether_they_were_accepted(store):
    gid = store.new_game("classic", False, "white", {"white": "a", "black": "b"})
    store.record_input(gid, "white", {"declare": "done"}, True)
    store.record_input(gid, "black", {"bogus": 1}, False)
    assert [(i["player"], i["accepted"]) for i in store.inputs(gid)] == [("white", True), ("black", False)]


def test_unknown_game_and_game_without_setups(store):
    with pytest.raises(StoreError, match="no game 99"):
        store.game(99)
    gid = store.new_game("classic", False, "white", {"white": "a", "black": "b"})
    with pytest.raises(StoreError, match="has not started"):
        store.load_game(gid)
    with pytest.raises(StoreError, match="never started"):
        store.record(gid)
