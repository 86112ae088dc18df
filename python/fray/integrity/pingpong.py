"""NetPIPE-style ping-pong between ranks 0 and 1, with no checksum, the naive approach, and
the checked transport, measured in the same run.

Run with ``mpiexec -n 2 fray integrity pingpong``. Rank 0 times ``reps`` round trips with
``MPI.Wtime`` and reports the one-way time (half a round trip); each (size, mode) is measured
``trials`` times, interleaved, and the median is kept. Pin each rank to a core
(``mpiexec --bind-to core``): unpinned ranks that busy-poll move between cores and their
timings vary by 2x from run to run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
from mpi4py import MPI

from fray import SpecError
from fray.integrity.transport import CheckedComm, NaiveComm, PlainComm, agreed_tuned_algorithm

MODES = ("none", "naive", "unchecked", "auto")


def _reps(size: int, target_bytes: int) -> int:
    return int(min(1000, max(3, target_bytes // max(size, 1))))


def pingpong(sizes_bytes: Sequence[int], modes: Sequence[str] = ("auto",), *,
             ber: float = 0.0, seed: int = 1, trials: int = 3,
             target_bytes: int = 32 * 1024 * 1024, naive_algorithm: str | None = None,
             max_retries: int = 16, path: str = "auto", alloc: bool = True,
             comm: MPI.Comm | None = None) -> list[dict]:
    """Runs the ping-pong; returns rows on rank 0 (an empty list elsewhere).

    Modes: ``none`` (plain MPI), ``naive`` (checksum, send, checksum, with the same algorithm
    as ``auto``), ``unchecked`` (fray's transport with the checksum switched off: what the
    checksums cost inside it), ``auto`` (checked transport with the tuned algorithm) or an
    algorithm name (checked transport with that algorithm). ``path`` picks the checked
    transport's path (``auto``, ``shared-memory`` or ``mpi``). With ``alloc`` fray's transports
    send from buffers of ``CheckedComm.alloc`` (one copy on the shared-memory path); the other
    modes always use ordinary numpy arrays, plain MPI's fastest case (huge pages).
    """
    comm = comm or MPI.COMM_WORLD
    if comm.Get_size() != 2:
        raise SpecError(f"ranks: pingpong needs exactly 2 ranks, got {comm.Get_size()} "
                        "(run it with mpiexec -n 2)")
    if not sizes_bytes or any(s < 0 for s in sizes_bytes):
        raise SpecError("sizes: need at least one size, all >= 0 bytes")
    if trials < 1:
        raise SpecError("trials: must be >= 1")
    rank = comm.Get_rank()
    peer = 1 - rank
    pinned = comm.allreduce(ranks_pinned(), op=MPI.LAND)
    biggest = max(sizes_bytes)
    transports = {}
    for mode in modes:
        if mode == "none":
            transports[mode] = PlainComm(comm, max_message_bytes=max(biggest, 1), ber=ber,
                                         seed=seed, max_retries=max_retries)
        elif mode == "naive":
            transports[mode] = None  # built once the tuned algorithm is known
        else:
            transports[mode] = CheckedComm(comm, "none" if mode == "unchecked" else mode,
                                           path=path, max_message_bytes=max(biggest, 1),
                                           ber=ber, seed=seed, max_retries=max_retries)
    if "naive" in transports:
        alg = naive_algorithm
        if alg is None:
            checked = [t for t in transports.values()
                       if isinstance(t, CheckedComm) and t.algorithm != "none"]
            alg = checked[0].algorithm if checked else agreed_tuned_algorithm(comm)
        transports["naive"] = NaiveComm(comm, alg, max_message_bytes=max(biggest, 1), ber=ber,
                                        seed=seed, max_retries=max_retries)
    data = np.random.default_rng(seed).integers(0, 256, max(biggest, 1), dtype=np.uint8)
    buffers = {mode: _buffers(t, data, alloc) for mode, t in transports.items()}
    rows = []
    for size in sizes_bytes:
        reps = _reps(size, target_bytes)
        samples: dict[str, list[float]] = {m: [] for m in modes}
        before = {m: dict(t.stats) for m, t in transports.items()}
        for _trial in range(trials):
            for mode in modes:
                t = transports[mode]
                s, r = (b[:size] for b in buffers[mode])
                comm.Barrier()
                # One warm-up round trip, then the timed ones.
                for i in range(reps + 1):
                    if i == 1:
                        t0 = MPI.Wtime()
                    if rank == 0:
                        t.send(s, peer)
                        t.recv(r, peer)
                    else:
                        t.recv(r, peer)
                        t.send(r, peer)
                dt = (MPI.Wtime() - t0) / reps / 2
                samples[mode].append(dt)
                if rank == 0 and size and not np.array_equal(r, s) and ber == 0.0:
                    raise AssertionError(f"{mode}: received data differ at {size} bytes")
        for mode in modes:
            t = transports[mode]
            mine = {k: t.stats[k] - before[mode][k] for k in t.stats}
            total = comm.reduce(mine, op=_sum_dicts, root=0)
            if rank == 0:
                one_way = float(np.median(samples[mode]))
                rows.append({
                    "size_bytes": size,
                    "mode": mode if mode in ("none", "naive", "unchecked") else "checked",
                    "path": getattr(t, "path", "mpi"),
                    "checksum": ("none" if mode == "none" else t.algorithm),
                    "one_way_s": one_way,
                    "bandwidth_bytes_s": size / one_way if one_way > 0 else 0.0,
                    "samples_s": samples[mode],
                    "round_trips": reps * trials,
                    "pinned": pinned,
                    "one_copy": total.get("one_copy", 0) > 0,
                    "corrupted": total["corrupted"],
                    "resent": total["resent"],
                    "injected_bits": total["injected_bits"],
                    "undetected": total["undetected"],
                })
    for t in transports.values():
        t.free()
    return rows


def _buffers(t: object, data: np.ndarray, alloc: bool) -> tuple[np.ndarray, np.ndarray]:
    """The send and receive buffers of one mode (collective for ``CheckedComm.alloc``)."""
    if alloc and isinstance(t, CheckedComm):
        send, recv = t.alloc(data.size), t.alloc(data.size)
        send[:] = data
        return send, recv
    return data.copy(), np.empty_like(data)


def ranks_pinned() -> bool:
    """True when this process may run on one core only (as ``mpiexec --bind-to core``
    leaves it); False where the platform cannot tell."""
    try:
        return len(os.sched_getaffinity(0)) == 1
    except AttributeError:
        return False


def _sum(a: dict, b: dict, _datatype=None) -> dict:
    return {k: a[k] + b[k] for k in a}


_sum_dicts = MPI.Op.Create(_sum, commute=True)
