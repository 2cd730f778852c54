"""Hidden information is sacred: random games played through the API, every public and rival payload scanned.

Each game is played as people would: setups from the seats, towers moved on the
simulated board, declarations and answers from the mover's phone.  After every
action the public state and the rival seat's state are fetched, and every event
published to the public stream and to each seat is captured.  Each payload is
scanned, at the moment it is sent, against the engine's knowledge: no tower a
viewer may not know can appear with its identity, in structure or in text.
"""

import json
import random
import re

import pytest

from engine.board import BLACK, PLAYERS, SPACE_NAMES, WHITE, other
from engine.game import Game
from engine.pieces import PIECES
from engine.randplay import random_setup
from engine.views import knows
from host.compose import create_app

from tests.support.webplay import Driver

N = SPACE_NAMES
SPACE_SET = set(SPACE_NAMES)
PIECE_SET = set(PIECES)
PLACE_KEYS = ("space", "at", "to", "from")


def pairs_in(payload) -> set[tuple[str, str]]:
    """Every (space, piece) association a payload makes in its structure."""
    found: set[tuple[str, str]] = set()

    def walk(x):
        if isinstance(x, dict):
            piece = x.get("piece")
            if piece in PIECE_SET:
                for key in PLACE_KEYS:
                    if x.get(key) in SPACE_SET:
                        found.add((x[key], piece))
            for k, v in x.items():
                if k in SPACE_SET and v in PIECE_SET:
                    found.add((k, v))
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(payload)
    return found


def strings_in(payload) -> list[str]:
    out = []

    def walk(x):
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(payload)
    return out


def declared_time(ref) -> set[str]:
    """Spaces whose towers are being revealed right now, before the action is committed:
    the two towers of a flash under way, and the Time tower of a declared Power of Time
    (only one: naming two Time towers would reveal the one not used)."""
    if ref is None:
        return set()
    spaces = set()
    status = ref.public_status()  # what the table is being told right now
    flash = status.get("flash")
    if flash:
        spaces |= {flash["from"], flash["at"]}
    towers = (status.get("time") or {}).get("time_towers") or []
    if len(towers) == 1:
        spaces |= set(towers)
    return spaces


def secrets(game, viewer, public_spaces=frozenset()) -> tuple[set[tuple[str, str]], list[str]]:
    """(space, piece) of every tower on the board the viewer may not know, and those facts as text."""
    pairs = set()
    for t in game.towers:
        if viewer is not None and game.owner[t] == viewer:
            continue
        loc = game.state.loc[t]
        if loc >= 0 and not knows(game, viewer, t) and N[loc] not in public_spaces:
            pairs.add((N[loc], game.piece[t]))
    texts = []
    for space, piece in pairs:
        words = piece.replace("_", "[ _]")
        texts.append(re.compile(rf"\b{words}\b[^.;]{{0,12}}\b(on|at|from) {space}\b|\b{space}\b: {words}\b", re.I))
    return pairs, texts


class Scanner:
    def __init__(self, table):
        self.table = table
        self.checked = 0

    def check(self, audience: str, where: str, payload) -> None:
        game = self.table.game
        if game is None or game.vision or game.is_over():
            return  # once the game is over nothing is hidden any more: every page shows every tower (issue 22)
        viewer = None if audience == "public" else audience
        pairs, texts = secrets(game, viewer, declared_time(self.table.ref))
        leaked = pairs & pairs_in(payload)
        assert not leaked, f"{where}: {audience} was shown hidden towers {sorted(leaked)}"
        for s in strings_in(payload):
            for pattern in texts:
                assert not pattern.search(s), f"{where}: {audience} was told {s!r}"
        # Setups and reserve pieces of a rival never leave their seat.
        rivals = PLAYERS if viewer is None else (other(viewer),)
        text = json.dumps(payload)
        for rival in rivals:
            lineup = json.dumps(game.setups[rival].to_record()["lineup"])
            assert lineup not in text, f"{where}: {audience} was sent {rival}'s lineup"
        self._reserve(payload, viewer, where)
        self.checked += 1

    def _reserve(self, payload, viewer, where):
        def walk(x):
            if isinstance(x, dict):
                if "reserve" in x and isinstance(x["reserve"], dict):
                    for player, entry in x["reserve"].items():
                        if player != viewer and isinstance(entry, dict):
                            assert "pieces" not in entry, f"{where}: {player}'s reserve pieces shown to {viewer}"
                if "setup" in x and isinstance(x.get("setup"), dict) and x.get("viewer", viewer) != viewer:
                    raise AssertionError(f"{where}: a setup was shown to {viewer}")
                for v in x.values():
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)

        walk(payload)


