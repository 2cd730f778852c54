"""Search: perfect-information Monte Carlo over sampled worlds, with root sampling.

One decision (one action of the player to move):

1. Rebuild the information state from the player's view and draw ``worlds``
   hidden worlds from it (:mod:`host.opponent.worlds`).
2. Score every legal action by the evaluation after it, averaged over the
   worlds (the legal actions are the same in every world: they depend only on
   what the player knows).  A non-ending action (Time, Resurrection, a Third
   Eye Memory Swap) is scored by the best turn-ending action that can follow it.
3. From level 3 on, the ``beam`` best are searched deeper in each world: the
   rival's replies (every move and Reflection, a sample of the other actions),
   valued as mostly the worst for us and partly their mean, since a rival who
   cannot see our towers does not always find the best reply; at level 5 also
   our best answer to their most dangerous replies.
4. The best average wins; ties go to a seeded draw.  Levels 1 to 3 look at
   only a seeded share of their own actions or of the rival's replies: a
   smaller budget, like a beginner who does not see every move.

Everything random is drawn from a generator seeded by (seed, level, the
information state), so the same seed and level give the same choice for the
same information state, and nothing else can change it.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass

from engine.actions import Action, Gravity, Move, Reflect
from engine.game import Game

from .evaluate import evaluate, light_of
from .infostate import InfoState, info_state
from .worlds import Sampler, build_game, exposed_towers


@dataclass(frozen=True)
class Level:
    worlds: int  # hidden worlds sampled per decision
    depth: int  # turns searched: 1 my action only, 2 the rival's reply too, 3 my answer to it
    beam: int  # root actions searched deeper than one turn
    width: int  # replies searched further at an inner node (the most dangerous ones)
    others: int  # turn-ending actions other than moves and Reflections considered at an inner node
    stack: int  # non-ending root actions searched on to a turn-ending one
    follow: int  # turn-ending actions tried after a non-ending root action, when searching deeper
    worst: float  # weight of the rival's best reply against the mean of their replies
    consider: float = 1.0  # share of the legal actions looked at (a seeded sample; at least MIN_CONSIDER)
    notice: float = 1.0  # share of the rival's replies looked at in the search (a seeded sample)


LEVELS: dict[int, Level | None] = {
    0: None,  # uniformly random legal actions
    # one turn deep, over a share of the legal actions
    1: Level(worlds=1, depth=1, beam=0, width=0, others=10, stack=2, follow=0, worst=0.0, consider=0.25),
    2: Level(worlds=2, depth=1, beam=0, width=0, others=10, stack=3, follow=0, worst=0.0, consider=0.6),
    # two turns deep: the rival's reply (a share of them at level 3)
    3: Level(worlds=3, depth=2, beam=4, width=0, others=15, stack=3, follow=2, worst=0.7, notice=0.35),
    4: Level(worlds=4, depth=2, beam=6, width=0, others=20, stack=3, follow=2, worst=0.7),
    # three turns deep: my answer to the rival's most dangerous replies
    5: Level(worlds=6, depth=3, beam=6, width=4, others=20, stack=4, follow=2, worst=0.85),
}
MAX_LEVEL = max(LEVELS)
MIN_CONSIDER = 4
UNDO = 4.0  # points: a move that takes back my previous move (shuffling draws games)
LATER = 0.99  # a turn further away is worth a little less: win sooner, lose later
STACKED = 0.5  # points: a non-ending action must gain something to be worth it
ROOT_GRAVITY = 120  # Void Gravity actions scored at the root (a seeded sample beyond that)
DEFAULT_LEVEL = 3


def action_key(action: Action) -> str:
    return json.dumps(action.to_record(), sort_keys=True)


def decision_rng(seed: int, level: int, info: InfoState) -> random.Random:
    digest = hashlib.sha256(repr((seed, level, info.key())).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


@dataclass
class _World:
    game: Game
    lights: dict[str, int]
    exposed: frozenset[int]


def choose(view: dict, level: int = DEFAULT_LEVEL, seed: int = 0) -> Action:
    """The action ``view``'s player plays next (it must be their turn)."""
    if level not in LEVELS:
        raise ValueError(f"level: expected 0 to {MAX_LEVEL}, got {level!r}")
    info = info_state(view)
    if info.over or info.to_move != info.me:
        raise ValueError("it is not this player's turn")
    return choose_from(info, level, seed)


