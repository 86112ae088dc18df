"""``fray report``: figures, an HTML page and summary tables of a results file."""

from __future__ import annotations

import argparse

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"out": None}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``report`` sub-command."""
    p = sub.add_parser(
        "report",
        help="draw the standard figures of every study in a results file",
        description="Draw each study's standard figure (PNG), write one self-contained HTML "
        "page (report.html, figures embedded) and print a summary table per study.",
    )
    p.add_argument("db", metavar="RESULTS.duckdb", help="results file written by fray run")
    p.add_argument("--out", help="output folder (default: <results>_report beside the file)")
    p.add_argument("--study", action="append", help="only this study (repeatable)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Writes the report and prints its summary."""
    from fray.campaign import write_report

    report = write_report(args.db, args.out, args.study)
    print(report.text())
    return 0
