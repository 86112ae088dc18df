"""The failed-links study's merged table, figures and summary, from its results table.

The table is ``fray links``'s, one per sweep point, merged by the Rust ``LinksStudy`` from the
stored outcomes. The figures are the heat map of ``fray links --plot`` for each point and,
when the study sweeps, the degradation against the failed share, one line per point and one
panel per number of jobs.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import pandas as pd

from fray import FrayError
from fray import report as figures
from fray.campaign.kind import ReportSection, StudyRecord
from fray.campaign.scenario import Point, parse_scenario
from fray.campaign.studies.links import _build, study_params
from fray.units import format_rate

if TYPE_CHECKING:
    import duckdb

__all__ = ["merged_table", "report", "scenario_points", "sweep_title"]

#: Heat maps are drawn for studies of at most this many points.
MAX_POINT_FIGURES = 12


def scenario_points(con: duckdb.DuckDBPyConnection,
                    study: StudyRecord) -> tuple[object, list[Point]]:
    """The study's scenario as the results file stored it, and its points."""
    text, source = con.execute("SELECT source_text, source_path FROM fray_studies WHERE name = ?",
                               [study.name]).fetchone()
    scenario = parse_scenario(text, source or study.name)
    if scenario.hash != study.scenario_hash:
        raise FrayError(f"study {study.name!r}: its stored scenario reads as hash {scenario.hash}, "
                        f"not {study.scenario_hash}; report it with the fray that ran it")
    return scenario, scenario.points()


def merged_table(con: duckdb.DuckDBPyConnection, study: StudyRecord) -> pd.DataFrame:
    """``fray links``'s table for every sweep point, one after the other, with ``point`` and
    the swept keys as the first columns."""
    scenario, points = scenario_points(con, study)
    outcomes: dict[int, dict[tuple, tuple]] = defaultdict(dict)
    for point, replica, jobs, pct, baseline, ranks, times, unroutable in con.execute(
            f'SELECT point, replication, jobs, failed_pct, baseline, ranks, iteration_s, '
            f'unroutable FROM "{study.name}" WHERE scenario_hash = ?',
            [study.scenario_hash]).fetchall():
        outcomes[point][(jobs, pct, replica, baseline)] = (ranks, times, unroutable)
    frames = []
    for point in points:
        params = study_params(scenario, point)
        done = outcomes.get(point.index, {})
        full = _build(params)
        cases = [full.case(i) for i in range(full.num_cases)]
        complete = [j for j in params["jobs"] if all(c in done for c in cases if c[0] == j)]
        if not complete:
            continue
        s = _build(params | {"jobs": complete})
        table = pd.DataFrame(s.summarize([done[s.case(i)] for i in range(s.num_cases)]))
        for k, (key, value) in enumerate(point.values.items()):
            table.insert(k, key, value)
        table.insert(0, "point", point.index)
        frames.append(table)
    columns = ["point", "jobs", "failed_pct", "degradation_pct", "degradation_ci_pct",
               "unroutable", "seeds", "baseline_iteration_s", "iteration_s",
               "baseline_throughput", "throughput"]
    merged = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    if any(study_params(scenario, p)["down"] for p in points):
        merged.attrs["down"] = "faults.down"  # the 0 % rows are then what those cables cost
    return merged


