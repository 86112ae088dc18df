"""Cable health from a machine's own state: every cable of an ``ibnetdiscover`` dump
classified from port counters (``perfquery -x``, ``ibqueryerrors``, or a CSV of samples) and a
down-cable file, as a pandas DataFrame.

``classify_cables("x5.topofile", ["counters.csv"])`` gives one row per cable, most suspect
first: ``verdict`` is ``down``, ``flapping``, ``below-peers``, ``erroring``, ``congested`` or
``healthy``; ``ber`` with ``ber_low`` and ``ber_high`` is the bit-error-rate estimate of the
worse direction with its confidence interval. The arithmetic and thresholds are in
``docs/health.md``; all of it runs in the core.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike

import pandas as pd

from fray import _fray

__all__ = ["VERDICTS", "classify_cables"]

#: Cable classes, most severe first.
VERDICTS = ("down", "flapping", "below-peers", "erroring", "congested", "healthy")


def classify_cables(
    dump: str | PathLike[str],
    counters: Sequence[str | PathLike[str]] = (),
    *,
    down: str | PathLike[str] | None = None,
    ber: float = 1e-12,
    confidence: float = 0.95,
    xmit_wait_ratio: float = 0.1,
) -> pd.DataFrame:
    """Every cable of the dump at ``dump``, classified from the counter files ``counters`` and
    the down-cable file ``down`` (one ``FROM->TO`` a line); ``ber`` is the bit-error rate above
    which a cable is erroring, ``confidence`` that of its interval, ``xmit_wait_ratio`` the
    transmit-wait ratio above which it is congested."""
    columns = _fray.classify_cables(
        str(dump),
        [str(c) for c in counters],
        None if down is None else str(down),
        ber,
        confidence,
        xmit_wait_ratio,
    )
    frame = pd.DataFrame(columns)
    frame["verdict"] = pd.Categorical(frame["verdict"], categories=VERDICTS, ordered=True)
    return frame
