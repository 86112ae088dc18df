"""The ping-pong's figure: bandwidth against message size per mode, and what the checked
transport keeps of plain MPI's (and of its own unchecked) bandwidth."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from fray import SpecError

LABELS = {
    "none": "plain MPI (no checksum)",
    "naive": "naive: checksum, send, checksum",
    "unchecked": "fray transport, checksum off",
}


def curve_name(row: Mapping) -> str:
    """A row's curve: its mode, and for the checked transport its algorithm too
    (``checked:fletcher64``), so that several checked algorithms stay apart."""
    return f"checked:{row['checksum']}" if row["mode"] == "checked" else str(row["mode"])


def pingpong_curves(rows: Iterable[Mapping]) -> dict[str, tuple[list[int], list[float]]]:
    """Groups ping-pong rows (as ``fray integrity pingpong --json`` prints them) by
    ``curve_name``: ``{curve: (sizes in bytes, bandwidths in bytes/s)}``, sizes ascending.
    A curve measured more than once at one size (several runs) keeps the median."""
    by: dict[str, dict[int, list[float]]] = {}
    for r in rows:
        by.setdefault(curve_name(r), {}).setdefault(int(r["size_bytes"]), []).append(
            float(r["bandwidth_bytes_s"]))
    curves = {}
    for mode, points in by.items():
        sizes = sorted(points)
        curves[mode] = (sizes, [sorted(points[s])[len(points[s]) // 2] for s in sizes])
    return curves


def plot_pingpong(rows: Iterable[Mapping], path: str | Path, title: str | None = None) -> Path:
    """Draws the bandwidth of each mode against message size (top) and the checked
    transport's share of plain MPI's and of the unchecked ring's bandwidth (bottom); writes
    ``path`` (PNG, SVG or PDF by extension) and returns it. The axes are logarithmic: rows of
    0-byte messages are left out, and rows with none above 0 bytes are refused."""
    import matplotlib.pyplot as plt

    from fray.report import save_figure

    curves = {}
    for name, (sizes, bw) in pingpong_curves(rows).items():
        kept = [(s, b) for s, b in zip(sizes, bw) if s > 0 and b > 0]
        if kept:
            curves[name] = ([s for s, _ in kept], [b for _, b in kept])
    if not curves:
        raise SpecError("rows: no message of more than 0 bytes to draw (the plot's axes are "
                        "logarithmic)")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 6.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    for name, (sizes, bw) in curves.items():
        label = LABELS.get(name) or f"fray checked transport ({name.removeprefix('checked:')})"
        top.plot(sizes, [b / 1e9 for b in bw], marker=".", label=label)
    top.set_xscale("log", base=2)
    top.set_yscale("log")
    top.set_ylabel("one-way bandwidth (GB/s)")
    top.grid(True, which="both", alpha=0.3)
    top.legend(fontsize=8)
    for name, (sizes, checked) in curves.items():
        if not name.startswith("checked:"):
            continue
        for ref, style in (("none", "-"), ("unchecked", "--")):
            if ref in curves and curves[ref][0] == sizes:
                ratio = [c / r if r > 0 else float("nan") for c, r in zip(checked, curves[ref][1])]
                bottom.plot(sizes, ratio, style, marker=".", label=f"{name} / {ref}")
    if bottom.lines:
        bottom.axhline(1.0, color="black", linewidth=0.8)
        bottom.legend(fontsize=8)
    bottom.set_ylabel("bandwidth ratio")
    bottom.set_xlabel("message size (bytes)")
    bottom.grid(True, which="both", alpha=0.3)
    return save_figure(fig, path, title)
