"""What a study kind provides to campaigns: its sections, its tasks, its rows and its report.

A study kind (``spares``, ``links``) plugs into campaigns by
subclassing :class:`StudyKind` and registering an instance (:func:`fray.campaign.studies.
register`). Everything else (scenario files, sweeps, seeds, Dask, the results file, resume,
export, the HTML report) is shared.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from fray.campaign.scenario import Point, Scenario
    from fray.campaign.schema import Field
    from fray.campaign.tasks import Task

__all__ = ["ReportSection", "StudyKind", "StudyRecord"]


@dataclass(frozen=True)
class StudyRecord:
    """A study as the results file knows it: its table, kind, scenario and progress."""

    name: str
    kind: str
    scenario_hash: str
    scenario: dict
    source: str
    planned_tasks: int
    done_tasks: int


@dataclass
class ReportSection:
    """What ``fray report`` shows of one study: a title, lines of text, figures (PNG files)
    with what each shows (``captions``, by path; the HTML page captions a figure with it),
    and a summary table (printed in the terminal, and in the HTML page)."""

    title: str
    lines: list[str] = field(default_factory=list)
    figures: list[Path] = field(default_factory=list)
    summary: pd.DataFrame | None = None
    captions: dict[Path, str] = field(default_factory=dict)

    def add_figure(self, path: Path, caption: str) -> None:
        """Adds the figure at ``path``, captioned with what it shows."""
        self.figures.append(path)
        self.captions[path] = caption


class StudyKind(ABC):
    """One kind of study. Subclasses set :attr:`name` and :attr:`sections` and implement the
    methods below; :meth:`run` executes on a worker and must stay cheap to import."""

    #: The value of ``study.kind`` in a scenario file.
    name: str
    #: The sections and keys a scenario of this kind may hold, besides ``study``, ``sweep``
    #: and ``replications``.
    sections: Mapping[str, Mapping[str, Field]]

    @abstractmethod
    def plan(self, scenario: Scenario, point: Point) -> list[Task]:
        """Checks one sweep point fully (raising ``ScenarioError`` that names the key) and
        returns its tasks, for every replication. Runs in the driver, before anything runs."""

    @abstractmethod
    def columns(self, tasks: list[Task]) -> list[tuple[str, str]]:
        """The study table's columns as (name, DuckDB type), after the shared ones."""

    @abstractmethod
    def run(self, task: Task) -> dict[str, list[Any]]:
        """Runs one task (on a worker) and returns its rows as columns."""

    @abstractmethod
    def curve(self, con: duckdb.DuckDBPyConnection, study: StudyRecord) -> pd.DataFrame:
        """The study's results merged over tasks (what a person reads), from its table."""

    @abstractmethod
    def report(
        self, con: duckdb.DuckDBPyConnection, study: StudyRecord, out_dir: Path
    ) -> ReportSection:
        """Draws the study's standard figures into ``out_dir`` and summarises it."""
