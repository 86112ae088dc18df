"""The ``fray`` command line: one sub-command per module in this package.

Bad input prints one line naming the bad field or value and exits with status 2; it never
prints a traceback. Output cut short by its reader (``fray ... | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from decimal import Decimal

from fray import FrayError, outputs
from fray.cli import (
    checksum,
    collective,
    export,
    fabric,
    health,
    integrity,
    links,
    netwatch,
    plan,
    report,
    route,
    run,
    spares,
    topobw,
    traffic,
)

_SUBCOMMANDS = (
    spares,
    links,
    fabric,
    health,
    route,
    checksum,
    integrity,
    run,
    report,
    export,
    collective,
    traffic,
    topobw,
    netwatch,
    plan,
)


class Parser(argparse.ArgumentParser):
    """The parser of ``fray`` and of each sub-command: a refusal is one line, ``fray
    COMMAND: error: MESSAGE``, and exit status 2 (no usage block; ``--help`` gives it), and a
    value that starts with a minus sign (``--every -1d``, ``--noise -inf``) reaches its option
    to be refused there, rather than being read as an unknown option."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {_short_numbers(message)}\n")

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        # The innermost command's parser finishes first: its name (``fray checksum tune``)
        # is the one an error raised after parsing is prefixed with.
        parsed, rest = super().parse_known_args(args, namespace)
        if getattr(parsed, "command_prog", None) is None:
            parsed.command_prog = self.prog
        return parsed, rest

    def _parse_optional(self, arg_string: str):  # type: ignore[no-untyped-def]
        # fray has no one-dash option but -h: "-1d", "-5%" or "-inf" is a value.
        if (arg_string[:1] == "-" and arg_string[1:2] not in ("", "-")
                and arg_string not in self._option_string_actions):
            return None
        return super()._parse_optional(arg_string)


def _short_numbers(message: str) -> str:
    """``message`` with each run of more than 24 digits (a value such as 1e308 written out by
    the core) as a number in exponent form, so that the line stays one readable line."""
    return re.sub(r"\d{25,}", lambda m: f"{Decimal(m.group()):.6e}", message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fray`` command with every sub-command registered."""
    parser = Parser(
        prog="fray", description="A laboratory for interconnect resilience in HPC systems."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                parser_class=Parser)
    for module in _SUBCOMMANDS:
        module.add_parser(sub)
    return parser


def _check_outputs(args: argparse.Namespace) -> None:
    """Checks every output a sub-command declares (its module's ``OUTPUTS``: option dest to
    the extensions it takes, or ``None`` for a folder) before any work starts."""
    declared = getattr(sys.modules[args.func.__module__], "OUTPUTS", {})
    for dest, extensions in declared.items():
        value = getattr(args, dest, None)
        if not value:
            continue
        option = "--" + dest.replace("_", "-")
        if extensions is None:
            outputs.check_folder(value, option)
        else:
            outputs.check_file(value, option, extensions)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fray`` command; returns the process exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a refusal (one line, 2) or --help (0)
        return exc.code if isinstance(exc.code, int) else 0
    try:
        _check_outputs(args)
        return int(args.func(args) or 0)
    except (FrayError, ValueError) as exc:
        print(f"{args.command_prog}: error: {_short_numbers(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{args.command_prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away: point stdout at /dev/null so that flushing it at exit does
        # not raise again, and exit as a process killed by SIGPIPE would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
