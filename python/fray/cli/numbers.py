"""Option values checked before the core sees them: whole numbers against the range the core
takes, real numbers against theirs, and options that may be given only once.

An argparse ``type=`` for each kind of number: a value outside the range is refused by
argparse with the option's name (exit 2), never passed on to overflow in the bindings or to
come back as an ``inf`` or ``NaN`` later.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from fray import SpecError
from fray.arguments import U32_MAX, U64_MAX, echo

T = TypeVar("T")

__all__ = ["SEED", "U32", "U32_MAX", "U64", "U64_MAX", "Once", "distinct", "echo", "items", "real",
           "whole"]



def whole(minimum: int, maximum: int) -> Callable[[str], int]:
    """An argparse type: a whole number in ``[minimum, maximum]``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a whole number, got {echo(text)!r}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"must be from {minimum} to {maximum}, got {echo(str(value))}")
        return value

    parse.__name__ = "whole number"
    return parse


def real(minimum: float = -math.inf, maximum: float = math.inf, *,
         above: bool = False, below: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number from ``minimum`` (or above it, with ``above``) to
    ``maximum`` (or below it, with ``below``); an end left infinite is open."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {echo(text)!r}") from None
        low_ok = value > minimum if above else value >= minimum
        high_ok = value < maximum if below else value <= maximum
        if not (math.isfinite(value) and low_ok and high_ok):
            if math.isinf(maximum):
                wanted = f"{'>' if above else '>='} {minimum:g}"
            else:
                wanted = (f"from {minimum:g}{' (not included)' if above else ''} to "
                          f"{maximum:g}{' (not included)' if below else ''}")
            raise argparse.ArgumentTypeError(
                f"must be a finite number {wanted}, got {echo(text)}")
        return value

    parse.__name__ = "number"
    return parse


class Once(argparse.Action):
    """An option that may be given once: a second one is refused (argparse's plain option
    silently keeps the last)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            raise argparse.ArgumentError(
                self, f"given twice ({getattr(namespace, self.dest)!s} and {values!s}); give "
                "it once")
        setattr(namespace, self.dest, values)


#: A seed: any 64-bit unsigned number.
SEED = whole(0, U64_MAX)
#: A positive count the core holds in 32 bits.
U32 = whole(1, U32_MAX)
#: A positive count the core holds in 64 bits (``u64``, or ``usize`` on a 64-bit machine).
U64 = whole(1, U64_MAX)


def distinct(values: Iterable[T], option: str) -> list[T]:
    """``values`` of ``option`` as a list, refusing one given twice (each is a row of a
    table, or a case of a sweep)."""
    out: list[T] = []
    for value in values:
        if value in out:
            raise SpecError(f"{option}: {value} given twice")
        out.append(value)
    return out


def items(text: str, option: str, what: str, separator: str = ",") -> list[str]:
    """The ``separator``-separated items of ``option``, stripped: at least one (``what`` names
    it in the error), none given twice."""
    out = distinct((t.strip() for t in text.split(separator) if t.strip()), option)
    if not out:
        raise SpecError(f"{option}: give at least one {what}")
    return out
