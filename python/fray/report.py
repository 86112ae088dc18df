"""Figures a person would rather look at than read."""

from __future__ import annotations

import base64
import html
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import MaxNLocator

from fray.units import parse_seconds

__all__ = [
    "CI_MEANING",
    "DEGREE_COLOURS",
    "UNRECOVERABLE_COLOUR",
    "degradation_label",
    "degree_colour",
    "figure_html",
    "html_page",
    "links_colour_bound",
    "links_title",
    "plot_collective_times",
    "plot_health_loss",
    "plot_links_heatmap",
    "plot_repair_curve",
    "plot_spare_curves",
    "save_figure",
]


#: The colour of each substitution degree in every figure of the spare-node study (the same
#: degree is the same colour whichever degrees a figure holds); red is kept for the
#: unrecoverable cases.
DEGREE_COLOURS = {"0D": "tab:blue", "1D": "tab:orange", "2D": "tab:green", "3D": "tab:purple"}
#: The colour of unrecoverable cases (and of throughput lost) in every figure.
UNRECOVERABLE_COLOUR = "tab:red"
#: What a ``±`` means in every table and figure of the failed-links study.
CI_MEANING = "± is the half-width of the 95 % confidence interval of the mean over seeds"


def degree_colour(degree: str) -> str:
    """The colour of substitution degree ``degree`` (``"1D"``); grey for one not listed."""
    return DEGREE_COLOURS.get(degree, "tab:gray")


def save_figure(fig, path: str | Path, title: str | None = None) -> Path:
    """Titles ``fig`` (when ``title`` is given), lays it out and writes it to ``path`` (PNG,
    PDF or SVG by extension, parent folders created); closes it and returns the path."""
    path = Path(path)
    if title:
        width = max(40, int(fig.get_figwidth() * 11))  # characters that fit at this size
        fig.suptitle(textwrap.fill(title, width), fontsize="medium")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_spare_curves(table: pd.DataFrame, path: str | Path, title: str | None = None) -> Path:
    """Draws best / mean / worst collisions against failures (top) and the share of each
    substitution degree (bottom), as in the paper's Figures 10-15; writes ``path`` (PNG, PDF
    or SVG by extension) and returns it."""
    rows = table[table["failures"] > 0]
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(8, 7), sharex=True, gridspec_kw={"height_ratios": [3, 2]}
    )
    for column, style in (("worst", "-"), ("mean", "--"), ("best", ":")):
        top.plot(rows["failures"], rows[column], style, color="black", label=column.capitalize())
    top.set_ylabel("max. message collisions")
    top.grid(True, alpha=0.3)
    top.legend(loc="upper left")
    unrec = rows["unrecoverable"] / rows["cases"]
    if (unrec > 0).any():
        twin = top.twinx()
        twin.plot(rows["failures"], unrec * 100, color=UNRECOVERABLE_COLOUR, alpha=0.6,
                  label="unrecoverable")
        twin.set_ylabel("unrecoverable cases (%)", color=UNRECOVERABLE_COLOUR)
        twin.set_ylim(0, 100)
    rates = sorted((c for c in table.columns if c.startswith("rate_")), reverse=True)
    shares = [rows[c].fillna(0) * 100 for c in rates]
    degrees = [c.removeprefix("rate_") for c in rates]
    bottom.stackplot(rows["failures"], shares, labels=degrees,
                     colors=[degree_colour(d) for d in degrees])
    bottom.set_ylabel("selection rate (%)")
    bottom.set_xlabel("number of node failures")
    bottom.set_ylim(0, 100)
    bottom.legend(loc="lower right", ncol=len(rates), fontsize="small")
    a = table.attrs
    if title is None and a:
        title = f"{a.get('method')} on {a.get('fabric')}, {a.get('alloc')} spares"
    return save_figure(fig, path, title)


def degradation_label(row, sep: str = " ") -> str:
    """A failed-links cell as people read it: ``1.23% ±0.40`` (mean and 95 % CI half-width),
    ``1.23%`` with one seed, ``unroutable`` when the routing could not serve the workload."""
    if row["unroutable"]:
        return "unroutable"
    ci = row["degradation_ci_pct"]
    return f"{row['degradation_pct']:.2f}%" + ("" if pd.isna(ci) else f"{sep}±{ci:.2f}")


