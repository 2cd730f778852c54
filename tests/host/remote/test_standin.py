"""``host.remote.standin``: the board's game rebuilt from the hub's view for its side.

The oracle is the real game (``engine.game.Game`` played from both setups: its own state, legal
actions and views, a different code path from the view-replay and the from-position build under
test).  On seeded random games of both modes (Vision off), at every position and for each side:

1. on that side's turn, the stand-in's legal actions are exactly the real ones (legality never
   depends on the rival's hidden identities: docs/remote-play.md);
2. the public facts are the real ones (occupancy, whose turn, reserves, Zero Gravity and capture
   turns, Totems, Time used, passes, frozen towers, the no-flash-back ban, the last action Classic
   Time reads, the side's own Memory swaps left);
3. ``engine.views.view`` of the stand-in shows what the real game's shows (for the side and for
   the public): no identity the view did not;
4. the stand-in depends on the view alone: a twin game whose rival lineup is the same set
   reshuffled, played with the same actions while its view stays the same, gives byte-identical
   stand-ins, also in a process with another hash seed;
5. with the hub's answer read from the real game (both identities of a flash; Classic Time's
   outcome as ``pieces``/``not_shadow``), the next action pushed in the stand-in gives what it
   gives in the real game, as the side and the public see it.
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from engine.actions import Action, Move, Reflect, Reinforce, Time
from engine.board import FIRST_SIGHT, PLAYERS, SPACE_NAMES, START_SPACES, other
from engine.flash import CLASSIC, THIRD_EYE
from engine.game import Game
from engine.pieces import ARTIFICIAL_LIGHT, MEMORY, SHADOW, make_setup
from engine.randplay import random_setup
from engine.state import BOTH, CAPTURED, EMPTY, INDEX, RESERVE
from engine.views import view
from host.remote.standin import rival_moved, standin_game

N = SPACE_NAMES
MODES = (CLASSIC, THIRD_EYE)
GAMES = {CLASSIC: 8, THIRD_EYE: 4}  # Classic's failed Times are rare
PLIES = 120
ROOT = Path(__file__).resolve().parents[3]


# --- the real game's side: positions, facts, the hub's answers -------------------------------


def _is_flash(game: Game, action: Action) -> bool:
    if type(action) not in (Move, Reflect):
        return False
    t = game.state.board[action.to]
    return t != EMPTY and game.owner[t] != game.to_move


def _pick(game: Game, rng: random.Random) -> Action:
    """A random legal action; about a third of the time a flash or a Classic Time when there is one
    (they are what the hub answers for)."""
    actions = game.legal_actions()
    hot = [a for a in actions if _is_flash(game, a) or (type(a) is Time and a.target is None)]
    return rng.choice(hot if hot and rng.random() < 0.35 else actions)


def _hub_answer(game: Game, action: Action) -> tuple[dict[str, str], list[str]]:
    """What the hub answers the mover's board before ``action`` (docs/remote-play.md), read from
    the real game: a flash's two identities; for Classic Time, a failure's Shadow as ``pieces``
    and the other rival towers the last action moved as ``not_shadow`` (a rewind: all of them)."""
    st = game.state
    if _is_flash(game, action):
        return {N[action.frm]: game.piece[st.board[action.frm]], N[action.to]: game.piece[st.board[action.to]]}, []
    if type(action) is Time and action.target is None:
        last = st.last_action
        moved = [(t, b) for t, a, b in last.moved if game.owner[t] == last.player and a != b and st.loc[t] == b]
        shadows = {N[b]: SHADOW for t, b in moved if game.piece[t] == SHADOW}
        return shadows, sorted(N[b] for t, b in moved if game.piece[t] != SHADOW)
    return {}, []


def _facts(game: Game, side: str) -> dict:
    """The public facts of a position, and the side's own Memory swaps left, from the game's state."""
    st = game.state
    loc = st.loc
    used = dict(zip(PLAYERS, (st.totem_used[INDEX[p]] for p in PLAYERS)))
    ban = st.flash_ban
    last = st.last_action
    facts = {
        "occupancy": {N[s]: game.owner[t] for s, t in enumerate(st.board) if t != EMPTY},
        "to_move": st.to_move,
        "turn": st.turn,
        "reserve": {p: sum(1 for t in game.towers_of(p) if loc[t] == RESERVE) for p in PLAYERS},
        # the capture turns matter while the Totem waits (which of two equal pieces came back is unseen)
        "captured": {p: sorted((game.piece[t], 0 if used[p] else st.captured_turn[t])
                               for t in game.towers_of(p) if loc[t] == CAPTURED) for p in PLAYERS},
        "totem_used": used,
        "time_used": st.time_used,
        "passes": st.passes,
        "frozen": sorted(N[loc[t]] for t in st.frozen),
        "flash_ban": (N[loc[ban[1]]], N[loc[ban[2]]])
        if ban is not None and ban[0] == st.turn and min(loc[ban[1]], loc[ban[2]]) >= 0 else None,
        "last_action": None if game.third_eye or last is None else (
            last.player,
            sorted(("reserve" if a == RESERVE else N[a], N[b]) for t, a, b in last.moved if loc[t] == b),
            last.captured, last.on_iris),
        "swaps_left": {N[loc[t]]: st.swaps_left[t] for t in game.towers_of(side)
                       if game.third_eye and game.piece[t] == MEMORY and loc[t] >= 0},
    }
    return facts


def _shown(v: dict) -> dict:
    """The position parts of a view (a game from a position has no history)."""
    return {k: v[k] for k in ("board", "reserve", "captured", "turn", "to_move", "result", "totem_used")}


@dataclass
class Seen:
    """One position of a real game, as one side's board gets it, with what the tests compare."""

    mode: str
    side: str
    view: dict
    public: dict
    facts: dict
    legal: frozenset | None  # the real legal actions, on the side's turn
    rival_moved: list[str]  # the rival towers the rival's last action moved, standing where it put them
    trials: list[Trial] = field(default_factory=list)  # on the side's turn: actions tried in the game


