"""Stand-in for CircuitPython's ``analogio.AnalogIn`` (9.x).

``value`` asks ``source(pin name)`` (set by a test or by quin_wiring) for a
16-bit reading; ``reads`` counts them.
"""

ADC_PINS = ("GP26", "GP27", "GP28", "GP29")  # the RP2040's ADC inputs

reads = 0
source = None


class AnalogIn:
    def __init__(self, pin):
        if pin._name not in ADC_PINS:
            raise ValueError("Invalid pin")  # no ADC on this pin
        self._name = pin._name

    def deinit(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    @property
    def value(self):
        global reads
        reads += 1
        return source(self._name) if source is not None else 0

    @property
    def reference_voltage(self):
        return 3.3
