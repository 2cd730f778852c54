"""Stand-in for CircuitPython's ``neopixel_write`` (9.x): keeps what was sent in ``written``."""

written = []  # (pin name, bytes) per call


def neopixel_write(digitalinout, buf):
    if digitalinout.direction != "OUTPUT":
        raise ValueError("the pin must be an output")
    written.append((digitalinout._name, bytes(buf)))
