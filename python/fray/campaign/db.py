"""The results file: an embedded DuckDB database, one table per study, written by one writer.

Besides the study tables it holds two small tables of its own:

- ``fray_studies``: per study, its kind, the scenario's hash and text, and how many tasks its
  plan has;
- ``fray_tasks``: per finished task, its key, hash, wall time and when it finished.

A task's rows and its ``fray_tasks`` entry are written in one transaction, so a study killed at
any moment holds every finished task completely or not at all, and a re-run skips exactly the
finished ones. Results of a changed scenario (another hash) are refused, never mixed in.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pandas as pd

from fray import FrayError, SpecError
from fray.campaign import studies
from fray.campaign.kind import StudyRecord
from fray.campaign.tasks import SHARED_COLUMNS, TRAILING_COLUMNS, Plan, fray_version

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ResultsDB", "check_results_file", "read_results"]

_META = """
CREATE TABLE IF NOT EXISTS fray_studies (
    name VARCHAR PRIMARY KEY, kind VARCHAR NOT NULL, scenario_hash VARCHAR NOT NULL,
    scenario VARCHAR NOT NULL, source_text VARCHAR, source_path VARCHAR,
    planned_tasks INTEGER NOT NULL, created_at TIMESTAMP, fray_version VARCHAR);
CREATE TABLE IF NOT EXISTS fray_tasks (
    study VARCHAR NOT NULL, task_key VARCHAR NOT NULL, scenario_hash VARCHAR NOT NULL,
    wall_s DOUBLE, finished_at TIMESTAMP, PRIMARY KEY (study, task_key));