def links_cells(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a failed-links table worth a cell: those above 0 % failed (a 0 % row is
    its own baseline), and the 0 % row too when the study had cables already down (it is
    then what they cost)."""
    return table if table.attrs.get("down") else table[table["failed_pct"] > 0]


def links_title(attrs: dict) -> str:
    """What every cell of a failed-links table shares, from its ``attrs``: the workload, the
    fabric (and its link rate when one was set), the routing, the engine and the seeds."""
    title = f"{attrs.get('workload')} on {attrs.get('fabric')}"
    if attrs.get("link_bandwidth"):
        title += f" ({attrs['link_bandwidth']} links)"
    title += f", {attrs.get('routing')} routing"
    if attrs.get("engine") is not None:
        title += f", {attrs['engine']} engine"
    if attrs.get("seeds") is not None:
        title += f", {attrs['seeds']} seed{'s' if attrs['seeds'] != 1 else ''}"
    return title


def plot_links_heatmap(table: pd.DataFrame, path: str | Path, title: str | None = None,
                       bound: float | None = None) -> Path:
    """Draws the failed-links table as the paper lays it out: jobs down, failed % across,
    each cell coloured by its degradation and labelled ``mean ± 95 % CI``; unroutable cells
    are grey and say so. The colour scale runs from ``-bound`` to ``bound`` percent (default:
    the largest degradation of this table, at least 1), so that the heat maps of one report
    can share one scale. The title defaults to :func:`links_title`. Writes ``path`` (PNG,
    PDF or SVG) and returns it."""
    rows = links_cells(table)
    jobs = sorted(rows["jobs"].unique())
    pcts = sorted(rows["failed_pct"].unique())
    grid = rows.pivot(index="jobs", columns="failed_pct", values="degradation_pct")
    grid = grid.reindex(index=jobs, columns=pcts).astype(float)
    fig, ax = plt.subplots(figsize=(max(7.0, 1.2 * len(pcts) + 2.5), 0.7 * len(jobs) + 1.8))
    if bound is None:
        bound = links_colour_bound(table)
    image = ax.imshow(grid.to_numpy(), cmap="RdBu_r", vmin=-bound, vmax=bound, aspect="auto")
    ax.set_facecolor("0.85")
    for (i, j_count), (k, pct) in ((a, b) for a in enumerate(jobs) for b in enumerate(pcts)):
        cell = rows[(rows["jobs"] == j_count) & (rows["failed_pct"] == pct)].iloc[0]
        dark = not cell["unroutable"] and abs(cell["degradation_pct"]) > 0.6 * bound
        text = degradation_label(cell, sep="\n")
        ax.text(k, i, text, ha="center", va="center", fontsize="small", color="white" if dark else "black")
    ax.set_xticks(range(len(pcts)), [f"{p:g}%" for p in pcts])
    ax.set_yticks(range(len(jobs)), [f"{j} job{'s' if j > 1 else ''}" for j in jobs])
    a = table.attrs
    ax.set_xlabel(f"failed links on top of those in {Path(a['down']).name}" if a.get("down")
                  else "failed links")
    ax.set_title(f"each cell: mean throughput degradation ({CI_MEANING})", fontsize="small")
    fig.colorbar(image, ax=ax, label="mean throughput degradation (%)")
    if title is None and a:
        title = links_title(a)
    return save_figure(fig, path, title)


def links_colour_bound(table: pd.DataFrame) -> float:
    """The half-range of a failed-links heat map's colour scale in percent: the largest
    degradation of the cells drawn, at least 1."""
    values = links_cells(table)["degradation_pct"].astype(float).abs()
    return max(1.0, float(values.max())) if values.notna().any() else 1.0


def plot_collective_times(
    table: pd.DataFrame,
    times: dict[tuple[str, str], list[float]],
    path: str | Path,
    title: str | None = None,
) -> Path:
    """Draws the mean allreduce time of each (replication, errors) case as bars with its
    spread (p50 to p99), one group of bars per error model; writes ``path`` and returns it."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    errors = list(dict.fromkeys(table["errors"]))
    cases = list(dict.fromkeys(times))
    replications = list(dict.fromkeys(r for r, _ in cases))
    width = 0.8 / max(len(replications), 1)
    for i, replication in enumerate(replications):
        means, lows, highs, xs = [], [], [], []
        for j, model in enumerate(errors):
            if (replication, model) not in times:
                continue
            t = pd.Series(times[(replication, model)]) * 1e6
            xs.append(j + i * width)
            means.append(t.mean())
            lows.append(t.mean() - t.quantile(0.5))
            highs.append(t.quantile(0.99) - t.mean())
        ax.bar(xs, means, width, label=replication)
        ax.errorbar(xs, means, yerr=[[max(v, 0) for v in lows], [max(v, 0) for v in highs]],
                    fmt="none", color="black", capsize=3)
    ax.set_xticks([j + width * (len(replications) - 1) / 2 for j in range(len(errors))])
    ax.set_xticklabels(errors, rotation=15)
    ax.set_ylabel("allreduce time (us):\nbar the mean, whiskers p50 to p99")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    if title is None and table.attrs:
        title = f"fabric-based allreduce on {table.attrs.get('fabric')}"
    return save_figure(fig, path, title)


def plot_plan(table: pd.DataFrame, path: str | Path, title: str | None = None) -> Path:
    """Draws :func:`fray.plan.plan`'s total loss (percent of the horizon's machine
    throughput, 95 % CI bars) against the window interval T in days, one line per window
    length, with the other policies as horizontal bands; writes ``path`` and returns it."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    windows = table[table["kind"] == "windows"].copy()
    windows["every_d"] = windows["every_s"] / 86400
    windows["length"] = windows["policy"].str.extract(r"length=([^,]+)")[0]
    for length, rows in windows.groupby("length", sort=False):
        rows = rows.sort_values("every_d")
        hours = parse_seconds(str(length), "length") / 3600
        ax.errorbar(rows["every_d"], rows["total_share"] * 100, yerr=rows["total_ci"] * 100,
                    marker="o", capsize=3, label=f"windows of {hours:g} h")
    others = table[table["kind"] != "windows"]
    for (_, row), color in zip(others.iterrows(), ("tab:gray", "tab:red", "tab:purple")):
        mid, half = row["total_share"] * 100, row["total_ci"] * 100
        ax.axhline(mid, color=color, linestyle="--", label=row["policy"])
        ax.axhspan(mid - half, mid + half, color=color, alpha=0.15)
    ax.set_xlabel("window interval T (days)")
    ax.set_ylabel("machine throughput lost (%),\nmean and 95 % CI over replications")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    a = table.attrs
    if title is None and a:
        title = (f"{a.get('workload')} on {a.get('fabric')}, {a.get('replications')} "
                 f"replications of {a.get('horizon')}")
    return save_figure(fig, path, title)


def plot_health_loss(loss: pd.DataFrame, path: str | Path, title: str | None = None) -> Path:
    """Draws :func:`fray.health.loss_rows`'s machine throughput lost now per workload as bars
    with their 95 % CI; an unroutable workload is marked so. Writes ``path``, returns it."""
    fig, ax = plt.subplots(figsize=(max(5.0, 1.4 * len(loss) + 2), 4))
    xs = range(len(loss))
    ax.bar(xs, loss["loss_pct"], color=UNRECOVERABLE_COLOUR, alpha=0.7)
    ax.errorbar(xs, loss["loss_pct"], yerr=loss["loss_ci_pct"], fmt="none", color="black",
                capsize=4)
    labels = [w + (" (unroutable)" if u else "") for w, u in zip(loss["workload"],
                                                                   loss["unroutable"])]
    ax.set_xticks(list(xs), labels)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("machine throughput lost now (%),\nmean and 95 % CI")
    ax.grid(True, axis="y", alpha=0.3)
    return save_figure(fig, path, title)


def plot_repair_curve(costs: dict[str, pd.DataFrame], path: str | Path,
                      title: str | None = None) -> Path:
    """Draws each workload's greedy repair plan (:func:`fray.links.greedy_repairs`): machine
    throughput in percent of the healthy machine's against cables repaired, with its 95 % CI
    band. Writes ``path`` and returns it."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for workload, table in costs.items():
        mid = table["throughput_pct"].astype(float)
        half = table["throughput_ci_pct"].astype(float).fillna(0)
        line, = ax.plot(table["step"], mid, marker="o", label=workload)
        ax.fill_between(table["step"], mid - half, mid + half, color=line.get_color(), alpha=0.2)
    ax.axhline(100, color="black", linestyle="--", linewidth=0.8, label="healthy")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("cables repaired (greedy order)")
    ax.set_ylabel("machine throughput (% of healthy)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return save_figure(fig, path, title)


def figure_html(path: str | Path, caption: str | None = None) -> str:
    """The PNG figure at ``path`` as an HTML ``<figure>`` holding it as a data URI, so that
    the page needs no other file, captioned with what it shows (``caption``; the file's
    name when none is given)."""
    text = html.escape(caption or Path(path).name)
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (f'<figure><img alt="{text}" src="data:image/png;base64,{data}">'
            f"<figcaption>{text}</figcaption></figure>")


def html_page(title: str, body: list[str]) -> str:
    """A self-contained HTML page titled ``title`` holding the HTML fragments ``body``."""
    style = ("body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;font-size:90%}td,th{padding:2px 8px;"
             "text-align:right;border-bottom:1px solid #ddd}img{max-width:100%}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            f"</title><style>{style}</style></head><body>\n" + "\n".join(body)
            + "\n</body></html>\n")
