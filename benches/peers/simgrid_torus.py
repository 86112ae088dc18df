"""The SimGrid engine every peer starts (pinned to one core, given its ``--cfg`` options), the
plain max-min configuration the peers share, and the torus the torus peers run on: a
``<cluster topology="TORUS">`` of ``node-i`` hosts with split-duplex links, loaded into a
fresh engine.

Runs under the system Python, which has Debian's ``python3-simgrid``; imported by the peer
scripts beside it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import simgrid

PLATFORM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="torus" prefix="node-" radical="0-{last}" suffix="" speed="1Gf"
           bw="{bandwidth_bytes_s}Bps" lat="{latency_s}s" sharing_policy="SPLITDUPLEX"
           topology="TORUS" topo_parameters="{dims}"/>
</platform>
"""

#: SimGrid's plain max-min fluid model, every correction off: latency and bandwidth factors
#: 1, flows not weighted by their round-trip time, no TCP window bound, no cross traffic from
#: acknowledgements. A message alone on its path takes the sum of its links' latencies plus
#: ``size / bandwidth``.
PLAIN_MAX_MIN = [
    "network/model:CM02",
    "network/latency-factor:1",
    "network/bandwidth-factor:1",
    "network/weight-S:0",
    "network/TCP-gamma:0",
    "network/crosstraffic:0",
]


def start_engine(config: list[str]):
    """Pins the process to one core and starts a SimGrid engine with ``--cfg`` options
    ``config``. Returns ``(engine, start)``: ``start`` is the ``time.perf_counter()`` before
    the engine was made, in seconds."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    start = time.perf_counter()
    engine = simgrid.Engine(
        [sys.argv[0], "--log=root.thres:warning"] + [f"--cfg={c}" for c in config]
    )
    return engine, start


def load_torus(dims: list[int], bandwidth_bytes_s: float, latency_s: float, config: list[str]):
    """Starts an engine (:func:`start_engine`) and loads the torus of ``dims`` (links of
    ``bandwidth_bytes_s`` and ``latency_s`` per direction). Returns ``(engine, hosts,
    start)``: the hosts in rank order and the ``time.perf_counter()`` before the engine was
    made."""
    num_nodes = 1
    for d in dims:
        num_nodes *= d
    engine, start = start_engine(config)
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as xml:
        xml.write(
            PLATFORM.format(
                last=num_nodes - 1,
                bandwidth_bytes_s=bandwidth_bytes_s,
                latency_s=latency_s,
                dims=",".join(map(str, dims)),
            )
        )
    try:
        engine.load_platform(xml.name)
    finally:
        os.unlink(xml.name)
    return engine, [engine.host_by_name(f"node-{i}") for i in range(num_nodes)], start
