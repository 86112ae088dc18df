"""Strict parsing of quantities typed by people: ``3GB/s``, ``100us``, ``4MiB``.

Decimal prefixes (k, M, G, T) are powers of 10; binary prefixes (Ki, Mi, Gi, Ti) are powers
of 2. A value without its unit, or with an unknown unit, is rejected with a ``SpecError``
that quotes the value and the field it came from.
"""

from __future__ import annotations

import re
from decimal import Decimal

from fray import SpecError

_NUMBER = r"(?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
           "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}
_EXACT_PREFIX = {"": Decimal(1), "k": Decimal(10**3), "K": Decimal(10**3), "M": Decimal(10**6),
                 "G": Decimal(10**9), "T": Decimal(10**12), "Ki": Decimal(2**10),
                 "Mi": Decimal(2**20), "Gi": Decimal(2**30), "Ti": Decimal(2**40)}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12}
_SIZE_RE = re.compile(rf"^{_NUMBER}\s*(?P<prefix>Ki|Mi|Gi|Ti|k|K|M|G|T|)B$")
_RATE_RE = re.compile(rf"^{_NUMBER}\s*(?P<prefix>Ki|Mi|Gi|Ti|k|K|M|G|T|)B/s$")
_TIME_RE = re.compile(rf"^{_NUMBER}\s*(?P<unit>s|ms|us|µs|ns|ps)$")


def _fail(value: str, field: str, expected: str) -> SpecError:
    return SpecError(f"{field}: cannot read {value!r} as {expected}")


def parse_bytes(value: str, field: str = "size") -> int:
    """A size such as ``64KiB``, ``4MB`` or ``8B``, in bytes (must be a whole number)."""
    m = _SIZE_RE.match(value.strip())
    if not m:
        raise _fail(value, field, "a size like 64KiB, 4MB or 8B")
    # Exact decimal arithmetic: "1.1KB" is 1100 bytes, not 1100.0000000000002.
    size = Decimal(m["num"]) * _EXACT_PREFIX[m["prefix"]]
    if size != size.to_integral_value():
        raise _fail(value, field, "a whole number of bytes")
    return int(size)


def parse_rate(value: str, field: str = "bandwidth") -> float:
    """A bandwidth such as ``3GB/s`` or ``800MiB/s``, in bytes per second (must be > 0)."""
    m = _RATE_RE.match(value.strip())
    if not m:
        raise _fail(value, field, "a bandwidth like 3GB/s")
    rate = float(m["num"]) * _PREFIX[m["prefix"]]
    if rate <= 0:
        raise _fail(value, field, "a positive bandwidth")
    return rate


def parse_seconds(value: str, field: str = "time") -> float:
    """A duration such as ``1.4us``, ``100ns`` or ``2s``, in seconds."""
    m = _TIME_RE.match(value.strip())
    if not m:
        raise _fail(value, field, "a duration like 1.4us, 100ns or 2s")
    return float(m["num"]) * _TIME[m["unit"]]


def parse_size_list(value: str, field: str = "sizes") -> list[int]:
    """Sizes separated by commas (``32KiB,64MiB``) or a doubling range (``8B..64MiB``), in bytes."""
    text = value.strip()
    if ".." in text:
        lo_text, _, hi_text = text.partition("..")
        lo, hi = parse_bytes(lo_text, field), parse_bytes(hi_text, field)
        if lo <= 0 or hi < lo:
            raise _fail(value, field, "a range LOW..HIGH with 0 < LOW <= HIGH")
        sizes = []
        size = lo
        while size <= hi:
            sizes.append(size)
            size *= 2
        return sizes
    parts = text.split(",")
    if not text or any(not p.strip() for p in parts):
        raise _fail(value, field, "a list of sizes separated by single commas")
    return [parse_bytes(p, field) for p in parts]