@dataclass
class Trial:
    """An action of the side to move, tried in the real game: the hub's answer before it, and the
    side's and the public's views after it."""

    action: Action
    answer: tuple[dict, list]
    after: dict
    public_after: dict


@cache
def _positions(mode: str) -> tuple[Seen, ...]:
    out = []
    for seed in range(GAMES[mode]):
        rng = random.Random(1000 * MODES.index(mode) + seed)
        game = Game(random_setup(rng, "white"), random_setup(rng, "black"), mode=mode, first=rng.choice(PLAYERS))
        for _ in range(PLIES):
            if game.is_over():
                break
            public = view(game, None)
            for side in PLAYERS:
                last = game.state.last_action
                moved = [] if last is None or last.player == side else sorted(
                    {N[b] for t, a, b in last.moved if game.owner[t] == last.player and a != b and game.state.loc[t] == b})
                mine = side == game.to_move
                out.append(Seen(mode, side, view(game, side), public, _facts(game, side),
                                frozenset(game.legal_actions()) if mine else None, moved))
                if mine:
                    out[-1].trials = _trials(game, rng)
            game.push(_pick(game, rng))
    return tuple(out)


def _trials(game: Game, rng: random.Random) -> list[Trial]:
    """Actions tried (pushed and popped): a flash and a Classic Time when there are, and at one
    position in three a random action."""
    actions = game.legal_actions()
    flashes = [a for a in actions if _is_flash(game, a)]
    times = [a for a in actions if type(a) is Time and a.target is None]
    tried = [rng.choice(c) for c in (flashes, times) if c]
    if rng.random() < 1 / 3:
        tried.append(rng.choice(actions))
    out = []
    for action in dict.fromkeys(tried):
        answer = _hub_answer(game, action)
        side = game.to_move
        game.push(action)
        out.append(Trial(action, answer, view(game, side), view(game, None)))
        game.pop()
    return out


@cache
def _standins(mode: str) -> tuple[Game, ...]:
    """The stand-in of every position (tests 1 to 3 only read them)."""
    return tuple(standin_game(p.view) for p in _positions(mode))


# --- 1, 2, 3: legality, public facts, views ---------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_standin_offers_exactly_the_real_legal_actions(mode):
    """Legality never depends on the rival's hidden identities (docs/remote-play.md), so the
    stand-in's legal actions, as records, are the real game's at every position of the side's turn."""
    checked = 0
    for p, standin in zip(_positions(mode), _standins(mode)):
        if p.legal is None:
            continue
        got = set(standin.legal_actions())
        assert got == p.legal, (p.side, p.view["turn"], sorted(map(str, got ^ p.legal))[:6])
        # as records too (a record is what the hub and the referee exchange)
        assert sorted(json.dumps(a.to_record(), sort_keys=True) for a in got) == \
            sorted(json.dumps(a.to_record(), sort_keys=True) for a in p.legal)
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("mode", MODES)
def test_the_standin_has_the_real_public_facts(mode):
    for p, standin in zip(_positions(mode), _standins(mode)):
        assert _facts(standin, p.side) == p.facts, (p.side, p.view["turn"])


