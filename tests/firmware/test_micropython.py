"""The firmware on a real MicroPython interpreter (tests/support/mpy.py), with a CircuitPython-sized heap."""

import mpy


def test_firmware_modules_import_under_micropython():
    # the crash this guards against: AttributeError: module 'struct' has no attribute 'Struct'
    out = mpy.run("import quin_protocol, quin_firmware; print(quin_protocol.VERSION)").stdout
    assert out.strip() == b"1"


def test_a_frame_encoded_in_micropython_decodes_the_same_there():
    script = """
import quin_protocol as p
wire = p.raw_frame(7, 123456789012, [0, 1, 65535, 256, 0])
d = p.Decoder()
d.feed(wire)
f = d.next_frame()
print(f.kind, f.seq, f.time_us, list(f.data))
"""
    assert mpy.run(script).stdout.split() == [b"1", b"7", b"123456789012", b"[0,", b"1,", b"65535,", b"256,", b"0]"]
