"""The Quin board's wiring as the Pico's ADC sees it (hardware/README.md): a test-only model.

Seven CD74HC4067 share the select lines S0..S3 (GP2..GP5); each has an active-low
enable (GP6..GP12); their SIG pins meet at GP26 (A0).  ``AnalogIn(board.A0).value``
reads channel ``16 * multiplexer + select`` of ``field`` (a callable channel -> 0..65535),
with the quirk the firmware discards a sample for: the first reading after any
select or enable change still shows the channel read before it (the 1 nF filter
holds its charge).  With no multiplexer enabled the input floats at its last level;
``contentions`` counts readings taken with two enabled at once (never on a good scan).
"""

import analogio
import digitalio

SELECT = ("GP2", "GP3", "GP4", "GP5")
ENABLE = ("GP6", "GP7", "GP8", "GP9", "GP10", "GP11", "GP12")
_SELECT_BIT = dict((name, bit) for bit, name in enumerate(SELECT))
_ENABLE_MUX = dict((name, mux) for mux, name in enumerate(ENABLE))

field = None
channel = -1  # the channel on SIG now; -1: no multiplexer enabled, -2: several
contentions = 0
_stale = False
_last = 0
_sel = 0
_enabled = set()


def _changed(name, level):
    # kept incremental: the firmware writes a pin 218 times a frame
    global channel, _stale, _sel
    bit = _SELECT_BIT.get(name)
    if bit is not None:
        if level:
            _sel |= 1 << bit
        else:
            _sel &= ~(1 << bit)
    else:
        mux = _ENABLE_MUX.get(name)
        if mux is None:
            return
        if level:  # active low
            _enabled.discard(mux)
        else:
            _enabled.add(mux)
    _stale = True
    count = len(_enabled)
    if count == 1:
        for mux in _enabled:
            channel = 16 * mux + _sel
    else:
        channel = -2 if count else -1


def _read(pin):
    global _stale, _last, contentions
    if pin != "GP26":
        return 0
    if channel >= 0:
        value = field(channel)
    else:
        if channel < -1:
            contentions += 1
        value = _last  # floating (or fighting): the filter holds the last level
    if _stale:
        _stale = False
        stale, _last = _last, value
        return stale
    _last = value
    return value


def install(readings):
    """Wire the model in; ``readings``: a callable channel -> value, or a list indexed by channel."""
    global field
    field = readings if callable(readings) else (lambda ch: readings[ch])
    digitalio.listeners.append(_changed)
    analogio.source = _read
