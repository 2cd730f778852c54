"""Matching the board's evidence against what each legal action does.

At the start of every step (a turn, or what is left of one after a non-ending
action) :class:`Step` takes every legal action of the mover with its
:class:`engine.effects.BoardEffect` and indexes it by the change it makes.  The
evidence (``host.referee.evidence``) after its first ``k`` flips is then one
lookup: the actions whose change is the board's, whose touches all happened and
whose towers were lifted before they were put down are *complete* at ``k``.

Which of them the referee may commit, and when, is decided in
``host.referee.machine``; this module only answers questions about the board:
what is complete where, which complete actions leave the same game (the engine
says), which is the plainest, whether the change so far could still be on its
way to one.  Whether an action could, for all the rival can tell, still grow
(Void Gravity pulling one more Void) is the engine's answer (``Game.could_grow``).
"""

from __future__ import annotations

from engine.actions import Action, Gravity, Move, Pass, Reflect, Reinforce, Resurrect, Swap, Time
from engine.effects import BoardEffect
from engine.game import Game

from .evidence import Evidence

#: among actions that leave the same game, the one committed: the plainest
RANK = {Move: 0, Reflect: 1, Gravity: 2, Swap: 3, Time: 4, Reinforce: 5, Resurrect: 6, Pass: 7}


class Candidate:
    """A legal action and what it does to the board."""

    __slots__ = ("action", "effect", "emptied", "filled", "touched", "word", "flash", "ends", "rank", "index")

    def __init__(self, action: Action, effect: BoardEffect, index: int):
        self.action = action
        self.effect = effect
        self.emptied = effect.emptied
        self.filled = effect.filled
        self.touched = effect.touched
        self.word = effect.word
        self.flash = effect.flash
        self.ends = effect.ends_turn
        self.rank = RANK[type(action)]
        self.index = index

    def result(self, base: frozenset[int]) -> frozenset[int]:
        """The occupancy after the action (the engine's ``BoardEffect.after``)."""
        return self.effect.after(base)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Candidate({self.action})"


class Step:
    """The legal actions of one step, indexed by what they do to the board."""

    def __init__(self, game: Game):
        self.game = game
        self.base = game.occupied()
        self.player = game.to_move
        self.legal = game.legal_actions()
        self.cands = [Candidate(a, game.board_effect(a), i) for i, a in enumerate(self.legal)]
        self.index: dict[tuple[frozenset, frozenset], list[Candidate]] = {}
        self.flashes: dict[tuple[int, int], list[Candidate]] = {}
        for c in self.cands:
            self.index.setdefault((c.emptied, c.filled), []).append(c)
            if c.flash is not None:
                self.flashes.setdefault((c.flash.frm, c.flash.at), []).append(c)
        self.pass_only = self.legal == [Pass()]
        self.can_pass = any(type(a) is Pass for a in self.legal)
        self._keys: dict[Action, tuple] = {}
        self._complete: dict[int, list[Candidate]] = {}

    def of(self, action: Action) -> Candidate | None:
        for c in self.cands:
            if c.action == action:
                return c
        return None

    def complete(self, ev: Evidence, k: int) -> list[Candidate]:
        """Actions the first ``k`` flips show done: their change, their touches, lifts before placements."""
        hit = self._complete.get(k)
        if hit is None:
            touched = ev.touched(k)
            hit = [c for c in self.index.get(ev.change(k), ())
                   if c.touched <= touched and ev.causal(c.effect.carries, k)]
            self._complete[k] = hit
        return hit

    def forget(self) -> None:
        """The evidence was cut: what was complete after ``k`` flips no longer holds."""
        self._complete = {}

    def key(self, action: Action) -> tuple:
        """The game after ``action``, up to what cannot change a later legal action (the engine's)."""
        key = self._keys.get(action)
        if key is None:
            key = self._keys[action] = self.game.same_game_key_after(action)
        return key

    def classes(self, cands: list[Candidate]) -> list[list[Candidate]]:
        """Candidates grouped by the game they leave, the plainest first in each group."""
        if len(cands) == 1:
            return [cands]
        by: dict[tuple, list[Candidate]] = {}
        for c in cands:
            by.setdefault(self.key(c.action), []).append(c)
        return [sorted(g, key=plain) for g in by.values()]

    def on_the_way(self, ev: Evidence, allowed) -> bool:
        """Could the change so far still be on its way to an action ``allowed`` lets through?"""
        rem, add = ev.change()
        moved = rem | add
        return any(moved <= c.touched for c in self.cands if allowed(c))


def plain(c: Candidate) -> tuple:
    return (c.rank, c.index)


def maybe_void(game: Game, tower: int) -> bool:
    """Could the rival believe this tower is a Void?  (The engine's ``Game.may_be_void``.)"""
    return game.may_be_void(tower)


def could_grow(game: Game, c: Candidate) -> bool:
    """Could ``c``, for all the rival can tell, be Void Gravity that may still pull another Void?
    The engine decides, from public facts only (``Game.could_grow``)."""
    return game.could_grow(c.action, c.effect)


__all__ = ["Candidate", "Step", "RANK", "plain", "could_grow", "maybe_void"]
