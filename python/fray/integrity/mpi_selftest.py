"""Checks run under ``mpiexec -n 2 python -m fray.integrity.mpi_selftest CASE PATH``; the
tests launch them. ``PATH`` is the transport path (``shared-memory`` or ``mpi``). Each case
prints one JSON line on rank 0 and exits 0 when it holds. The ``ordered`` cases need 3 ranks."""

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
        # Eager up to twice the last chunk (16385 bytes eager, 100 kB in chunks).
        res[f"{alg}_eager"] = t.eager_threshold_bytes == 32768
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
    # A receive buffer that is too small: both sides get a clear error (a sender whose eager
    # send returned at once gets it from flush).
    big = np.zeros(50_000, np.uint8)
    small = np.zeros(100, np.uint8)
    try:
        if comm.rank == 0:
            t2 = CheckedComm(comm, "crc32c", path=path)
            t2.send(big, 1)
            t2.flush()
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
            t3.flush()
        else:
            t3.recv(np.zeros(5000, np.uint8), 0)
        out["retries"] = False
    except IntegrityError:
        out["retries"] = True
    if path == "mpi":
        # The receiver gives up on a damaged frame and stops: a sender whose logged send
        # returned at once and that now waits to receive learns it there, rather than
        # waiting for ever (without logging, its send already raised).
        t5 = CheckedComm(comm, "crc32c", path=path, ber=0.05, max_retries=2, seed=3)
        try:
            if comm.rank == 0:
                t5.send(np.ones(5000, np.uint8), 1)
                t5.recv(np.zeros(10, np.uint8), 1)
            else:
                t5.recv(np.zeros(5000, np.uint8), 0)
            out["gave_up_then_recv"] = False
        except IntegrityError:
            out["gave_up_then_recv"] = True
    try:
        CheckedComm(comm, "crc32c", path="carrier-pigeon")
    except SpecError as e:
        out["unknown_path"] = str(e).startswith("path:")
    out.update(_bad_arguments(path))
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


def _refused(call, field: str) -> bool:
    """True when ``call()`` raises a ``SpecError`` naming ``field`` first (every rank makes
    the same call, so a refusal is the same on both)."""
    try:
        call()
    except SpecError as e:
        return str(e).startswith(f"{field}:")
    return False


