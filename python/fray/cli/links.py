"""``fray links``: the failed-links study (degradation by jobs x failed %, over seeds)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from fray import Fabric, SpecError, _fray, links, outputs, profiles, report, store
from fray.cli import numbers
from fray.fabrics import open_fabric
from fray.outputs import FIGURES, TABLES
from fray.units import format_rate, format_seconds, parse_rate, parse_seconds

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"out": TABLES, "plot": FIGURES}


def _numbers(text: str, what: str, kind=float) -> list:
    try:
        values = [kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise SpecError(f"--{what}: expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise SpecError(f"--{what}: expected at least one number")
    return values


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``links`` sub-command."""
    p = sub.add_parser(
        "links",
        help="failed-links study: throughput degradation by jobs x failed %%",
        description=(
            "Fail a share of the links, run the workload's jobs on an engine (flow by "
            "default), and report the loss of machine throughput against the same seed "
            "without failures, with a 95% confidence interval over the seeds."
        ),
    )
    p.add_argument("--fabric", required=True,
                   help="e.g. dragonfly:p=4,a=8,h=4,g=9 or hyperx:8x8,t=8, or a fabric file "
                   "(ibnetdiscover, JSON, Cray Aries wiring)")
    p.add_argument(
        "--link-bandwidth",
        help="bandwidth of every link, in bytes or bits per second: 50GB/s is the paper's "
             "400Gb/s (default 10GB/s)",
    )
    p.add_argument(
        "--host-bandwidth",
        help="bandwidth of every endpoint's injection and ejection channel, e.g. 6.7GB/s "
             "(a NIC whose DMA moves less than the link; default: the link's)",
    )
    p.add_argument(
        "--profile",
        help="a named set-up that sets --routing, --engine, --host and --link-bandwidth, "
        "each still overridden when given: sst (SST 16's merlin, Ember and Firefly on the "
        "paper's dragonflies; docs/host-costs.md); default none",
    )
    p.add_argument(
        "--routing", help="ugal, ugal:threshold=T, doal, table, ... (default: the fabric's)"
    )
    p.add_argument(
        "--workload",
        default="halo3d26",
        help=f"the workload spec: {', '.join(links.MOTIFS[:-1])} or {links.MOTIFS[-1]}, its "
        "options after a colon, e.g. alltoall:bytes=1MB (docs/workloads.md; the flags below "
        "set the same options; default halo3d26)",
    )
    p.add_argument("--jobs", default="1,4,16,64", help="numbers of jobs (default 1,4,16,64)")
    p.add_argument(
        "--failed", default="0,5,10,15,20,25,30", help="failed %% of the cables (default 0,5,...,30)"
    )
    p.add_argument("--fail", help="cables that fail: a link class or router (default: global on a dragonfly, router elsewhere)")
    p.add_argument(
        "--down",
        metavar="FILE",
        action=numbers.Once,
        help="cables already down (a fault file: one FROM->TO per line, # comments): down in "
        "every case but the healthy baselines, so the 0%% row is what they cost and the others "
        "what more failures would add",
    )
    p.add_argument("--seeds", type=numbers.whole(1, _fray.MAX_REPLICATIONS), default=3,
                   help=f"seeds per cell, at most {_fray.MAX_REPLICATIONS:,} (default 3)")
    p.add_argument("--seed", type=numbers.SEED, default=1, help="the study's seed (default 1)")
    p.add_argument(
        "--budget", type=int, help="endpoints shared by the jobs (default min(32768, endpoints))"
    )
    p.add_argument("--iterations", type=int, default=1, help="iterations per job (default 1)")
    p.add_argument("--no-compute", action="store_true", help="leave out the compute time")
    p.add_argument(
        "--chunks",
        type=int,
        default=1,
        help="cut every message into this many chunks, each routed on its own (default 1)",
    )
    p.add_argument("--compute-s", type=float, help="compute per rank per iteration, seconds")
    p.add_argument(
        "--engine",
        help="engine for every case: flow (max-min fluid, default), packet (queues, "
        "finite buffers; each message routed once), load (static bound); the packet "
        "engine takes options after a colon: route=packet (each packet routed as it "
        "leaves its source, as SST's merlin does), mtu=BYTES, buffer=BYTES (per virtual "
        "channel), vcs=N, arbitration=oldest-first|round-robin, queue=downstream|output "
        "(what the routing's congestion signal counts), queue_cap=BYTES (where it "
        "saturates, like a router's output buffer), nic_setup=TIME (each message's setup "
        "on its source's NIC, one at a time, e.g. 545ns), speedup=X and out_buffer=BYTES "
        "(a crossbar X times the link rate into output buffers), input_latency=TIME and "
        "output_latency=TIME (each router's delay), router=merlin (SST merlin's hr_router); "
        "sizes take units (2KiB), e.g. packet:router=merlin,mtu=2KiB (default flow)",
    )
    p.add_argument(
        "--host",
        help="what each message costs the ranks' cores: none, SST Ember's defaults: ember "
        "(190 ns a send, 310 ns a receive, registration of long messages; computing holds "
        "the core too), or those "
        "times K: 'ember*K', or Ember's costs charged call by call as SST Firefly makes "
        "progress: firefly; then any '+KEY=VALUE' overrides of single costs: send, recv, "
        "match, register, page, nic (times, 150ns; nic: core to NIC and back, holding no "
        "core), copy, send_copy, recv_copy (per byte, "
        "344ps/B), eager (bytes), e.g. 'ember+send_copy=344ps/B' (default none)",
    )
    for key, text in links.EMBER_OPTIONS:
        # A rate of 0 flop/s would make the compute time infinite.
        kind = numbers.real(0, above=True) if key in ("peflops", "nodeflops") else float
        p.add_argument("--" + key.replace("_", "-"), type=kind, help=text)
    p.add_argument(
        "--time-tolerance",
        type=float,
        help="the flow engine's time_tolerance (as in --engine flow:time_tolerance=...): "
        "flows ending within this share of their message's time leave the network "
        f"together; each message is still delivered at its own end (default "
        f"{links.DEFAULT_TIME_TOLERANCE:g})",
    )
    p.add_argument(
        "--time-resolution",
        help="the flow engine's time_resolution: flows ending within this time of one "
        "another leave the network together too, however young their message (default "
        f"{format_seconds(links.DEFAULT_TIME_RESOLUTION_S)}; 0s with --time-tolerance 0 is exact)",
    )
    p.add_argument(
        "--cables",
        type=int,
        metavar="N",
        help="instead of the table, run one case (one value of --jobs and of --failed, seed "
        "number --replica) and its baseline, and show the bytes per channel class and the N "
        "busiest cables; --out then writes every channel's bytes",
    )
    p.add_argument(
        "--replica", type=numbers.whole(0, _fray.MAX_REPLICATIONS - 1),
        help="with --cables: which of the seeds (default 0)"
    )
    p.add_argument(
        "--repairs",
        action="store_true",
        help="instead of the table, rank the cables of --down by the throughput repairing "
        "each alone gives back (one value of --jobs; --seeds seeds); --out writes the ranking",
    )
    p.add_argument(
        "--greedy",
        type=numbers.U64,
        metavar="K",
        help="with --repairs: repair the best cable and rank again, K times: which K cables "
        "to repair first, with throughput against cables repaired and its 95%% band",
    )
    p.add_argument(
        "--exact",
        action="store_true",
        help="with --greedy: run every candidate at every step (default: lazily, only the "
        "best by their last gain)",
    )
    p.add_argument(
        "--save-faults",
        metavar="FILE",
        help="write each failure draw as a fault file for --down or fray route; FILE holds "
        "{failed} and {replica}, e.g. 'faults/f{failed}-r{replica}.txt'",
    )
    p.add_argument("--out", help="table, .csv or .parquet")
    p.add_argument("--plot", help="heat map, .png, .pdf or .svg")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def workload_spec(args: argparse.Namespace) -> str:
    """The workload spec the options describe, e.g. ``halo3d26:nx=30,compute=no``."""
    return links.workload_spec(
        args.workload, iterations=args.iterations, chunks=args.chunks, budget=args.budget,
        compute=not args.no_compute, host=args.host, compute_s=args.compute_s,
        **{key: getattr(args, key) for key, _ in links.EMBER_OPTIONS},
    )