"""


#: Names DuckDB reads as a table, not as a database file, when such a file exists and is not
#: a DuckDB database: it then opens an empty database in memory over it, and what a run writes
#: there is lost. A results file by such a name is refused, unless it is a DuckDB database.
_DATA_SUFFIXES = tuple(data + packed for data in (".csv", ".tsv", ".parquet", ".json", ".jsonl",
                                                  ".ndjson") for packed in ("", ".gz", ".zst"))
#: Names DuckDB reads as something other than a local file: an in-memory database, a
#: ``TYPE:PATH`` of another system, a URL.
_NOT_A_FILE = re.compile(r"^(:memory:|[A-Za-z][A-Za-z0-9+.-]*://|(duckdb|sqlite3?|md|motherduck|"
                         r"ducklake|postgres|mysql):)", re.IGNORECASE)
#: The bytes of a DuckDB database file at offset 8 (after the header's checksum).
_DUCKDB_MAGIC = b"DUCK"


def check_results_file(path: str | Path, field: str | None = None, *,
                       writing: bool) -> Path:
    """``path`` as a ``Path`` when it is a DuckDB results file (or, ``writing``, a place
    where one can be made); otherwise a ``SpecError`` naming ``field`` (the option, or the
    file alone when ``None``) and what the file is. Reads at most the file's first bytes,
    never opens it in DuckDB, so a file another process is writing is not disturbed."""
    text = os.fspath(path)
    where = f"{field} {text}" if field else text
    if not text.strip() or _NOT_A_FILE.match(text):
        raise SpecError(f"{where}: DuckDB reads this as an in-memory, remote or other "
                        "system's database, not as a local file; give a file such as "
                        "results.duckdb")
    p = Path(text)
    if p.is_dir():
        raise SpecError(f"{where}: is a folder, expected a results file such as "
                        f"{p / 'results.duckdb'}")
    if p.exists():
        if not p.is_file():
            raise SpecError(f"{where}: not a regular file, expected a results file")
        if not os.access(p, os.R_OK):
            raise SpecError(f"{where}: the results file cannot be read (permission denied)")
        what = _what_file(p)
        if what is not None:
            raise SpecError(f"{where}: not a fray results file ({what}, not a DuckDB "
                            "database)")
        if writing and not os.access(p, os.W_OK):
            raise SpecError(f"{where}: the results file exists and cannot be written")
    elif not writing:
        raise SpecError(f"{where}: no such results file")
    else:
        suffix = next((x for x in _DATA_SUFFIXES if p.name.lower().endswith(x)), None)
        if suffix is not None:
            raise SpecError(f"{where}: a results file is a DuckDB database, and DuckDB reads "
                            f"a {suffix} file as a table once it exists; give a name such as "
                            f"{p.name[:-len(suffix)] or 'results'}.duckdb")
        existing = p.parent
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            raise SpecError(f"{where}: {existing} is not a folder")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise SpecError(f"{where}: cannot make a file in {existing}")
    return p


def _what_file(path: Path) -> str | None:
    """``None`` when the file at ``path`` is a DuckDB database, else what it is in words (a
    CSV table, a Parquet file, an empty file, ...), read from its first bytes."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as exc:
        return f"a file that cannot be read: {exc.strerror}"
    if not head:
        return "an empty file"
    if head[8:12] == _DUCKDB_MAGIC:
        return None
    for magic, what in ((b"SQLite format 3\0", "a SQLite database"), (b"PAR1", "a Parquet file"),
                        (b"\x1f\x8b", "a gzip-compressed file"),
                        (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
                        (b"PK\x03\x04", "a zip archive or spreadsheet"),
                        (b"\x89PNG", "a PNG image"), (b"%PDF", "a PDF document")):
        if head.startswith(magic):
            return what
    try:
        body = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3 or b"\0" in head:
            return "binary data"
        body = head[:exc.start].decode("utf-8")
    if "\0" in body:
        return "binary data"
    body = body.lstrip("\ufeff \t\r\n")
    first = body.split("\n", 1)[0]
    if body[:1] in "{[":
        return "a JSON file"
    if "\t" in first:
        return "a TSV table" if "," not in first else "a text file"
    if "," in first:
        return "a CSV table"
    return "a text file"


class ResultsDB:
    """A results file, opened for writing (one campaign) or reading (report, export)."""

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = check_results_file(path, writing=not read_only)
        if not read_only:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise SpecError(f"{self.path}: cannot make its folder ({exc.strerror})"
                                ) from None
        try:
            # An absolute path: DuckDB reads no "TYPE:" prefix or URL into it.
            self.con = duckdb.connect(os.path.abspath(self.path), read_only=read_only)
        except duckdb.Error as exc:
            reason = str(exc).splitlines()[0]
            hint = ("; another process holds it: is a campaign still writing it?"
                    if "could not set lock" in reason.lower() else "")
            raise FrayError(f"{self.path}: cannot open the results file ({reason}){hint}"
                            ) from None
        try:
            if not read_only:
                self.con.execute(_META)
            elif not self._has_table("fray_studies"):
                raise SpecError(f"{self.path}: not a fray results file (no fray_studies "
                                "table)")
            self._check_schema()
        except duckdb.Error as exc:
            self.con.close()
            reason = str(exc).splitlines()[0]
            raise SpecError(f"{self.path}: damaged results file ({reason})") from None
        except SpecError:
            self.con.close()
            raise
        self._types: dict[str, dict[str, str]] = {}

    def _check_schema(self) -> None:
        """Fails, naming what is wrong, unless the file holds fray's own tables with their
        columns, and every study a known kind, its table with the columns every study of its
        kind has, and no more finished tasks than planned."""
        meta = {"fray_studies": ["name", "kind", "scenario_hash", "scenario", "source_path",
                                 "planned_tasks", "created_at"],
                "fray_tasks": ["study", "task_key", "scenario_hash"]}
        for table, wanted in meta.items():
            if not self._has_table(table):
                raise SpecError(f"{self.path}: damaged results file (no {table} table)")
            have = {r[0] for r in self.con.execute(f'DESCRIBE "{table}"').fetchall()}
            for column in wanted:
                if column not in have:
                    raise SpecError(f"{self.path}: damaged results file ({table} has no "
                                    f"column {column!r})")
        rows = self.con.execute(
            """SELECT s.name, s.kind, s.planned_tasks, count(t.task_key)
               FROM fray_studies s LEFT JOIN fray_tasks t
                 ON t.study = s.name AND t.scenario_hash = s.scenario_hash
               GROUP BY ALL""").fetchall()
        for name, kind, planned, done in rows:
            where = f"{self.path}: study {name!r}"
            if kind not in studies.names():
                raise SpecError(f"{where} is of kind {kind!r}, which this fray does not know "
                                f"(known: {', '.join(studies.names())})")
            if not self._has_table(name):
                raise SpecError(f"{where}: its table is missing")
            if planned is None or planned < 1 or done > planned:
                raise SpecError(f"{where}: {done} tasks done of {planned} planned; the file "
                                "was changed by hand or damaged")
            have = {r[0] for r in self.con.execute(f'DESCRIBE "{name}"').fetchall()}
            needed = SHARED_COLUMNS + studies.get(kind).columns([]) + TRAILING_COLUMNS
            for column, _ in needed:
                if column not in have:
                    raise SpecError(f"{where}: its table has no column {column!r}")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------

    def register(self, plan: Plan, replace: bool = False) -> None:
        """Records the plan's study (creating its table), or checks it is the same scenario.

        A study of the same name from another scenario is refused (``SpecError``), unless
        ``replace``: then its old rows are dropped first."""
        s = plan.scenario
        old = self.con.execute("SELECT scenario_hash, source_path FROM fray_studies "
                               "WHERE name = ?", [s.name]).fetchone()
        if old is not None and old[0] != s.hash:
            if not replace:
                raise SpecError(
                    f"{self.path}: study {s.name!r} holds results of another scenario (hash "
                    f"{old[0]}, from {old[1]}); {s.source} is {s.hash}. Use another --db or "
                    f"study.name, or --replace to drop the old results")
            self._drop(s.name)
            old = None
        if old is None:
            if self._has_table(s.name):
                raise SpecError(f"{self.path}: a table {s.name!r} exists but is not a fray "
                                "study; choose another study.name")
            columns = ", ".join(f'"{n}" {t}' for n, t in plan.columns)
            with self._transaction():
                self.con.execute(f'CREATE TABLE "{s.name}" ({columns})')
                self.con.execute(
                    "INSERT INTO fray_studies VALUES (?, ?, ?, ?, ?, ?, ?, now(), ?)",
                    [s.name, s.kind, s.hash, json.dumps(s.canonical(), sort_keys=True), s.text,
                     s.source, len(plan.tasks), fray_version()])
        else:
            have = self.con.execute(f'DESCRIBE "{s.name}"').fetchall()
            if [(r[0], r[1]) for r in have] != list(plan.columns):
                raise SpecError(f"{self.path}: study {s.name!r} was written by another fray "
                                "version with other columns; use another --db or --replace")
        self._types[s.name] = dict(plan.columns)

    def done_keys(self, name: str) -> set[str]:
        """Keys of the tasks of study ``name`` already written."""
        rows = self.con.execute("SELECT task_key FROM fray_tasks WHERE study = ?",
                                [name]).fetchall()
        return {r[0] for r in rows}

    def write(self, name: str, scenario_hash: str, task_key: str,
              columns: dict[str, list[Any]]) -> bool:
        """Writes one finished task's rows and marks it done, in one transaction. Returns
        False (and writes nothing) if the task was already written."""
        return self.write_many(name, scenario_hash, [(task_key, columns)]) == 1

    def write_many(self, name: str, scenario_hash: str,
                   tasks: list[tuple[str, dict[str, list[Any]]]]) -> int:
        """Writes finished tasks (key, columns) in one transaction (one commit for all of
        them); a task already written is skipped. Returns how many were written."""
        if not tasks:
            return 0
        try:
            with self._transaction():
                self._insert(name, scenario_hash, tasks)
            return len(tasks)
        except duckdb.ConstraintException:
            if len(tasks) == 1:
                return 0  # in fray_tasks already: the transaction was rolled back
            return sum(self.write_many(name, scenario_hash, [t]) for t in tasks)

    def _insert(self, name: str, scenario_hash: str,
                tasks: list[tuple[str, dict[str, list[Any]]]]) -> None:
        types = self._types[name]
        columns: dict[str, list[Any]] = {c: [] for c in tasks[0][1]}
        for _, cols in tasks:
            for c, values in cols.items():
                columns[c].extend(values)
        keys = [k for k, _ in tasks]
        walls = [float(cols["wall_s"][0]) if "wall_s" in cols else None for _, cols in tasks]
        self.con.execute("INSERT INTO fray_tasks SELECT ?, unnest(?::VARCHAR[]), ?, "
                         "unnest(?::DOUBLE[]), now()", [name, keys, scenario_hash, walls])
        # Each column goes in as one typed list parameter, unnested side by side: faster than
        # going through a DataFrame, and None stays NULL whatever the type.
        names = ", ".join(f'"{c}"' for c in columns)
        values = ", ".join(f"unnest(?::{types[c]}[])" for c in columns)
        self.con.execute(f'INSERT INTO "{name}" ("scenario_hash", {names}) SELECT ?, {values}',
                         [scenario_hash, *columns.values()])

    # -- reading -----------------------------------------------------------------------------

    def studies(self, names: Iterable[str] | None = None) -> list[StudyRecord]:
        """The studies in the file (all, or those named), oldest first; a file with no study
        is an error (there is nothing to report or export)."""
        rows = self.con.execute(
            """SELECT s.name, s.kind, s.scenario_hash, s.scenario, s.source_path,
                      s.planned_tasks, count(t.task_key)
               FROM fray_studies s LEFT JOIN fray_tasks t
                 ON t.study = s.name AND t.scenario_hash = s.scenario_hash
               GROUP BY ALL ORDER BY min(s.created_at), s.name""").fetchall()
        out = [StudyRecord(name=r[0], kind=r[1], scenario_hash=r[2], scenario=json.loads(r[3]),
                           source=r[4], planned_tasks=r[5], done_tasks=r[6]) for r in rows]
        if not out:
            raise SpecError(f"{self.path}: holds no study (was its campaign stopped before "
                            "planning?)")
        if names is not None:
            wanted = set(names)
            missing = wanted - {s.name for s in out}
            if missing:
                raise SpecError(f"{self.path}: no study named {min(missing)!r} (it holds "
                                f"{', '.join(s.name for s in out) or 'none'})")
            out = [s for s in out if s.name in wanted]
        return out

    def rows(self, study: StudyRecord) -> pd.DataFrame:
        """Every row of a study, in task order."""
        return self.con.execute(
            f'SELECT * FROM "{study.name}" WHERE scenario_hash = ? '
            "ORDER BY point, replication, task_key", [study.scenario_hash]).df()

    # -- helpers -----------------------------------------------------------------------------

    def _has_table(self, name: str) -> bool:
        return bool(self.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
            [name]).fetchone()[0])

    def _drop(self, name: str) -> None:
        with self._transaction():
            self.con.execute(f'DROP TABLE IF EXISTS "{name}"')
            self.con.execute("DELETE FROM fray_tasks WHERE study = ?", [name])
            self.con.execute("DELETE FROM fray_studies WHERE name = ?", [name])

    def _transaction(self) -> _Transaction:
        return _Transaction(self.con)


