"""The failed-links study: how much failed links slow a machine's jobs down, with a
confidence interval over seeds (papers/failed-links-dragonfly-hyperx.txt).

The simulations run in Rust (``fray._fray.LinksStudy``, on any engine); this module checks
the input, runs the cases in chunks (progress bar, Ctrl-C between chunks) and returns a
pandas ``DataFrame`` with one row per (jobs, failed %).
"""

from __future__ import annotations

import math
import numbers
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from fray import profiles
from fray._fray import (
    DEFAULT_TIME_RESOLUTION_S,
    DEFAULT_TIME_TOLERANCE,
    MAX_REPLICATIONS,
    Fabric,
    Faults,
    LinksStudy,
    SpecError,
)
from fray.arguments import whole
from fray.profiles import Profile
from fray.simulate import SimulationResult, _fabric, _optional
from fray.simulate import simulate as _simulate

__all__ = [
    "DEFAULT_ENGINE",
    "DEFAULT_TIME_RESOLUTION_S",
    "DEFAULT_TIME_TOLERANCE",
    "EMBER_OPTIONS",
    "MOTIFS",
    "PAPER_FAILED_PCT",
    "PAPER_JOBS",
    "SimulationResult",
    "busiest_cables",
    "case_loads",
    "fabric_with",
    "fault_file_name",
    "greedy_repairs",
    "loads_by_class",
    "repair_gains",
    "simulate",
    "study",
    "workload_spec",
]

#: The paper's numbers of jobs sharing the machine.
PAPER_JOBS = (1, 4, 16, 64)
#: The paper's percentages of failed links (0 is the baseline of every cell).
PAPER_FAILED_PCT = (0, 5, 10, 15, 20, 25, 30)
#: The engine of every run that names none (neither ``engine`` nor a profile).
DEFAULT_ENGINE = "flow"

#: The workload motifs of the study.
MOTIFS = ("halo3d26", "sweep3d", "lqcd", "uniform", "alltoall")

#: Ember-named workload options, as (spec key, what it sets): every one is a number.
EMBER_OPTIONS = (
    ("nx", "cells per rank along x (halo3d26 30, sweep3d 8)"),
    ("ny", "cells per rank along y (default nx)"),
    ("nz", "cells per rank along z (halo3d26: nx, sweep3d: 100)"),
    ("kba", "sweep3d: planes of z per block (10)"),
    ("fields_per_cell", "variables per cell"),
    ("datatype_width", "bytes per variable (8)"),
    ("flops_per_cell", "flops per cell (halo3d26 26, sweep3d 275)"),
    ("peflops", "flop/s of a rank (halo3d26 1e9, lqcd 2e10)"),
    ("nodeflops", "sweep3d: flop/s of a rank (1e9)"),
    ("short_msg_length",
     "lqcd: largest send that goes eager, bytes (12000); larger ones wait for their receive"),
    ("size", "uniform: bytes per message (65536)"),
)


def workload_spec(
    motif: str = "halo3d26",
    *,
    iterations: int = 1,
    chunks: int = 1,
    budget: int | None = None,
    compute: bool = True,
    host: str | None = None,
    compute_s: float | None = None,
    **ember: float | None,
) -> str:
    """The workload spec of the study's options, e.g. ``halo3d26:iterations=1,nx=30``.

    ``iterations`` per job, every message cut into ``chunks``, ``budget`` endpoints shared by
    the jobs, ``compute`` (False leaves the compute time out), ``host`` (``"ember"`` charges
    SST Ember's host costs; ``None`` or ``"none"`` writes none), ``compute_s`` (seconds of compute per rank and iteration), and
    the :data:`EMBER_OPTIONS` by name (``nx=30``; ``None`` keeps the motif's default)."""
    unknown = sorted(set(ember) - {k for k, _ in EMBER_OPTIONS})
    if unknown:
        raise SpecError(f"workload: unknown option {unknown[0]!r} (known: "
                        + ", ".join(k for k, _ in EMBER_OPTIONS) + ")")
    if not isinstance(motif, str):
        raise SpecError(f"motif: expected a workload motif such as 'halo3d26', got {motif!r}")
    for key, value in (("iterations", iterations), ("chunks", chunks), ("budget", budget)):
        if value is not None and (isinstance(value, bool)
                                  or not isinstance(value, numbers.Integral)):
            raise SpecError(f"workload: {key}: expected a whole number, got {value!r}")
    name, _, given = motif.partition(":")
    in_motif = {item.split("=", 1)[0].strip() for item in given.split(",") if item.strip()}
    options = [given] if given.strip() else []
    # (key, value, whether it differs from the default); the number of iterations is
    # written even at its default, so that the spec says it.
    wanted = [
        ("iterations", str(iterations), iterations != 1),
        ("chunks", str(chunks), chunks != 1),
        ("budget", str(budget), budget is not None),
        ("compute", "no", not compute),
        ("host", host, host not in (None, "none")),
        ("compute_s", None if compute_s is None else _exact("compute_s", compute_s),
         compute_s is not None),
        *((key, _exact(key, ember[key]), True) for key, _ in EMBER_OPTIONS
          if ember.get(key) is not None),
    ]
    for key, value, differs in wanted:
        if key in in_motif:
            if differs:
                raise SpecError(f"workload: {key} given twice (in {motif!r} and as "
                                f"{key}={value})")
        elif differs or key == "iterations":
            options.append(f"{key}={value}")
    return f"{name}:{','.join(options)}"


