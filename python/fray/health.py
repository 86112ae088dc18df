"""Cable health from a machine's own state: every cable of an ``ibnetdiscover`` dump
classified from port counters (``perfquery -x``, ``ibqueryerrors``, or a CSV of samples) and a
down-cable file, as a pandas DataFrame.

``classify_cables("x5.topofile", ["counters.csv"])`` gives one row per cable, most suspect
first: ``verdict`` is ``down``, ``flapping``, ``below-peers``, ``erroring``, ``congested`` or
``healthy``; ``ber`` with ``ber_low`` and ``ber_high`` is the bit-error-rate estimate of the
worse direction with its confidence interval. The arithmetic and thresholds are in
``docs/health.md``; all of it runs in the core.

``cost_now(fabric, cables, ["halo3d26", "uniform", "alltoall"])`` then says what the cables
classified down cost: per workload, the machine throughput lost against the same machine
healthy with its 95 % confidence interval, and the greedy repair order of
:func:`fray.links.greedy_repairs` (the cable that gives back the most throughput first), on
the engine asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from os import PathLike

import pandas as pd

from fray import _fray, links
from fray._fray import SpecError

__all__ = ["DEFAULT_WORKLOADS", "VERDICTS", "classify_cables", "cost_now", "down_cables",
           "loss_rows"]

#: The workloads whose loss ``fray health`` reports by default: a nearest-neighbour halo
#: exchange on the largest cube of ranks that fits, uniform random traffic from every
#: endpoint, and an all-to-all among 256 ranks on endpoints drawn at random (a job of an
#: FFT or a transpose on a fragmented machine; an all-to-all of the whole machine sends
#: ``n (n - 1)`` messages, 33 million on 5,760 nodes).
DEFAULT_WORKLOADS = ("halo3d26", "uniform", "alltoall:budget=256")

#: Cable classes, most severe first.
VERDICTS = ("down", "flapping", "below-peers", "erroring", "congested", "healthy")


def classify_cables(
    dump: str | PathLike[str],
    counters: Sequence[str | PathLike[str]] = (),
    *,
    down: str | PathLike[str] | None = None,
    ber: float = 1e-12,
    confidence: float = 0.95,
    xmit_wait_ratio: float = 0.1,
) -> pd.DataFrame:
    """Every cable of the dump at ``dump``, classified from the counter files ``counters`` and
    the down-cable file ``down`` (one ``FROM->TO`` a line); ``ber`` is the bit-error rate above
    which a cable is erroring, ``confidence`` that of its interval, ``xmit_wait_ratio`` the
    transmit-wait ratio above which it is congested."""
    # The paths go as given: the core reads a str or an os.PathLike and names the argument
    # of anything else (a single path given for the list of counter files, say).
    columns = _fray.classify_cables(dump, counters, down, ber, confidence, xmit_wait_ratio)
    frame = pd.DataFrame(columns)
    frame["verdict"] = pd.Categorical(frame["verdict"], categories=VERDICTS, ordered=True)
    return frame


def down_cables(cables: pd.DataFrame) -> list[str]:
    """The names (``FROM->TO``) of the cables :func:`classify_cables` found down, critical
    ones first."""
    links._table("cables", cables, ("name", "verdict"), "fray.health.classify_cables")
    return list(cables.loc[cables["verdict"] == "down", "name"])


def cost_now(
    fabric: str | PathLike[str],
    down: str | PathLike[str],
    workloads: Sequence[str] = DEFAULT_WORKLOADS,
    *,
    engine: str = "flow",
    seeds: int = 3,
    seed: int = 1,
) -> dict[str, pd.DataFrame]:
    """What the cables of the fault file ``down`` cost the machine of the fabric file
    ``fabric`` now, per workload spec of ``workloads``: the table of
    :func:`fray.links.greedy_repairs` for those cables on ``engine`` over ``seeds`` seeds (one
    job on the whole machine). Its step 0 is the machine as it is, so :func:`loss_rows` reads
    the throughput lost now from it; the later rows are the repair order and the curve of
    throughput against cables repaired. ``down`` is the fault state :func:`classify_cables`
    classifies as ``down`` (counters mark no cable down: a link that went down and came back
    is ``flapping``), read as the file names its cables, so parallel cables stay apart."""
    if not isinstance(fabric, (str, PathLike)):
        raise SpecError(f"fabric: expected the path of a fabric file, got {fabric!r}")
    if isinstance(workloads, str) or not isinstance(workloads, Iterable):
        raise SpecError(f"workloads: expected a list of workload specs, got {workloads!r}")
    workloads = list(workloads)
    fab = _fray.Fabric.read(fabric)

    def repairs(w: str) -> pd.DataFrame:
        return links.greedy_repairs(fab, links.workload_spec(w), down=down, engine=engine,
                                    seeds=seeds, seed=seed)

    # The workloads' plans run at once (each runs in the core on all cores, without the
    # GIL), so one workload's last runs fill the cores another leaves idle; every run's
    # seed depends on its workload, state and seed number only, so the tables are the same.
    pool = ThreadPoolExecutor(max_workers=max(1, len(workloads)))
    try:
        tables = [pool.submit(repairs, w) for w in workloads]
        # Wait in slices: the kernel may hand Ctrl-C's signal to one of the core's threads,
        # and a wait without a timeout would then never return to run its handler here.
        while not wait(tables, timeout=0.1).done.issuperset(tables):
            pass
        return dict(zip(workloads, [t.result() for t in tables]))
    except KeyboardInterrupt:
        # Ctrl-C reaches this thread only: stop the runs on the pool's threads too, and
        # withdraw the request once they have returned.
        _fray.stop_runs()
        pool.shutdown(wait=True, cancel_futures=True)
        _fray.allow_runs()
        raise
    finally:
        pool.shutdown(wait=True)


def loss_rows(costs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per workload of :func:`cost_now`'s tables: ``workload``, ``loss_pct`` (machine
    throughput lost now, percent of the healthy machine's), ``loss_ci_pct`` (its 95 % CI
    half-width) and ``unroutable`` (some seed could not route every pair)."""
    if not isinstance(costs, dict):
        raise SpecError(f"costs: expected the dict fray.health.cost_now returns, got "
                        f"{type(costs).__name__}")
    rows = []
    for w, table in costs.items():
        links._table(f"costs[{w!r}]", table, ("throughput_pct", "throughput_ci_pct",
                                              "unroutable"), "fray.health.cost_now")
        if table.empty:
            raise SpecError(f"costs[{w!r}]: the table has no row (its step 0 is the machine "
                            "as it is)")
        now = table.iloc[0]
        rows.append({"workload": w, "loss_pct": 100.0 - float(now["throughput_pct"]),
                     "loss_ci_pct": float(now["throughput_ci_pct"]),
                     "unroutable": bool(now["unroutable"])})
    return pd.DataFrame(rows, columns=["workload", "loss_pct", "loss_ci_pct", "unroutable"])
