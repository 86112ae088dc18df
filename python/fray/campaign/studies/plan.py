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
from fray._fray import PlanSetup, plan_spec
from fray.campaign.kind import ReportSection, StudyKind, StudyRecord
from fray.campaign.limits import (
    MAX_HORIZON_DAYS,
    MAX_HORIZON_S,
    MAX_MODEL_POINTS,
    MAX_MODEL_SAMPLES,
    MAX_MODEL_STATES,
    MAX_SEEDS,
    U32_MAX,
)
from fray.campaign.schema import REQUIRED, Field, ScenarioError, whole
from fray.campaign.studies.links import SECTIONS as LINKS_SECTIONS
from fray.campaign.studies.links import _error_key as _links_error_key
from fray.campaign.studies.links import _fabric, flow_times, machine_params
from fray.campaign.tasks import Task
from fray.plan import DEFAULT_EVERY, policies, setup
from fray.units import parse_seconds

if TYPE_CHECKING:
    from pathlib import Path

    import duckdb
    import pandas as pd

    from fray.campaign.scenario import Point, Scenario

__all__ = ["PLAN", "PlanKind"]


def _failures(value: Any) -> dict[str, str]:
    """A table of link class = failure model spec, each model read by the core (kept as
    written: the scenario's hash covers the text)."""
    if not isinstance(value, dict) or not value:
        raise TypeError("")
    if any(not isinstance(k, str) or not isinstance(v, str) for k, v in value.items()):
        raise TypeError("")
    for cls, model in value.items():
        try:
            plan_spec("failure", model)
        except SpecError as exc:
            raise ValueError(f"{cls}: {exc}") from None
    return dict(value)


def _horizon(value: Any) -> str:
    """A duration longer than 0 and at most ``MAX_HORIZON_DAYS``, kept as written (the
    scenario's hash covers the text)."""
    if not isinstance(value, str):
        raise TypeError("")
    try:
        seconds = parse_seconds(value, "horizon")
    except SpecError:
        raise ValueError("") from None
    if not 0.0 < seconds <= MAX_HORIZON_S:
        raise ValueError("" if seconds <= 0.0 else f"{seconds / 86_400:.4g} days")
    return value


def _policy_specs(value: Any) -> list[str]:
    """A list of repair policy specs, each read by the core, no policy given twice (in any
    spelling)."""
    if not isinstance(value, list) or not value or any(not isinstance(p, str) for p in value):
        raise TypeError("")
    seen: dict[str, str] = {}
    for spec in value:
        try:
            canonical = plan_spec("policy", spec)
        except SpecError as exc:
            raise ValueError(f"{spec}: {exc}") from None
        if canonical in seen:
            raise ValueError(f"{spec} is the policy {seen[canonical]} given again")
        seen[canonical] = spec
    return value


SECTIONS: dict[str, dict[str, Field]] = {
    "fabric": LINKS_SECTIONS["fabric"],
    "workload": LINKS_SECTIONS["workload"],
    "routing": LINKS_SECTIONS["routing"],
    "engine": LINKS_SECTIONS["engine"],
    "jobs": {"count": Field("a positive whole number of jobs sharing the machine",
                            whole(1, U32_MAX), 1)},
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
        "horizon": Field('the length of one replication, such as "365d", at most '
                         f'"{MAX_HORIZON_DAYS}d"', _horizon, "365d"),
        "seeds": Field(f"a positive whole number of layouts per fault state, at most "
                       f"{MAX_SEEDS:,}", whole(1, MAX_SEEDS), 2),
        "points": Field("a whole number of grid points per class of the loss model, from 2 to "
                        f"{MAX_MODEL_POINTS:,}", whole(2, MAX_MODEL_POINTS), 8),
        "samples": Field("a positive whole number of sampled states per grid point, at most "
                         f"{MAX_MODEL_SAMPLES:,}", whole(1, MAX_MODEL_SAMPLES), 4),
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
        states = len(params["failures"]) * params["points"] * params["samples"]
        if states > MAX_MODEL_STATES:
            raise scenario.error_at(point, "plan.samples", f"{len(params['failures'])} "
                                    f"class(es) x {params['points']} points x "
                                    f"{params['samples']} samples make up to {states:,} "
                                    f"states, more than the {MAX_MODEL_STATES:,} a loss model "
                                    "may sample; ask for fewer points or samples")
        try:
            jobs = setup_of(params).model_jobs(params["points"], params["samples"])
        except SpecError as exc:
            raise scenario.error_at(point, _error_key(exc), str(exc)) from None
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


#: Where a core error about the plan points in the scenario file (by its first words).
_ERROR_KEYS = (
    ("class ", "failures.classes"),
    ("failure", "failures.classes"),
    ("polic", "policies.specs"),
    ("horizon", "plan.horizon"),
    ("replications", "replications.count"),
    ("model", "plan.points"),
    ("seeds", "plan.seeds"),
)


def _error_key(exc: SpecError) -> str | None:
    """The key of the scenario file a core error about a point's plan names, or ``None``
    when it names none."""
    message = str(exc)
    for prefix, key in _ERROR_KEYS:
        if message.startswith(prefix):
            return key
    key, _ = _links_error_key(message, getattr(exc, "field", None))
    return None if key == "study" else key


PLAN = PlanKind()