def _exact(key: str, value: object) -> str:
    """A number of a workload spec as text that reads back to the same number: ``30``,
    ``1e+09``, ``123456789`` (not ``1.23457e+08``, which ``:g`` rounds it to)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise SpecError(f"workload: {key}: expected a finite number, got {value!r}")
    short = f"{value:g}"
    if float(short) == value:
        return short
    return str(int(value)) if isinstance(value, numbers.Integral) else repr(float(value))


def fabric_with(spec: str, link_bandwidth_bytes_s: float | None = None,
                host_bandwidth_bytes_s: float | None = None) -> Fabric:
    """The fabric of ``spec`` with every link at ``link_bandwidth_bytes_s`` (bytes per
    second; ``None``: the spec's default) and then every endpoint's injection and ejection
    channel at ``host_bandwidth_bytes_s`` (``None``: as the links), their latency kept: a
    NIC whose DMA to and from host memory moves less than the link, as SST Firefly's
    simple memory model does (about 6.7 GB/s; docs/host-costs.md, "The `sst` profile")."""
    _optional("link_bandwidth_bytes_s", link_bandwidth_bytes_s)
    _optional("host_bandwidth_bytes_s", host_bandwidth_bytes_s)
    if link_bandwidth_bytes_s is None:
        fabric = Fabric.parse(spec)
    else:
        fabric = Fabric.parse(spec, bandwidth_bytes_s=link_bandwidth_bytes_s)
    if host_bandwidth_bytes_s is None:
        return fabric
    latency = fabric.channel(fabric.num_router_channels)["latency_s"]
    return fabric.with_class_link("host", host_bandwidth_bytes_s, latency)


def simulate(
    fabric: Fabric | str,
    workload: str,
    faults: Faults | None = None,
    routing: str | None = None,
    engine: str | None = None,
    seed: int = 1,
    time_tolerance: float | None = None,
    time_resolution: float | None = None,
    *,
    profile: Profile | str | None = None,
) -> SimulationResult:
    """The former name of :func:`fray.simulate` (same result; warns): use ``fray.simulate``,
    whose sixth argument is ``host`` and whose flow-engine settings are keywords."""
    warnings.warn("fray.links.simulate is now fray.simulate", DeprecationWarning, stacklevel=2)
    return _simulate(fabric, workload, faults, routing, engine, seed=seed,
                     time_tolerance=time_tolerance, time_resolution=time_resolution,
                     profile=profile)


def _seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise SpecError(f"seed: must be a whole number from 0 to 2^64-1, got {seed!r}")
    return seed


def _in_chunks(total: int, step: int, run: Callable[[int, int], list], progress: bool,
               desc: str) -> list:
    """``run(start, stop)`` over ``0..total`` ``step`` runs at a time (the study's
    ``chunk_len``: a few per core, which the core runs on every core at once), so the bar
    moves and Ctrl-C waits for at most one chunk. Returns the outcomes in order; they do not
    depend on ``step``."""
    outcomes: list = []
    with tqdm(total=total, unit="run", disable=not progress, desc=desc) as bar:
        for start in range(0, total, step):
            stop = min(start + step, total)
            outcomes.extend(run(start, stop))
            bar.update(stop - start)
    return outcomes


def _setup(fabric: Fabric | str, workload: str, routing: str | None, engine: str | None,
           fail: str | None, profile: Profile | str | None) -> tuple[Fabric, str, str, str, str]:
    """The fabric, workload, routing, engine and failing cable class: as given, else the
    profile's (:func:`fray.profiles.apply`), else the defaults (the fabric's routing and
    cable class, :data:`DEFAULT_ENGINE`)."""
    fabric, workload, routing, engine = profiles.apply(profile, fabric, workload, routing, engine)
    fab = _fabric(fabric)
    return (fab, workload, routing or fab.default_routing,
            DEFAULT_ENGINE if engine is None else engine, fail or default_fail_class(fab))


def _list_of(name: str, values: Sequence, whole: bool) -> list:
    """``values`` as a list of whole numbers (``whole``, each fitting 32 bits) or of finite
    numbers, else a ``SpecError`` naming ``name`` and the first bad value; a string or a
    boolean is never a number."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise SpecError(f"{name}: expected a list of numbers, got {values!r}")
    out = []
    for v in values:
        ok = not isinstance(v, bool) and isinstance(v, numbers.Integral if whole else
                                                    numbers.Real)
        if ok and whole and not 0 <= v < 2**32:
            ok = False
        if ok and not whole and not math.isfinite(v):
            ok = False
        if not ok:
            kind = "whole numbers from 0 to 2^32-1" if whole else "finite numbers"
            raise SpecError(f"{name}: expected {kind}, got {v!r}")
        out.append(int(v) if whole else float(v))
    return out


