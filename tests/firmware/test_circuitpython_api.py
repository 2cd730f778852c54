"""The firmware takes from CircuitPython only what CircuitPython documents for the RP2040.

Read statically from the firmware's source (its AST): every name taken from each
built-in module, every attribute used on CircuitPython's objects and on built-in
types, every keyword argument given to something the firmware did not define,
and the Python features where MicroPython (CircuitPython's core) differs from
CPython.  Running the firmware under MicroPython (test_micropython.py) proves the
paths it runs; this proves the ones it does not reach there (and the names a
MicroPython Unix port has but a Pico does not).

The allow-lists are written from CircuitPython 9.x's documentation, as of tag
9.2.9: the API reference is generated from the docstrings in
``shared-bindings/<module>/*.c`` (docs.circuitpython.org/en/9.2.x/shared-bindings/),
the standard-library pages from ``docs/library/*.rst``, and the Pico's ``board``
from ``ports/raspberrypi/boards/raspberry_pi_pico/pins.c``.  The MicroPython
differences are those of the "MicroPython differences from CPython" pages
(``tests/cpydiff/*.py`` in the same tree), named beside each check.
"""

import ast
import re

import pytest
from tests.support.quin_sim import ROOT

CIRCUITPYTHON = "9.2.9"

FIRMWARE_DIR = ROOT / "firmware"
OWN_MODULES = {"quin_protocol", "quin_firmware", "quin_hw", "quin_settings"}  # quin_settings: the user's, optional

PICO_PINS = {f"GP{i}" for i in range(29)} | {
    "GP26_A0",
    "GP27_A1",
    "GP28_A2",
    "A0",
    "A1",
    "A2",
    "A3",
    "LED",  # GP25
    "SMPS_MODE",  # GP23
    "VBUS_SENSE",  # GP24
    "VOLTAGE_MONITOR",  # A3, GP29 (not itself a board name)
    "STEMMA_I2C",
}

#: module -> the names CircuitPython 9.2.9 documents in it (dotted for class members)
MODULES = {
    "struct": {"calcsize", "pack", "pack_into", "unpack", "unpack_from"},  # no Struct, no error
    "binascii": {"hexlify", "unhexlify", "a2b_base64", "b2a_base64", "crc32"},
    "time": {"monotonic", "monotonic_ns", "sleep", "time", "localtime", "mktime", "struct_time"},
    "board": PICO_PINS,
    "digitalio": {
        "DigitalInOut",
        "Direction",
        "Direction.INPUT",
        "Direction.OUTPUT",
        "DriveMode",
        "DriveMode.PUSH_PULL",
        "DriveMode.OPEN_DRAIN",
        "Pull",
        "Pull.UP",
        "Pull.DOWN",
    },
    "analogio": {"AnalogIn"},  # AnalogOut is documented, but the RP2040 has no DAC
    "neopixel_write": {"neopixel_write"},
    "usb_cdc": {"console", "data", "enable", "disable", "Serial"},
    "microcontroller": {
        "cpu",
        "cpus",
        "delay_us",
        "disable_interrupts",
        "enable_interrupts",
        "on_next_reset",
        "reset",
        "nvm",
        "watchdog",
    },
    "supervisor": {
        "runtime",
        "status_bar",
        "reload",
        "set_next_code_file",
        "ticks_ms",
        "get_previous_traceback",
        "reset_terminal",
        "set_usb_identification",
    },
    "gc": {"enable", "disable", "collect", "mem_alloc", "mem_free", "threshold"},
    "micropython": {"const"},
    "sys": {
        "exit",
        "print_exception",
        "argv",
        "byteorder",
        "implementation",
        "maxsize",
        "modules",
        "path",
        "platform",
        "stderr",
        "stdin",
        "stdout",
        "version",
        "version_info",
    },
}

#: members of the CircuitPython objects the firmware holds (digitalio.DigitalInOut,
#: analogio.AnalogIn, usb_cdc.Serial)
OBJECT_MEMBERS = {
    "DigitalInOut": {"deinit", "switch_to_output", "switch_to_input", "direction", "value", "drive_mode", "pull"},
    "AnalogIn": {"deinit", "value", "reference_voltage"},
    "Serial": {
        "read",
        "readinto",
        "readline",
        "readlines",
        "write",
        "flush",
        "connected",
        "in_waiting",
        "out_waiting",
        "reset_input_buffer",
        "reset_output_buffer",
        "timeout",
        "write_timeout",
    },
}

