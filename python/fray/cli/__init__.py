"""The ``fray`` command line: one sub-command per module in this package.

Bad input prints one line naming the bad field or value and exits with status 2; it never
prints a traceback. Output cut short by its reader (``fray ... | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fray`` command with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="fray", description="A laboratory for interconnect resilience in HPC systems."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
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
    args = parser.parse_args(argv)
    try:
        _check_outputs(args)
        return int(args.func(args) or 0)
    except (FrayError, ValueError) as exc:
        print(f"fray {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"fray {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away: point stdout at /dev/null so that flushing it at exit does
        # not raise again, and exit as a process killed by SIGPIPE would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
