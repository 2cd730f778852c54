"""Quin board firmware logic: scanning, pacing, occupancy and the wire protocol.

Two ways to report, chosen by the host (docs/protocol.md):

* raw (at power-up, for `quin calibrate` and `quin doctor`): a raw frame every scan;
* thresholds (what `quin serve` asks for once calibrated): the board decides each
  space's occupancy with the host's thresholds and sends an occupancy frame the scan
  it changes (and every scan for HOT_US after), plus a raw frame and an occupancy
  frame every ``period`` for drift tracking and health.  Nothing moving costs the
  host a few frames a second.

Everything here talks to the hardware through a small interface, so it runs
unchanged on the Pico and, in the tests, on MicroPython with CircuitPython
stand-ins or on CPython with fakes:

hardware
    ``select(n)``     set the shared select lines S0..S3 to n (0..15)
    ``enable_pins``   the seven multiplexers' enable lines, active low: objects
                      with a writable ``value`` (False enables), e.g. DigitalInOut
    ``adc``           the ADC: an object whose ``value`` is one sample, 0..65535
                      (e.g. analogio.AnalogIn)
    ``show(buf)``     send GRB bytes (3 per LED, LED i = space id i) to the WS2812 chain
    ``monotonic_us()`` microseconds since start
    ``sleep_us(n)``   wait
port (usb_cdc.data or a fake)
    ``in_waiting``, ``read(n)``, ``write(bytes)``

The scan touches the pins and the ADC directly, not through methods: on an
RP2040 a Python call costs more than the sample it would wrap, and the scan
makes 505 samples and 202 enable writes a frame (bench/firmware_scan.py,
docs/hardware.md).
"""

import quin_protocol as protocol

FIRMWARE_VERSION = (1, 1, 0)  # 1.1: THRESHOLDS (the board decides occupancy)
CHANNELS_PER_MUX = 16
# after a space changes, an occupancy frame every scan for this long: the host's debounce and
# settle windows (50-250 ms) then end on a frame, as with raw frames, not on its next timer tick
HOT_US = 600000

DEFAULTS = {
    "channels": 101,  # 99 spaces + half-supply + ground (hardware/channel-map.csv)
    "oversample": 4,  # samples averaged per channel
    "rate_hz": 60,  # raw frames per second (at least 50)
    "leds": 0,  # WS2812 LEDs fitted, chained in space-id order (0: none)
    "brightness": 64,  # 0..255, scales every colour
}


def load_settings():
    """DEFAULTS, overridden by a quin_settings.py on the drive (SETTINGS = {...})."""
    settings = dict(DEFAULTS)
    try:
        import quin_settings

        settings.update(quin_settings.SETTINGS)
    except ImportError:
        pass
    return settings


