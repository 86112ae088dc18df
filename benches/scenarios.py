"""The standard fray scenarios: spare-study evaluation rate and full curves, static stencil load,
the failed-links exchange, and the flow engine on the message lists that the SimGrid peer also
runs.

Each scenario returns a :class:`result.Result`.
"""

from __future__ import annotations

import itertools

import fray.links
import fray.spares
import numpy as np
from fray import _fray
from result import Result
from timing import Sample, measure, summary

#: The allocation and substitution method of every spare scenario (the paper's best).
ALLOC, METHOD = "3D(2,1)", "hybrid(all)"
#: Bytes each node sends to each neighbour in the halo exchange.
STENCIL_SIZE_BYTES = 1e6
#: Bytes of every message of the flow-peer permutation.
PERMUTATION_SIZE_BYTES = 1e6
#: Ember's Halo3D26 defaults for the flow-peer exchange: cells per rank along each axis, and
#: bytes per cell (one 8-byte field).
HALO_NX, HALO_CELL_BYTES = 30, 8.0
#: The failed-links study's default flow-engine time tolerance and resolution (seconds).
LINKS_TOLERANCE = fray.links.DEFAULT_TIME_TOLERANCE
LINKS_RESOLUTION_S = fray.links.DEFAULT_TIME_RESOLUTION_S
#: Time tolerance of the flow engine where it is compared with SimGrid message by message:
#: every message ends within 3x this share of its time (fray's default is 1e-3).
FLOW_PEER_TOLERANCE = 1e-4


def _spare_study(
    name: str, fabric: str, samples: int, full_samples: int, repeat: int, target_s: float | None
) -> Result:
    """Times ``fray.spares.study`` with ``samples`` sequences (seed 1)."""
    spares = fray.spares.allocation(fabric, ALLOC)
    max_failures = spares["num_spares"]

    def run():
        return fray.spares.study(fabric=fabric, alloc=ALLOC, method=METHOD, samples=samples, seed=1)

    runs, table = measure(run, repeat)
    return Result(
        scenario=name,
        case=f"{fabric} {ALLOC} {METHOD}, {samples} seq x {max_failures} failures",
        runs=runs,
        work=samples * max_failures,
        work_unit="evaluations",
        scale=full_samples / samples,
        target_s=target_s,
        extra={
            "num_ranks": spares["num_nodes"] - max_failures,
            "num_spares": max_failures,
            "final_mean_collisions": float(table["mean"].iloc[-1]),
        },
    )


def spares_eval_rate(samples: int, repeat: int) -> Result:
    """Failure-set evaluations per second on the 12^3 torus."""
    return _spare_study("spares-eval-rate", "torus:12x12x12", samples, samples, repeat, None)


def spares_curve_12(samples: int, repeat: int) -> Result:
    """The full 12^3 curve: 10,000 sequences, target under 2 minutes."""
    return _spare_study("spares-curve-12", "torus:12x12x12", samples, 10_000, repeat, 120.0)


def spares_curve_24(samples: int, repeat: int) -> Result:
    """The paper's 24^3 curve: 3,300 sequences (about 3.7 million evaluations), target under
    10 minutes."""
    return _spare_study("spares-curve-24", "torus:24x24x24", samples, 3_300, repeat, 600.0)


def load_stencil(fabric: str, repeat: int, inner: int) -> Result:
    """One periodic 7P halo exchange on the static load engine (parse the fabric, route and
    count every message). Each run makes ``inner`` calls; times are per call. The host links
    are made ideal (no bandwidth limit, no latency), as in SimGrid's torus cluster, which has
    no injection link: both then answer the same question."""

    def run():
        for _ in range(inner):
            torus = _fray.Fabric.parse(fabric).with_class_link("host", 1e18, 0.0)
            out = fray.stencil_load(torus, "7P", True, STENCIL_SIZE_BYTES)
        return out

    batches, out = measure(run, repeat)
    runs = [Sample(s.wall_s / inner, s.cpu_s / inner, s.load_before) for s in batches]
    return Result(
        scenario="load-stencil",
        case=f"{fabric} 7P periodic, {STENCIL_SIZE_BYTES:g} B/msg",
        runs=runs,
        work=out.total_hops,
        work_unit="hops routed",
        extra={
            "fabric": fabric,
            "phase_time_s": out.phase_time_s,
            "max_routes": out.max_network_routes,
            "total_hops": out.total_hops,
        },
    )


