"""``fray traffic``: accepted throughput and latency against offered load."""

from __future__ import annotations

import argparse

from fray import SpecError, packet, store, units
from fray.cli import numbers
from fray.outputs import TABLES

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"out": TABLES}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``traffic`` sub-command."""
    p = sub.add_parser(
        "traffic",
        help="synthetic traffic: throughput and latency against load",
        description="Open-loop synthetic traffic on the packet engine, one row per load.",
    )
    p.add_argument("--fabric", required=True, help="e.g. torus:8x8x8, dragonfly:p=4,a=8,h=4,g=33")
    p.add_argument("--pattern", default="uniform", help="traffic pattern (uniform)")
    p.add_argument(
        "--load",
        required=True,
        help="offered loads, fractions of the injection bandwidth, e.g. 0.1,0.2,0.3",
    )
    p.add_argument(
        "--engine",
        default="packet",
        help="the packet engine and its options, e.g. packet:mtu=2KiB,buffer=32KiB,vcs=3 "
        "(default: packet, at its defaults; virtual channels are raised to as many as the "
        "routing needs to stay free of deadlock)",
    )
    p.add_argument("--routing", help="routing name (default: the fabric's own)")
    p.add_argument("--warmup", default="20us", help="simulated warm-up (default 20us)")
    p.add_argument("--measure", default="50us", help="simulated measured time (default 50us)")
    p.add_argument("--seed", type=numbers.SEED, default=1, help="seed (default 1)")
    p.add_argument("--out", help="result table, .csv or .parquet")
    p.set_defaults(func=run)


def _loads(text: str) -> list[float]:
    try:
        loads = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SpecError(f"load: expected fractions separated by commas, got {text!r}") from None
    if not loads or any(not 0 < x for x in loads):
        raise SpecError(f"load: expected positive fractions, got {text!r}")
    return numbers.distinct(loads, "load")


def run(args: argparse.Namespace) -> int:
    """Runs each load and writes the table."""
    if args.pattern != "uniform":
        raise SpecError(f"pattern: only uniform is known, got {args.pattern!r}")
    table = packet.traffic(
        args.fabric,
        _loads(args.load),
        routing=args.routing,
        engine=args.engine,
        warmup_s=units.parse_seconds(args.warmup, "warmup"),
        measure_s=units.parse_seconds(args.measure, "measure"),
        seed=args.seed,
    )
    table.insert(0, "offered_load", table.pop("load"))
    if args.out:
        store.write_table(table, args.out)
    cols = ["offered_load", "offered", "accepted", "latency_mean_s", "packets", "wall_s"]
    print(table[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0
