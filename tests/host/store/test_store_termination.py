"""A stored game that ended by a termination (a resignation, an abandoned game claimed): its
status, result, rebuilt game and record say so, as the engine's record does (engine/record.py)."""

from engine.game import Game
from engine.randplay import random_game
from engine.record import load_record, replay
from host.store import Store


def test_a_resigned_game_is_stored_over_and_its_record_names_the_termination(tmp_path):
    source = random_game(seed=7, max_actions=12)
    store = Store(tmp_path / "quin.sqlite3")
    try:
        gid = store.new_game(source.mode, source.vision, source.first, {"white": "tw", "black": "tb"})
        for p in ("white", "black"):
            store.save_setup(gid, p, source.setups[p])
        store.start_game(gid)
        game = Game(source.setups["white"], source.setups["black"], source.mode, source.vision, source.first)
        for _, _, action in source.log:
            if game.is_over():
                break
            game.push(action)
            store.commit_action(gid, game)
        assert not game.is_over(), "the seed's first 12 actions must leave the game on"
        loser = game.to_move
        winner = "black" if loser == "white" else "white"
        game.end("resignation", winner)
        store.commit_action(gid, game)
        row = store.game(gid)
        assert row.status == "over"
        assert row.result == {"status": "won", "winner": winner, "reason": "resignation"}
        loaded = store.load_game(gid)
        assert loaded.is_over() and loaded.result == game.result
        rec = store.record(gid)
        assert rec["termination"] == {"reason": "resignation", "winner": winner}
        assert replay(load_record(rec)).result == game.result
        shown = store.replayed(row, vision=True).final()
        assert shown.result == game.result
    finally:
        store.close()
