"""The failed-links study as a campaign: sections, tasks (one seed of one number of jobs),
rows (one per simulation) and the merged table.

A task builds the Rust ``LinksStudy`` of its sweep point exactly as ``fray links`` does (the
same cases, the same seeds: case seeds derive from ``replications.seed`` and the replication
in Rust) and runs one group of its cases: the baseline of one number of jobs under one seed
and each failed share. Each row keeps what the simulation gave (ranks and time per iteration
of every job, or why it was unroutable), so the merged table is the one ``fray links
--seed S --seeds N`` prints, computed by the same Rust code from the stored rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fray import SpecError
from fray._fray import Fabric, LinksStudy, host_costs
from fray.campaign.kind import ReportSection, StudyKind, StudyRecord
from fray.campaign.limits import MAX_TASKS, U32_MAX
from fray.campaign.schema import (
    REQUIRED,
    Field,
    boolean,
    choice,
    number,
    text,
    whole,
)
from fray.campaign.tasks import Task
from fray.links import (
    DEFAULT_TIME_RESOLUTION_S,
    DEFAULT_TIME_TOLERANCE,
    EMBER_OPTIONS,
    MOTIFS,
    PAPER_FAILED_PCT,
    PAPER_JOBS,
    default_fail_class,
    fabric_with,
    workload_spec,
)
from fray.units import format_seconds, parse_rate, parse_seconds

if TYPE_CHECKING:
    from pathlib import Path

    import duckdb
    import pandas as pd

    from fray.campaign.scenario import Point, Scenario

__all__ = ["LINKS", "LinksKind"]


def _rate(value: Any) -> float:
    if not isinstance(value, str):
        raise TypeError("")
    try:
        return parse_rate(value, "link_bandwidth")
    except SpecError:
        raise ValueError("") from None


def _duration(value: Any) -> float:
    """A flow-engine time resolution: a duration from 0 to under 1 ms, in seconds."""
    if not isinstance(value, str):
        raise TypeError("")
    try:
        seconds = parse_seconds(value, "time_resolution")
    except SpecError:
        raise ValueError("") from None
    if not 0.0 <= seconds < 1e-3:
        raise ValueError("")
    return seconds


def _distinct(check, what: str):
    """A non-empty list of distinct values, each passing ``check``."""

    def checked(value: Any) -> list:
        if not isinstance(value, list) or not value:
            raise TypeError("")
        out = [check(v) for v in value]
        if len(set(out)) != len(out):
            raise ValueError(f"{what} repeated")
        return out

    return checked


def _percent(value: Any) -> float:
    p = number(value)
    if not 0.0 <= p <= 100.0:
        raise ValueError("")
    return p


def _cables(value: Any) -> list[str]:
    if not isinstance(value, list) or any(not isinstance(c, str) or "->" not in c for c in value):
        raise TypeError("")
    return value


def _quantity(value: Any) -> float | int:
    """A finite number; a whole number stays whole (``nx = 20`` reads back as 20)."""
    return number(value) if isinstance(value, bool) or not isinstance(value, int) else value


def _host(value: Any) -> str:
    """A host-costs spec as the core reads it (``none``, ``ember``, ``ember*K``, then
    ``+KEY=VALUE`` overrides)."""
    if not isinstance(value, str):
        raise TypeError("")
    try:
        host_costs(value)
    except SpecError as e:
        raise ValueError(str(e)) from None
    return value


def _positive(value: Any) -> float:
    v = number(value)
    if v <= 0:
        raise ValueError("")
    return v


def _tolerance(value: Any) -> float:
    """A flow-engine time tolerance: a share from 0 (exact) to under 0.5."""
    v = number(value)
    if not 0.0 <= v < 0.5:
        raise ValueError("")
    return v


_WORKLOAD: dict[str, Field] = {
    "motif": Field('one of "' + '", "'.join(MOTIFS) + '"', choice(*MOTIFS), "halo3d26"),
    "compute": Field("true or false (false leaves the compute time out)", boolean, True),
    "host": Field('"none", "ember" (SST Ember\'s host costs per message), "firefly" (the same, '
                  'charged call by call as SST\'s Firefly does), "ember*K" (those times K, a '
                  'number at least 0), each followed by "+KEY=VALUE" overrides such as '
                  '"+send_copy=344ps/B"', _host, "none"),
    "iterations": Field("a positive whole number of iterations per job (the workload's "
                        "operations are bounded by the core)", whole(1, U32_MAX), 1),
    "chunks": Field("a positive whole number of chunks per message", whole(1, U32_MAX), 1),
    "budget": Field("a positive whole number of endpoints shared by the jobs",
                    whole(1, U32_MAX)),
    "compute_s": Field("a number of seconds of compute per rank and iteration", _positive),
} | {key: Field(f"a number: {what}", _quantity) for key, what in EMBER_OPTIONS}

SECTIONS: dict[str, dict[str, Field]] = {
    "fabric": {
        "topology": Field('a fabric spec such as "dragonfly:p=4,a=8,h=2,g=17" or '
                          '"hyperx:8x8,t=8"', text, REQUIRED),
        "link_bandwidth": Field('a bandwidth for every link such as "50GB/s" or "400Gb/s" '
                                "(default: the fabric's)", _rate),
        "host_bandwidth": Field('a bandwidth for every endpoint\'s injection and ejection '
                                'channel such as "6.7GB/s" (a NIC whose DMA moves less than '
                                "the link; default: the links')", _rate),
    },
    "workload": _WORKLOAD,
    "jobs": {
        "counts": Field("a list of distinct positive whole numbers of jobs",
                        _distinct(whole(1, U32_MAX), "a number of jobs"), list(PAPER_JOBS)),
    },
    "faults": {
        "failed_pct": Field("a list of distinct percentages from 0 to 100",
                            _distinct(_percent, "a percentage"),
                            [float(p) for p in PAPER_FAILED_PCT]),
        "fail": Field('the cables that fail: a link class such as "global", or "router" '
                      "(default: global on a dragonfly, router elsewhere)", text),
        "down": Field('a list of cables already down, "FROM->TO" as a fault file names them',
                      _cables),
    },
    "routing": {
        "algorithm": Field('a routing such as "ugal", "ugal:links=adaptive,threshold=800B", '
                           '"doal" or "table" (default: the fabric\'s)', text),
    },
    "engine": {
        "name": Field('"flow", "load" or "packet[:OPTIONS]" such as '
                      '"packet:route=packet,mtu=2048"', text, "flow"),
        "time_tolerance": Field("a share from 0 (exact) to under 0.5 (the flow engine's, "
                                f"default {DEFAULT_TIME_TOLERANCE:g})", _tolerance,
                                DEFAULT_TIME_TOLERANCE),
        "time_resolution": Field('a duration under 1 ms such as "10ns" (the flow engine\'s, '
                                 f'default "{format_seconds(DEFAULT_TIME_RESOLUTION_S)}")', _duration,
                                 DEFAULT_TIME_RESOLUTION_S),
    },
}

#: Where a Rust error about a parameter points in the scenario file.
_ERROR_KEYS = (
    ("links study: jobs", "jobs.counts"),
    ("links study: seeds", "replications.count"),
    ("fabric spec", "fabric.topology"),
    ("unknown workload", "workload.motif"),
    ("unknown routing", "routing.algorithm"),
    ("routing", "routing.algorithm"),
    ("unknown engine", "engine.name"),
    ("engine", "engine.name"),
    ("class", "faults.fail"),
    ("faults.down", "faults.down"),
    ("jobs", "jobs.counts"),
)

_PARAM_COLUMNS = [
    ("fabric", "VARCHAR"),
    ("link_bandwidth_bytes_s", "DOUBLE"),
    ("workload", "VARCHAR"),
    ("routing", "VARCHAR"),
    ("fail", "VARCHAR"),
    ("engine", "VARCHAR"),
    ("down_cables", "INTEGER"),
]
#: Stored after the parameters when a scenario sets ``fabric.host_bandwidth``.
_HOST_COLUMN = ("host_bandwidth_bytes_s", "DOUBLE")
_CASE_COLUMNS = [
    ("jobs", "INTEGER"),
    ("failed_pct", "DOUBLE"),
    ("baseline", "BOOLEAN"),
    ("ranks", "INTEGER[]"),
    ("iteration_s", "DOUBLE[]"),
    ("unroutable", "VARCHAR"),
]


class LinksKind(StudyKind):
    """Failed links on a fabric: machine throughput lost, by jobs x failed % (``fray.links``)."""

    name = "links"
    sections = SECTIONS

    # -- planning (driver) -------------------------------------------------------------------

    def plan(self, scenario: Scenario, point: Point) -> list[Task]:
        params = study_params(scenario, point)
        count = len(params["jobs"]) * scenario.replications
        if count > MAX_TASKS:
            raise scenario.error_at(point, "replications.count", f"{len(params['jobs'])} "
                                    f"numbers of jobs x {scenario.replications} replications "
                                    f"make {count} tasks, more than the {MAX_TASKS} a "
                                    "campaign may hold")
        study = _build(params, scenario, point)
        group = study.num_cases // (len(params["jobs"]) * scenario.replications)
        return [
            Task(
                kind=self.name,
                key=f"p{point.index:04d}-j{jobs:04d}-r{rep:03d}",
                point=point.index,
                replication=rep,
                seed=scenario.seed,
                params=params | {"start": (j * scenario.replications + rep) * group,
                                 "stop": (j * scenario.replications + rep + 1) * group},
                weight=float(group),
            )
            for j, jobs in enumerate(params["jobs"])
            for rep in range(scenario.replications)
        ]

    def columns(self, tasks: list[Task]) -> list[tuple[str, str]]:
        # The host links' bandwidth is stored only where a scenario sets it, so that
        # scenarios without it keep the columns they always had.
        host = [_HOST_COLUMN] if any(t.params["host_bandwidth"] for t in tasks) else []
        return _PARAM_COLUMNS + host + _CASE_COLUMNS

    # -- running (worker) --------------------------------------------------------------------

    def run(self, task: Task) -> dict[str, list[Any]]:
        p = task.params
        study = _build(p)
        outcomes = study.run(p["start"], p["stop"])
        rows: dict[str, list[Any]] = {name: [] for name, _ in _CASE_COLUMNS}
        for i, (ranks, iteration_s, unroutable) in zip(range(p["start"], p["stop"]), outcomes):
            jobs, failed_pct, _, baseline = study.case(i)
            rows["jobs"].append(jobs)
            rows["failed_pct"].append(failed_pct)
            rows["baseline"].append(baseline)
            rows["ranks"].append(ranks)
            rows["iteration_s"].append(iteration_s)
            rows["unroutable"].append(unroutable)
        n = p["stop"] - p["start"]
        fixed = {"fabric": p["fabric"], "link_bandwidth_bytes_s": p["link_bandwidth"],
                 "workload": p["workload"], "routing": p["routing"], "fail": p["fail"],
                 "engine": p["engine"], "down_cables": len(p["down"])}
        if p["host_bandwidth"]:
            fixed[_HOST_COLUMN[0]] = p["host_bandwidth"]
        return {k: [v] * n for k, v in fixed.items()} | rows

    # -- reading (report, export) ------------------------------------------------------------

    def curve(self, con: duckdb.DuckDBPyConnection, study: StudyRecord) -> pd.DataFrame:
        """One row per (point, jobs, failed %) with the columns of ``fray.links.study``'s
        table, merged by its Rust code from the stored rows; a number of jobs whose seeds
        have not all run yet is left out."""
        from fray.campaign.studies.links_report import merged_table

        return merged_table(con, study)

    def report(self, con: duckdb.DuckDBPyConnection, study: StudyRecord,
               out_dir: Path) -> ReportSection:
        from fray.campaign.studies.links_report import report

        return report(con, study, out_dir)


def machine_params(scenario: Scenario, point: Point) -> tuple[Fabric, dict[str, Any]]:
    """A point's fabric (built, so that a bad spec names its key) and the plain-data
    parameters every study on it shares: the fabric's spec and rates, the workload spec and
    the routing (the fabric's default when none is given)."""
    c = point.config
    fab = _fabric(c["fabric"]["topology"], c["fabric"]["link_bandwidth"],
                  c["fabric"]["host_bandwidth"], scenario, point)
    return fab, {
        "fabric": c["fabric"]["topology"],
        "link_bandwidth": c["fabric"]["link_bandwidth"],
        "host_bandwidth": c["fabric"]["host_bandwidth"],
        "workload": workload_params(c["workload"]),
        "routing": c["routing"]["algorithm"] or fab.default_routing,
    }


def study_params(scenario: Scenario, point: Point) -> dict[str, Any]:
    """The plain-data parameters of a point's ``LinksStudy`` (what every task carries)."""
    c = point.config
    fab, shared = machine_params(scenario, point)
    return shared | {
        "fail": c["faults"]["fail"] or default_fail_class(fab),
        "jobs": list(c["jobs"]["counts"]),
        "failed_pct": list(c["faults"]["failed_pct"]),
        "seeds": scenario.replications,
        "seed": scenario.seed,
        **flow_times(c["engine"]),
        "engine": c["engine"]["name"],
        "down": list(c["faults"]["down"] or []),
    }


def flow_times(engine: dict[str, Any]) -> dict[str, float | None]:
    """The section's flow-engine settings for the study, each ``None`` where it is the
    default, so that the engine spec (``name = "flow:time_tolerance=0"``) may set it."""
    return {
        "time_tolerance": None if engine["time_tolerance"] == DEFAULT_TIME_TOLERANCE
        else engine["time_tolerance"],
        "time_resolution": None if engine["time_resolution"] == DEFAULT_TIME_RESOLUTION_S
        else engine["time_resolution"],
    }


def workload_params(w: dict[str, Any]) -> str:
    """The workload spec of a scenario's checked ``[workload]`` section."""
    return workload_spec(
        w["motif"], iterations=w["iterations"], chunks=w["chunks"], budget=w["budget"],
        compute=w["compute"], host=w["host"], compute_s=w["compute_s"],
        **{key: w[key] for key, _ in EMBER_OPTIONS})


def _fabric(topology: str, bandwidth: float | None, host_bandwidth: float | None,
            scenario: Scenario | None = None, point: Point | None = None) -> Fabric:
    try:
        return fabric_with(topology, bandwidth, host_bandwidth)
    except SpecError as exc:
        if scenario is None or point is None:
            raise
        raise scenario.error_at(point, "fabric.topology", str(exc)) from None


def _build(p: dict[str, Any], scenario: Scenario | None = None,
           point: Point | None = None) -> LinksStudy:
    """The point's ``LinksStudy``; with ``scenario``, an error names the key it comes from."""
    fab = _fabric(p["fabric"], p["link_bandwidth"], p["host_bandwidth"], scenario, point)
    try:
        return LinksStudy(fab, p["workload"], p["routing"], p["fail"], p["jobs"],
                          p["failed_pct"], p["seeds"], p["seed"], p["time_tolerance"],
                          p["engine"], "".join(c + "\n" for c in p["down"]), "faults.down",
                          time_resolution=p["time_resolution"])
    except SpecError as exc:
        if scenario is None or point is None:
            raise
        raise scenario.error_at(point, *_error_key(str(exc), getattr(exc, "field", None))) from None


def _error_key(message: str, field: str | None) -> tuple[str, str]:
    if field in ("time_tolerance", "time_resolution"):
        return f"engine.{field}", message
    if field == "routing":
        return "routing.algorithm", message
    if message.startswith("workload spec") and field in _WORKLOAD:
        return f"workload.{field}", message
    if message.startswith("workload"):
        return "workload", message
    for prefix, key in _ERROR_KEYS:
        if message.startswith(prefix):
            return key, message
    return "study", message


LINKS = LinksKind()