def run(args: argparse.Namespace) -> int:
    """Runs the study, writes the table and heat map, prints the table (or, with
    ``--cables``, looks into one case)."""
    # The profile's values fill the options not given; from here on it is as if they were.
    args.profile = None if args.profile is None else profiles.parse(args.profile)
    chosen = profiles.choose(args.profile, routing=args.routing, engine=args.engine,
                             host=args.host)
    args.routing, args.engine, args.host = chosen["routing"], chosen["engine"], chosen["host"]
    _check_options(args)
    fabric = _fabric(args)
    if args.cables is not None:
        return _cables(args, fabric)
    if args.repairs:
        return _repairs(args, fabric)
    failed = _numbers(args.failed, "failed")
    table = links.study(
        fabric,
        workload_spec(args),
        routing=args.routing,
        fail=args.fail,
        jobs=_numbers(args.jobs, "jobs", int),
        failed_pct=failed,
        seeds=args.seeds,
        seed=args.seed,
        time_tolerance=args.time_tolerance,
        time_resolution=_resolution(args),
        engine=args.engine,
        down=args.down,
        save_faults=args.save_faults,
        progress=not args.quiet and sys.stderr.isatty(),
    )
    # The spec as given, not the built fabric's repr, names the machine in the figure.
    link, _ = _rates(args)
    table.attrs.update(fabric=args.fabric,
                       link_bandwidth=None if link is None else format_rate(link))
    if args.out:
        store.write_table(table, args.out)
    if args.plot:
        report.plot_links_heatmap(table, args.plot)
    print(_pivot(table).to_string())
    return 0


