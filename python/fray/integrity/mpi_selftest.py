"""Checks run under ``mpiexec -n 2 python -m fray.integrity.mpi_selftest CASE PATH``; the
tests launch them. ``PATH`` is the transport path (``shared-memory`` or ``mpi``). Each case
prints one JSON line on rank 0 and exits 0 when it holds."""

from __future__ import annotations

import json
import sys

import numpy as np
from mpi4py import MPI

from fray import SpecError
from fray.integrity import IntegrityError
from fray.integrity.transport import CheckedComm, NaiveComm


def _exchange(t, sizes, rng, alloc=False):
    """Rank 0 sends each size to rank 1, which sends it back; True when every echo is intact.
    With ``alloc``, both send from (and rank 1 receives into) buffers of ``t.alloc``, rank 0
    from an odd offset into its buffer."""
    comm = MPI.COMM_WORLD
    biggest = max(sizes) + 16
    if alloc:
        staging, echo = t.alloc(biggest + 3), t.alloc(biggest)
    ok = True
    for size in sizes:
        data = rng.integers(0, 256, size, dtype=np.uint8)
        out = np.zeros(size + 16, dtype=np.uint8)
        if comm.rank == 0:
            if alloc:
                staging[3:3 + size] = data
            t.send(staging[3:3 + size] if alloc else data, 1, tag=3)
            n = t.recv(out, 1, tag=3)
        else:
            into = echo if alloc else out
            n = t.recv(into, 0, tag=3)
            t.send(into[:n], 0, tag=3)
        ok &= n == size and bool(np.array_equal(out[:n], data))
    return ok


def case_roundtrip(path: str) -> dict:
    comm = MPI.COMM_WORLD
    sizes = [0, 1, 7, 4096, 16384, 16385, 100_000, 1 << 20, 3 * (1 << 20) + 5]
    res = {}
    for alg in ("crc32c", "xxh3", "fletcher64"):
        t = CheckedComm(comm, alg, path=path, first_chunk_bytes=16384, max_chunk_bytes=65536)
        res[alg] = _exchange(t, sizes, np.random.default_rng(5))
        t.free()
    return {"ok": all(res.values()), "by_algorithm": res}


def case_ber(path: str) -> dict:
    comm = MPI.COMM_WORLD
    sizes = [64, 4096, 16384, 200_000, 1 << 20]
    t = CheckedComm(comm, "crc32c", path=path, first_chunk_bytes=16384,
                    max_chunk_bytes=65536, ber=2e-6, seed=11, max_retries=20)
    ok = _exchange(t, sizes * 3, np.random.default_rng(6))
    total = comm.reduce(t.stats["corrupted"], root=0)
    resent = comm.reduce(t.stats["resent"], root=0)
    injected = comm.reduce(t.stats["injected_bits"], root=0)
    t.free()
    n = NaiveComm(comm, "crc32c", ber=2e-6, seed=12, max_retries=20)
    # The naive protocol resends whole messages: keep them small enough to get through.
    ok_naive = _exchange(n, [64, 4096, 16384] * 3, np.random.default_rng(7))
    naive_corrupted = comm.reduce(n.stats["corrupted"], root=0)
    n.free()
    return {"ok": ok and ok_naive and (total or 0) > 0 and (resent or 0) >= (total or 0),
            "corrupted": total, "resent": resent, "injected_bits": injected,
            "naive_corrupted": naive_corrupted}


