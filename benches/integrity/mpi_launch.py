"""Runs a benchmark script on 2 MPI ranks pinned to cores and reads rank 0's JSON rows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

CHILD = "FRAY_BENCH_CHILD"


def is_child() -> bool:
    """True inside the ranks that :func:`launch` started."""
    return bool(os.environ.get(CHILD))


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
