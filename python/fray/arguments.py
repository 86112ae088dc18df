"""Checks of the Python API's arguments: a number of the wrong type or out of its range is a
``SpecError`` naming the argument, as every other bad input of the API is. One place for the
wrappers (``fray.links``, ``fray.plan``, ``fray.simulate``, ``fray.integrity``); the command
line reads its strings with :mod:`fray.cli.numbers`, the extension its arguments in Rust.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from fray._fray import SpecError

__all__ = ["U32_MAX", "U64_MAX", "echo", "real", "shown", "whole"]

#: The largest number a ``u32`` of the core holds (numbers of jobs, seeds, replications,
#: iterations, chunks, the endpoint budget).
U32_MAX = 2**32 - 1
#: The largest number a ``u64`` (or ``usize`` on a 64-bit machine) of the core holds.
U64_MAX = 2**64 - 1


def echo(text: str, limit: int = 24) -> str:
    """``text`` as an error message quotes it: whole when short, else its first and last
    characters around an ellipsis and its length (a 309-digit number is not repeated)."""
    if len(text) <= limit:
        return text
    return f"{text[:10]}...{text[-6:]} ({len(text)} characters)"


def shown(value: Any) -> str:
    """``value`` as an error message quotes it (see :func:`echo`)."""
    return echo(str(value))


def whole(value: Any, field: str, minimum: int = 0, maximum: int = U64_MAX) -> int:
    """``value`` as an int when it is a whole number (not a float, not a boolean; numpy's
    integers are) in ``[minimum, maximum]``; else a ``SpecError`` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SpecError(f"{field}: expected a whole number, got {value!r}")
    if not minimum <= value <= maximum:
        raise SpecError(f"{field}: must be from {minimum} to {maximum}, got {shown(value)}")
    return int(value)


def real(value: Any, field: str, minimum: float = -math.inf, maximum: float = math.inf) -> float:
    """``value`` as a float when it is a finite number (not a boolean) in ``[minimum,
    maximum]``; else a ``SpecError`` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SpecError(f"{field}: expected a finite number, got {value!r}")
    if not (math.isfinite(value) and minimum <= value <= maximum):
        if math.isinf(maximum):
            wanted = "" if math.isinf(minimum) else f" >= {minimum:g}"
        else:
            wanted = f" from {minimum:g} to {maximum:g}"
        raise SpecError(f"{field}: must be a finite number{wanted}, got {value}")
    return float(value)
