"""The driver of the MPI benchmarks: the same command line for each, run on 2 MPI ranks pinned
to cores, rank 0's rows printed and written as JSON."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable

from fray.units import parse_size_list

CHILD = "FRAY_BENCH_CHILD"


def launch(script: str, argv: list[str]) -> list[dict] | None:
    """Runs ``script argv`` under ``mpiexec --bind-to core -n 2``; returns the JSON list rank 0
    printed last, or None (after saying why on stderr) when the run failed."""
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        print(f"{script}: mpiexec not found (pip install mpich mpi4py)", file=sys.stderr)
        return None
    r = subprocess.run([mpiexec, "--bind-to", "core", "-n", "2", sys.executable, script, *argv],
                       env={**os.environ, CHILD: "1"}, capture_output=True, text=True,
                       check=False)
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_bench(script: str, doc: str, default_sizes: str,
              measure: Callable[[list[int], int], list[dict]],
              show: Callable[[list[dict]], None]) -> int:
    """The whole benchmark ``script``: reads ``--sizes --rounds --network --out``; outside MPI,
    relaunches itself on 2 pinned ranks, shows the rows and writes them to ``--out``; inside,
    forces the network, calls ``measure(sizes, rounds)`` on both ranks and prints rank 0's
    rows as JSON. Returns the exit status."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--sizes", default=default_sizes)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--network", default=None, help="force MPI onto this network (tcp)")
    ap.add_argument("--out", default=None, help="JSON file for the rows")
    args = ap.parse_args()
    sizes = parse_size_list(args.sizes)
    if os.environ.get(CHILD):
        if args.network:
            from fray.cli.integrity import force_network

            force_network(args.network)
        rows = measure(sizes, args.rounds)
        from mpi4py import MPI

        if MPI.COMM_WORLD.rank == 0:
            print(json.dumps(rows))
        return 0
    rows = launch(script, sys.argv[1:])
    if rows is None:
        return 1
    show(rows)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"network": args.network, "rows": rows}, f, indent=1)
    return 0