#: built-in functions and exceptions (docs/library/builtins.rst)
BUILTINS = set(
    "abs all any bin bool bytearray bytes callable chr classmethod compile complex delattr dict dir divmod "
    "enumerate eval exec filter float frozenset getattr globals hasattr hash hex id input int isinstance "
    "issubclass iter len list locals map max memoryview min next object oct open ord pow print property range "
    "repr reversed round set setattr slice sorted staticmethod str sum super tuple type zip "
    "ArithmeticError AssertionError AttributeError BaseException BrokenPipeError ConnectionError EOFError "
    "Exception ImportError IndentationError IndexError KeyboardInterrupt KeyError LookupError MemoryError "
    "NameError NotImplementedError OSError OverflowError RuntimeError StopAsyncIteration StopIteration "
    "SyntaxError SystemExit TimeoutError TypeError UnicodeError ValueError ZeroDivisionError "
    "True False None NotImplemented __name__ __file__".split()
)

#: methods of built-in types (list, dict, bytes, bytearray, str, int) that MicroPython implements as
#: CPython does.  Left out on purpose: bit_length (types_int_bit_length), ljust/rjust
#: (types_str_ljust_rjust), center/partition/splitlines (omitted on small CircuitPython builds,
#: docs/library/index.rst), hex (a build option), and everything newer than Python 3.4's str.
BUILTIN_METHODS = set(
    "append extend insert pop remove index count sort reverse clear copy "  # list
    "get items keys values update setdefault popitem fromkeys "  # dict
    "find rfind rindex startswith endswith split rsplit join strip lstrip rstrip decode encode replace "
    "lower upper format isdigit isspace isalpha isupper islower "  # bytes / str
    "to_bytes from_bytes "  # int: positional arguments only (see _check_call)
    "setter getter __class__ __name__".split()
)

#: keyword arguments MicroPython's built-ins and CircuitPython's functions take
KEYWORDS = {
    "sorted": {"key", "reverse"},
    "min": {"key", "default"},
    "max": {"key", "default"},
    "print": {"sep", "end", "file"},
    "usb_cdc.enable": {"console", "data"},
    "binascii.b2a_base64": {"newline"},
    "switch_to_output": {"value", "drive_mode"},
    "switch_to_input": {"pull"},
}

STRUCT_FORMAT = re.compile(r"[@<>!]?(\d*[bBhHiIlLqQsPfd])*\Z")  # MicroPython's struct: no '=', no whitespace
DECORATORS = {"property", "staticmethod", "classmethod"}


