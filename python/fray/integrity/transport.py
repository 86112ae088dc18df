"""A checked message transport over an mpi4py communicator.

``CheckedComm.send`` copies the message with the checksum computed inside the copy and carries
the checksum in a 64-byte header (itself protected by a CRC-32C); the receiver verifies inside
its copy out. A damaged chunk is reported to the sender, which copies it again from the user's
buffer, so ``recv`` returns intact data or raises ``IntegrityError``. ``send`` returns once the
receiver has verified every byte (synchronous mode, like ``MPI_Ssend``), except for eager
messages on the ``mpi`` path (below).

Two paths carry the frames:

* ``shared-memory`` (ranks on one node): a ring of frames per pair of ranks in an MPI
  shared-memory window. The sender's copy into the ring and the receiver's copy out of it are
  the two copies any shared-memory transport makes; the checksums ride inside them (the
  paper's point), and chunks whose sizes grow geometrically let the receiver copy out while the
  sender still copies in. Messages between two ranks are received in the order sent.
  A message sent from a buffer of ``CheckedComm.alloc`` (in shared memory, like
  ``MPI_Alloc_mem``) goes in one copy: the ring carries only the headers with the sender's
  checksums, and the receiver copies straight out of the sender's buffer, verifying inside
  that copy.
* ``mpi`` (any placement): frames travel as MPI messages, driven from fray's compiled core
  through the MPI library mpi4py has loaded (no Python runs per chunk, and the GIL is released
  while a message is in flight). Messages up to ``eager_threshold_bytes`` go as one frame with
  the checksum inside the copy; larger ones announce their length with a 32-byte
  request-to-send and follow at once, without a copy, as chunks sent straight from the user's
  buffer into the receiver's, then a trailer with the chunks' checksums. Each end checksums
  chunk ``i`` while later chunks are in flight; chunks shrink towards the end of the message so
  that only the last, small one is verified after the data has arrived. When MPI runs at
  ``MPI_THREAD_MULTIPLE`` (mpi4py's default), an eager send does not wait for the verdict: the
  sender keeps its frame and returns (like ``MPI_Send``), the receiver's acknowledgement rides
  on the next frame back or goes out when it next waits, and a damaged frame is resent from
  the kept copy, by a helper thread if the sender is busy elsewhere (the paper's sender-based
  logging). A message the receiver refused (too large for its buffer, damaged after every
  retry) is then reported by the sender's next call or by ``flush``.

``path="auto"`` takes the shared-memory path when every rank of the communicator is on one
node. ``ber`` injects bit flips into arriving frames before verification, to prove detection
and retransmission. ``NaiveComm`` (checksum, send, checksum) and ``PlainComm`` (no checksum)
have the same interface, for comparison.
"""

from __future__ import annotations

import atexit
import numbers
import weakref
from typing import Any

import numpy as np
from mpi4py import MPI

from fray import SpecError, _fray
from fray.integrity import limits
from fray.integrity.errors import IntegrityError
from fray.integrity.models import net_chunk_plan

HEADER = _fray.INTEGRITY_HEADER_BYTES
KIND_FIRST, KIND_CHUNK, KIND_VERDICT = 0, 1, 2
OK, NACK, ABORT = 0, 1, 2
ABORT_TOO_LARGE, ABORT_RETRIES = 1, 2
_REASONS = {
    ABORT_TOO_LARGE: "the message is larger than the receive buffer",
    ABORT_RETRIES: "the message stayed corrupted after every retry",
}


def _bytes_view(buf: Any, field: str, writable: bool = False) -> memoryview:
    try:
        mv = memoryview(buf)
    except TypeError:
        raise SpecError(f"{field}: expected a bytes-like object (bytes, bytearray, numpy "
                        f"array), got {type(buf).__name__}") from None
    if not mv.c_contiguous:
        raise SpecError(f"{field}: buffer is not C-contiguous")
    if writable and mv.readonly:
        raise SpecError(f"{field}: buffer is read-only")
    return mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv


