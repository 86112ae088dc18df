"""fray benchmark harness: times the standard scenarios and the SimGrid peers.

    python benches/run.py [--quick] [--repeat N] [--json out.json] [--only PREFIXES]

``--only flow-peer,simgrid-flow`` runs just fray's flow engine against SimGrid on the same
message lists (a random permutation of 1 MB messages, a Halo3D26 exchange) and prints their
table: times, ratios, makespans and per-message completion times side by side. On tori SimGrid
uses its own torus zone; on the dragonfly ``dragonfly:p=4,a=8,h=4,g=33`` it is given fray's
channels and fray's minimal routes one by one (``benches/peers/simgrid_routes.py``).
Prefixes may include the fabric: ``--only "flow-peer dragonfly,simgrid-flow dragonfly"`` runs
the dragonfly cases only.

Every case runs several times; the tables show medians with [min-max], the CPU time (user +
system, every thread and subprocess), the cores kept busy (CPU time over wall time), the
1-minute load average before each run (others' work on a shared machine shows there) and, for
the spare curves, the time projected to the full-size problem next to its target. The tables
are Markdown, ready for BENCHMARKS.md. The exit status is 1 if any scenario crashed (timings
are never asserted).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable
from functools import partial

import numpy as np
import peer
import scenarios
from machine import describe
from result import Result
from timing import summary


def plan(quick: bool, repeat: int) -> list[tuple[str, Callable[[], Result]]]:
    """The cases to run, cheapest first, as (label, call)."""
    r24 = min(repeat, 3)  # a 24^3 curve or SimGrid run takes tens of seconds
    steps = [
        (f"load-stencil {fabric}", partial(scenarios.load_stencil, fabric, repeat, inner))
        for fabric, inner in (("torus:12x12x12", 20), ("torus:24x24x24", 5))
    ]
    steps += [
        ("spares-eval-rate", partial(scenarios.spares_eval_rate, 200 if quick else 1000, repeat)),
        ("spares-curve-12", partial(scenarios.spares_curve_12, 500 if quick else 10_000, repeat)),
        ("spares-curve-24", partial(scenarios.spares_curve_24, 100 if quick else 3_300, r24)),
    ]
    steps.append(
        ("collective-random", partial(scenarios.collective_random, 200 if quick else 1000, repeat))
    )
    steps += [
        (
            f"packet-traffic {fabric} {routing}",
            partial(scenarios.packet_traffic, fabric, routing, vcs, size, load, repeat),
        )
        for fabric, routing, vcs, size, load in (
            ("torus:8x8x8", "dor", 2, 256, 0.5),
            ("dragonfly:p=4,a=8,h=4,g=33", "minimal", 3, 160, 0.6),
        )
    ]
    # The flow engine against the packet engine on the studies' motifs (the packet engine's
    # all-to-all takes minutes a run and is left out).
    steps += [
        (
            f"engine-ratio {workload} {flow_engine}",
            partial(scenarios.engine_ratio, workload, repeat, flow_engine),
        )
        for workload, flow_engine in ENGINE_RATIO_WORKLOADS
    ]
    # The failed-links targets: one exchange on the 8,704-endpoint dragonfly well under 10 s,
    # on the 33,280-endpoint one under 10 s (full runs only).
    steps.append(
        (
            "links-exchange 8704",
            partial(scenarios.links_exchange, "dragonfly:p=16,a=32,h=16,g=17", 0.1, 10.0, r24),
        )
    )
    if not quick:
        steps.append(
            (
                "links-exchange 33280",
                partial(scenarios.links_exchange, "dragonfly:p=16,a=32,h=16,g=65", 0.1, 10.0, r24),
            )
        )
    peers = [("torus:12x12x12", "cm02", repeat), ("torus:12x12x12", "default", repeat)]
    if not quick:
        peers.append(("torus:24x24x24", "cm02", r24))
    steps += [
        (
            f"simgrid-stencil {fabric} {model}",
            partial(peer.simgrid_stencil, fabric, scenarios.STENCIL_SIZE_BYTES, model, n),
        )
        for fabric, model, n in peers
    ]
    return steps + flow_peer_plan(quick, repeat)


#: The motifs on which the flow engine's CPU time is set against the packet engine's, as
#: (workload, flow engine spec): the 512-rank Halo3D26 exchange (Ember's host costs, no
#: compute), at the flow engine's defaults and with the packet engine's NIC order, and the
#: other motifs of the studies at their defaults.
ENGINE_RATIO_WORKLOADS = (
    ("halo3d26:nx=30,compute=no,host=ember", "flow"),
    ("halo3d26:nx=30,compute=no,host=ember", "flow:nic=fifo"),
    ("sweep3d", "flow"),
    ("lqcd", "flow"),
    ("uniform", "flow"),
)

#: fray's flow engine against SimGrid, as (fabric, workload); workloads: one random
#: permutation of 1 MB messages (seed 1), or one Halo3D26 exchange (periodic on the whole
#: torus; on the dragonfly the failed-links study's: the largest cube of ranks on the first
#: endpoints, not periodic). The 9x9x13 torus has odd rings only, where SimGrid's torus routes
#: are exactly fray's ``dor`` routes. The dragonfly (one global link per pair of groups, so
#: one minimal route per pair) is given to SimGrid channel by channel and route by route.
FLOW_PEER_CASES = [
    ("torus:8x8x16", "permutation"),
    ("torus:9x9x13", "permutation"),
    ("torus:8x8x16", "halo3d26"),
    ("torus:16x16x16", "permutation"),
    ("dragonfly:p=4,a=8,h=4,g=33", "permutation"),
    ("dragonfly:p=4,a=8,h=4,g=33", "halo3d26"),
]
#: Latency of every link: 0 (SimGrid's max-min is then plain, unweighted) and fray's default
#: 100 ns (SimGrid's CM02 then weights each flow's share by 1 / its path latency).
FLOW_PEER_LATENCIES_S = (0.0, 100e-9)


def flow_peer_messages(fabric: str, workload: str) -> list:
    """The ``(src, dst, bytes)`` list of a flow-peer case (see ``FLOW_PEER_CASES``)."""
    if workload == "permutation":
        return scenarios.permutation_messages(fabric, scenarios.PERMUTATION_SIZE_BYTES, seed=1)
    if fabric.startswith("torus:"):
        return scenarios.halo3d26_messages(scenarios.torus_dims(fabric), periodic=True)
    return scenarios.halo3d26_messages(scenarios.largest_cube(fabric), periodic=False)


def simgrid_flow_step(
    fabric: str, workload: str, messages: list, latency_s: float, repeat: int
) -> Callable[[], Result]:
    """The SimGrid side of a flow-peer case: SimGrid's torus zone on a torus, else fray's
    channels and routes (``peer.simgrid_routes``)."""
    if not fabric.startswith("torus:"):
        return partial(peer.simgrid_routes, fabric, workload, messages, latency_s, repeat)
    bandwidth = scenarios.torus_link_bandwidth_bytes_s(fabric)
    return partial(peer.simgrid_flow, fabric, workload, messages, bandwidth, latency_s, repeat)


def flow_peer_plan(quick: bool, repeat: int) -> list[tuple[str, Callable[[], Result]]]:
    """fray's flow engine and SimGrid on the same message lists, each case fray first."""
    steps = []
    for fabric, workload in FLOW_PEER_CASES[:1] if quick else FLOW_PEER_CASES:
        messages = flow_peer_messages(fabric, workload)
        for latency_s in FLOW_PEER_LATENCIES_S:
            # SimGrid takes minutes on 16^3 with latency: one run there.
            slow = fabric == "torus:16x16x16" and latency_s > 0
            label = f"{fabric} {workload} {latency_s * 1e9:g}ns"
            steps.append(
                (
                    f"flow-peer {label}",
                    partial(scenarios.flow_peer, fabric, workload, messages, latency_s, repeat),
                )
            )
            steps.append(
                (
                    f"simgrid-flow {label}",
                    simgrid_flow_step(
                        fabric, workload, messages, latency_s, 1 if slow else min(repeat, 3)
                    ),
                )
            )
    return steps


