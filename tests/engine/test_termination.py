"""Games that end other than by a move: a resignation, an abandoned game claimed (docs/rules.md,
"How a game may end"): the engine's vocabulary, the record's ``termination``, ``quin replay``."""

import json

import pytest

from engine.errors import IllegalError, InvalidError
from engine.game import ABANDONMENT, RESIGNATION, TERMINATIONS, TIME_FORFEIT
from engine.record import ReplayError, load_record, replay, to_record
from host.cli import main

from tests.support.engine_helpers import record

TURNS = [("white", [{"type": "move", "from": "w58", "to": "w51"}]),
         ("black", [{"type": "move", "from": "b58", "to": "b51"}])]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_vocabulary_sits_beside_the_other_results():
    assert TERMINATIONS == (RESIGNATION, ABANDONMENT, TIME_FORFEIT) == ("resignation", "abandonment", "time")


@pytest.mark.parametrize("reason", TERMINATIONS)
def test_a_termination_replays_to_a_won_game_and_round_trips(reason):
    data = record(TURNS, termination={"reason": reason, "winner": "black"})
    game = replay(load_record(data))
    assert game.is_over()
    assert game.result.to_json() == {"status": "won", "winner": "black", "reason": reason}
    assert game.legal_actions() == []
    again = to_record(game)
    assert again["termination"] == {"reason": reason, "winner": "black"}
    assert again == {**data, "vision": False}


def test_a_record_without_termination_has_none_and_stays_as_it_was():
    data = record(TURNS)
    game = replay(load_record(data))
    assert not game.is_over()
    assert "termination" not in to_record(game)
    assert to_record(game) == {**data, "vision": False}


@pytest.mark.parametrize("bad, says", [
    ("resigned", "termination: expected an object"),
    ({"reason": "agreement", "winner": "white"}, "termination: reason: expected one of"),
    ({"reason": "resignation", "winner": "nobody"}, "termination: winner: expected 'white' or 'black'"),
    ({"reason": "resignation", "winner": "white", "by": "black"}, "termination: unknown field 'by'"),
])
def test_a_malformed_termination_is_named_in_one_line(bad, says):
    with pytest.raises(ReplayError) as exc:
        load_record(record(TURNS, termination=bad))
    assert exc.value.code == 2
    assert str(exc.value).startswith(says)


def test_a_termination_after_a_game_already_won_is_illegal():
    game = replay(load_record(record(TURNS)))
    game.end(RESIGNATION, "white")
    with pytest.raises(IllegalError):
        game.end(ABANDONMENT, "black")
    with pytest.raises(InvalidError):
        replay(load_record(record(TURNS))).end("agreement", "white")


@pytest.mark.parametrize("reason, winner, words", [
    ("resignation", "black", "Black wins: White resigned"),
    ("abandonment", "white", "White wins: Black left the game and White claimed it"),
    ("time", "white", "White wins: Black's time ran out"),
])
def test_quin_replay_says_the_termination_in_words(tmp_path, capsys, reason, winner, words):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(record(TURNS, termination={"reason": reason, "winner": winner})))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    assert out.strip().splitlines()[-1] == f"{words} (2 turns)"
    code, out, _ = run(capsys, "replay", "--json", str(path))
    assert json.loads(out)["result"] == {"status": "won", "winner": winner, "reason": reason}
