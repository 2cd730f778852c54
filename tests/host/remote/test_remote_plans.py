"""The rival's plans as the board side says them (host/remote/mind.py ``plan_of_seen``): a flash
played far away is said with its outcome, from the public events of its turn (the hub's view), and
the board is told where each tower goes; a Classic Time with its outcome (issue 28: "every public
outcome said in words")."""

import pytest

from host.remote.mind import RemoteMind, plan_of_seen

MOVE = {"type": "move", "from": "b58", "to": "b56"}


def flash(outcome, attacker="light", defender="shadow"):
    return [{"type": "flash", "turn": 23, "at": "b56", "attacker": attacker, "defender": defender,
             "outcome": outcome}]


@pytest.mark.parametrize("outcome,place,said", [
    ("capture", ["b56"], "light flashes shadow on b56: capture. The shadow goes to black's Zero Gravity; "
                         "the light stands on b56"),
    ("swap", ["b56", "b58"], "light flashes shadow on b56: swap. The light stands on b56, the shadow goes to b58"),
    ("mutual_destruction", [], "light flashes shadow on b56: mutual destruction. Both leave the board: the "
                               "light to white's Zero Gravity, the shadow to black's"),
])
def test_a_flash_from_afar_is_said_with_its_outcome(outcome, place, said):
    plan = plan_of_seen(MOVE, "black", frozenset({"b56", "w18"}), frozenset({"b56"}), flash(outcome))
    assert plan["flash"] and plan["lift"] == ["b58", "b56"] and sorted(plan["place"]) == sorted(place)
    assert plan["outcome"] == {"player": "black", "from": "b58", "at": "b56", "attacker": "light",
                               "defender": "shadow", "outcome": outcome}
    assert plan["text"] == f"Black's tower on b58 flashes the tower on b56: {said}"


def test_a_flash_without_its_event_is_announced_as_before():
    plan = plan_of_seen(MOVE, "black", frozenset({"b56"}), frozenset({"b56"}))
    assert "outcome" not in plan and plan["place"] == ["b56"]
    assert plan["text"].endswith("then the flash says who wins; then put the winning tower on b56")


@pytest.mark.parametrize("outcome,said", [("rewound", "White's last action is undone"),
                                          ("failed", "it fails, White's last action moved a Shadow")])
def test_a_classic_time_from_afar_is_said_with_its_outcome(outcome, said):
    plan = plan_of_seen({"type": "time", "at": "b18"}, "black", frozenset(), None,
                        [{"type": "time", "turn": 25, "outcome": outcome}])
    assert plan["outcome"] == outcome and plan["lift"] == ["b18"]
    assert plan["text"] == f"Black uses the Power of Time: {said}; take Black's Time tower on b18 off the board"


def test_the_rival_is_named_as_they_are():
    mind = RemoteMind("black")
    assert mind.who == "your friend, playing from afar"  # before the hub named them
    mind.name = "Bob"
    assert mind.who == "Bob, playing from afar" and mind.remote


def test_the_serve_commands_lines_name_the_rival_and_say_one_seat_code():
    """`quin serve --remote` printed "played by the practice opponent" and "Each player scans their
    own seat code" (issue 28)."""
    import io

    from host.commands.serve_cmds import next_steps, print_links

    out = io.StringIO()
    print_links(out, "http://q:8000", "k" * 32, {"white": "t" * 32}, qr=False, who={"black": "Bob, playing from afar"})
    assert "  black seat:    Bob, playing from afar: no phone, no link" in out.getvalue().splitlines()
    assert "practice opponent" not in out.getvalue()
    steps = next_steps(None, True, remote="black")
    assert "your friend plays Black from afar" in steps and "Each player" not in steps
    assert "Each player scans their own seat code" in next_steps(None, True)
