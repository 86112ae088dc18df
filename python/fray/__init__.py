"""fray: a laboratory for interconnect resilience in HPC systems.

The compute lives in the Rust extension ``fray._fray``; this package validates input,
orchestrates runs, stores results and draws them.
"""

from fray import profiles
from fray._fray import (
    Fabric,
    Faults,
    FrayError,
    SpecError,
    UnroutableError,
    static_load,
    stencil_load,
)
from fray.links import simulate

__all__ = [
    "Fabric",
    "Faults",
    "FrayError",
    "SpecError",
    "UnroutableError",
    "profiles",
    "simulate",
    "static_load",
    "stencil_load",
]