@pytest.mark.parametrize("mode", MODES)
def test_the_standin_shows_what_the_view_shows(mode):
    """Exactly the towers the view shows as revealed are revealed: the stand-in's views, the side's
    and the public's, show the identities the real game's show and no other."""
    stand_ins = 0
    for p, standin in zip(_positions(mode), _standins(mode)):
        assert _shown(view(standin, p.side)) == _shown(p.view), (p.side, p.view["turn"])
        assert _shown(view(standin, None)) == _shown(p.public), (p.side, p.view["turn"])
        stand_ins += any(e["piece"] is None for e in p.view["board"])
    assert stand_ins > 300  # positions with rival towers standing in


@pytest.mark.parametrize("mode", MODES)
def test_rival_moved_names_the_towers_the_rivals_last_action_moved(mode):
    """What a rewinding Classic Time shows are no Shadows; empty off the side's turn."""
    named = 0
    for p in _positions(mode):
        assert rival_moved(p.view) == p.rival_moved, (p.side, p.view["turn"])
        named += bool(p.rival_moved)
    assert named > 200


# --- 5: the hub's answers give the real outcome -------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_with_the_hubs_answer_the_next_action_does_what_it_does_in_the_real_game(mode):
    """Flashes (both identities from the hub) and Classic Time (its outcome as pieces/not_shadow);
    every other action needs no answer.  The answer adds identities to the game, not to its view."""
    kinds = {"flash": 0, "rewound": 0, "failed": 0, "other": 0}
    for p in _positions(mode):
        for trial in p.trials:
            pieces, not_shadow = trial.answer
            standin = standin_game(p.view, pieces, not_shadow)
            assert _shown(view(standin, p.side)) == _shown(p.view)
            assert _shown(view(standin, None)) == _shown(p.public)
            standin.push(trial.action)
            where = (p.side, p.view["turn"], trial.action)
            assert _shown(view(standin, p.side)) == _shown(trial.after), where
            assert _shown(view(standin, None)) == _shown(trial.public_after), where
            new_events = trial.after["events"][len(p.view["events"]):]
            assert view(standin, p.side)["events"] == new_events, where
            if _is_flash_record(trial.action, p.view):
                kinds["flash"] += 1
            elif type(trial.action) is Time and trial.action.target is None:
                kinds[new_events[-1]["outcome"]] += 1
            else:
                kinds["other"] += 1
    assert kinds["flash"] > 60 and kinds["other"] > 100, kinds
    if mode == CLASSIC:
        assert kinds["rewound"] > 20 and kinds["failed"] > 3, kinds


def _is_flash_record(action: Action, v: dict) -> bool:
    rival = other(v["viewer"])
    return type(action) in (Move, Reflect) and any(
        e["space"] == N[action.to] and e["owner"] == rival for e in v["board"])


def test_a_flash_on_a_hidden_tower_needs_the_hubs_answer():
    """Without the answer the stand-in's outcome is a guess (the reason the referee asks the hub):
    somewhere in these games it differs from the real one, and with the answer it never does."""
    differs = 0
    for p in _positions(CLASSIC) + _positions(THIRD_EYE):
        for trial in p.trials:
            if trial.answer[0] and type(trial.action) is not Time:
                guess = standin_game(p.view)
                guess.push(trial.action)
                differs += _shown(view(guess, p.side)) != _shown(trial.after)
    assert differs > 30


@pytest.mark.parametrize("mode", MODES)
def test_in_vision_mode_the_standin_is_the_real_game(mode):
    """Every identity is public (spec 6): nothing stands in, the reserve included."""
    rng = random.Random(31 + MODES.index(mode))
    game = Game(random_setup(rng, "white"), random_setup(rng, "black"), mode=mode, vision=True, first="black")
    checked = 0
    for _ in range(60):
        if game.is_over():
            break
        for side in PLAYERS:
            standin = standin_game(view(game, side))
            for who in (side, None):
                assert _shown(view(standin, who)) == _shown(view(game, who))
            st, real = standin.state, game.state
            assert [(standin.owner[t], standin.piece[t]) if t != EMPTY else None for t in st.board] == \
                [(game.owner[t], game.piece[t]) if t != EMPTY else None for t in real.board]
            if side == game.to_move:
                assert set(standin.legal_actions()) == set(game.legal_actions())
            checked += 1
        game.push(rng.choice(game.legal_actions()))
    assert checked > 60


# --- 4: a function of the view alone --------------------------------------------------------------


