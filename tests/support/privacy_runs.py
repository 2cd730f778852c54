"""The same game played twice through the web API, the second time with two of a player's towers that
the rival never sees exchanged in the lineup: every byte the public and each seat received, from the
streams and from GET, kept for comparison (tests/host/web/test_stream_privacy.py, and with a hub
behind the board tests/host/hub/test_hub_privacy.py)."""

import random
from pathlib import Path

from engine.board import BLACK, PLAYERS, WHITE, other, parse_space
from engine.game import Game
from engine.pieces import Setup, make_setup
from engine.randplay import random_setup
from engine.views import knows, view
from host.compose import create_app

from tests.support.webplay import Driver

ACTIONS = 60


class PromptDriver(Driver):
    """A mover who answers a question at the very moment it is asked: the commit then happens at
    the same time as without a question, so the two runs can be compared byte for byte (times
    included).  Answering takes a person time, which the rival may see; that is the referee's
    known limit (docs/referee.md), not what is tested here."""

    def play(self, action) -> None:
        self.playing = action
        super().play(action)

    def ticked(self) -> None:
        mover = self.table.game.to_move if self.table.game else None
        question = self.table.ref.private_status(mover).get("question") if mover else None
        if question and question.get("options"):
            choice = self._same_as(self.playing, question["options"])
            if choice is not None:
                self.seat_post(mover, "input", {"type": "choose", "action": choice})


class Run:
    """One game played through the web API, with every byte the public and each seat received."""

    def __init__(self, folder: Path, mode: str, first: str, setups: dict, actions: list, clock: str | None = None):
        app = create_app({"DATA_DIR": str(folder), "TICK": 0, "MANUAL_CLOCK": True, "MODE": mode, "FIRST": first,
                          "CLOCK": clock})
        self.table = table = app.extensions["quin.table"]
        # The referee asks about different games at the very moment it would have committed one
        # reading alone (docs/referee.md), so its own windows stay as they are here.
        self.client = app.test_client()
        self.stream: dict[str, list[bytes]] = {a: [] for a in ("public", *PLAYERS)}
        for audience, frames in self.stream.items():
            sub = table.broker.stream(audience)
            frames.append(sub.attach(frames.append, lambda: None))
        self.gets: dict[str, list[bytes]] = {a: [] for a in ("public", *PLAYERS)}
        self.questions = {p: 0 for p in PLAYERS}
        self.asked: list[tuple[int, str, list]] = []  # (actions played before, player, options)
        publish = table.broker.publish

        def counting(states, notices=None):
            for p in PLAYERS:
                for n in (notices or {}).get(p, []):
                    if n["kind"] == "question":
                        self.questions[p] += 1
                        self.asked.append((len(table.game.log), p, n["data"].get("options") or []))
            return publish(states, notices)

        table.broker.publish = counting
        driver = PromptDriver(self.client, table)
        driver.setup(setups[WHITE], setups[BLACK])
        self.look()
        for action in actions:
            if table.game.is_over():
                break
            driver.play(action)
            self.look()
        self.log = [a for _, _, a in table.game.log]

    def look(self) -> None:
        self.gets["public"].append(self.client.get("/api/state").data)
        for p in PLAYERS:
            self.gets[p].append(self.client.get(f"/api/seat/{self.table.tokens[p]}/state").data)


def fresh(game: Game, setups: dict | None = None) -> Game:
    setups = setups or game.setups
    return Game(setups[WHITE], setups[BLACK], game.mode, game.vision, game.first)


def permuted(game: Game, player: str, a: int, b: int) -> dict[str, Setup]:
    """The setups with the pieces on two of ``player``'s starting spaces exchanged."""
    setups = dict(game.setups)
    s = setups[player]
    lineup = dict(s.lineup)
    lineup[a], lineup[b] = lineup[b], lineup[a]
    setups[player] = make_setup(player, s.clone, s.removed, lineup)
    return setups


def same_for_others(game: Game, setups: dict, player: str) -> bool:
    """The permuted lineup plays the same actions, and the public and rival see the same at every step."""
    rival = other(player)
    a, b = fresh(game), fresh(game, setups)
    for _, _, action in game.log:
        if not b.is_legal(action):
            return False
        a.push(action)
        b.push(action)
        if view(a, rival) != view(b, rival) or view(a, None) != view(b, None):
            return False
    return True


