"""SimGrid peer of fray's ``load-stencil`` scenario: one periodic 7P halo exchange on a torus.

Runs under the system Python (Debian's ``python3-simgrid``, SimGrid 3.32), not fray's venv::

    /usr/bin/python3 benches/peers/simgrid_stencil.py --dims 12,12,12 --size-bytes 1e6 --model cm02

Every node sends ``size_bytes`` to each of its 6 torus neighbours at once and the phase ends
when all messages have arrived. The platform is a SimGrid torus cluster whose links match
fray's default channel (10 GB/s per direction, 100 ns per hop, full duplex). One actor starts
all the host-to-host transfers (``Comm.sendto_async``) and waits for them, so the time measured
is the network model's, not that of thousands of actor threads. The process pins itself to one
core: SimGrid simulates sequentially, and the Python binding's thread contexts hand control to
the simulation kernel at every call, which costs 3-4x more when the threads sit on two cores.

Models (``--model``):

* ``cm02``: SimGrid's plain max-min model with every correction switched off (latency and
  bandwidth factors 1, no TCP window bound, no cross traffic from acknowledgements), so a
  message alone on its link takes ``latency + size / bandwidth``, like fray's load engine.
* ``default``: SimGrid's default LV08 model (latency x 13.01, bandwidth x 0.97, TCP gamma,
  5% reverse cross traffic), calibrated for TCP on Ethernet.

Prints one JSON object: the simulated phase time and the wall time of building the platform
and of simulating.
"""

import argparse
import json
import sys
import time

import simgrid
from simgrid_torus import PLAIN_MAX_MIN, load_torus

#: SimGrid configuration of each model (see the module doc).
MODELS = {"cm02": PLAIN_MAX_MIN, "default": []}



def neighbours(rank: int, dims: list[int]) -> list[int]:
    """The 2 x len(dims) periodic neighbours of ``rank`` (dimension 0 varies fastest, as in
    SimGrid's torus zone)."""
    out, stride = [], 1
    for d in dims:
        coord = (rank // stride) % d
        for step in (1, -1):
            out.append(rank + (((coord + step) % d) - coord) * stride)
        stride *= d
    return out


def exchange(hosts: list, dims: list[int], size_bytes: int) -> None:
    """The actor: starts every transfer of the halo exchange, then waits for all of them."""
    comms = [
        simgrid.Comm.sendto_async(hosts[src], hosts[dst], size_bytes)
        for src in range(len(hosts))
        for dst in neighbours(src, dims)
    ]
    simgrid.Comm.wait_all(comms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dims", default="12,12,12")
    parser.add_argument("--size-bytes", type=float, default=1e6)
    parser.add_argument("--bandwidth-bytes-s", type=float, default=10e9)
    parser.add_argument("--latency-s", type=float, default=100e-9)
    parser.add_argument("--model", choices=sorted(MODELS), default="cm02")
    args = parser.parse_args()
    dims = [int(d) for d in args.dims.split(",")]

    engine, hosts, start = load_torus(dims, args.bandwidth_bytes_s, args.latency_s, MODELS[args.model])
    built = time.perf_counter()
    simgrid.Actor.create("exchange", hosts[0], exchange, hosts, dims, int(args.size_bytes))
    engine.run()
    done = time.perf_counter()

    json.dump(
        {
            "simgrid_version": str(simgrid.simgrid_version),
            "model": args.model,
            "config": MODELS[args.model],
            "dims": dims,
            "messages": len(hosts) * 2 * len(dims),
            "phase_time_s": engine.clock,
            "build_wall_s": built - start,
            "simulate_wall_s": done - built,
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
