"""The repair planner as a campaign: the states its loss model samples run as tasks, so a
plan on a large machine uses every core or a Dask cluster and resumes after a crash.

``fray plan`` fits a model of loss against down cables per class from sampled fault states
(each one simulation of the workload per seed), then runs the Monte Carlo over the horizon
with it. Here each grid point of the model (one class, one count of down cables) is a task
that simulates its sampled states and stores one row per state; ``fray report`` rebuilds the
model from the stored rows and runs the Monte Carlo (seconds), which gives the table
``fray plan`` gives for the same options and seed. ``replications.count`` is the number of
Monte Carlo replications (horizons), ``replications.seed`` the plan's seed.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from fray import SpecError
from fray._fray import PlanSetup
from fray.campaign.kind import ReportSection, StudyKind, StudyRecord
from fray.campaign.schema import REQUIRED, Field, ScenarioError, text, whole
from fray.campaign.studies.links import SECTIONS as LINKS_SECTIONS
from fray.campaign.studies.links import _fabric, flow_times, machine_params
from fray.campaign.tasks import Task
from fray.plan import DEFAULT_EVERY, policies, setup

if TYPE_CHECKING:
    from pathlib import Path

    import duckdb
    import pandas as pd

    from fray.campaign.scenario import Point, Scenario

__all__ = ["PLAN", "PlanKind"]


def _failures(value: Any) -> dict[str, str]:
    """A table of link class = failure model spec."""
    if not isinstance(value, dict) or not value:
        raise TypeError("")
    if any(not isinstance(k, str) or not isinstance(v, str) for k, v in value.items()):
        raise TypeError("")
    return dict(value)


def _policy_specs(value: Any) -> list[str]:
    if not isinstance(value, list) or not value or any(not isinstance(p, str) for p in value):
        raise TypeError("")
    return value


SECTIONS: dict[str, dict[str, Field]] = {
    "fabric": LINKS_SECTIONS["fabric"],
    "workload": LINKS_SECTIONS["workload"],
    "routing": LINKS_SECTIONS["routing"],
    "engine": LINKS_SECTIONS["engine"],
    "jobs": {"count": Field("a positive whole number of jobs sharing the machine", whole(1), 1)},
    "failures": {
        "classes": Field('a table of link class = failure model, such as '
                         '{ global = "exp:mtbf=1000d" } or "weibull:shape=1.5,scale=1100d"',
                         _failures, REQUIRED),
    },
    "policies": {
        "specs": Field('a list of repair policies such as "immediate:repair=24h", '
                       '"windows:every=30d,length=8h", "threshold:loss=2%,repair=24h" '
                       f'(default: at once after 24 h, and 8 h windows every '
                       f'{", ".join(DEFAULT_EVERY)})', _policy_specs),
    },
    "plan": {
        "horizon": Field('the length of one replication, such as "365d"', text, "365d"),
        "seeds": Field("a positive whole number of layouts per fault state", whole(1), 2),
        "points": Field("a whole number of grid points per class of the loss model, at least 2",
                        whole(2), 8),
        "samples": Field("a positive whole number of sampled states per grid point",
                         whole(1), 4),
    },
}

_COLUMNS = [
    ("fabric", "VARCHAR"),
    ("workload", "VARCHAR"),
    ("engine", "VARCHAR"),
    ("class", "VARCHAR"),
    ("class_index", "INTEGER"),
    ("down", "INTEGER"),
    ("draw", "INTEGER"),
    ("cables", "INTEGER[]"),
    ("cut_off_draws", "INTEGER"),
    ("loss", "DOUBLE"),
]


def plan_params(scenario: Scenario, point: Point) -> dict[str, Any]:
    """The plain-data parameters of a point's plan (what every task carries)."""
    c = point.config
    p = c["plan"]
    _, shared = machine_params(scenario, point)
    specs = c["policies"]["specs"]
    return shared | {
        "engine": c["engine"]["name"],
        **flow_times(c["engine"]),
        "jobs": c["jobs"]["count"],
        "failures": c["failures"]["classes"],
        "policies": policies() if specs is None else list(specs),
        "horizon": p["horizon"],
        "seeds": p["seeds"],
        "points": p["points"],
        "samples": p["samples"],
        "replications": scenario.replications,
        "seed": scenario.seed,
    }