def option_spaces(options: list) -> set[int]:
    """The spaces of the towers a question's options are about (what moved, what swapped)."""
    spaces: set[str] = set()
    for option in options:
        spaces |= {option[k] for k in ("from", "memory", "with", "at") if isinstance(option.get(k), str)}
        spaces |= set(option.get("moves") or {})
    return {parse_space(s) for s in spaces}


def candidates(game: Game, player: str, asked: list):
    """Pairs of the player's starting spaces with different pieces, both towers never known to the
    rival, one of them a tower a question to the player was about."""
    rival = other(player)
    replay = fresh(game)
    start = {t: replay.state.loc[t] for t in replay.towers if replay.owner[t] == player and replay.state.loc[t] >= 0}
    seen = {t for t in start if knows(replay, rival, t)}
    involved: set[int] = set()
    questions = sorted((n, opts) for n, p, opts in asked if p == player)
    for n, (_, _, action) in enumerate(game.log):
        for when, opts in questions:
            if when == n:
                involved |= {replay.state.board[s] for s in option_spaces(opts) if replay.state.board[s] >= 0}
        replay.push(action)
        seen |= {t for t in start if knows(replay, rival, t)}
    hidden = [t for t in start if t not in seen]
    pairs = set()
    for x in involved & set(hidden):
        for y in hidden:
            if game.piece[x] != game.piece[y]:
                pairs.add(tuple(sorted((start[x], start[y]))))
    return sorted(pairs)


def plan(seed: int, actions: int) -> tuple[dict, list]:
    rng = random.Random(seed)
    setups = {WHITE: random_setup(rng, WHITE), BLACK: random_setup(rng, BLACK)}
    shadow = Game(setups[WHITE], setups[BLACK], "third_eye")
    out = []
    for _ in range(actions):
        if shadow.is_over():
            break
        action = rng.choice(shadow.legal_actions())
        shadow.push(action)
        out.append(action)
    return setups, out


def compare_runs(tmp_path, seeds, wanted: int = 3, clock: str | None = None) -> list[tuple[str, bool]]:
    """For each seed, play a random game to see where the referee asks questions; then play the
    game up to such a question twice: as it was, and with two towers the rival never sees exchanged
    (one of them a tower the question is about), until ``wanted`` pairs were found in which the
    questioned player got a different number of questions.  Returns (where, same) for every
    compared audience and channel.  ``clock``: every game with that time control (its clocks are
    in every state)."""
    results: list[tuple[str, bool]] = []
    found = 0
    for seed in seeds:
        setups, actions = plan(seed, ACTIONS)
        probe = Run(tmp_path / f"{seed}-probe", "third_eye", WHITE, setups, actions, clock)
        tried = 0
        for n, player, options in probe.asked:
            if tried >= 6 or found >= wanted:
                break
            prefix = probe.log[: n + 1]
            game = fresh(probe.table.game)
            for action in prefix:
                game.push(action)
            valid = [xy for xy in candidates(game, player, [(n, player, options)])
                     if same_for_others(game, permuted(game, player, *xy), player)]
            if not valid:
                continue
            tried += 1
            first = Run(tmp_path / f"{seed}-{n}-a", "third_eye", WHITE, setups, prefix, clock)
            for x, y in valid[:2]:
                second = Run(tmp_path / f"{seed}-{n}-{x}-{y}", "third_eye", WHITE, permuted(game, player, x, y), prefix,
                             clock)
                assert second.log == first.log == prefix
                if second.questions[player] == first.questions[player]:
                    continue
                for audience in ("public", other(player)):
                    where = (f"seed {seed}, {n + 1} actions: {player} asked {first.questions[player]} vs "
                             f"{second.questions[player]} questions; {audience}")
                    results.append((f"{where} stream", second.stream[audience] == first.stream[audience]))
                    results.append((f"{where} GET", second.gets[audience] == first.gets[audience]))
                found += 1
                break
        if found >= wanted:
            break
    assert found >= 1, "no pair of runs with different questions was found: the comparison did not happen"
    return results
