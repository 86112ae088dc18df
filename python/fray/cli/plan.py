"""``fray plan``: when to repair, over months (docs/plan.md)."""

from __future__ import annotations

import argparse
import json
import sys

import pandas as pd

from fray import Fabric, SpecError, links, outputs, plan, report, store
from fray.campaign import limits
from fray.cli import numbers
from fray.outputs import FIGURES, TABLES

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"out": (*TABLES, ".json"), "plot": FIGURES}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``plan`` sub-command."""
    p = sub.add_parser(
        "plan",
        help="repair planner: throughput lost over a year per repair policy, best window interval",
        description=(
            "Cables fail by class at the rates given (or fitted from a failure log); each "
            "repair policy (at once, maintenance windows every T, a loss threshold) runs over "
            "a horizon, many times; the machine throughput lost to degraded running and to "
            "maintenance is reported per policy with a 95% confidence interval."
        ),
    )
    p.add_argument("--fabric", required=True, help="e.g. dragonfly:p=16,a=32,h=1,g=17")
    p.add_argument(
        "--fail", action="append", default=[], metavar="CLASS=MODEL",
        help="a failing class (or router: every router-to-router cable) and its lifetimes: "
        "global=exp:mtbf=1000d or global=weibull:shape=1.5,scale=1100d (repeat for more classes)",
    )
    p.add_argument("--log", metavar="FILE", action=numbers.Once,
                   help="failure log to fit (one 'TIME FROM->TO' per line, TIME like 12.5d)")
    p.add_argument("--log-class", action="append", default=[], metavar="CLASS",
                   help="with --log: a class to fit (repeat; default global on a dragonfly)")
    p.add_argument("--log-span", help="with --log: how long the log observed (default: its last failure)")
    p.add_argument("--fit", choices=("exp", "weibull"),
                   help="with --log: the model fitted (default exp)")
    p.add_argument("--immediate",
                   help="repair time of the immediate policy, or 'none' to leave it out "
                   f"(default {plan.DEFAULT_IMMEDIATE})")
    p.add_argument("--every",
                   help="window intervals swept, comma-separated (default "
                   f"{','.join(plan.DEFAULT_EVERY)})")
    p.add_argument("--length",
                   help="window lengths, comma-separated (the machine does no work; default "
                   f"{plan.DEFAULT_LENGTH})")
    p.add_argument("--threshold", help="add a threshold policy: a loss like 2%% calls a repair visit")
    p.add_argument("--policy", action="append", default=[], metavar="SPEC",
                   help="a policy spec instead of the sweep (repeat): immediate:repair=24h, "
                   "windows:every=30d,length=8h, threshold:loss=2%%,repair=24h")
    p.add_argument("--horizon", default="365d", help="length of one replication (default 365d)")
    p.add_argument("--replications", type=numbers.whole(2, limits.MAX_REPLICATIONS), default=200,
                   help="replications (default 200)")
    p.add_argument("--seed", type=numbers.SEED, default=1, help="the plan's seed (default 1)")
    p.add_argument("--workload", default="halo3d26",
                   help="workload spec whose throughput is lost (default halo3d26)")
    p.add_argument("--jobs", type=numbers.U32, default=1, help="jobs sharing the machine (default 1)")
    p.add_argument("--seeds", type=numbers.whole(1, limits.MAX_SEEDS), default=2, help="layouts per fault state (default 2)")
    p.add_argument("--routing", help="default: the fabric's")
    p.add_argument("--engine", default="flow", help="flow (default), load or packet[:OPTIONS]")
    p.add_argument("--reuse", default="model", choices=("model", "direct"),
                   help="loss of visited states: a model fitted on sampled states (default), "
                   "or every distinct state simulated")
    p.add_argument("--points", type=numbers.whole(2, limits.MAX_MODEL_POINTS), default=8,
                   help="model: counts per class (default 8)")
    p.add_argument("--samples", type=numbers.whole(1, limits.MAX_MODEL_SAMPLES), default=4,
                   help="model: states per count (default 4)")
    p.add_argument("--out", help="table: .csv, .parquet or .json")
    p.add_argument("--plot", help="total loss against T: .png, .pdf or .svg")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=run)


def _failures(args: argparse.Namespace) -> dict[str, str]:
    """The failure model of each class, from ``--fail`` and ``--log``."""
    if not args.log:
        for option, given in (("--log-class", args.log_class), ("--log-span", args.log_span),
                              ("--fit", args.fit)):
            if given:
                raise SpecError(f"{option} sets how --log FILE is fitted: give --log too")
    failures = {}
    for item in args.fail:
        cls, sep, model = item.partition("=")
        if not sep or not cls.strip():
            raise SpecError(f"--fail: expected CLASS=MODEL, got {item!r}")
        if cls.strip() in failures:
            raise SpecError(f"--fail: class {cls.strip()} given twice ({failures[cls.strip()]} "
                            f"and {model}); give one model a class")
        failures[cls.strip()] = model
    if args.log:
        fabric = Fabric.parse(args.fabric)
        classes = args.log_class or [links.default_fail_class(fabric)]
        for cls in classes:
            if cls in failures:
                raise SpecError(f"--log fits class {cls}, which --fail {cls}={failures[cls]} "
                                "gives too: give a class one model")
            if classes.count(cls) > 1:
                raise SpecError(f"--log-class: {cls} given twice")
        fits = {}
        for cls in classes:
            options = {} if args.fit is None else {"kind": args.fit}
            fits[cls] = plan.fit_failures(fabric, args.log, cls, span=args.log_span, **options)
        for cls, fit in fits.items():
            ci = "" if fit["mtbf_ci_s"] is None else f" (MTBF ±{fit['mtbf_ci_s'] / 86400:.0f} d)"
            print(f"fit of {cls}: {fit['failures']} failures on {fit['cables']} cables over "
                  f"{fit['exposure_s'] / fit['cables'] / 86400:.1f} d: {fit['model']}{ci}, "
                  f"log-likelihood {fit['log_likelihood']:.1f}")
            failures[cls] = fit["model"]
    if not failures:
        raise SpecError("give --fail CLASS=MODEL or --log FILE")
    return failures


def _policies(args: argparse.Namespace) -> list[str]:
    sweep = {"--immediate": args.immediate, "--every": args.every, "--length": args.length,
             "--threshold": args.threshold}
    if args.policy:
        given = [option for option, value in sweep.items() if value is not None]
        if given:
            raise SpecError(f"{given[0]} sets the sweep of policies, which --policy replaces: "
                            "give one or the other")
        return args.policy
    options: dict = {}
    if args.immediate is not None:
        options["immediate"] = None if args.immediate == "none" else args.immediate
    if args.every is not None:
        options["every"] = numbers.items(args.every, "--every", "window interval")
    lengths = [None] if args.length is None else numbers.items(args.length, "--length", "window length")
    out = plan.policies(**options, **({} if lengths[0] is None else {"length": lengths[0]}),
                        threshold=args.threshold)
    for length in lengths[1:]:
        out += plan.policies(**(options | {"immediate": None}), length=length)
    return out


def run(args: argparse.Namespace) -> int:
    """Runs the plan, prints one line per policy and the best interval, writes the table."""
    failures = _failures(args)
    policies = _policies(args)
    if not args.quiet and sys.stderr.isatty():
        print(f"planning {len(policies)} policies x {args.replications} replications of "
              f"{args.horizon}...", file=sys.stderr)
    table = plan.plan(
        args.fabric, failures, policies, workload=args.workload, jobs=args.jobs,
        seeds=args.seeds, routing=args.routing, engine=args.engine, horizon=args.horizon,
        replications=args.replications, seed=args.seed, reuse=args.reuse, points=args.points,
        samples=args.samples,
    )
    a = table.attrs
    print(f"machine throughput lost over {args.horizon} (mean of {args.replications} "
          f"replications, 95 % CI), {a['evaluations']} fault states simulated:")
    for _, r in table.iterrows():
        print(f"  {r['policy']:<44} total {100 * r['total_share']:6.3f}% ±{100 * r['total_ci']:.3f}"
              f"  degraded {100 * r['degraded_share']:6.3f}%  downtime "
              f"{100 * r['downtime_share']:6.3f}%  windows/visits {r['windows']:6.1f}")
    best = a["best_window"]
    if best is not None:
        row = table.iloc[best]
        close = table[(table["kind"] == "windows")
                      & ((table["total_share"] - row["total_share"]).abs()
                         <= row["total_ci"] + table["total_ci"])]
        print(f"best window interval: {row['every_s'] / 86400:g} d ({row['policy']}); "
              f"{len(close) - 1} other interval(s) within the noise")
    if args.out:
        _write(table, args.out)
    if args.plot:
        report.plot_plan(table, args.plot)
    return 0


def _write(table: pd.DataFrame, path: str) -> None:
    """The table as CSV/Parquet, or as JSON with the parameters and the loss model."""
    if not path.lower().endswith(".json"):
        store.write_table(table, path)
        return
    a = dict(table.attrs)
    model = a.pop("model")
    doc = {"parameters": a, "policies": table.to_dict(orient="records"),
           "model": None if model is None else model.to_dict(orient="records")}
    outputs.write_text(path, json.dumps(doc, indent=1, default=str))
