"""When to repair: the planner over months (docs/plan.md).

Cables fail by class (exponential or Weibull lifetimes, given or fitted from a failure log),
a repair policy brings them back (at once, in maintenance windows every T days, or when the
loss passes a threshold or a pair is cut off), and a Monte Carlo over a horizon adds up the
machine throughput lost to degraded running and to maintenance. Everything runs in Rust
(``fray._fray.PlanSetup``); this module checks the options and returns pandas tables.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from fray import SpecError
from fray._fray import (
    MAX_PLAN_SEEDS,
    MAX_REPLICATIONS,
    Fabric,
    PlanSetup,
    fit_failure_log,
    plan_spec,
)
from fray.links import _count, _fabric, _seed

__all__ = ["DEFAULT_EVERY", "DEFAULT_IMMEDIATE", "DEFAULT_LENGTH", "fit_failures", "outcome_table", "plan", "policies", "setup"]

#: The window intervals swept by default.
DEFAULT_EVERY = ("7d", "14d", "30d", "60d", "90d", "180d")
#: The repair time of the immediate policy (and of a threshold policy's visits) by default.
DEFAULT_IMMEDIATE = "24h"
#: The length of a maintenance window by default.
DEFAULT_LENGTH = "8h"


def policies(immediate: str | None = DEFAULT_IMMEDIATE, every: Sequence[str] = DEFAULT_EVERY,
             length: str = DEFAULT_LENGTH, threshold: str | None = None) -> list[str]:
    """The policy specs of the usual sweep: immediate repair after ``immediate`` (None: left
    out), maintenance windows of ``length`` every interval of ``every``, and (with
    ``threshold``, a percentage like ``"2%"``) a repair visit when the loss reaches it, coming
    after ``immediate`` (or 24 h)."""
    out = [] if immediate is None else [f"immediate:repair={immediate}"]
    out += [f"windows:every={t},length={length}" for t in every]
    if threshold is not None:
        out.append(f"threshold:loss={threshold},repair={immediate or DEFAULT_IMMEDIATE}")
    return [plan_spec("policy", p) for p in out]


def fit_failures(fabric: Fabric | str, log: str | Path, cls: str, *, span: str | None = None,
                 kind: str = "exp") -> dict:
    """Fits a failure model (``kind`` ``"exp"`` or ``"weibull"``) to the failures of class
    ``cls`` in the failure log ``log`` (one ``TIME FROM->TO`` per line, ``TIME`` a duration
    since the log's start such as ``12.5d``), observed for ``span`` (default: up to the last
    failure). Returns a dict with ``class, cables, failures, exposure_s, model`` (a failure
    model spec for :func:`plan`), ``log_likelihood`` and ``mtbf_ci_s``."""
    if not isinstance(log, (str, os.PathLike)):
        raise SpecError(f"log: expected the path of a failure log, got {log!r}")
    path = Path(log)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"log: cannot read {str(path)!r}: {e}") from None
    return fit_failure_log(_fabric(fabric), text, str(path), cls, span, kind)


def plan(
    fabric: Fabric | str,
    failures: Mapping[str, str],
    policy_specs: Sequence[str] | None = None,
    *,
    workload: str = "halo3d26",
    jobs: int = 1,
    seeds: int = 2,
    routing: str | None = None,
    engine: str = "flow",
    horizon: str = "365d",
    replications: int = 200,
    seed: int = 1,
    reuse: str = "model",
    points: int = 8,
    samples: int = 4,
    time_tolerance: float | None = None,
    time_resolution: float | None = None,
) -> pd.DataFrame:
    """Runs the planner and returns one row per policy.

    ``failures`` maps each failing link class (or ``"router"``, every router-to-router
    cable; no cable in two of them) to its failure model (``{"global":
    "exp:mtbf=1000d"}``, or ``weibull:shape=K,scale=DURATION``; a fit's ``model``).
    ``policy_specs`` default to :func:`policies`. The loss of a fault state is the loss of
    machine throughput of ``workload`` with ``jobs`` jobs against the healthy machine, mean
    over ``seeds`` layouts, on ``engine`` with ``routing`` (the failed-links study's
    machinery); a state that cuts a pair off loses the whole machine. ``reuse="model"`` fits
    the mean loss against down cables per class on ``points`` counts of ``samples`` states
    each and checks cut-off pairs exactly; ``"direct"`` evaluates every state visited (each
    distinct state once). ``replications`` horizons of ``horizon``, replication ``r`` drawn
    from ``(seed, r)``.

    Returns
    -------
    pandas.DataFrame
        ``policy, kind, every_s`` (windows only), ``degraded_share, downtime_share,
        total_share, total_ci`` (shares of the horizon's machine throughput, 0 to 1; the CI a
        95 % half-width), ``cut_off_share, windows`` (windows or repair visits per horizon),
        ``repairs`` and ``mean_down_CLASS`` (time-average down cables of each class). ``attrs`` holds the
        parameters, ``best_window`` (the row of the best windows policy, or None), ``model``
        (a table of the loss model's points) and ``evaluations``/``lookups``.
    """
    fab = _fabric(fabric)
    s = setup(fab, failures, policy_specs, workload=workload, jobs=jobs, seeds=seeds,
              routing=routing, engine=engine, horizon=horizon, replications=replications,
              seed=seed, time_tolerance=time_tolerance, time_resolution=time_resolution)
    classes = [(cls, plan_spec("failure", model)) for cls, model in failures.items()]
    r = s.run(reuse, points, samples)
    table = outcome_table(r, classes)
    table.attrs.update(
        fabric=fabric if isinstance(fabric, str) else repr(fab), failures=dict(classes),
        workload=workload, jobs=jobs, seeds=seeds, routing=routing or fab.default_routing,
        engine=engine, horizon=horizon, replications=replications, seed=seed, reuse=reuse,
        points=points, samples=samples, evaluations=r["evaluations"], lookups=r["lookups"],
    )
    return table


def setup(fabric: Fabric, failures: Mapping[str, str], policy_specs: Sequence[str] | None,
          *, workload: str, jobs: int, seeds: int, routing: str | None, engine: str,
          horizon: str, replications: int, seed: int, time_tolerance: float | None,
          time_resolution: float | None) -> PlanSetup:
    """The plan in the core, its options checked (the arguments of :func:`plan`)."""
    _failures(failures)
    if not failures:
        raise SpecError("failures: give a failure model for at least one class")
    classes = [(cls, plan_spec("failure", model)) for cls, model in failures.items()]
    if policy_specs is not None:
        _specs("policy_specs", policy_specs, "a repair policy spec such as 'windows:every=30d'")
    specs = policies() if policy_specs is None else [plan_spec("policy", p) for p in policy_specs]
    if not specs:
        raise SpecError("policies: give at least one")
    for i, spec in enumerate(specs):
        if spec in specs[:i]:
            raise SpecError(f"policies: {spec} given twice")
    _count("jobs", jobs)
    _count("seeds", seeds, most=MAX_PLAN_SEEDS)
    _count("replications", replications, least=2, most=MAX_REPLICATIONS)
    return PlanSetup(fabric, workload, routing or fabric.default_routing, engine, jobs, seeds,
                     _seed(seed), time_tolerance, time_resolution, classes, horizon,
                     replications, specs)


def _failures(failures: object) -> None:
    """A ``SpecError`` unless ``failures`` maps class names to failure model specs."""
    if not isinstance(failures, Mapping):
        raise SpecError("failures: expected a dict of link class to failure model, such as "
                        f"{{'global': 'exp:mtbf=1000d'}}, got {failures!r}")
    for cls, model in failures.items():
        if not isinstance(cls, str):
            raise SpecError(f"failures: expected link class names as keys, got {cls!r}")
        if not isinstance(model, str):
            raise SpecError(f"failures[{cls!r}]: expected a failure model spec such as "
                            f"'exp:mtbf=1000d', got {model!r}")


def _specs(name: str, specs: object, what: str) -> None:
    """A ``SpecError`` naming ``name`` unless ``specs`` is a list of strings (a string alone
    would be read one character at a time)."""
    if isinstance(specs, str) or not isinstance(specs, Sequence):
        raise SpecError(f"{name}: expected a list of specs, got {specs!r}")
    for i, spec in enumerate(specs):
        if not isinstance(spec, str):
            raise SpecError(f"{name}[{i}]: expected {what}, got {spec!r}")


def outcome_table(r: dict, classes: list[tuple[str, str]]) -> pd.DataFrame:
    """The core's report as the table :func:`plan` returns (without its ``attrs``)."""
    table = pd.DataFrame(r["outcomes"])
    down = pd.DataFrame(table.pop("mean_down").tolist(), columns=[f"mean_down_{c}" for c, _ in classes])
    table = pd.concat([table, down], axis=1)
    table.attrs.update(best_window=r["best_window"],
                       model=None if r["model"] is None else pd.DataFrame(r["model"]))
    return table
