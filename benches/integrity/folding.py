"""What would folding a protocol header into the data message save on this MPI?

fray's zero-copy rendezvous sends a 32-byte request-to-send, then the chunks straight from the
user's buffer, then a trailer: two small MPI messages beyond plain MPI's one. The way to fold
them into the data without a copy is a derived datatype (header and user buffer as one
message, ``MPI_Type_create_hindexed``), received after a matched probe since the receiver does
not know the length. This ping-pongs, in interleaved rounds, each way of moving a header
and a payload:

* ``plain``: the payload alone (plain MPI);
* ``two``: a 32-byte header, then the payload (what the request-to-send costs);
* ``datatype``: header and payload as one message of a derived datatype;
* ``probe``: the same, received after ``MPI_Mprobe`` as a receiver that does not know the
  length must.

and reports each one-way time and plain's time over it (medians of per-round ratios).

    python benches/integrity/folding.py --network tcp --sizes 256KiB,1MiB,4MiB --out folding.json

Launches itself on 2 ranks pinned to cores (``mpiexec --bind-to core``).
"""

from __future__ import annotations

import statistics
import sys
import time

from mpi_launch import run_bench

HEADER_BYTES = 32


def measure(sizes: list[int], rounds: int) -> list[dict]:
    """Runs on both ranks; returns rank 0's rows (one per size and way)."""
    return [row for n in sizes for row in measure_size(n, rounds)]


def measure_size(n: int, rounds: int) -> list[dict]:
    """The rows of messages of ``n`` bytes, one per way."""
    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, peer = comm.rank, 1 - comm.rank
    rows = []
    data, into = np.ones(n, np.uint8), np.zeros(n, np.uint8)
    head, head_in = np.zeros(HEADER_BYTES, np.uint8), np.zeros(HEADER_BYTES, np.uint8)

    def joined(h: np.ndarray, d: np.ndarray) -> MPI.Datatype:
        t = MPI.BYTE.Create_hindexed([h.nbytes, d.nbytes],
                                     [MPI.Get_address(h), MPI.Get_address(d)])
        t.Commit()
        return t

    out_t, in_t = joined(head, data), joined(head_in, into)

    def send(way: str) -> None:
        if way == "plain":
            comm.Send(data, peer, 0)
        elif way == "two":
            comm.Send(head, peer, 1)
            comm.Send(data, peer, 0)
        else:
            comm.Send([MPI.BOTTOM, 1, out_t], peer, 0)

    def recv(way: str) -> None:
        if way == "plain":
            comm.Recv(into, peer, 0)
        elif way == "two":
            comm.Recv(head_in, peer, 1)
            comm.Recv(into, peer, 0)
        elif way == "datatype":
            comm.Recv([MPI.BOTTOM, 1, in_t], peer, 0)
        else:
            comm.Mprobe(peer, 0).Recv([MPI.BOTTOM, 1, in_t])

    reps = max(4, (8 << 20) // n)
    ways = ("plain", "two", "datatype", "probe")

    def one_way(way: str) -> float:
        comm.Barrier()
        t = time.perf_counter()
        for _ in range(reps):
            if rank == 0:
                send(way)
                recv(way)
            else:
                recv(way)
                send(way)
        return (time.perf_counter() - t) / reps / 2

    for way in ways:
        one_way(way)  # warm-up
    times: dict[str, list[float]] = {w: [] for w in ways}
    for _ in range(rounds):
        for way in ways:
            times[way].append(one_way(way))
    for way in ways:
        ratios = [p / t for p, t in zip(times["plain"], times[way])]
        rows.append({"size_bytes": n, "way": way,
                     "one_way_s": statistics.median(times[way]),
                     "plain_over_this": statistics.median(ratios)})
    out_t.Free()
    in_t.Free()
    return rows


def show(rows: list[dict]) -> None:
    """Prints the rows as a table."""
    print(f"{'size':>10} {'way':>9} {'one-way':>10} {'plain/this':>10}")
    for w in rows:
        print(f"{w['size_bytes']:>10} {w['way']:>9} {w['one_way_s'] * 1e6:>8.0f}us"
              f" {w['plain_over_this']:>10.3f}")


def main() -> int:
    return run_bench(__file__, __doc__, "256KiB,1MiB,4MiB", measure, show)


if __name__ == "__main__":
    sys.exit(main())