def _check_options(args: argparse.Namespace) -> None:
    """Refuses, before any work, options that the mode or engine asked would ignore."""
    pairs = [("--greedy", args.greedy is not None, "--repairs", args.repairs,
              "plans the repairs of"),
             ("--exact", args.exact, "--greedy", args.greedy is not None, "is a setting of"),
             ("--replica", args.replica is not None, "--cables", args.cables is not None,
              "picks the seed of")]
    for option, given, needs, needed, what in pairs:
        if given and not needed:
            raise SpecError(f"{option} {what} {needs}: give {needs} too")
    modes = [m for m, given in (("--cables", args.cables is not None),
                                ("--repairs", args.repairs)) if given]
    if len(modes) > 1:
        raise SpecError("--cables and --repairs each replace the table: give one")
    if modes and args.save_faults:
        raise SpecError(f"--save-faults writes the failure draws of the table; {modes[0]} "
                        "makes none: drop one")
    if args.save_faults:
        # The first file the template names, checked as every output is before the run.
        outputs.check_file(links.fault_file_name(args.save_faults, 0.0, 0), "--save-faults",
                           None)
    engine = (args.engine or links.DEFAULT_ENGINE).partition(":")[0].strip()
    for option, value in (("--time-tolerance", args.time_tolerance),
                          ("--time-resolution", args.time_resolution)):
        if value is not None and engine != "flow":
            raise SpecError(f"{option} is a setting of the flow engine; --engine {engine} "
                            "does not use it")


def _rates(args: argparse.Namespace) -> tuple[float | None, float | None]:
    """The link rate of ``--link-bandwidth`` (else the profile's) and the host rate of
    ``--host-bandwidth``, in bytes per second; None where none is set."""
    rate = {flag: None if value is None else parse_rate(value, flag)
            for flag, value in (("--link-bandwidth", args.link_bandwidth),
                                ("--host-bandwidth", args.host_bandwidth))}
    link = profiles.choose(args.profile, link_bandwidth_bytes_s=rate["--link-bandwidth"])
    return link["link_bandwidth_bytes_s"], rate["--host-bandwidth"]


