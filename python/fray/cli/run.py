"""``fray run``: runs a campaign scenario (a TOML file) locally or on a Dask cluster."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from fray.campaign.limits import MAX_WORKERS_PER_CORE, max_workers


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``run`` sub-command."""
    p = sub.add_parser(
        "run",
        help="run a study described by a scenario file (sweeps, replications, Dask)",
        description="Run the tasks of a scenario file that the results file does not hold yet, "
        "on every local core (a Dask LocalCluster) or on an existing Dask cluster, and write "
        "each task's rows as it finishes. Run it again after an interruption to resume.",
    )
    p.add_argument("scenario", metavar="STUDY.toml", help="the scenario file")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int,
                       help="local worker processes, from 1 to "
                       f"{MAX_WORKERS_PER_CORE} per core ({max_workers()} here; default: one "
                       "per core)")
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help="run on the Dask cluster of this scheduler")
    p.add_argument("--db", default="results.duckdb",
                   help="results file, a DuckDB database; the run's log goes beside it as "
                   "RESULTS.log (default results.duckdb)")
    p.add_argument("--replace", action="store_true",
                   help="drop the results of an older version of this study from the file")
    p.add_argument("--dry-run", action="store_true",
                   help="check the scenario and print its points and tasks; run nothing")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Checks the scenario, then runs it (or prints its plan with ``--dry-run``)."""
    from fray.campaign import load_scenario, make_plan, run_campaign
    from fray.campaign.runner import check_db, check_target, log_path

    if not args.dry_run:
        check_target(args.workers, args.scheduler)
        check_db(args.db, "--db")
    scenario = load_scenario(args.scenario)
    if args.dry_run:
        _print_plan(make_plan(scenario))
        return 0
    try:
        result = run_campaign(scenario, args.db, workers=args.workers, scheduler=args.scheduler,
                              replace=args.replace, progress="none" if args.quiet else "auto")
    except KeyboardInterrupt:
        print(f"fray run: interrupted; finished tasks are saved in {args.db}, run the same "
              f"command again to resume (details in {log_path(args.db)})", file=sys.stderr)
        return 130
    print(f"{result.name}: {result.tasks} tasks, {result.ran} run now, {result.skipped} "
          f"already in {result.db} ({result.wall_s:.1f} s). Report: fray report {result.db}")
    return 0


def _print_plan(plan) -> None:
    s = plan.scenario
    per_point = Counter(t.point for t in plan.tasks)
    print(f"{s.name} ({s.kind}, scenario hash {s.hash}): {len(plan.points)} point(s) x "
          f"{s.replications} replication(s), {len(plan.tasks)} tasks")
    for p in plan.points:
        print(f"  point {p.index}: {p.label or '(no sweep)'}: {per_point[p.index]} tasks")
