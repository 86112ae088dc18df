"""``fray topobw``: the nearest-neighbour bandwidth test on a real MPI
(``mpiexec -n N fray topobw --layout LAYOUT``), on a modelled Gemini machine
(``--simulate gemini:XxYxZ``) or on the hosts of a fabric read from a file
(``--simulate-file FILE``), and localisation of slow parts from a report
(``fray topobw locate REPORT``) with its precision and recall (``fray topobw study``), and
cables below their peers on a fabric read from a file (``fray topobw peers FILE``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from fray import FrayError, SpecError, outputs
from fray.cli import numbers
from fray.fabrics import FILE_FORMATS, open_fabric
from fray.outputs import REPORTS
from fray.units import parse_bytes

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"report": REPORTS}


#: The localisation study's options and their defaults (`topobw study` only).
_STUDY = {"cases": 100, "faults": 2, "noise": 0.0, "seed": 1}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``topobw`` sub-command."""
    p = sub.add_parser(
        "topobw",
        help="nearest-neighbour bandwidth test (real MPI or modelled) and localisation",
        description="Without ACTION: run TopoBW under mpiexec with --layout, on a modelled "
        "machine with --simulate, or on the hosts of a fabric file with --simulate-file (the "
        "hosts of each switch paired in rounds). 'locate REPORT' names the suspected parts of "
        "a report (with --fabric for a --simulate-file report); "
        "'study' measures localisation on modelled machines with injected faults; 'peers FILE' "
        "names the cables of a fabric file that run below their peers' width or speed.",
    )
    p.add_argument("action", nargs="?", choices=["locate", "study", "peers"], help="what to do")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="report file (locate) or fabric file (peers)")
    p.add_argument("--layout", help="builtin:XxYxZ or a layout file (real MPI)")
    p.add_argument("--simulate", metavar="gemini:XxYxZ",
                   help="run on a modelled machine; locate: the machine a Gemini report was "
                   "measured on (every node it names must be on it)")
    p.add_argument("--simulate-file", metavar="FILE",
                   help="run on the hosts of a fabric file (ibnetdiscover, json) on the flow "
                   "engine")
    p.add_argument("--fabric", metavar="FILE",
                   help="locate: the fabric file a --simulate-file report ran on")
    p.add_argument("--format", choices=FILE_FORMATS,
                   help="format of --simulate-file/--fabric (default: by extension)")
    p.add_argument("--degrade", action="append", default=[], metavar="TILE:MASK",
                   help="lane mask of a tile (c0-0c0s1g0l27:3), gemini:NAME or node:NAME for a "
                   "slow part; repeatable, or comma-separated")
    p.add_argument("--log", metavar="NETWATCH_FILE", help="take lane degrades from a netwatch log")
    p.add_argument("--size", default="4MiB", help="size of each message (default 4MiB)")
    p.add_argument("--count", type=numbers.U32, default=16, help="messages per transfer (default 16)")
    p.add_argument("--iterations", type=numbers.U32, default=1,
                   help="runs of each phase (real MPI; default 1)")
    p.add_argument("--sharing", default="both", choices=["exclusive", "shared", "both"],
                   help="partner nodes send alone, together, or both in turn (default both)")
    p.add_argument("--report", metavar="FILE",
                   help="write the report here (default: stdout)")
    p.add_argument("--json", action="store_true", help="JSON output (locate, study)")
    p.add_argument("--cases", type=numbers.U32,
                   help=f"cases of the study (default {_STUDY['cases']})")
    p.add_argument("--faults", type=numbers.U32,
                   help=f"faults per case of the study (default {_STUDY['faults']})")
    p.add_argument("--noise", type=numbers.real(0),
                   help="relative measurement noise of the study (log-normal), e.g. 0.01 "
                   f"(default {_STUDY['noise']})")
    p.add_argument("--seed", type=numbers.SEED,
                   help=f"seed of the study (default {_STUDY['seed']})")
    p.set_defaults(func=run)


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"{what} {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"{what} {path}: not UTF-8 text (byte {exc.start} cannot be read)") \
            from None


def _degrades(args: argparse.Namespace) -> list[str]:
    from fray.diag import netwatch_parse

    out = [d.strip() for given in args.degrade for d in given.split(",") if d.strip()]
    if args.log:
        events, malformed = netwatch_parse(_read(args.log, "netwatch log"))
        for line, reason in malformed:
            print(f"fray topobw: {args.log}:{line}: skipped: {reason}", file=sys.stderr)
        out += [e["degrade"] for e in events if "degrade" in e]
    return out


