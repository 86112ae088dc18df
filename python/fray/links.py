"""The failed-links study: how much failed links slow a machine's jobs down, with a
confidence interval over seeds (papers/failed-links-dragonfly-hyperx.txt).

The simulations run in Rust (``fray._fray.LinksStudy``, on any engine); this module checks
the input, runs the cases in chunks (progress bar, Ctrl-C between chunks) and returns a
pandas ``DataFrame`` with one row per (jobs, failed %).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd
from tqdm.auto import tqdm

from fray import SpecError
from fray._fray import Fabric, Faults, LinksStudy
from fray._fray import simulate as _simulate

__all__ = ["PAPER_FAILED_PCT", "PAPER_JOBS", "SimulationResult", "simulate", "study"]

#: The paper's numbers of jobs sharing the machine.
PAPER_JOBS = (1, 4, 16, 64)
#: The paper's percentages of failed links (0 is the baseline of every cell).
PAPER_FAILED_PCT = (0, 5, 10, 15, 20, 25, 30)


@dataclass(frozen=True)
class SimulationResult:
    """What one simulation gave: the engine and routing used, and one dict per job with
    ``name, ranks, iteration_s, makespan_s, messages, bytes``."""

    engine: str
    routing: str
    jobs: list[dict] = field(default_factory=list)

    @property
    def iteration_s(self) -> list[float]:
        """Time per iteration of each job, in seconds."""
        return [j["iteration_s"] for j in self.jobs]


def _fabric(fabric: Fabric | str) -> Fabric:
    return fabric if isinstance(fabric, Fabric) else Fabric.parse(fabric)


def simulate(
    fabric: Fabric | str,
    workload: str,
    faults: Faults | None = None,
    routing: str | None = None,
    engine: str = "flow",
    seed: int = 1,
    time_tolerance: float = 1e-3,
) -> SimulationResult:
    """Runs ``workload`` on ``fabric`` and returns each job's time per iteration.

    ``workload`` is a spec such as ``"halo3d26:jobs=4,nx=30"`` (motifs ``halo3d26``,
    ``sweep3d``, ``lqcd``, ``uniform`` with Ember's parameter names; ``jobs=`` equal jobs
    placed after random idle endpoints, as in the paper). ``routing`` defaults to the
    fabric's own (``ugal`` on a dragonfly, ``doal`` on a HyperX, ...). ``engine="flow"``
    runs the max-min fair flow engine; ``engine="load"`` gives the static load engine's
    estimate on the same inputs; ``engine="packet"`` runs the packet engine with its
    default settings, routing each message once when it is posted, and
    ``engine="packet:route=packet"`` routes each packet on its own as it leaves its source
    (adaptive routings then decide per packet); more packet options after the colon,
    comma-separated: ``mtu=BYTES``, ``buffer=BYTES`` (per virtual channel), ``vcs=N``,
    ``arbitration=oldest-first|round-robin``. The spec's ``host=ember`` charges each
    message SST Ember's host costs on its ranks' cores (see docs/links.md). With the flow engine, flows that end within ``time_tolerance`` of
    their message's time since it was posted leave the network together, and each message
    is still delivered at its own end (0 is exact; every message's time stays within three
    times the tolerance of the exact one). Raises ``UnroutableError`` when a message cannot
    be routed.
    """
    r = _simulate(
        _fabric(fabric), workload, faults, routing, engine, _seed(seed), time_tolerance
    )
    return SimulationResult(engine=r["engine"], routing=r["routing"], jobs=r["jobs"])


def _seed(seed: int) -> int:
    if not isinstance(seed, int) or seed < 0:
        raise SpecError(f"seed: must be a non-negative whole number, got {seed!r}")
    return seed


def default_fail_class(fabric: Fabric) -> str:
    """The cables that fail by default: the global links of a dragonfly (the paper's
    optical links), every router-to-router cable elsewhere."""
    return "global" if "global" in fabric.class_names else "router"


def study(
    fabric: Fabric | str,
    workload: str = "halo3d26",
    *,
    routing: str | None = None,
    fail: str | None = None,
    jobs: Sequence[int] = PAPER_JOBS,
    failed_pct: Sequence[float] = PAPER_FAILED_PCT,
    seeds: int = 3,
    seed: int = 1,
    time_tolerance: float = 3e-3,
    engine: str = "flow",
    progress: bool = False,
) -> pd.DataFrame:
    """Runs the failed-links study and returns its table.

    For every number of ``jobs`` and every seed, the jobs are placed (random idle endpoints,
    then the jobs mapped linearly) and run without failures (the baseline) and with each
    percentage in ``failed_pct`` of the ``fail`` cables down (default: ``global`` on a
    dragonfly, ``router`` elsewhere). Seed ``r`` of a cell derives from ``(seed, r)``; the
    baseline and the failed cases of a seed share its layout and routing choices.
    ``time_tolerance`` is the flow engine's (see :func:`simulate`); the default 3e-3 moves
    the degradations by a few hundredths of a percentage point. ``engine`` runs every case
    on the flow engine (default), the packet engine (``"packet"``: queues, finite buffers,
    each message routed once; ``"packet:route=packet"``: each packet routed on its own;
    more options as in :func:`simulate`) or the static load engine (``"load"``).

    Returns
    -------
    pandas.DataFrame
        One row per (jobs, failed %), 0 % included, with ``jobs, failed_pct,
        degradation_pct`` (mean loss of machine throughput against the baseline, in percent;
        negative when faster), ``degradation_ci_pct`` (half-width of its 95 % confidence
        interval over the seeds), ``unroutable`` (some seed could not route every pair of the
        workload: the degradation is then empty), ``seeds``, ``baseline_iteration_s`` and
        ``iteration_s`` (means over jobs and seeds). ``DataFrame.attrs`` holds the parameters.
    """
    fab = _fabric(fabric)
    routing = routing or fab.default_routing
    fail = fail or default_fail_class(fab)
    jobs = [int(j) for j in jobs]
    failed = [float(p) for p in failed_pct]
    if not isinstance(seeds, int) or seeds < 1:
        raise SpecError(f"seeds: must be a positive whole number, got {seeds!r}")
    s = LinksStudy(
        fab, workload, routing, fail, jobs, failed, seeds, _seed(seed), time_tolerance, engine
    )
    outcomes: list = []
    # One case per core at a time: a chunk takes seconds, so the bar moves and Ctrl-C waits
    # for at most one chunk.
    chunk = 2
    with tqdm(total=s.num_cases, unit="case", disable=not progress, desc="simulating") as bar:
        for start in range(0, s.num_cases, chunk):
            stop = min(start + chunk, s.num_cases)
            outcomes.extend(s.run(start, stop))
            bar.update(stop - start)
    table = pd.DataFrame(s.summarize(outcomes))
    table.attrs.update(
        fabric=fabric if isinstance(fabric, str) else repr(fab),
        workload=workload,
        routing=routing,
        fail=fail,
        seeds=seeds,
        seed=seed,
        time_tolerance=time_tolerance,
        engine=engine,
    )
    return table