class Checker:
    """Walks the firmware's modules; ``taken`` lists what it takes from each module, ``problems`` what is wrong."""

    def __init__(self, sources):
        self.sources = sources  # module name -> source text
        self.trees = {name: ast.parse(text, name + ".py") for name, text in sources.items()}
        self.parent = {}
        for tree in self.trees.values():
            for node in ast.walk(tree):
                for child in ast.iter_child_nodes(node):
                    self.parent[child] = node
        self.taken = {}
        self.formats = set()  # struct format strings seen
        self.problems = []
        self.own_names = set()  # every function, class, attribute and global the firmware defines
        self.own_globals = {}
        for name, tree in self.trees.items():
            self.own_globals[name] = self._globals(tree)
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    self.own_names.add(node.name)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    self.own_names.add(node.attr)
        self.own_names |= {n for g in self.own_globals.values() for n in g}
        for name, tree in self.trees.items():
            self._module(name, tree)

    @staticmethod
    def _globals(tree):
        names = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.Try):
                for sub in node.body + [h for handler in node.handlers for h in handler.body]:
                    if isinstance(sub, (ast.Import, ast.ImportFrom)):
                        names |= {(a.asname or a.name).split(".")[0] for a in sub.names}
                    elif isinstance(sub, ast.Assign):
                        names |= {n.id for t in sub.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        return names

    def problem(self, module, node, message):
        self.problems.append("%s.py:%d: %s" % (module, getattr(node, "lineno", 0), message))

    def take(self, module, node, mod, name):
        self.taken.setdefault(mod, set()).add(name)
        if mod in OWN_MODULES:
            if mod in self.own_globals and name.split(".")[0] not in self.own_globals[mod]:
                self.problem(module, node, "%s has no %s" % (mod, name))
        elif name not in MODULES[mod]:
            self.problem(module, node, "%s.%s is not in CircuitPython %s's documentation" % (mod, name, CIRCUITPYTHON))

    def _module(self, module, tree):
        aliases = {}  # local name -> module
        imported_names = {}  # local name -> (module, name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self._import(module, node, a.name)
                    aliases[a.asname or a.name] = a.name
            elif isinstance(node, ast.ImportFrom):
                self._import(module, node, node.module)
                for a in node.names:
                    imported_names[a.asname or a.name] = (node.module, a.name)
                    if node.module in MODULES or node.module in OWN_MODULES:
                        self.take(module, node, node.module, a.name)
        defined = self._globals(tree) | {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
        }
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):  # at the top or inside a function
                defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
            for arg in ast.walk(node.args) if isinstance(node, (ast.FunctionDef, ast.Lambda)) else ():
                if isinstance(arg, ast.arg):
                    defined.add(arg.arg)
            if isinstance(node, ast.ExceptHandler) and node.name:
                defined.add(node.name)
        for node in ast.walk(tree):
            self._features(module, node)
            if isinstance(node, ast.Attribute):
                self._attribute(module, node, aliases)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id not in defined and node.id not in BUILTINS:
                    self.problem(module, node, "%s is not a CircuitPython built-in" % node.id)
            elif isinstance(node, ast.Call):
                self._check_call(module, node, aliases)

    def _import(self, module, node, name):
        if name not in MODULES and name not in OWN_MODULES:
            self.problem(module, node, "imports %s, not a CircuitPython %s module for the RP2040" % (name, CIRCUITPYTHON))

    def _dotted(self, node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            return node.id, list(reversed(parts))
        return None, None

    def _attribute(self, module, node, aliases):
        base, parts = self._dotted(node)
        if base in aliases:
            # module.name (or module.Class.MEMBER): record the longest documented spelling
            if isinstance(self.parent.get(node), ast.Attribute):
                return  # the inner part of module.Class.MEMBER: its outer node names it whole
            self.take(module, node, aliases[base], ".".join(parts))
            return
        attr = node.attr
        members = set().union(*OBJECT_MEMBERS.values())
        if attr not in self.own_names and attr not in members and attr not in BUILTIN_METHODS:
            self.problem(module, node, ".%s is neither the firmware's own nor a documented member" % attr)

    def _callee(self, func, aliases):
        if isinstance(func, ast.Name):
            return func.id
        base, parts = self._dotted(func)
        if base in aliases:
            return aliases[base] + "." + ".".join(parts)
        return func.attr if isinstance(func, ast.Attribute) else None

    def _check_call(self, module, node, aliases):
        callee = self._callee(node.func, aliases)
        short = callee.rsplit(".", 1)[-1] if callee else None
        if callee in ("getattr", "hasattr", "setattr") and node.args and isinstance(node.args[0], ast.Name):
            mod = aliases.get(node.args[0].id)
            if mod is not None:  # a module's name looked up by string
                name = node.args[1] if len(node.args) > 1 else None
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    self.take(module, node, mod, name.value)
                else:
                    self.problem(module, node, "%s(%s, ...) with a computed name: cannot be checked" % (callee, mod))
        if short in ("to_bytes", "from_bytes") and (len(node.args) != 2 or node.keywords):
            self.problem(module, node, "%s takes (length or bytes, byteorder), positionally (builtins.rst)" % short)
        if short == "next" and len(node.args) > 1:
            self.problem(module, node, "next() with a default (builtin_next_arg2)")
        if callee and callee.startswith("struct.") and node.args:
            for fmt in self._formats(module, node.args[0], self._scope(node)):
                self.formats.add(fmt)
                if fmt is None:
                    self.problem(module, node, "cannot tell the struct format %s uses" % callee)
                elif not STRUCT_FORMAT.match(fmt.replace("%d", "1")):
                    self.problem(module, node, "struct format %r: MicroPython takes no whitespace or '='" % fmt)
        for kw in node.keywords:
            if kw.arg is None:
                continue
            own = (
                short in self.own_names
                and callee not in KEYWORDS
                and not (callee or "").split(".")[0] in MODULES
                and short not in BUILTINS
            )
            if own:
                continue
            if kw.arg not in KEYWORDS.get(callee, KEYWORDS.get(short, set())):
                self.problem(module, node, "%s(%s=...): not a documented keyword (types_*_keywords)" % (callee, kw.arg))

    def _scope(self, node):
        while node is not None and not isinstance(node, ast.FunctionDef):
            node = self.parent.get(node)
        return node

    def _formats(self, module, expr, scope=None):
        """The format strings ``expr`` can be (None where the test cannot tell)."""
        tree = self.trees[module]
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return [expr.value]
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) and isinstance(expr.left, ast.Constant):
            return [expr.left.value]
        if isinstance(expr, ast.Name) and scope is not None and expr.id in [a.arg for a in scope.args.args]:
            # a parameter: whatever each caller in the module passes
            index = [a.arg for a in scope.args.args].index(expr.id)
            found = []
            for call in ast.walk(tree):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == scope.name:
                    found += self._formats(module, call.args[index], self._scope(call))
            return found or [None]
        if isinstance(expr, ast.Name):
            found = []
            for node in ast.walk(scope or tree):
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == expr.id for t in node.targets
                ):
                    found += self._formats(module, node.value, scope)
            for node in tree.body:  # a module-level constant
                if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets):
                    found += self._formats(module, node.value)
            return found or [None]
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            for node in tree.body:  # a helper that returns a format: every value it can return
                if isinstance(node, ast.FunctionDef) and node.name == expr.func.id:
                    found = []
                    for ret in ast.walk(node):
                        if isinstance(ret, ast.Return) and ret.value is not None:
                            found += self._formats(module, ret.value, node)
                    return found or [None]
        if isinstance(expr, ast.Subscript) or (
            isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get"
        ):
            return []  # a cache lookup: its values were stored by an assignment checked beside it
        return [None]

    def _features(self, module, node):
        if isinstance(node, ast.JoinedStr):
            self.problem(module, node, "f-string: MicroPython's differ four ways (core_fstring_*); use %")
        elif isinstance(node, ast.Raise) and node.cause is not None:
            self.problem(module, node, "raise ... from ...: no exception chaining (types_exception_chaining)")
        elif isinstance(node, ast.Slice) and node.step is not None:
            self.problem(module, node, "slice with a step (types_*_subscrstep)")
        elif isinstance(node, ast.Match):
            self.problem(module, node, "match statement: MicroPython has none")
        elif isinstance(node, getattr(ast, "TryStar", ())):
            self.problem(module, node, "except*: MicroPython has no exception groups")
        elif isinstance(node, ast.AnnAssign) or (isinstance(node, ast.arg) and node.annotation is not None):
            self.problem(module, node, "annotation: kept out of firmware (no typing module on the device)")
        elif isinstance(node, ast.FunctionDef):
            if node.returns is not None:
                self.problem(module, node, "annotation: kept out of firmware (no typing module on the device)")
            if node.name == "__del__":
                self.problem(module, node, "__del__ is never called (core_class_delnotimpl)")
            for dec in node.decorator_list:
                name = dec.id if isinstance(dec, ast.Name) else getattr(dec, "attr", None)
                if name not in DECORATORS | {"setter", "getter", "deleter"}:
                    self.problem(module, dec, "decorator %s (only property, staticmethod, classmethod)" % name)
        elif isinstance(node, ast.ClassDef):
            if node.decorator_list:
                self.problem(module, node, "class decorator (no dataclasses on the device)")
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
            exceptional = bases & {n for n in BUILTINS if n.endswith(("Error", "Exception"))} or any(
                b in self.own_names and b.endswith("Error") for b in bases
            )
            if exceptional:
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Attribute) and sub.attr == "__init__" and isinstance(sub.ctx, ast.Load):
                        self.problem(module, sub, "an exception calling its base's __init__ (types_exception_subclassinit)")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in self._functions(module)
                ):
                    self.problem(module, node, "attribute on a function (core_function_userattr)")

    def _functions(self, module):
        return {n.name for n in self.trees[module].body if isinstance(n, ast.FunctionDef)}