def report(con: duckdb.DuckDBPyConnection, study: StudyRecord, out_dir: Path) -> ReportSection:
    """Heat maps per point (up to :data:`MAX_POINT_FIGURES`), the sweep figure, and the
    table as ``mean ± CI`` per cell."""
    scenario, points = scenario_points(con, study)
    table = merged_table(con, study)
    section = ReportSection(title=f"{study.name} (failed links)")
    section.lines.append(f"{study.done_tasks} of {study.planned_tasks} tasks done; "
                         f"{len(points)} point(s), {scenario.replications} seed(s) each")
    section.lines.append(f"Degradation: the loss of machine throughput against the same "
                         f"jobs on the healthy machine, mean over seeds; {figures.CI_MEANING}.")
    if table.empty:
        section.lines.append("no number of jobs has all its seeds yet")
        return section
    out_dir.mkdir(parents=True, exist_ok=True)
    labels = {p.index: p.label for p in points}
    params_of = [study_params(scenario, p) for p in points]  # each point's fabric built once
    bound = figures.links_colour_bound(table)  # one colour scale for every heat map
    for index, rows in table.groupby("point"):
        if index >= MAX_POINT_FIGURES:
            break
        params = params_of[index]
        rows = rows.reset_index(drop=True)
        link = params["link_bandwidth"]
        rows.attrs.update(fabric=params["fabric"],
                          link_bandwidth=None if link is None else format_rate(link),
                          workload=params["workload"], routing=params["routing"],
                          engine=params["engine"], seeds=scenario.replications,
                          down="faults.down" if params["down"] else None)
        name = f"{study.name}_p{index:04d}.png" if len(points) > 1 else f"{study.name}.png"
        title = figures.links_title(rows.attrs)
        if labels[index]:
            title = f"{labels[index]}: {title}"
        section.add_figure(
            figures.plot_links_heatmap(rows, out_dir / name, title, bound=bound),
            f"Throughput degradation per number of jobs (rows) and share of failed links "
            f"(columns){' at ' + labels[index] if labels[index] else ''}: {title}. The "
            f"colour scale is the same in every heat map of this study.")
    if len(points) > 1:
        section.add_figure(
            _sweep_figure(table, labels, out_dir / f"{study.name}_sweep.png",
                          sweep_title(params_of)),
            "Degradation against the share of failed links, one line per sweep point and "
            "one panel per number of jobs; bars are 95 % confidence intervals over seeds.")
    shown = figures.links_cells(table).copy()
    shown["cell"] = shown.apply(figures.degradation_label, axis=1)
    shown["point"] = shown["point"].map(lambda i: labels[i] or str(i))
    grid = shown.pivot_table(index=["point", "jobs"], columns="failed_pct", values="cell",
                             aggfunc="first", sort=False)
    grid.columns = [f"{c:g}%" for c in grid.columns]
    section.summary = grid.reset_index()
    return section


def sweep_title(params: list[dict]) -> str:
    """The sweep figure's title: the fabric, workload and routing, each only if every point
    shares it (a swept one is in the legend instead)."""
    return ", ".join(str(params[0][key]) for key in ("fabric", "workload", "routing")
                     if all(p[key] == params[0][key] for p in params))


def _sweep_figure(table: pd.DataFrame, labels: dict[int, str], path: Path, title: str) -> Path:
    """Degradation (with its 95 % interval) against the failed share, one line per point,
    one panel per number of jobs."""
    cells = figures.links_cells(table)
    jobs = sorted(cells["jobs"].unique())
    fig, axes = plt.subplots(1, len(jobs), figsize=(4.2 * len(jobs) + 3.5, 3.6),
                             squeeze=False, sharey=True)
    points = sorted(cells["point"].unique())
    step = 0.6 / max(len(points), 1)  # points side by side around each share, bars apart
    for ax, j in zip(axes[0], jobs):
        for index, rows in cells[cells["jobs"] == j].groupby("point"):
            rows = rows[~rows["unroutable"]].sort_values("failed_pct")
            dodge = (points.index(index) - (len(points) - 1) / 2) * step
            ax.errorbar(rows["failed_pct"] + dodge, rows["degradation_pct"],
                        yerr=rows["degradation_ci_pct"].fillna(0), capsize=3, marker="o",
                        label=labels[index] or str(index))
        ax.axhline(0, color="0.6", lw=0.8)
        ax.set_title(f"{j} job{'s' if j > 1 else ''}")
        ax.set_xlabel("failed links (%)")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("throughput degradation (%)")
    # Beside the last panel, so that a sweep of many points hides no data.
    axes[0][-1].legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    return figures.save_figure(fig, path, title)
