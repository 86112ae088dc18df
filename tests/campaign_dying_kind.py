"""A study kind for tests only: its tasks return fixed numbers, one task kills its worker
process the first time it runs (a marker file remembers it), as a crashed node would, and
one may raise an error.

Imported by the test (the driver) and preloaded by the Dask workers, as a real plug-in kind
would be (``dask worker --preload``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from fray.campaign import studies
from fray.campaign.kind import ReportSection, StudyKind
from fray.campaign.schema import REQUIRED, Field, text, whole
from fray.campaign.tasks import Task, derive_seed


class DyingKind(StudyKind):
    name = "dying_for_tests"
    sections: ClassVar = {"work": {"tasks": Field("a whole number", whole(1), REQUIRED),
                         "die_at": Field("a task index", whole(0), REQUIRED),
                         "marker": Field("a file path", text, REQUIRED),
                         "fail_at": Field("a task index", whole(0))}}

    def plan(self, scenario, point):
        w = point.config["work"]
        return [Task(self.name, f"t{i:03d}", point.index, 0,
                     derive_seed(scenario.seed, "task", i),
                     {"i": i, "die": i == w["die_at"], "marker": w["marker"],
                      "fail": i == w["fail_at"]})
                for i in range(w["tasks"])]

    def columns(self, tasks):
        return [("i", "INTEGER"), ("row", "INTEGER"), ("value", "BIGINT"), ("pid", "INTEGER")]

    def run(self, task: Task):
        marker = Path(task.params["marker"])
        if task.params["die"] and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)  # the worker process dies in the middle of the task
        i = task.params["i"]
        if task.params["fail"]:
            raise ValueError(f"task {i} cannot be computed")
        return {"i": [i] * 3, "row": [0, 1, 2], "value": [task.seed % 1000 + r for r in range(3)],
                "pid": [os.getpid()] * 3}

    def curve(self, con, study):
        return con.execute(f'SELECT * FROM "{study.name}"').df()

    def report(self, con, study, out_dir):
        return ReportSection(title=study.name)


if "dying_for_tests" not in studies.names():
    studies.register(DyingKind())
