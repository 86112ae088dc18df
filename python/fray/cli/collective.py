"""``fray collective``: fabric-based allreduce under soft errors, spatial vs temporal
replication."""

from __future__ import annotations

import argparse

from fray import _fray, packet, report, store
from fray.cli import numbers
from fray.outputs import FIGURES, TABLES

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"out": TABLES, "plot": FIGURES}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``collective`` sub-command."""
    p = sub.add_parser(
        "collective",
        help="fabric-based allreduce under soft errors",
        description="Times back-to-back fabric-based allreduces on an XGFT fat tree with "
        "spatial or temporal replication of their packets under soft errors.",
    )
    p.add_argument("--fabric", required=True, help='an XGFT, e.g. "xgft:3;24,12,6;1,12,6"')
    p.add_argument(
        "--replication",
        default="temporal:2",
        help="none, spatial:K or temporal:K; several separated by commas (default temporal:2)",
    )
    p.add_argument(
        "--errors",
        default="none",
        help="none, every-link-once, exp:MEAN (e.g. exp:100us), ber:RATE, channels:NAME,NAME; "
        "several separated by ';' (default none)",
    )
    p.add_argument("--ops", type=numbers.whole(1, _fray.MAX_COLLECTIVE_OPS), default=1000,
                   help=f"operations per case, at most {_fray.MAX_COLLECTIVE_OPS:,} (each one's "
                   "time is kept; default 1000)")
    p.add_argument("--seed", type=numbers.SEED, default=1, help="seed of the error processes (default 1)")
    p.add_argument(
        "--link-bandwidth",
        default=packet.PAPER_BANDWIDTH,
        help=f"data rate of every link (default {packet.PAPER_BANDWIDTH}: 4X SDR)",
    )
    p.add_argument(
        "--link-latency",
        default=packet.PAPER_LATENCY,
        help=f"delay of every switch and HCA (default {packet.PAPER_LATENCY})",
    )
    p.add_argument(
        "--nak",
        default="0ns",
        help="detection and NAK time of a link-level retry on top of the wire's latency back "
        "(default 0ns)",
    )
    p.add_argument("--out", help="result table, .csv or .parquet")
    p.add_argument("--plot", help="figure of the operation times, .png, .pdf or .svg")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Runs every (replication, errors) case, writes the table and figure, prints the table."""
    replications = numbers.items(args.replication, "--replication", "replication")
    errors = numbers.items(args.errors, "--errors", "error process", ";")
    table, times = packet.collective(
        args.fabric,
        replications,
        errors,
        ops=args.ops,
        seed=args.seed,
        link_bandwidth=args.link_bandwidth,
        link_latency=args.link_latency,
        nak=args.nak,
    )
    if args.out:
        store.write_table(table, args.out)
    if args.plot:
        report.plot_collective_times(table, times, args.plot)
    cols = ["replication", "copies", "errors", "ops", "mean_s", "p50_s", "p99_s"]
    print(table[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0
