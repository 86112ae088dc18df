"""The standard fray scenarios: spare-study evaluation rate and full curves, static stencil load.

Each scenario returns a :class:`result.Result`.
"""

from __future__ import annotations

import fray.spares
from fray import _fray
from result import Result
from timing import Sample, measure

#: The allocation and substitution method of every spare scenario (the paper's best).
ALLOC, METHOD = "3D(2,1)", "hybrid(all)"
#: Bytes each node sends to each neighbour in the halo exchange.
STENCIL_SIZE_BYTES = 1e6


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
            out = _fray.stencil_load(torus, "7P", True, STENCIL_SIZE_BYTES)
        return out

    batches, out = measure(run, repeat)
    runs = [Sample(s.wall_s / inner, s.cpu_s / inner, s.load_before) for s in batches]
    return Result(
        scenario="load-stencil",
        case=f"{fabric} 7P periodic, {STENCIL_SIZE_BYTES:g} B/msg",
        runs=runs,
        work=out["total_hops"],
        work_unit="hops routed",
        extra={
            "fabric": fabric,
            "phase_time_s": out["phase_time_s"],
            "max_routes": out["max_network_routes"],
            "total_hops": out["total_hops"],
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


def packet_traffic(
    fabric: str, routing: str, vcs: int, packet_bytes: int, load: float, repeat: int
) -> Result:
    """Uniform random traffic at ``load`` on the packet engine (20 us warm-up, 50 us
    measured): simulated packets per second of wall time."""
    f = _fray.Fabric.parse(fabric)

    def run():
        return _fray.packet_traffic(
            f, load, routing=routing, vcs=vcs, packet_bytes=packet_bytes, seed=1
        )

    runs, out = measure(run, repeat)
    return Result(
        scenario="packet-traffic",
        case=f"{fabric} {routing} vcs={vcs} {packet_bytes} B load {load}",
        runs=runs,
        work=out["packets"],
        work_unit="packets",
        extra={"accepted": out["accepted"], "latency_mean_s": out["latency_mean_s"]},
    )
