"""Error-detection quality: how many injected errors each algorithm misses."""

from __future__ import annotations

from collections.abc import Sequence

from fray import SpecError, _fray
from fray.integrity.checksums import algorithms as all_algorithms

DEFAULT_PATTERNS = ("single", "double", "burst8", "burst16", "burst32", "burst64")


def parse_patterns(text: str, field: str = "patterns") -> list[str]:
    """``single,double,burst32`` as a list; each name is checked by the core."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise SpecError(f"{field}: expected patterns such as single,double,burst32")
    return parts


def detection_table(algorithms: Sequence[str] | None = None,
                    patterns: Sequence[str] = DEFAULT_PATTERNS, *,
                    message_bytes: int = 1024, trials: int = 20_000,
                    seed: int = 1) -> list[dict]:
    """Injects each pattern ``trials`` times into random ``message_bytes``-byte messages and
    counts the corrupted messages whose checksum did not change (``missed``)."""
    algs = list(algorithms) if algorithms is not None else all_algorithms()
    if message_bytes <= 0:
        raise SpecError("message_bytes: must be > 0")
    if trials <= 0:
        raise SpecError("trials: must be > 0")
    rows = _fray.integrity_detection_table(algs, list(patterns), message_bytes, trials, seed)
    return [
        {"algorithm": a, "pattern": p, "trials": t, "missed": m, "miss_rate": m / t}
        for a, p, t, m in rows
    ]