#: The soft-error study's fat tree (1,728 endpoints) and its 4X SDR links.
PAPER_TREE = "xgft:3;24,12,6;1,12,6"


def collective_random(ops: int, repeat: int) -> Result:
    """``ops`` fabric-based allreduces (temporal:2) on the 1,728-node tree with exponential
    soft errors of mean 10 us per channel; target: 1,000 operations under 30 s."""
    tree = _fray.Fabric.parse(PAPER_TREE, bandwidth_bytes_s=1e9, latency_s=100e-9)

    def run():
        return _fray.allreduce_study(tree, "temporal:2", "exp:10us", ops=ops, seed=1)

    runs, out = measure(run, repeat)
    return Result(
        scenario="collective-random",
        case=f"{PAPER_TREE} temporal:2 exp:10us, {ops} ops",
        runs=runs,
        work=ops,
        work_unit="allreduces",
        scale=1000 / ops,
        target_s=30.0,
        extra={"mean_s": out["mean_s"], "retransmissions": out["retransmissions"]},
    )


def links_exchange(fabric: str, failed: float, target_s: float, repeat: int) -> Result:
    """One Halo3D26 iteration of the failed-links study (one job, the largest cube of ranks,
    Ember's compute, UGAL) with ``failed`` of the global cables down, on the flow engine at
    the study's default time tolerance and resolution."""
    f = _fray.Fabric.parse(fabric)
    faults = _fray.Faults.fail_links(f, "global", failed, 1)

    def run():
        return fray.simulate(
            f, "halo3d26", faults=faults, routing="ugal", time_tolerance=LINKS_TOLERANCE,
            time_resolution=LINKS_RESOLUTION_S,
        )

    runs, out = measure(run, repeat)
    return Result(
        scenario="links-exchange",
        case=f"{fabric} halo3d26 ugal, {failed:.0%} global failed",
        runs=runs,
        target_s=target_s,
        extra={"iteration_s": out.iteration_s[0]},
    )


#: The fabric, link bandwidth, failed share of the global cables and routing on which the
#: flow engine's cost is set against the packet engine's: a 544-endpoint dragonfly with a
#: tenth of its global cables down.
ENGINE_RATIO_FABRIC, ENGINE_RATIO_BANDWIDTH, ENGINE_RATIO_FAILED, ENGINE_RATIO_ROUTING = (
    "dragonfly:p=4,a=8,h=4,g=17", 4e9, 0.1, "ugal",
)


def engine_ratio(workload: str, repeat: int, flow_engine: str = "flow") -> Result:
    """One run of ``workload`` on the flow engine ``flow_engine`` (a spec; the study's time
    tolerance and resolution) and on the packet engine, alternated ``repeat`` times on the
    same fabric, faults and routing: the flow engine's runs, with the packet engine's CPU
    times and the ratio of the medians (packet over flow)."""
    f = _fray.Fabric.parse(ENGINE_RATIO_FABRIC, bandwidth_bytes_s=ENGINE_RATIO_BANDWIDTH)
    faults = _fray.Faults.fail_links(f, "global", ENGINE_RATIO_FAILED, 1)

    def flow():
        return fray.simulate(
            f, workload, faults=faults, routing=ENGINE_RATIO_ROUTING, engine=flow_engine,
            time_tolerance=LINKS_TOLERANCE, time_resolution=LINKS_RESOLUTION_S,
        )

    def packet():
        return fray.simulate(
            f, workload, faults=faults, routing=ENGINE_RATIO_ROUTING, engine="packet"
        )

    flow_runs, packet_runs = [], []
    for _ in range(repeat):
        runs, flow_out = measure(flow, 1)
        flow_runs += runs
        runs, packet_out = measure(packet, 1)
        packet_runs += runs
    flow_cpu = summary([s.cpu_s for s in flow_runs])["median"]
    packet_cpu = summary([s.cpu_s for s in packet_runs])["median"]
    return Result(
        scenario="engine-ratio",
        case=f"{workload} on {ENGINE_RATIO_FABRIC}, {ENGINE_RATIO_FAILED:.0%} global failed, "
        f"{flow_engine}",
        runs=flow_runs,
        extra={
            "workload": workload,
            "flow_engine": flow_engine,
            "flow_cpu_s": flow_cpu,
            "packet_cpu_s": packet_cpu,
            "packet_over_flow": packet_cpu / flow_cpu,
            "flow_iteration_s": flow_out.iteration_s[0],
            "packet_iteration_s": packet_out.iteration_s[0],
        },
    )


