"""Stand-in for CircuitPython's ``board`` on a Raspberry Pi Pico (9.x, ports/raspberrypi/boards/raspberry_pi_pico/pins.c)."""


class Pin:
    """A microcontroller pin: only its name (CircuitPython's Pin has no public attributes)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "board." + self._name


def _define(names):
    g = globals()
    for name in names:
        g[name] = Pin(name)


_define(["GP%d" % i for i in range(29)])
# aliases are the same pin objects, as on the device
GP26_A0 = A0 = GP26
GP27_A1 = A1 = GP27
GP28_A2 = A2 = GP28
SMPS_MODE = GP23
VBUS_SENSE = GP24
LED = GP25
A3 = VOLTAGE_MONITOR = Pin("GP29")
