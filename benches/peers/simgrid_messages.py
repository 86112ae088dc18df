"""SimGrid peer of fray's ``flow-peer`` scenario: one phase of given messages on a torus,
SimGrid's plain max-min fluid model, the completion time of every message.

Runs under the system Python (Debian's ``python3-simgrid``, SimGrid 3.32), not fray's venv::

    /usr/bin/python3 benches/peers/simgrid_messages.py --dims 8,8,16 < messages.json

Reads a JSON list of ``[src_host, dst_host, size_bytes]`` triples on stdin (host ``i`` is the
torus node whose coordinates are ``i`` written in mixed radix, dimension 0 fastest, as in
fray's torus). The platform is a SimGrid torus cluster whose links match fray's default
channel (10 GB/s per direction, 100 ns per hop, full duplex), with no host link. One actor
posts every message at time 0 (``Comm.sendto_async``), waits for all of them and reads each
one's ``finish_time``. The process pins itself to one core (see ``simgrid_stencil.py``).

The network model is SimGrid's plain max-min fluid model, LV08's corrections off
(https://simgrid.org/doc/latest/Models.html and the ``network/*`` options of
https://simgrid.org/doc/latest/Configuring_SimGrid.html): ``network/model:CM02`` (max-min
sharing, no TCP window bound by default), latency and bandwidth factors 1, ``weight-S`` 0
(flows are not weighted by their round-trip time), ``TCP-gamma`` 0 (no window bound),
``crosstraffic`` 0 (no reverse acknowledgement flow). A message alone on its path then takes
the sum of its links' latencies plus ``size / bandwidth``, as in fray's flow engine.

Prints one JSON object: the completion time of each message (in input order), the makespan,
and the wall time of building the platform and of simulating. ``simgrid_routes.py`` (fray's
own channels and routes) runs the same configuration and phase (:func:`simulate`).
"""

import argparse
import json
import sys
import time

import simgrid
from simgrid_torus import PLAIN_MAX_MIN, load_torus

#: The plain max-min model (see the module doc).
CONFIG = PLAIN_MAX_MIN


def phase(hosts: list, messages: list, finish_s: list) -> None:
    """The actor: posts every message, waits for all, records each one's finish time."""
    comms = [simgrid.Comm.sendto_async(hosts[s], hosts[d], int(b)) for s, d, b in messages]
    simgrid.Comm.wait_all(comms)
    finish_s.extend(c.finish_time for c in comms)


def simulate(engine, hosts: list, messages: list, start: float) -> dict:
    """Runs one phase of ``messages`` (``(src, dst, bytes)`` over ``hosts``) on the loaded
    ``engine``; returns the report every messages peer prints: SimGrid's version and
    configuration, each message's completion time and the makespan (simulated seconds), and
    the wall time of building the platform (since ``start``) and of simulating (seconds)."""
    built = time.perf_counter()
    finish_s: list = []
    simgrid.Actor.create("phase", hosts[0], phase, hosts, messages, finish_s)
    engine.run()
    done = time.perf_counter()
    return {
        "simgrid_version": str(simgrid.simgrid_version),
        "config": CONFIG,
        "messages": len(messages),
        "makespan_s": engine.clock,
        "completion_s": finish_s,
        "build_wall_s": built - start,
        "simulate_wall_s": done - built,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dims", default="8,8,16")
    parser.add_argument("--bandwidth-bytes-s", type=float, default=10e9)
    parser.add_argument("--latency-s", type=float, default=100e-9)
    args = parser.parse_args()
    dims = [int(d) for d in args.dims.split(",")]
    messages = json.load(sys.stdin)

    engine, hosts, start = load_torus(dims, args.bandwidth_bytes_s, args.latency_s, CONFIG)
    json.dump({"dims": dims} | simulate(engine, hosts, messages, start), sys.stdout)
    print()


if __name__ == "__main__":
    main()