def play_and_scan(tmp_path, seed: int, mode: str, actions: int) -> Scanner:
    app = create_app({"DATA_DIR": str(tmp_path / f"g{seed}"), "TICK": 0, "MANUAL_CLOCK": True, "MODE": mode})
    table = app.extensions["quin.table"]
    scanner = Scanner(table)
    publish = table.broker.publish

    def scanned_publish(states, notices=None):
        for audience in ("public", "white", "black"):
            scanner.check(audience, "event", {"state": states[audience], "notices": (notices or {}).get(audience, [])})
        return publish(states, notices)

    table.broker.publish = scanned_publish
    driver = Driver(app.test_client(), table, record=lambda aud, url, body: scanner.check(aud, url, body))
    rng = random.Random(seed)
    driver.setup(random_setup(rng, WHITE), random_setup(rng, BLACK))
    for _ in range(actions):
        if table.game.is_over():
            break
        mover = table.game.to_move
        driver.play(rng.choice(driver.shadow.legal_actions()))
        driver.look(rival_of=mover)
    check_replay(driver.client, table, scanner)
    return scanner


def check_replay(client, table, scanner) -> None:
    """The replay of a game still being played shows, at each step, only what was public at that step."""
    game = table.game
    if game.is_over():
        return  # a finished game has no secrets left
    frames = client.get(f"/api/games/{table.row.id}").get_json()["frames"]
    assert len(frames) == len(game.log) + 1
    step = Game(game.setups[WHITE], game.setups[BLACK], game.mode, game.vision, game.first)
    for i, frame in enumerate(frames):
        if i:
            step.push(game.log[i - 1][2])
        pairs, _ = secrets(step, None)
        leaked = pairs & pairs_in(frame)
        assert not leaked, f"replay step {i} shows hidden towers {sorted(leaked)}"
        scanner.checked += 1


@pytest.mark.parametrize("mode,seeds", [("classic", range(0, 3)), ("third_eye", range(100, 102))])
def test_no_hidden_identity_reaches_the_public_or_the_rival(tmp_path, mode, seeds):
    checked = 0
    for seed in seeds:
        checked += play_and_scan(tmp_path, seed, mode, actions=120).checked
    assert checked > 500  # the scan really looked at many payloads


def test_the_scanner_catches_a_leak(tmp_path):
    """The scan itself must be able to fail: plant a hidden identity and it is found."""
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    table = app.extensions["quin.table"]
    driver = Driver(app.test_client(), table)
    rng = random.Random(1)
    driver.setup(random_setup(rng, WHITE), random_setup(rng, BLACK))
    game = table.game
    scanner = Scanner(table)
    t = next(t for t in game.towers if game.owner[t] == BLACK and game.state.loc[t] >= 0)
    space, piece = N[game.state.loc[t]], game.piece[t]
    state = table.state(None)
    scanner.check("public", "clean", state)
    leaky = json.loads(json.dumps(state))
    next(e for e in leaky["view"]["board"] if e["space"] == space)["piece"] = piece
    with pytest.raises(AssertionError, match="hidden towers"):
        scanner.check("public", "planted", leaky)
    with pytest.raises(AssertionError, match="was told"):
        scanner.check("white", "planted", {"text": f"the {piece} on {space} moves"})
    with pytest.raises(AssertionError, match="hidden towers|lineup"):
        scanner.check("white", "planted", {"x": game.setups[BLACK].to_record()})
