"""The spare-node study's merged curve, standard figure and summary, from its results table.

The figure is the paper's (Figures 10-13): best / mean / worst message collisions against the
number of failed nodes, one colour per sweep point; with replications, a band spans the lowest
and highest mean of the replications. Each point also gets the curve-and-selection-rate figure
of ``fray spares --plot`` (Figures 14-15).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fray.campaign.kind import ReportSection, StudyRecord

if TYPE_CHECKING:
    import duckdb

    from fray.campaign.studies.spares import SparesKind

__all__ = ["merged_curve", "report"]

#: Per-point figures are drawn for studies of at most this many points.
MAX_POINT_FIGURES = 12

_PARAMS = ("fabric", "spare_allocation", "substitution", "stencil", "periodic", "failure_mode",
           "samples", "max_failures", "num_ranks", "num_spares")


def _degree_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[int]:
    names = [r[0] for r in con.execute(f'DESCRIBE "{table}"').fetchall()]
    return sorted(int(n[5:-1]) for n in names if n.startswith("last_") and n.endswith("D"))


def merged_curve(con: duckdb.DuckDBPyConnection, study: StudyRecord,
                 by_replication: bool = False) -> pd.DataFrame:
    """Counts summed over tasks per (point[, replication], failures), then the curve."""
    degrees = _degree_columns(con, study.name)
    keys = ["point", "replication"] if by_replication else ["point"]
    sums = ", ".join(f'sum("last_{k}D") AS "last_{k}D", sum("subs_{k}D") AS "subs_{k}D"'
                     for k in degrees)
    params = ", ".join(f'any_value("{p}") AS "{p}"' for p in _PARAMS)
    group = ", ".join(keys)
    raw = con.execute(
        f"""SELECT {group}, {params}, count(DISTINCT replication) AS replications,
                   failures, sum(cases) AS cases, sum(unrecoverable) AS unrecoverable,
                   min(collisions_best) AS best, max(collisions_worst) AS worst,
                   sum(collisions_sum) AS collisions_sum, {sums}
            FROM "{study.name}" WHERE scenario_hash = ?
            GROUP BY {group}, failures ORDER BY {group}, failures""",
        [study.scenario_hash],
    ).df()
    recovered = (raw["cases"] - raw["unrecoverable"]).astype(float)
    out = raw[[*keys, *_PARAMS, "replications", "failures", "cases", "unrecoverable",
               "best"]].copy()
    out["mean"] = (raw["collisions_sum"] / recovered.where(recovered > 0)).astype(float)
    out["worst"] = raw["worst"]
    made = (raw["failures"] > 0) & (recovered > 0)
    total_subs = sum(raw[f"subs_{k}D"].fillna(0) for k in degrees) if degrees else 0
    for k in degrees:
        last = raw[f"last_{k}D"].astype(float)
        subs = raw[f"subs_{k}D"].astype(float)
        out[f"rate_{k}D"] = (last / recovered).where(made & last.notna())
        out[f"cumrate_{k}D"] = (subs / total_subs).where(made & subs.notna())
    return out.reset_index(drop=True)


def _label(row: pd.Series, swept: list[str]) -> str:
    if not swept:
        return f"{row['substitution']} on {row['fabric']}, {row['spare_allocation']}"
    return ", ".join(str(row[c]) for c in swept)


def _swept(curve: pd.DataFrame) -> list[str]:
    first = curve.groupby("point").first()
    return [c for c in ("fabric", "spare_allocation", "substitution", "stencil", "periodic",
                        "max_failures") if first[c].astype(str).nunique() > 1]


def report(kind: SparesKind, con: duckdb.DuckDBPyConnection, study: StudyRecord,
           out_dir: Path) -> ReportSection:
    """The comparison figure, one figure per point, and a summary row per point."""
    curve = merged_curve(con, study)
    section = ReportSection(title=f"{study.name} (spares)")
    metrics = study.scenario["config"]["metrics"]
    section.lines.append(f"{study.done_tasks} of {study.planned_tasks} tasks done"
                         + ("" if study.done_tasks == study.planned_tasks else
                            " (a partial result: run the scenario again to finish it)"))
    if curve.empty:
        return section
    swept = _swept(curve)
    per_rep = merged_curve(con, study, by_replication=True) if study.scenario[
        "replications"]["count"] > 1 else None
    out_dir.mkdir(parents=True, exist_ok=True)
    section.figures.append(_comparison_figure(curve, per_rep, swept, list(metrics["curves"]),
                                              out_dir / f"{study.name}.png", study.name))
    points = sorted(curve["point"].unique())
    if metrics["selection_rates"] and len(points) <= MAX_POINT_FIGURES and len(points) > 1:
        from fray.report import plot_spare_curves

        for p in points:
            c = curve[curve["point"] == p].reset_index(drop=True)
            title = f"{study.name}, point {p}: {_label(c.iloc[0], [])}"
            section.figures.append(plot_spare_curves(c, out_dir / f"{study.name}_p{p}.png",
                                                     title))
    elif metrics["selection_rates"] and len(points) == 1:
        from fray.report import plot_spare_curves

        c = curve.reset_index(drop=True)
        section.figures.append(plot_spare_curves(c, out_dir / f"{study.name}_rates.png",
                                                 _label(c.iloc[0], [])))
    section.summary = _summary(curve, swept)
    return section


def _comparison_figure(curve: pd.DataFrame, per_rep: pd.DataFrame | None, swept: list[str],
                       curves: list[str], path: Path, name: str) -> Path:
    import matplotlib.pyplot as plt

    from fray.report import save_figure

    unrecoverable = (curve["unrecoverable"] > 0).any()
    fig, axes = plt.subplots(2 if unrecoverable else 1, 1, figsize=(8, 7 if unrecoverable else 5),
                             sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1]} if unrecoverable else None)
    top = axes[0][0]
    styles = {"worst": "-", "mean": "--", "best": ":"}
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (p, c) in enumerate(curve.groupby("point")):
        c = c[c["failures"] > 0]
        color = colors[i % len(colors)]
        label = _label(c.iloc[0], swept)
        for column in ("worst", "mean", "best"):
            if column in curves:
                top.plot(c["failures"], c[column], styles[column], color=color,
                         label=f"{label}: {column}" if len(curves) > 1 else label)
        if per_rep is not None and "mean" in curves:
            r = per_rep[(per_rep["point"] == p) & (per_rep["failures"] > 0)]
            band = r.groupby("failures")["mean"].agg(["min", "max"])
            top.fill_between(band.index, band["min"], band["max"], color=color, alpha=0.25,
                             linewidth=0)
        if unrecoverable:
            axes[1][0].plot(c["failures"], 100 * c["unrecoverable"] / c["cases"], color=color)
    top.set_ylabel("max. message collisions")
    top.grid(True, alpha=0.3)
    top.legend(loc="upper left", fontsize="small")
    bottom = axes[-1][0]
    if unrecoverable:
        axes[1][0].set_ylabel("unrecoverable (%)")
        axes[1][0].set_ylim(0, 100)
        axes[1][0].grid(True, alpha=0.3)
    bottom.set_xlabel("number of node failures")
    note = " (band: lowest to highest mean over replications)" if per_rep is not None else ""
    return save_figure(fig, path, f"{name}: best / mean / worst{note}")


def _at(c: pd.DataFrame, failures: int, column: str) -> float:
    row = c[c["failures"] == failures]
    return float(row[column].iloc[0]) if len(row) else float("nan")


def _summary(curve: pd.DataFrame, swept: list[str]) -> pd.DataFrame:
    rows = []
    for p, c in curve.groupby("point"):
        first = c.iloc[0]
        top = int(c["failures"].max())
        half = max(1, top // 2)
        lost = c[c["unrecoverable"] > 0]["failures"]
        row = {"point": int(p)}
        row.update({col: first[col] for col in swept} if swept else
                   {"study": _label(first, [])})
        row.update({
            "ranks": int(first["num_ranks"]),
            "spares": int(first["num_spares"]),
            "cases": int(c[c["failures"] == 1]["cases"].iloc[0]) if top >= 1 else 0,
            "max F": top,
            "unrecoverable from F": int(lost.min()) if len(lost) else np.nan,
            "mean F=1": _at(c, 1, "mean"),
            "mean F=max/2": _at(c, half, "mean"),
            "mean F=max": _at(c, top, "mean"),
            "worst F=max": _at(c, top, "worst"),
        })
        rows.append(row)
    return pd.DataFrame(rows)
