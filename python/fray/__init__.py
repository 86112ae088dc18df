"""fray: a laboratory for interconnect resilience in HPC systems.

The compute lives in the Rust extension ``fray._fray``; this package validates input,
orchestrates runs, stores results and draws them.
"""

from fray import links, profiles
from fray._fray import (
    Fabric,
    Faults,
    FrayError,
    SpecError,
    UnroutableError,
    static_load,
    stencil_load,
)
from fray.simulate import JobResult, SimulationResult, Traffic, TrafficResult, simulate

__all__ = [
    "Fabric",
    "Faults",
    "FrayError",
    "JobResult",
    "SimulationResult",
    "SpecError",
    "Traffic",
    "TrafficResult",
    "UnroutableError",
    "links",
    "profiles",
    "simulate",
    "static_load",
    "stencil_load",
]
