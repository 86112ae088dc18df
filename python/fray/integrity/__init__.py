"""End-to-end checksums: algorithms, fused copy+checksum, detection quality, auto-tuning,
transfer-time models and a checked message transport over mpi4py.

Compute lives in the Rust crate ``fray-integrity``; this package validates input, caches the
tuning, draws the models and drives MPI.
"""

from __future__ import annotations

from fray.integrity.bench import bench
from fray.integrity.checksums import (
    Checksummer,
    algorithm_info,
    algorithms,
    checksum,
    copy_checksum,
)
from fray.integrity.errors import IntegrityError
from fray.integrity.models import ModelParams, model_table, net_chunk_plan, plot_models
from fray.integrity.pingpong_plot import pingpong_curves, plot_pingpong
from fray.integrity.quality import detection_table
from fray.integrity.tuner import TuneResult, cache_path, tune, tuned_algorithm

__all__ = [
    "Checksummer",
    "IntegrityError",
    "ModelParams",
    "TuneResult",
    "algorithm_info",
    "algorithms",
    "bench",
    "cache_path",
    "checksum",
    "copy_checksum",
    "detection_table",
    "model_table",
    "net_chunk_plan",
    "pingpong_curves",
    "plot_models",
    "plot_pingpong",
    "tune",
    "tuned_algorithm",
]


def __getattr__(name: str):
    # The transport needs mpi4py, which initialises MPI: load it only when asked for.
    if name in ("CheckedComm", "NaiveComm", "PlainComm"):
        from fray.integrity import transport

        return getattr(transport, name)
    raise AttributeError(f"module 'fray.integrity' has no attribute {name!r}")
