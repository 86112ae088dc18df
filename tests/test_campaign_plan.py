"""The repair planner as a campaign: its loss model's states run as tasks (on every core, or
a Dask cluster) and resume after a stop; the report rebuilds the model from the stored
states and gives the table ``fray plan`` gives for the same options and seed."""

from __future__ import annotations

import pandas as pd
import pytest
from fray import plan
from fray.campaign import load_scenario, make_plan, run_campaign, studies, write_report
from fray.campaign.db import ResultsDB
from fray.campaign.schema import ScenarioError
from fray.cli import main

SCENARIO = """
[study]
kind = "plan"
name = "repairs"
[fabric]
topology = "dragonfly:p=2,a=4,h=2,g=9"
[workload]
motif = "halo3d26"
nx = 6
[engine]
name = "load"
[failures]
classes = { global = "exp:mtbf=200d" }
[policies]
specs = ["immediate:repair=2d", "windows:every=30d,length=8h", "windows:every=90d,length=8h"]
[plan]
horizon = "365d"
seeds = 1
points = 3
samples = 2
[replications]
count = 24
seed = 5
"""

COLUMNS = ["policy", "kind", "degraded_share", "downtime_share", "total_share", "total_ci",
           "cut_off_share", "windows", "repairs", "mean_down_global"]


def write(tmp_path, text: str):
    path = tmp_path / "plan.toml"
    path.write_text(text)
    return path


def curve(db):
    with ResultsDB(db, read_only=True) as r:
        (study,) = r.studies()
        return studies.get("plan").curve(r.con, study), study


def test_a_plan_campaign_gives_fray_plans_table_and_resumes(tmp_path):
    scenario = load_scenario(write(tmp_path, SCENARIO))
    tasks = make_plan(scenario).tasks
    # One task per grid point of the loss model above 0 down cables.
    assert 1 <= len(tasks) <= 2 and all(t.kind == "plan" for t in tasks)
    db = tmp_path / "r.duckdb"
    run_campaign(scenario, db, workers=2, progress="none")
    merged, study = curve(db)
    assert study.done_tasks == study.planned_tasks == len(tasks)
    direct = plan.plan("dragonfly:p=2,a=4,h=2,g=9", {"global": "exp:mtbf=200d"},
                       ["immediate:repair=2d", "windows:every=30d,length=8h",
                        "windows:every=90d,length=8h"],
                       workload=merged.attrs["workload"], jobs=1, seeds=1, engine="load",
                       horizon="365d", replications=24, seed=5, points=3, samples=2)
    pd.testing.assert_frame_equal(merged[COLUMNS].reset_index(drop=True), direct[COLUMNS])
    assert (merged["total_share"] > 0).all()
    # A second run finds every task done and changes nothing.
    run_campaign(scenario, db, workers=1, progress="none")
    again, study = curve(db)
    assert study.done_tasks == len(tasks)
    pd.testing.assert_frame_equal(again, merged)


def test_a_plan_campaign_reports_its_figure_and_best_window(tmp_path):
    db = tmp_path / "r.duckdb"
    run_campaign(load_scenario(write(tmp_path, SCENARIO)), db, workers=1, progress="none")
    rep = write_report(db, tmp_path / "rep")
    (section,) = rep.sections
    assert [f.name for f in section.figures] == ["repairs.png"]
    assert any(line.startswith("best window interval: ") for line in section.lines)
    assert list(section.summary["policy"])[0] == plan.plan_spec("policy", "immediate:repair=2d")
    assert main(["report", str(db), "--out", str(tmp_path / "rep2")]) == 0


def test_a_plan_needs_two_replications_and_a_failure_model(tmp_path):
    with pytest.raises(ScenarioError, match="replications.count"):
        make_plan(load_scenario(write(tmp_path, SCENARIO.replace("count = 24", "count = 1"))))
    with pytest.raises(ScenarioError, match="failures.classes"):
        load_scenario(write(tmp_path, SCENARIO.replace('classes = { global = "exp:mtbf=200d" }',
                                                       "")))
