"""Bounds and checks of the ping-pong's and the transport's arguments, shared by ``fray
integrity pingpong`` (which checks them before MPI starts) and the Python API.

This module does not import mpi4py, so that the command line can check its options without
starting MPI. Each check raises a ``SpecError`` naming the argument (or option) it was given.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from fray import SpecError, _fray
from fray.arguments import real, shown, whole
from fray.campaign.limits import U32_MAX, U64_MAX
from fray.integrity.checksums import algorithms

__all__ = ["MAX_GIVE_UP", "MAX_MESSAGE_BYTES", "MAX_TRIALS", "MODES", "PATHS", "U32_MAX",
           "U64_MAX", "algorithms", "ber", "damaged", "message_sizes", "modes", "path", "real",
           "shown", "whole"]

#: The largest message the ping-pong sends and the largest chunk or ring slot the transport
#: takes (bytes, 1 GiB): the largest buffer the checksum measurements allocate (the core's
#: ``MAX_BUFFER_BYTES``), and ``CheckedComm``'s default ``max_message_bytes``. The ping-pong
#: holds up to nine buffers of the largest size per rank.
MAX_MESSAGE_BYTES: int = _fray.MAX_BUFFER_BYTES
#: The most trials of the ping-pong: the most samples a checksum measurement takes (the
#: core's ``MAX_SAMPLES``). Each trial is up to 1,000 round trips per size and mode.
MAX_TRIALS: int = _fray.MAX_SAMPLES
#: The modes of the ping-pong besides the algorithm names.
MODES = ("none", "naive", "unchecked", "auto")
#: The paths of the checked transport.
PATHS = ("auto", "shared-memory", "mpi")
#: The highest chance the ping-pong takes that one of its messages stays damaged after every
#: retry (the transport then gives up and the run ends with an error, or hangs: see
#: ``pingpong``): a ``ber`` above it is refused before the first message.
MAX_GIVE_UP = 0.01


def ber(value: Any, field: str = "ber") -> float:
    """A bit error rate: a finite number from 0 to 1."""
    return real(value, field, 0.0, 1.0)


def _listed(values: Any, field: str, what: str) -> list:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise SpecError(f"{field}: expected a list of {what}, got {values!r}")
    out: list = []
    for v in values:
        if v in out:
            raise SpecError(f"{field}: {v} given twice")
        out.append(v)
    if not out:
        raise SpecError(f"{field}: give at least one {what.rstrip('s')}")
    return out


def message_sizes(sizes: Any, field: str = "sizes_bytes") -> list[int]:
    """Message sizes in bytes: at least one, each a whole number from 0 to
    ``MAX_MESSAGE_BYTES``, none given twice."""
    out = []
    for s in _listed(sizes, field, "sizes"):
        if isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 0:
            raise SpecError(f"{field}: expected whole numbers of bytes >= 0, got {s!r}")
        if s > MAX_MESSAGE_BYTES:
            raise SpecError(f"{field}: {shown(s)} bytes is more than the largest message, "
                            f"{MAX_MESSAGE_BYTES} bytes (1 GiB)")
        out.append(int(s))
    return out


def modes(names: Any, field: str = "modes") -> list[str]:
    """Ping-pong modes: at least one of ``none``, ``naive``, ``unchecked``, ``auto`` or an
    algorithm name, none given twice."""
    out = _listed(names, field, "modes")
    known = [*MODES, *algorithms()]
    for m in out:
        if m not in known:
            raise SpecError(f"{field}: unknown mode {m!r} (known: none, naive, unchecked, "
                            f"auto or an algorithm name: {', '.join(algorithms())})")
    return out


def path(value: Any, field: str = "path") -> str:
    """A path of the checked transport: ``auto``, ``shared-memory`` or ``mpi``."""
    if value not in PATHS:
        raise SpecError(f"{field}: expected auto, shared-memory or mpi, got {value!r}")
    return value


def damaged(frame_bytes: int, ber: float) -> float:
    """The chance that a frame of ``frame_bytes`` bytes takes at least one bit flip at bit
    error rate ``ber``."""
    if ber <= 0.0 or frame_bytes <= 0:
        return 0.0
    if ber >= 1.0:
        return 1.0
    return -math.expm1(8 * frame_bytes * math.log1p(-ber))
