"""``fray fabric info``: what a fabric holds, by class."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fray.fabrics import FILE_FORMATS, describe, open_fabric


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``fabric`` sub-command and its ``info`` action."""
    p = sub.add_parser("fabric", help="inspect a fabric", description="Inspect a fabric.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    info = actions.add_parser(
        "info",
        help="routers, endpoints and cables per class",
        description="Print routers (switches), endpoints and cables per class with their "
        "lanes and bandwidth.",
    )
    info.add_argument(
        "fabric",
        metavar="SPEC_OR_FILE",
        help='a spec (torus:8x8x8, "dragonfly:p=4,a=8,h=4,g=9", hyperx:8x8,t=4, '
        '"xgft:3;4,4,2;1,4,2") or a fabric file',
    )
    info.add_argument("--format", choices=FILE_FORMATS, help="file format (default: told by the file's text)")
    info.add_argument("--json", action="store_true", help="print one JSON object")
    info.set_defaults(func=run_info)


def run_info(args: argparse.Namespace) -> int:
    """Prints the description of the fabric the arguments name."""
    fabric = open_fabric(args.fabric, args.format)
    d = describe(fabric)
    if args.json:
        print(json.dumps(d, indent=2))
        return 0
    noun = "switches" if args.format or Path(args.fabric).is_file() else "routers"
    print(f"{noun:<10} {d['routers']}")
    print(f"{'endpoints':<10} {d['endpoints']}")
    print(f"{'channels':<10} {d['channels']} ({d['router_channels']} between {noun})")
    print(f"{'routing':<10} {d['default_routing']} (default)")
    print()
    print(f"{'class':<10} {'cables':>8} {'lanes':>6} {'GB/s':>9} {'latency':>9}")
    for g in d["classes"]:
        print(
            f"{g['cls']:<10} {g['cables']:>8} {g['lanes']:>6} "
            f"{g['bandwidth_bytes_s'] / 1e9:>9.3g} {g['latency_s'] * 1e9:>7.4g}ns"
        )
    return 0