def _emit(text: str, path: str | None) -> None:
    if path:
        outputs.write_text(path, text)
    else:
        sys.stdout.write(text)


def run(args: argparse.Namespace) -> int:
    """Dispatches to the real run, the modelled run, locate or study."""
    if args.action != "study":
        given = [f"--{key}" for key in _STUDY if getattr(args, key) is not None]
        if given:
            raise SpecError(f"{', '.join(given)}: options of 'topobw study' only")
    if args.action == "locate":
        return _locate(args)
    if args.action == "study":
        return _study(args)
    if args.action == "peers":
        return _peers(args)
    if sum(map(bool, (args.layout, args.simulate, args.simulate_file))) != 1:
        raise SpecError("give --layout (real MPI, under mpiexec), --simulate gemini:XxYxZ or "
                        "--simulate-file FILE")
    size = parse_bytes(args.size, "size")
    count = args.count
    if args.simulate_file:
        from fray.diag import topobw_simulate_hosts

        fabric = open_fabric(args.simulate_file, args.format)
        _emit(topobw_simulate_hosts(fabric, float(size), count), args.report)
        return 0
    if args.simulate:
        from fray.diag import topobw_simulate

        _emit(topobw_simulate(args.simulate, _degrades(args), float(size), count,
                              args.sharing), args.report)
        return 0
    return _real(args, size, count)


def _real(args: argparse.Namespace, size: int, count: int) -> int:
    from mpi4py import MPI

    from fray.diag.topobw import load_plan, run_topobw

    comm = MPI.COMM_WORLD
    try:
        plan = load_plan(args.layout, comm.Get_size(), args.sharing)
    except FrayError:
        if comm.Get_rank() == 0:
            raise
        return 2
    report = run_topobw(plan, size, count, args.iterations, comm)
    if report is not None:
        _emit(report, args.report)
    return 0


def _locate(args: argparse.Namespace) -> int:
    from fray.diag import topobw_locate

    if not args.file:
        raise SpecError("locate: give the report file")
    fabric = open_fabric(args.fabric, args.format) if args.fabric else None
    suspects = topobw_locate(args.file, _read(args.file, "report"), fabric, args.simulate)

    def line(s: dict) -> str:
        where = f" {s['direction']}" if s["direction"] else ""
        return (f"{s['kind']:<7} {s['name']}{where}: {s['slowdown']:.0%} slower "
                f"({s['slow_transfers']} of {s['transfers']} transfers slow)")

    return _print_rows(suspects, args.json,
                       "no suspect: every transfer is within the spread of its kind", line)


def _study(args: argparse.Namespace) -> int:
    from fray.diag import localisation_study

    if not args.simulate:
        raise SpecError("study: give the machine with --simulate gemini:XxYxZ")
    study = {key: default if getattr(args, key) is None else getattr(args, key)
             for key, default in _STUDY.items()}
    result = localisation_study(args.simulate, study["cases"], study["faults"], study["noise"],
                                study["seed"], float(parse_bytes(args.size, "size")),
                                args.count)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{'part':<8}{'injected':>9}{'suspects':>9}{'hits':>6}{'precision':>10}{'recall':>8}")
    for kind in ("total", "link", "gemini", "node"):
        r = result[kind]
        print(f"{kind:<8}{r['injected']:>9}{r['suspects']:>9}{r['hits']:>6}"
              f"{r['precision']:>10.3f}{r['recall']:>8.3f}")
    return 0


def _peers(args: argparse.Namespace) -> int:
    from fray.diag import slow_links

    if not args.file:
        raise SpecError("peers: give the fabric file")
    links = slow_links(open_fabric(args.file, args.format))

    def line(s: dict) -> str:
        return (f"{s['name']} ({s['cls']}): {s['lanes']} lanes x {s['lane_bits_s'] / 1e9:g} "
                f"Gb/s, peers {s['peer_lanes']} x {s['peer_lane_bits_s'] / 1e9:g} Gb/s "
                f"({s['peers']} peers)")

    return _print_rows(links, args.json, "every cable runs at the width and speed of its peers",
                       line)


def _print_rows(rows: list[dict], as_json: bool, empty: str, line: Callable[[dict], str]) -> int:
    """Prints ``rows``: one JSON object a line with ``as_json``, else ``line(row)`` a line, or
    ``empty`` when there is none. Returns the exit status, 0."""
    if as_json:
        for row in rows:
            print(json.dumps(row))
        return 0
    if not rows:
        print(empty)
    for row in rows:
        print(line(row))
    return 0
