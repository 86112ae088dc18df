"""The keys a scenario file may hold: what each one expects, its default, and one error type.

A study kind declares its sections as ``{section: {key: Field}}``; the scenario parser checks
every key of the file against them, so a typo'd key is an error, never ignored. Every error
names the file and the key (``study.toml: faults.samples: expected ...``).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fray import SpecError

__all__ = [
    "Field",
    "ScenarioError",
    "boolean",
    "choice",
    "closest",
    "describe",
    "number",
    "text",
    "whole",
]

#: A field without a default must be given (in the file or by every sweep point).
REQUIRED = object()


class ScenarioError(SpecError):
    """A scenario file that cannot be run: the message names the file, the key and what was
    expected."""

    def __init__(self, source: str, key: str | None, message: str) -> None:
        self.source, self.key, self.reason = source, key, message
        where = f"{source}: {key}: " if key else f"{source}: "
        super().__init__(where + message)


@dataclass(frozen=True)
class Field:
    """One key of a section: what it expects (in words, for errors and docs), how a value is
    checked and normalised, and its default (``REQUIRED`` when it must be given)."""

    expected: str
    check: Callable[[Any], Any]
    default: Any = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def normalise(self, value: Any) -> Any:
        """The checked value, or ``ValueError`` whose message says what was expected (a check
        raises ``TypeError`` or ``ValueError``, with an optional detail)."""
        try:
            return self.check(value)
        except (TypeError, ValueError) as exc:
            detail = f" ({exc})" if str(exc) and str(exc) not in self.expected else ""
            raise ValueError(f"expected {self.expected}, got {describe(value)}{detail}") from None


def describe(value: Any) -> str:
    """A value as an error message quotes it: its TOML spelling and, for tables, the word."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {describe(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(describe(v) for v in value[:4]) + (", ...]" if len(value) > 4
                                                                   else "]")
    return str(value)


def text(value: Any) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("")
    return value


def boolean(value: Any) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        raise TypeError("")
    return value


def whole(minimum: int = 0, maximum: int | None = None) -> Callable[[Any], int]:
    """A whole number (not a float, not a boolean) in ``[minimum, maximum]``."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("")
        if value < minimum:
            raise ValueError("")
        if maximum is not None and value > maximum:
            raise ValueError(f"at most {maximum:,}")
        return value

    return check


def number(value: Any) -> float:
    """A finite number (a whole number is accepted and becomes a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("")
    return float(value)


def choice(*allowed: str) -> Callable[[Any], str]:
    """One of the strings ``allowed``."""

    def check(value: Any) -> str:
        if value not in allowed:
            raise ValueError("")
        return value

    return check


def closest(word: str, known: Iterable[str]) -> str:
    """`` (did you mean "x"?)`` when ``word`` looks like a typo of a known word, else ``""``."""
    match = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f' (did you mean "{match[0]}"?)' if match else ""
