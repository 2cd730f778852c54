"""The `quin` command.  Each subcommand lives in its own module, registered here."""

from __future__ import annotations

import argparse
import importlib
import sys

from engine.errors import bounded
from host.commands import UserError

# (module, description); each module defines add_parser(subparsers) that sets
# ``func`` on its parser.  The function returns the exit code.
COMMANDS = [
    "host.commands.engine_cmds",
    "host.commands.referee_cmds",
    "host.commands.hardware_cmds",
    "host.commands.virtual_pico_cmds",
    "host.commands.serve_cmds",
    "host.commands.setup_cmds",
    "host.commands.store_cmds",
    "host.commands.opponent_cmds",
    "host.commands.hub_cmds",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quin", description="Quin board companion and referee")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(bounded(f"quin: {exc}"), file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    # `python -m host.cli`: run the package's own module (its COMMANDS, its parser), as the
    # `quin` script does, rather than this __main__ copy.
    from host.cli import main as _main

    sys.exit(_main())