def case_alloc(path: str) -> dict:
    """Sends from buffers of ``alloc``: one copy on the shared-memory path, intact data, and
    bit flips injected between the sender's checksum and the receiver's caught and resent."""
    comm = MPI.COMM_WORLD
    sizes = [0, 1, 7, 4096, 16385, 100_000, 1 << 20, 3 * (1 << 20) + 5]
    out = {}
    for alg in ("crc32c", "fletcher64", "none"):
        t = CheckedComm(comm, alg, path=path, first_chunk_bytes=16384, max_chunk_bytes=65536)
        out[alg] = _exchange(t, sizes, np.random.default_rng(8), alloc=True)
        one_copy = comm.allreduce(t.stats["one_copy"])
        out[f"{alg}_one_copy"] = one_copy == (2 * len(sizes) if path == "shared-memory" else 0)
        t.free()
    t = CheckedComm(comm, "crc32c", path=path, first_chunk_bytes=16384, max_chunk_bytes=65536,
                    ber=2e-6, seed=13, max_retries=20)
    out["ber"] = _exchange(t, [4096, 200_000, 1 << 20] * 3, np.random.default_rng(9), alloc=True)
    corrupted = comm.allreduce(t.stats["corrupted"])
    resent = comm.allreduce(t.stats["resent"])
    out["ber_detected"] = corrupted > 0 and resent >= corrupted
    try:
        t.alloc(-1)
        out["bad_size"] = False
    except SpecError as e:
        out["bad_size"] = str(e).startswith("nbytes:")
    t.free()
    return {"ok": all(out.values()), "corrupted": corrupted, **out}


def case_errors(path: str) -> dict:
    comm = MPI.COMM_WORLD
    out = {}
    t = CheckedComm(comm, "crc32c", path=path, max_message_bytes=1000)
    try:
        t.send(np.zeros(2000, np.uint8), 1 - comm.rank)
    except SpecError as e:
        out["too_large"] = "max_message_bytes" in str(e)
    try:
        t.send("not bytes", 1 - comm.rank)
    except SpecError as e:
        out["wrong_type"] = str(e).startswith("buf:")
    try:
        CheckedComm(comm, "md5")
    except SpecError as e:
        out["unknown_algorithm"] = "md5" in str(e)
    # A receive buffer that is too small: both sides get a clear error.
    big = np.zeros(50_000, np.uint8)
    small = np.zeros(100, np.uint8)
    try:
        if comm.rank == 0:
            t2 = CheckedComm(comm, "crc32c", path=path)
            t2.send(big, 1)
        else:
            t2 = CheckedComm(comm, "crc32c", path=path)
            t2.recv(small, 0)
        out["small_buffer"] = False
    except SpecError as e:
        out["small_buffer"] = comm.rank == 1 and "buf:" in str(e)
    except IntegrityError as e:
        out["small_buffer"] = comm.rank == 0 and "larger than the receive buffer" in str(e)
    # Every frame corrupted: retries run out, both sides raise IntegrityError.
    t3 = CheckedComm(comm, "crc32c", path=path, ber=0.05, max_retries=2, seed=3)
    try:
        if comm.rank == 0:
            t3.send(np.ones(5000, np.uint8), 1)
        else:
            t3.recv(np.zeros(5000, np.uint8), 0)
        out["retries"] = False
    except IntegrityError:
        out["retries"] = True
    try:
        CheckedComm(comm, "crc32c", path="carrier-pigeon")
    except SpecError as e:
        out["unknown_path"] = str(e).startswith("path:")
    if path == "shared-memory":
        # Messages between two ranks are received in order: a receive with another tag is
        # refused without consuming the message, which the right receive then gets.
        t4 = CheckedComm(comm, "crc32c", path=path)
        if comm.rank == 0:
            t4.send(np.arange(300, dtype=np.uint8), 1, tag=5)
            out["tag_order"] = True
        else:
            got = np.zeros(300, np.uint8)
            try:
                t4.recv(got, 0, tag=4)
                out["tag_order"] = False
            except SpecError as e:
                out["tag_order"] = str(e).startswith("tag:")
            out["tag_order"] &= t4.recv(got, 0, tag=5) == 300 and bool(
                np.array_equal(got, np.arange(300, dtype=np.uint8)))
        t4.free()
    everything = comm.gather(out, root=0)
    if comm.rank == 0:
        merged = {k: all(d.get(k, False) for d in everything) for k in everything[0]}
        return {"ok": all(merged.values()), **merged}
    return {}


def main() -> int:
    case, path = sys.argv[1], sys.argv[2]
    result = {"roundtrip": case_roundtrip, "ber": case_ber, "alloc": case_alloc,
              "errors": case_errors}[case](path)
    if MPI.COMM_WORLD.rank == 0:
        result["path"] = path
    if MPI.COMM_WORLD.rank == 0:
        print(json.dumps(result))
        return 0 if result.get("ok") else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
