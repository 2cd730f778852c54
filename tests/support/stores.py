"""A board's store with games in it, for the store's tests."""

from pathlib import Path

from engine.randplay import random_game
from host.store import Store


def stored_games(folder: Path, n: int = 3) -> list:
    """``n`` finished or long games in a store in ``folder``; returns the engine games."""
    store = Store(folder / "quin.sqlite3")
    games = []
    for seed in range(n):
        source = random_game(seed, max_actions=40)
        gid = store.new_game(source.mode, source.vision, source.first, {"white": f"w{seed}", "black": f"b{seed}"})
        for p in ("white", "black"):
            store.save_setup(gid, p, source.setups[p])
        store.start_game(gid)
        game = type(source)(source.setups["white"], source.setups["black"], source.mode, source.vision, source.first)
        for _, _, action in source.log:
            game.push(action)
            store.commit_action(gid, game)
        store.abandon(gid)
        games.append(game)
    store.close()
    return games