def _fabric(args: argparse.Namespace) -> Fabric | str:
    """The fabric of ``--fabric`` with the bandwidths of ``--link-bandwidth`` (else the
    profile's) and ``--host-bandwidth`` (the spec string as given when none is set); a
    fabric file (ibnetdiscover, JSON, Aries wiring) is read as it is, with its own rates."""
    link, host = _rates(args)
    if Path(args.fabric).exists():
        if link is not None or host is not None:
            raise SpecError(f"--fabric {args.fabric}: a fabric file gives its own link rates; "
                            "drop --link-bandwidth and --host-bandwidth (and the profile's)")
        return open_fabric(args.fabric)
    if link is None and host is None:
        return args.fabric
    return links.fabric_with(args.fabric, link, host)


def _cables(args: argparse.Namespace, fabric: Fabric | str) -> int:
    """``--cables N``: one case and its baseline, channel by channel."""
    jobs = _numbers(args.jobs, "jobs", int)
    failed = _numbers(args.failed, "failed")
    if len(jobs) != 1 or len(failed) != 1:
        raise SpecError("--cables looks into one case: give one value of --jobs and one of "
                        f"--failed (got --jobs {args.jobs} --failed {args.failed})")
    if args.cables < 1:
        raise SpecError(f"--cables: must be a positive number of cables, got {args.cables}")
    if args.plot:
        raise SpecError("--plot draws the table's heat map; --cables shows no table")
    replica = {} if args.replica is None else {"replica": args.replica}
    loads = links.case_loads(
        fabric, workload_spec(args), jobs=jobs[0], failed_pct=failed[0], **replica,
        routing=args.routing, fail=args.fail, seed=args.seed,
        time_tolerance=args.time_tolerance, time_resolution=_resolution(args),
        engine=args.engine, down=args.down,
        progress=not args.quiet and sys.stderr.isatty(),
    )
    a = loads.attrs
    if a["unroutable"]:
        print(f"unroutable: {a['unroutable']}")
        return 0
    us = " ".join(f"{t * 1e6:.1f}" for t in a["iteration_s"])
    base = " ".join(f"{t * 1e6:.1f}" for t in a["baseline_iteration_s"])
    cables = int(loads["down"].sum()) // 2
    what = f"{failed[0]:g} % of the {a['fail']} cables"
    if a["down"]:
        what = f"the cables in {a['down']} and {failed[0]:g} % of the other {a['fail']} cables"
    print(f"{jobs[0]} job(s), {what} failed ({cables} cables), seed number {a['replica']}: "
          f"iteration {us} us (no failure: {base} us)\n")
    print("MB per channel, by class (no failure in brackets):")
    for cls, r in links.loads_by_class(loads).iterrows():
        mb = {k: v / 1e6 for k, v in r.items()}
        print(f"  {cls:<10} {int(r['channels']):>8} channels  busiest {mb['busiest_bytes']:.3f} "
              f"({mb['baseline_busiest_bytes']:.3f})  99th pct {mb['p99_bytes']:.3f} "
              f"({mb['baseline_p99_bytes']:.3f})  median {mb['median_bytes']:.3f} "
              f"({mb['baseline_median_bytes']:.3f})")
    print(f"\nthe {args.cables} busiest channels:")
    top = links.busiest_cables(loads, fabric, args.cables)
    for channel, r in top.iterrows():
        print(f"  {r['name']:<24} {r['cls']:<8} {r['bytes'] / 1e6:8.3f} MB, busy "
              f"{r['busy_s'] * 1e6:8.1f} us (no failure: {r['baseline_bytes'] / 1e6:.3f} MB)")
    if args.out:
        store.write_table(loads.reset_index(), args.out)
    return 0


