"""The referee's journal (host/session/journal.py, ``quin serve --referee-journal``): every call the
service makes to its referee, replayed, reaches the very commits it made; the file is its owner's."""

import os
import random
import stat

from engine.board import SPACE_NAMES
from engine.randplay import random_setup
from host.board.simboard import SimulatedBoard
from host.clock import FakeClock
from host.compose import Service
from host.session.journal import Journal, read_journal, replay
from host.store import Store


def test_a_games_journal_replays_to_the_same_commits_and_is_its_owners(tmp_path):
    path = tmp_path / "referee.journal"
    journal = Journal.open(path)
    clock = FakeClock(10.0)
    board = SimulatedBoard((), clock=clock)
    service = Service(Store(tmp_path / "quin.sqlite3"), board=board, settle=0.05,
                      referee_factory=journal.referee_factory())
    service.open("classic", False, "white")
    table = service.table
    rng = random.Random(3)
    for p in ("white", "black"):
        table.submit_setup(p, random_setup(rng, p).to_record())
    table.feed(board.set(table.ref.expected()))
    for _ in range(40):
        clock.advance(0.05)
        table.tick()
    assert table.ref.phase == "play"
    # White moves one of its towers to an empty neighbouring space: the referee commits it
    game = table.ref.game
    move = next(a for a in game.legal_actions() if type(a).__name__ == "Move" and game.state.board[a.to] < 0)
    table.feed(board.lift(move.frm))
    clock.advance(0.3)
    table.tick()
    table.feed(board.place(move.to))
    for _ in range(60):
        clock.advance(0.05)
        table.tick()
    assert [a for _, _, a in table.ref.game.log] == [move], SPACE_NAMES[move.frm]
    journal.close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    run = replay(read_journal(path))
    assert run["recorded"] == [[1, "white", move.to_record()]] and run["same"]
