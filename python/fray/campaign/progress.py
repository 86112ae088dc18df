"""How far a campaign is, and about how long it has left.

On a terminal, a progress bar (tqdm) whose estimate weighs tasks by their work; elsewhere (a
batch job's log, a pipe), one line per finished task, so that a log says where a run stopped.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm.auto import tqdm

__all__ = ["Progress", "format_seconds"]


def format_seconds(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"


class Progress:
    """Counts finished tasks; ``mode`` is ``"bar"``, ``"lines"`` or ``"none"`` (``"auto"``:
    a bar on a terminal, lines otherwise)."""

    def __init__(self, name: str, total_tasks: int, done_tasks: int, total_weight: float,
                 done_weight: float, mode: str = "auto", stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        if mode == "auto":
            mode = "bar" if self.stream.isatty() else "lines"
        self.mode, self.name = mode, name
        self.total_tasks, self.done_tasks = total_tasks, done_tasks
        self.total_weight, self.done_weight = total_weight, done_weight
        self.start_weight, self.start = done_weight, time.perf_counter()
        self.bar = None
        if mode == "bar":
            self.bar = tqdm(total=total_weight, initial=done_weight, file=self.stream,
                            desc=self._desc(), unit="", dynamic_ncols=True,
                            bar_format="{desc} {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]")

    def _tasks(self) -> str:
        return f"{self.done_tasks}/{self.total_tasks} tasks"

    def _desc(self) -> str:
        return f"{self.name}: {self._tasks()}"

    def update(self, weight: float) -> None:
        """One more task (of ``weight``) finished and written."""
        self.done_tasks += 1
        self.done_weight += weight
        if self.bar is not None:
            self.bar.set_description_str(self._desc(), refresh=False)
            self.bar.update(weight)
        elif self.mode == "lines":
            elapsed = time.perf_counter() - self.start
            did = self.done_weight - self.start_weight
            left = (self.total_weight - self.done_weight) * elapsed / did if did > 0 else 0.0
            print(f"fray run: {self.name}: {self._tasks()} done, {format_seconds(elapsed)} "
                  f"elapsed, about {format_seconds(left)} left", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
