"""The Pico side of the hardware interface used by quin_firmware (CircuitPython only).

Pins (see hardware/README.md):
    GP2..GP5   S0..S3 select lines, shared by all seven CD74HC4067
    GP6..GP12  /E (enable, active low) of multiplexers 0..6
    GP26 (A0)  common SIG of the multiplexers, into ADC0
    GP22       WS2812 data (through a 74AHCT125 level shifter)
"""

import time

import analogio
import board
import digitalio
import neopixel_write

SELECT_PINS = ("GP2", "GP3", "GP4", "GP5")
ENABLE_PINS = ("GP6", "GP7", "GP8", "GP9", "GP10", "GP11", "GP12")
ADC_PIN = "A0"
LED_PIN = "GP22"


def _output(name, value):
    pin = digitalio.DigitalInOut(getattr(board, name))
    pin.direction = digitalio.Direction.OUTPUT
    pin.value = value
    return pin


class PicoHardware:
    def __init__(self, leds=0):
        self.select_pins = [_output(n, False) for n in SELECT_PINS]
        self.enable_pins = [_output(n, True) for n in ENABLE_PINS]  # all disabled
        self.adc = analogio.AnalogIn(getattr(board, ADC_PIN))
        self.led_pin = _output(LED_PIN, False) if leds else None
        self.enabled = None
        self.selected = None

    def select(self, n):
        if n == self.selected:
            return
        for bit, pin in enumerate(self.select_pins):
            pin.value = bool(n >> bit & 1)
        self.selected = n

    def enable(self, mux):
        if mux == self.enabled:
            return
        if self.enabled is not None:
            self.enable_pins[self.enabled].value = True
        if mux is not None:
            self.enable_pins[mux].value = False
        self.enabled = mux

    def read_adc(self):
        return self.adc.value

    def show(self, buf):
        if self.led_pin is not None:
            neopixel_write.neopixel_write(self.led_pin, buf)

    def monotonic_us(self):
        return time.monotonic_ns() // 1000

    def sleep_us(self, n):
        time.sleep(n / 1000000)


def data_port():
    """The usb_cdc data port (enabled by boot.py), non-blocking."""
    import usb_cdc

    port = usb_cdc.data
    if port is None:
        raise RuntimeError("usb_cdc data port is off: copy boot.py to the drive and reset the board")
    port.timeout = 0
    port.write_timeout = 0.1
    return port
