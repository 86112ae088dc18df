"""TopoBW on a real MPI: run it under ``mpiexec -n N fray topobw --layout LAYOUT``.

The phases (who sends to whom) come from :class:`fray.diag.TopoBwPlan`. In each phase every
receiver pre-posts its receives, all ranks meet at a barrier, the senders post all their
messages at once, and each receiver times from the barrier to its last message. Rank 0
gathers the times and writes the paper's report.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fray import SpecError
from fray._fray import TopoBwPlan


def load_plan(layout: str, ranks: int, sharing: str = "both") -> TopoBwPlan:
    """The plan of a run of ``ranks`` ranks on ``layout`` (``builtin:XxYxZ`` or a file)."""
    text = None
    if not layout.startswith("builtin:"):
        try:
            text = Path(layout).read_text()
        except OSError as exc:
            raise SpecError(f"layout {layout}: {exc.strerror}") from None
    return TopoBwPlan(layout, ranks, text, sharing)


def run_topobw(plan: TopoBwPlan, size_bytes: int, count: int, iterations: int = 1,
               comm=None) -> str | None:
    """Runs the phases of ``plan`` with ``count`` messages of ``size_bytes`` per transfer,
    ``iterations`` times (times are averaged); returns the report on rank 0, ``None`` on
    the others. Each receiving rank holds ``count x size_bytes`` of receive buffers."""
    from mpi4py import MPI

    comm = comm or MPI.COMM_WORLD
    rank = comm.Get_rank()
    send = np.ones(size_bytes, dtype=np.uint8)
    recv = np.empty((count, size_bytes), dtype=np.uint8)
    mine: dict[int, float] = {}
    first = 0
    for phase in plan.phases:
        sources = [(first + i, s) for i, (s, d) in enumerate(phase) if d == rank]
        dests = [d for s, d in phase if s == rank]
        for _ in range(iterations):
            requests = [comm.Irecv(recv[k], source=s, tag=k)
                        for _, s in sources for k in range(count)]
            comm.Barrier()
            start = MPI.Wtime()
            requests += [comm.Isend(send, dest=d, tag=k) for d in dests for k in range(count)]
            MPI.Request.Waitall(requests)
            elapsed = MPI.Wtime() - start
            for i, _ in sources:
                mine[i] = mine.get(i, 0.0) + elapsed / iterations
        first += len(phase)
    everything = comm.gather(mine, root=0)
    if rank != 0:
        return None
    seconds = [0.0] * plan.num_transfers
    for part in everything:
        for i, s in part.items():
            seconds[i] = s
    return plan.report(seconds, float(size_bytes * count))
