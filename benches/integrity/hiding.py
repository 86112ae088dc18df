"""Can CPU work hide behind a plain MPI transfer on this path?

The paper's pipelines assume the network moves the data while the CPU checksums. This measures
whether that holds: two ranks ping-pong plain MPI messages, and in half of the rounds each rank
checksums a buffer of the message's size (fray's tuned fletcher64) while its receive is in
flight (``Irecv``, checksum, ``Wait``). If the network moved the data on its own, the checksum
would add nothing; if the data moves on the ranks' own cores (TCP over loopback: the kernel
copies on them), it adds its whole time. Rounds alternate, and the report keeps medians.

    python benches/integrity/hiding.py --network tcp --sizes 1MiB,4MiB,16MiB --out hiding.json

Launches itself on 2 ranks pinned to cores (``mpiexec --bind-to core``).
"""

from __future__ import annotations

import statistics
import sys
import time

from mpi_launch import run_bench


def measure(sizes: list[int], rounds: int) -> list[dict]:
    """Runs on both ranks; returns rank 0's rows (one per size)."""
    import numpy as np
    from fray.integrity import checksum
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, peer = comm.rank, 1 - comm.rank
    rows = []
    for n in sizes:
        a, b, other = (np.ones(n, np.uint8), np.zeros(n, np.uint8), np.ones(n, np.uint8))
        reps = max(2, (20 << 20) // n)
        t0 = time.perf_counter()
        for _ in range(20):
            checksum(other, "fletcher64")
        csum_s = (time.perf_counter() - t0) / 20

        def one_way(work: bool, a=a, b=b, other=other, reps=reps) -> float:
            comm.Barrier()
            t = MPI.Wtime()
            for _ in range(reps):
                if rank == 0:
                    comm.Send(a, dest=peer)
                r = comm.Irecv(b, source=peer)
                if work:
                    checksum(other, "fletcher64")
                r.Wait()
                if rank == 1:
                    comm.Send(a, dest=peer)
            return (MPI.Wtime() - t) / reps / 2

        one_way(False), one_way(True)  # warm-up
        plain, busy = [], []
        for _ in range(rounds):
            plain.append(one_way(False))
            busy.append(one_way(True))
        p, q = statistics.median(plain), statistics.median(busy)
        rows.append({"size_bytes": n, "one_way_s": p, "with_checksum_s": q,
                     "checksum_s": csum_s, "shown_share": (q - p) / csum_s,
                     "bandwidth_ratio": p / q})
    return rows


def show(rows: list[dict]) -> None:
    """Prints the rows as a table."""
    print(f"{'size':>10} {'one-way':>10} {'checksum':>9} {'with it':>10} {'shown':>6} {'ratio':>6}")
    for w in rows:
        print(f"{w['size_bytes']:>10} {w['one_way_s'] * 1e6:>8.0f}us {w['checksum_s'] * 1e6:>7.0f}us"
              f" {w['with_checksum_s'] * 1e6:>8.0f}us {w['shown_share']:>6.2f}"
              f" {w['bandwidth_ratio']:>6.3f}")


def main() -> int:
    return run_bench(__file__, __doc__, "1MiB,4MiB,16MiB", measure, show)


if __name__ == "__main__":
    sys.exit(main())
