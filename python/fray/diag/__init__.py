"""Diagnostics: TopoBW on a real MPI and on a modelled Gemini machine, netwatch logs, and
localisation of slow parts. The phase plans, reports, logs and localisation are computed in
the Rust core; this package moves the bytes over MPI."""

from fray._fray import (
    TopoBwPlan,
    job_cost,
    localisation_study,
    netwatch_parse,
    slow_links,
    topobw_locate,
    topobw_simulate,
    topobw_simulate_hosts,
)
from fray.diag.topobw import run_topobw

__all__ = [
    "TopoBwPlan",
    "job_cost",
    "localisation_study",
    "netwatch_parse",
    "run_topobw",
    "slow_links",
    "topobw_locate",
    "topobw_simulate",
    "topobw_simulate_hosts",
]