def _repairs(args: argparse.Namespace, fabric: Fabric | str) -> int:
    """``--repairs``: the cables of ``--down`` ranked by what repairing each gives back."""
    jobs = _numbers(args.jobs, "jobs", int)
    if not args.down:
        raise SpecError("--repairs ranks the cables of --down FILE: give one")
    if len(jobs) != 1:
        raise SpecError(f"--repairs ranks for one number of jobs (got --jobs {args.jobs})")
    if args.plot:
        raise SpecError("--plot draws the table's heat map; --repairs shows no table")
    if args.greedy is not None:
        return _greedy(args, fabric, jobs[0])
    table = links.repair_gains(
        fabric, workload_spec(args), down=args.down, jobs=jobs[0], seeds=args.seeds,
        seed=args.seed, routing=args.routing, fail=args.fail,
        time_tolerance=args.time_tolerance, time_resolution=_resolution(args),
        engine=args.engine, progress=not args.quiet and sys.stderr.isatty(),
    )
    print(f"what repairing each cable of {args.down} alone gives back to {jobs[0]} job(s), in % "
          f"of throughput (mean ± 95 % CI over {args.seeds} seeds), best first:")
    for _, r in table.iterrows():
        if pd.isna(r["gain_pct"]):
            gain = "no number: " + ("still unroutable" if r["unroutable"] else
                                    "clears the unroutable pairs")
        else:
            ci = "" if pd.isna(r["gain_ci_pct"]) else f" ±{r['gain_ci_pct']:.2f}"
            gain = f"{r['gain_pct']:+.2f}%{ci}"
        print(f"  {r['cable']:<24} (line {r['line']})  {gain}")
    if args.out:
        store.write_table(table, args.out)
    return 0


def _greedy(args: argparse.Namespace, fabric: Fabric | str, jobs: int) -> int:
    """``--repairs --greedy K``: the first K repairs of a cumulative plan."""
    table = links.greedy_repairs(
        fabric, workload_spec(args), down=args.down, steps=args.greedy, exact=args.exact,
        jobs=jobs, seeds=args.seeds, seed=args.seed, routing=args.routing, fail=args.fail,
        time_tolerance=args.time_tolerance, time_resolution=_resolution(args),
        engine=args.engine,
    )
    print(f"repairs of {args.down} in order, {jobs} job(s): machine throughput in % of the "
          f"healthy machine (mean ± 95 % CI over {args.seeds} seeds) after each repair:")
    for _, r in table.iterrows():
        ci = "" if pd.isna(r["throughput_ci_pct"]) else f" ±{r['throughput_ci_pct']:.2f}"
        if r["step"] == 0:
            print(f"  as it is{'':<27} {r['throughput_pct']:7.2f}%{ci}")
            continue
        gci = "" if pd.isna(r["gain_ci_pct"]) else f" ±{r['gain_ci_pct']:.2f}"
        noise = f"  (within the noise of {r['runner_up']})" if r["within_noise"] else ""
        print(f"  {r['step']:>3}. {r['cable']:<28} {r['throughput_pct']:7.2f}%{ci}  "
              f"gain {r['gain_pct']:+.2f}{gci}{noise}")
    if args.out:
        store.write_table(table, args.out)
    return 0


def _pivot(table):
    """Degradation as `mean ± ci` per jobs (rows) and failed % (columns)."""

    shown = report.links_cells(table)
    # With 0 % failed only, each cell is its own baseline: show those rows, not nothing.
    shown = (table if shown.empty else shown).copy()
    shown["cell"] = shown.apply(report.degradation_label, axis=1)
    grid = shown.pivot(index="jobs", columns="failed_pct", values="cell")
    grid.columns = [f"{c:g}%" for c in grid.columns]
    return grid


def _resolution(args: argparse.Namespace) -> float | None:
    """``--time-resolution`` in seconds (``None`` when not given: the engine's)."""
    if args.time_resolution is None:
        return None
    return parse_seconds(args.time_resolution, "--time-resolution")
