"""One simulation on any engine: :func:`simulate`, the one way into fray's engines for a
single run, and what it gives (:class:`SimulationResult`).

A run takes a fabric, a workload, optional faults, a routing, an engine, host costs and a
seed. The workload is a workload spec (``"halo3d26:jobs=4,nx=30"``, or any object whose
``str()`` is one), a list of messages ``(src_endpoint, dst_endpoint, size_bytes)`` sent in
one phase, or open-loop :class:`Traffic`. The simulation runs in Rust
(``fray._fray.simulate``); this module checks the arguments and types the result.

>>> import fray
>>> r = fray.simulate("torus:4x4", [(0, 5, 1e6)], engine="load")
>>> r.jobs[0].messages
1
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fray import _fray, profiles, units
from fray._fray import Fabric, Faults, SpecError
from fray.arguments import real
from fray.profiles import Profile

__all__ = ["JobResult", "LoadReport", "SimulationResult", "Traffic", "TrafficResult", "simulate"]

@dataclass(frozen=True)
class Traffic:
    """Open-loop uniform random traffic, a workload of :func:`simulate` on the packet engine:
    every endpoint injects one-packet messages to destinations drawn uniformly among the
    others, at exponential intervals whose mean offers ``load`` (a fraction of each
    endpoint's injection bandwidth, > 0). ``warmup`` and ``measure`` are the simulated
    times before and of the measurement: seconds, or a time with its unit (``"20us"``)."""

    load: float
    warmup: float | str = 20e-6
    measure: float | str = 50e-6

    def __repr__(self) -> str:
        return f"Traffic(load={self.load!r}, warmup={self.warmup!r}, measure={self.measure!r})"

    def _triple(self) -> tuple[float, float, float]:
        def seconds(value: float | str, name: str) -> float:
            if isinstance(value, str):
                return units.parse_seconds(value, name)
            return real(value, name)

        measure = seconds(self.measure, "measure")
        if not measure > 0:
            raise SpecError(f"measure: the measured time must be positive, got {measure:g} s")
        return (real(self.load, "load"), seconds(self.warmup, "warmup"), measure)


@dataclass(frozen=True)
class JobResult:
    """One job of a run: its ``name``, ``ranks``, time per iteration ``iteration_s`` and
    whole run ``makespan_s`` (seconds), and the ``messages`` and ``bytes`` it sent."""

    name: str
    ranks: int
    iteration_s: float
    makespan_s: float
    messages: int
    bytes: float

    def __getitem__(self, key: str) -> object:
        """The former dict spelling, ``job["iteration_s"]`` (warns): use ``job.iteration_s``."""
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        warnings.warn(f'job["{key}"] is job.{key} now', DeprecationWarning, stacklevel=2)
        return getattr(self, key)

    def __repr__(self) -> str:
        return (f"JobResult({self.name!r}, ranks={self.ranks}, "
                f"iteration_s={self.iteration_s:.6g}, messages={self.messages}, "
                f"bytes={self.bytes:.6g})")


@dataclass(frozen=True)
class TrafficResult:
    """What open-loop :class:`Traffic` measured in its window: ``offered`` and ``accepted``
    load (bytes generated and delivered over what the endpoints could inject),
    ``latency_mean_s`` (mean injection-to-delivery time of the packets delivered in the
    window, NaN when none was), ``packets`` delivered and ``events`` handled over the whole
    run, and ``wall_s`` (the run's wall-clock seconds)."""

    offered: float
    accepted: float
    latency_mean_s: float
    packets: int
    events: int
    wall_s: float


@dataclass(frozen=True, eq=False)
class LoadReport:
    """The load engine's account of one job's messages, all routed at once: ``routes`` and
    ``bytes`` crossing each channel (arrays by channel id, router channels then host
    channels), ``max_routes`` (over every channel), ``max_network_routes`` (over the router
    channels: the spare-node paper's "message collisions"), ``histogram`` (``histogram[k]``
    router channels crossed by exactly ``k`` routes), ``total_hops`` (router-to-router hops
    summed over the messages) and ``phase_time_s`` (the busiest channel's bytes over its
    bandwidth plus the slowest path's latency, seconds)."""

    max_routes: int
    max_network_routes: int
    histogram: list[int]
    total_hops: int
    phase_time_s: float
    routes: np.ndarray
    bytes: np.ndarray

    def __getitem__(self, key: str) -> object:
        """The former dict spelling, ``report["max_routes"]``: the field of that name."""
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __repr__(self) -> str:
        return (f"LoadReport(max_routes={self.max_routes}, "
                f"max_network_routes={self.max_network_routes}, total_hops={self.total_hops}, "
                f"phase_time_s={self.phase_time_s:.6g}, routes=<{len(self.routes)} channels>)")


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """What one :func:`simulate` call gave, with the metrics of the studies' tables.

    - ``engine`` and ``routing``: the specs that ran, and the ``seed``; ``vcs``: the packet
      engine's virtual channels per channel, raised to what the routing needs (else
      ``None``).
    - ``jobs``: one :class:`JobResult` per job, in placement order (none for traffic).
    - ``throughput``: machine throughput, rank-iterations per second summed over the jobs,
      as :func:`fray.links.study` counts it (``None`` for traffic).
    - ``channel_bytes``: bytes each channel carried over the run, by channel id (the flow
      engine's fluid bytes, the packet engine's payload bytes without link-level resends,
      the load engine's routed bytes; empty for traffic).
    - ``traffic``: a :class:`TrafficResult` for traffic, else ``None``.
    - ``loads``: on the load engine, one :class:`LoadReport` per job (where each job's
      messages go and how busy the busiest channel is); empty on the other engines.
    - ``message_end_s``: for a list of messages on the flow engine, when each message's
      last byte arrived (seconds, in the order given); else ``None``.
    """

    engine: str
    routing: str
    seed: int
    jobs: tuple[JobResult, ...]
    throughput: float | None
    channel_bytes: np.ndarray
    traffic: TrafficResult | None = None
    vcs: int | None = None
    loads: tuple[LoadReport, ...] = ()
    message_end_s: np.ndarray | None = None

    @property
    def iteration_s(self) -> list[float]:
        """Time per iteration of each job, in seconds."""
        return [j.iteration_s for j in self.jobs]

    def __repr__(self) -> str:
        head = f"engine={self.engine!r}, routing={self.routing!r}, seed={self.seed}"
        if self.traffic is not None:
            return f"SimulationResult({head}, traffic={self.traffic!r})"
        jobs = ", ".join(f"{j.name}: {j.ranks} ranks, {j.iteration_s:.6g} s/iteration"
                         for j in self.jobs[:4])
        if len(self.jobs) > 4:
            jobs += f", ... ({len(self.jobs)} jobs)"
        return (f"SimulationResult({head}, throughput={self.throughput:.6g} "
                f"rank-iterations/s, jobs=[{jobs}], channel_bytes=<{len(self.channel_bytes)} "
                f"channels, {self.channel_bytes.sum():.6g} B>)")


def _optional(name: str, value: object) -> float | None:
    return None if value is None else real(value, name)


def _messages(workload: Sequence) -> list[tuple[int, int, float]]:
    """``workload`` as ``(src, dst, size_bytes)`` triples, else a ``SpecError`` naming the
    first bad message (the core checks the endpoints exist)."""
    out = []
    for i, m in enumerate(workload):
        try:
            src, dst, size = m
        except (TypeError, ValueError):
            raise SpecError(f"workload: message {i} is not (src, dst, size_bytes): {m!r}") from None
        for name, v in (("src", src), ("dst", dst)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v < 2**32:
                raise SpecError(f"workload: message {i}'s {name} is not an endpoint: {v!r}")
        out.append((int(src), int(dst), real(size, f"workload: message {i}'s size_bytes")))
    return out


def _seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
        raise SpecError(f"seed: must be a whole number from 0 to 2^64-1, got {seed!r}")
    return int(seed)


def _fabric(fabric: object) -> Fabric:
    """``fabric`` as a :class:`Fabric`: a ``Fabric`` as it is, a spec (``"torus:4x4"``) read;
    anything else is a ``SpecError`` naming the argument."""
    if isinstance(fabric, Fabric):
        return fabric
    if isinstance(fabric, str):
        return Fabric.parse(fabric)
    raise SpecError(f"fabric: expected a fray.Fabric or a fabric spec such as 'torus:4x4', "
                    f"got {fabric!r}")


def _spec(value: object) -> str | None:
    """An option given as a spec string or an object whose ``str()`` is one."""
    return None if value is None else str(value)


def simulate(
    fabric: Fabric | str,
    workload: object,
    faults: Faults | None = None,
    routing: object = None,
    engine: object = None,
    host: object = None,
    seed: int = 1,
    *,
    time_tolerance: float | None = None,
    time_resolution: float | None = None,
    profile: Profile | str | None = None,
) -> SimulationResult:
    """Runs ``workload`` on ``fabric`` once and returns a :class:`SimulationResult`.

    ``fabric`` is a :class:`fray.Fabric` or its spec (``"dragonfly:p=4,a=8,h=2,g=9"``).
    ``workload`` is one of:

    - a workload spec such as ``"halo3d26:jobs=4,nx=30"`` (motifs ``halo3d26``,
      ``sweep3d``, ``lqcd``, ``uniform`` with Ember's parameter names; ``jobs=`` equal jobs
      placed after random idle endpoints with ``seed``, as the studies place them), or an
      object whose ``str()`` is one;
    - a list of messages ``(src_endpoint, dst_endpoint, size_bytes)``, all posted at time 0
      as one job named ``messages`` (rank ``i`` on endpoint ``i``);
    - :class:`Traffic`: open-loop uniform random traffic (the packet engine only).

    ``faults`` is a :class:`fray.Faults` of the same fabric (default: nothing down).
    ``routing`` is a routing spec (``"ugal"``, ``"dor"``, ...; default the fabric's own),
    ``engine`` an engine spec: ``"flow[:OPTIONS]"`` (the max-min fair flow engine, default;
    ``time_tolerance``, ``time_resolution``),
    ``"load"`` (the static load engine's estimate) or ``"packet[:OPTIONS]"`` (the packet
    engine, the default for traffic; options in docs/packet.md). ``host`` is a host-costs
    spec (``"ember"``) charged on every rank's core, for a workload whose spec names none.
    Each of ``routing``, ``engine`` and ``host`` may also be an object whose ``str()`` is the
    spec. ``seed`` draws the layout and every random choice; the same inputs and seed give
    the same result, bit for bit.

    ``time_tolerance`` and ``time_resolution`` (seconds) are the flow engine's, as its spec
    also takes them (give each in one place): flows that end within that share of their
    message's time, or within that many seconds, of an event leave the network with it
    (both 0 is exact; ``None``, the engine's own, by default 3e-3 and 20 ns as in every
    study). ``profile`` (a
    :class:`fray.profiles.Profile` or its name, ``"sst"``) supplies the routing, engine,
    host costs and link rate not given.

    Raises ``UnroutableError`` when a message cannot be routed, ``SpecError`` (with
    ``field``) for bad input.
    """
    routing, engine, host = _spec(routing), _spec(engine), _spec(host)
    spec = messages = traffic = None
    if isinstance(workload, Traffic):
        traffic = workload._triple()
    elif isinstance(workload, (list, tuple, np.ndarray)):
        messages = _messages(workload)
    elif workload is None:
        raise SpecError("workload: give a workload spec, a list of messages or a Traffic")
    else:
        spec = str(workload)
    if profile is not None:
        if spec is not None and host is None:
            fabric, spec, routing, engine = profiles.apply(profile, fabric, spec, routing, engine)
        else:
            c = profiles.choose(profile, routing=routing, engine=engine, host=host,
                                link_bandwidth_bytes_s=None)
            routing, engine = c["routing"], c["engine"]
            host = c["host"] if traffic is None else host
            if isinstance(fabric, str):
                fabric = Fabric.parse(fabric, bandwidth_bytes_s=c["link_bandwidth_bytes_s"])
    fab = _fabric(fabric)
    seed = _seed(seed)
    r = _fray.simulate(fab, spec, messages, traffic, faults, routing, engine, host, seed,
                       _optional("time_tolerance", time_tolerance),
                       _optional("time_resolution", time_resolution))
    return SimulationResult(
        engine=r["engine"],
        routing=r["routing"],
        seed=seed,
        jobs=tuple(JobResult(**j) for j in r["jobs"]),
        throughput=None if traffic is not None else r["throughput"],
        channel_bytes=np.asarray(r["channel_bytes"], dtype=float),
        traffic=None if r["traffic"] is None else TrafficResult(**r["traffic"]),
        vcs=r["vcs"],
        loads=tuple(LoadReport(**(d | {"routes": np.asarray(d["routes"], dtype=np.int64),
                                        "bytes": np.asarray(d["bytes"], dtype=float)}))
                    for d in r["loads"]),
        message_end_s=(np.asarray(r["message_end_s"], dtype=float) if r["message_end_s"]
                       else None),
    )
