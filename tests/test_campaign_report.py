"""``fray report`` and ``fray export`` on a results file, and the results file's bookkeeping."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from fray.campaign import load_scenario, make_plan, run_campaign, studies, write_report
from fray.campaign.db import ResultsDB
from fray.campaign.tasks import execute
from fray.cli import main
from fray.store import read_table

PNG = b"\x89PNG\r\n\x1a\n"

EXHAUSTIVE = """
[study]
kind = "spares"
name = "worst_cases"
[fabric]
topology = "mesh:8x8"
[jobs]
spare_allocation = "2D(1,1)"
[faults]
mode = "exhaustive"
max_failures = 3
[mitigation]
substitution = "0D"
"""

SAMPLED = """
[study]
kind = "spares"
name = "curves"
[fabric]
topology = "mesh:8x8"
[jobs]
spare_allocation = "2D(2,1)"
[faults]
samples = 60
max_failures = 6
[mitigation]
substitution = "0D"
[sweep.grid]
mitigation.substitution = ["0D", "hybrid(all)"]
[replications]
count = 2
[tasks]
cases = 30
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """One results file holding two finished studies."""
    tmp = tmp_path_factory.mktemp("results")
    db = tmp / "results.duckdb"
    for name, text in (("a.toml", EXHAUSTIVE), ("b.toml", SAMPLED)):
        (tmp / name).write_text(text)
        run_campaign(tmp / name, db, workers=2, progress="none")
    return db


def test_report_draws_pngs_and_one_self_contained_page(results, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", str(results), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "worst_cases (spares)" in printed and "curves (spares)" in printed
    report = write_report(results, out)
    figures = [f for s in report.sections for f in s.figures]
    assert figures and all(Path(f).read_bytes()[:8] == PNG for f in figures)
    assert {Path(f).name for f in figures} >= {"worst_cases.png", "curves.png"}
    page = report.html.read_text()
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == len(figures)
    assert {base64.b64decode(i) for i in images} == {Path(f).read_bytes() for f in figures}
    assert not re.search(r'src="(?!data:)', page)  # nothing outside the page itself


def test_report_summary_holds_the_exhaustive_worst_cases(results, tmp_path):
    sections = {s.title: s for s in write_report(results, tmp_path).sections}
    summary = sections["worst_cases (spares)"].summary
    # examples/spare_nodes_quickstart.py: 0D with 2D(1,1) on mesh:8x8, F=1..3: 5, 5, 6.
    assert summary.loc[0, "worst F=max"] == 6
    assert summary.loc[0, "ranks"] == 56 and summary.loc[0, "cases"] == 56
    curves = sections["curves (spares)"].summary
    assert list(curves["substitution"]) == ["0D", "hybrid(all)"]
    assert (curves["cases"] == 2 * 60).all()  # both replications merged


def test_export_parquet_and_csv_round_trip(results, tmp_path, capsys):
    kind = studies.get("spares")
    with ResultsDB(results, read_only=True) as r:
        (study,) = r.studies(["curves"])
        rows, curve = r.rows(study), kind.curve(r.con, study)
    for fmt in ("parquet", "csv"):
        out = tmp_path / fmt
        assert main(["export", str(results), "--format", fmt, "--out", str(out)]) == 0
        listed = capsys.readouterr().out.split()
        assert sorted(Path(p).name for p in listed) == sorted(
            f"{n}.{fmt}" for n in ("curves", "curves_curve", "worst_cases", "worst_cases_curve"))
        for name, want in (("curves", rows), ("curves_curve", curve)):
            got = read_table(out / f"{name}.{fmt}")
            if fmt == "csv":  # CSV keeps no types: an empty cell reads as NaN, 1 as 1.0
                got, want = _plain(got), _plain(want)
            pd.testing.assert_frame_equal(got, want, check_dtype=False)


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype(object).where(frame.notna(), None)


def test_a_partial_study_reports_how_far_it_got(tmp_path):
    (tmp_path / "b.toml").write_text(SAMPLED)
    plan = make_plan(load_scenario(tmp_path / "b.toml"))
    db = tmp_path / "partial.duckdb"
    with ResultsDB(db) as r:
        r.register(plan)
        first = plan.tasks[0]
        assert r.write("curves", plan.scenario.hash, first.key, execute(first))
        assert not r.write("curves", plan.scenario.hash, first.key, execute(first))
        assert r.done_keys("curves") == {first.key}
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute('SELECT count(*) FROM "curves"').fetchone()[0] == 6 + 1
    con.close()
    (section,) = write_report(db, tmp_path / "out").sections
    assert section.lines[0].startswith(f"1 of {len(plan.tasks)} tasks done")


@pytest.mark.parametrize(
    ("command", "needle"),
    [
        (["report", "missing.duckdb"], "missing.duckdb: no such results file"),
        (["export", "missing.duckdb", "--out", "x"], "missing.duckdb: no such results file"),
        (["report", "plain.duckdb"], "not a fray results file"),
        (["report", "RESULTS", "--study", "nope"], "no study named 'nope'"),
    ],
)
def test_bad_results_files_are_one_line_errors(tmp_path, results, command, needle):
    duckdb.connect(str(tmp_path / "plain.duckdb")).close()
    command = [str(results) if c == "RESULTS" else c for c in command]
    r = subprocess.run([sys.executable, "-m", "fray", *command], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr


def test_the_quick_example_runs_as_it_is_and_reports_what_it_shows(tmp_path):
    example = Path(__file__).resolve().parent.parent / "examples" / "spares_quick.toml"
    db = tmp_path / "quick.duckdb"
    r = subprocess.run([sys.executable, "-m", "fray", "run", str(example), "--db", str(db),
                        "--workers", "2", "--quiet"], capture_output=True, text=True,
                       timeout=600, check=False)
    assert r.returncode == 0, r.stderr
    assert "spares_quick: 24 tasks, 24 run now" in r.stdout
    summary = write_report(db, tmp_path / "out").sections[0].summary.set_index("substitution")
    # Two spare sides: hybrid(all) slides the first failure away (2D sliding, no collision),
    # 0D moves it to a spare node whose messages collide; 3 x 1,000 sequences in all.
    assert summary.loc["hybrid(all)", "mean F=1"] == 1
    assert summary.loc["0D", "mean F=1"] > 3
    assert (summary["cases"] == 3000).all() and (summary["spares"] == 15).all()
