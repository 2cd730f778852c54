"""Property tests over random legal games, in both modes (hypothesis, bounded).

Hypothesis draws the setups (through ``engine.randplay.random_setup``), the
first player, and then each action's index among ``game.legal_actions()``.
After every step: undo restores the exact state, the generated list has no
duplicates, Pass appears exactly when nothing else ends the turn, and every
view holds only what its viewer may know.  At the end of each game the record
round-trips through JSON to the identical state.
"""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Pass
from engine.board import PLAYERS, SPACE_IDS, other
from engine.game import BOTH, CAPTURED, INDEX, RESERVE, Game
from engine.randplay import random_game, random_setup
from engine.record import load_record, replay, to_record
from engine.views import view

MODES = ("classic", "third_eye")
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
STEPS = 100


def check_generation(game: Game) -> None:
    acts = game.legal_actions()
    dup = [str(a) for a, n in Counter(acts).items() if n > 1]
    assert not dup, f"duplicates: {dup}"
    if game.is_over():
        assert acts == []
        return
    ending = [a for a in acts if game.ends_turn(a) and type(a) is not Pass]
    has_pass = Pass() in acts
    assert has_pass == (not ending), "Pass must appear exactly when nothing else ends the turn"


def check_push_pop(game: Game, action) -> None:
    before = game.state.key()
    n_events, n_log = len(game.events), len(game.log)
    events = [e.to_json() for e in game.events]
    game.push(action)
    assert game.pop() == action
    assert game.state.key() == before
    assert len(game.log) == n_log and [e.to_json() for e in game.events] == events
    assert len(game.events) == n_events
    game.push(action)


HIDDEN_KEYS = {"reflector", "memory", "void"}


def check_views(game: Game) -> None:
    st_ = game.state
    views = {v: view(game, v) for v in (*PLAYERS, None)}
    truth = {}
    for t in game.towers:
        if st_.loc[t] >= 0:
            truth[st_.loc[t]] = t
    for viewer, data in views.items():
        json.dumps(data)  # JSON-ready
        assert len(data["board"]) == len(truth)
        for entry in data["board"]:
            t = truth[SPACE_IDS[entry["space"]]]
            assert entry["owner"] == game.owner[t]
            known = st_.known[t]
            may = known == BOTH if viewer is None else bool(known & (1 << INDEX[viewer]))
            if game.vision or (viewer is not None and game.owner[t] == viewer):
                assert may
            if entry["piece"] is not None:
                assert may, f"{viewer} sees a hidden {game.piece[t]} on {entry['space']}"
                assert entry["piece"] == game.piece[t]
            else:
                assert not may
            assert entry["revealed"] == (known == BOTH)
        for player in PLAYERS:
            res = data["reserve"][player]
            assert res["count"] == sum(1 for t in game.towers_of(player) if st_.loc[t] == RESERVE)
            if viewer != player and not game.vision:
                assert "pieces" not in res
            captured = sorted(game.piece[t] for t in game.towers_of(player) if st_.loc[t] == CAPTURED)
            assert data["captured"][player] == captured
            if viewer != player:
                assert "setup" not in data or data["rival"] == player
        # the redacted history never names a rival's Reflector, Memory or reinforced piece
        for turn in data["history"]:
            for rec in turn["actions"]:
                if game.vision or turn["player"] == viewer:
                    continue
                assert rec["type"] not in ("reflect", "gravity")
                assert not (HIDDEN_KEYS & set(rec)), rec
                if rec["type"] == "reinforce" and len(rec["to"]) == 1:
                    assert list(rec["to"].values()) == [None]
    if not game.vision:
        assert views["white"] != views["black"]
    public = views[None]
    for viewer in PLAYERS:
        mine = views[viewer]
        assert mine["events"] == public["events"]
        assert mine["captured"] == public["captured"]
        assert mine["totem_used"] == public["totem_used"]
        assert (mine["turn"], mine["to_move"], mine["result"]) == (
            public["turn"], public["to_move"], public["result"])
        for p_entry, m_entry in zip(public["board"], mine["board"]):
            assert (p_entry["space"], p_entry["owner"], p_entry["revealed"]) == (
                m_entry["space"], m_entry["owner"], m_entry["revealed"])
            if p_entry["piece"] is not None:
                assert m_entry["piece"] == p_entry["piece"]
        for player in PLAYERS:
            assert mine["reserve"][player]["count"] == public["reserve"][player]["count"]
        assert len(mine["history"]) == len(public["history"])
        for p_turn, m_turn in zip(public["history"], mine["history"]):
            assert p_turn["player"] == m_turn["player"] and len(p_turn["actions"]) == len(m_turn["actions"])
            if m_turn["player"] != viewer:
                assert m_turn["actions"] == p_turn["actions"]


def finish_turn(game: Game, rng: random.Random) -> None:
    """Play turn-ending actions until the game sits at a turn boundary."""
    while not game.is_over() and game.log and game.log[-1][1] == game.to_move:
        ending = [a for a in game.legal_actions() if game.ends_turn(a)]
        game.push(rng.choice(ending))


def check_record_round_trip(game: Game) -> None:
    text = json.dumps(to_record(game))
    again = replay(load_record(json.loads(text)))
    assert again.state.key() == game.state.key()
    assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]
    assert [(t, p, a) for t, p, a in again.log] == game.log
    assert json.dumps(to_record(again)) == text


def game_strategy():
    return st.tuples(
        st.sampled_from(MODES),
        st.integers(0, 2**32 - 1),
        st.sampled_from(PLAYERS),
        st.booleans(),
    )


@SETTINGS
@given(params=game_strategy(), data=st.data())
def test_random_games_hold_every_invariant(params, data):
    mode, seed, first, vision = params
    rng = random.Random(seed)
    game = Game(random_setup(rng, "white"), random_setup(rng, "black"), mode=mode,
                vision=vision and seed % 4 == 0, first=first)
    check_views(game)
    for _ in range(STEPS):
        check_generation(game)
        if game.is_over():
            break
        acts = game.legal_actions()
        action = acts[data.draw(st.integers(0, len(acts) - 1), label="action")]
        check_push_pop(game, action)
        check_views(game)
    finish_turn(game, rng)
    check_generation(game)
    check_views(game)
    check_record_round_trip(game)


@SETTINGS
@given(mode=st.sampled_from(MODES), seed=st.integers(0, 10**9))
def test_long_random_games_round_trip_and_unwind(mode, seed):
    """engine.randplay games, long: the record round-trips and popping every action returns to
    the start exactly."""
    game = random_game(seed, mode=mode, max_actions=250)
    finish_turn(game, random.Random(seed))
    check_record_round_trip(game)
    check_views(game)
    start = Game(game.setups["white"], game.setups["black"], mode=mode, first=game.first).state.key()
    while game.log:
        game.pop()
    assert game.state.key() == start


def test_random_game_players_alternate_turns():
    """Each recorded turn belongs to the other player from the one before (sanity of records)."""
    for mode in MODES:
        rec = to_record(random_game(7, mode=mode, max_actions=120))
        players = [t["player"] for t in rec["turns"]]
        assert all(b == other(a) for a, b in zip(players, players[1:]))
