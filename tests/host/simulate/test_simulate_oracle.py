"""The simulator's own oracle of "the same game from here on" (host.simulate.oracle).

Spec 4 and 5 give the facts that matter: a Memory Swap in Third Eye spends the acting
Memory's swap ("only the acting one spends a swap"), the no-flash-back rule binds a tower
for its owner's next turn, the Classic Power of Time rewinds the rival's last action.
"""

import copy
import random

from engine.actions import Gravity, Move, Reflect, Swap
from engine.game import BOTH, Game
from engine.pieces import MEMORY
from engine.randplay import random_setup
from host.simulate.oracle import canonical, canonical_after, same_game


def positions(mode, seeds, length=150):
    """Positions of seeded random games (the same Game object, advanced)."""
    for seed in seeds:
        rng = random.Random(seed)
        game = Game(random_setup(rng, "white"), random_setup(rng, "black"), mode=mode)
        for _ in range(length):
            if game.is_over():
                break
            yield game
            game.push(rng.choice(game.legal_actions()))


def find(mode, pick):
    for game in positions(mode, range(300)):
        found = pick(game)
        if found:
            return game, found
    raise AssertionError("no such position in 300 random games")


def memory_pair(game):
    for a in game.legal_actions():
        if type(a) is Swap and game.piece[game.state.board[a.other]] == MEMORY:
            b = Swap(a.other, a.memory)
            if game.is_legal(b):
                return a, b
    return None


def test_a_move_and_a_reflection_with_the_same_footprint_are_the_same_game():
    def pick(game):
        for a in game.legal_actions():
            if type(a) is Reflect and game.is_legal(Move(a.frm, a.to)):
                return a, Move(a.frm, a.to)
    for mode in ("classic", "third_eye"):
        game, (reflect, move) = find(mode, pick)
        assert same_game(game, reflect, move)


def test_two_voids_of_one_gravity_landing_on_each_others_targets_are_interchangeable():
    def pick(game):
        for a in game.legal_actions():
            if type(a) is Gravity and len(a.moves) == 2:
                (x, p), (y, q) = a.moves
                b = Gravity(a.void, tuple(sorted(((x, q), (y, p)))))
                if game.is_legal(b):
                    return a, b
    game, (a, b) = find("third_eye", pick)
    assert a != b and same_game(game, a, b)


def test_a_move_and_a_one_void_gravity_stepping_the_same_void_are_one_result_in_third_eye():
    def pick(game):
        for a in game.legal_actions():
            if type(a) is Gravity and len(a.moves) == 1 and game.is_legal(Move(*a.moves[0])):
                return a, Move(*a.moves[0])
    game, (gravity, move) = find("third_eye", pick)
    assert same_game(game, gravity, move)


def test_classic_swap_of_two_memories_either_way_is_the_same_game():
    game, (a, b) = find("classic", memory_pair)
    assert same_game(game, a, b)


def test_third_eye_swap_of_two_memories_either_way_differs_in_swaps_left():
    # Spec 8 (Third Eye): "When two Memories swap, only the acting one spends a swap."
    game, (a, b) = find("third_eye", memory_pair)
    assert not same_game(game, a, b)
    game.push(a)
    left_a = sorted(game.state.swaps_left[t] for t in game.towers if game.piece[t] == MEMORY and game.state.loc[t] >= 0)
    game.pop()
    assert 1 in left_a  # one of them spent a swap: which one is what differs


def test_who_knows_a_tower_does_not_count_but_a_flash_back_ban_does():
    game, ban = find("classic", lambda g: g.state.flash_ban)
    here = canonical(game)
    hidden = copy.copy(game)
    hidden.state = game.state.copy()
    hidden.state.known = [BOTH] * len(hidden.state.known)  # everything revealed, as by flashes
    assert canonical(hidden) == here
    unbanned = copy.copy(game)
    unbanned.state = game.state.copy()
    unbanned.state.flash_ban = None
    assert canonical(unbanned) != here
    # ...and it matters: the banned tower may not flash back (spec 4, "No flash-back").
    _, defender, attacker = ban
    banned = Move(game.state.loc[defender], game.state.loc[attacker])
    assert not game.is_legal(banned) and game.why_illegal(banned).endswith("flashed it last turn")


def test_the_classic_time_record_counts_in_classic_and_not_in_third_eye():
    for mode, counts in (("classic", True), ("third_eye", False)):
        game = next(g for g in positions(mode, range(5)) if g.state.last_action is not None)
        other = copy.copy(game)
        other.state = game.state.copy()
        other.state.last_action = None
        assert (canonical(other) != canonical(game)) is counts


def test_equal_canonical_forms_have_the_same_legal_continuations_and_lead_to_equal_games():
    """Soundness on random positions: whenever two legal actions give equal canonical forms,
    the same actions are legal after both, and (a sample of) them lead to equal forms again."""
    rng = random.Random(5)
    checked = 0
    for mode in ("classic", "third_eye"):
        for game in positions(mode, range(6), 50):
            legal = game.legal_actions()
            if len(legal) > 150:
                continue
            forms: dict = {}
            for a in legal:
                forms.setdefault(canonical_after(game, a), []).append(a)
            twins = [g for g in forms.values() if len(g) > 1]
            for group in rng.sample(twins, min(2, len(twins))):
                a, b = group[0], group[1]
                game.push(a)
                after_a = game.legal_actions()
                game.pop()
                game.push(b)
                after_b = game.legal_actions()
                game.pop()
                assert sorted(map(str, after_a)) == sorted(map(str, after_b)), (mode, a, b)
                for c in rng.sample(after_a, min(8, len(after_a))):
                    game.push(a)
                    ca = canonical_after(game, c)
                    game.pop()
                    game.push(b)
                    cb = canonical_after(game, c)
                    game.pop()
                    assert ca == cb, (mode, a, b, c)
                checked += 1
    assert checked >= 20
