"""The result of one benchmark case: its timed runs and what turns them into a rate, a
projection to the full-size problem (quick mode runs fewer samples) and a verdict on a target.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from timing import Sample, summary


@dataclass
class Result:
    """The timed runs of one scenario case."""

    scenario: str
    case: str
    runs: list[Sample]
    #: Units of work per run (e.g. failure-set evaluations) and their name, for the rate.
    work: float | None = None
    work_unit: str | None = None
    #: Full-size work over the work of one run (> 1 in quick mode): projects the wall time.
    scale: float = 1.0
    target_s: float | None = None
    extra: dict = field(default_factory=dict)

    @property
    def wall(self) -> dict:
        return summary([s.wall_s for s in self.runs])

    @property
    def cpu(self) -> dict:
        return summary([s.cpu_s for s in self.runs])

    @property
    def cores(self) -> dict:
        return summary([s.cores for s in self.runs])

    @property
    def rate(self) -> dict | None:
        """Work per second: median, and the min / max over runs."""
        if self.work is None:
            return None
        return summary([self.work / s.wall_s for s in self.runs])

    @property
    def projected_s(self) -> float:
        """Median wall time scaled to the full-size problem."""
        return self.wall["median"] * self.scale

    def to_dict(self) -> dict:
        return {
            "scenario": self.scenario,
            "case": self.case,
            "runs": [s.to_dict() for s in self.runs],
            "wall_s": self.wall,
            "cpu_s": self.cpu,
            "cores": self.cores,
            "work": self.work,
            "work_unit": self.work_unit,
            "rate_per_s": self.rate,
            "scale": self.scale,
            "projected_s": self.projected_s,
            "target_s": self.target_s,
            "meets_target": None if self.target_s is None else self.projected_s < self.target_s,
            **self.extra,
        }
