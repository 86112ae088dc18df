"""Figures speak for themselves: one colour per substitution degree in every figure, titles
that name the machine as the user did (never an object's repr), one colour scale across the
heat maps of a report, and a report page that states its scenario, fray's version, what ``±``
means, and what each figure shows."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from fray import report
from fray.campaign import load_scenario, run_campaign, write_report
from fray.cli import main
from matplotlib.colors import to_hex


@pytest.fixture
def kept_figures(monkeypatch):
    """The figures the plotting functions draw, kept open instead of written."""
    kept = []

    def keep(fig, path, title=None):
        kept.append((fig, title))
        return path

    monkeypatch.setattr(report, "save_figure", keep)
    return kept


def spare_table(degrees: list[str]) -> pd.DataFrame:
    rows = {"failures": [0, 1, 2], "best": [1, 2, 3], "mean": [1, 2.5, 3.5],
            "worst": [1, 3, 4], "cases": [10, 10, 10], "unrecoverable": [0, 0, 1]}
    for d in degrees:
        rows[f"rate_{d}"] = [0.0, 1 / len(degrees), 1 / len(degrees)]
    return pd.DataFrame(rows)


def degree_colours(fig) -> dict[str, str]:
    """The colour of each band of the spare figure's stacked degrees, by its label."""
    return {c.get_label(): to_hex(c.get_facecolor()[0]) for c in fig.axes[1].collections}


def test_a_substitution_degree_has_one_colour_in_every_spare_figure(kept_figures):
    report.plot_spare_curves(spare_table(["3D", "2D", "1D", "0D"]), "all.png")
    report.plot_spare_curves(spare_table(["1D", "0D"]), "two.png")
    every, two = (degree_colours(fig) for fig, _ in kept_figures)
    assert set(every) == {"0D", "1D", "2D", "3D"} and set(two) == {"0D", "1D"}
    for d in two:
        assert two[d] == every[d] == to_hex(report.DEGREE_COLOURS[d])
    assert to_hex(report.UNRECOVERABLE_COLOUR) not in every.values()
    assert len(set(every.values())) == 4


def test_the_links_heat_map_names_the_fabric_spec_and_its_rate(monkeypatch, tmp_path):
    drawn = []
    monkeypatch.setattr(report, "plot_links_heatmap",
                        lambda table, path, *a, **k: drawn.append(table) or path)
    assert main(["links", "--fabric", "dragonfly:p=2,a=4,h=2,g=9", "--link-bandwidth",
                 "400Gb/s", "--nx", "6", "--jobs", "1", "--failed", "0,30", "--seeds", "2",
                 "--quiet", "--plot", str(tmp_path / "map.png")]) == 0
    (table,) = drawn
    title = report.links_title(table.attrs)
    assert title.startswith("halo3d26") and "on dragonfly:p=2,a=4,h=2,g=9 (50GB/s links)" in title
    assert "2 seeds" in title and "Fabric(" not in title


def test_the_colour_scale_spans_the_cells_drawn():
    table = pd.DataFrame({"jobs": [1, 1, 4, 4], "failed_pct": [0.0, 30.0, 0.0, 30.0],
                          "degradation_pct": [-9.0, 2.5, 0.0, -4.0],
                          "degradation_ci_pct": [0.1] * 4, "unroutable": [False] * 4})
    # The 0 % rows are their own baselines and are not drawn: -9 does not count.
    assert report.links_colour_bound(table) == 4.0
    assert report.links_colour_bound(table.assign(degradation_pct=0.2)) == 1.0


LINKS = """
[study]
kind = "links"
name = "small"
[fabric]
topology = "dragonfly:p=2,a=4,h=2,g=9"
link_bandwidth = "400Gb/s"
[workload]
motif = "halo3d26"
nx = 6
[jobs]
counts = [1]
[faults]
failed_pct = [0, 30]
[sweep.grid]
workload.nx = [4, 6]
[replications]
count = 2
"""


def test_the_report_page_states_its_scenario_and_captions_its_figures(tmp_path):
    scenario = tmp_path / "small.toml"
    scenario.write_text(LINKS)
    db = tmp_path / "r.duckdb"
    run_campaign(load_scenario(scenario), db, workers=1, progress="none")
    rep = write_report(db, tmp_path / "rep")
    page = rep.html.read_text()
    assert re.search(r"Drawn by fray \d+\.\d+", page)
    for key, value in (("fabric.topology", "dragonfly:p=2,a=4,h=2,g=9"),
                       ("replications.count", "2"), ("engine.name", "flow")):
        assert f"<th>{key}</th><td>{value}</td>" in page, key
    assert "half-width of the 95 % confidence interval of the mean over seeds" in page
    (section,) = rep.sections
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    assert len(captions) == len(section.figures) == 3
    for figure, caption in zip(section.figures, captions):
        assert caption == section.captions[figure] and figure.name not in caption
    assert "(50GB/s links)" in captions[0] and "same in every heat map" in captions[0]
