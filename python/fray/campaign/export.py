"""``fray export``: the tables of a results file as Parquet or CSV files.

Per study, ``<study>.<ext>`` holds its rows as stored (one per task and result row) and
``<study>_curve.<ext>`` the results merged over tasks (what the report draws).
"""

from __future__ import annotations

from pathlib import Path

from fray import SpecError
from fray.campaign import studies
from fray.campaign.db import read_results
from fray.store import write_table

__all__ = ["FORMATS", "export"]

FORMATS = ("parquet", "csv")


def export(db: str | Path, out_dir: str | Path, fmt: str = "parquet",
           names: list[str] | None = None) -> list[Path]:
    """Writes every study of ``db`` (or those ``names``) to ``out_dir``; returns the files."""
    if fmt not in FORMATS:
        raise SpecError(f"format: expected parquet or csv, got {fmt!r}")
    out = Path(out_dir)
    written = []
    with read_results(db) as results:
        for study in results.studies(names):
            kind = studies.get(study.kind)
            written.append(write_table(results.rows(study), out / f"{study.name}.{fmt}"))
            written.append(write_table(kind.curve(results.con, study),
                                       out / f"{study.name}_curve.{fmt}"))
    return written