class _Base:
    """Shared set-up: a private duplicate communicator, tags, statistics, fault injection."""

    def __init__(self, comm: MPI.Comm, *, max_message_bytes: int = limits.MAX_MESSAGE_BYTES,
                 max_retries: int = 8, ber: float = 0.0, seed: int = 0) -> None:
        if not isinstance(comm, MPI.Comm):
            raise SpecError(f"comm: expected an mpi4py communicator, got {type(comm).__name__}")
        # The core holds sizes in 64 bits, retries in 32 bits and the seed in 64 bits.
        max_message_bytes = limits.whole(max_message_bytes, "max_message_bytes", 1)
        max_retries = limits.whole(max_retries, "max_retries", 0, limits.U32_MAX)
        ber = limits.ber(ber)
        seed = limits.whole(seed, "seed")
        self.comm = comm.Dup()
        self.freed = False
        self.size = self.comm.Get_size()
        self.rank = self.comm.Get_rank()
        self.max_message_bytes = max_message_bytes
        self.max_retries = max_retries
        self.ber = ber
        self.seed = seed
        self.tag_ub = int(self.comm.Get_attr(MPI.TAG_UB) or 32767)
        self._send_seq: dict[int, int] = {}
        self._recv_seq: dict[int, int] = {}
        self._verdict = np.zeros(2, dtype=np.int64)
        self.stats = {"messages": 0, "corrupted": 0, "resent": 0, "injected_bits": 0,
                      "undetected": 0}

    def free(self) -> None:
        """Frees the private communicator (collective); a second call does nothing."""
        if not self.freed:
            self.freed = True
            self.comm.Free()

    def _live(self) -> None:
        """Refuses a message on a transport that was freed."""
        if self.freed:
            raise SpecError(f"{type(self).__name__}: freed; build a new one to send or "
                            "receive")

    def _rank(self, rank: Any, field: str, any_source: bool = False) -> int:
        """``rank`` when it is a rank of the communicator (or ``MPI.ANY_SOURCE`` where
        ``any_source``); else a ``SpecError`` naming ``field`` (MPI would abort or raise its
        error stack). Checked on every message: the plain case costs a few comparisons."""
        if self.freed:
            self._live()
        if type(rank) is int and (0 <= rank < self.size or
                                  (any_source and rank == MPI.ANY_SOURCE)):
            return rank
        if not isinstance(rank, bool) and isinstance(rank, numbers.Integral) and \
                0 <= rank < self.size:
            return int(rank)  # a numpy integer
        raise SpecError(f"{field}: expected a rank from 0 to {self.size - 1}"
                        f"{' or MPI.ANY_SOURCE' if any_source else ''}, got {rank!r}")

    @property
    def max_tag(self) -> int:
        """The largest tag a message may have (four wire tags per tag, and the last four
        are the transport's own)."""
        return (self.tag_ub - 3) // 4 - 1

    def _wire(self, tag: int, kind: int) -> int:
        if type(tag) is not int or not 0 <= tag <= self.max_tag:
            if isinstance(tag, bool) or not isinstance(tag, numbers.Integral) or \
                    not 0 <= tag <= self.max_tag:
                raise SpecError(f"tag: must be a whole number in [0, {self.max_tag}], "
                                f"got {tag!r}")
            tag = int(tag)  # a numpy integer
        return tag * 4 + kind

    def _check_size(self, n: int) -> None:
        if n > self.max_message_bytes:
            raise SpecError(f"message: {n} bytes is larger than max_message_bytes "
                            f"({self.max_message_bytes})")

    def _start_send(self, buf: Any, dest: int) -> tuple[memoryview, int, int]:
        """Views ``buf``, checks its size and numbers the message to ``dest``: ``(view,
        length in bytes, sequence number)``."""
        src = _bytes_view(buf, "buf")
        n = src.nbytes
        self._check_size(n)
        seq = self._send_seq.get(dest, 0)
        self._send_seq[dest] = seq + 1
        self.stats["messages"] += 1
        return src, n, seq

    def _send_until_verified(self, send: Any, dest: int, tag: int, seq: int) -> None:
        """Calls ``send()`` until ``dest`` answers OK: a NACK resends (up to ``max_retries``
        times), an ABORT raises the receiver's reason."""
        for attempt in range(self.max_retries + 1):
            if attempt:
                self.stats["resent"] += 1
            send()
            code, detail, _ = self._recv_verdict(dest, tag)
            if code == OK:
                return
            if code == ABORT:
                raise self._abort(detail, dest)
        raise IntegrityError(f"message {seq} to rank {dest}: still corrupted after "
                             f"{self.max_retries} retries")

    def _inject(self, buf: Any, stream: int) -> int:
        if self.ber <= 0.0:
            return 0
        flips = _fray.integrity_inject_ber(buf, self.ber, self.seed, stream)
        self.stats["injected_bits"] += flips
        return flips

    def _stream(self, peer: int, seq: int, kind: int, index: int, attempt: int) -> int:
        return (((((self.rank * 4099 + peer) * 1_000_003 + seq) * 8 + kind) * 65_537 + index)
                * 64 + attempt) % (1 << 64)

    def _send_verdict(self, code: int, detail: int, peer: int, tag: int,
                      bad: list[int] | None = None) -> None:
        msg = np.array([code, detail] + (bad or []), dtype=np.int64)
        self.comm.Send(msg, dest=peer, tag=self._wire(tag, KIND_VERDICT))

    def _recv_verdict(self, peer: int, tag: int, max_items: int = 0) -> tuple[int, int, list[int]]:
        if len(self._verdict) < 2 + max_items:
            self._verdict = np.zeros(2 + max_items, dtype=np.int64)
        st = MPI.Status()
        self.comm.Recv(self._verdict, source=peer, tag=self._wire(tag, KIND_VERDICT), status=st)
        n = st.Get_count(MPI.INT64_T)
        v = self._verdict[:n].tolist()
        return int(v[0]), int(v[1]), [int(x) for x in v[2:]]

    def _abort(self, detail: int, peer: int) -> IntegrityError:
        return IntegrityError(f"rank {peer} aborted the message: {_REASONS.get(detail, detail)}")