def _bad_arguments(path: str) -> dict:
    """Bad arguments of the transports and of ``pingpong``, each refused with a ``SpecError``
    naming it (once a ``TypeError``, an ``OverflowError`` from the bindings, an MPI error
    stack, a hang or a silently doubled row)."""
    from fray.integrity.pingpong import pingpong

    comm = MPI.COMM_WORLD
    peer = 1 - comm.rank
    buf = np.zeros(100, np.uint8)
    rows = {
        "seed_negative": (lambda: CheckedComm(comm, "crc32c", path=path, seed=-1), "seed"),
        "seed_2_64": (lambda: CheckedComm(comm, "crc32c", path=path, seed=2**64), "seed"),
        "ber_text": (lambda: CheckedComm(comm, "crc32c", path=path, ber="0.1"), "ber"),
        "ber_nan": (lambda: NaiveComm(comm, ber=float("nan")), "ber"),
        "retries_float": (lambda: CheckedComm(comm, "crc32c", path=path, max_retries=2.5),
                          "max_retries"),
        "retries_huge": (lambda: CheckedComm(comm, "crc32c", path=path, max_retries=10**30),
                         "max_retries"),
        "max_message_float": (lambda: NaiveComm(comm, max_message_bytes=1e20),
                              "max_message_bytes"),
        "max_message_huge": (lambda: CheckedComm(comm, "crc32c", path=path,
                                                 max_message_bytes=2**70), "max_message_bytes"),
        "eager_float": (lambda: CheckedComm(comm, "crc32c", path=path,
                                            eager_threshold_bytes=1.5), "eager_threshold_bytes"),
        # a ring of 8 slots of 1 TiB used to be allocated and zeroed (the run never ended)
        "chunk_1tib": (lambda: CheckedComm(comm, "crc32c", path=path, max_chunk_bytes=2**40),
                       "max_chunk_bytes"),
        "ring_slots_negative": (lambda: CheckedComm(comm, "crc32c", path=path, ring_slots=-1),
                                "ring_slots"),
        "ratio_nan": (lambda: CheckedComm(comm, "crc32c", path=path, ratio=float("nan")),
                      "ratio"),
        "comm_text": (lambda: CheckedComm("world"), "comm"),
        "pingpong_sizes_text": (lambda: pingpong("8B"), "sizes_bytes"),
        "pingpong_size_2_gib": (lambda: pingpong([2 << 30], ["none"]), "sizes_bytes"),
        "pingpong_size_float": (lambda: pingpong([1.5], ["none"]), "sizes_bytes"),
        "pingpong_modes_empty": (lambda: pingpong([8], []), "modes"),
        "pingpong_mode_twice": (lambda: pingpong([8], ["none", "none"], trials=1), "modes"),
        "pingpong_size_twice": (lambda: pingpong([8, 8], ["none"], trials=1), "sizes_bytes"),
        "pingpong_trials_float": (lambda: pingpong([8], ["none"], trials=1.5), "trials"),
        "pingpong_trials_huge": (lambda: pingpong([8], ["none"], trials=10**30), "trials"),
        "pingpong_seed_negative": (lambda: pingpong([8], ["none"], seed=-1), "seed"),
        "pingpong_target_negative": (lambda: pingpong([8], ["none"], target_bytes=-5),
                                     "target_bytes"),
        "pingpong_naive_md5": (lambda: pingpong([8], ["naive"], naive_algorithm="md5"),
                               "naive_algorithm"),
        # every frame damaged: the transports were built, then refused before any message
        "pingpong_ber_half": (lambda: pingpong([1024], ["crc32c", "naive"], ber=0.5, trials=1,
                                               path=path), "ber"),
    }
    if path == "shared-memory":  # 2^20 slots of 64 KiB: 64 GiB of shared memory per peer
        rows["ring_too_large"] = (lambda: CheckedComm(comm, "crc32c", path=path,
                                                      ring_slots=2**20, max_chunk_bytes=65536),
                                  "ring_slots")
    out = {name: _refused(call, field) for name, (call, field) in rows.items()}
    t = CheckedComm(comm, "crc32c", path=path)
    out["dest_not_a_rank"] = _refused(lambda: t.send(buf, 5), "dest")
    out["source_not_a_rank"] = _refused(lambda: t.recv(buf, -3), "source")
    out["tag_float"] = _refused(lambda: t.send(buf, peer, tag=1.5), "tag")
    out["alloc_4_eib"] = _refused(lambda: t.alloc(2**62), "nbytes")
    t.free()
    t.free()  # a second free does nothing (it raised MPI's "Null communicator" stack)
    out["after_free"] = _refused(lambda: t.send(buf, peer), "CheckedComm")
    n = NaiveComm(comm)
    out["naive_dest_not_a_rank"] = _refused(lambda: n.send(buf, 5), "dest")
    n.free()
    return out


def case_logged(path: str) -> dict:
    """Logged eager sends (``mpi`` path): a send returns before its receiver has even posted
    the receive (rank 0 sends, then waits in a barrier that rank 1 enters before receiving;
    a send that waited for the verdict would deadlock), and damaged frames are resent by the
    helper thread while rank 0 waits in a plain MPI barrier. More messages than the ledger
    keeps make rank 0 wait for acknowledgements in between. Last, a receive from any source
    of a message that arrived while the receiver waited in a barrier (over MPICH's TCP path an
    ``MPI_ANY_SOURCE`` receive posted then would never complete)."""
    comm = MPI.COMM_WORLD
    t = CheckedComm(comm, "crc32c", path=path, eager_threshold_bytes=8192, ber=2e-5, seed=5,
                    max_retries=20)
    rng = np.random.default_rng(4)
    sizes = [int(x) for x in rng.integers(1, 8192, 150)]
    data = [rng.integers(0, 256, n, dtype=np.uint8) for n in sizes]
    ok = t.logged
    if comm.rank == 0:
        for d in data[:10]:
            t.send(d, 1, tag=1)
        comm.Barrier()
        comm.Barrier()  # rank 1 receives meanwhile: only the helper can serve its NACKs
        for d in data[10:]:
            t.send(d, 1, tag=1)
    else:
        comm.Barrier()
        for d in data:
            got = np.zeros(8192, np.uint8)
            n = t.recv(got, 0, tag=1)
            ok &= n == d.size and bool(np.array_equal(got[:n], d))
            if d is data[9]:
                comm.Barrier()
    if comm.rank == 1:
        t.send(data[0], 0, tag=2)
        comm.Barrier()
    else:
        comm.Barrier()
        got = np.zeros(8192, np.uint8)
        n = t.recv(got, MPI.ANY_SOURCE, tag=2)
        ok &= n == data[0].size and bool(np.array_equal(got[:n], data[0]))
    t.free()
    corrupted = comm.allreduce(t.stats["corrupted"])
    resent = comm.allreduce(t.stats["resent"])
    ok = comm.allreduce(ok, op=MPI.LAND)
    return {"ok": ok and corrupted > 0 and resent >= corrupted, "corrupted": corrupted,
            "resent": resent}


