"""The packet engine's studies: fabric-based allreduce under soft errors, and open-loop
traffic. Each row comes from one call into the Rust engine; Python only builds the table."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import pandas as pd

from fray import SpecError, _fray, units
from fray._fray import Fabric
from fray.options import PacketEngine, parse_engine
from fray.simulate import Traffic, simulate

#: 4X SDR InfiniBand as in the soft-error study: 10 Gb/s signalling, 8 Gb/s of data.
PAPER_BANDWIDTH = "1GB/s"
#: Delay of every switch and HCA in the soft-error study.
PAPER_LATENCY = "100ns"


def _fabric(spec: str, link_bandwidth: str, link_latency: str) -> Fabric:
    if not isinstance(spec, str):
        raise SpecError(f"fabric: expected a fabric spec such as 'xgft:2;4,4;1,4', got {spec!r}")
    return Fabric.parse(
        spec,
        bandwidth_bytes_s=units.parse_rate(link_bandwidth, "link_bandwidth"),
        latency_s=units.parse_seconds(link_latency, "link_latency"),
    )


def collective(
    fabric: str,
    replications: list[str],
    errors: list[str],
    *,
    ops: int = 1000,
    seed: int = 1,
    link_bandwidth: str = PAPER_BANDWIDTH,
    link_latency: str = PAPER_LATENCY,
    mtu: int = 256,
    nak: str = "0ns",
) -> tuple[pd.DataFrame, dict[tuple[str, str], list[float]]]:
    """Runs ``ops`` fabric-based allreduces for every (replication, errors) pair: a table
    with one row per pair (``replication, copies, errors, ops, mean_s, p50_s, p99_s, std_s,
    retransmissions``) and the time of every operation by pair, for plots. ``mtu`` is the
    largest packet payload in bytes (the packet engine's ``mtu``); ``nak`` is the detection
    and NAK time of a link-level retry on top of the wire's latency back."""
    if isinstance(ops, bool) or not isinstance(ops, int) or ops < 1:
        raise SpecError(f"ops: at least one operation, got {ops!r}")
    _names("replications", replications)
    _names("errors", errors)
    f = _fabric(fabric, link_bandwidth, link_latency)
    nak_s = units.parse_seconds(nak, "nak")
    rows, times = [], {}
    for replication in replications:
        for model in errors:
            r = _fray.allreduce_study(
                f, replication, model, ops=ops, mtu=mtu, nak_s=nak_s, seed=seed
            )
            rows.append(
                {
                    "replication": r["replication"],
                    "copies": r["copies"],
                    "errors": model,
                    "ops": ops,
                    "mean_s": r["mean_s"],
                    "p50_s": r["p50_s"],
                    "p99_s": r["p99_s"],
                    "std_s": r["std_s"],
                    "retransmissions": r["retransmissions"],
                }
            )
            times[(replication, model)] = r["op_times_s"]
    table = pd.DataFrame(rows)
    table.attrs.update(fabric=fabric, link_bandwidth=link_bandwidth, link_latency=link_latency,
                       nak=nak, seed=seed)
    return table, times


def _names(name: str, values: object) -> None:
    """A ``SpecError`` naming ``name`` unless ``values`` is a list of specs (a string alone
    would be read one character at a time)."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise SpecError(f"{name}: expected a list of specs, got {values!r}")


def traffic(
    fabric: str,
    loads: list[float],
    *,
    routing: str | None = None,
    engine: str | PacketEngine = "packet",
    warmup_s: float = 20e-6,
    measure_s: float = 50e-6,
    seed: int = 1,
) -> pd.DataFrame:
    """Uniform random traffic on the packet engine at each offered ``load`` (fraction of
    each endpoint's injection bandwidth), one :func:`fray.simulate` of :class:`fray.Traffic`
    per load: ``offered, accepted, latency_mean_s, packets, events, wall_s, vcs`` per load.
    ``engine`` is the packet engine with its options, a spec (``"packet:mtu=2KiB,vcs=3"``) or
    a :class:`fray.options.PacketEngine`; its virtual channels per channel (``vcs``), like
    every packet-engine run's, are raised to as many as the routing needs to stay free of
    deadlock (at least 2)."""
    if isinstance(loads, (str, bytes)) or not isinstance(loads, (Iterable, type(None))):
        raise SpecError(f"loads: expected a list of offered loads, got {loads!r}")
    if not loads:
        raise SpecError("load: give at least one load")
    if not isinstance(fabric, str):
        raise SpecError(f"fabric: expected a fabric spec such as 'torus:4x4', got {fabric!r}")
    spec = parse_engine(engine)
    if not isinstance(spec, PacketEngine):
        raise SpecError(f"engine: traffic runs on the packet engine, got {str(engine)!r}")
    f = Fabric.parse(fabric)
    rows = []
    for load in loads:
        r = simulate(f, Traffic(load, warmup_s, measure_s), routing=routing, engine=spec,
                     seed=seed)
        rows.append({"load": load, **dataclasses.asdict(r.traffic), "vcs": r.vcs})
    table = pd.DataFrame(rows)
    table.attrs.update(fabric=fabric, routing=routing or f.default_routing,
                       vcs=int(table["vcs"].iloc[0]))
    return table
