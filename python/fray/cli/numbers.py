"""Whole-number options checked against the range the core takes, before the core sees them.

An argparse ``type=`` for each kind of count: a value outside the range is refused by
argparse with the option's name (exit 2), never passed on to overflow in the bindings.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["SEED", "U32", "whole"]


def whole(minimum: int, maximum: int) -> Callable[[str], int]:
    """An argparse type: a whole number in ``[minimum, maximum]``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"must be from {minimum} to {maximum}, got {value}")
        return value

    parse.__name__ = "whole number"
    return parse


#: A seed: any 64-bit unsigned number.
SEED = whole(0, 2**64 - 1)
#: A positive count the core holds in 32 bits.
U32 = whole(1, 2**32 - 1)