def firmware_sources():
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(FIRMWARE_DIR.glob("*.py"))}


def test_the_firmware_takes_only_what_circuitpython_documents():
    checker = Checker(firmware_sources())
    assert checker.problems == []
    taken = checker.taken
    # the walk really sees the firmware's names (a broken walker would pass the line above too)
    assert {"pack", "unpack_from"} <= taken["struct"] and "Struct" not in taken["struct"]
    assert taken["binascii"] == {"crc32"}
    assert {"monotonic_ns", "sleep"} <= taken["time"]
    assert {"GP2", "GP12", "A0", "GP22"} <= taken["board"]
    assert {"DigitalInOut", "Direction.OUTPUT"} <= taken["digitalio"]
    assert taken["analogio"] == {"AnalogIn"} and taken["neopixel_write"] == {"neopixel_write"}
    assert {"data", "enable"} <= taken["usb_cdc"]
    assert checker.formats == {"<BBHQ", "<I", "<%dH", "<%dI", "<BHB", "<HB", "<BBBHHH"}
    # every name taken, module by module, is on CircuitPython's list
    for module, names in taken.items():
        if module not in OWN_MODULES:
            assert names <= MODULES[module], module


def test_every_firmware_file_is_checked():
    assert set(firmware_sources()) == {"boot", "code", "quin_firmware", "quin_hw", "quin_protocol"}


