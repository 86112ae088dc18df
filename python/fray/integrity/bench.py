"""Bandwidth of checksums and copies on this machine (timed in Rust)."""

from __future__ import annotations

from collections.abc import Sequence

from fray import SpecError, _fray
from fray.integrity.checksums import algorithms as all_algorithms

OPERATIONS = ("checksum", "fused", "blocked", "copy+checksum", "memcpy")


def bench(sizes_bytes: Sequence[int] = (32 * 1024, 64 * 1024 * 1024),
          algorithms: Sequence[str] | None = None,
          operations: Sequence[str] = ("checksum", "fused"), *,
          min_sample_s: float = 0.02, samples: int = 5, progress=None) -> list[dict]:
    """Times every (algorithm, operation, size); ``memcpy`` rows are added once per size as
    the reference. Each row has ``size_bytes``, ``bandwidth_bytes_s`` (median of ``samples``)
    and the samples themselves."""
    algs = list(algorithms) if algorithms is not None else all_algorithms()
    for op in operations:
        if op not in OPERATIONS:
            raise SpecError(f"operations: unknown operation {op!r} (known: {', '.join(OPERATIONS)})")
    for s in sizes_bytes:
        if s <= 0:
            raise SpecError(f"sizes: buffer sizes must be > 0 bytes, got {s}")
    rows = []
    jobs = [(size, "memcpy", algs[0]) for size in sizes_bytes]
    jobs += [(size, op, a) for size in sizes_bytes for a in algs for op in operations
             if op != "memcpy"]
    for size, op, a in jobs:
        name, opname, size_b, median_s, bw, samples_s = _fray.integrity_measure(
            op, a, size, min_sample_s, samples)
        rows.append({
            "algorithm": None if op == "memcpy" else name,
            "operation": opname,
            "size_bytes": size_b,
            "median_s": median_s,
            "bandwidth_bytes_s": bw,
            "samples_s": samples_s,
        })
        if progress is not None:
            progress(rows[-1])
    return rows
