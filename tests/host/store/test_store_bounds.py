"""The store stays bounded (issue 18): every input a bounded summary, a repeated word stored once,
the inputs and the black box together within the documented DIAGNOSIS_BOUND whatever is sent."""

import json
import os

from host.store import BLACKBOX_LIMIT, DIAGNOSIS_BOUND, INPUT_SUMMARY, INPUTS_LIMIT, Store


def on_disk(store: Store) -> int:
    """The store's bytes on disk once the WAL is folded in."""
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wal = f"{store.path}-wal"
    return store.path.stat().st_size + (os.path.getsize(wal) if os.path.exists(wal) else 0)


def big_word(n: int, bytes_: int = 63 * 1024) -> dict:
    """A Reinforcement word padded to ``bytes_`` of JSON (what a careless or hostile phone may send)."""
    return {"type": "reinforce", "pieces": ["guard"], "pad": f"{n:08d}" + "x" * (bytes_ - 60)}


def test_500_accepted_63kb_inputs_of_the_same_word_are_one_bounded_row(tmp_path):
    store = Store(tmp_path / "quin.sqlite3")
    gid = store.new_game("classic", False, "white", {"white": "a", "black": "b"})
    before = on_disk(store)
    word = big_word(0)
    assert len(json.dumps(word)) > 63_000
    for _ in range(500):
        store.record_input(gid, "black", word, True)
    rows = store.inputs(gid)
    assert len(rows) == 1 and rows[0]["repeats"] == 500 and rows[0]["accepted"]
    assert rows[0]["data"] == {"summary": True, "bytes": len(json.dumps(word)), "type": "reinforce"}
    assert on_disk(store) - before < 64 * 1024  # was 31.5 MB


def test_a_small_input_is_kept_whole_and_a_word_sent_again_later_is_a_new_row(tmp_path):
    store = Store(tmp_path / "quin.sqlite3")
    gid = store.new_game("classic", False, "white", {"white": "a", "black": "b"})
    store.record_input(gid, "white", {"type": "done"}, True)
    store.record_input(gid, "white", {"type": "done"}, True)
    store.record_input(gid, "black", {"type": "done"}, True)  # another player: its own row
    store.record_input(gid, "white", {"type": "done"}, False)  # refused this time: its own row
    store.record_input(gid, "white", {"type": "done"}, True)
    assert [(r["player"], r["data"], r["accepted"], r["repeats"]) for r in store.inputs(gid)] == [
        ("white", {"type": "done"}, True, 2), ("black", {"type": "done"}, True, 1),
        ("white", {"type": "done"}, False, 1), ("white", {"type": "done"}, True, 1)]


def test_inputs_and_black_box_filled_past_their_caps_stay_within_the_documented_bound(tmp_path):
    store = Store(tmp_path / "quin.sqlite3")
    gid = store.new_game("classic", False, "white", {"white": "a", "black": "b"})
    base = on_disk(store)
    # Every input different and as large as is kept whole, and more of them than are kept.
    pad = INPUT_SUMMARY - len(json.dumps({"type": "reinforce", "pad": ""})) - 10
    for n in range(INPUTS_LIMIT + 500):
        store.record_input(gid, ("white", "black")[n % 2], {"type": "reinforce", "pad": f"{n:010d}" + "y" * pad}, True)
    # Every snapshot different and as large as a snapshot can be (all 99 spaces, one missing).
    full = frozenset(range(99))
    for n in range(BLACKBOX_LIMIT + 500):
        store.record_snapshot(gid, float(n), full - {n % 99} if n % 2 else full)
    rows = store.inputs(gid)
    assert len(rows) == INPUTS_LIMIT
    assert max(len(json.dumps(r["data"])) for r in rows) <= INPUT_SUMMARY
    assert len(store.blackbox(limit=BLACKBOX_LIMIT * 2)) == BLACKBOX_LIMIT
    grown = on_disk(store) - base
    assert grown <= DIAGNOSIS_BOUND, grown
    # And sending all of it again adds nothing: the space of the dropped rows is used again.
    for n in range(INPUTS_LIMIT // 2):
        store.record_input(gid, "white", {"type": "reinforce", "pad": f"{n + 10**6:010d}" + "y" * pad}, True)
    assert on_disk(store) - base <= DIAGNOSIS_BOUND


def test_through_the_web_500_accepted_63kb_reinforcement_words_from_the_player_not_to_move(tmp_path):
    """The issue's case as a phone sends it: the same word again and again, each accepted (early words
    are kept for the player's turn), grew the store by 31.5 MB."""
    from tests.support.webplay import make, started

    web = make(tmp_path)
    started(web)
    _, client, table = web
    token = table.tokens["black"]  # White is to move
    word = {"type": "reinforce", "pieces": ["void"] * 7800}
    assert 62_000 < len(json.dumps(word)) < 64 * 1024
    before = on_disk(table.store)
    for _ in range(500):
        r = client.post(f"/api/seat/{token}/input", json=word, headers={"X-Seat-Token": token})
        assert r.status_code == 200, r.get_json()
    rows = [r for r in table.store.inputs(table.row.id) if r["player"] == "black"]
    assert len(rows) == 1 and rows[0]["repeats"] == 500 and rows[0]["accepted"]
    assert on_disk(table.store) - before < 64 * 1024