def _count(name: str, value: int, least: int = 1, most: int = 2**32 - 1) -> int:
    """``value`` if it is a whole number from ``least`` to ``most`` (by default the largest
    count the core holds, a ``u32``), else a ``SpecError``."""
    return whole(value, name, least, most)


def _down(down: str | Path | None) -> tuple[str, str]:
    """The text and name of the fault file of cables already down ("" for none)."""
    if down is None:
        return "", "down"
    if not isinstance(down, (str, os.PathLike)):
        raise SpecError(f"down: expected the path of a fault file, got {down!r}")
    path = Path(down)
    try:
        return path.read_text(), str(path)
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"down: cannot read {str(path)!r}: {e}") from None


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
    time_tolerance: float | None = None,
    time_resolution: float | None = None,
    engine: str | None = None,
    profile: Profile | str | None = None,
    down: str | Path | None = None,
    save_faults: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Runs the failed-links study and returns its table.

    For every number of ``jobs`` and every seed, the jobs are placed (random idle endpoints,
    then the jobs mapped linearly) and run without failures (the baseline) and with each
    percentage in ``failed_pct`` of the ``fail`` cables down (default: ``global`` on a
    dragonfly, ``router`` elsewhere). Seed ``r`` of a cell derives from ``(seed, r)``; the
    baseline and the failed cases of a seed share its layout and routing choices.
    ``time_tolerance`` and ``time_resolution`` (seconds) are the flow engine's
    (``flow:time_tolerance=...,time_resolution=...`` in the engine spec; give each in one
    place); its defaults, 3e-3 and 20 ns, move the degradations by a few hundredths of a
    percentage point against the exact solve. ``engine`` runs every case
    on the flow engine (default), the packet engine (``"packet"``: queues, finite buffers,
    each message routed once; ``"packet:route=packet"``: each packet routed on its own;
    more options as in :func:`fray.simulate`) or the static load engine (``"load"``).
    ``profile`` supplies what is not given, as in :func:`fray.simulate`.

    ``down`` names a fault file of cables already down on the machine (one ``FROM->TO``
    cable per line, ``FROM->TO[k]`` for the ``k``-th of parallel cables, ``#`` comments; see
    docs/file-formats.md). They are down in every case but
    the baselines, which stay healthy: the 0 % row is then what they cost the machine as it
    is, and each other row what that share of the remaining ``fail`` cables would cost on
    top of them.

    ``save_faults`` writes each failure draw of the study as a fault file (the ``down``
    cables and the draw) before the runs, which ``down=`` (or ``fray links --down``, ``fray
    route``) reads back to the same cables: a path with ``{failed}`` (the percentage) and
    ``{replica}`` (the seed number, 0 to ``seeds - 1``) in it, such as
    ``"faults/f{failed}-r{replica}.txt"`` (a plain path when the study makes one draw). A
    draw does not depend on the number of jobs.

    Returns
    -------
    pandas.DataFrame
        One row per (jobs, failed %), 0 % included, with ``jobs, failed_pct,
        degradation_pct`` (mean loss of machine throughput against the baseline, in percent;
        negative when faster), ``degradation_ci_pct`` (half-width of its 95 % confidence
        interval over the seeds), ``unroutable`` (some seed could not route every pair of the
        workload: the degradation is then empty), ``seeds``, ``baseline_iteration_s`` and
        ``iteration_s`` (means over jobs and seeds), ``baseline_throughput`` and
        ``throughput`` (machine throughput, rank-iterations per second summed over the jobs,
        mean over seeds). ``DataFrame.attrs`` holds the parameters, and ``replica_seeds``:
        the seed of each seed number's layout and routing choices, with which
        :func:`fray.simulate` reruns one of its cases (with the case's faults, from
        ``save_faults``, and the study's ``time_tolerance`` and ``time_resolution``).
    """
    fab, workload, routing, engine, fail = _setup(fabric, workload, routing, engine, fail,
                                                    profile)
    jobs = _list_of("jobs", jobs, whole=True)
    failed = _list_of("failed_pct", failed_pct, whole=False)
    _count("seeds", seeds, most=MAX_REPLICATIONS)
    s = LinksStudy(fab, workload, routing, fail, jobs, failed, seeds, _seed(seed),
                   time_tolerance, engine, *_down(down), time_resolution=time_resolution)
    if save_faults is not None:
        _save_faults(s, save_faults)
    outcomes = _in_chunks(s.num_cases, s.chunk_len, s.run, progress, "simulating")
    table = pd.DataFrame(s.summarize(outcomes))
    table.attrs.update(
        fabric=fabric if isinstance(fabric, str) else repr(fab),
        workload=workload,
        routing=routing,
        fail=fail,
        seeds=seeds,
        seed=seed,
        time_tolerance=s.flow_times[0] if s.flow_times else None,
        time_resolution=s.flow_times[1] if s.flow_times else None,
        engine=engine,
        down=None if down is None else str(down),
        replica_seeds=[s.replica_seed(r) for r in range(seeds)],
    )
    return table


def _save_faults(s: LinksStudy, template: str) -> list[Path]:
    """Writes each failure draw of ``s`` (one per failed % and seed number) to ``template``
    formatted with ``failed`` and ``replica``; returns the paths."""
    draws = {}
    for i in range(s.num_cases):
        _, failed, replica, baseline = s.case(i)
        if not baseline:
            draws.setdefault((failed, replica), i)
    paths = {key: Path(fault_file_name(template, *key)) for key in draws}
    if len(set(paths.values())) < len(paths):
        raise SpecError(f"save-faults: {template!r} names one file for {len(paths)} failure "
                        "draws: put {failed} and {replica} in it")
    for key, i in draws.items():
        try:
            paths[key].parent.mkdir(parents=True, exist_ok=True)
            paths[key].write_text(s.case_faults_file(i))
        except OSError as e:
            raise SpecError(f"save-faults: cannot write {str(paths[key])!r} "
                            f"({e.strerror})") from None
    return list(paths.values())


def fault_file_name(template: str, failed: float, replica: int) -> str:
    """The file ``save_faults=template`` of :func:`study` writes the draw of ``failed`` % and
    seed number ``replica`` to; a ``SpecError`` when ``template`` holds more than
    ``{failed}`` and ``{replica}``."""
    try:
        return template.format(failed=f"{failed:g}", replica=replica)
    except (KeyError, IndexError, ValueError, AttributeError) as e:
        raise SpecError(f"save-faults: {template!r} may hold only {{failed}} and {{replica}} "
                        f"({e})") from None


def case_loads(
    fabric: Fabric | str,
    workload: str = "halo3d26",
    *,
    jobs: int = 1,
    failed_pct: float = 0.0,
    replica: int = 0,
    routing: str | None = None,
    fail: str | None = None,
    seed: int = 1,
    time_tolerance: float | None = None,
    time_resolution: float | None = None,
    engine: str | None = None,
    profile: Profile | str | None = None,
    down: str | Path | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """One case of :func:`study` and its baseline, channel by channel: which cables bound it.

    The case is the one :func:`study` runs for ``jobs`` jobs, ``failed_pct`` % of the
    ``fail`` cables down and seed number ``replica`` (0 to ``seeds - 1``) under ``seed``:
    the same layout, failed cables and routing choices, so a table cell can be looked into
    seed by seed. The other parameters are :func:`study`'s (with ``down``, the case has the
    listed cables down too, and its baseline none; ``progress`` shows a bar over the two
    simulations).

    Returns
    -------
    pandas.DataFrame
        One row per channel (index: channel id) with ``cls`` (the channel's class),
        ``bandwidth_bytes_s`` (all lanes up), ``bytes`` (carried in the case),
        ``baseline_bytes`` (carried with no failure), ``down`` (failed in the case), and
        ``busy_s`` and ``baseline_busy_s`` (bytes over bandwidth: how long the channel was
        busy).
        ``DataFrame.attrs`` holds the parameters, ``iteration_s`` and
        ``baseline_iteration_s`` (each job's time per iteration) and ``unroutable`` (why
        the case could not run, or None; its bytes are then 0).
    """
    fab, workload, routing, engine, fail = _setup(fabric, workload, routing, engine, fail,
                                                    profile)
    _count("jobs", jobs)
    # The study runs seeds 0..=replica, so that their number is within the study's limit.
    _count("replica", replica, least=0, most=MAX_REPLICATIONS - 1)
    failed = _list_of("failed_pct", [failed_pct], whole=False)[0]
    s = LinksStudy(fab, workload, routing, fail, [jobs], sorted({0.0, failed}), replica + 1,
                   _seed(seed), time_tolerance, engine, *_down(down),
                   time_resolution=time_resolution)
    index = {s.case(i): i for i in range(s.num_cases)}
    base_case = index[(jobs, 0.0, replica, True)]
    case = index.get((jobs, failed, replica, False), base_case)
    runs = [case] if case == base_case else [case, base_case]
    with tqdm(total=len(runs), unit="case", disable=not progress, desc="simulating") as bar:
        results = []
        for i in runs:
            results.append(s.run_loads(i))
            bar.update()
    outcome, loaded, down_now = results[0]
    base_outcome, base, _ = results[-1]
    n = fab.num_channels
    names = fab.class_names
    bandwidth = np.asarray(fab.channel_bandwidths_bytes_s, dtype=float)
    loads = pd.DataFrame({
        "cls": pd.Categorical.from_codes(fab.channel_class_ids, categories=names),
        "bandwidth_bytes_s": bandwidth,
        "bytes": np.asarray(loaded, dtype=float) if loaded else np.zeros(n),
        "baseline_bytes": np.asarray(base, dtype=float) if base else np.zeros(n),
        "down": np.asarray(down_now, dtype=bool),
    })
    loads.index.name = "channel"
    loads["busy_s"] = loads["bytes"] / bandwidth
    loads["baseline_busy_s"] = loads["baseline_bytes"] / bandwidth
    loads.attrs.update(
        fabric=fabric if isinstance(fabric, str) else repr(fab), workload=workload,
        routing=routing, fail=fail, jobs=jobs, failed_pct=failed, replica=replica, seed=seed,
        engine=engine, time_tolerance=time_tolerance, time_resolution=time_resolution,
        down=None if down is None else str(down),
        iteration_s=outcome[1], baseline_iteration_s=base_outcome[1],
        unroutable=outcome[2] or base_outcome[2],
    )
    return loads


def busiest_cables(loads: pd.DataFrame, fabric: Fabric | str, top: int = 10,
                   cls: str | None = None) -> pd.DataFrame:
    """The ``top`` channels of :func:`case_loads`'s table that carried the most bytes in the
    case (of class ``cls`` only, e.g. ``"global"``, when given), busiest first, with each
    channel's ``name`` added."""
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise SpecError(f"top: must be a positive whole number, got {top!r}")
    _loads_table(loads)
    fab = _fabric(fabric)
    if len(loads) != fab.num_channels or list(loads["cls"].cat.categories) != fab.class_names:
        raise SpecError(f"fabric: the loads are of a fabric of {len(loads)} channels of classes "
                        f"{', '.join(loads['cls'].cat.categories)}, this one has "
                        f"{fab.num_channels} of {', '.join(fab.class_names)}: give the fabric "
                        "of the case")
    rows = loads if cls is None else loads[loads["cls"] == cls]
    if cls is not None and cls not in loads["cls"].cat.categories:
        known = ", ".join(loads["cls"].cat.categories)
        raise SpecError(f"cls: unknown channel class {cls!r} (known: {known})")
    out = rows.nlargest(top, "bytes").copy()
    out.insert(0, "name", [fab.channel(int(c))["name"] for c in out.index])
    return out


def loads_by_class(loads: pd.DataFrame) -> pd.DataFrame:
    """:func:`case_loads`'s table summed up by channel class, in the case and its baseline:
    ``channels``, ``busiest_bytes``, ``p99_bytes``, ``median_bytes`` and ``total_bytes``
    (and the same with ``baseline_``), one row per class that has channels."""
    _loads_table(loads)
    rows = []
    for cls, group in loads.groupby("cls", observed=True):
        row = {"cls": cls, "channels": len(group)}
        for prefix, column in (("", "bytes"), ("baseline_", "baseline_bytes")):
            b = group[column].to_numpy()
            row |= {f"{prefix}busiest_bytes": b.max(), f"{prefix}p99_bytes": np.quantile(b, 0.99),
                    f"{prefix}median_bytes": np.median(b), f"{prefix}total_bytes": b.sum()}
        rows.append(row)
    return pd.DataFrame(rows).set_index("cls")


def _loads_table(loads: object) -> None:
    """A ``SpecError`` unless ``loads`` is a table as :func:`case_loads` returns it."""
    _table("loads", loads, ("cls", "bytes", "baseline_bytes"), "fray.links.case_loads")
    if not isinstance(loads["cls"].dtype, pd.CategoricalDtype):
        raise SpecError("loads: its cls column is not categorical, as fray.links.case_loads "
                        "gives it")


def _table(name: str, table: object, columns: Sequence[str], source: str) -> None:
    """A ``SpecError`` naming ``name`` unless ``table`` is a DataFrame with ``columns``, as
    ``source`` returns it."""
    if not isinstance(table, pd.DataFrame):
        raise SpecError(f"{name}: expected the table {source} returns, got {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise SpecError(f"{name}: the table has no column {missing[0]!r}: expected the table "
                        f"{source} returns")


def _repair_study(
    fabric: Fabric | str, workload: str, routing: str | None, engine: str | None,
    fail: str | None, profile: Profile | str | None, *, jobs: int, seeds: int, seed: int,
    time_tolerance: float | None, time_resolution: float | None, down: str | Path,
) -> tuple[Fabric, str, str, str, str, LinksStudy]:
    """The study that :func:`repair_gains` and :func:`greedy_repairs` run: ``jobs`` jobs over
    ``seeds`` seeds, no random failures on top of the cables of ``down``. Returns the fabric,
    workload, routing, engine and failing class of :func:`_setup`, then the study."""
    fab, workload, routing, engine, fail = _setup(fabric, workload, routing, engine, fail,
                                                    profile)
    _count("jobs", jobs)
    _count("seeds", seeds, most=MAX_REPLICATIONS)
    s = LinksStudy(fab, workload, routing, fail, [jobs], [0.0], seeds, _seed(seed),
                   time_tolerance, engine, *_down(down), time_resolution=time_resolution)
    return fab, workload, routing, engine, fail, s


def repair_gains(
    fabric: Fabric | str,
    workload: str = "halo3d26",
    *,
    down: str | Path,
    jobs: int = 1,
    seeds: int = 3,
    seed: int = 1,
    routing: str | None = None,
    fail: str | None = None,
    time_tolerance: float | None = None,
    time_resolution: float | None = None,
    engine: str | None = None,
    profile: Profile | str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Which cable of the fault file ``down`` to repair first: for each, the machine
    throughput gained by repairing it alone (every other listed cable still down) with
    ``jobs`` jobs, over ``seeds`` seeds. Each seed compares two runs with the same layout and
    random routing choices, so the layouts' spread drops out; adaptive routings still react
    to the repair (a Valiant group is weighted by its live cables), which can leave the
    interval wide. Runs ``(cables + 1) x seeds`` simulations (``progress`` shows a bar). The
    other parameters are :func:`study`'s.

    Returns
    -------
    pandas.DataFrame
        One row per listed cable, largest gain first: ``cable`` (as the file names it),
        ``line``, ``gain_pct`` (mean throughput gained, in percent of the machine as it is;
        empty when the machine as it is, or with this cable repaired, cannot route every
        pair), ``gain_ci_pct`` (half-width of its 95 % confidence interval) and
        ``unroutable`` (some seed cannot route every pair with this cable repaired: a cable
        whose repair clears it is worth repairing whatever the numbers say).
        ``DataFrame.attrs`` holds the parameters.
    """
    fab, workload, routing, engine, fail, s = _repair_study(
        fabric, workload, routing, engine, fail, profile, jobs=jobs, seeds=seeds, seed=seed,
        time_tolerance=time_tolerance, time_resolution=time_resolution, down=down)
    outcomes = _in_chunks(s.num_repair_runs, s.chunk_len,
                          lambda a, b: s.run_repairs(jobs, a, b), progress, "repairs")
    table = pd.DataFrame(s.summarize_repairs(outcomes),
                         columns=["cable", "line", "gain_pct", "gain_ci_pct", "unroutable"])
    table = table.sort_values(["unroutable", "gain_pct"], ascending=[True, False],
                              na_position="last", kind="stable").reset_index(drop=True)
    table.attrs.update(fabric=fabric if isinstance(fabric, str) else repr(fab),
                       workload=workload, routing=routing, fail=fail, jobs=jobs, seeds=seeds,
                       seed=seed, engine=engine, time_tolerance=time_tolerance,
                       time_resolution=time_resolution, down=str(down))
    return table


def greedy_repairs(
    fabric: Fabric | str,
    workload: str = "halo3d26",
    *,
    down: str | Path,
    steps: int | None = None,
    exact: bool = False,
    jobs: int = 1,
    seeds: int = 3,
    seed: int = 1,
    routing: str | None = None,
    fail: str | None = None,
    time_tolerance: float | None = None,
    time_resolution: float | None = None,
    engine: str | None = None,
    profile: Profile | str | None = None,
) -> pd.DataFrame:
    """Which cables of the fault file ``down`` to repair first, as a plan: at each step the
    cable whose repair, on top of the earlier ones, gives back the most machine throughput
    with ``jobs`` jobs over ``seeds`` seeds, for ``steps`` steps (default: every listed
    cable). Step 1 is :func:`repair_gains`'s best cable. The search is lazy (a gain measured
    at an earlier step bounds the gain now, so only the best candidates are run again;
    ``exact`` runs every candidate at every step). The other parameters are :func:`study`'s.

    Returns
    -------
    pandas.DataFrame
        One row per step, 0 the machine as it is: ``step, cable, line``, ``throughput_pct``
        and ``throughput_ci_pct`` (machine throughput after the repairs so far in percent of
        the healthy machine's, mean and 95 % CI half-width over the seeds; an unroutable seed
        counts 0), ``gain_pct`` and ``gain_ci_pct`` (what this step gave back, in points of
        healthy throughput), ``runner_up`` (the best other cable of the step) and
        ``within_noise`` (the choice over it is within the 95 % CI of their paired
        difference), ``unroutable``. ``DataFrame.attrs`` holds the parameters.
    """
    fab, workload, routing, engine, fail, s = _repair_study(
        fabric, workload, routing, engine, fail, profile, jobs=jobs, seeds=seeds, seed=seed,
        time_tolerance=time_tolerance, time_resolution=time_resolution, down=down)
    limit = s.num_repair_runs // seeds - 1 if steps is None else _count("steps", steps)
    table = pd.DataFrame(s.greedy_repairs(jobs, limit, exact))
    table.attrs.update(fabric=fabric if isinstance(fabric, str) else repr(fab),
                       workload=workload, routing=routing, jobs=jobs, seeds=seeds, seed=seed,
                       engine=engine, steps=limit, exact=exact, down=str(down))
    return table