def packet_traffic(
    fabric: str, routing: str, vcs: int, packet_bytes: int, load: float, repeat: int
) -> Result:
    """Uniform random traffic at ``load`` on the packet engine (20 us warm-up, 50 us
    measured): simulated packets per second of wall time."""
    f = _fray.Fabric.parse(fabric)

    def run():
        return fray.simulate(
            f, fray.Traffic(load), routing=routing, engine=f"packet:vcs={vcs},mtu={packet_bytes}"
        ).traffic

    runs, out = measure(run, repeat)
    return Result(
        scenario="packet-traffic",
        case=f"{fabric} {routing} vcs={vcs} {packet_bytes} B load {load}",
        runs=runs,
        work=out.packets,
        work_unit="packets",
        extra={"accepted": out.accepted, "latency_mean_s": out.latency_mean_s},
    )


def torus_dims(fabric: str) -> list[int]:
    """The sizes of a torus spec (``"torus:8x8x16"`` -> ``[8, 8, 16]``)."""
    return [int(d) for d in fabric.removeprefix("torus:").split("x")]


def permutation_messages(fabric: str, size_bytes: float, seed: int) -> list:
    """One random permutation of ``size_bytes`` messages over the fabric's endpoints: every
    endpoint sends one message and receives one, never to itself (a derangement, drawn from
    numpy's PCG64 with ``seed``: permutations are drawn until one has no fixed point)."""
    n = _fray.Fabric.parse(fabric).num_endpoints
    rng = np.random.default_rng(seed)
    while True:
        dst = rng.permutation(n)
        if not (dst == np.arange(n)).any():
            break
    return list(zip(range(n), dst.tolist(), itertools.repeat(float(size_bytes))))


def largest_cube(fabric: str) -> list[int]:
    """The rank grid of the failed-links study's one job: the largest cube of ranks that fits
    on the fabric's endpoints (``[10, 10, 10]`` on 1,056 endpoints)."""
    n = _fray.Fabric.parse(fabric).num_endpoints
    side = round(n ** (1 / 3))
    side -= side**3 > n
    return [side] * 3