def case_alone(path: str) -> dict:
    """A communicator of one rank builds: the network model is measured on messages to itself
    (finite bandwidth, gaps), so the chunk plan is valid."""
    t = CheckedComm(MPI.COMM_WORLD, "auto", path=path)
    net = t.network
    ok = (MPI.COMM_WORLD.size == 1 and 0 < net["bandwidth_bytes_s"] < float("inf")
          and 0 <= net["gap_s"] < 1e-3 and 0 <= net["chunk_gap_s"] < 1e-2)
    t.free()
    return {"ok": bool(ok), "network": net}


def case_late(path: str) -> dict:
    """A receiver that posts its receive long after the sender started: eager and rendezvous
    messages wait for it and arrive intact."""
    import time

    comm = MPI.COMM_WORLD
    t = CheckedComm(comm, "crc32c", path=path)
    sizes = [0, 100, 16 * 1024 + 1, 300_000, 5 * (1 << 20) + 3]
    rng = np.random.default_rng(21)
    ok = True
    for size in sizes:
        data = rng.integers(0, 256, size, dtype=np.uint8)
        if comm.rank == 0:
            t.send(data, 1, tag=9)
        else:
            time.sleep(0.2)
            got = np.zeros(size, np.uint8)
            ok &= t.recv(got, 0, tag=9) == size and bool(np.array_equal(got, data))
    t.free()
    return {"ok": bool(comm.allreduce(ok, op=MPI.LAND))}


def boundary_sizes(t: CheckedComm, biggest: int) -> list[int]:
    """Message sizes one byte either side of, and at, every chunk boundary of messages up to
    ``biggest`` bytes, and of the eager threshold."""
    from fray import _fray

    edges = {t.eager_threshold_bytes}
    chunks = _fray.integrity_chunk_plan(biggest, *t.plan)
    edges.update(int(x) for x in np.cumsum(chunks))
    edges.update(int(x) for x in np.cumsum(chunks[::-1]))
    return sorted({max(0, e + d) for e in edges for d in (-1, 0, 1) if e + d <= biggest})


def case_boundaries(path: str) -> dict:
    """Every size around every chunk boundary (and the eager threshold) arrives intact, with
    checksums and without."""
    comm = MPI.COMM_WORLD
    res = {}
    for alg in ("crc32c", "none"):
        t = CheckedComm(comm, alg, path=path, first_chunk_bytes=4096, ratio=2.0,
                        max_chunk_bytes=65536, eager_threshold_bytes=2048)
        sizes = boundary_sizes(t, 400_000)
        res[alg] = _exchange(t, sizes, np.random.default_rng(22))
        res[f"{alg}_sizes"] = len(sizes) > 20
        t.free()
    return {"ok": all(res.values()), **res}


def case_ordered_any(path: str) -> dict:
    """Ranks 1 and 2 send many messages of mixed sizes each to rank 0 at once; rank 0 receives
    from any source and gets each sender's messages in the order they were sent."""
    return _ordered(path, any_source=True)


def case_ordered_each(path: str) -> dict:
    """As ``ordered_any``, rank 0 naming the source of each receive, alternately. (MPICH 5.0
    can lose a receive from any source when ``MPIR_CVAR_NOLOCAL=1``, with plain mpi4py too,
    so the forced-TCP runs use this form.)"""
    return _ordered(path, any_source=False)


