"""Stand-in for CircuitPython's ``digitalio`` (9.x): DigitalInOut, Direction, DriveMode, Pull.

Pin levels are kept in ``levels`` (pin name -> bool) for quin_wiring to read;
``writes`` counts every level written (the cost model of bench/firmware_scan.py).
"""


class Direction:
    INPUT = "INPUT"
    OUTPUT = "OUTPUT"


class DriveMode:
    PUSH_PULL = "PUSH_PULL"
    OPEN_DRAIN = "OPEN_DRAIN"


class Pull:
    UP = "UP"
    DOWN = "DOWN"


levels = {}
claimed = set()
writes = 0
listeners = []  # called with (pin name, level) on every change


def _set(name, level):
    global writes
    writes += 1
    if levels.get(name) != level:
        levels[name] = level
        for listener in listeners:
            listener(name, level)


class DigitalInOut:
    def __init__(self, pin):
        name = pin._name
        if name in claimed:
            raise ValueError("%s in use" % name)  # CircuitPython's wording
        claimed.add(name)
        self._name = name
        self._direction = Direction.INPUT
        self._pull = None
        self._drive_mode = DriveMode.PUSH_PULL

    def deinit(self):
        claimed.discard(self._name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deinit()

    def switch_to_output(self, value=False, drive_mode=DriveMode.PUSH_PULL):
        self._direction = Direction.OUTPUT
        self._drive_mode = drive_mode
        _set(self._name, bool(value))

    def switch_to_input(self, pull=None):
        self._direction = Direction.INPUT
        self._pull = pull

    @property
    def direction(self):
        return self._direction

    @direction.setter
    def direction(self, value):
        if value == Direction.OUTPUT:
            self.switch_to_output()
        else:
            self.switch_to_input()

    @property
    def value(self):
        return levels.get(self._name, False)

    @value.setter
    def value(self, value):
        if self._direction != Direction.OUTPUT:
            raise AttributeError("Cannot set value when direction is input.")  # as on the device
        _set(self._name, bool(value))

    @property
    def drive_mode(self):
        return self._drive_mode

    @property
    def pull(self):
        return self._pull