@contextmanager
def read_results(path: str | Path) -> Iterator[ResultsDB]:
    """The results file at ``path`` opened for reading (report, export): its schema checked
    on opening, and any DuckDB error while reading it (a file cut short, a damaged block) a
    ``SpecError`` naming the file."""
    try:
        with ResultsDB(path, read_only=True) as results:
            yield results
    except duckdb.Error as exc:
        reason = str(exc).splitlines()[0]
        raise SpecError(f"{path}: damaged results file ({reason})") from None


def _interrupted(exc: BaseException | None) -> bool:
    """Whether ``exc`` is DuckDB turning a Ctrl-C into an error ("Query interrupted")."""
    return isinstance(exc, duckdb.InterruptException) or (
        isinstance(exc, RuntimeError) and "interrupted" in str(exc).lower()
    )


@contextmanager
def _ctrl_c_as_keyboard_interrupt() -> Iterator[None]:
    """Raises ``KeyboardInterrupt`` where the block raises DuckDB's error for a Ctrl-C it
    caught (:func:`_interrupted`); any other error as it is."""
    try:
        yield
    except Exception as exc:
        if _interrupted(exc):
            raise KeyboardInterrupt from exc
        raise


class _Transaction:
    """One DuckDB transaction: committed when its block ends, rolled back on any error. A
    Ctrl-C that DuckDB caught inside a statement comes out as ``KeyboardInterrupt``, so the
    command line stops as for any other Ctrl-C (nothing of the transaction is kept)."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def __enter__(self) -> None:
        with _ctrl_c_as_keyboard_interrupt():
            self.con.begin()

    def __exit__(self, exc_type, exc, tb) -> None:
        with _ctrl_c_as_keyboard_interrupt():
            if exc_type is None:
                self.con.commit()
            else:
                self.con.rollback()
        if _interrupted(exc):
            raise KeyboardInterrupt from exc