def choose_from(info: InfoState, level: int, seed: int) -> Action:
    rng = decision_rng(seed, level, info)
    params = LEVELS[level]
    sampler = Sampler(info)
    n = 1 if params is None else params.worlds
    worlds = []
    for _ in range(n):
        game, tower_of = build_game(info, sampler.sample(rng))
        lights = {p: light_of(game, p) for p in (info.me, info.rival)}
        worlds.append(_World(game, lights, exposed_towers(info, tower_of)))
    root = sorted(worlds[0].game.legal_actions(), key=action_key)
    if params is None or len(root) == 1:
        return rng.choice(root)
    me = info.me
    g0 = worlds[0].game
    ending = [a for a in root if g0.ends_turn(a)]
    stacking = [a for a in root if not g0.ends_turn(a)]
    gravity = [a for a in ending if type(a) is Gravity]
    if len(gravity) > ROOT_GRAVITY:  # Third Eye: Void Gravity combinations can run to thousands
        keep = set(rng.sample(gravity, ROOT_GRAVITY))
        ending = [a for a in ending if type(a) is not Gravity or a in keep]
    if params.consider < 1.0 and len(ending) + len(stacking) > MIN_CONSIDER:
        # A smaller budget looks at fewer of its options, like a beginner who
        # does not see every move on the board.
        k = max(MIN_CONSIDER, round(params.consider * (len(ending) + len(stacking))))
        seen = set(rng.sample(ending + stacking, k))
        seen.add(ending[rng.randrange(len(ending))])  # always some way to end the turn
        ending = [a for a in ending if a in seen]
        stacking = [a for a in stacking if a in seen]
    shallow = {a: _mean(worlds, lambda w: _static(w, a, me)) + rng.random() * 1e-6 for a in ending + stacking}
    if stacking:
        # A non-ending action (Time, Resurrection, Memory Swap) is worth what the
        # turn it starts is worth: the best few are searched to a turn-ending
        # action; the rest are credited with the best ending action's gain.
        base = _mean(worlds, lambda w: evaluate(w.game, me, w.lights, w.exposed))
        gain = max(shallow[a] for a in ending) - base
        order = sorted(stacking, key=lambda a: (-shallow[a], action_key(a)))
        for a in order[params.stack:]:
            shallow[a] += gain
        for a in order[: params.stack]:
            shallow[a] = _mean(worlds, lambda w: _after(w, a, me, params, rng)) + rng.random() * 1e-6
    for a in stacking:
        shallow[a] -= STACKED  # a win or a position as good without spending a power: take it plainly
    root = ending + stacking
    back = info.my_last_move
    for a in root:
        if _takes_back(a, back):
            shallow[a] -= UNDO
    ranked = sorted(root, key=lambda a: -shallow[a])
    if params.depth <= 1:
        return ranked[0]
    deep = {}
    for a in ranked[: params.beam]:
        total = 0.0
        for w in worlds:
            total += _deep(w, a, me, params, rng)
        deep[a] = total / len(worlds) + rng.random() * 1e-6
        if _takes_back(a, back):
            deep[a] -= UNDO
        if not g0.ends_turn(a):
            deep[a] -= STACKED
    return max(deep, key=lambda a: deep[a])


def _takes_back(action: Action, back: tuple[int, int] | None) -> bool:
    """Does ``action`` take back my previous move ``back`` (from, to)?  Shuffling a tower back and
    forth draws games, so it costs a little."""
    return back is not None and type(action) in (Move, Reflect) and (action.frm, action.to) == (back[1], back[0])


def _mean(worlds: list[_World], value) -> float:
    return sum(value(w) for w in worlds) / len(worlds)


def _static(w: _World, action: Action, me: str) -> float:
    g = w.game
    g.push(action)
    try:
        return evaluate(g, me, w.lights, w.exposed)
    finally:
        g.pop()


def _ending(game: Game) -> list[Action]:
    return [a for a in game.legal_actions() if game.ends_turn(a)]


def _after(w: _World, action: Action, me: str, params: Level, rng: random.Random) -> float:
    """The evaluation after ``action``; after a non-ending action, after the best ending one."""
    g = w.game
    g.push(action)
    try:
        if g.state.result is None and g.state.to_move == me:
            return _search(w, me, 1, params, rng)
        return evaluate(g, me, w.lights, w.exposed)
    finally:
        g.pop()


def _deep(w: _World, action: Action, me: str, params: Level, rng: random.Random) -> float:
    """``action`` (the turn completed by the best few ending actions if needed), then deeper."""
    g = w.game
    g.push(action)
    try:
        if g.state.result is None and g.state.to_move == me:
            options = []
            for b in _ending(g):
                g.push(b)
                options.append((evaluate(g, me, w.lights, w.exposed), action_key(b), b))
                g.pop()
            options.sort(key=lambda o: (-o[0], o[1]))
            best = None
            for _, _, b in options[: params.follow]:
                g.push(b)
                v = _search(w, me, params.depth - 1, params, rng)
                g.pop()
                if best is None or v > best:
                    best = v
            return best if best is not None else evaluate(g, me, w.lights, w.exposed)
        return _search(w, me, params.depth - 1, params, rng)
    finally:
        g.pop()


def _search(w: _World, me: str, depth: int, params: Level, rng: random.Random) -> float:
    """A turn-ending action of the player to move, ``depth`` turns deep, valued for ``me``.

    The rival's turn is valued mostly by its worst case for ``me`` and partly by
    the mean (a rival who cannot see our towers does not always find the best
    reply); our own turn by its best.  Only turn-ending actions are searched
    here: every move and Reflection, and a seeded sample of the others.
    """
    g = w.game
    if g.state.result is not None or depth <= 0:
        return evaluate(g, me, w.lights, w.exposed)
    acts = _ending(g)
    moves = [a for a in acts if type(a) in (Move, Reflect)]
    others = [a for a in acts if type(a) not in (Move, Reflect)]
    if len(others) > params.others:
        others = rng.sample(sorted(others, key=action_key), params.others)
    ours = g.state.to_move == me
    if not ours and params.notice < 1.0:
        replies = moves + others
        if len(replies) > MIN_CONSIDER:
            k = max(MIN_CONSIDER, round(params.notice * len(replies)))
            keep = set(rng.sample(sorted(replies, key=action_key), k))
            moves = [a for a in moves if a in keep]
            others = [a for a in others if a in keep]
    scored = []
    for a in moves + others:
        g.push(a)
        scored.append((evaluate(g, me, w.lights, w.exposed), a))
        g.pop()
    if depth > 1 and params.width > 0:
        scored.sort(key=lambda va: (-va[0] if ours else va[0], action_key(va[1])))
        deeper = []
        for _, a in scored[: params.width]:
            g.push(a)
            deeper.append((_search(w, me, depth - 1, params, rng), a))
            g.pop()
        scored = deeper  # only like with like: a searched reply against a searched reply
    values = [v for v, _ in scored]
    if ours:
        return LATER * max(values)
    return LATER * (params.worst * min(values) + (1 - params.worst) * sum(values) / len(values))
