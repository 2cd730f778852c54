"""Temporary: what today's physical-play simulator asks the referee (to be removed with it)."""

from __future__ import annotations

from engine.actions import Action
from engine.game import Game

from .matching import Step


def evidence_choice(game: Game, action: Action, declared: str | None = None) -> Action | None:
    step = Step(game)
    c = step.of(action)
    if c.flash is not None:
        group = step.flashes[(c.flash.frm, c.flash.at)]
    else:
        group = [m for m in step.index.get((c.emptied, c.filled), ())
                 if m.touched <= c.touched and (m.word is None or m.word == declared)]
        if declared == "reinforce":
            group = [m for m in group if m.word != "reinforce" or
                     sorted(p for _, p in m.action.placements) == sorted(p for _, p in action.placements)]
        if declared == "resurrect":
            group = [m for m in group if m.word != "resurrect" or m.action.piece == action.piece]
    classes = step.classes(group)
    return classes[0][0].action if len(classes) == 1 else None
