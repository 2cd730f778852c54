# Quin board firmware for the Raspberry Pi Pico (CircuitPython).
#
# Scans the 99 linear Hall sensors and the two reference channels through
# seven CD74HC4067 multiplexers, sends raw frames to the Pi over the usb_cdc
# data port and lights WS2812 LEDs on request.  See docs/hardware.md.
# Settings live in quin_settings.py (optional) so this file never changes.
import quin_firmware
import quin_hw

settings = quin_firmware.load_settings()
hardware = quin_hw.PicoHardware(leds=settings["leds"])
quin_firmware.Firmware(hardware, quin_hw.data_port(), settings).run()
