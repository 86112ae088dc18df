"""Repeated wall-clock and CPU timing, and the median / min / max summary of a series.

CPU time counts this process (every thread, so the Rust worker threads too) and the
subprocesses it waited for, so ``cpu_s / wall_s`` says how many cores a run kept busy.
"""

from __future__ import annotations

import os
import resource
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass


@dataclass
class Sample:
    """One timed run: wall time, CPU time (user + system) and the 1-minute load average
    just before it started (work by others on the machine shows up there)."""

    wall_s: float
    cpu_s: float
    load_before: float

    @property
    def cores(self) -> float:
        """CPU time over wall time: about 2 when both cores of a 2-core machine were busy."""
        return self.cpu_s / self.wall_s if self.wall_s > 0 else 0.0

    def to_dict(self) -> dict:
        return asdict(self) | {"cores": self.cores}


def _cpu_s() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def measure(run: Callable[[], object], repeat: int) -> tuple[list[Sample], object]:
    """Calls ``run`` ``repeat`` times; returns one sample per call and the last call's result."""
    samples, result = [], None
    for _ in range(repeat):
        load = os.getloadavg()[0]
        cpu0, wall0 = _cpu_s(), time.perf_counter()
        result = run()
        wall, cpu = time.perf_counter() - wall0, _cpu_s() - cpu0
        samples.append(Sample(wall_s=wall, cpu_s=cpu, load_before=load))
    return samples, result


def summary(values: list[float]) -> dict:
    """Median, min and max of a series (the median is the number to quote)."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}
