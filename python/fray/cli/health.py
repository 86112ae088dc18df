"""``fray health``: every cable of a machine classified from its port counters and the cables
known down, the down cables that cut endpoints off, what the down cables cost now per workload
and the order to repair them in (see ``docs/health.md``)."""

from __future__ import annotations

import argparse
import html
import json
import math
import tempfile
from pathlib import Path

import pandas as pd

from fray import SpecError, _fray, links, outputs, parse_engine, parse_workload
from fray.cli import numbers
from fray.health import (
    DEFAULT_WORKLOADS,
    VERDICTS,
    classify_cables,
    cost_now,
    down_cables,
    loss_rows,
)
from fray.report import figure_html, html_page, plot_health_loss, plot_repair_curve

#: Outputs checked before any work (see ``fray.cli._check_outputs``).
OUTPUTS = {"out": (".json",), "report": (".html",)}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``health`` sub-command."""
    p = sub.add_parser(
        "health",
        help="classify every cable, and say what the down ones cost and how to repair them",
        description="Classify every cable of a machine (down, flapping, below-peers, "
        "erroring, congested, healthy) from port counters and a down-cable file, most suspect "
        "first; then run each workload on the machine as it is and healthy, and say the "
        "throughput lost now (95% CI over the seeds) and the greedy order to repair the down "
        "cables in.",
    )
    p.add_argument(
        "dump",
        metavar="FABRIC_FILE",
        help="the machine's wiring: ibnetdiscover output or Cray XC (Aries) rtr --interconnect",
    )
    p.add_argument(
        "--counters",
        metavar="FILE",
        nargs="+",
        default=[],
        help="port counters: perfquery -x or ibqueryerrors output, or a CSV "
        "(time_s,node,port,counter,value); with an ibnetdiscover dump only",
    )
    p.add_argument("--down", metavar="FILE", action=numbers.Once,
                   help="cables known to be down, one FROM->TO a line")
    p.add_argument("--ber", type=numbers.real(0, 1, above=True, below=True), default=1e-12,
                   help="bit-error rate threshold (1e-12)")
    p.add_argument(
        "--confidence", type=float, default=0.95, help="confidence of the BER interval (0.95)"
    )
    p.add_argument(
        "--xmit-wait-ratio",
        type=float,
        default=0.1,
        help="transmit-wait ratio above which a cable is congested (0.1)",
    )
    p.add_argument(
        "--workload",
        action="append",
        help="a workload whose loss is reported, as fray links takes it (halo3d26, uniform, "
        "alltoall, sweep3d, lqcd, with options: uniform:size=4096, alltoall:bytes=4096,"
        "budget=512); repeat for more (default: "
        + ", ".join(DEFAULT_WORKLOADS) + ")",
    )
    p.add_argument("--engine", default="flow", help="engine of the runs, as fray links takes it "
                   "(default flow)")
    p.add_argument("--seeds", type=numbers.whole(1, _fray.MAX_REPLICATIONS), default=3,
                   help=f"seeds per workload, at most {_fray.MAX_REPLICATIONS:,} (default 3)")
    p.add_argument("--seed", type=numbers.SEED, default=1, help="the runs' seed (default 1)")
    p.add_argument("--out", metavar="FILE.json", help="write everything as one JSON object")
    p.add_argument("--report", metavar="FILE.html",
                   help="write a self-contained HTML report with its figures")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_health)


def run_health(args: argparse.Namespace) -> int:
    """Prints the count of cables in each class and of critical failures, every cable not
    healthy, the throughput the down cables cost now per workload and their repair order;
    writes ``--out`` and ``--report``."""
    workloads = args.workload or list(DEFAULT_WORKLOADS)
    _check_options(args, workloads)
    df = classify_cables(
        args.dump,
        args.counters,
        down=args.down,
        ber=args.ber,
        confidence=args.confidence,
        xmit_wait_ratio=args.xmit_wait_ratio,
    )
    down = down_cables(df)
    costs = (cost_now(args.dump, args.down, workloads, engine=args.engine, seeds=args.seeds,
                      seed=args.seed) if down else {})
    result = _result(args, df, costs)
    if args.out:
        outputs.write_text(args.out, json.dumps(result, indent=2, default=str) + "\n")
    if args.report:
        outputs.write_text(args.report, _html(args, df, costs, result))
    if args.json:
        print(json.dumps(result, indent=2, default=str))
        return 0
    for verdict, n in result["classes"].items():
        print(f"{verdict:<12} {n:>6}")
    print(f"{'critical':<12} {len(result['critical']):>6} (down cables that cut endpoints off)")
    print()
    for row in df[df["verdict"] != "healthy"].itertuples():
        print(f"{row.verdict:<12} {row.name}  {row.reason}")
    if not down:
        print("\nno cable is down: the machine runs as when healthy")
        return 0
    print(f"\nmachine throughput lost now, {len(down)} cable(s) down "
          f"({args.engine} engine, {args.seeds} seeds, 95% CI):")
    for row in result["loss"]:
        note = "  unroutable" if row["unroutable"] else ""
        print(f"  {row['workload']:<24} {_pm(row['loss_pct'], row['loss_ci_pct'])}{note}")
    for w, table in costs.items():
        print(f"\nrepair order for {w} (throughput in % of healthy after each repair):")
        for r in table.itertuples():
            noise = "  (within noise of " + str(r.runner_up) + ")" if r.within_noise else ""
            what = "as it is" if r.step == 0 else r.cable
            print(f"  {r.step:>3} {what:<44} {_pm(r.throughput_pct, r.throughput_ci_pct)}{noise}")
    return 0


def _check_options(args: argparse.Namespace, workloads: list[str]) -> None:
    """Refuses, before any work and whether or not a cable is down, an engine or workload
    that would not run and a counters file given twice."""
    parse_engine(args.engine)
    for i, w in enumerate(workloads):
        parse_workload(links.workload_spec(w))
        if w in workloads[:i]:
            raise SpecError(f"--workload: {w} given twice")
    seen: dict[Path, str] = {}
    for name in args.counters:
        path = Path(name).resolve()
        if path in seen:
            raise SpecError(f"--counters: {name} given twice (as {seen[path]} too)")
        seen[path] = name


def _pm(mean: float, half: float) -> str:
    """``1.23% ±0.40``, or ``1.23%`` when the interval is not known (``0.00%``, never
    ``-0.00%``)."""
    return f"{round(mean, 2) + 0.0:.2f}%" + ("" if half is None or math.isnan(half) else f" ±{half:.2f}")


def _records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as dicts, NaN as None (JSON ``null``)."""
    clean = frame.astype(object).where(frame.notna(), None)
    return clean.to_dict(orient="records")


