"""``fray spares``: spare-node allocation and sliding substitution study."""

from __future__ import annotations

import argparse
import sys

from fray import SpecError, report, spares, store
from fray.cli import numbers
from fray.outputs import FIGURES, TABLES

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"out": TABLES, "plot": FIGURES}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``spares`` sub-command."""
    p = sub.add_parser(
        "spares",
        help="spare-node allocation and sliding substitution study",
        description="Fail nodes of a stencil job, substitute spares, count message collisions.",
    )
    p.add_argument("--fabric", required=True, help="mesh or torus, e.g. mesh:8x8, torus:12x12x12")
    p.add_argument("--alloc", required=True, help='spare allocation qD(r,s), e.g. "3D(2,1)"')
    p.add_argument(
        "--method",
        required=True,
        help='0D, 1D, ..., "hybrid(2D+1D+0D)", "hybrid(all)", "hybrid(-2D)"',
    )
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--samples", type=numbers.U32, help="number of random failure sequences")
    mode.add_argument("--exhaustive", action="store_true", help="enumerate every failure set")
    p.add_argument(
        "--max-failures", type=numbers.U32,
        help="largest number of failures, at most the spares and the ranks (with --samples, "
        "default: all spares, or all ranks where fewer; required with --exhaustive)"
    )
    p.add_argument("--seed", type=numbers.SEED,
                   help="with --samples: seed of the random sequences (default 0)")
    p.add_argument("--stencil", help="5P, 9P, 7P or 27P (default: 5P in 2D, 7P in 3D)")
    periodic = p.add_mutually_exclusive_group()
    periodic.add_argument(
        "--periodic",
        dest="periodic",
        action="store_true",
        default=None,
        help="periodic stencil (default on a torus)",
    )
    periodic.add_argument(
        "--no-periodic",
        dest="periodic",
        action="store_false",
        help="non-periodic stencil (default on a mesh)",
    )
    p.add_argument("--out", help="result table, .csv or .parquet")
    p.add_argument("--plot", help="figure of the curves, .png, .pdf or .svg")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Runs the study the arguments describe, writes the table and figure, prints a summary."""
    if args.exhaustive and args.max_failures is None:
        raise SpecError("--max-failures is required with --exhaustive (every set of up to "
                        "that many failures is enumerated)")
    if args.exhaustive and args.seed is not None:
        raise SpecError("--seed draws the failures of --samples; --exhaustive draws none: "
                        "drop --seed")
    seed = {} if args.seed is None else {"seed": args.seed}
    table = spares.study(
        args.fabric,
        args.alloc,
        args.method,
        samples=args.samples,
        exhaustive=args.exhaustive,
        max_failures=args.max_failures,
        **seed,
        stencil=args.stencil,
        periodic=args.periodic,
        progress=not args.quiet and sys.stderr.isatty(),
    )
    if args.out:
        store.write_table(table, args.out)
    if args.plot:
        report.plot_spare_curves(table, args.plot)
    _print_summary(table)
    return 0


def _print_summary(table) -> None:
    a = table.attrs
    print(
        f"{a['method']} on {a['fabric']} with {a['alloc']}: {a['num_ranks']} ranks, "
        f"{a['num_spares']} spares, {a['mode']}"
    )
    shown = (
        table
        if len(table) <= 12
        else table.iloc[
            sorted(
                {0, 1, 2, 3, len(table) // 4, len(table) // 2, 3 * len(table) // 4, len(table) - 1}
            )
        ]
    )
    cols = ["failures", "cases", "unrecoverable", "best", "mean", "worst"]
    cols += [c for c in table.columns if c.startswith("rate_")]
    print(shown[cols].to_string(index=False, float_format=lambda v: f"{v:.3g}"))
