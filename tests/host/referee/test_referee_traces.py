"""Regression fixtures: sensor traces of two people's hands from a model written apart from ours
(``tests/host/referee/traces``, copied from the team's shared traces; see their README), and the same
model at a brisk pace (``traces/brisk``: words racing the board, quick lifts with bounce at both
edges, missing ``done``, successive swaps, the next player's lift right after a placement; issue 17),
with the four fresh games issue 31 added (the next player's word while the rival's tower lands, a
Reinforcement's piece, a move hidden by the rival's flash, a Gateway placement).

Each trace must referee to its recorded game.  A turn may differ from the record only where it
leaves the same game (``Game.equivalent``: a Reflection read as the plain move with the same
footprint, two Voids of one Gravity read as landing on each other's targets), and the rest of the
record must stay legal from there.  No input may be refused.  A question is asked only where the
trace's player answers one (their model sends ``choose`` exactly where two actions look the same yet
leave different games), and it names what they chose.

One record is not a legal game by our rules: ``classic-heavy-gateway-placement-stuck`` plays a
Classic Time after a Resurrection filled the Gateway its rewind needs (docs/rules.md: "whether Time
is legal never depends on what the rival's moved tower was (the Resurrection conflict is checked
before the Shadow failure)"; the model took the Time as failing against the moved Shadow).  There
the referee must read the game exactly up to that Time, refuse it to the player alone with the
engine's reason, and commit nothing it cannot see (never guess).
"""

import json
from pathlib import Path

import pytest

from engine.actions import action_from_record
from engine.errors import IllegalError
from host.board.trace import read_trace
from host.referee.traces import run_referee
from host.referee import Referee

HERE = Path(__file__).parent / "traces"
NAMES = sorted(p.name[: -len(".trace.jsonl")] for p in HERE.glob("*.trace.jsonl"))
BRISK = sorted("brisk/" + p.name[: -len(".trace.jsonl")] for p in (HERE / "brisk").glob("*.trace.jsonl"))
#: records that are not legal games by docs/rules.md: the index of the first illegal action
ILLEGAL = {"classic-heavy-gateway-placement-stuck": 36}


def test_every_shared_trace_is_here():
    assert len(NAMES) == 11  # the first ten, and issue 31's relaxed Gateway placement
    assert len(BRISK) == 12  # issue 17's nine, and issue 31's three
    for name in ("brisk/third-eye-light-swap-word-while-rival-lands", "brisk/classic-heavy-reinforce-wrong-piece",
                 "brisk/classic-heavy-move-misread", "classic-heavy-gateway-placement-stuck"):
        assert name in NAMES + BRISK


def _referee(name):
    trace = read_trace(HERE / f"{name}.trace.jsonl")
    record = json.loads((HERE / f"{name}.record.json").read_text())
    ref = Referee(trace.header.new_game())
    run = run_referee(ref, trace.events)
    want = [(t["player"], action_from_record(a)) for t in record["turns"] for a in t["actions"]]
    return trace, ref, run, want


def _chosen(trace):
    """What the trace's players named with ``choose``, by player."""
    out = {}
    for e in trace.events:
        data = getattr(e, "input", None)
        if isinstance(data, dict) and data.get("type") == "choose":
            out.setdefault(e.player, []).append(action_from_record(data["action"]))
    return out


def _same_game(trace, want, got):
    game = trace.header.new_game()
    for i, ((wp, wa), (gp, ga)) in enumerate(zip(want, got)):
        assert wp == gp, i
        if wa != ga:
            assert game.equivalent(wa, ga), (i, str(wa), str(ga))
        game.push(ga)  # what follows in the record must be legal from the refereed game
    return game


@pytest.mark.parametrize("name", [n for n in NAMES + BRISK if n not in ILLEGAL])
def test_each_trace_referees_to_its_recorded_game(name):
    trace, ref, run, want = _referee(name)
    assert run.stuck is None, run.stuck
    assert run.rejected_inputs == []
    # nor refused later: a word held until the board settled is refused by a private notice
    assert [n.data for n in run.notices if n.kind == "rejected" and "input" in n.data] == []
    chosen = _chosen(trace)
    for n in run.notices:
        if n.kind == "question" and n.data["options"]:
            # asked only where the player answers: the options lead to different games
            options = [action_from_record(a) for a in n.data["options"]]
            assert any(a in options for a in chosen.get(n.audience, ())), n.data
    got = [(p, a) for _, p, a in ref.game.log]
    assert len(got) == len(want)
    game = _same_game(trace, want, got)
    assert ref.game.result == game.result


@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_a_trace_whose_record_breaks_the_rules_is_read_up_to_it_and_never_guessed_past(name):
    trace, ref, run, want = _referee(name)
    at = ILLEGAL[name]
    game = trace.header.new_game()
    for _, action in want[:at]:
        game.push(action)
    player, illegal = want[at]
    with pytest.raises(IllegalError):
        game.push(illegal)
    reason = game.why_illegal(illegal)  # "is not allowed: the rewind needs a space that is now filled"
    got = [(p, a) for _, p, a in ref.game.log]
    assert got == want[:at]  # every action before it, exactly; nothing committed past it
    # the Time word refused at once, to the player alone, with the engine's reason
    (_, _, who, why), *_ = run.rejected_inputs
    assert who == player and why.endswith(reason), (who, why)
    refusals = [n for n in run.notices if n.kind == "rejected"]
    assert refusals and all(n.audience == player for n in refusals)
    assert run.stuck is not None  # it waits, saying for what, rather than guess a game