def halo3d26_messages(
    grid: list[int], periodic: bool, nx: int = HALO_NX, cell_bytes: float = HALO_CELL_BYTES
) -> list:
    """One Halo3D26 exchange on the rank ``grid`` (sizes, dimension 0 fastest) with rank
    ``i`` on endpoint ``i``: every rank sends to each of its 26 neighbours a face (``nx * nx``
    cells), an edge (``nx``) or a corner (1 cell) of ``cell_bytes`` each, as Ember's Halo3D26
    with ``nx = ny = nz``. With ``periodic`` the grid wraps around (every rank has 26
    neighbours); without, as in Ember and fray's ``halo3d26``, ranks on the grid's boundary
    have fewer. Messages go offset by offset, rank by rank within one."""
    dims = np.array(grid)
    ranks = np.arange(int(np.prod(dims)))
    strides = np.concatenate(([1], np.cumprod(dims)[:-1]))
    coords = (ranks[:, None] // strides) % dims
    src, dst, size = [], [], []
    for offset in itertools.product((-1, 0, 1), repeat=3):
        zeros = offset.count(0)
        if zeros == 3:
            continue
        shifted = coords + np.array(offset)
        inside = ((shifted >= 0) & (shifted < dims)).all(axis=1) | periodic
        src.append(ranks[inside])
        dst.append((shifted[inside] % dims) @ strides)
        size.append(np.full(int(inside.sum()), float(nx**zeros) * cell_bytes))
    return list(zip(*(np.concatenate(a).tolist() for a in (src, dst, size))))


def routes_unlike_simgrid(fabric: str, messages: list) -> int:
    """How many of ``messages`` SimGrid's torus zone routes another way than fray's ``dor``.

    Both correct dimension 0 first and go the shorter way round; when both ways are equally
    long (half an even ring) fray always goes up, SimGrid goes up too except from coordinate
    ``size / 2`` to coordinate 0, where it goes down (TorusZone's direction test). Those
    messages cross other links in SimGrid, which changes their sharing and their neighbours'.
    """
    dims = np.array(torus_dims(fabric))
    strides = np.concatenate(([1], np.cumprod(dims)[:-1]))
    pairs = np.array([(s, d) for s, d, _ in messages], dtype=np.int64)
    src = (pairs[:, :1] // strides) % dims
    dst = (pairs[:, 1:] // strides) % dims
    tie_down = (dims % 2 == 0) & (src == dims // 2) & (dst == 0)
    return int(tie_down.any(axis=1).sum())


def flow_fabric(fabric: str, latency_s: float | None):
    """The fabric as both simulators see it. On a torus the host links are ideal (SimGrid's
    torus cluster has no injection link) and ``latency_s`` goes on every torus link;
    elsewhere SimGrid is given fray's channels themselves, so ``latency_s`` goes on every
    channel, host channels included. ``None`` keeps fray's default latencies."""
    f = _fray.Fabric.parse(fabric)
    torus = fabric.startswith("torus:")
    if torus:
        f = f.with_class_link("host", 1e18, 0.0)
    if latency_s is None:
        return f
    for cls in f.class_names:
        if cls != "host" or not torus:
            channel = next(
                f.channel(c) for c in range(f.num_channels) if f.channel(c)["cls"] == cls
            )
            f = f.with_class_link(cls, channel["bandwidth_bytes_s"], latency_s)
    return f


def flow_routing(fabric: str) -> str:
    """The routing both simulators use: ``dor`` on a torus (what SimGrid's torus cluster
    does), else ``minimal``, which SimGrid is given route by route (deterministic on a
    dragonfly with one global link per pair of groups)."""
    return "dor" if fabric.startswith("torus:") else "minimal"


def explicit_platform(fabric: str, messages: list, latency_s: float) -> dict:
    """What ``peers/simgrid_routes.py`` reads: ``[bandwidth_bytes_s, latency_s]`` of every
    channel of :func:`flow_fabric`, the number of endpoints, and every message of
    ``messages`` (``(src, dst, bytes)``) with the channel ids of its route under
    :func:`flow_routing`."""
    f = flow_fabric(fabric, latency_s)
    channels = (f.channel(c) for c in range(f.num_channels))
    routing = flow_routing(fabric)
    return {
        "links": [[ch["bandwidth_bytes_s"], ch["latency_s"]] for ch in channels],
        "hosts": f.num_endpoints,
        "messages": [[s, d, b, f.route(s, d, routing=routing)] for s, d, b in messages],
    }


def torus_link_bandwidth_bytes_s(fabric: str) -> float:
    """Bandwidth of the torus's first router channel (every torus link has the same)."""
    return _fray.Fabric.parse(fabric).channel(0)["bandwidth_bytes_s"]


def flow_peer(fabric: str, workload: str, messages: list, latency_s: float, repeat: int) -> Result:
    """One phase of ``messages`` (``(src, dst, bytes)`` over endpoints) on the flow engine
    with :func:`flow_routing`, the links of :func:`flow_fabric` at ``latency_s``. A run
    builds the fabric and simulates, as the SimGrid peer loads its platform and simulates.
    The last run's per-message completion times go in ``extra``; off a torus SimGrid is given
    fray's routes, so none is unlike SimGrid's."""
    torus = fabric.startswith("torus:")

    def run():
        f = flow_fabric(fabric, latency_s)
        return fray.simulate(
            f, messages, routing=flow_routing(fabric),
            engine=fray.FlowEngine(time_tolerance=FLOW_PEER_TOLERANCE, time_resolution="0s"))

    runs, out = measure(run, repeat)
    return Result(
        scenario="flow-peer",
        case=f"{fabric} {workload}, {len(messages)} messages, {latency_s * 1e9:g} ns/hop",
        runs=runs,
        work=len(messages),
        work_unit="messages",
        extra={
            "fabric": fabric,
            "workload": workload,
            "latency_s": latency_s,
            "makespan_s": out.jobs[0].makespan_s,
            "routes_unlike_simgrid": routes_unlike_simgrid(fabric, messages) if torus else 0,
            "completion_s": out.message_end_s.tolist(),
        },
    )
