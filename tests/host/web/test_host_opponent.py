"""The host page chooses who plays (issue 29: "the practice opponent and its level chosen on the
host page, and a seat never handed over silently"): a new game with the practice opponent on a
seat, at a level; a seat passing between a phone and the computer is said; a phone seat the
computer leaves gets a new code; bad input changes nothing."""

from host.session.table import practice_opponent_of_open_game
from host.compose import create_app
from tests.support.served import serve_once


def make(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    return app.test_client(), app.extensions["quin.table"]


def new(client, table, **body):
    key = table.host_key
    return client.post(f"/api/host/{key}/new", json=body, headers={"X-Host-Key": key})


def test_the_host_page_seats_the_practice_opponent_and_frees_the_seat_again_with_a_new_code(tmp_path):
    client, table = make(tmp_path)
    black_phone = table.seats.tokens["black"]
    assert client.get(f"/api/seat/{black_phone}/state").status_code == 200
    r = new(client, table, mode="classic", first="white", opponent="black", level=1)
    assert r.status_code == 200, r.get_json()
    got = r.get_json()
    assert got["opponent"] == {"side": "black", "level": 1}
    assert got["said"] == ["the practice opponent (level 1) takes Black's seat: a phone on it stops working"]
    assert set(got["seats"]) == {"white"}  # only the person's seat has a code now
    assert client.get(f"/api/seat/{black_phone}/state").status_code == 403  # the phone there is told (seat.js)
    assert practice_opponent_of_open_game(table.store) == ("black", 1)
    page = client.get(f"/host/{table.host_key}").get_data(as_text=True)
    assert "Played by the practice opponent (level 1)" in page
    assert '<option value="black" selected>The practice opponent plays Black</option>' in page
    # the level alone
    r = new(client, table, opponent="black", level=4)
    assert r.get_json()["said"] == ["the practice opponent now plays at level 4"]
    assert practice_opponent_of_open_game(table.store) == ("black", 4)
    # two people again: Black's seat is a phone's, with a code nobody held before
    r = new(client, table, opponent="none")
    got = r.get_json()
    assert got["opponent"] is None and set(got["seats"]) == {"white", "black"}
    assert got["said"] == ["the practice opponent leaves Black's seat: a phone takes it with its new code"]
    fresh = table.seats.tokens["black"]
    assert fresh != black_phone
    assert client.get(f"/api/seat/{black_phone}/state").status_code == 403
    assert client.get(f"/api/seat/{fresh}/state").status_code == 200
    assert practice_opponent_of_open_game(table.store) is None


def test_a_new_game_without_the_field_keeps_who_plays_and_bad_input_changes_nothing(tmp_path):
    client, table = make(tmp_path)
    new(client, table, opponent="white", level=2)
    game = table.row.id
    for body, says in (({"opponent": "green"}, "opponent"), ({"opponent": "black", "level": 9}, "level: a whole"),
                       ({"opponent": "black", "level": "3"}, "level: a whole"), ({"opponent": "black", "mode": "x"}, "mode")):
        r = new(client, table, **body)
        assert r.status_code == 400 and r.get_json()["error"].startswith(says), r.get_json()
        assert table.row.id == game and table.opponent.side == "white" and table.opponent.level == 2
    r = new(client, table, mode="third_eye")
    assert r.status_code == 200 and r.get_json()["said"] == [] and r.get_json()["opponent"] == {"side": "white", "level": 2}


def test_a_restart_without_opponent_keeps_the_computer_in_its_seat_and_says_so(tmp_path):
    first = serve_once(tmp_path, "--opponent", "black", "--level", "2")
    assert any(line.strip().startswith("black seat:    played by the practice opponent") for line in first), first
    again = serve_once(tmp_path)
    text = "\n".join(again)
    assert ("note: game 1 was being played against the practice opponent: it keeps its Black seat (level 2). "
            "To play two people, start a new game on the host page (it chooses who plays).") in text
    assert any(line.strip().startswith("black seat:    played by the practice opponent") for line in again), again
    assert "opponent:      level 2 plays Black" in text
