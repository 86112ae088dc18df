"""The repair planner's table, figure and summary, from its results table.

Each point's loss model is rebuilt by the core from the stored states
(``PlanSetup.run_with_values``) and the Monte Carlo runs again (seconds): the table is the
one ``fray plan`` prints for the same options and seed.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from fray import report as figures
from fray.campaign.kind import ReportSection, StudyRecord
from fray.campaign.studies.links_report import scenario_points
from fray.campaign.studies.plan import plan_params, setup_of
from fray.plan import outcome_table, plan_spec

if TYPE_CHECKING:
    import duckdb

__all__ = ["merged_table", "report"]


def merged_table(con: duckdb.DuckDBPyConnection, study: StudyRecord) -> pd.DataFrame:
    """``fray.plan.plan``'s table for every sweep point whose states have all run, one after
    the other, with ``point`` and the swept keys as the first columns."""
    scenario, points = scenario_points(con, study)
    stored: dict[int, list] = defaultdict(list)
    for point, c, n, draw, cables, cut_off, loss in con.execute(
            f'SELECT point, class_index, down, draw, cables, cut_off_draws, loss '
            f'FROM "{study.name}" WHERE scenario_hash = ?', [study.scenario_hash]).fetchall():
        stored[point].append(((c, n, draw, None if cables is None else list(cables)),
                              cut_off, loss))
    frames = []
    for point in points:
        params = plan_params(scenario, point)
        plan = setup_of(params)
        if len(stored.get(point.index, [])) < len(plan.model_jobs(params["points"],
                                                                  params["samples"])):
            continue
        r = plan.run_with_values(params["points"], params["samples"], stored[point.index])
        classes = [(cls, plan_spec("failure", m)) for cls, m in params["failures"].items()]
        table = outcome_table(r, classes)
        for k, (key, value) in enumerate(point.values.items()):
            table.insert(k, key, value)
        table.insert(0, "point", point.index)
        table.attrs.update(workload=params["workload"], fabric=params["fabric"],
                           replications=params["replications"], horizon=params["horizon"])
        frames.append(table)
    if not frames:
        return pd.DataFrame(columns=["point", "policy", "kind", "total_share", "total_ci"])
    merged = pd.concat(frames, ignore_index=True)
    merged.attrs.update(frames[0].attrs)
    return merged


def report(con: duckdb.DuckDBPyConnection, study: StudyRecord, out_dir: Path) -> ReportSection:
    """The loss against the window interval per point, and the table per policy."""
    scenario, points = scenario_points(con, study)
    table = merged_table(con, study)
    section = ReportSection(title=f"{study.name} (repair plan)")
    section.lines.append(f"{study.done_tasks} of {study.planned_tasks} tasks done; "
                         f"{len(points)} point(s), {scenario.replications} replications of "
                         "the horizon each")
    if table.empty:
        section.lines.append("no point has all its sampled states yet")
        return section
    section.lines.append("Shares of the horizon's machine throughput lost to degraded running "
                         "and to maintenance downtime; ± is the half-width of the 95 % "
                         "confidence interval over replications.")
    out_dir.mkdir(parents=True, exist_ok=True)
    labels = {p.index: p.label for p in points}
    for index, rows in table.groupby("point"):
        rows = rows.reset_index(drop=True)
        rows.attrs.update(table.attrs)
        name = f"{study.name}_p{index:04d}.png" if len(points) > 1 else f"{study.name}.png"
        title = (f"{rows.attrs['workload']} on {rows.attrs['fabric']}, "
                 f"{rows.attrs['replications']} replications of {rows.attrs['horizon']}")
        if labels[index]:
            title = f"{labels[index]}: {title}"
        section.add_figure(figures.plot_plan(rows, Path(out_dir) / name, title),
                           f"Machine throughput lost against the maintenance window interval, "
                           f"one line per window length, the other policies as bands "
                           f"({title}).")
        windows = rows[rows["kind"] == "windows"]
        if not windows.empty:
            best = windows.loc[windows["total_share"].idxmin()]
            section.lines.append(f"best window interval{' at ' + labels[index] if labels[index] else ''}: "
                                 f"{best['every_s'] / 86400:g} d ({best['policy']})")
    shown = table[["point", "policy", "total_share", "total_ci", "degraded_share",
                   "downtime_share", "windows"]].copy()
    shown["point"] = shown["point"].map(lambda i: labels[i] or str(i))
    for column in ("total_share", "degraded_share", "downtime_share"):
        shown[column] = (100 * shown[column]).round(4)
    shown["total_ci"] = (100 * shown["total_ci"]).round(4)
    section.summary = shown.rename(columns={"total_share": "total %", "total_ci": "± %",
                                            "degraded_share": "degraded %",
                                            "downtime_share": "downtime %"})
    return section
