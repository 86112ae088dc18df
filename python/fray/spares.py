"""The spare-node study: spare allocation ``qD(r,s)``, 0D / sliding / hybrid substitution,
and the message collisions a stencil suffers after the rank-to-node map changes.

The computation runs in Rust (``fray._fray.SpareStudy``); this module validates the input,
runs the cases in one call to the core (with a progress bar, stoppable with Ctrl-C) and
returns a pandas ``DataFrame`` with one row per number of failures.

A failed node loses its compute part only: its router still forwards traffic, so routes do
not change around it (routing around dead routers is a later study).
"""

from __future__ import annotations

import pandas as pd
from tqdm.auto import tqdm

from fray import SpecError
from fray._fray import SpareStudy, spare_allocation

__all__ = ["SpareStudy", "allocation", "study"]

#: Most random failure sequences a study samples, as the command line's ``--samples`` (a
#: ``u32``): a larger number is a typo, not a study that ends.
_MAX_SAMPLES = 2**32 - 1


def allocation(fabric: str, alloc: str) -> dict:
    """Spare counts of ``alloc`` (e.g. ``"3D(2,1)"``) on ``fabric`` (e.g. ``"torus:24x24x24"``).

    Returns a dict with ``num_nodes``, ``num_spares``, ``spare_fraction`` (exact),
    ``paper_fraction`` (the paper's formula, exact for cubes) and ``compute_extents``.
    """
    return spare_allocation(fabric, alloc)


def study(
    fabric: str,
    alloc: str,
    method: str,
    *,
    samples: int | None = None,
    exhaustive: bool = False,
    max_failures: int | None = None,
    seed: int = 0,
    stencil: str | None = None,
    periodic: bool | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Runs a spare-node study and returns its curve.

    Parameters
    ----------
    fabric:
        A mesh or torus spec, e.g. ``"mesh:8x8"`` or ``"torus:12x12x12"``.
    alloc:
        The spare allocation ``qD(r,s)``: the last ``s`` indices of the first ``r`` dimensions
        are spare, e.g. ``"2D(1,1)"`` (the column ``x = W-1``) or ``"3D(2,1)"``.
    method:
        ``"0D"``, ``"1D"``, ..., ``"hybrid(2D+1D+0D)"``, ``"hybrid(all)"``, ``"hybrid(-2D)"``.
    samples:
        Number of random failure sequences (each fails distinct ranks one at a time, in a
        uniformly random order, up to ``max_failures``). Exclusive with ``exhaustive``.
    exhaustive:
        Enumerate every set of up to ``max_failures`` failed ranks (failed in increasing rank
        order) instead of sampling.
    max_failures:
        Largest number of failures (default for sampling: the number of spares, or of ranks
        where the job has fewer; required for ``exhaustive``). At most both.
    seed:
        Seed of the random sequences; case ``i`` draws from a generator seeded by
        ``(seed, i)``, so a result does not depend on chunking or threads.
    stencil, periodic:
        The communication (``5P``, ``9P``, ``7P``, ``27P``; default the face stencil of the
        fabric's dimension), periodic by default on a torus and not on a mesh.
    progress:
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per number of failures (row 0 is the fault-free job) with the columns
        ``failures, cases, unrecoverable, best, mean, worst`` (maximum message collisions over
        the recovered cases), ``rate_<k>D`` (share of the recovered cases whose last
        substitution used degree ``k``) and ``cumrate_<k>D`` (share of degree ``k`` among all
        their substitutions). ``DataFrame.attrs`` holds the parameters.
    """
    if exhaustive == (samples is not None):
        raise SpecError("give either samples=N or exhaustive=True")
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int)
                                or not 1 <= samples <= _MAX_SAMPLES):
        raise SpecError(f"samples: must be a whole number from 1 to {_MAX_SAMPLES}, got "
                        f"{samples!r}")
    if exhaustive and max_failures is None:
        raise SpecError("max_failures: required with exhaustive=True (every set is enumerated)")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise SpecError(f"seed: must be a whole number from 0 to 2^64-1, got {seed!r}")
    s = SpareStudy(fabric, alloc, method, stencil, periodic, max_failures)
    if exhaustive:
        _run_exhaustive(s, progress)
    else:
        _run_samples(s, samples, seed, progress)
    table = pd.DataFrame(s.table())
    table.attrs.update(
        fabric=fabric,
        alloc=alloc,
        method=method,
        stencil=stencil,
        periodic=periodic,
        mode="exhaustive" if exhaustive else "samples",
        samples=samples,
        seed=seed,
        num_ranks=s.num_ranks,
        num_spares=s.num_spares,
        engine="load",
    )
    return table


def _run_samples(s: SpareStudy, samples: int, seed: int, progress: bool) -> None:
    # One call, so that cases whose first failures are the same slides share them (in parts
    # they share less: the curve is the same, the work about 1.4 times more at 24^3); the
    # core reports the cases as they end.
    with tqdm(total=samples, unit="case", disable=not progress, desc="sampling") as bar:
        s.run_samples(seed, 0, samples, bar.update)


def _run_exhaustive(s: SpareStudy, progress: bool) -> None:
    # One call over every lowest rank: the core spreads them over the cores and reports the
    # sets as they are counted.
    with tqdm(total=s.exhaustive_cases(0, s.num_ranks), unit="set", disable=not progress,
              desc="enumerating") as bar:
        s.run_exhaustive(0, s.num_ranks, bar.update)