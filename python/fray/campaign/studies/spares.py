"""The spare-node study as a campaign: sections, tasks (chunks of cases), rows and the curve.

A task builds the Rust ``SpareStudy`` of its sweep point, runs its range of cases (sampled
sequences ``start .. start + count`` with the replication's seed, or the failure sets whose
lowest rank is in ``start .. end``) and returns one row per number of failures with the raw
counts (cases, unrecoverable, sum / min / max of collisions, substitutions per degree). The
counts add up over tasks, so the merged curve is exactly the one ``fray.spares.study`` gives
for the same seed and number of cases, whatever the chunking.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fray import SpecError
from fray._fray import SpareStudy
from fray.campaign.kind import ReportSection, StudyKind, StudyRecord
from fray.campaign.limits import I64_MAX, U32_MAX
from fray.campaign.schema import REQUIRED, Field, boolean, choice, text, whole
from fray.campaign.tasks import MAX_TASKS, Task, derive_seed

if TYPE_CHECKING:
    from pathlib import Path

    import duckdb

    from fray.campaign.scenario import Point, Scenario

__all__ = ["SPARES", "SparesKind"]

#: Default work per task of an exhaustive study, in failure evaluations (sets x failures per
#: set): 0.6-2 s on one core from 8x8x8 to 24x24x24 tori, so the ~8 ms of scheduling and
#: writing per task stay around 1 % (BENCHMARKS.md, Campaigns).
EVALUATIONS_PER_TASK = 100_000
#: Default work per task of a sampled study, in failure evaluations (cases x failures per
#: case): sequences whose first failures are the same slides share them only within a task,
#: and tasks ten times the exhaustive size take 17-20 % less CPU in all on 12^3 and 24^3
#: tori (5-12 s on one core each).
SAMPLED_EVALUATIONS_PER_TASK = 1_000_000

_CURVES = ("best", "mean", "worst")


def _curves(value: Any) -> tuple[str, ...]:
    if (not isinstance(value, list) or not value or any(v not in _CURVES for v in value)
            or len(set(value)) != len(value)):
        raise ValueError("")
    return tuple(value)


SECTIONS: dict[str, dict[str, Field]] = {
    "fabric": {
        "topology": Field('a mesh or torus spec such as "torus:12x12x12" or "mesh:8x8"', text,
                          REQUIRED),
    },
    "jobs": {
        "spare_allocation": Field('a spare allocation qD(r,s) such as "3D(2,1)"', text,
                                  REQUIRED),
    },
    "workload": {
        "stencil": Field('a stencil: "5P", "9P", "7P" or "27P"', text),
        "periodic": Field("true or false", boolean),
    },
    "faults": {
        "mode": Field('"samples" (random failure sequences) or "exhaustive" (every failure set)',
                      choice("samples", "exhaustive"), "samples"),
        "samples": Field("a positive whole number of random failure sequences",
                         whole(1, I64_MAX)),
        "max_failures": Field("a positive whole number of failures, at most the spares "
                              "and the ranks", whole(1, U32_MAX)),
    },
    "mitigation": {
        "substitution": Field('a substitution method such as "0D", "1D", "hybrid(all)", '
                              '"hybrid(2D+1D+0D)" or "hybrid(-2D)"', text, REQUIRED),
    },
    "routing": {
        "algorithm": Field('"dimension-order" (the only routing of this study)',
                           choice("dimension-order"), "dimension-order"),
    },
    "engine": {
        "name": Field('"load" (this study counts routes per channel)', choice("load"), "load"),
    },
    "metrics": {
        "curves": Field('a list of distinct "best", "mean", "worst"', _curves, _CURVES),
        "selection_rates": Field("true or false", boolean, True),
    },
    "tasks": {
        "cases": Field("a positive whole number of cases per task", whole(1, I64_MAX)),
    },
}

#: Where a Rust error about a parameter points in the scenario file.
_ERROR_KEYS = (
    ("spare allocation", "jobs.spare_allocation"),
    ("substitution method", "mitigation.substitution"),
    ("fabric:", "fabric.topology"),
    ("stencil:", "workload.stencil"),
    ("max_failures:", "faults.max_failures"),
    ("exhaustive:", "faults.max_failures"),
)

_PARAM_COLUMNS = [
    ("fabric", "VARCHAR"),
    ("spare_allocation", "VARCHAR"),
    ("substitution", "VARCHAR"),
    ("stencil", "VARCHAR"),
    ("periodic", "BOOLEAN"),
    ("routing", "VARCHAR"),
    ("engine", "VARCHAR"),
    ("failure_mode", "VARCHAR"),
    ("samples", "BIGINT"),
    ("max_failures", "INTEGER"),
    ("num_ranks", "INTEGER"),
    ("num_spares", "INTEGER"),
    ("chunk_start", "BIGINT"),
    ("chunk_end", "BIGINT"),
]
_METRIC_COLUMNS = [
    ("failures", "INTEGER"),
    ("cases", "BIGINT"),
    ("unrecoverable", "BIGINT"),
    ("collisions_best", "INTEGER"),
    ("collisions_worst", "INTEGER"),
    ("collisions_sum", "BIGINT"),
]


class SparesKind(StudyKind):
    """Spare-node allocation and sliding substitution (``fray.spares``)."""

    name = "spares"
    sections = SECTIONS

    # -- planning (driver) -------------------------------------------------------------------

    def plan(self, scenario: Scenario, point: Point) -> list[Task]:
        c = point.config
        faults = c["faults"]
        fail = partial(scenario.error_at, point)
        mode = faults["mode"]
        if mode == "samples" and faults["samples"] is None:
            raise fail("faults.samples", 'missing: expected a positive whole number of random '
                       'failure sequences (mode = "samples")')
        if mode == "exhaustive":
            if faults["samples"] is not None:
                raise fail("faults.samples", 'not used with mode = "exhaustive" (every failure '
                           "set is enumerated); remove it")
            if faults["max_failures"] is None:
                raise fail("faults.max_failures", 'missing: expected a positive whole number '
                           '(required with mode = "exhaustive")')
            if scenario.replications > 1:
                raise fail("replications.count", "expected 1: an exhaustive study gives the "
                           f"same result every time, got {scenario.replications}")
        try:
            study = _build(_params(c))
            if mode == "exhaustive":
                study.run_exhaustive(0, 0)  # runs nothing; checks the number of sets
        except SpecError as exc:
            key, reason = _error_key(str(exc))
            raise fail(key, reason) from None
        per_task = c["tasks"]["cases"]
        params = _params(c) | {
            "mode": mode,
            "samples": faults["samples"],
            "max_failures": study.max_failures,
            "num_ranks": study.num_ranks,
            "num_spares": study.num_spares,
            "degrees": sum(1 for k in study.table() if k.startswith("rate_")),
        }
        if mode == "samples":
            per_task = per_task or max(1, SAMPLED_EVALUATIONS_PER_TASK // study.max_failures)
            count = scenario.replications * -(-faults["samples"] // per_task)
            if count > MAX_TASKS:
                raise fail("faults.samples", f"{faults['samples']} samples in tasks of "
                           f"{per_task} cases make {count} tasks, more than the {MAX_TASKS} a "
                           "campaign may hold; give tasks.cases more cases or ask for fewer "
                           "samples")
            return [
                Task(
                    kind=self.name,
                    key=f"p{point.index:04d}-r{rep:03d}-{start:010d}",
                    point=point.index,
                    replication=rep,
                    seed=derive_seed(scenario.seed, "replication", rep),
                    params=params | {"start": start,
                                     "end": min(start + per_task, faults["samples"])},
                    weight=float(min(per_task, faults["samples"] - start) * study.max_failures),
                )
                for rep in range(scenario.replications)
                for start in range(0, faults["samples"], per_task)
            ]
        return [
            Task(kind=self.name, key=f"p{point.index:04d}-r000-{start:010d}", point=point.index,
                 replication=0, seed=None, params=params | {"start": start, "end": end},
                 weight=float(sets))
            for start, end, sets in _root_chunks(study, per_task or EVALUATIONS_PER_TASK)
        ]

    def columns(self, tasks: list[Task]) -> list[tuple[str, str]]:
        degrees = max((t.params["degrees"] for t in tasks), default=1)
        per_degree = [(f"{p}_{k}D", "BIGINT") for p in ("last", "subs") for k in range(degrees)]
        return _PARAM_COLUMNS + _METRIC_COLUMNS + per_degree

    # -- running (worker) --------------------------------------------------------------------

    def run(self, task: Task) -> dict[str, list[Any]]:
        p = task.params
        study = _build(p)
        if p["mode"] == "samples":
            study.run_samples(task.seed, p["start"], p["end"] - p["start"])
        else:
            study.run_exhaustive(p["start"], p["end"])
        counts = raw_counts(study.table())
        if p["mode"] == "exhaustive" and p["start"] > 0:
            # The fault-free job is one set of an exhaustive study: the chunk of the first
            # ranks counts it, the others must not count it again.
            for column in ("cases", "collisions_sum"):
                counts[column][0] = 0
            counts["collisions_best"][0] = counts["collisions_worst"][0] = None
        rows = len(counts["failures"])
        fixed = {
            "fabric": p["fabric"], "spare_allocation": p["alloc"], "substitution": p["method"],
            "stencil": p["stencil"], "periodic": p["periodic"], "routing": "dimension-order",
            "engine": "load", "failure_mode": p["mode"], "samples": p["samples"],
            "max_failures": p["max_failures"], "num_ranks": p["num_ranks"],
            "num_spares": p["num_spares"], "chunk_start": p["start"], "chunk_end": p["end"],
        }
        return {k: [v] * rows for k, v in fixed.items()} | counts

    # -- reading (report, export) ------------------------------------------------------------

    def curve(self, con: duckdb.DuckDBPyConnection, study: StudyRecord,
              by_replication: bool = False) -> pd.DataFrame:
        """One row per (point, failures) (and replication), counts summed over tasks, with
        ``best, mean, worst, rate_<k>D, cumrate_<k>D`` as ``fray.spares.study`` gives them."""
        from fray.campaign.studies.spares_report import merged_curve

        return merged_curve(con, study, by_replication)

    def report(self, con: duckdb.DuckDBPyConnection, study: StudyRecord,
               out_dir: Path) -> ReportSection:
        from fray.campaign.studies.spares_report import report

        return report(self, con, study, out_dir)


def _params(c: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "fabric": c["fabric"]["topology"],
        "alloc": c["jobs"]["spare_allocation"],
        "method": c["mitigation"]["substitution"],
        "stencil": c["workload"]["stencil"],
        "periodic": c["workload"]["periodic"],
        "max_failures": c["faults"]["max_failures"],
    }


def _build(p: dict[str, Any]) -> SpareStudy:
    return SpareStudy(p["fabric"], p["alloc"], p["method"], p["stencil"], p["periodic"],
                      p["max_failures"])


def _error_key(message: str) -> tuple[str, str]:
    for prefix, key in _ERROR_KEYS:
        if message.startswith(prefix):
            reason = message[len(prefix):].strip() if prefix.endswith(":") else message
            return key, reason
    return "study", message


def _root_chunks(study: SpareStudy, per_task: int) -> list[tuple[int, int, int]]:
    """Ranges of lowest failed rank holding about ``per_task`` failure sets each."""
    chunks, start, n = [], 0, study.num_ranks
    while start < n:
        end = start + 1
        while end < n and study.exhaustive_cases(start, end) < per_task:
            end += 1
        chunks.append((start, end, int(study.exhaustive_cases(start, end))))
        start = end
    return chunks


def _exact(x: np.ndarray, what: str) -> np.ndarray:
    r = np.rint(x)
    if np.any(np.abs(x - r) > 1e-6 * np.maximum(1.0, np.abs(x))):
        raise RuntimeError(f"spares: {what} is not a whole count; the curve's meaning changed")
    return r.astype(np.int64)


def raw_counts(table: dict[str, list]) -> dict[str, list]:
    """The raw counts behind ``SpareStudy.table()``: collisions summed over the recovered
    cases, and per degree ``k`` the recovered cases whose last substitution used ``k``
    (``last_kD``) and the substitutions of degree ``k`` they made (``subs_kD``; a recovered
    case with ``F`` failures made ``F``). Sums of these merge chunks exactly."""
    failures = np.asarray(table["failures"], dtype=np.int64)
    cases = np.asarray(table["cases"], dtype=np.int64)
    unrecoverable = np.asarray(table["unrecoverable"], dtype=np.int64)
    recovered = cases - unrecoverable
    mean = np.asarray(table["mean"], dtype=float)
    ok = recovered > 0
    out: dict[str, list] = {
        "failures": failures.tolist(),
        "cases": cases.tolist(),
        "unrecoverable": unrecoverable.tolist(),
        "collisions_best": _nullable(table["best"], ok),
        "collisions_worst": _nullable(table["worst"], ok),
        "collisions_sum": _exact(np.where(ok, mean * recovered, 0.0), "collisions_sum").tolist(),
    }
    degrees = sum(1 for k in table if k.startswith("rate_"))
    last = [_exact(np.nan_to_num(np.asarray(table[f"rate_{k}D"], dtype=float)) * recovered,
                   f"last_{k}D") for k in range(degrees)]
    subs = [_exact(np.nan_to_num(np.asarray(table[f"cumrate_{k}D"], dtype=float))
                   * failures * recovered, f"subs_{k}D") for k in range(degrees)]
    made = ok & (failures > 0)
    if np.any(np.where(made, sum(last) - recovered, 0)) or np.any(
            np.where(made, sum(subs) - failures * recovered, 0)):
        raise RuntimeError("spares: substitution counts do not add up; the curve changed")
    for k in range(degrees):
        out[f"last_{k}D"] = last[k].tolist()
        out[f"subs_{k}D"] = subs[k].tolist()
    return out


def _nullable(values: list, ok: np.ndarray) -> list:
    return [int(v) if good else None for v, good in zip(values, ok.tolist())]


SPARES = SparesKind()
