"""Writing result tables: CSV or Parquet, chosen by the file's extension.

Parquet is written by DuckDB, which fray also uses as its results database.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pandas as pd

from fray import SpecError

__all__ = ["check_path", "read_table", "write_table"]

_FORMATS = {".csv": "csv", ".parquet": "parquet"}


def check_path(path: str | Path) -> str:
    """The table format (``csv`` or ``parquet``) of ``path``, or a ``SpecError``."""
    if not isinstance(path, (str, os.PathLike)):
        raise SpecError(f"out: expected the path of a .csv or .parquet file, got {path!r}")
    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise SpecError(f"out: {str(path)!r} must end in .csv or .parquet")
    return fmt


def write_table(table: pd.DataFrame, path: str | Path) -> Path:
    """Writes ``table`` to ``path`` (``.csv`` or ``.parquet``) atomically; returns the path.
    A path that cannot be written raises ``SpecError`` naming it."""
    if not isinstance(table, pd.DataFrame):
        raise SpecError(f"table: expected a pandas DataFrame, got {type(table).__name__}")
    fmt = check_path(path)
    path = Path(path)
    tmp = path.with_name(path.name + ".partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "csv":
            table.to_csv(tmp, index=False)
        else:
            con = duckdb.connect()
            try:
                con.register("result_table", table)
                con.execute(f"COPY result_table TO '{_sql_path(tmp)}' (FORMAT parquet)")
            finally:
                con.close()
        tmp.replace(path)
    except (OSError, duckdb.Error) as e:
        tmp.unlink(missing_ok=True)
        raise SpecError(f"out: cannot write {str(path)!r}: {_reason(e)}") from None
    return path


def read_table(path: str | Path) -> pd.DataFrame:
    """Reads a table written by :func:`write_table`; a file that is missing or is not such a
    table raises ``SpecError`` naming it."""
    fmt = check_path(path)
    path = Path(path)
    try:
        if fmt == "csv":
            return pd.read_csv(path)
        con = duckdb.connect()
        try:
            return con.execute(f"SELECT * FROM read_parquet('{_sql_path(path)}')").df()
        finally:
            con.close()
    except (OSError, duckdb.Error, pd.errors.ParserError, pd.errors.EmptyDataError,
            UnicodeDecodeError) as e:
        raise SpecError(f"{str(path)!r}: cannot read it as a {fmt} table: {_reason(e)}") from None


def _reason(e: Exception) -> str:
    """What went wrong, on one line: an ``OSError``'s reason, another error's first line."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
