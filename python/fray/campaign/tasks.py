"""Tasks: the units of work a campaign ships to workers, their seeds, and the plan of a study.

A task is big enough to be worth shipping (a chunk of Monte Carlo cases of one sweep point,
say); it carries plain data only, and its key is stable: the same scenario always plans the
same tasks with the same keys, so a re-run skips the ones already in the results file.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import time
from dataclasses import dataclass
from typing import Any

from fray.campaign import studies
from fray.campaign.limits import MAX_TASKS  # a kind checks its count before listing tasks
from fray.campaign.scenario import Point, Scenario
from fray.campaign.schema import ScenarioError

__all__ = ["MAX_TASKS", "SHARED_COLUMNS", "Plan", "Task", "derive_seed", "execute", "make_plan"]


@dataclass(frozen=True)
class Task:
    """One unit of work. ``seed`` derives from the scenario's seed and the task's place in
    the study (never from the worker or the clock); ``weight`` is its relative cost, for the
    estimate of the time left."""

    kind: str
    key: str
    point: int
    replication: int
    seed: int | None
    params: dict[str, Any]
    weight: float = 1.0


#: Columns every study table starts with (then the kind's columns, then ``wall_s`` and
#: ``fray_version``).
SHARED_COLUMNS = [
    ("scenario_hash", "VARCHAR"),
    ("task_key", "VARCHAR"),
    ("point", "INTEGER"),
    ("replication", "INTEGER"),
    ("seed", "BIGINT"),
]
TRAILING_COLUMNS = [("wall_s", "DOUBLE"), ("fray_version", "VARCHAR")]


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from the scenario's ``seed`` and the names of a place in the study
    (``derive_seed(7, "replication", 2)``): stable across runs, machines and versions."""
    text = "/".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little") >> 1


@functools.cache
def fray_version() -> str:
    """The installed fray's version (recorded with every row)."""
    return importlib.metadata.version("fray")


def execute(task: Task) -> dict[str, list[Any]]:
    """Runs ``task`` (on a worker): the kind's columns, plus the shared ones."""
    start = time.perf_counter()
    columns = studies.get(task.kind).run(task)
    wall_s = time.perf_counter() - start
    rows = len(next(iter(columns.values())))
    if rows == 0 or any(len(v) != rows for v in columns.values()):
        raise RuntimeError(f"study kind {task.kind!r} returned ragged or empty columns")
    shared = {"task_key": task.key, "point": task.point, "replication": task.replication,
              "seed": task.seed}
    out = {name: [value] * rows for name, value in shared.items()}
    out.update(columns)
    out["wall_s"] = [wall_s] * rows
    out["fray_version"] = [fray_version()] * rows
    return out


@dataclass(frozen=True)
class Plan:
    """Every point and task of a scenario, and the columns of its table."""

    scenario: Scenario
    points: list[Point]
    tasks: list[Task]
    columns: list[tuple[str, str]]

    @property
    def total_weight(self) -> float:
        return sum(t.weight for t in self.tasks)


def make_plan(scenario: Scenario) -> Plan:
    """Checks every sweep point fully (the kind builds each one) and lists the tasks."""
    kind = scenario.study_kind
    points = scenario.points()
    tasks = [t for p in points for t in kind.plan(scenario, p)]
    if len(tasks) > MAX_TASKS:
        raise ScenarioError(scenario.source, None, f"{len(tasks)} tasks planned, more than the "
                            f"{MAX_TASKS} a campaign may hold; give each task more cases")
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        raise RuntimeError(f"study kind {kind.name!r} planned two tasks with the same key")
    columns = SHARED_COLUMNS + kind.columns(tasks) + TRAILING_COLUMNS
    return Plan(scenario, points, tasks, columns)