def _reshuffled(setup, rng: random.Random):
    """The same set (clone, removed) with its pieces dealt again between lineup and reserve."""
    pool = [p for p, n in setup.pieces.items() for _ in range(n) if p != ARTIFICIAL_LIGHT]
    rng.shuffle(pool)
    return make_setup(setup.player, setup.clone, setup.removed, dict(zip(START_SPACES[setup.player], pool)))


def _standin_bytes(standin: Game, side: str) -> str:
    """Everything of a stand-in: both views it gives the side and the public, its towers and state."""
    return json.dumps({"side": view(standin, side), "public": view(standin, None),
                       "towers": [standin.owner, standin.piece], "state": repr(standin.state.key())},
                      sort_keys=True)


def _twins(mode: str, count: int):
    """Pairs of real games the side sees alike: the rival's set reshuffled in the twin, both
    played with the same random actions (legal in both) while the side's views are equal."""
    for seed in range(count):
        rng = random.Random(7000 + 100 * MODES.index(mode) + seed)
        setups = {p: random_setup(rng, p) for p in PLAYERS}
        side = rng.choice(PLAYERS)
        rival = other(side)
        twin = dict(setups)
        twin[rival] = _reshuffled(setups[rival], rng)
        first = rng.choice(PLAYERS)
        g1 = Game(setups["white"], setups["black"], mode=mode, first=first)
        g2 = Game(twin["white"], twin["black"], mode=mode, first=first)
        for _ in range(PLIES):
            if g1.is_over() or g2.is_over():
                break
            v = view(g1, side)
            if view(g2, side) != v:
                break
            yield side, g1, g2, v
            actions = g1.legal_actions()
            rng.shuffle(actions)
            action = next((a for a in actions if g2.is_legal(a)), None)
            if action is None:
                break
            g1.push(action)
            g2.push(action)


def _hidden_differ(g1: Game, g2: Game, side: str) -> bool:
    """Does some unrevealed rival tower (or the reserve) hold another identity in the twin?"""
    rival = other(side)

    def hidden(g):
        st = g.state
        return ([(s, g.piece[t]) for s, t in enumerate(st.board)
                 if t != EMPTY and g.owner[t] == rival and st.known[t] != BOTH],
                sorted(g.piece[t] for t in g.towers_of(rival) if st.loc[t] == RESERVE))

    return hidden(g1) != hidden(g2)


@pytest.mark.parametrize("mode", MODES)
def test_the_standin_is_the_same_whatever_the_rivals_hidden_towers_are(mode):
    compared = differing = 0
    for side, g1, g2, v in _twins(mode, 8 if mode == CLASSIC else 4):
        s1 = standin_game(view(g1, side))
        s2 = standin_game(view(g2, side))
        assert _standin_bytes(s1, side) == _standin_bytes(s2, side)
        compared += 1
        differing += _hidden_differ(g1, g2, side)
    assert compared > 200 and differing > 150, (compared, differing)


def test_the_standin_is_the_same_in_another_process():
    """Byte for byte, under other hash seeds (nothing leans on set or dict order of a run)."""
    views = [p.view for p in _positions(CLASSIC)[::97] + _positions(THIRD_EYE)[::97]]
    here = [_standin_bytes(standin_game(v), v["viewer"]) for v in views]
    program = (
        "import json, sys\n"
        "sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])\n"
        "from host.remote.standin import standin_game\n"
        "from test_standin import _standin_bytes\n"
        "print(json.dumps([_standin_bytes(standin_game(v), v['viewer']) for v in json.load(sys.stdin)]))\n"
    )
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", program, str(ROOT), str(Path(__file__).parent)],
                             input=json.dumps(views), capture_output=True, text=True, env=env, check=True, timeout=120)
        assert json.loads(out.stdout) == here


# --- bad input: one line, nothing built ----------------------------------------------------------


def _one_line_error(match: str, *args, **kw) -> str:
    with pytest.raises(ValueError, match=match) as info:
        standin_game(*args, **kw)
    text = str(info.value)
    assert "\n" not in text and "Traceback" not in text
    return text


def _start(mode: str = CLASSIC) -> Game:
    rng = random.Random(5)
    return Game(random_setup(rng, "white"), random_setup(rng, "black"), mode=mode, first="white")


def test_a_public_view_or_a_finished_game_has_no_standin():
    game = _start()
    _one_line_error(r"^view\.viewer: ", view(game, None))
    _one_line_error(r"^view: expected a player's view", [view(game, "white")])
    rng = random.Random(3)
    while not game.is_over():
        game.push(rng.choice(game.legal_actions()))
    _one_line_error(r"^view\.result: the game is over", view(game, "white"))


