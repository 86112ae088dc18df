"""Writing result tables: CSV or Parquet, chosen by the file's extension.

Parquet is written by DuckDB, which fray also uses as its results database.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from fray import SpecError

__all__ = ["check_path", "read_table", "write_table"]

_FORMATS = {".csv": "csv", ".parquet": "parquet"}


def check_path(path: str | Path) -> str:
    """The table format (``csv`` or ``parquet``) of ``path``, or a ``SpecError``."""
    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise SpecError(f"out: {str(path)!r} must end in .csv or .parquet")
    return fmt


def write_table(table: pd.DataFrame, path: str | Path) -> Path:
    """Writes ``table`` to ``path`` (``.csv`` or ``.parquet``) atomically; returns the path."""
    path = Path(path)
    fmt = check_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    if fmt == "csv":
        table.to_csv(tmp, index=False)
    else:
        con = duckdb.connect()
        con.register("result_table", table)
        con.execute(f"COPY result_table TO '{_sql_path(tmp)}' (FORMAT parquet)")
        con.close()
    tmp.replace(path)
    return path


def read_table(path: str | Path) -> pd.DataFrame:
    """Reads a table written by :func:`write_table`."""
    path = Path(path)
    if check_path(path) == "csv":
        return pd.read_csv(path)
    con = duckdb.connect()
    try:
        return con.execute(f"SELECT * FROM read_parquet('{_sql_path(path)}')").df()
    finally:
        con.close()


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