def _time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _spread(stats: dict, fmt: Callable[[float], str]) -> str:
    return f"{fmt(stats['median'])} [{fmt(stats['min'])}-{fmt(stats['max'])}]"


def results_table(results: list[Result]) -> str:
    rows = [
        "| scenario | case | runs | wall median [min-max] | CPU median | cores (CPU/wall)"
        + " | rate median | projected full | target | load avg before |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        rate = r.rate
        rate_text = "" if rate is None else f"{rate['median']:,.0f} {r.work_unit}/s"
        target = ""
        if r.target_s is not None:
            verdict = "met" if r.projected_s < r.target_s else "MISSED"
            target = f"< {_time(r.target_s)}: {verdict}"
        projected = _time(r.projected_s) + (" (scaled)" if r.scale != 1 else "")
        rows.append(
            f"| {r.scenario} | {r.case} | {len(r.runs)} | {_spread(r.wall, _time)} "
            f"| {_time(r.cpu['median'])} | {_spread(r.cores, lambda c: f'{c:.2f}')} | {rate_text} "
            f"| {projected if r.target_s else ''} | {target} "
            f"| {_spread(summary([s.load_before for s in r.runs]), lambda x: f'{x:.1f}')} |"
        )
    return "\n".join(rows)


def engine_ratio_table(results: list[Result]) -> str:
    """The flow engine's CPU time against the packet engine's, per motif (medians of runs
    alternated in this run), and whether the packet engine costs at least 10 times more."""
    rows = [
        "| workload | flow engine | flow CPU | packet CPU | packet / flow | at least 10x |",
        "|---|---|---|---|---|---|",
    ]
    for r in (r for r in results if r.scenario == "engine-ratio"):
        e = r.extra
        rows.append(
            f"| `{e['workload']}` | `{e['flow_engine']}` | {_time(e['flow_cpu_s'])} "
            f"| {_time(e['packet_cpu_s'])} "
            f"| {e['packet_over_flow']:.1f} | {'met' if e['packet_over_flow'] >= 10 else 'MISSED'} |"
        )
    return "\n".join(rows) if len(rows) > 2 else ""


def peer_table(results: list[Result]) -> str:
    """fray against SimGrid on the same exchange: wall times and predicted phase times."""
    fray_runs = {r.extra["fabric"]: r for r in results if r.scenario == "load-stencil"}
    rows = [
        "| fabric | SimGrid model | fray wall | SimGrid wall (in-process) | SimGrid/fray"
        + " | SimGrid subprocess wall | fray phase time | SimGrid phase time"
        + " | SimGrid/fray phase |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in (r for r in results if r.scenario == "simgrid-stencil"):
        f = fray_runs.get(s.extra["fabric"])
        if f is None:
            continue
        fray_wall, sg_wall = f.wall["median"], s.extra["simgrid_wall_s"]["median"]
        fray_phase, sg_phase = f.extra["phase_time_s"], s.extra["phase_time_s"]
        rows.append(
            f"| {s.extra['fabric']} | {s.extra['model']} | {_time(fray_wall)} | {_time(sg_wall)} "
            f"| {sg_wall / fray_wall:,.0f}x | {_time(s.wall['median'])} "
            f"| {fray_phase * 1e6:.4f} us | {sg_phase * 1e6:.4f} us | {sg_phase / fray_phase:.4f} |"
        )
    return "\n".join(rows)


def _flow_key(r: Result) -> tuple:
    return (r.extra["fabric"], r.extra["workload"], r.extra["latency_s"])


def flow_peer_rows(results: list[Result]) -> list[dict]:
    """fray's flow engine against SimGrid on the same messages, one dict per case: median
    wall and CPU times, their ratios, the makespans and how far the per-message completion
    times are apart (relative to SimGrid's)."""
    fray_runs = {_flow_key(r): r for r in results if r.scenario == "flow-peer"}
    rows = []
    for s in (r for r in results if r.scenario == "simgrid-flow"):
        f = fray_runs.get(_flow_key(s))
        if f is None:
            continue
        mine = np.array(f.extra["completion_s"])
        theirs = np.array(s.extra["completion_s"])
        rel = np.abs(mine - theirs) / theirs
        rows.append(
            {
                "fabric": s.extra["fabric"],
                "workload": s.extra["workload"],
                "messages": len(mine),
                "latency_s": s.extra["latency_s"],
                "fray_runs": len(f.runs),
                "fray_wall_s": f.wall["median"],
                "fray_cpu_s": f.cpu["median"],
                "simgrid_runs": len(s.runs),
                "simgrid_wall_s": s.extra["simgrid_wall_s"]["median"],
                "simgrid_process_wall_s": s.wall["median"],
                "simgrid_process_cpu_s": s.cpu["median"],
                "wall_ratio": s.extra["simgrid_wall_s"]["median"] / f.wall["median"],
                "cpu_ratio": s.cpu["median"] / f.cpu["median"],
                "fray_makespan_s": f.extra["makespan_s"],
                "simgrid_makespan_s": s.extra["makespan_s"],
                "max_rel_diff": float(rel.max()),
                "median_rel_diff": float(np.median(rel)),
                "messages_over_1pct": int((rel > 0.01).sum()),
                "routes_unlike_simgrid": f.extra["routes_unlike_simgrid"],
            }
        )
    return rows


def flow_peer_table(rows: list[dict]) -> str:
    """The rows of :func:`flow_peer_rows` as a Markdown table."""
    lines = [
        "| fabric | workload | messages | ns/hop | fray wall (runs) | SimGrid wall in-process"
        + " (runs) | SimGrid/fray wall | SimGrid/fray CPU | fray makespan | SimGrid makespan"
        + " | per-message rel. diff max (median) | messages > 1 % off"
        + " | routes unlike SimGrid |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['fabric']} | {r['workload']} | {r['messages']:,} | {r['latency_s'] * 1e9:g} "
            f"| {_time(r['fray_wall_s'])} ({r['fray_runs']}) "
            f"| {_time(r['simgrid_wall_s'])} ({r['simgrid_runs']}) | {r['wall_ratio']:,.0f}x "
            f"| {r['cpu_ratio']:,.0f}x | {r['fray_makespan_s'] * 1e6:.4f} us "
            f"| {r['simgrid_makespan_s'] * 1e6:.4f} us "
            f"| {r['max_rel_diff']:.2%} ({r['median_rel_diff']:.2%}) "
            f"| {r['messages_over_1pct']:,} | {r['routes_unlike_simgrid']:,} |"
        )
    return "\n".join(lines)


def cost_ratio(results: list[Result]) -> str | None:
    """Cost of one failure-set evaluation on 24^3 over 12^3 (ranks grow 8x)."""
    by_name = {r.scenario: r for r in results}
    small, large = by_name.get("spares-curve-12"), by_name.get("spares-curve-24")
    if small is None or large is None:
        return None
    ratio = small.rate["median"] / large.rate["median"]
    ranks = large.extra["num_ranks"] / small.extra["num_ranks"]
    spares = large.extra["num_spares"] / small.extra["num_spares"]
    return (
        f"Per-evaluation cost, 24^3 over 12^3: {ratio:.2f}x "
        f"({small.rate['median']:,.0f} vs {large.rate['median']:,.0f} evaluations/s; "
        f"ranks x{ranks:.1f}, spares x{spares:.1f})."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Times the standard fray scenarios.")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: fewer runs and samples, curves scaled to full size",
    )
    parser.add_argument("--repeat", type=int, help="runs per case (default 5, quick 2)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument(
        "--only",
        metavar="PREFIXES",
        help="comma-separated label prefixes: run only those cases (e.g. flow-peer,simgrid-flow)",
    )
    args = parser.parse_args(argv)
    repeat = args.repeat or (2 if args.quick else 5)
    if repeat < 1:
        parser.error("--repeat: must be at least 1")

    machine = describe()
    print(
        f"machine: {machine['cpu_model']}, {machine['usable_cores']} cores, "
        f"load {machine['load_avg_1_5_15'][0]:.2f}; {machine['date']}; "
        f"python {machine['python']}; {machine['rustc']}; fray {machine['fray']} "
        f"({machine['git_commit']}{', dirty' if machine['git_dirty'] else ''})"
    )
    skipped = {}
    reason = peer.unavailable()
    results: list[Result] = []
    failed: list[dict] = []
    prefixes = tuple(p.strip() for p in args.only.split(",")) if args.only else ("",)
    for label, thunk in plan(args.quick, repeat):
        if not label.startswith(prefixes):
            continue
        if label.startswith("simgrid") and reason:
            skipped[label] = reason
            print(f"skipping {label}: {reason}", file=sys.stderr)
            continue
        print(f"running {label} ...", file=sys.stderr, flush=True)
        try:
            results.append(thunk())
        except Exception:  # noqa: BLE001 -- report any crash, run the other scenarios
            failed.append({"case": label, "error": traceback.format_exc()})
            traceback.print_exc()

    print()
    print(results_table(results))
    print()
    print(peer_table(results) if not reason else f"SimGrid peer skipped: {reason}")
    ratios = engine_ratio_table(results)
    if ratios:
        print()
        print(ratios)
    flow_rows = flow_peer_rows(results)
    if flow_rows:
        print()
        print(flow_peer_table(flow_rows))
    ratio = cost_ratio(results)
    if ratio:
        print()
        print(ratio)
    if failed:
        print(f"\nFAILED: {', '.join(f['case'] for f in failed)}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(
                {
                    "machine": machine,
                    "quick": args.quick,
                    "repeat": repeat,
                    # Per-message completion times stay out of the file (flow_peer sums them up).
                    "results": [
                        {k: v for k, v in r.to_dict().items() if k != "completion_s"}
                        for r in results
                    ],
                    "flow_peer": flow_rows,
                    "skipped": skipped,
                    "failed": failed,
                    "cost_ratio_24_over_12": ratio,
                },
                out,
                indent=2,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