def test_a_view_whose_history_does_not_replay_is_refused():
    game = _start()
    rng = random.Random(4)
    for _ in range(12):
        game.push(rng.choice(game.legal_actions()))
    v = view(game, "white")
    cut = copy.deepcopy(v)
    cut["history"] = cut["history"][:-1]
    _one_line_error(r"^view: its history does not replay", cut)
    broken = copy.deepcopy(v)
    broken["history"][0]["actions"][0] = {"type": "teleport"}
    _one_line_error(r"^view: its history does not replay", broken)


def test_pieces_and_not_shadow_are_checked_against_the_view():
    game = _start()
    v = view(game, "white")
    own = {e["space"]: e["piece"] for e in v["board"] if e["owner"] == "white"}
    w19 = own["w19"]
    other_piece = "void" if w19 != "void" else "memory"
    _one_line_error(r"^pieces: unknown space 'x99'", v, {"x99": "void"})
    _one_line_error(r"^pieces\.w35: no tower there", v, {"w35": "void"})
    _one_line_error(r"^pieces\.b19: unknown piece 'dragon'", v, {"b19": "dragon"})
    _one_line_error(rf"^pieces\.w19: the view shows white's {w19} there, not {other_piece}", v, {"w19": other_piece})
    _one_line_error(r"^not_shadow\.w19: the tower there is not black's", v, not_shadow=["w19"])
    _one_line_error(r"^not_shadow\.b19: the tower there is a Shadow \(pieces says so\)", v,
                    {"b19": "shadow"}, ["b19"])
    _one_line_error(r"^not_shadow: expected a list", v, not_shadow="b19")
    # a rival with three Shadows is no set
    _one_line_error(r"^pieces: black's towers .*3 shadow.* are in no set", v,
                    {"b19": "shadow", "b29": "shadow", "b39": "shadow"})
    # own pieces given as they are, and rival pieces that fit, are fine
    standin = standin_game(v, {"w19": w19, "b19": "void", "b28": "light"}, ["b29", "b39"])
    by_space = {N[s]: standin.piece[t] for s, t in enumerate(standin.state.board) if t != EMPTY}
    assert by_space["b19"] == "void" and by_space["b28"] == "light" and by_space["w19"] == w19
    assert by_space["b29"] != "shadow" and by_space["b39"] != "shadow"


def _reserve_emptied(mode: str) -> tuple[Game, str]:
    """A real game where Black has brought every reserve tower onto the board and nothing of
    Black's was revealed (no flash, no Time: quiet moves and reinforcements only); White's view."""
    rng = random.Random(11)
    game = Game(random_setup(rng, "white"), random_setup(rng, "black"), mode=mode, first="white")
    for _ in range(400):
        black = game.towers_of("black")
        if not any(game.state.loc[t] == RESERVE for t in black) and game.to_move == "white":
            return game, "white"
        quiet = [a for a in game.legal_actions() if type(a) is Reinforce
                 or (type(a) is Move and a.to != FIRST_SIGHT and not _is_flash(game, a))]
        reinforce = [a for a in quiet if type(a) is Reinforce]
        game.push(rng.choice(reinforce if reinforce and game.to_move == "black" else quiet))
    raise AssertionError("Black never emptied its reserve")


@pytest.mark.parametrize("mode", MODES)
def test_not_shadow_that_leaves_the_shadows_nowhere_is_refused(mode):
    """Every set has two Shadows: with the rival's reserve empty and none of its Shadows seen,
    forbidding every unknown tower on the board from being one fits no set; leaving two free fits."""
    game, side = _reserve_emptied(mode)
    v = view(game, side)
    rival = other(side)
    unknown = [e["space"] for e in v["board"] if e["owner"] == rival and e["piece"] is None]
    assert v["reserve"][rival]["count"] == 0 and len(unknown) >= 3
    assert not any(e["piece"] == SHADOW for e in v["board"] if e["owner"] == rival) and not v["captured"][rival]
    _one_line_error(rf"^not_shadow: {len(unknown)} of {rival}'s towers may not be Shadows", v, not_shadow=unknown)
    _one_line_error(rf"^not_shadow: {len(unknown) - 1} of {rival}'s towers", v, not_shadow=unknown[1:])
    standin = standin_game(v, not_shadow=unknown[2:])
    shadows = sorted(N[standin.state.loc[t]] for t in standin.towers_of(rival) if standin.piece[t] == SHADOW)
    assert shadows == sorted(unknown[:2])
