"""Output paths checked before any work starts: a table, a figure, a report or a folder.

A run that can only fail at its end, once its output is written, wastes the run; so every
command checks where it will write first. A file output must end in a known extension, must
not be a folder, and its folder must take a new file; a folder output must not be a file and
must take a new file. Errors are ``SpecError`` naming the option.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from fray import SpecError

__all__ = ["FIGURES", "REPORTS", "TABLES", "check_file", "check_folder", "write_text"]

#: Extensions of result tables (``fray.store``).
TABLES = (".csv", ".parquet")
#: Extensions of figures (matplotlib picks the format by extension).
FIGURES = (".png", ".pdf", ".svg")
#: Extensions of text reports (any name without an extension is a text file too).
REPORTS = (".txt", ".log", ".out", "")


def _writable_folder(folder: Path, field: str) -> None:
    """Fails unless a new file can be made in ``folder`` (or, when it does not exist yet, in
    its nearest existing parent, where it would be made)."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise SpecError(f"{field}: {existing} is not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise SpecError(f"{field}: cannot write in {existing} ({exc.strerror})") from None


def check_file(path: str | os.PathLike, field: str, extensions: tuple[str, ...] | None) -> Path:
    """``path`` as a ``Path`` when a file can be written there with one of ``extensions``
    (``None``: any name); otherwise a ``SpecError`` naming ``field`` (the option) and what is
    wrong."""
    p = Path(path)
    if len(os.fsencode(p.name)) > 255:
        raise SpecError(f"{field}: the file name is {len(os.fsencode(p.name))} bytes long, "
                        "more than the 255 a folder takes")
    try:
        is_dir = p.is_dir()
    except OSError as exc:  # a path too long, or looping links
        raise SpecError(f"{field}: cannot use this path ({exc.strerror})") from None
    if is_dir:
        raise SpecError(f"{field}: {p} is a folder, expected a file")
    if extensions is not None and p.suffix.lower() not in extensions:
        named = [e for e in extensions if e]
        known = ", ".join(named[:-1]) + " or " + named[-1] if len(named) > 1 else named[0]
        raise SpecError(f"{field}: {str(p)!r} must end in {known}")
    if p.exists() and not os.access(p, os.W_OK):
        raise SpecError(f"{field}: {p} exists and cannot be written")
    _writable_folder(p.parent if str(p.parent) else Path("."), field)
    return p


def check_folder(path: str | os.PathLike, field: str) -> Path:
    """``path`` as a ``Path`` when it is (or can be made) a folder that takes new files;
    otherwise a ``SpecError`` naming ``field``."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise SpecError(f"{field}: {p} is a file, expected a folder")
    _writable_folder(p, field)
    return p


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Writes ``text`` (UTF-8) to ``path``, making its folder first as the table and figure
    writers do (:func:`check_file` let a folder that does not exist yet through)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p
