"""``fray export``: the study tables of a results file as Parquet or CSV."""

from __future__ import annotations

import argparse

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"out": None}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``export`` sub-command."""
    p = sub.add_parser(
        "export",
        help="write the studies of a results file as Parquet or CSV",
        description="Per study, write <study>.<format> (its rows as stored) and "
        "<study>_curve.<format> (merged over tasks) into the output folder.",
    )
    p.add_argument("db", metavar="RESULTS.duckdb", help="results file written by fray run")
    p.add_argument("--format", default="parquet", choices=("parquet", "csv"),
                   help="file format (default parquet)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--study", action="append", help="only this study (repeatable)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Writes the files and lists them."""
    from fray.campaign import export

    for path in export(args.db, args.out, args.format, args.study):
        print(path)
    return 0
