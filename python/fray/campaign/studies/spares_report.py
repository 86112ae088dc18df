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
from fray.report import UNRECOVERABLE_COLOUR

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
    sums = ", ".join(f'sum("last_{k}D")::BIGINT AS "last_{k}D", '
                     f'sum("subs_{k}D")::BIGINT AS "subs_{k}D"' for k in degrees)
    params = ", ".join(f'any_value("{p}") AS "{p}"' for p in _PARAMS)
    group = ", ".join(keys)
    raw = con.execute(
        f"""SELECT {group}, {params}, count(DISTINCT replication) AS replications,
                   failures, sum(cases)::BIGINT AS cases,
                   sum(unrecoverable)::BIGINT AS unrecoverable,
                   min(collisions_best) AS best, max(collisions_worst) AS worst,
                   sum(collisions_sum)::BIGINT AS collisions_sum, {sums}
            FROM "{study.name}" WHERE scenario_hash = ?
            GROUP BY {group}, failures ORDER BY {group}, failures""",
        [study.scenario_hash],
    ).df()
    recovered = (raw["cases"] - raw["unrecoverable"]).astype(float)
    out = raw[[*keys, *_PARAMS, "replications", "failures", "cases", "unrecoverable"]].copy()
    # Floats with NaN where no case was recovered, as fray.spares.study gives them.
    out["best"] = raw["best"].astype(float)
    out["mean"] = (raw["collisions_sum"] / recovered.where(recovered > 0)).astype(float)
    out["worst"] = raw["worst"].astype(float)
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
    spread = (" The band is the spread over replications (lowest to highest)."
              if per_rep is not None else "")
    section.add_figure(
        _comparison_figure(curve, per_rep, swept, list(metrics["curves"]),
                           out_dir / f"{study.name}.png", study.name),
        "Maximum message collisions (best, mean, worst case) against node failures, one "
        "colour per sweep point, with the unrecoverable cases in red on the right axis."
        + spread)
    points = sorted(curve["point"].unique())
    if metrics["selection_rates"] and len(points) <= MAX_POINT_FIGURES and len(points) > 1:
        from fray.report import plot_spare_curves

        for p in points:
            c = curve[curve["point"] == p].reset_index(drop=True)
            title = f"{study.name}, point {p}: {_label(c.iloc[0], [])}"
            section.add_figure(plot_spare_curves(c, out_dir / f"{study.name}_p{p}.png", title),
                               f"Collisions and the share of each substitution degree "
                               f"against node failures ({title}).")
    elif metrics["selection_rates"] and len(points) == 1:
        from fray.report import plot_spare_curves

        c = curve.reset_index(drop=True)
        section.add_figure(plot_spare_curves(c, out_dir / f"{study.name}_rates.png",
                                             _label(c.iloc[0], [])),
                           f"Collisions and the share of each substitution degree against "
                           f"node failures ({_label(c.iloc[0], [])}).")
    section.summary = _summary(curve, swept)
    return section


def _comparison_figure(curve: pd.DataFrame, per_rep: pd.DataFrame | None, swept: list[str],
                       curves: list[str], path: Path, name: str) -> Path:
    """Up to four points on one axes (the paper's Figures 10-13), more as small multiples."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    from fray.report import save_figure

    groups = list(curve.groupby("point"))
    overlay = len(groups) <= 4
    cols = 1 if overlay else min(4, len(groups))
    rows = 1 if overlay else -(-len(groups) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(8, 5) if overlay else (3.4 * cols, 2.9 * rows),
                             squeeze=False, sharex=not overlay, sharey=not overlay)
    # Red is the unrecoverable cases' colour: no point takes it.
    colors = [c for c in plt.rcParams["axes.prop_cycle"].by_key()["color"]
              if to_hex(c) != to_hex(UNRECOVERABLE_COLOUR)]
    for i, (p, c) in enumerate(groups):
        ax = axes[0][0] if overlay else axes[i // cols][i % cols]
        color = colors[i % len(colors)] if overlay else "black"
        _draw_point(ax, c[c["failures"] > 0], per_rep, p, curves, color)
        if not overlay:
            ax.set_title(_label(c.iloc[0], swept), fontsize="small")
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in axes[-1]:
        ax.set_xlabel("node failures")
    for r in axes:
        r[0].set_ylabel("max. message collisions")
    styles = [Line2D([], [], color="grey", linestyle=_STYLES[k], label=k) for k in
              ("worst", "mean", "best") if k in curves]
    if per_rep is not None and "mean" in curves:
        styles.append(plt.Rectangle((0, 0), 1, 1, color="grey", alpha=0.25,
                                    label="mean, lowest to highest replication"))
    if any((c["unrecoverable"] > 0).any() for _, c in groups):
        styles.append(Line2D([], [], color=UNRECOVERABLE_COLOUR, alpha=0.5,
                             label="unrecoverable (%)"))
    if overlay:
        points = [Line2D([], [], color=colors[i % len(colors)], label=_label(c.iloc[0], swept))
                  for i, (_, c) in enumerate(groups)]
        first = axes[0][0].legend(handles=points, loc="upper left", fontsize="small")
        axes[0][0].add_artist(first)
        axes[0][0].legend(handles=styles, loc="lower right", fontsize="small")
    else:
        axes[0][0].legend(handles=styles, loc="upper left", fontsize="x-small")
    return save_figure(fig, path, f"{name}: best / mean / worst collisions")


_STYLES = {"worst": "-", "mean": "--", "best": ":"}


def _draw_point(ax, c: pd.DataFrame, per_rep: pd.DataFrame | None, point: int,
                curves: list[str], color: str) -> None:
    for column in ("worst", "mean", "best"):
        if column in curves:
            ax.plot(c["failures"], c[column], _STYLES[column], color=color)
    if per_rep is not None and "mean" in curves:
        r = per_rep[(per_rep["point"] == point) & (per_rep["failures"] > 0)]
        band = r.groupby("failures")["mean"].agg(["min", "max"])
        ax.fill_between(band.index, band["min"], band["max"], color=color, alpha=0.25,
                        linewidth=0)
    lost = c["unrecoverable"] / c["cases"]
    if (lost > 0).any():
        twin = ax.twinx()
        twin.plot(c["failures"], 100 * lost, color=UNRECOVERABLE_COLOUR, alpha=0.5)
        twin.set_ylim(0, 100)
        twin.tick_params(axis="y", colors=UNRECOVERABLE_COLOUR, labelsize="small")


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
