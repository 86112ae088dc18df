"""fray benchmark harness: times the standard scenarios and the SimGrid peer.

    python benches/run.py [--quick] [--repeat N] [--json out.json]

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
    for label, thunk in plan(args.quick, repeat):
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
                    "results": [r.to_dict() for r in results],
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
