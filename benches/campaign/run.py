"""Campaign benchmark: what the scheduler and the results file cost per task, a sweep's
speed-up from one to two workers, and a failed-links study as a campaign against
``fray.links.study``.

    python benches/campaign/run.py [--repeat 3] [--parts overhead,speedup,links] [--json out.json]

Overhead per task is the slope of a campaign's wall time against its number of tasks (tasks
of one sampled case on an 8x8 mesh, about a millisecond of compute each), minus the compute
itself: fixed costs (starting the cluster, opening the file) drop out. It is measured on the
default local path (a LocalCluster of one worker started by ``run_campaign``), on an existing
Dask cluster reached by address (``scheduler=``), and for the pieces alone: calling the task
in-process, and writing its rows to DuckDB. The speed-up runs a sweep of 16 tasks (two points on
a 12x12x12 torus) with 1 and 2 local workers, start-up included; the sum of the tasks' own
times shows whether the workers got a core each. The links part runs
``examples/links_quick.toml`` (3 points, 18 tasks of 4 simulations) as a campaign with 2
local workers, and the same three tables with ``fray.links.study`` (both cores through rayon),
alternating, and checks the tables are equal. Every number is the median of ``--repeat`` runs;
the 1-minute load average before each run shows others' work.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fray import links
from fray.campaign import load_scenario, make_plan, parse_scenario, run_campaign
from fray.campaign.db import ResultsDB
from fray.campaign.studies.links import study_params
from fray.campaign.studies.links_report import merged_table
from fray.campaign.tasks import execute
from machine import describe
from timing import measure, summary

TINY = """
[study]
kind = "spares"
name = "tiny"
[fabric]
topology = "mesh:8x8"
[jobs]
spare_allocation = "2D(1,1)"
[faults]
samples = {samples}
[mitigation]
substitution = "0D"
[tasks]
cases = 1
"""

SWEEP = """
[study]
kind = "spares"
name = "sweep"
[fabric]
topology = "torus:12x12x12"
[jobs]
spare_allocation = "3D(2,1)"
[faults]
samples = {samples}
[mitigation]
substitution = "hybrid(all)"
[sweep.grid]
mitigation.substitution = ["hybrid(all)", "0D"]
[tasks]
cases = 200
"""

SIZES = (100, 400)  # tasks per campaign; the slope between them is the cost per task


def _tiny(n: int):
    return parse_scenario(TINY.format(samples=n), f"tiny-{n}.toml")


def _campaign_wall(n: int, repeat: int, **where) -> list[float]:
    walls = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            samples, _ = measure(lambda: run_campaign(_tiny(n), Path(tmp) / "r.duckdb",
                                                      progress="none", **where), 1)
            walls.append(samples[0].wall_s)
    return walls


def _slope(a: list[float], b: list[float]) -> float:
    return (statistics.median(b) - statistics.median(a)) / (SIZES[1] - SIZES[0])


def overhead(repeat: int) -> dict:
    """Seconds per task: compute alone, DB write alone, and campaigns (local and Dask)."""
    plan = make_plan(_tiny(SIZES[1]))
    compute, write = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        results = [execute(t) for t in plan.tasks]
        compute.append((time.perf_counter() - start) / len(plan.tasks))
        with tempfile.TemporaryDirectory() as tmp, ResultsDB(Path(tmp) / "r.duckdb") as db:
            db.register(plan)
            start = time.perf_counter()
            for t, cols in zip(plan.tasks, results):
                db.write("tiny", plan.scenario.hash, t.key, cols)
            write.append((time.perf_counter() - start) / len(plan.tasks))
    out = {"compute_s": summary(compute), "db_write_s": summary(write),
           "rows_per_task": len(results[0]["failures"])}
    local = [_campaign_wall(n, repeat, workers=1) for n in SIZES]
    out["local_campaign_s"] = {"walls": local, "per_task": _slope(*local)}
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR,
                      env={"RAYON_NUM_THREADS": "1"}) as cluster:
        dask = [_campaign_wall(n, repeat, scheduler=cluster.scheduler_address) for n in SIZES]
    out["dask_campaign_s"] = {"walls": dask, "per_task": _slope(*dask)}
    return out


def speedup(repeat: int, samples: int) -> dict:
    scenario = parse_scenario(SWEEP.format(samples=samples), "sweep.toml")
    tasks = len(make_plan(scenario).tasks)
    out = {"tasks": tasks}
    for workers in (1, 2):
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as tmp:
                db = Path(tmp) / "r.duckdb"
                s, _ = measure(lambda w=workers, d=db: run_campaign(
                    scenario, d, workers=w, progress="none"), 1)
                with ResultsDB(db, read_only=True) as r:
                    task_s = r.con.execute("SELECT sum(wall_s) FROM fray_tasks").fetchone()[0]
                runs.append(s[0].to_dict() | {"task_s": task_s})
        out[f"workers_{workers}"] = runs
    w1 = statistics.median(r["wall_s"] for r in out["workers_1"])
    w2 = statistics.median(r["wall_s"] for r in out["workers_2"])
    out["speedup"] = w1 / w2
    return out


LINKS_QUICK = Path(__file__).resolve().parents[2] / "examples" / "links_quick.toml"


def links_study(repeat: int) -> dict:
    """The quick links example as a campaign (2 workers) and as ``links.study`` per point."""
    scenario = load_scenario(LINKS_QUICK)
    plan = make_plan(scenario)
    campaign, direct = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "r.duckdb"
            s, _ = measure(lambda d=db: run_campaign(scenario, d, workers=2, progress="none"), 1)
            campaign.append(s[0].to_dict())
            with ResultsDB(db, read_only=True) as r:
                merged = merged_table(r.con, r.studies()[0])
        tables = []

        def every_point(out=tables):
            for point in plan.points:
                p = study_params(scenario, point)
                out.append(links.study(p["fabric"], p["workload"], routing=p["routing"],
                                       fail=p["fail"], jobs=p["jobs"], failed_pct=p["failed_pct"],
                                       seeds=p["seeds"], seed=p["seed"],
                                       time_tolerance=p["time_tolerance"],
                                       time_resolution=p["time_resolution"], engine=p["engine"]))

        s, _ = measure(every_point, 1)
        direct.append(s[0].to_dict())
        got = merged["degradation_pct"].tolist()
        want = [d for t in tables for d in t["degradation_pct"].tolist()]
        if got != want:
            raise RuntimeError("the campaign's tables differ from links.study's")
    c = statistics.median(r["wall_s"] for r in campaign)
    d = statistics.median(r["wall_s"] for r in direct)
    return {"tasks": len(plan.tasks), "simulations": sum(t.params["stop"] - t.params["start"]
                                                         for t in plan.tasks),
            "campaign": campaign, "direct": direct, "ratio": c / d}


def _ms(x: float) -> str:
    return f"{x * 1e3:.2f} ms"


def markdown(result: dict) -> str:
    lines = []
    if "overhead" in result:
        lines += _overhead_lines(result["overhead"])
    if "speedup" in result:
        lines += _speedup_lines(result["speedup"])
    if "links" in result:
        k = result["links"]
        lines += ["", (f"| links_quick.toml ({k['tasks']} tasks, {k['simulations']} simulations) "
                       "| wall median [min-max] | CPU/wall | load before |"), "|---|---|---|---|"]
        for key, label in (("campaign", "campaign, 2 local workers"),
                           ("direct", "links.study per point, rayon on 2 cores")):
            runs = k[key]
            wall = summary([r["wall_s"] for r in runs])
            lines.append(f"| {label} | {wall['median']:.2f} s [{wall['min']:.2f}-"
                         f"{wall['max']:.2f}] | {statistics.median(r['cores'] for r in runs):.2f}"
                         f" | {', '.join(format(r['load_before'], '.1f') for r in runs)} |")
        lines.append(f"| campaign / direct | {k['ratio']:.2f} | | |")
    return "\n".join(lines)


def _overhead_lines(o: dict) -> list[str]:
    lines = [
        "| per task ({} rows) | median | min-max |".format(o["rows_per_task"]),
        "|---|---|---|",
        (f"| compute alone (the Rust study, in-process) | {_ms(o['compute_s']['median'])} | "
        f"{_ms(o['compute_s']['min'])}-{_ms(o['compute_s']['max'])} |"),
        (f"| DuckDB write alone (one transaction) | {_ms(o['db_write_s']['median'])} | "
        f"{_ms(o['db_write_s']['min'])}-{_ms(o['db_write_s']['max'])} |"),
    ]
    for key, label in (("local_campaign_s", "local campaign (LocalCluster, 1 worker)"),
                       ("dask_campaign_s", "Dask cluster by address (1 worker)")):
        per = o[key]["per_task"]
        walls = ", ".join(f"{n} tasks {statistics.median(w):.2f} s"
                          for n, w in zip(SIZES, o[key]["walls"]))
        lines.append(f"| {label}: whole cost | {_ms(per)} | {walls} |")
        lines.append(f"| {label}: overhead (minus compute) | "
                     f"{_ms(per - o['compute_s']['median'])} | |")
    return lines


def _speedup_lines(s: dict) -> list[str]:
    lines = ["", (f"| sweep ({s['tasks']} tasks) | wall median [min-max] | sum of task times "
              "| CPU/wall | load before |"), "|---|---|---|---|---|"]
    for w in (1, 2):
        runs = s[f"workers_{w}"]
        wall = summary([r["wall_s"] for r in runs])
        lines.append(f"| {w} worker{'s' if w > 1 else ''} | {wall['median']:.2f} s "
                     f"[{wall['min']:.2f}-{wall['max']:.2f}] | "
                     f"{statistics.median(r['task_s'] for r in runs):.2f} s | "
                     f"{statistics.median(r['cores'] for r in runs):.2f} | "
                     f"{', '.join(format(r['load_before'], '.1f') for r in runs)} |")
    lines.append(f"| speed-up 1 -> 2 workers | {s['speedup']:.2f}x | | | |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sweep-samples", type=int, default=1600,
                        help="failure sequences per sweep point (default 1600: 16 tasks)")
    parser.add_argument("--parts", default="overhead,speedup,links",
                        help="which parts to run (default overhead,speedup,links)")
    parser.add_argument("--json", help="write the raw results here")
    args = parser.parse_args()
    parts = {p.strip() for p in args.parts.split(",")}
    unknown = parts - {"overhead", "speedup", "links"}
    if unknown:
        parser.error(f"--parts: unknown part {min(unknown)!r}")
    result: dict = {"machine": describe()}
    if "overhead" in parts:
        result["overhead"] = overhead(args.repeat)
    if "speedup" in parts:
        result["speedup"] = speedup(args.repeat, args.sweep_samples)
    if "links" in parts:
        result["links"] = links_study(args.repeat)
    print(json.dumps(result["machine"]))
    print(markdown(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
