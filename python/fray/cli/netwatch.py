"""``fray netwatch parse LOG``: the events of a Cray netwatch log; ``fray netwatch cost LOG
--machine gemini:XxYxZ``: what its lane degrades cost a stencil job on a modelled machine."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fray import SpecError
from fray.cli import numbers

#: Cells per rank along each axis of the costed Halo3D26 job, and its iterations.
_CELLS = 30
_ITERATIONS = 1


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``netwatch`` sub-command."""
    p = sub.add_parser(
        "netwatch",
        help="read a Cray netwatch log (lane masks, mode exchanges, errors)",
        description="Print the events of a netwatch log, or what its lane degrades cost a "
        "Halo3D26 job on every node of a modelled Gemini machine; lines that cannot be read are "
        "reported on stderr with their line numbers and skipped.",
    )
    p.add_argument("action", choices=["parse", "cost"],
                   help="parse: print the events; cost: what the lane degrades cost a job")
    p.add_argument("log", metavar="LOG", help="the netwatch file")
    p.add_argument("--json", action="store_true", help="JSON output (one object per event)")
    p.add_argument("--machine", metavar="gemini:XxYxZ", help="the modelled machine (cost)")
    p.add_argument("--cells", type=numbers.U32,
                   help="cells per rank along each axis of the Halo3D26 job (cost, default "
                   f"{_CELLS})")
    p.add_argument("--iterations", type=numbers.U32,
                   help=f"iterations of the job (cost, default {_ITERATIONS})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prints the events; warns about skipped lines on stderr."""
    from fray.diag import netwatch_parse

    if args.action == "parse":
        given = [f"--{name}" for name in ("machine", "cells", "iterations")
                 if getattr(args, name) is not None]
        if given:
            raise SpecError(f"{', '.join(given)}: options of 'netwatch cost', not of 'parse'")

    try:
        text = Path(args.log).read_text(errors="replace")
    except OSError as exc:
        raise SpecError(f"netwatch log {args.log}: {exc.strerror}") from None
    events, malformed = netwatch_parse(text)
    for line, reason in malformed:
        print(f"fray netwatch: {args.log}:{line}: skipped: {reason}", file=sys.stderr)
    if args.action == "cost":
        return _cost(args, [e["degrade"] for e in events if "degrade" in e])
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


def _cost(args: argparse.Namespace, degrades: list[str]) -> int:
    from fray.diag import job_cost

    if not args.machine:
        raise SpecError("cost: give the machine with --machine gemini:XxYxZ")
    cells = _CELLS if args.cells is None else args.cells
    iterations = _ITERATIONS if args.iterations is None else args.iterations
    cost = job_cost(args.machine, degrades, cells, iterations)
    if args.json:
        print(json.dumps({"degrades": degrades, **cost}))
        return 0
    print(f"{len(degrades)} lane degrades; halo3d26 on every node of {args.machine}: "
          f"{cost['healthy_iteration_s'] * 1e3:.4f} ms per iteration healthy, "
          f"{cost['degraded_iteration_s'] * 1e3:.4f} ms degraded "
          f"({cost['slowdown']:+.2%})")
    return 0
