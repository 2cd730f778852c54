"""Stand-in for CircuitPython's ``usb_cdc`` (9.x): ``console``, ``data``, ``enable``, ``Serial``.

``Serial`` here is an in-memory port: ``incoming`` is what the host sent and not
yet read, ``outgoing`` what the board wrote.  A test (or a virtual Pico) can bind
``data`` to something else with the same members.
"""


class Serial:
    def __init__(self):
        self.incoming = bytearray()
        self.outgoing = bytearray()
        self.timeout = 1.0
        self.write_timeout = None
        self.connected = True

    @property
    def in_waiting(self):
        return len(self.incoming)

    @property
    def out_waiting(self):
        return 0

    def read(self, size=-1):
        if size < 0:
            size = len(self.incoming)
        out = bytes(self.incoming[:size])
        self.incoming = self.incoming[size:]
        return out

    def write(self, buf):
        self.outgoing.extend(buf)
        return len(buf)

    def flush(self):
        pass

    def reset_input_buffer(self):
        self.incoming = bytearray()

    def reset_output_buffer(self):
        pass


console = Serial()
data = None  # off until boot.py enables it and the board resets
enabled = {"console": True, "data": False}


def enable(*, console=True, data=False):
    enabled["console"] = console
    enabled["data"] = data


def disable():
    enable(console=False, data=False)


def reset():
    """What a reset does after boot.py ran (stand-in only): the enabled ports exist."""
    global data
    data = Serial() if enabled["data"] else None