_STATUS_PROBE_SOURCE = 0x2A5EED51  # a source rank no status holds by chance


RING_CHUNKS = (32 * 1024, 2.0, 128 * 1024)
"""``(first_chunk_bytes, ratio, max_chunk_bytes)`` of the shared-memory rings."""


def agreed_tuned_algorithm(comm: MPI.Comm) -> str:
    """The tuned algorithm of rank 0, agreed by every rank of ``comm`` (collective)."""
    return agreed_tuning(comm)[0]


def agreed_tuning(comm: MPI.Comm) -> tuple[str, float]:
    """Rank 0's tuned checksum and its copy+checksum bandwidth (bytes/s), agreed by every rank
    of ``comm`` (collective)."""
    from fray import FrayError
    from fray.integrity.tuner import tune

    mine: Any = None
    if comm.Get_rank() == 0:
        try:
            t = tune()
            mine = (t.algorithm, t.bandwidth_bytes_s)
        except FrayError as exc:  # every rank raises it, rather than waiting for ever
            mine = exc
    agreed = comm.bcast(mine, root=0)
    if isinstance(agreed, FrayError):
        raise agreed
    return agreed


def measure_network(comm: MPI.Comm, *, big_bytes: int = 1 << 20, burst: int = 32,
                    pieces: int = 4, round_trips: int = 15) -> tuple[float, float, float]:
    """``(bandwidth_bytes_s, gap_s, chunk_gap_s)`` of the network between ranks ``2k`` and
    ``2k + 1`` of ``comm``, the slowest pair's, agreed by every rank (collective). Each measure
    is the best of ``round_trips`` exchanges in which one rank sends ``n`` messages of ``b``
    bytes back to back into receives the other posted at once, and the other answers with one
    8-byte message: the gap (LogP's ``g``) is the time one more 8-byte message adds to a burst
    of ``burst``; the bandwidth is that of one ``big_bytes`` message beyond an 8-byte one; the
    chunk gap is the time one more message adds when ``big_bytes`` goes as ``pieces`` equal
    messages instead of one (what one more chunk of the zero-copy rendezvous costs: over TCP
    about twice the gap, as every large message pays MPI's own rendezvous). A communicator of
    one rank measures its messages to itself."""
    rank, size = comm.Get_rank(), comm.Get_size()
    peer = rank ^ 1 if size > 1 else rank  # a lone rank measures messages to itself
    gap, chunk_gap, bandwidth = 0.0, 0.0, float("inf")
    if peer < size:
        buf = np.zeros(big_bytes, dtype=np.uint8)
        ack = np.zeros(8, dtype=np.uint8)
        sink = np.zeros(big_bytes, dtype=np.uint8)

        def receive(n: int, b: int) -> list[MPI.Request]:
            return [comm.Irecv(sink[k * b:(k + 1) * b], source=peer) for k in range(n)]

        def exchange(n: int, b: int) -> float:
            best = float("inf")
            for _ in range(round_trips + 1):  # the first one warms up
                if rank != peer:  # start together
                    comm.Sendrecv(ack, dest=peer, recvbuf=ack, source=peer)
                t0 = MPI.Wtime()
                if rank <= peer:
                    posted = receive(n, b) if rank == peer else []
                    sends = [comm.Isend(buf[k * b:(k + 1) * b], dest=peer) for k in range(n)]
                    MPI.Request.Waitall(sends + posted)
                    if rank < peer:
                        comm.Recv(ack, source=peer)
                else:
                    MPI.Request.Waitall(receive(n, b))
                    comm.Send(ack, dest=peer)
                best = min(best, MPI.Wtime() - t0)
            return best

        one = exchange(1, 8)
        gap = max(exchange(burst + 1, 8) - one, 0.0) / burst
        whole = exchange(1, big_bytes)
        bandwidth = big_bytes / max(whole - one, 1e-9)
        chunk_gap = max(exchange(pieces, big_bytes // pieces) - whole, 0.0) / (pieces - 1)
    return (comm.allreduce(bandwidth, op=MPI.MIN), comm.allreduce(gap, op=MPI.MAX),
            comm.allreduce(chunk_gap, op=MPI.MAX))


class CheckedComm(_Base):
    """Checked point-to-point messages on ``comm`` (collective to build: every rank of
    ``comm`` must create one). ``algorithm`` is a checksum name, ``"auto"`` (the tuned choice,
    agreed by all ranks) or ``"none"`` (no checksum, a baseline for measurements which
    detects nothing: the same rings with plain copies on shared memory; on the ``mpi`` path,
    where there is then nothing to verify or resend, one plain MPI message per message).

    Sizes are in bytes. On the shared-memory path ``max_chunk_bytes`` is the slot size of a
    ring of ``ring_slots`` slots and chunks grow from ``first_chunk_bytes`` by ``ratio``; on
    the ``mpi`` path chunks shrink by ``ratio`` from ``max_chunk_bytes`` down to
    ``first_chunk_bytes`` at the end of a message. Left at ``None`` they take the path's
    defaults: ``RING_CHUNKS`` on shared memory; on the ``mpi`` path the paper's model
    (``net_chunk_plan``) with the network measured between the ranks when the
    communicator is built (``measure_network``, kept in ``self.network``) and the tuned
    checksum's bandwidth. ``eager_threshold_bytes`` (``mpi`` path) is the largest message sent
    as one eager frame; left at ``None`` it is ``2 g B_csum`` (``g`` the measured gap of small
    messages; twice ``first_chunk_bytes`` when that is given, the last chunk standing for
    ``g B_csum``): up to there the eager frame's two checksums (inside the copy in and the copy
    out, neither hidden behind the network) cost less than the rendezvous's two extra small
    MPI messages (request-to-send and trailer)."""

    def __init__(self, comm: MPI.Comm, algorithm: str = "auto", *, path: str = "auto",
                 eager_threshold_bytes: int | None = None, first_chunk_bytes: int | None = None,
                 ratio: float | None = None, max_chunk_bytes: int | None = None,
                 ring_slots: int = 8, max_message_bytes: int = limits.MAX_MESSAGE_BYTES, max_retries: int = 8,
                 ber: float = 0.0, seed: int = 0) -> None:
        path = limits.path(path)
        first_chunk_bytes, max_chunk_bytes = (
            None if v is None else limits.whole(v, field, 1, limits.MAX_MESSAGE_BYTES)
            for v, field in ((first_chunk_bytes, "first_chunk_bytes"),
                             (max_chunk_bytes, "max_chunk_bytes")))
        ratio = None if ratio is None else limits.real(ratio, "ratio", 1.0)
        if eager_threshold_bytes is not None:
            eager_threshold_bytes = limits.whole(eager_threshold_bytes, "eager_threshold_bytes")
        ring_slots = limits.whole(ring_slots, "ring_slots", 2, limits.U32_MAX)
        super().__init__(comm, max_message_bytes=max_message_bytes, max_retries=max_retries,
                         ber=ber, seed=seed)
        self.path = self._choose_path(path)
        given = (first_chunk_bytes, ratio, max_chunk_bytes)
        measured_plan = self.path == "mpi" and None in given
        if algorithm == "auto" or measured_plan:
            tuned, csum_bandwidth = agreed_tuning(self.comm)
            algorithm = tuned if algorithm == "auto" else algorithm
        from fray.integrity.checksums import algorithms

        if algorithm not in algorithms() and algorithm != "none":
            raise SpecError(f"algorithm: unknown checksum {algorithm!r} "
                            f"(known: auto, none, {', '.join(algorithms())})")
        self.algorithm = algorithm
        self.stats["one_copy"] = 0  # messages sent in one copy, from a buffer of ``alloc``
        self.network: dict[str, float] = {}
        defaults = RING_CHUNKS
        if measured_plan:
            bandwidth, gap, chunk_gap = measure_network(self.comm)
            self.network = {"bandwidth_bytes_s": bandwidth, "gap_s": gap,
                            "chunk_gap_s": chunk_gap, "csum_bandwidth_bytes_s": csum_bandwidth}
            defaults = net_chunk_plan(bandwidth, max(gap, chunk_gap), csum_bandwidth)
        self.plan = (*[d if g is None else g for g, d in zip(given, defaults)], 64)
        if eager_threshold_bytes is None:  # 2 g B_csum; a given last chunk stands for g B_csum
            eager_threshold_bytes = (2 * int(self.network["gap_s"] * csum_bandwidth)
                                     if measured_plan and first_chunk_bytes is None
                                     else 2 * self.plan[0])
        self.eager_threshold_bytes = eager_threshold_bytes
        _fray.integrity_chunk_plan(1, *self.plan)  # validates the plan, naming the bad field
        self._rings: Any = None
        self._net: Any = None
        self._window: MPI.Win | None = None
        self._buffers: list[MPI.Win] = []
        if self.path == "shared-memory":
            self._open_rings(ring_slots)
        else:
            self._net = self._open_net()

    def _choose_path(self, path: str) -> str:
        node = self.comm.Split_type(MPI.COMM_TYPE_SHARED)
        one_node = node.Get_size() == self.comm.Get_size()
        node.Free()
        if path == "auto":
            return "shared-memory" if one_node and self.comm.Get_size() > 1 else "mpi"
        if path == "shared-memory" and not one_node:
            raise SpecError("path: shared-memory needs every rank on one node")
        if path not in ("shared-memory", "mpi"):
            raise SpecError(f"path: expected auto, shared-memory or mpi, got {path!r}")
        return path

    def _open_net(self) -> Any:
        """The compiled transport on the private communicator, told how mpi4py's MPI library
        lays out its handles and statuses; eager sends are logged when every rank runs MPI at
        ``MPI_THREAD_MULTIPLE``."""
        self.logged = bool(self.comm.allreduce(
            MPI.Query_thread() == MPI.THREAD_MULTIPLE, op=MPI.LAND))
        _OPEN.add(self)
        probe = MPI.Status()
        probe.Set_source(_STATUS_PROBE_SOURCE)
        status = bytes(MPI.buffer.fromaddress(MPI._addressof(probe), MPI._sizeof(MPI.Status)))
        first, ratio, biggest, _ = self.plan
        return _fray.MpiTransport(
            comm=self.comm.handle, byte=MPI.BYTE.handle, any_source=MPI.ANY_SOURCE,
            request_bytes=MPI._sizeof(MPI.Request), status=status,
            status_source=_STATUS_PROBE_SOURCE, rank=self.rank, tag_ub=self.tag_ub,
            algorithm=self.algorithm, eager_threshold_bytes=self.eager_threshold_bytes,
            first_chunk_bytes=first, ratio=ratio, max_chunk_bytes=biggest,
            max_retries=self.max_retries,
            max_message_bytes=self.max_message_bytes, ber=self.ber, seed=self.seed,
            logged=self.logged)

    def _open_rings(self, slots: int) -> None:
        """Allocates one ring per ordered pair of ranks in a shared window (collective)."""
        size, rank = self.comm.Get_size(), self.rank
        first, ratio, slot_bytes, _ = self.plan
        ring = _fray.SharedMemoryRings.region_bytes(slots, slot_bytes)
        if ring > limits.MAX_MESSAGE_BYTES:  # the core's ring has no bound of its own
            super().free()  # every rank refuses alike
            raise SpecError(f"ring_slots: {slots} slots of {slot_bytes} bytes (max_chunk_bytes) "
                            f"take {ring} bytes of shared memory per peer, more than the "
                            f"{limits.MAX_MESSAGE_BYTES} (1 GiB) a ring may take")
        info = MPI.Info.Create()
        info.Set("alloc_shared_noncontig", "true")
        self._window = MPI.Win.Allocate_shared(ring * (size - 1), 1, info=info, comm=self.comm)
        info.Free()

        def region(owner: int, peer: int) -> np.ndarray:
            mem = np.frombuffer(self._window.Shared_query(owner)[0], dtype=np.uint8)
            k = peer if peer < owner else peer - 1
            return mem[k * ring:(k + 1) * ring]

        np.frombuffer(self._window.Shared_query(rank)[0], dtype=np.uint8)[:] = 0
        self.comm.Barrier()
        peers = [p for p in range(size) if p != rank]
        self._rings = _fray.SharedMemoryRings(
            rank, [(p, region(rank, p)) for p in peers], [(p, region(p, rank)) for p in peers],
            slots=slots, slot_bytes=slot_bytes, algorithm=self.algorithm,
            first_chunk_bytes=first, ratio=ratio, max_retries=self.max_retries,
            max_message_bytes=self.max_message_bytes, ber=self.ber, seed=self.seed)

    def alloc(self, nbytes: int) -> np.ndarray:
        """A zeroed ``uint8`` array of ``nbytes`` bytes from which ``send`` sends in one copy
        (collective: every rank calls ``alloc`` the same number of times, in the same order;
        the sizes may differ). On the shared-memory path it lies in a shared window and the
        receiver copies straight out of it; on the ``mpi`` path it is an ordinary array. It
        lives until ``free``."""
        self._live()
        if isinstance(nbytes, bool) or not isinstance(nbytes, numbers.Integral) or nbytes < 0:
            raise SpecError(f"nbytes: expected a whole number of bytes >= 0, got {nbytes!r}")
        most = max(self.max_message_bytes, limits.MAX_MESSAGE_BYTES)
        if nbytes > most:
            raise SpecError(f"nbytes: {limits.shown(nbytes)} bytes is more than the largest "
                            f"message this transport sends ({most} bytes: max_message_bytes, "
                            "at least 1 GiB)")
        nbytes = int(nbytes)
        if self._rings is None:
            return np.zeros(nbytes, dtype=np.uint8)
        info = MPI.Info.Create()
        info.Set("alloc_shared_noncontig", "true")
        win = MPI.Win.Allocate_shared(max(nbytes, 1), 1, info=info, comm=self.comm)
        info.Free()
        self._buffers.append(win)

        def part(owner: int) -> np.ndarray:
            return np.frombuffer(win.Shared_query(owner)[0], dtype=np.uint8)

        own = part(self.rank)[:nbytes]
        own[:] = 0
        self._rings.add_window(
            own, [(p, part(p)) for p in range(self.comm.Get_size()) if p != self.rank])
        self.comm.Barrier()
        return own

    def flush(self) -> None:
        """Waits until every message sent so far has been verified by its receiver, and
        raises ``IntegrityError`` for one that was refused. Only logged eager sends (``mpi``
        path) can be pending: every other send returns verified."""
        if self._net is not None:
            self.stats["resent"] += self._net.flush()

    def free(self) -> None:
        """Flushes (see ``flush``), then frees the rings, the shared windows (the buffers of
        ``alloc`` too) and the private communicator (collective)."""
        try:
            self.flush()
        finally:
            self._rings = self._net = None
            for win in [*self._buffers, self._window]:
                if win is not None:
                    win.Free()
            self._buffers, self._window = [], None
            super().free()

    # -------------------------------------------------------- sending, receiving
    def send(self, buf: Any, dest: int, tag: int = 0) -> None:
        """Sends ``buf`` (any contiguous bytes-like object); returns when ``dest`` has verified
        it, or for a logged eager message (see the module doc) once ``buf`` may be reused."""
        dest = self._rank(dest, "dest")
        self._wire(tag, 0)  # validates the tag
        if self._rings is not None:
            _, resent, one_copy = self._rings.send(buf, dest, tag)
            self.stats["one_copy"] += one_copy
        else:
            _, resent = self._net.send(buf, dest, tag)
        self.stats["messages"] += 1
        self.stats["resent"] += resent

    def recv(self, buf: Any, source: int = MPI.ANY_SOURCE, tag: int = 0) -> int:
        """Receives into ``buf`` (writable, contiguous); returns the message length in bytes.
        ``buf`` holds intact data, or ``IntegrityError`` is raised."""
        source = self._rank(source, "source", any_source=True)
        self._wire(tag, 0)
        ends = self._rings if self._rings is not None else self._net
        _, n, corrupted, injected = ends.recv(
            buf, None if source == MPI.ANY_SOURCE else source, tag)
        self.stats["messages"] += 1
        self.stats["corrupted"] += corrupted
        self.stats["injected_bits"] += injected
        return n


_OPEN: weakref.WeakSet[CheckedComm] = weakref.WeakSet()
"""Communicators with a compiled ``mpi``-path transport, closed at exit before MPI is."""


@atexit.register
def _close_open() -> None:
    """Stops the helper threads of transports still open, before MPI finalizes."""
    for c in list(_OPEN):
        c._net = None


class NaiveComm(_Base):
    """The naive approach: checksum the whole message, send header and data, checksum the
    whole message again on arrival; a mismatch resends everything."""

    def __init__(self, comm: MPI.Comm, algorithm: str = "crc32c", **kw: Any) -> None:
        super().__init__(comm, **kw)
        from fray.integrity.checksums import algorithms

        if algorithm not in algorithms():
            raise SpecError(f"algorithm: unknown checksum {algorithm!r}")
        self.algorithm = algorithm
        self._header = np.empty(HEADER, dtype=np.uint8)

    def send(self, buf: Any, dest: int, tag: int = 0) -> None:
        """Sends ``buf``; returns when ``dest`` has verified it."""
        dest = self._rank(dest, "dest")
        self._wire(tag, 0)
        src, n, seq = self._start_send(buf, dest)
        c = _fray.integrity_checksum(src, self.algorithm, 0)
        _fray.integrity_write_header(self._header, self.algorithm, seq, n, c, tag)
        def send_whole() -> None:
            self.comm.Send(self._header, dest=dest, tag=self._wire(tag, KIND_FIRST))
            self.comm.Send(src, dest=dest, tag=self._wire(tag, KIND_CHUNK))

        self._send_until_verified(send_whole, dest, tag, seq)

    def recv(self, buf: Any, source: int = MPI.ANY_SOURCE, tag: int = 0) -> int:
        """Receives into ``buf``; returns the message length in bytes."""
        source = self._rank(source, "source", any_source=True)
        self._wire(tag, 0)
        dst = _bytes_view(buf, "buf", writable=True)
        st = MPI.Status()
        for attempt in range(self.max_retries + 1):
            self.comm.Recv(self._header, source=source, tag=self._wire(tag, KIND_FIRST), status=st)
            source = st.Get_source()
            seq = self._recv_seq.get(source, 0)
            self.comm.Probe(source=source, tag=self._wire(tag, KIND_CHUNK), status=st)
            n = st.Get_count(MPI.BYTE)
            if n > dst.nbytes:
                self.comm.Recv(np.empty(n, dtype=np.uint8), source=source,
                               tag=self._wire(tag, KIND_CHUNK))
                self._send_verdict(ABORT, ABORT_TOO_LARGE, source, tag)
                raise SpecError(f"buf: the message from rank {source} has {n} bytes, the "
                                f"buffer holds {dst.nbytes}")
            self.comm.Recv(dst[:n], source=source, tag=self._wire(tag, KIND_CHUNK))
            self._inject(self._header, self._stream(source, seq, KIND_FIRST, 0, attempt))
            self._inject(dst[:n], self._stream(source, seq, KIND_CHUNK, 0, attempt))
            head = _fray.integrity_read_header(self._header)
            if head is not None and head[1] == n and \
                    _fray.integrity_checksum(dst[:n], head[3], 0) == head[2]:
                self._send_verdict(OK, 0, source, tag)
                self._recv_seq[source] = seq + 1
                self.stats["messages"] += 1
                return n
            self.stats["corrupted"] += 1
            if attempt < self.max_retries:
                self._send_verdict(NACK, 0, source, tag)
        self._send_verdict(ABORT, ABORT_RETRIES, source, tag)
        raise IntegrityError(f"message from rank {source}: still corrupted after "
                             f"{self.max_retries} retries")


class PlainComm(_Base):
    """No checksum: plain ``Send``/``Recv``. Injected flips go undetected (counted in
    ``stats["undetected"]``)."""

    def send(self, buf: Any, dest: int, tag: int = 0) -> None:
        """Sends ``buf``."""
        dest = self._rank(dest, "dest")
        self._wire(tag, 0)
        src = _bytes_view(buf, "buf")
        self._check_size(src.nbytes)
        self.stats["messages"] += 1
        self.comm.Send(src, dest=dest, tag=self._wire(tag, KIND_CHUNK))

    def recv(self, buf: Any, source: int = MPI.ANY_SOURCE, tag: int = 0) -> int:
        """Receives into ``buf``; returns the message length in bytes."""
        source = self._rank(source, "source", any_source=True)
        self._wire(tag, 0)
        dst = _bytes_view(buf, "buf", writable=True)
        st = MPI.Status()
        self.comm.Recv(dst, source=source, tag=self._wire(tag, KIND_CHUNK), status=st)
        n = st.Get_count(MPI.BYTE)
        seq = self._recv_seq.get(st.Get_source(), 0)
        self._recv_seq[st.Get_source()] = seq + 1
        flips = self._inject(dst[:n], self._stream(st.Get_source(), seq, KIND_CHUNK, 0, 0))
        self.stats["undetected"] += 1 if flips else 0
        self.stats["messages"] += 1
        return n