@pytest.mark.parametrize(
    "snippet, complaint",
    [
        ("import struct\nH = struct.Struct('<H')", "struct.Struct is not in CircuitPython"),
        ("import struct\ntry:\n    pass\nexcept struct.error:\n    pass", "struct.error is not in CircuitPython"),
        ("import time\nt = time.perf_counter()", "time.perf_counter"),
        ("import time\nt = time.ticks_us()", "time.ticks_us"),  # MicroPython's, not CircuitPython's
        ("import board\np = board.GP29", "board.GP29"),
        ("import zlib", "imports zlib"),
        ("import machine", "imports machine"),
        ("x = f'{1}'", "f-string"),
        ("x = b'ab'.hex()", ".hex is neither"),
        ("x = (5).bit_length()", ".bit_length"),
        ("x = int.from_bytes(b'ab', byteorder='little')", "positionally"),
        ("x = (5).to_bytes(2, 'little', signed=True)", "positionally"),
        ("x = 'a,b'.split(',', maxsplit=1)", "split(maxsplit=...)"),
        ("x = bytes('a', encoding='utf-8')", "bytes(encoding=...)"),
        ("x = b'abcd'[::2]", "slice with a step"),
        ("x = next(iter(()), 0)", "next() with a default"),
        ("try:\n    pass\nexcept ValueError as e:\n    raise KeyError(1) from e", "exception chaining"),
        ("class E(ValueError):\n    def __init__(self, m):\n        ValueError.__init__(self, m)", "__init__"),
        ("class C:\n    def __del__(self):\n        pass", "__del__"),
        ("def f():\n    pass\nf.x = 1", "attribute on a function"),
        ("x: int = 1", "annotation"),
        ("def f(a: int):\n    return a", "annotation"),
        ("import struct\nx = struct.pack('< H', 1)", "struct format"),
        ("import struct\nx = struct.pack('=H', 1)", "struct format"),
        ("x = breakpoint()", "breakpoint is not a CircuitPython built-in"),
        ("import digitalio\nd = digitalio.Direction.SIDEWAYS", "digitalio.Direction.SIDEWAYS"),
        ("import usb_cdc\nusb_cdc.enable(console=True, data=True, midi=True)", "midi"),
        ("import board\nname = 'GP2'\np = getattr(board, name)", "computed name"),
        ("import board\np = getattr(board, 'GP30')", "board.GP30"),
    ],
)
def test_the_check_catches(snippet, complaint):
    checker = Checker({"snippet": snippet})
    assert any(complaint in p for p in checker.problems), checker.problems


@pytest.mark.parametrize(
    "snippet",
    [
        "import struct\nx = struct.pack('<%dH' % 3, 1, 2, 3)",
        "import usb_cdc\nusb_cdc.enable(console=True, data=True)",
        "x = sorted([2, 1], key=lambda v: -v)",
        "x = (5).to_bytes(2, 'little')",
        "import digitalio, board\np = digitalio.DigitalInOut(board.GP2)\np.direction = digitalio.Direction.OUTPUT",
        "class E(ValueError):\n    pass\nraise E('x')",
    ],
)
def test_the_check_lets_documented_use_pass(snippet):
    assert Checker({"snippet": snippet}).problems == []
