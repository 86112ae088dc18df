"""``fray netwatch parse LOG``: the events of a Cray netwatch log, lane degrades first of all."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fray import SpecError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``netwatch`` sub-command."""
    p = sub.add_parser(
        "netwatch",
        help="read a Cray netwatch log (lane masks, mode exchanges, errors)",
        description="Print the events of a netwatch log; lines that cannot be read are "
        "reported on stderr with their line numbers and skipped.",
    )
    p.add_argument("action", choices=["parse"], help="what to do with the log")
    p.add_argument("log", metavar="LOG", help="the netwatch file")
    p.add_argument("--json", action="store_true", help="one JSON object per event and line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prints the events; warns about skipped lines on stderr."""
    from fray.diag import netwatch_parse

    try:
        text = Path(args.log).read_text(errors="replace")
    except OSError as exc:
        raise SpecError(f"netwatch log {args.log}: {exc.strerror}") from None
    events, malformed = netwatch_parse(text)
    for line, reason in malformed:
        print(f"fray netwatch: {args.log}:{line}: skipped: {reason}", file=sys.stderr)
    for e in events:
        if args.json:
            print(json.dumps(e))
            continue
        detail = {
            "lanemask": lambda e: f"{e['side']} lanemask={e['lanemask']} with {e['peer']} "
            f"(degrade {e['degrade']})",
            "mode-exchange": lambda e: f"mode exchange with {e['peer']}",
            "error": lambda e: f"error: {e['message']}",
            "other": lambda e: f"{e['message']} ({e['peer']})",
        }[e["kind"]](e)
        print(f"{e['line']:>6}  {e['date']} {e['time']}  {e['tile']}  {detail}")
    return 0
