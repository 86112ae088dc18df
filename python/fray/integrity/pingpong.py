"""NetPIPE-style ping-pong between ranks 0 and 1, with no checksum, the naive approach, and
the checked transport, measured in the same run.

Run with ``mpiexec -n 2 fray integrity pingpong``. Rank 0 times ``reps`` round trips with
``MPI.Wtime`` and reports the one-way time (half a round trip); each (size, mode) is measured
``trials`` times, interleaved, and the median is kept. Pin each rank to a core
(``mpiexec --bind-to core``): unpinned ranks that busy-poll move between cores and their
timings vary by 2x from run to run.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np
from mpi4py import MPI

from fray import SpecError, _fray
from fray.integrity import limits
from fray.integrity.limits import MODES  # noqa: F401  (re-exported: the modes besides algorithms)
from fray.integrity.transport import (
    HEADER,
    CheckedComm,
    NaiveComm,
    PlainComm,
    agreed_tuned_algorithm,
)


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

    Every argument is checked before the first message (``SpecError`` naming it): sizes from
    0 to ``limits.MAX_MESSAGE_BYTES``, modes and sizes each given once, at most
    ``limits.MAX_TRIALS`` trials, and a ``ber`` low enough that the run most likely ends
    (see ``check_ber``).
    """
    comm = MPI.COMM_WORLD if comm is None else comm
    if not isinstance(comm, MPI.Comm):
        raise SpecError(f"comm: expected an mpi4py communicator, got {type(comm).__name__}")
    sizes_bytes = limits.message_sizes(sizes_bytes, "sizes_bytes")
    modes = limits.modes(modes, "modes")
    ber = limits.ber(ber)
    seed = limits.whole(seed, "seed")
    trials = limits.whole(trials, "trials", 1, limits.MAX_TRIALS)
    target_bytes = limits.whole(target_bytes, "target_bytes", 1)
    max_retries = limits.whole(max_retries, "max_retries", 0, limits.U32_MAX)
    path = limits.path(path)
    if naive_algorithm is not None and naive_algorithm not in limits.algorithms():
        raise SpecError(f"naive_algorithm: unknown checksum {naive_algorithm!r} (known: "
                        f"{', '.join(limits.algorithms())})")
    if comm.Get_size() != 2:
        raise SpecError(f"ranks: pingpong needs exactly 2 ranks, got {comm.Get_size()} "
                        "(run it with mpiexec -n 2)")
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
    try:
        check_ber(transports, sizes_bytes, ber, trials, target_bytes, max_retries)
    except SpecError:
        for t in transports.values():  # every rank refuses alike: free them together
            t.free()
        raise
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


def frames(t: object, size: int) -> list[int]:
    """Bytes of each frame of one message of ``size`` bytes on transport ``t`` that the
    receiver verifies, so that an injected bit flip in it makes the sender send it again
    (headers included); empty where nothing is verified (plain MPI, and ``CheckedComm``
    without checksum on the ``mpi`` path)."""
    if isinstance(t, NaiveComm):
        return [size + HEADER]  # header and message verified together, resent together
    if not isinstance(t, CheckedComm):
        return []
    if t.path == "mpi":
        if t.algorithm == "none":
            return []
        if size <= t.eager_threshold_bytes:
            return [size + HEADER]
        return [*_fray.integrity_chunk_plan(size, *t.plan), HEADER]  # chunks, then trailer
    chunks = _fray.integrity_chunk_plan(size, *t.plan)
    if t.algorithm == "none":
        return [HEADER] * len(chunks)  # the rings still verify each chunk's header
    return [c + HEADER for c in chunks]


def check_ber(transports: dict, sizes_bytes: Sequence[int], ber: float, trials: int,
              target_bytes: int, max_retries: int) -> None:
    """Refuses (``SpecError`` naming ``ber``) a bit error rate at which some message of the
    run would more likely than ``limits.MAX_GIVE_UP`` stay damaged after its
    ``max_retries + 1`` tries, with the mode and size that fail most; the transport would
    then give up on it (on the ``mpi`` path a logged eager message refused so can leave its
    sender waiting for ever). Same on every rank: the transports' plans are agreed."""
    if ber <= 0.0:
        return
    expected, worst = 0.0, (0.0, "", 0, 0.0)
    for mode, t in transports.items():
        for size in sizes_bytes:
            messages = 2 * (_reps(size, target_bytes) + 1) * trials
            mine = 0.0
            for f in frames(t, size):
                mine += limits.damaged(f, ber) ** (max_retries + 1)
            expected += messages * mine
            if messages * mine > worst[0]:
                biggest = max(frames(t, size))
                worst = (messages * mine, mode, size, limits.damaged(biggest, ber))
    give_up = -math.expm1(-expected)
    if give_up > limits.MAX_GIVE_UP:
        _, mode, size, hit = worst
        raise SpecError(
            f"ber: at {ber:g} a message would stay damaged after all its {max_retries + 1} "
            f"tries with a chance of {give_up:.2g} (at most {limits.MAX_GIVE_UP:g} taken): "
            f"a frame of mode {mode} at {size} bytes is damaged on {hit:.0%} of its tries; "
            "lower ber or the largest size")


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
