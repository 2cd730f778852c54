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

# named as attributes of board (not looked up by string) so the test of what this
# firmware takes from CircuitPython can see every pin it uses
SELECT_PINS = (board.GP2, board.GP3, board.GP4, board.GP5)
ENABLE_PINS = (board.GP6, board.GP7, board.GP8, board.GP9, board.GP10, board.GP11, board.GP12)
ADC_PIN = board.A0
LED_PIN = board.GP22


def _output(pin, value):
    io = digitalio.DigitalInOut(pin)
    io.direction = digitalio.Direction.OUTPUT
    io.value = value
    return io


class PicoHardware:
    def __init__(self, leds=0):
        self.select_pins = [_output(p, False) for p in SELECT_PINS]
        self.enable_pins = [_output(p, True) for p in ENABLE_PINS]  # all disabled
        self.adc = analogio.AnalogIn(ADC_PIN)
        self.led_pin = _output(LED_PIN, False) if leds else None
        self.selected = 0

    def select(self, n):
        changed = n ^ self.selected  # only the lines that change are written (the scan walks a Gray code)
        bit = 0
        while changed:
            if changed & 1:
                self.select_pins[bit].value = bool(n >> bit & 1)
            changed >>= 1
            bit += 1
        self.selected = n

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