def _ordered(path: str, any_source: bool) -> dict:
    comm = MPI.COMM_WORLD
    if comm.size != 3:
        raise SpecError("ranks: the ordered cases need 3 ranks")
    t = CheckedComm(comm, "crc32c", path=path, first_chunk_bytes=8192, max_chunk_bytes=65536)
    sizes = [8, 20_000, 8, 150_000, 3000, 1 << 20, 64, 70_000] * 4
    ok = True
    if comm.rank == 0:
        got = np.zeros(max(sizes), np.uint8)
        nxt = {1: 0, 2: 0}
        for i in range(2 * len(sizes)):
            n = t.recv(got, MPI.ANY_SOURCE if any_source else 1 + i % 2, tag=1)
            # The first 2 bytes say who sent it and its number; the rest follows from them.
            src, k = int(got[0]), int(got[1])
            ok &= src in nxt and k == nxt[src] and n == sizes[k]
            ok &= bool(np.array_equal(got[:n], _pattern(src, k, n)))
            nxt[src] = nxt.get(src, 0) + 1
        ok &= nxt == {1: len(sizes), 2: len(sizes)}
    else:
        for k, n in enumerate(sizes):
            t.send(_pattern(comm.rank, k, n), 0, tag=1)
    t.free()
    return {"ok": bool(comm.allreduce(ok, op=MPI.LAND))}


def _pattern(src: int, k: int, n: int) -> np.ndarray:
    """Message ``k`` of rank ``src``, ``n >= 2`` bytes: ``src``, ``k``, then seeded bytes."""
    out = np.random.default_rng(1000 * src + k).integers(0, 256, n, dtype=np.uint8)
    out[0], out[1] = src, k
    return out


def case_ber_search(path: str) -> dict:
    """Hypothesis draws message sizes, buffer offsets and bit error rates on rank 0 and both
    ranks run each draw: a receive returns the sent bytes or raises on both ends, never
    returns damaged data."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    comm = MPI.COMM_WORLD
    stats = {"draws": 0, "corrupted": 0, "failed": 0}

    def run(case):
        size, send_off, recv_off, ber, seed = case
        t = CheckedComm(comm, "crc32c", path=path, first_chunk_bytes=4096,
                        max_chunk_bytes=65536, eager_threshold_bytes=4096, ber=ber,
                        seed=seed, max_retries=30)
        data = np.random.default_rng(seed).integers(0, 256, size + 16, dtype=np.uint8)
        failed = delivered_bad = False
        try:
            if comm.rank == 0:
                t.send(data[send_off:send_off + size], 1, tag=2)
            else:
                out = np.zeros(size + 16, np.uint8)
                n = t.recv(out[recv_off:recv_off + size], 0, tag=2)
                delivered_bad = n != size or not np.array_equal(
                    out[recv_off:recv_off + size], data[send_off:send_off + size])
        except IntegrityError:
            failed = True
        stats["corrupted"] += comm.allreduce(t.stats["corrupted"])
        t.free()
        # Either both ends saw the message through, or both gave up; never damaged data.
        assert not comm.allreduce(delivered_bad, op=MPI.LOR), case
        assert comm.allreduce(failed, op=MPI.LAND) == comm.allreduce(failed, op=MPI.LOR), case
        stats["failed"] += failed
        stats["draws"] += 1

    if comm.rank == 0:
        @settings(max_examples=40, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.integers(0, 300_000), st.integers(0, 15), st.integers(0, 15),
               st.sampled_from([0.0, 1e-7, 1e-6, 1e-5]), st.integers(0, 2**32))
        def search(size, send_off, recv_off, ber, seed):
            run(comm.bcast((size, send_off, recv_off, ber, seed), root=0))

        search()
        comm.bcast(None, root=0)
    else:
        while True:
            case = comm.bcast(None, root=0)
            if case is None:
                break
            run(case)
    return {"ok": stats["draws"] > 0 and stats["corrupted"] > 0, **stats}


def main() -> int:
    case, path = sys.argv[1], sys.argv[2]
    cases = {"roundtrip": case_roundtrip, "ber": case_ber, "alloc": case_alloc,
             "errors": case_errors, "late": case_late, "alone": case_alone, "logged": case_logged,
             "boundaries": case_boundaries, "ordered_any": case_ordered_any,
             "ordered_each": case_ordered_each, "ber_search": case_ber_search}
    result = cases[case](path)
    logged = None
    if path == "mpi":  # whether this MPI's thread level gives logged eager sends
        t = CheckedComm(MPI.COMM_WORLD, "crc32c", path=path, first_chunk_bytes=16384,
                        ratio=2.0, max_chunk_bytes=65536)
        logged = t.logged
        t.free()
    if MPI.COMM_WORLD.rank == 0:
        result.update(path=path, logged=logged)
        print(json.dumps(result))
        return 0 if result.get("ok") else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
