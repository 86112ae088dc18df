"""Auto-tuning with a cache per CPU model.

The choice is stored in ``$FRAY_CACHE_DIR/integrity-tune.json`` (default: the user cache
directory, ``$XDG_CACHE_HOME/fray`` or ``~/.cache/fray``), keyed by CPU model, the CPU features
the code paths use, the build of fray's compiled core (a new build may have faster kernels, so
it tunes again), the message sizes and the detection requirement.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fray import SpecError, _fray
from fray.integrity.checksums import algorithms as all_algorithms

CACHE_ENV = "FRAY_CACHE_DIR"
CACHE_FILE = "integrity-tune.json"
DEFAULT_SIZES = (32 * 1024, 1024 * 1024)
DEFAULT_REQUIREMENT = ("single", "double", "burst32")


@dataclass
class TuneResult:
    """The tuned choice and how it was reached."""

    algorithm: str
    strategy: str
    bandwidth_bytes_s: float
    cpu_model: str
    cpu_features: list[str]
    sizes_bytes: list[int]
    requirement: list[str]
    candidates: list[dict] = field(default_factory=list)
    cached: bool = False


def cache_path() -> Path:
    """The cache file: ``$FRAY_CACHE_DIR`` if set, else the user cache directory."""
    base = os.environ.get(CACHE_ENV)
    if base:
        return Path(base) / CACHE_FILE
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "fray" / CACHE_FILE


@functools.lru_cache(maxsize=1)
def _build_id() -> str:
    """A digest of the compiled core: the kernels the measurements were taken with."""
    return hashlib.sha256(Path(_fray.__file__).read_bytes()).hexdigest()[:16]


def _key(cpu_model: str, features: Sequence[str], sizes: Sequence[int],
         requirement: Sequence[str]) -> str:
    return "|".join([cpu_model, ",".join(features), _build_id(), ",".join(map(str, sizes)),
                     ",".join(requirement)])


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _store(path: Path, data: dict) -> None:
    """Writes the cache; a folder that cannot take it is a ``SpecError`` naming the file (an
    ``OSError`` traceback before)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tune-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError as exc:
        raise SpecError(f"{CACHE_ENV}: cannot write the tuning cache {path} "
                        f"({exc.strerror or exc}); set {CACHE_ENV} to a folder fray may "
                        "write in") from None


def tune(sizes_bytes: Sequence[int] = DEFAULT_SIZES, *,
         requirement: Sequence[str] = DEFAULT_REQUIREMENT,
         candidates: Sequence[str] | None = None, force: bool = False,
         message_bytes: int = 1024, trials: int = 20_000, seed: int = 1,
         min_sample_s: float = 0.005, samples: int = 3, use_cache: bool = True) -> TuneResult:
    """Picks the fastest copy+checksum on this machine that misses none of the ``requirement``
    patterns (``single``, ``double``, ``burstN``) in ``trials`` random ``message_bytes``-byte
    messages. Uses the cached choice for this CPU unless ``force``."""
    sizes = [int(s) for s in sizes_bytes]
    if not sizes or any(s <= 0 for s in sizes):
        raise SpecError("sizes: need at least one message size, all > 0 bytes")
    req = list(requirement)
    cands = list(candidates) if candidates is not None else all_algorithms()
    cpu = _fray.integrity_cpu_model()
    feats = list(_fray.integrity_cpu_features())
    key = _key(cpu, feats, sizes, req)
    path = cache_path()
    if use_cache and not force:
        hit = _load(path).get(key)
        if isinstance(hit, dict) and hit.get("algorithm") in cands:
            return TuneResult(**{**hit, "cached": True})
    alg, strategy, bw, rows = _fray.integrity_tune(
        sizes, cands, req, message_bytes, trials, seed, min_sample_s, samples)
    cand_rows = []
    for name, meets, detection, strat, total_s, cbw, meas in rows:
        cand_rows.append({
            "algorithm": name,
            "meets_requirement": meets,
            "missed": {p: m for p, _t, m in detection},
            "strategy": strat,
            "time_s": total_s if meets else None,
            "bandwidth_bytes_s": cbw if meets else None,
            "measurements": [
                {"operation": op, "size_bytes": sz, "bandwidth_bytes_s": b}
                for _a, op, sz, _med, b, _s in meas
            ],
        })
    result = TuneResult(algorithm=alg, strategy=strategy, bandwidth_bytes_s=bw, cpu_model=cpu,
                        cpu_features=feats, sizes_bytes=sizes, requirement=req,
                        candidates=cand_rows)
    if use_cache:
        data = _load(path)
        entry = asdict(result)
        entry.pop("cached")
        data[key] = entry
        _store(path, data)
    return result


def tuned_algorithm(sizes_bytes: Sequence[int] = DEFAULT_SIZES) -> str:
    """The tuned algorithm for this CPU (from the cache, tuning once if needed)."""
    return tune(sizes_bytes).algorithm