@functools.lru_cache(maxsize=4)
def _setup(key: str) -> PlanSetup:
    """The core's plan of these parameters (a JSON text), kept per worker so that the healthy
    machine runs once for every task of a point."""
    p = json.loads(key)
    return setup(_fabric(p["fabric"], p["link_bandwidth"], p["host_bandwidth"]), p["failures"],
                 p["policies"], workload=p["workload"], jobs=p["jobs"], seeds=p["seeds"],
                 routing=p["routing"], engine=p["engine"], horizon=p["horizon"],
                 replications=p["replications"], seed=p["seed"],
                 time_tolerance=p["time_tolerance"], time_resolution=p["time_resolution"])


def setup_of(params: dict[str, Any]) -> PlanSetup:
    """The point's plan in the core (cached per process)."""
    return _setup(json.dumps(params, sort_keys=True))


class PlanKind(StudyKind):
    """When to repair: machine throughput lost over a horizon per repair policy
    (``fray.plan``), its loss model's states as tasks."""

    name = "plan"
    sections = SECTIONS

    # -- planning (driver) -------------------------------------------------------------------

    def plan(self, scenario: Scenario, point: Point) -> list[Task]:
        if scenario.replications < 2:
            raise ScenarioError(scenario.source, "replications.count",
                                "the plan's Monte Carlo needs at least 2 replications, got "
                                f"{scenario.replications}")
        params = plan_params(scenario, point)
        try:
            jobs = setup_of(params).model_jobs(params["points"], params["samples"])
        except SpecError as exc:
            raise ScenarioError(scenario.source, None, str(exc)) from None
        by_point: dict[tuple[int, int], list] = defaultdict(list)
        for job in jobs:
            by_point[(job[0], job[1])].append(list(job))
        return [
            Task(kind=self.name, key=f"p{point.index:04d}-c{c:02d}-n{n:05d}", point=point.index,
                 replication=0, seed=scenario.seed, params=params | {"states": states},
                 weight=float(len(states)))
            for (c, n), states in sorted(by_point.items())
        ]

    def columns(self, tasks: list[Task]) -> list[tuple[str, str]]:
        return _COLUMNS

    # -- running (worker) --------------------------------------------------------------------

    def run(self, task: Task) -> dict[str, list[Any]]:
        p = dict(task.params)
        states = p.pop("states")
        plan = setup_of(p)
        classes = list(p["failures"])
        rows: dict[str, list[Any]] = {name: [] for name, _ in _COLUMNS}
        for c, n, draw, cables in states:
            cut_off, loss = plan.evaluate((c, n, draw, cables))
            for name, value in (("fabric", p["fabric"]), ("workload", p["workload"]),
                                ("engine", p["engine"]), ("class", classes[c]),
                                ("class_index", c), ("down", n), ("draw", draw),
                                ("cables", cables), ("cut_off_draws", cut_off), ("loss", loss)):
                rows[name].append(value)
        return rows

    # -- reading (report, export) ------------------------------------------------------------

    def curve(self, con: duckdb.DuckDBPyConnection, study: StudyRecord) -> pd.DataFrame:
        """One row per (point, policy) with the columns of ``fray.plan.plan``'s table, the
        model rebuilt from the stored states; a point with states still to run is left out."""
        from fray.campaign.studies.plan_report import merged_table

        return merged_table(con, study)

    def report(self, con: duckdb.DuckDBPyConnection, study: StudyRecord,
               out_dir: Path) -> ReportSection:
        from fray.campaign.studies.plan_report import report

        return report(con, study, out_dir)


PLAN = PlanKind()
