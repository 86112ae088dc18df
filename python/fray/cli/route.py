"""``fray route``: the path one message takes, channel by channel."""

from __future__ import annotations

import argparse

from fray import Faults, SpecError, UnroutableError
from fray.cli import numbers
from fray.fabrics import FILE_FORMATS, open_fabric


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``route`` sub-command."""
    p = sub.add_parser(
        "route",
        help="the path of one message, channel by channel",
        description="Route one message between two endpoints and print its channels, or the "
        "unroutable pair (exit status 1).",
    )
    p.add_argument("fabric", metavar="SPEC_OR_FILE", help="a fabric spec or fabric file")
    p.add_argument("--format", choices=FILE_FORMATS, help="file format (default: by extension)")
    p.add_argument("--routing", help="routing name (default: the fabric's own)")
    p.add_argument("--from", dest="src", required=True, help="source endpoint, number or name")
    p.add_argument("--to", dest="dst", required=True, help="destination endpoint, number or name")
    p.add_argument(
        "--fail",
        action="append",
        default=[],
        metavar="CLASS:PCT%",
        help="fail a share of a class's cables, e.g. global:10%% or router:5%% (repeatable)",
    )
    p.add_argument(
        "--fail-file",
        metavar="FILE",
        action=numbers.Once,
        help="fail the cables listed in FILE, one FROM->TO per line (FROM->TO[k]: the k-th of "
        "parallel cables; # starts a comment)",
    )
    p.add_argument("--seed", type=numbers.SEED, default=1, help="seed of the failures and of random choices")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prints the route, or the unroutable pair and why (exit status 1)."""
    fabric = open_fabric(args.fabric, args.format)
    faults = Faults(fabric)
    for spec in args.fail:
        faults.fail_spec(spec, args.seed)
    if args.fail_file:
        faults.fail_file(args.fail_file)
    routing = args.routing or fabric.default_routing
    src, dst = _part(args.src, "--from", fabric), _part(args.dst, "--to", fabric)
    try:
        path = fabric.route(src, dst, routing, faults, args.seed)
    except UnroutableError as exc:
        print(f"unroutable ({routing}): {exc}")
        return 1
    hops = sum(1 for c in path if not fabric.channel(c)["host"])
    print(f"{fabric.endpoint_name(src)} -> {fabric.endpoint_name(dst)}: "
          f"{len(path)} channels, {hops} between routers ({routing})")
    for i, c in enumerate(path):
        ch = fabric.channel(c)
        print(f"{i:>3}  {ch['name']:<40} {ch['cls']:<8} {ch['bandwidth_bytes_s'] / 1e9:.3g} GB/s"
              f"  channel {c}")
    return 0


def _part(text: str, option: str, fabric) -> int | str:
    """An endpoint given by number (checked against the fabric) or by name."""
    if not text.isdigit():
        return text
    number = int(text)
    if number >= fabric.num_endpoints:
        raise SpecError(f"{option}: endpoint {number} does not exist (the fabric has "
                        f"{fabric.num_endpoints}, numbered from 0)")
    return number