class Scanner:
    """Reads every channel: switch, discard the first sample, average ``oversample`` more."""

    def __init__(self, hardware, channels, oversample):
        self.hw = hardware
        self.channels = channels
        self.oversample = oversample
        self.samples = range(oversample)
        # visit channels select-major so the select lines change only 16 times a scan, in Gray
        # code order so each change flips one line; for each select value, the (enable pin,
        # channel index) of every multiplexer that has it
        groups = []
        for step in range(CHANNELS_PER_MUX):
            sel = step ^ (step >> 1)
            group = []
            for mux in range((channels + CHANNELS_PER_MUX - 1) // CHANNELS_PER_MUX):
                index = mux * CHANNELS_PER_MUX + sel
                if index < channels:
                    group.append((hardware.enable_pins[mux], index))
            if group:
                groups.append((sel, tuple(group)))
        self.groups = tuple(groups)

    def scan(self):
        hw = self.hw
        adc = hw.adc
        readings = [0] * self.channels
        n = self.oversample
        for sel, group in self.groups:
            hw.select(sel)  # every multiplexer is disabled here
            if n == 4:  # the default, spelled out: on the device a loop turn costs more than a sample
                for pin, index in group:
                    pin.value = False  # enable this multiplexer alone
                    # the first sample after a switch still carries the last channel's charge: dropped
                    stale = adc.value  # noqa: F841
                    readings[index] = (adc.value + adc.value + adc.value + adc.value + 2) >> 2
                    pin.value = True
            else:
                half = n // 2
                samples = self.samples
                for pin, index in group:
                    pin.value = False
                    stale = adc.value  # noqa: F841
                    total = 0
                    for _ in samples:
                        total += adc.value
                    readings[index] = (total + half) // n
                    pin.value = True
        return readings


class Firmware:
    def __init__(self, hardware, port, settings=None):
        s = dict(DEFAULTS)
        if settings:
            s.update(settings)
        self.settings = s
        self.hw = hardware
        self.port = port
        self.scanner = Scanner(hardware, s["channels"], s["oversample"])
        self.period_us = 1000000 // s["rate_hz"]
        self.decoder = protocol.Decoder(synced=False)
        self.seq = 0
        self.frames_sent = 0
        self.leds = s["leds"]
        self.brightness = s["brightness"]
        self.started_us = hardware.monotonic_us()
        self.next_due = self.started_us
        self.entries = None  # thresholds: (space, channel, sign, baseline, on, off) each; None: raw mode
        self.occ = bytearray()  # 1 where entries[i]'s space reads occupied
        self.raw_period_us = 0
        self.last_raw = self.started_us
        self.hot_until = self.started_us  # occupancy every scan until then (a space changed lately)
        self.show({})

    def _send(self, wire):
        self.port.write(wire)
        self.seq = (self.seq + 1) & 0xFFFF
        self.frames_sent += 1

    def step(self):
        """One scan: read every channel, report (raw, or occupancy changes), answer the host, keep the pace."""
        readings = self.scanner.scan()
        now = self.hw.monotonic_us()
        if self.entries is None:
            self._send(protocol.raw_frame(self.seq, now, readings))
        else:
            if self.decide(readings):
                self.hot_until = now + HOT_US
            due = now - self.last_raw >= self.raw_period_us
            if due or now < self.hot_until:  # every scan while things move, so the host's clock runs
                self._send(protocol.occupancy_frame(self.seq, now, self.occupied()))
            if due:
                self.last_raw = now
                self._send(protocol.raw_frame(self.seq, now, readings))
        self.poll()
        self.next_due += self.period_us
        wait = self.next_due - self.hw.monotonic_us()
        if wait > 0:
            self.hw.sleep_us(wait)
        elif wait < -self.period_us:
            self.next_due = self.hw.monotonic_us()  # fell behind: do not try to catch up

    def decide(self, readings):
        """Each space's occupancy from its reading, with hysteresis; True if any changed.

        Occupied once the reading has moved ``on`` counts from the baseline (in the
        direction ``sign``; either way for sign 0), empty again below ``off``.
        """
        occ = self.occ
        entries = self.entries
        changed = False
        for i in range(len(entries)):
            e = entries[i]
            d = readings[e[1]] - e[3]
            sign = e[2]
            if sign < 0 or (sign == 0 and d < 0):
                d = -d
            now = 1 if d >= (e[5] if occ[i] else e[4]) else 0
            if now != occ[i]:
                occ[i] = now
                changed = True
        return changed

    def occupied(self):
        occ = self.occ
        entries = self.entries
        return [entries[i][0] for i in range(len(entries)) if occ[i]]

    def set_thresholds(self, period_ms, entries):
        """Switch to thresholds (period > 0) or back to raw frames (period 0); an ACK code."""
        if period_ms == 0:
            self.entries = None
            self.occ = bytearray()
            return protocol.ACK_OK
        channels = self.scanner.channels
        for e in entries:
            if e[1] >= channels:
                return protocol.ACK_BAD_PAYLOAD  # a channel this board does not scan: keep what we had
        was = {}  # new baselines (drift) keep each space's state: its hysteresis goes on
        if self.entries is not None:
            for i in range(len(self.entries)):
                was[self.entries[i][0]] = self.occ[i]
        else:  # from raw mode: report at once, the host waits for the first occupancy
            self.last_raw = self.hw.monotonic_us() - period_ms * 1000
        occ = bytearray(len(entries))
        for i in range(len(entries)):
            occ[i] = was.get(entries[i][0], 0)
        self.entries = entries
        self.occ = occ
        self.raw_period_us = period_ms * 1000
        return protocol.ACK_OK

    def run(self):  # pragma: no cover - forever
        while True:
            self.step()

    def poll(self):
        """Handle whatever the host sent: LED frames and status requests."""
        waiting = self.port.in_waiting
        if waiting:
            self.decoder.feed(self.port.read(waiting))
        while True:
            frame = self.decoder.next_frame()
            if frame is protocol.NEED_DATA:
                return
            self.handle(frame)

    def handle(self, frame):
        now = self.hw.monotonic_us()
        if frame.kind == protocol.LED:
            code = self.show(dict((e[0], e[1:]) for e in frame.data))
            self._send(protocol.ack_frame(self.seq, now, protocol.LED, frame.seq, code))
        elif frame.kind == protocol.THRESHOLDS:
            code = self.set_thresholds(frame.data[0], frame.data[1])
            self._send(protocol.ack_frame(self.seq, now, protocol.THRESHOLDS, frame.seq, code))
        elif frame.kind == protocol.STATUS and not frame.data:
            self._send(protocol.status_frame(self.seq, now, self.status()))
        else:
            self._send(protocol.ack_frame(self.seq, now, frame.kind, frame.seq, protocol.ACK_UNSUPPORTED))

    def show(self, leds):
        """Light ``leds`` (space -> (r, g, b)); the rest go dark.  Returns an ACK code."""
        code = protocol.ACK_OK
        buf = bytearray(3 * self.leds)
        scale = self.brightness
        for space, rgb in leds.items():
            if space >= self.leds:
                code = protocol.ACK_BAD_PAYLOAD  # no such LED: light the others anyway
                continue
            r, g, b = rgb
            i = 3 * space
            buf[i] = g * scale // 255  # WS2812 wants green, red, blue
            buf[i + 1] = r * scale // 255
            buf[i + 2] = b * scale // 255
        if self.leds:
            self.hw.show(buf)
        return code

    def status(self):
        major, minor, patch = FIRMWARE_VERSION
        return {
            "firmware": major * 10000 + minor * 100 + patch,
            "channels": self.scanner.channels,
            "rate_mhz": self.settings["rate_hz"] * 1000,
            "oversample": self.scanner.oversample,
            "frames_sent": self.frames_sent,
            "bad_frames": self.decoder.stats["crc_errors"] + self.decoder.stats["malformed"],
            "leds": self.leds,
            "uptime_ms": (self.hw.monotonic_us() - self.started_us) // 1000,
        }
