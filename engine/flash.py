"""Flash outcomes: one table per mode, written once (spec section 4).

The attacker's rule decides; defenders never capture.  A Void defender
mutually destructs with any attacker but Light and Artificial Light, and that
beats the attacker's swap.
"""

from __future__ import annotations

from .pieces import (
    ARTIFICIAL_LIGHT,
    LIGHT,
    MEMORY,
    PERIPHERAL,
    PIECES,
    REFLECTOR,
    SHADOW,
    TIME,
    VOID,
)

CAPTURE = "capture"
SWAP = "swap"
MUTUAL = "mutual_destruction"
OUTCOMES = (CAPTURE, SWAP, MUTUAL)

CLASSIC = "classic"
THIRD_EYE = "third_eye"
MODES = (CLASSIC, THIRD_EYE)


def _classic(attacker: str, defender: str) -> str:
    if attacker in (LIGHT, ARTIFICIAL_LIGHT):
        return CAPTURE
    if defender == VOID:
        return MUTUAL
    if attacker in (MEMORY, REFLECTOR):
        return SWAP
    if attacker == SHADOW and defender == SHADOW:
        return SWAP
    return CAPTURE  # shadow, time, peripheral, void


def _third_eye(attacker: str, defender: str) -> str:
    if attacker == LIGHT:
        return CAPTURE
    if attacker == ARTIFICIAL_LIGHT:
        if defender == ARTIFICIAL_LIGHT:
            return MUTUAL
        return SWAP if defender in (TIME, REFLECTOR) else CAPTURE
    if defender == VOID or attacker == defender and attacker != SHADOW:
        return MUTUAL
    if attacker in (MEMORY, REFLECTOR):
        return SWAP
    if attacker == SHADOW:
        return SWAP if defender in (SHADOW, TIME) else CAPTURE
    if attacker == PERIPHERAL:
        return CAPTURE if defender == SHADOW else SWAP
    if defender == TIME:  # Time is captured only by Void and Light
        return CAPTURE if attacker == VOID else SWAP
    return CAPTURE  # time, void


FLASH_TABLE: dict[str, dict[tuple[str, str], str]] = {
    CLASSIC: {(a, d): _classic(a, d) for a in PIECES for d in PIECES},
    THIRD_EYE: {(a, d): _third_eye(a, d) for a in PIECES for d in PIECES},
}


def flash_outcome(mode: str, attacker: str, defender: str) -> str:
    return FLASH_TABLE[mode][(attacker, defender)]
