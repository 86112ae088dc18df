"""Checksums of bytes-like objects, in one call, in pieces, or fused with a copy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fray import SpecError, _fray

STRATEGIES = ("fused", "blocked")


@dataclass(frozen=True)
class AlgorithmInfo:
    """What an algorithm is: its name, width in bits and whether it is only a speed reference."""

    name: str
    bits: int
    description: str
    reference_only: bool


def algorithm_info() -> list[AlgorithmInfo]:
    """Every algorithm with its properties, in the paper's order then the modern ones."""
    return [AlgorithmInfo(*row) for row in _fray.integrity_algorithms()]


def algorithms() -> list[str]:
    """The algorithm names: ``sum32, xor32, adler32, fletcher64, jenkins, fnv1a32, fnv1a64,
    knuth, murmur2a, superfasthash, crc32c, crc32, xxh3``."""
    return [a.name for a in algorithm_info()]


def _name(algorithm: Any) -> str:
    if not isinstance(algorithm, str):
        raise SpecError(f"algorithm: expected a name such as 'crc32c', got {type(algorithm).__name__}")
    return algorithm


def _seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise SpecError(f"seed: expected an integer in [0, 2**64), got {seed!r}")
    return seed


def checksum(data: Any, algorithm: str, seed: int = 0) -> int:
    """The checksum of ``data`` (any contiguous bytes-like object) as an int.

    32-bit algorithms give values below 2**32. ``seed`` 0 is the standard function for every
    algorithm; see ``docs/integrity.md`` for what a seed means for each.
    """
    return _fray.integrity_checksum(data, _name(algorithm), _seed(seed))


def copy_checksum(dst: Any, src: Any, algorithm: str, *, seed: int = 0,
                  strategy: str = "fused") -> int:
    """Copies ``src`` into ``dst`` (same length, distinct writable buffer) and returns the
    checksum of the bytes, computed inside the copy (``strategy="fused"``) or per L1 block
    (``"blocked"``). The value equals ``checksum(src, algorithm, seed)``."""
    if strategy not in STRATEGIES:
        raise SpecError(f"strategy: expected one of {', '.join(STRATEGIES)}, got {strategy!r}")
    return _fray.integrity_copy_checksum(dst, src, _name(algorithm), _seed(seed), strategy)


class Checksummer:
    """A checksum computed in pieces: ``update`` in any split gives the one-call value."""

    def __init__(self, algorithm: str, seed: int = 0) -> None:
        self._inner = _fray.Checksummer(_name(algorithm), _seed(seed))

    @property
    def algorithm(self) -> str:
        """The algorithm name."""
        return self._inner.algorithm

    def update(self, data: Any) -> Checksummer:
        """Folds ``data`` in; returns ``self``."""
        self._inner.update(data)
        return self

    def update_copy(self, dst: Any, src: Any) -> Checksummer:
        """Copies ``src`` into ``dst`` and folds the bytes in; returns ``self``."""
        self._inner.update_copy(dst, src)
        return self

    def value(self) -> int:
        """The checksum of everything fed so far."""
        return self._inner.value()
