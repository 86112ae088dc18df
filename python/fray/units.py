"""Quantities typed by people: ``400Gb/s``, ``50GB/s``, ``2KiB``, ``150ns``.

Thin wrappers over the one parser in the core (``fray_core::units``), so that a value means
the same in every command, scenario file and study. Decimal prefixes (k, M, G, T) are powers
of 10; binary prefixes (Ki, Mi, Gi, Ti) are powers of 2; a bandwidth is in bytes (``B/s``) or
bits (``b/s``) per second. A bad value raises ``SpecError`` whose message starts with the
field it came from and whose ``field`` attribute names it.
"""

from __future__ import annotations

from fray import _fray


def parse_bytes(value: str, field: str = "size") -> int:
    """A size such as ``64KiB``, ``4MB``, ``1e6B`` or ``8B``, in bytes (a whole number)."""
    return _fray.parse_bytes(value, field)


def parse_rate(value: str, field: str = "bandwidth") -> float:
    """A bandwidth such as ``400Gb/s``, ``50GB/s`` or ``800MiB/s``, in bytes per second (> 0)."""
    return _fray.parse_rate(value, field)


def parse_seconds(value: str, field: str = "time") -> float:
    """A duration such as ``1.4us``, ``150ns`` or ``2s``, in seconds."""
    return _fray.parse_seconds(value, field)


def parse_size_list(value: str, field: str = "sizes") -> list[int]:
    """Sizes separated by commas (``32KiB,64MiB``) or a doubling range (``8B..64MiB``), in bytes."""
    return _fray.parse_size_list(value, field)


def format_bytes(size_bytes: int) -> str:
    """A size in bytes as text that :func:`parse_bytes` reads back (``2048`` is ``2KiB``)."""
    return _fray.format_bytes(size_bytes)


def format_rate(bytes_per_s: float) -> str:
    """A bandwidth in bytes per second as text :func:`parse_rate` reads back (``50GB/s``)."""
    return _fray.format_rate(bytes_per_s)


def format_seconds(seconds: float) -> str:
    """A duration in seconds as text that :func:`parse_seconds` reads back (``100ns``)."""
    return _fray.format_seconds(seconds)