def _result(args: argparse.Namespace, df: pd.DataFrame, costs: dict[str, pd.DataFrame]) -> dict:
    """Everything the command found, as one JSON-ready dict."""
    cables = df.astype({"verdict": str})
    return {
        "fabric": str(args.dump),
        "engine": args.engine,
        "seeds": args.seeds,
        "seed": args.seed,
        "classes": {v: int((df["verdict"] == v).sum()) for v in VERDICTS},
        "critical": list(df.loc[df["critical"].astype(bool), "name"]),
        "down": down_cables(df),
        "cables": _records(cables[cables["verdict"] != "healthy"]),
        "loss": _records(loss_rows(costs)) if costs else [],
        "repairs": {w: _records(t) for w, t in costs.items()},
    }


def _html(args: argparse.Namespace, df: pd.DataFrame, costs: dict[str, pd.DataFrame],
          result: dict) -> str:
    """The HTML report: cable classes, critical failures, the cables not healthy, the loss
    per workload and the repair curve, its figures embedded."""
    name = Path(args.dump).name
    down = len(result["down"])
    title = f"fray health: {name}, " + (f"{down} cable(s) down" if down else "no cable down")
    scenario = pd.DataFrame(
        [("fabric", args.dump), ("counters", ", ".join(args.counters) or "none"),
         ("down cables", args.down or "none"),
         ("workloads", ", ".join(costs) or "none simulated"),
         ("engine", f"{args.engine}, {args.seeds} seeds from seed {args.seed}")],
        columns=["scenario", "value"])
    body = [f"<h1>{html.escape(title)}</h1>", scenario.to_html(index=False, border=0),
            "<h2>Cable classes</h2>",
            pd.DataFrame(list(result["classes"].items()), columns=["class", "cables"])
            .to_html(index=False, border=0), "<h2>Critical failures</h2>"]
    critical = result["critical"]
    body.append("<p>" + (f"{len(critical)} down cable(s) cut endpoints off: "
                         + html.escape(", ".join(critical)) if critical
                         else "No down cable cuts endpoints off.") + "</p>")
    suspect = df[df["verdict"] != "healthy"][["name", "link_class", "verdict", "reason"]]
    if not suspect.empty:
        body += ["<h2>Cables not healthy, most suspect first</h2>",
                 suspect.astype({"verdict": str}).to_html(index=False, border=0)]
    body.append("<h2>What the down cables cost now</h2>")
    if not costs:
        body.append("<p>No cable is down: the machine runs as when healthy.</p>")
        return html_page(title, body)
    loss = loss_rows(costs)
    body.append(f"<p>Machine throughput lost against the same machine healthy, "
                f"{args.engine} engine, {args.seeds} seeds, 95 % confidence interval.</p>")
    body.append(loss.to_html(index=False, float_format=lambda x: f"{x:.3g}", border=0))
    with tempfile.TemporaryDirectory() as folder:
        body.append(figure_html(plot_health_loss(loss, Path(folder) / "loss.png",
                                                 f"throughput lost now on {name}")))
        body.append("<h2>Repairs, in order</h2>")
        body.append(figure_html(plot_repair_curve(costs, Path(folder) / "repairs.png",
                                                  f"greedy repairs of the down cables of {name}")))
    for w, table in costs.items():
        body.append(f"<h3>{html.escape(w)}</h3>")
        columns = ["step", "cable", "throughput_pct", "throughput_ci_pct", "gain_pct",
                   "gain_ci_pct", "within_noise", "unroutable"]
        body.append(table[columns].to_html(index=False, float_format=lambda x: f"{x:.3g}",
                                           na_rep="-", border=0))
    return html_page(title, body)
