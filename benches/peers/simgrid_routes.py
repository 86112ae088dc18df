"""SimGrid peer of fray's ``flow-peer`` scenario on any fabric: one phase of given messages on
fray's own platform and fray's own routes, SimGrid's plain max-min fluid model, the completion
time of every message.

Runs under the system Python (Debian's ``python3-simgrid``, SimGrid 3.32), not fray's venv::

    /usr/bin/python3 benches/peers/simgrid_routes.py < platform.json

Reads one JSON object on stdin:

* ``links``: one ``[bandwidth_bytes_s, latency_s]`` pair per fray channel, in channel order
  (injection, router and ejection channels alike);
* ``hosts``: the number of fray endpoints (host ``i`` is endpoint ``i``);
* ``messages``: ``[src_host, dst_host, size_bytes, route]`` per message, ``route`` being the
  channel ids the message crosses, in order.

The platform, built with SimGrid's Python API, is one Full routing zone holding a host per
endpoint, a SHARED link per channel (one direction each, as fray's channels are) and one
route per (src, dst) pair of the messages, made of that pair's links (``symmetrical`` off).
SimGrid then routes every message exactly as fray did. Configuration and output are those of
``simgrid_messages.py`` (plain max-min, one actor posting every message at time 0); the report
adds ``links``, ``hosts`` and ``routes`` (how many were added). The process pins itself to one
core (see ``simgrid_stencil.py``).
"""

import json
import sys

import simgrid
from simgrid_messages import CONFIG, simulate
from simgrid_torus import start_engine


def pair_routes(messages: list) -> dict:
    """The route of every (src, dst) pair of ``messages``: its channel ids. Raises
    ``ValueError`` if two messages of one pair cross different channels."""
    routes: dict = {}
    for src, dst, _, route in messages:
        if routes.setdefault((src, dst), route) != route:
            raise ValueError(f"messages {src} -> {dst} take two different routes")
    return routes


def build(links: list, num_hosts: int, routes: dict) -> list:
    """Builds the Full zone: ``num_hosts`` hosts, one SHARED link per ``[bandwidth_bytes_s,
    latency_s]`` of ``links``, one one-way route per entry of ``routes``. Returns the hosts."""
    zone = simgrid.NetZone.create_full_zone("fray")
    hosts = [zone.create_host(f"e{i}", 1e9) for i in range(num_hosts)]
    made = []
    for c, (bandwidth_bytes_s, latency_s) in enumerate(links):
        link = zone.create_link(f"c{c}", bandwidth_bytes_s).set_latency(latency_s)
        link.set_sharing_policy(simgrid.Link.SharingPolicy.SHARED, None)
        made.append(simgrid.LinkInRoute(link.seal()))
    for (src, dst), route in routes.items():
        zone.add_route(
            hosts[src].netpoint, hosts[dst].netpoint, None, None, [made[c] for c in route], False
        )
    zone.seal()
    return hosts


def main() -> None:
    spec = json.load(sys.stdin)
    routes = pair_routes(spec["messages"])
    engine, start = start_engine(CONFIG)
    hosts = build(spec["links"], spec["hosts"], routes)
    messages = [(src, dst, size) for src, dst, size, _ in spec["messages"]]
    report = simulate(engine, hosts, messages, start)
    json.dump(
        {"links": len(spec["links"]), "hosts": len(hosts), "routes": len(routes)} | report,
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
