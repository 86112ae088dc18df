"""The flow engine's cost against the machine's size, measured and drawn.

    python benches/flow_cost_curve.py [--repeat N] [--largest ENDPOINTS] [--json out.json]
                                      [--figure out.png]

Runs one Halo3D26 iteration of the failed-links study (one job, the largest cube of ranks
that fits, UGAL, 10 % of the global cables failed, the flow engine's defaults) on the
dragonflies of docs/flow.md's "Cost at scale", from 544 to 86,528 endpoints, with the
``links_speed`` example (built first with cargo), ``--repeat`` times each, and reports per
size the medians of the CPU time and the peak memory of the process, with the messages,
events and rate solves it printed. ``--figure`` draws CPU time and peak memory against the
endpoints on log-log axes, beside the slope a cost linear in the endpoints would have and
the targets of the two largest machines (10 s and 60 s on 2 cores, 8 GiB). The
whole curve takes about two minutes of CPU per repeat; ``--largest 33280`` leaves out the
largest machine. Timings are never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "target" / "release" / "examples" / "links_speed"

#: (fabric spec, endpoints): docs/flow.md's table.
MACHINES = (
    ("dragonfly:p=4,a=8,h=4,g=17", 544),
    ("dragonfly:p=4,a=8,h=4,g=33", 1_056),
    ("dragonfly:p=8,a=16,h=8,g=17", 2_176),
    ("dragonfly:p=16,a=32,h=16,g=17", 8_704),
    ("dragonfly:p=16,a=32,h=16,g=65", 33_280),
    ("dragonfly:p=16,a=32,h=21,g=169", 86_528),
)
#: The example's arguments after the fabric: routing, failed class and share, tolerance and
#: resolution (the study's defaults).
STUDY = ("ugal", "global", "0.1", "3e-3", "2e-8")
#: The targets of the two largest machines: (endpoints, at most) per quantity drawn.
TARGETS = {"cpu_s": ((33_280, 10.0), (86_528, 60.0)), "peak_mb": ((86_528, 8 * 1024.0),)}
#: What the example prints, e.g. "10136 messages, iteration 1.6e-5 s, 5703 events, 239 solves".
PRINTED = re.compile(r"(\d+) messages, iteration (\S+) s, (\d+) events, (\d+) solves")
#: Its last line where Linux gives it: "peak memory 7 MB".
PEAK = re.compile(r"peak memory (\d+) MB")


def build() -> None:
    """Builds the example in release mode."""
    subprocess.run(["cargo", "build", "--release", "-p", "fray-core", "--example", "links_speed"],
                   cwd=ROOT, check=True)


def run_once(spec: str) -> dict[str, float]:
    """One run of the example on ``spec``: its counts, CPU seconds and peak memory (MB)."""
    child = subprocess.Popen([str(EXAMPLE), spec, *STUDY], stdout=subprocess.PIPE, text=True)
    out = child.stdout.read()
    child.stdout.close()
    # Reaped here rather than by Popen, to read this child's own CPU time. (Its peak memory
    # is the one it prints: the usage's would count this process's pages from before exec.)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"links_speed {spec} failed with status {child.returncode}")
    found = PRINTED.search(out)
    if found is None:
        raise RuntimeError(f"links_speed {spec}: unexpected output {out!r}")
    messages, iteration, events, solves = found.groups()
    peak = PEAK.search(out)
    return {"messages": int(messages), "iteration_s": float(iteration), "events": int(events),
            "solves": int(solves), "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mb": float(peak.group(1)) if peak else float("nan")}


def measure(spec: str, endpoints: int, repeat: int) -> dict[str, object]:
    """``repeat`` runs on ``spec``: the counts of the first and the medians of the times."""
    runs = [run_once(spec) for _ in range(repeat)]
    print(f"{endpoints:>7} endpoints: " + ", ".join(f"{r['cpu_s']:.2f}" for r in runs)
          + " s CPU", file=sys.stderr)
    first = runs[0]
    return {"fabric": spec, "endpoints": endpoints, "messages": first["messages"],
            "events": first["events"], "solves": first["solves"],
            "iteration_s": first["iteration_s"],
            "cpu_s": statistics.median(r["cpu_s"] for r in runs),
            "cpu_runs_s": [r["cpu_s"] for r in runs],
            "peak_mb": statistics.median(r["peak_mb"] for r in runs)}


def draw(rows: list[dict[str, object]], path: Path) -> None:
    """CPU time and peak memory against endpoints, log-log, with linear growth from the
    smallest machine for reference."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    endpoints = [r["endpoints"] for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, key, label in ((axes[0], "cpu_s", "CPU time of one iteration (s)"),
                           (axes[1], "peak_mb", "peak memory (MB)")):
        values = [r[key] for r in rows]
        ax.loglog(endpoints, values, "o-", label="flow engine")
        linear = [values[0] * e / endpoints[0] for e in endpoints]
        ax.loglog(endpoints, linear, "--", color="grey", label="linear in endpoints")
        targets = [(n, t) for n, t in TARGETS[key] if n <= endpoints[-1]]
        if targets:
            ax.loglog(*zip(*targets), "v", color="tab:red", label="target (at most)")
        ax.set_xlabel("endpoints")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("One Halo3D26 iteration, 10 % of the global cables failed, UGAL")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per machine (default 3)")
    parser.add_argument("--largest", type=int, default=86_528,
                        help="the largest machine to run, in endpoints (default 86528)")
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument("--figure", type=Path, help="draw the curve here (PNG, SVG, PDF)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    build()
    rows = [measure(spec, n, args.repeat) for spec, n in MACHINES if n <= args.largest]
    print("| endpoints | messages | events | rate solves | CPU (median) | peak memory |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['endpoints']:,} | {r['messages']:,} | {r['events']:,} | {r['solves']} "
              f"| {r['cpu_s']:.2f} s | {r['peak_mb']:.0f} MB |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    if args.figure:
        draw(rows, args.figure)
    return 0


if __name__ == "__main__":
    sys.exit(main())
