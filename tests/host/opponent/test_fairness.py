"""Fair by construction: hidden rival identities that the public history allows to differ never change a choice.

For random positions, two of the rival's never-revealed starting towers
exchange identities.  If the game's record still replays with the new lineup
and the opponent's view is unchanged (the public history allowed it), the
opponent must make the same choice with the same seed and level.
The oracle is the engine's replay and views; the opponent gets only the view.
"""

from __future__ import annotations

import random

import pytest

from engine.board import other
from engine.errors import QuinError
from engine.flash import CLASSIC, THIRD_EYE
from engine.game import Game
from engine.pieces import Setup
from engine.record import load_record, replay, to_record
from engine.views import knows, view
from host.opponent.search import choose

from tests.support.positions import random_positions


def _hidden_start_spaces(game: Game, me: str) -> list[int]:
    """Start spaces of rival towers that ``me`` never saw (tower ids follow the lineup order)."""
    rival = other(me)
    towers = game.towers_of(rival)
    lineup = game.setups[rival].lineup
    return [space for (space, _), t in zip(lineup, towers) if not knows(game, me, t)]


def _twins(game: Game, me: str, rng: random.Random, limit: int) -> list[Game]:
    """The same record with two of the rival's hidden starting identities exchanged, where it replays the same."""
    rival = other(me)
    spaces = _hidden_start_spaces(game, me)
    setup = game.setups[rival]
    lineup = dict(setup.lineup)
    pairs = [(a, b) for i, a in enumerate(spaces) for b in spaces[i + 1:] if lineup[a] != lineup[b]]
    rng.shuffle(pairs)
    seen = view(game, me)
    out = []
    for a, b in pairs:
        pieces = dict(lineup)
        pieces[a], pieces[b] = pieces[b], pieces[a]
        record = to_record(game)
        record["setup"][rival] = Setup(rival, setup.clone, setup.removed, tuple(sorted(pieces.items()))).to_record()
        try:
            twin = replay(load_record(record))
        except QuinError:
            continue  # the history rules this exchange out (a recorded move too long, a Swap, ...)
        if view(twin, me) != seen:
            continue  # a flash or a Time would have gone differently: not what was seen
        out.append(twin)
        if len(out) == limit:
            break
    return out


@pytest.mark.parametrize("mode", [CLASSIC, THIRD_EYE])
@pytest.mark.parametrize("level", [1, 3, 5])
def test_permuting_unrevealed_rival_identities_never_changes_the_choice(mode, level):
    rng = random.Random(f"fair:{mode}:{level}")
    compared = 0
    for game in random_positions(mode, 5 if level == 5 else 8, seed=7000 + level, least=4, most=120):
        me = game.to_move
        expected = choose(view(game, me), level, seed=11)
        for twin in _twins(game, me, rng, 2):
            assert twin.piece != game.piece  # the twin really hides other identities
            assert choose(view(twin, me), level, seed=11) == expected
            compared += 1
    assert compared >= 4


def test_the_same_seed_and_level_give_the_same_choice_and_seeds_vary_it():
    games = random_positions(CLASSIC, 12, seed=4242, least=4, most=120)
    choices = set()
    for game in games:
        v = view(game, game.to_move)
        assert choose(v, 3, seed=1) == choose(v, 3, seed=1)
    game = games[0]
    v = view(game, game.to_move)
    for seed in range(12):
        choices.add(choose(v, 0, seed=seed))
    assert len(choices) > 1  # level 0 is a random player: seeds change it
