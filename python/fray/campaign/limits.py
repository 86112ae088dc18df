"""Upper bounds of the counts and durations a study takes, checked before anything is built.

Each bound is either the range the core's binding holds the value in (a ``u32``, a ``u64``,
a ``BIGINT`` column of the results file), so that a larger number is refused naming its key
rather than overflowing in the bindings, or, for a size of work, a documented maximum, so that
a typo (``samples = 99999999999``) is refused rather than allocating or running for ever.

The scenario schema (``fray.campaign.studies``) checks its keys against these; ``fray plan``
and ``fray links`` may import them (``from fray.campaign.limits import MAX_MODEL_SAMPLES``) so
that the command line and a scenario file take the same values. Where the core itself bounds
a size (a plan's horizon and loss-model states, a workload's operations), the bound is the
core's, read from ``fray._fray``.
"""

from __future__ import annotations

import os

from fray import _fray
from fray.arguments import U32_MAX, U64_MAX

__all__ = [
    "I64_MAX",
    "MAX_HORIZON_DAYS",
    "MAX_HORIZON_S",
    "MAX_MODEL_POINTS",
    "MAX_MODEL_SAMPLES",
    "MAX_MODEL_STATES",
    "MAX_REPLICATIONS",
    "MAX_SEEDS",
    "MAX_TASKS",
    "MAX_WORKERS_PER_CORE",
    "U32_MAX",
    "U64_MAX",
    "max_workers",
]

# -- ranges of the core's types -----------------------------------------------------------------

#: The largest number a ``BIGINT`` column of the results file holds (seeds, sample counts).
I64_MAX = 2**63 - 1

# -- sizes of work ------------------------------------------------------------------------------

#: Most tasks a campaign may plan: each is a row of the results file's task list and an
#: entry of the scheduler's graph, held in memory while the campaign runs.
MAX_TASKS = 1_000_000
#: Most replications (``replications.count``; the links study's seeds, the plan's Monte
#: Carlo horizons, ``fray plan --replications``; the core's).
MAX_REPLICATIONS = _fray.MAX_REPLICATIONS
#: Most layouts simulated per fault state (the plan's ``seeds``, ``fray plan --seeds``): each
#: is one simulation of the workload per state (the core's).
MAX_SEEDS = _fray.MAX_PLAN_SEEDS
#: Most grid points per class of the plan's loss model (``points``, ``fray plan --points``;
#: the core's).
MAX_MODEL_POINTS = _fray.MAX_MODEL_POINTS
#: Most sampled states per grid point of the plan's loss model (``samples``,
#: ``fray plan --samples``; the core's): the core lists them all before simulating one.
MAX_MODEL_SAMPLES = _fray.MAX_MODEL_SAMPLES
#: Most states the loss model may sample in all, classes x points x samples (the core's).
MAX_MODEL_STATES = _fray.MAX_MODEL_STATES
#: The longest horizon of one plan replication, in seconds and in whole days (the core's:
#: 1,000 years), for ``plan.horizon`` and ``fray plan --horizon``.
MAX_HORIZON_S = _fray.MAX_PLAN_HORIZON_S
MAX_HORIZON_DAYS = int(MAX_HORIZON_S // 86_400)
#: Most local Dask worker processes per core (``fray run --workers``).
MAX_WORKERS_PER_CORE = 4


def max_workers() -> int:
    """Most local worker processes ``fray run --workers`` starts on this machine:
    :data:`MAX_WORKERS_PER_CORE` per core."""
    return MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)
