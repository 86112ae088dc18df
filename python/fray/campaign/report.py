"""``fray report``: every study of a results file as PNG figures, one self-contained HTML page
(figures embedded as base64) and summary tables for the terminal."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fray.campaign import studies
from fray.campaign.db import read_results
from fray.campaign.kind import ReportSection
from fray.campaign.tasks import fray_version
from fray.report import figure_html, html_page

__all__ = ["Report", "write_report"]


@dataclass(frozen=True)
class Report:
    """What ``write_report`` wrote: the HTML page, and a section per study."""

    html: Path
    sections: list[ReportSection]

    def text(self) -> str:
        """The summary as a person reads it in a terminal."""
        parts = []
        for s in self.sections:
            parts.append(s.title)
            parts.extend(f"  {line}" for line in s.lines)
            if s.summary is not None and not s.summary.empty:
                parts.append(_table_text(s.summary))
            parts.append("")
        parts.append(f"figures and {self.html.name} in {self.html.parent}")
        return "\n".join(parts)


def write_report(db: str | Path, out_dir: str | Path | None = None,
                 names: list[str] | None = None) -> Report:
    """Draws every study of ``db`` (or those ``names``) into ``out_dir`` (default: a folder
    beside the file, ``<db name>_report``) and writes ``report.html`` there."""
    db = Path(db)
    out = Path(out_dir) if out_dir is not None else db.with_name(db.stem + "_report")
    with read_results(db) as results:
        sections, scenarios = [], []
        for study in results.studies(names):
            kind = studies.get(study.kind)
            sections.append(kind.report(results.con, study, out))
            scenarios.append(study.scenario)
    out.mkdir(parents=True, exist_ok=True)
    page = out / "report.html"
    page.write_text(_html(db, sections, scenarios), encoding="utf-8")
    return Report(page, sections)


def _table_text(frame: pd.DataFrame) -> str:
    return frame.to_string(index=False, float_format=lambda x: f"{x:.3g}", na_rep="-")


def _html(db: Path, sections: list[ReportSection], scenarios: list[dict]) -> str:
    body = [f"<h1>fray results: {html.escape(db.name)}</h1>",
            f"<p>Drawn by fray {html.escape(fray_version())} from {html.escape(str(db))}.</p>"]
    for s, scenario in zip(sections, scenarios):
        body.append(f"<h2>{html.escape(s.title)}</h2>")
        body.extend(f"<p>{html.escape(line)}</p>" for line in s.lines)
        body.append(_scenario_html(scenario))
        if s.summary is not None and not s.summary.empty:
            body.append(s.summary.to_html(index=False, float_format=lambda x: f"{x:.3g}",
                                          na_rep="-", border=0))
        body.extend(figure_html(fig, s.captions.get(fig)) for fig in s.figures)
    return html_page(f"fray results: {db.name}", body)


def _scenario_html(scenario: dict) -> str:
    """The study's scenario as it ran (every section and key, the seeds and the engine
    among them), as a two-column table."""
    rows = "".join(f"<tr><th>{html.escape(key)}</th><td>{html.escape(str(value))}</td></tr>"
                   for key, value in _flat(scenario) if value is not None)
    return (f'<details open><summary>Scenario</summary><table class="scenario">{rows}'
            "</table></details>")


def _flat(value: object, prefix: str = "") -> list[tuple[str, object]]:
    """``section.key`` pairs of a nested scenario dict, in its order (the sections under
    ``config`` named as the scenario file names them)."""
    if isinstance(value, dict):
        return [pair for key, v in value.items()
                for pair in _flat(v, "" if (key, prefix) == ("config", "") else
                                  f"{prefix}.{key}" if prefix else str(key))]
    return [(prefix, value)]
